//! Functions that would reach outside the chart: the cluster (`lookup`), the clock (`now`,
//! `date`...), randomness (`randAlphaNum`, `uuidv4`...) and key generation (`genCA`...).
//!
//! A render here depends on the chart and its values only, so the same input always gives the
//! same output; these names exist so that a template calling one fails with a reason instead of
//! "unknown function".

use minijinja::value::{Rest, Value, ValueOrKwargs};
use minijinja::{Environment, Error, ErrorKind};

/// Each name with the reason it cannot run offline.
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
];

/// The names registered here.
pub const NAMES: [&str; REASONS.len()] = {
    let mut names = [""; REASONS.len()];
    let mut i = 0;
    while i < REASONS.len() {
        names[i] = REASONS[i].0;
        i += 1;
    }
    names
};

/// Registers each name as a function (and filter) that fails with its reason.
pub fn register(env: &mut Environment<'static>) {
    for (name, reason) in REASONS {
        let fail = move || -> Result<Value, Error> {
            Err(Error::new(
                ErrorKind::InvalidOperation,
                format!("`{name}` is not available in an offline render: {reason}"),
            ))
        };
        env.add_function(*name, move |_: Rest<ValueOrKwargs>| fail());
        env.add_filter(*name, move |_: Value, _: Rest<ValueOrKwargs>| fail());
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
