//! Helm's functions that are not here, each with the reason:
//!
//! - refused on purpose, because they would reach outside the chart: the cluster (`lookup`), the
//!   clock (`now`, `date`...), randomness (`randAlphaNum`, `uuidv4`, `bcrypt`...), key generation
//!   (`genCA`...), the environment (`env`, which Helm removes too) and the network;
//! - not supported yet (`fromToml`, date parsing...).
//!
//! A render here depends on the chart and its values only, so the same input always gives the
//! same output; these names exist so that a template calling one fails with a reason instead of
//! "unknown function", and `meshchart functions` lists them.

use minijinja::value::{Rest, Value, ValueOrKwargs};
use minijinja::{Environment, Error, ErrorKind};

/// Each name refused on purpose, with the reason it cannot run offline.
const REASONS: &[(&str, &str)] = &[
    ("lookup", "it would read objects from a cluster, and meshchart renders without one; pass what you need as values"),
    ("now", "it reads the clock, so the output would change from run to run"),
    ("date", "it formats the clock's time, so the output would change from run to run"),
    ("dateInZone", "it formats the clock's time, so the output would change from run to run"),
    ("dateModify", "it works on the clock's time, so the output would change from run to run"),
    ("mustDateModify", "it works on the clock's time, so the output would change from run to run"),
    ("ago", "it reads the clock, so the output would change from run to run"),
    ("unixEpoch", "it reads the clock, so the output would change from run to run"),
    ("randAlphaNum", "it is random, so the output would change from run to run"),
    ("randAlpha", "it is random, so the output would change from run to run"),
    ("randNumeric", "it is random, so the output would change from run to run"),
    ("randAscii", "it is random, so the output would change from run to run"),
    ("randBytes", "it is random, so the output would change from run to run"),
    ("randInt", "it is random, so the output would change from run to run"),
    ("shuffle", "it is random, so the output would change from run to run"),
    ("uuidv4", "it is random, so the output would change from run to run"),
    ("genPrivateKey", "it generates a random key; pass keys in as values"),
    ("genCA", "it generates a random key and reads the clock; pass certificates in as values"),
    ("genCAWithKey", "it reads the clock; pass certificates in as values"),
    ("genSelfSignedCert", "it generates a random key and reads the clock; pass certificates in as values"),
    ("genSelfSignedCertWithKey", "it reads the clock; pass certificates in as values"),
    ("genSignedCert", "it generates a random key and reads the clock; pass certificates in as values"),
    ("genSignedCertWithKey", "it reads the clock; pass certificates in as values"),
    ("bcrypt", "it salts the hash at random, so the output would change from run to run"),
    ("htpasswd", "it salts the hash at random, so the output would change from run to run"),
    ("encryptAES", "it uses a random initialisation vector, so the output would change from run to run"),
    ("getHostByName", "it would ask the network's DNS, and a render depends on its inputs only"),
    ("env", "it would read meshchart's environment (Helm removes it too); pass what you need as values"),
    ("expandenv", "it would read meshchart's environment (Helm removes it too); pass what you need as values"),
];

/// Helm's functions meshchart does not have yet, each with what to do instead.
pub(super) const NOT_SUPPORTED: &[(&str, &str)] = &[
    ("fromToml", "not supported yet: there is no TOML reader; keep the data in YAML or JSON (fromYaml, fromJson)"),
    ("toDate", "not supported yet: dates are not parsed; pass the formatted text as a value"),
    ("mustToDate", "not supported yet: dates are not parsed; pass the formatted text as a value"),
    ("htmlDate", "not supported yet: dates are not parsed; pass the formatted text as a value"),
    ("htmlDateInZone", "not supported yet: dates are not parsed; pass the formatted text as a value"),
    ("durationRound", "not supported yet; duration(seconds) prints a duration"),
    ("derivePassword", "not supported yet; pass the password as a value"),
    ("decryptAES", "not supported yet; pass the plain text as a value"),
    ("buildCustomCert", "not supported yet; pass certificates in as values"),
    ("html", "not supported yet (Go's HTML escaping); charts rarely need it in YAML"),
    ("js", "not supported yet (Go's JavaScript escaping); toJson quotes a string for JSON"),
    ("urlquery", "not supported yet (Go's query escaping); urlJoin escapes a path"),
    ("call", "Go templates call a function value with it; Jinja calls functions directly: f(x)"),
];

/// Go template builtins whose Jinja spelling is syntax, not a function.
pub(super) const GO_BUILTINS: &[(&str, &str)] = &[
    ("and", "`a and b`"),
    ("or", "`a or b`"),
    ("not", "`not a`"),
    ("eq", "`a == b`"),
    ("ne", "`a != b`"),
    ("lt", "`a < b`"),
    ("le", "`a <= b`"),
    ("gt", "`a > b`"),
    ("ge", "`a >= b`"),
    ("index", "`m[key]`, `list[i]`"),
];

/// The reason each refused name is refused, in the library's order.
pub(super) fn refused() -> &'static [(&'static str, &'static str)] {
    REASONS
}

/// The names registered here.
pub(super) const NAMES: [&str; REASONS.len()] = {
    let mut names = [""; REASONS.len()];
    let mut i = 0;
    while i < REASONS.len() {
        names[i] = REASONS[i].0;
        i += 1;
    }
    names
};

/// Registers each name as a function (and filter) that fails with its reason.
pub(super) fn register(env: &mut Environment<'static>) {
    let refused = REASONS
        .iter()
        .map(|(name, reason)| (*name, "is not available in an offline render", *reason));
    let missing = NOT_SUPPORTED
        .iter()
        .map(|(name, reason)| (*name, "is not supported by meshchart", *reason));
    for (name, what, reason) in refused.chain(missing) {
        let fail = move || -> Result<Value, Error> {
            Err(Error::new(
                ErrorKind::InvalidOperation,
                format!("`{name}` {what}: {reason}"),
            ))
        };
        env.add_function(name, move |_: Rest<ValueOrKwargs>| fail());
        env.add_filter(name, move |_: Value, _: Rest<ValueOrKwargs>| fail());
    }
}

#[cfg(test)]
mod tests {
    use crate::engine::functions::test_support::err;

    #[test]
    fn lookup_fails_with_a_clear_reason() {
        let message = err(r#"{{ lookup("v1", "ConfigMap", "default", "x") }}"#);
        assert!(
            message.starts_with("`lookup` is not available in an offline render"),
            "{message}"
        );
    }

    #[test]
    fn clock_and_random_functions_fail() {
        assert!(err("{{ now() }}").contains("reads the clock"));
        assert!(err("{{ 7 | randAlphaNum }}").contains("random"));
        assert!(err(r#"{{ genSelfSignedCert("cn", none, none, 365) }}"#).contains("offline"));
    }
}
