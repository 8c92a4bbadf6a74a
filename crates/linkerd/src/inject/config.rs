//! From annotations to values: the configuration of one pod.
//!
//! Later wins: chart defaults, the user's `-f`/`--set` values (together the *base* values), the
//! namespace's inheritable `config.linkerd.io/*` annotations, the workload's metadata annotations,
//! then the pod template's annotations. Each annotation in [`SETTINGS`] maps to a values key; the
//! chart's partials turn values into container fields. A value we do not accept is an error,
//! never silently ignored (upstream warns and ignores).

use super::error::{InjectError, Origin, WorkloadRef};
use super::parse::{
    join_ports, parse_bool, parse_go_duration, parse_port, parse_port_list, parse_port_range,
    BOOL_ALLOWED, DURATION_ALLOWED, PORT_LIST_ALLOWED,
};
use super::quantity::{Quantity, QUANTITY_ALLOWED};
use super::report::Warning;
use super::workload::{set_path, truthy};
use crate::values::{Map, Value};

/// The annotation that turns injection on, off, or on in ingress mode.
pub const INJECT_ANNOTATION: &str = "linkerd.io/inject";

/// How a pod asks to be injected (`linkerd.io/inject`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum InjectMode {
    /// Inject (the default for `meshchart inject`, or `enabled`).
    #[default]
    Enabled,
    /// `ingress`: inject, with the proxy in ingress mode.
    Ingress,
    /// `disabled`: leave the pod alone.
    Disabled,
}

/// The annotations of each layer that configures a pod.
#[derive(Clone, Copy, Debug, Default)]
pub struct Layers<'a> {
    /// The namespace's name and annotations, when known.
    pub namespace: Option<(&'a str, &'a Map)>,
    /// The workload's own `metadata.annotations` (none for a bare Pod).
    pub workload: Option<&'a Map>,
    /// The pod template's `metadata.annotations`.
    pub pod: Option<&'a Map>,
}

/// A winning annotation: the key it was written under, its value, and where it came from.
struct Found {
    key: &'static str,
    text: String,
    origin: Origin,
}

impl<'a> Layers<'a> {
    /// The winning value among `keys` (one setting's spellings, the preferred first) and where
    /// it came from: the closest layer wins (pod template, workload, then namespace, which
    /// counts only for inheritable settings), and within a layer the earliest key.
    fn lookup(&self, keys: &[&'static str], inheritable: bool) -> Option<Found> {
        let get = |m: Option<&'a Map>| {
            let m = m?;
            keys.iter()
                .find_map(|k| m.get(*k).map(|v| (*k, annotation_text(v))))
        };
        if let Some((key, text)) = get(self.pod) {
            return Some(Found {
                key,
                text,
                origin: Origin::PodTemplate,
            });
        }
        if let Some((key, text)) = get(self.workload) {
            return Some(Found {
                key,
                text,
                origin: Origin::Workload,
            });
        }
        if inheritable {
            if let Some((name, annotations)) = self.namespace {
                if let Some((key, text)) = get(Some(annotations)) {
                    return Some(Found {
                        key,
                        text,
                        origin: Origin::Namespace(name.to_owned()),
                    });
                }
            }
        }
        None
    }
}

/// An annotation's value as text. Kubernetes only accepts strings; an unquoted `9998` or `true`
/// is read as what it obviously means rather than rejected.
fn annotation_text(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        Value::Int(i) => i.to_string(),
        Value::Bool(b) => b.to_string(),
        Value::Float(f) => crate::values::format_go_float(*f),
        _ => String::new(),
    }
}

/// Facts about the pod that some annotations need.
#[derive(Clone, Debug, Default)]
pub struct PodFacts {
    /// Named container ports of the app containers: name and number.
    pub named_ports: Vec<(String, i64)>,
}

/// One pod's configuration.
#[derive(Clone, Debug, PartialEq)]
pub struct PodConfig {
    /// The values the sidecar partials render with.
    pub values: Value,
    /// `linkerd.io/inject`.
    pub mode: InjectMode,
    /// Whether to add the `linkerd-debug` container.
    pub debug: bool,
    /// What the report should say about the annotations (a port name no container has).
    pub warnings: Vec<Warning>,
}

/// What applying an annotation's value may do.
struct Apply<'a> {
    values: &'a mut Value,
    debug: &'a mut bool,
    facts: &'a PodFacts,
    warnings: &'a mut Vec<Warning>,
}

type Setter = fn(&str, &mut Apply<'_>) -> Result<(), String>;

/// An annotation we honour: its key, whether a namespace's value is inherited, and its effect.
pub struct Setting {
    /// The annotation key.
    pub key: &'static str,
    /// Older spellings of the key, read when the key itself is absent from a layer (the
    /// `config.alpha.linkerd.io/` and `config.beta.linkerd.io/` prefixes of a setting that has
    /// since become `config.linkerd.io/`).
    pub aliases: &'static [&'static str],
    /// Whether the namespace's annotation applies to the pods in it (upstream's list, plus
    /// `default-inbound-policy`).
    pub inheritable: bool,
    /// The values key it sets (documentation; the setter does the work).
    pub values_key: &'static str,
    setter: Setter,
}

const PULL_POLICIES: &[&str] = &["Always", "IfNotPresent", "Never"];
const LOG_FORMATS: &[&str] = &["plain", "json"];
const AWAIT_VALUES: &[&str] = &["enabled", "disabled"];
const INJECT_VALUES: &[&str] = &["enabled", "disabled", "ingress"];
/// The values of `config.linkerd.io/default-inbound-policy`.
pub const INBOUND_POLICIES: &[&str] = &[
    "all-unauthenticated",
    "all-authenticated",
    "cluster-unauthenticated",
    "cluster-authenticated",
    "deny",
];

fn one_of(allowed: &[&str]) -> String {
    allowed.join(", ")
}

fn set(values: &mut Value, path: &str, value: Value) {
    let keys: Vec<&str> = path.split('.').collect();
    set_path(values, &keys, value);
}

fn word(text: &str, what: &str) -> Result<(), String> {
    if text.is_empty() || text.chars().any(char::is_whitespace) {
        Err(format!("{what} (non-empty, without spaces)"))
    } else {
        Ok(())
    }
}

fn image_tag(text: &str) -> Result<(), String> {
    let mut chars = text.chars();
    let ok = chars
        .next()
        .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-'))
        && text.len() <= 128;
    if ok {
        Ok(())
    } else {
        Err("an image tag (letters, digits, _, . and -, not starting with . or -)".into())
    }
}

fn port_setter(path: &'static str) -> impl Fn(&str, &mut Apply<'_>) -> Result<(), String> {
    move |text, a| {
        let port = parse_port(text).ok_or_else(|| "a port number from 1 to 65535".to_owned())?;
        set(a.values, path, Value::Int(i64::from(port)));
        Ok(())
    }
}

fn port_list(text: &str) -> Result<String, String> {
    parse_port_list(text)
        .map(|ranges| join_ports(&ranges))
        .map_err(|_| PORT_LIST_ALLOWED.to_owned())
}

fn bool_setter(text: &str) -> Result<bool, String> {
    parse_bool(text).ok_or_else(|| BOOL_ALLOWED.to_owned())
}

fn quantity(text: &str) -> Result<Quantity, String> {
    Quantity::parse(text).ok_or_else(|| QUANTITY_ALLOWED.to_owned())
}

fn millis(text: &str) -> Result<String, String> {
    let nanos = parse_go_duration(text).ok_or_else(|| DURATION_ALLOWED.to_owned())?;
    Ok(format!("{}ms", nanos / 1_000_000))
}

/// A port list annotation (`opaque-ports`, `skip-inbound-ports`, `skip-outbound-ports`): ports,
/// ranges (kept as ranges) and names of the pod's container ports (turned into their numbers).
/// A name that no container port has is left out with a warning, as upstream logs it and keeps
/// the rest; anything else that is neither a port nor a name is an error.
fn ports_with_names(
    annotation: &'static str,
    text: &str,
    facts: &PodFacts,
    warnings: &mut Vec<Warning>,
) -> Result<String, String> {
    let allowed = || {
        let mut message = format!("{PORT_LIST_ALLOWED}, or names of the pod's container ports");
        if facts.named_ports.is_empty() {
            message.push_str(" (it has none)");
        } else {
            let names: Vec<&str> = facts.named_ports.iter().map(|(n, _)| n.as_str()).collect();
            message.push_str(&format!(" ({})", names.join(", ")));
        }
        message
    };
    let trimmed = text.trim();
    let trimmed = trimmed.strip_suffix(',').unwrap_or(trimmed);
    if trimmed.trim().is_empty() {
        return Ok(String::new());
    }
    let mut out = Vec::new();
    for item in trimmed.split(',') {
        let item = item.trim();
        if let Some((_, port)) = facts.named_ports.iter().find(|(n, _)| n == item) {
            out.push(port.to_string());
        } else if let Some(range) = parse_port_range(item) {
            out.push(range.to_string());
        } else if is_port_name(item) {
            warnings.push(Warning::UnresolvedPortName {
                annotation,
                name: item.to_owned(),
            });
        } else {
            return Err(allowed());
        }
    }
    Ok(out.join(","))
}

/// Kubernetes' rule for a container port's name (IANA_SVC_NAME): 1 to 15 lowercase letters,
/// digits and single dashes, at least one letter, no dash at either end.
fn is_port_name(text: &str) -> bool {
    let bytes = text.as_bytes();
    (1..=15).contains(&bytes.len())
        && bytes
            .iter()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || *b == b'-')
        && bytes.iter().any(u8::is_ascii_lowercase)
        && !text.starts_with('-')
        && !text.ends_with('-')
        && !text.contains("--")
}

/// The setter of a port list annotation that sets `path`.
fn port_list_setter(
    annotation: &'static str,
    path: &'static str,
) -> impl Fn(&str, &mut Apply<'_>) -> Result<(), String> {
    move |text, a| {
        let ports = ports_with_names(annotation, text, a.facts, a.warnings)?;
        set(a.values, path, ports.into());
        Ok(())
    }
}

macro_rules! setting {
    ($key:expr, $inh:expr, $values_key:expr, $setter:expr) => {
        setting!($key, [], $inh, $values_key, $setter)
    };
    ($key:expr, [$($alias:expr),*], $inh:expr, $values_key:expr, $setter:expr) => {
        Setting {
            key: $key,
            aliases: &[$($alias),*],
            inheritable: $inh,
            values_key: $values_key,
            setter: $setter,
        }
    };
}

/// The annotation that runs the proxy as a native sidecar (`proxy.nativeSidecar`).
pub const NATIVE_SIDECAR_ANNOTATION: &str = "config.linkerd.io/proxy-enable-native-sidecar";

fn one_of_setter(
    path: &'static str,
    allowed: &'static [&'static str],
) -> impl Fn(&str, &mut Apply<'_>) -> Result<(), String> {
    move |text, a| {
        if !allowed.contains(&text) {
            return Err(one_of(allowed));
        }
        set(a.values, path, text.into());
        Ok(())
    }
}

fn bool_path_setter(path: &'static str) -> impl Fn(&str, &mut Apply<'_>) -> Result<(), String> {
    move |text, a| {
        set(a.values, path, Value::Bool(bool_setter(text)?));
        Ok(())
    }
}

fn quantity_setter(path: &'static str) -> impl Fn(&str, &mut Apply<'_>) -> Result<(), String> {
    move |text, a| {
        set(a.values, path, quantity(text)?.canonical().into());
        Ok(())
    }
}

/// A duration in whole seconds (`90s`), as upstream writes the discovery cache timeouts.
fn seconds_setter(path: &'static str) -> impl Fn(&str, &mut Apply<'_>) -> Result<(), String> {
    move |text, a| {
        let nanos = parse_go_duration(text).ok_or_else(|| DURATION_ALLOWED.to_owned())?;
        set(a.values, path, format!("{}s", nanos / 1_000_000_000).into());
        Ok(())
    }
}

/// The annotations of the release lines' injectors (edge-24.10.2 and later). Each applies only
/// where the chart declares its key (`values_key`, one path) in its default values or its
/// values schema: with a chart that has no such setting (the 2021 line) it would have no
/// effect, so the report warns instead.
pub const CHART_KEYED_SETTINGS: &[Setting] = &[
    setting!(
        "config.linkerd.io/access-log",
        true,
        "proxy.accessLog",
        |t, a| one_of_setter("proxy.accessLog", &["apache", "json"])(t, a)
    ),
    setting!(
        "config.linkerd.io/shutdown-grace-period",
        true,
        "proxy.shutdownGracePeriod",
        |t, a| {
            set(a.values, "proxy.shutdownGracePeriod", millis(t)?.into());
            Ok(())
        }
    ),
    setting!("config.linkerd.io/proxy-gid", true, "proxy.gid", |t, a| {
        let gid = t
            .parse::<i64>()
            .ok()
            .filter(|g| *g >= -1)
            .ok_or_else(|| "a group id (-1 for none)".to_owned())?;
        set(a.values, "proxy.gid", Value::Int(gid));
        Ok(())
    }),
    setting!(
        "config.linkerd.io/skip-subnets",
        true,
        "proxyInit.skipSubnets",
        |t, a| {
            word(t, "comma-separated CIDRs")?;
            set(a.values, "proxyInit.skipSubnets", t.into());
            Ok(())
        }
    ),
    setting!(
        "config.linkerd.io/proxy-admin-shutdown",
        true,
        "proxy.enableShutdownEndpoint",
        |t, a| {
            if !AWAIT_VALUES.contains(&t) {
                return Err(one_of(AWAIT_VALUES));
            }
            set(
                a.values,
                "proxy.enableShutdownEndpoint",
                Value::Bool(t == "enabled"),
            );
            Ok(())
        }
    ),
    setting!(
        "config.linkerd.io/proxy-log-http-headers",
        true,
        "proxy.logHTTPHeaders",
        |t, a| one_of_setter("proxy.logHTTPHeaders", &["insecure", "off"])(t, a)
    ),
    setting!(
        "config.linkerd.io/proxy-outbound-discovery-cache-unused-timeout",
        true,
        "proxy.outboundDiscoveryCacheUnusedTimeout",
        |t, a| seconds_setter("proxy.outboundDiscoveryCacheUnusedTimeout")(t, a)
    ),
    setting!(
        "config.linkerd.io/proxy-inbound-discovery-cache-unused-timeout",
        true,
        "proxy.inboundDiscoveryCacheUnusedTimeout",
        |t, a| seconds_setter("proxy.inboundDiscoveryCacheUnusedTimeout")(t, a)
    ),
    setting!(
        "config.linkerd.io/proxy-disable-outbound-protocol-detect-timeout",
        true,
        "proxy.disableOutboundProtocolDetectTimeout",
        |t, a| bool_path_setter("proxy.disableOutboundProtocolDetectTimeout")(t, a)
    ),
    setting!(
        "config.linkerd.io/proxy-disable-inbound-protocol-detect-timeout",
        true,
        "proxy.disableInboundProtocolDetectTimeout",
        |t, a| bool_path_setter("proxy.disableInboundProtocolDetectTimeout")(t, a)
    ),
    setting!(
        "config.linkerd.io/proxy-ephemeral-storage-request",
        true,
        "proxy.resources.ephemeral-storage.request",
        |t, a| quantity_setter("proxy.resources.ephemeral-storage.request")(t, a)
    ),
    setting!(
        "config.linkerd.io/proxy-ephemeral-storage-limit",
        true,
        "proxy.resources.ephemeral-storage.limit",
        |t, a| quantity_setter("proxy.resources.ephemeral-storage.limit")(t, a)
    ),
    setting!(
        "config.linkerd.io/proxy-cpu-ratio-limit",
        true,
        "proxy.runtime.workers.maximumCPURatio",
        |t, a| {
            let ratio = t
                .parse::<f64>()
                .ok()
                .filter(|r| *r > 0.0 && *r < 1.0)
                .ok_or_else(|| "a number between 0.0 and 1.0 (exclusive)".to_owned())?;
            set(
                a.values,
                "proxy.runtime.workers.maximumCPURatio",
                Value::Float(ratio),
            );
            Ok(())
        }
    ),
    setting!(
        "config.linkerd.io/proxy-metrics-hostname-labels",
        true,
        "proxy.metrics.hostnameLabels",
        |t, a| bool_path_setter("proxy.metrics.hostnameLabels")(t, a)
    ),
];

/// Every configuration annotation we honour, in the order they are applied (then
/// [`CHART_KEYED_SETTINGS`]).
pub const SETTINGS: &[Setting] = &[
    setting!(
        "config.linkerd.io/proxy-image",
        true,
        "proxy.image.name",
        |t, a| {
            word(t, "an image name")?;
            set(a.values, "proxy.image.name", t.into());
            Ok(())
        }
    ),
    setting!(
        "config.linkerd.io/proxy-version",
        true,
        "proxy.image.version",
        |t, a| {
            image_tag(t)?;
            set(a.values, "proxy.image.version", t.into());
            Ok(())
        }
    ),
    setting!(
        "config.linkerd.io/image-pull-policy",
        true,
        "proxy.image.pullPolicy, proxyInit.image.pullPolicy",
        |t, a| {
            if !PULL_POLICIES.contains(&t) {
                return Err(one_of(PULL_POLICIES));
            }
            set(a.values, "proxy.image.pullPolicy", t.into());
            set(a.values, "proxyInit.image.pullPolicy", t.into());
            Ok(())
        }
    ),
    setting!(
        "config.linkerd.io/init-image",
        true,
        "proxyInit.image.name",
        |t, a| {
            word(t, "an image name")?;
            set(a.values, "proxyInit.image.name", t.into());
            Ok(())
        }
    ),
    setting!(
        "config.linkerd.io/init-image-version",
        true,
        "proxyInit.image.version",
        |t, a| {
            image_tag(t)?;
            set(a.values, "proxyInit.image.version", t.into());
            Ok(())
        }
    ),
    setting!(
        "config.linkerd.io/control-port",
        true,
        "proxy.ports.control",
        |t, a| { port_setter("proxy.ports.control")(t, a) }
    ),
    setting!(
        "config.linkerd.io/admin-port",
        true,
        "proxy.ports.admin",
        |t, a| { port_setter("proxy.ports.admin")(t, a) }
    ),
    setting!(
        "config.linkerd.io/inbound-port",
        true,
        "proxy.ports.inbound",
        |t, a| { port_setter("proxy.ports.inbound")(t, a) }
    ),
    setting!(
        "config.linkerd.io/outbound-port",
        true,
        "proxy.ports.outbound",
        |t, a| { port_setter("proxy.ports.outbound")(t, a) }
    ),
    setting!(
        "config.linkerd.io/skip-inbound-ports",
        true,
        "proxyInit.ignoreInboundPorts",
        |t, a| {
            port_list_setter(
                "config.linkerd.io/skip-inbound-ports",
                "proxyInit.ignoreInboundPorts",
            )(t, a)
        }
    ),
    setting!(
        "config.linkerd.io/skip-outbound-ports",
        true,
        "proxyInit.ignoreOutboundPorts",
        |t, a| {
            port_list_setter(
                "config.linkerd.io/skip-outbound-ports",
                "proxyInit.ignoreOutboundPorts",
            )(t, a)
        }
    ),
    setting!(
        "config.linkerd.io/opaque-ports",
        true,
        "proxy.opaquePorts",
        |t, a| { port_list_setter("config.linkerd.io/opaque-ports", "proxy.opaquePorts")(t, a) }
    ),
    setting!(
        "config.linkerd.io/proxy-log-level",
        true,
        "proxy.logLevel",
        |t, a| {
            word(t, "a log filter such as warn,linkerd=info")?;
            set(a.values, "proxy.logLevel", t.into());
            Ok(())
        }
    ),
    setting!(
        "config.linkerd.io/proxy-log-format",
        true,
        "proxy.logFormat",
        |t, a| {
            if !LOG_FORMATS.contains(&t) {
                return Err(one_of(LOG_FORMATS));
            }
            set(a.values, "proxy.logFormat", t.into());
            Ok(())
        }
    ),
    setting!(
        "config.linkerd.io/proxy-cpu-request",
        true,
        "proxy.resources.cpu.request",
        |t, a| {
            set(
                a.values,
                "proxy.resources.cpu.request",
                quantity(t)?.canonical().into(),
            );
            Ok(())
        }
    ),
    setting!(
        "config.linkerd.io/proxy-cpu-limit",
        true,
        "proxy.resources.cpu.limit, proxy.cores (proxy.runtime.workers.maximum)",
        |t, a| {
            let q = quantity(t)?;
            set(a.values, "proxy.resources.cpu.limit", q.canonical().into());
            let cores = i64::try_from(q.ceil_units()).unwrap_or(i64::MAX);
            // A chart whose proxy has a worker range (proxy.runtime.workers, edge-26.8.3)
            // bounds it from above, as that release's injector does; older ones pin the count.
            let has_worker_range = matches!(
                a.values.get_path(&["proxy", "runtime", "workers"]),
                Some(Value::Map(_))
            );
            let key = if has_worker_range {
                "proxy.runtime.workers.maximum"
            } else {
                "proxy.cores"
            };
            set(a.values, key, Value::Int(cores));
            Ok(())
        }
    ),
    setting!(
        "config.linkerd.io/proxy-memory-request",
        true,
        "proxy.resources.memory.request",
        |t, a| {
            set(
                a.values,
                "proxy.resources.memory.request",
                quantity(t)?.canonical().into(),
            );
            Ok(())
        }
    ),
    setting!(
        "config.linkerd.io/proxy-memory-limit",
        true,
        "proxy.resources.memory.limit",
        |t, a| {
            set(
                a.values,
                "proxy.resources.memory.limit",
                quantity(t)?.canonical().into(),
            );
            Ok(())
        }
    ),
    setting!("config.linkerd.io/proxy-uid", true, "proxy.uid", |t, a| {
        let uid = t
            .parse::<i64>()
            .ok()
            .filter(|u| *u >= 0 && t.bytes().all(|b| b.is_ascii_digit()))
            .ok_or_else(|| "a user id (a non-negative integer)".to_owned())?;
        set(a.values, "proxy.uid", Value::Int(uid));
        Ok(())
    }),
    setting!(
        "config.linkerd.io/disable-identity",
        true,
        "proxy.disableIdentity",
        |t, a| {
            set(
                a.values,
                "proxy.disableIdentity",
                Value::Bool(bool_setter(t)?),
            );
            Ok(())
        }
    ),
    setting!(
        "config.linkerd.io/proxy-require-identity-inbound-ports",
        true,
        "proxy.requireIdentityOnInboundPorts",
        |t, a| {
            set(
                a.values,
                "proxy.requireIdentityOnInboundPorts",
                port_list(t)?.into(),
            );
            Ok(())
        }
    ),
    setting!(
        "config.linkerd.io/enable-external-profiles",
        true,
        "proxy.enableExternalProfiles",
        |t, a| {
            set(
                a.values,
                "proxy.enableExternalProfiles",
                Value::Bool(bool_setter(t)?),
            );
            Ok(())
        }
    ),
    setting!(
        "config.linkerd.io/proxy-outbound-connect-timeout",
        true,
        "proxy.outboundConnectTimeout",
        |t, a| {
            set(a.values, "proxy.outboundConnectTimeout", millis(t)?.into());
            Ok(())
        }
    ),
    setting!(
        "config.linkerd.io/proxy-inbound-connect-timeout",
        true,
        "proxy.inboundConnectTimeout",
        |t, a| {
            set(a.values, "proxy.inboundConnectTimeout", millis(t)?.into());
            Ok(())
        }
    ),
    setting!(
        "config.linkerd.io/enable-gateway",
        false,
        "proxy.isGateway",
        |t, a| {
            set(a.values, "proxy.isGateway", Value::Bool(bool_setter(t)?));
            Ok(())
        }
    ),
    setting!(
        "config.linkerd.io/enable-debug-sidecar",
        true,
        "(adds linkerd-debug)",
        |t, a| {
            *a.debug = bool_setter(t)?;
            Ok(())
        }
    ),
    setting!(
        "config.linkerd.io/close-wait-timeout",
        false,
        "proxyInit.closeWaitTimeoutSecs",
        |t, a| {
            let nanos = parse_go_duration(t).ok_or_else(|| DURATION_ALLOWED.to_owned())?;
            let secs = i64::try_from(nanos / 1_000_000_000).unwrap_or(i64::MAX);
            set(a.values, "proxyInit.closeWaitTimeoutSecs", Value::Int(secs));
            Ok(())
        }
    ),
    setting!(
        "config.linkerd.io/proxy-await",
        true,
        "proxy.await",
        |t, a| {
            let on = match t {
                "enabled" => true,
                "disabled" => false,
                _ => return Err(one_of(AWAIT_VALUES)),
            };
            set(a.values, "proxy.await", Value::Bool(on));
            Ok(())
        }
    ),
    setting!(
        "config.alpha.linkerd.io/proxy-wait-before-exit-seconds",
        true,
        "proxy.waitBeforeExitSeconds",
        |t, a| {
            let secs = t
                .parse::<u32>()
                .ok()
                .filter(|_| t.bytes().all(|b| b.is_ascii_digit()))
                .ok_or_else(|| "a whole number of seconds (0 or more)".to_owned())?;
            set(
                a.values,
                "proxy.waitBeforeExitSeconds",
                Value::Int(i64::from(secs)),
            );
            Ok(())
        }
    ),
    setting!(
        NATIVE_SIDECAR_ANNOTATION,
        [
            "config.beta.linkerd.io/proxy-enable-native-sidecar",
            "config.alpha.linkerd.io/proxy-enable-native-sidecar"
        ],
        true,
        "proxy.nativeSidecar",
        |t, a| {
            set(
                a.values,
                "proxy.nativeSidecar",
                Value::Bool(bool_setter(t)?),
            );
            Ok(())
        }
    ),
    setting!(
        "config.linkerd.io/default-inbound-policy",
        true,
        "proxy.defaultInboundPolicy",
        |t, a| {
            if !INBOUND_POLICIES.contains(&t) {
                return Err(one_of(INBOUND_POLICIES));
            }
            set(a.values, "proxy.defaultInboundPolicy", t.into());
            Ok(())
        }
    ),
];

/// Every setting, each with whether it is one of [`CHART_KEYED_SETTINGS`], in the order they
/// are applied.
fn all_settings() -> impl Iterator<Item = (&'static Setting, bool)> {
    SETTINGS
        .iter()
        .map(|s| (s, false))
        .chain(CHART_KEYED_SETTINGS.iter().map(|s| (s, true)))
}

/// The values key a setting is known by: the first path of its description.
fn setting_values_key(setting: &Setting) -> Option<&'static str> {
    setting
        .values_key
        .split([',', ' '])
        .next()
        .filter(|k| k.contains('.'))
}

/// The prefixes of Linkerd's configuration annotations (`linkerd.io/inject` is not one).
const CONFIG_PREFIXES: [&str; 3] = [
    "config.linkerd.io/",
    "config.alpha.linkerd.io/",
    "config.beta.linkerd.io/",
];

/// Configuration annotations upstream's injectors (edge-21.4.4 to edge-26.8.3,
/// `pkg/k8s/labels.go`) read that no setting here applies: warned about as such, not as
/// unknown.
const NOT_APPLIED: &[&str] = &[
    "config.linkerd.io/debug-image",
    "config.linkerd.io/debug-image-pull-policy",
    "config.linkerd.io/debug-image-version",
    "config.linkerd.io/proxy-additional-env",
];

/// Names upstream gives under the prefixes that are not settings of a pod: the namespace label
/// that exempts it from the webhooks, and the inbound ports upstream's injector records.
const NOT_SETTINGS: &[&str] = &[
    "config.linkerd.io/admission-webhooks",
    "config.linkerd.io/pod-inbound-ports",
];

/// The configuration annotations of `layers` that no setting has: each a warning naming the
/// closest annotation of a setting that `applies` to this chart (a misspelling, most often),
/// once per key whatever the layers that carry it.
fn unknown_annotations(
    layers: &Layers<'_>,
    applies: &dyn Fn(&Setting, bool) -> bool,
) -> Vec<Warning> {
    let mut keys: Vec<&str> = [
        layers.namespace.map(|(_, a)| a),
        layers.workload,
        layers.pod,
    ]
    .into_iter()
    .flatten()
    .flat_map(|map| map.keys().map(String::as_str))
    .filter(|key| CONFIG_PREFIXES.iter().any(|p| key.starts_with(p)))
    .collect();
    keys.sort_unstable();
    keys.dedup();
    let known = |key: &str| {
        all_settings().any(|(s, _)| s.key == key || s.aliases.contains(&key))
            || NOT_SETTINGS.contains(&key)
    };
    let mut warnings = Vec::new();
    for key in keys {
        if known(key) {
            continue;
        }
        if let Some(annotation) = NOT_APPLIED.iter().find(|a| **a == key) {
            warnings.push(Warning::NotApplied { annotation });
            continue;
        }
        warnings.push(Warning::UnknownAnnotation {
            annotation: key.to_owned(),
            nearest: nearest_annotation(key, applies),
        });
    }
    warnings
}

/// The annotation of an applicable setting closest to `key`: by the edit distance of the name
/// after the prefix, plus one when the prefix differs (`config.alpha.linkerd.io/proxy-await`
/// is one from `config.linkerd.io/proxy-await`); within a third of the name's length.
fn nearest_annotation(key: &str, applies: &dyn Fn(&Setting, bool) -> bool) -> Option<&'static str> {
    let split = |k: &str| {
        let prefix = CONFIG_PREFIXES
            .iter()
            .find(|p| k.starts_with(*p))
            .copied()
            .unwrap_or_default();
        (prefix, k[prefix.len()..].to_owned())
    };
    let (prefix, name) = split(key);
    let limit = (name.chars().count() / 3).max(1);
    all_settings()
        .filter(|(s, keyed)| applies(s, *keyed))
        .flat_map(|(s, _)| std::iter::once(s.key).chain(s.aliases.iter().copied()))
        .map(|candidate| {
            let (their_prefix, their_name) = split(candidate);
            let distance = crate::values::known::edit_distance(&name, &their_name)
                + usize::from(their_prefix != prefix);
            (distance, candidate)
        })
        .filter(|(distance, _)| *distance <= limit)
        .min()
        .map(|(_, candidate)| candidate)
}

/// Reads `linkerd.io/inject` from the workload and the pod template (the pod wins). Namespaces
/// are not consulted: running `inject` on a file is the request to inject it.
pub fn inject_mode(layers: &Layers<'_>, workload: &WorkloadRef) -> Result<InjectMode, InjectError> {
    let Some(Found { text, origin, .. }) = layers.lookup(&[INJECT_ANNOTATION], false) else {
        return Ok(InjectMode::Enabled);
    };
    match text.as_str() {
        "enabled" => Ok(InjectMode::Enabled),
        "ingress" => Ok(InjectMode::Ingress),
        "disabled" => Ok(InjectMode::Disabled),
        _ => Err(InjectError::InvalidAnnotation {
            workload: Box::new(workload.clone()),
            annotation: INJECT_ANNOTATION.into(),
            value: text,
            origin,
            allowed: one_of(INJECT_VALUES),
        }),
    }
}

/// The configuration of one pod: `base` values with every annotation of `layers` applied.
pub fn resolve(
    base: &Value,
    layers: &Layers<'_>,
    facts: &PodFacts,
    workload: &WorkloadRef,
) -> Result<PodConfig, InjectError> {
    resolve_for_chart(base, layers, facts, workload, &|_| None)
}

/// [`resolve`] for a chart that may say which values keys it has: `chart_declares(path)` is
/// whether its values schema names `path` (dotted), `None` without a schema. An annotation
/// whose values key neither the base values nor the schema have is not applied and the report
/// warns (it would have no effect with this chart, as the 2021 line's `disable-identity` with
/// a later release's chart); a [`CHART_KEYED_SETTINGS`] annotation needs its key declared even
/// without a schema.
pub fn resolve_for_chart(
    base: &Value,
    layers: &Layers<'_>,
    facts: &PodFacts,
    workload: &WorkloadRef,
    chart_declares: &dyn Fn(&str) -> Option<bool>,
) -> Result<PodConfig, InjectError> {
    let mode = inject_mode(layers, workload)?;
    let mut values = base.clone();
    // `debugContainer.enabled` (upstream's --enable-debug-sidecar); the annotation overrides it.
    let mut debug = truthy(base, &["debugContainer", "enabled"]);
    let mut warnings = Vec::new();
    // Whether a setting has an effect with this chart: not when the values key it sets is one
    // the chart does not have (a setting of another release's chart).
    let applies = |setting: &Setting, keyed: bool| {
        !setting_values_key(setting).is_some_and(|key| {
            let path: Vec<&str> = key.split('.').collect();
            let schema = chart_declares(key);
            base.get_path(&path).is_none()
                && schema != Some(true)
                && (keyed || schema == Some(false))
        })
    };
    warnings.extend(unknown_annotations(layers, &|s, keyed| applies(s, keyed)));
    for (setting, keyed) in all_settings() {
        let keys: Vec<&'static str> = std::iter::once(setting.key)
            .chain(setting.aliases.iter().copied())
            .collect();
        let Some(Found { key, text, origin }) = layers.lookup(&keys, setting.inheritable) else {
            continue;
        };
        let values_key = setting_values_key(setting);
        if !applies(setting, keyed) {
            warnings.push(Warning::NotInChart {
                annotation: setting.key,
                values_key: values_key.unwrap_or(setting.values_key),
            });
            continue;
        }
        let mut apply = Apply {
            values: &mut values,
            debug: &mut debug,
            facts,
            warnings: &mut warnings,
        };
        (setting.setter)(&text, &mut apply).map_err(|allowed| InjectError::InvalidAnnotation {
            workload: Box::new(workload.clone()),
            annotation: key.into(),
            value: text.clone(),
            origin,
            allowed,
        })?;
    }
    if mode == InjectMode::Ingress {
        set(&mut values, "proxy.isIngress", Value::Bool(true));
    }
    if truthy(&values, &["proxy", "disableIdentity"])
        && truthy(&values, &["proxy", "requireIdentityOnInboundPorts"])
    {
        return Err(InjectError::Conflict {
            workload: Box::new(workload.clone()),
            message: "config.linkerd.io/proxy-require-identity-inbound-ports \
                      (proxy.requireIdentityOnInboundPorts) cannot be set when identity is \
                      disabled"
                .into(),
        });
    }
    Ok(PodConfig {
        values,
        mode,
        debug,
        warnings,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn workload() -> WorkloadRef {
        WorkloadRef {
            source: "in.yaml".into(),
            line: 1,
            kind: "Deployment".into(),
            name: "web".into(),
            namespace: "emojivoto".into(),
        }
    }

    fn annotations(pairs: &[(&str, &str)]) -> Map {
        pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), Value::from(*v)))
            .collect()
    }

    fn base() -> Value {
        crate::yaml::parse_document("proxy: {await: true, ports: {admin: 4191}}").unwrap()
    }

    #[test]
    fn later_layers_win_and_namespaces_only_lend_inheritable_keys() {
        let ns = annotations(&[
            ("config.linkerd.io/proxy-await", "disabled"),
            ("config.linkerd.io/admin-port", "1000"),
            ("config.linkerd.io/close-wait-timeout", "10s"),
            ("linkerd.io/inject", "disabled"),
        ]);
        let wl = annotations(&[("config.linkerd.io/admin-port", "2000")]);
        let pod = annotations(&[("config.linkerd.io/admin-port", "3000")]);
        let layers = Layers {
            namespace: Some(("emojivoto", &ns)),
            workload: Some(&wl),
            pod: Some(&pod),
        };
        let config = resolve(&base(), &layers, &PodFacts::default(), &workload()).unwrap();
        assert_eq!(config.mode, InjectMode::Enabled);
        let v = &config.values;
        assert_eq!(
            v.get_path(&["proxy", "ports", "admin"]),
            Some(&Value::Int(3000))
        );
        assert_eq!(v.get_path(&["proxy", "await"]), Some(&Value::Bool(false)));
        assert_eq!(v.get_path(&["proxyInit", "closeWaitTimeoutSecs"]), None);
        let layers = Layers {
            workload: Some(&wl),
            ..Layers::default()
        };
        let config = resolve(&base(), &layers, &PodFacts::default(), &workload()).unwrap();
        assert_eq!(
            config.values.get_path(&["proxy", "ports", "admin"]),
            Some(&Value::Int(2000))
        );
    }

    #[test]
    fn invalid_values_name_workload_annotation_and_allowed_values() {
        let pod = annotations(&[("config.linkerd.io/proxy-await", "enabeld")]);
        let layers = Layers {
            pod: Some(&pod),
            ..Layers::default()
        };
        let err = resolve(&base(), &layers, &PodFacts::default(), &workload()).unwrap_err();
        assert_eq!(
            err.to_string(),
            "in.yaml:1: deployment/web (namespace emojivoto): annotation \
             config.linkerd.io/proxy-await has an invalid value \"enabeld\" (on the pod \
             template); allowed: enabled, disabled"
        );
        let pod = annotations(&[("config.linkerd.io/skip-inbound-ports", "90-80")]);
        let layers = Layers {
            pod: Some(&pod),
            ..Layers::default()
        };
        let err = resolve(&base(), &layers, &PodFacts::default(), &workload()).unwrap_err();
        assert!(err.to_string().contains("\"90-80\""), "{err}");
        assert!(err.to_string().contains(PORT_LIST_ALLOWED), "{err}");
    }

    #[test]
    fn conversions() {
        let pod = annotations(&[
            ("config.linkerd.io/proxy-cpu-limit", "1500m"),
            ("config.linkerd.io/proxy-cpu-request", "0.5"),
            ("config.linkerd.io/opaque-ports", "3000,5000-6000,mysql,"),
            ("config.linkerd.io/proxy-outbound-connect-timeout", "1.5s"),
            ("config.linkerd.io/close-wait-timeout", "2m0s"),
            ("config.linkerd.io/default-inbound-policy", "deny"),
            ("linkerd.io/inject", "ingress"),
        ]);
        let layers = Layers {
            pod: Some(&pod),
            ..Layers::default()
        };
        let facts = PodFacts {
            named_ports: vec![("mysql".into(), 3306)],
        };
        let config = resolve(&base(), &layers, &facts, &workload()).unwrap();
        let v = &config.values;
        let at = |p: &[&str]| v.get_path(p).cloned().unwrap_or_default();
        assert_eq!(at(&["proxy", "cores"]), Value::Int(2));
        assert_eq!(
            at(&["proxy", "resources", "cpu", "limit"]),
            Value::from("1500m")
        );
        assert_eq!(
            at(&["proxy", "resources", "cpu", "request"]),
            Value::from("500m")
        );
        assert_eq!(
            at(&["proxy", "opaquePorts"]),
            Value::from("3000,5000-6000,3306")
        );
        assert_eq!(
            at(&["proxy", "outboundConnectTimeout"]),
            Value::from("1500ms")
        );
        assert_eq!(at(&["proxyInit", "closeWaitTimeoutSecs"]), Value::Int(120));
        assert_eq!(at(&["proxy", "defaultInboundPolicy"]), Value::from("deny"));
        assert_eq!(at(&["proxy", "isIngress"]), Value::Bool(true));
        assert_eq!(config.mode, InjectMode::Ingress);
    }

    #[test]
    fn a_later_releases_annotation_applies_only_where_the_chart_has_its_key() {
        let pod = annotations(&[
            ("config.linkerd.io/access-log", "json"),
            (
                "config.linkerd.io/proxy-outbound-discovery-cache-unused-timeout",
                "1m30s",
            ),
        ]);
        let layers = Layers {
            pod: Some(&pod),
            ..Layers::default()
        };
        let config = resolve(&base(), &layers, &PodFacts::default(), &workload()).unwrap();
        assert_eq!(config.values.get_path(&["proxy", "accessLog"]), None);
        assert_eq!(
            config.warnings,
            [
                Warning::NotInChart {
                    annotation: "config.linkerd.io/access-log",
                    values_key: "proxy.accessLog",
                },
                Warning::NotInChart {
                    annotation: "config.linkerd.io/proxy-outbound-discovery-cache-unused-timeout",
                    values_key: "proxy.outboundDiscoveryCacheUnusedTimeout",
                },
            ]
        );
        let mut values = base();
        set_path(&mut values, &["proxy", "accessLog"], Value::from(""));
        set_path(
            &mut values,
            &["proxy", "outboundDiscoveryCacheUnusedTimeout"],
            Value::from("5s"),
        );
        let config = resolve(&values, &layers, &PodFacts::default(), &workload()).unwrap();
        let at = |p: &[&str]| config.values.get_path(p).cloned();
        assert_eq!(at(&["proxy", "accessLog"]), Some(Value::from("json")));
        assert_eq!(
            at(&["proxy", "outboundDiscoveryCacheUnusedTimeout"]),
            Some(Value::from("90s"))
        );
        assert!(config.warnings.is_empty(), "{:?}", config.warnings);
        let bad = annotations(&[("config.linkerd.io/access-log", "common")]);
        let layers = Layers {
            pod: Some(&bad),
            ..Layers::default()
        };
        let err = resolve(&values, &layers, &PodFacts::default(), &workload()).unwrap_err();
        assert!(err.to_string().contains("apache, json"), "{err}");
    }

    #[test]
    fn a_cpu_limit_bounds_the_worker_range_of_charts_that_have_one() {
        let pod = annotations(&[("config.linkerd.io/proxy-cpu-limit", "1500m")]);
        let layers = Layers {
            pod: Some(&pod),
            ..Layers::default()
        };
        let mut values = base();
        set_path(
            &mut values,
            &["proxy", "runtime", "workers", "minimum"],
            Value::Int(1),
        );
        let config = resolve(&values, &layers, &PodFacts::default(), &workload()).unwrap();
        let at = |p: &[&str]| config.values.get_path(p).cloned();
        assert_eq!(
            at(&["proxy", "runtime", "workers", "maximum"]),
            Some(Value::Int(2))
        );
        assert_eq!(
            at(&["proxy", "cores"]),
            base().get_path(&["proxy", "cores"]).cloned()
        );
    }

    #[test]
    fn an_unresolvable_port_name_is_a_warning_and_the_rest_applies() {
        let pod = annotations(&[("config.linkerd.io/opaque-ports", "3000,5000-6000,mysql")]);
        let layers = Layers {
            pod: Some(&pod),
            ..Layers::default()
        };
        let config = resolve(&base(), &layers, &PodFacts::default(), &workload()).unwrap();
        assert_eq!(
            config.values.get_path(&["proxy", "opaquePorts"]),
            Some(&Value::from("3000,5000-6000"))
        );
        assert_eq!(
            config.warnings,
            [Warning::UnresolvedPortName {
                annotation: "config.linkerd.io/opaque-ports",
                name: "mysql".into()
            }]
        );
    }

    #[test]
    fn skip_ports_accept_names_of_the_pods_container_ports() {
        let pod = annotations(&[
            ("config.linkerd.io/skip-inbound-ports", "admin,9000-9100"),
            ("config.linkerd.io/skip-outbound-ports", "db"),
        ]);
        let layers = Layers {
            pod: Some(&pod),
            ..Layers::default()
        };
        let facts = PodFacts {
            named_ports: vec![("admin".into(), 8081), ("db".into(), 5432)],
        };
        let config = resolve(&base(), &layers, &facts, &workload()).unwrap();
        let at = |p: &[&str]| config.values.get_path(p).cloned().unwrap_or_default();
        assert_eq!(
            at(&["proxyInit", "ignoreInboundPorts"]),
            Value::from("8081,9000-9100")
        );
        assert_eq!(
            at(&["proxyInit", "ignoreOutboundPorts"]),
            Value::from("5432")
        );
        assert!(config.warnings.is_empty());
    }

    #[test]
    fn a_port_list_item_that_is_neither_port_nor_name_is_an_error() {
        for bad in ["70000", "Mysql", "my_sql", "-db"] {
            let pod = annotations(&[("config.linkerd.io/opaque-ports", bad)]);
            let layers = Layers {
                pod: Some(&pod),
                ..Layers::default()
            };
            assert!(
                resolve(&base(), &layers, &PodFacts::default(), &workload()).is_err(),
                "{bad}"
            );
        }
    }

    #[test]
    fn debug_container_enabled_in_the_values_adds_the_debug_sidecar_unless_annotated_off() {
        let mut values = base();
        set(&mut values, "debugContainer.enabled", Value::Bool(true));
        let debug = |pod: &Map| {
            let layers = Layers {
                pod: Some(pod),
                ..Layers::default()
            };
            resolve(&values, &layers, &PodFacts::default(), &workload())
                .unwrap()
                .debug
        };
        assert!(debug(&Map::new()));
        assert!(!debug(&annotations(&[(
            "config.linkerd.io/enable-debug-sidecar",
            "false"
        )])));
        let off = resolve(
            &base(),
            &Layers::default(),
            &PodFacts::default(),
            &workload(),
        );
        assert!(!off.unwrap().debug);
    }

    #[test]
    fn native_sidecar_reads_every_prefix_the_closest_layer_and_the_newest_key_winning() {
        let native = |layers: &Layers<'_>| {
            resolve(&base(), layers, &PodFacts::default(), &workload())
                .map(|c| c.values.get_path(&["proxy", "nativeSidecar"]).cloned())
        };
        for key in [
            "config.linkerd.io/proxy-enable-native-sidecar",
            "config.beta.linkerd.io/proxy-enable-native-sidecar",
            "config.alpha.linkerd.io/proxy-enable-native-sidecar",
        ] {
            let pod = annotations(&[(key, "true")]);
            let layers = Layers {
                pod: Some(&pod),
                ..Layers::default()
            };
            assert_eq!(native(&layers).unwrap(), Some(Value::Bool(true)), "{key}");
        }
        // Within a layer the GA key wins over the older prefixes; a closer layer wins over a
        // farther one whatever its prefix.
        let pod = annotations(&[
            (
                "config.alpha.linkerd.io/proxy-enable-native-sidecar",
                "true",
            ),
            ("config.linkerd.io/proxy-enable-native-sidecar", "false"),
        ]);
        let ns = annotations(&[("config.linkerd.io/proxy-enable-native-sidecar", "false")]);
        let wl = annotations(&[("config.beta.linkerd.io/proxy-enable-native-sidecar", "true")]);
        let layers = Layers {
            pod: Some(&pod),
            ..Layers::default()
        };
        assert_eq!(native(&layers).unwrap(), Some(Value::Bool(false)));
        let layers = Layers {
            namespace: Some(("emojivoto", &ns)),
            workload: Some(&wl),
            pod: None,
        };
        assert_eq!(native(&layers).unwrap(), Some(Value::Bool(true)));
        // A bad value names the key it was written under.
        let pod = annotations(&[("config.beta.linkerd.io/proxy-enable-native-sidecar", "yes")]);
        let layers = Layers {
            pod: Some(&pod),
            ..Layers::default()
        };
        let err = native(&layers).unwrap_err().to_string();
        assert!(
            err.contains("annotation config.beta.linkerd.io/proxy-enable-native-sidecar has an invalid value \"yes\""),
            "{err}"
        );
    }

    #[test]
    fn identity_conflict() {
        let pod = annotations(&[
            ("config.linkerd.io/disable-identity", "true"),
            (
                "config.linkerd.io/proxy-require-identity-inbound-ports",
                "80",
            ),
        ]);
        let layers = Layers {
            pod: Some(&pod),
            ..Layers::default()
        };
        let err = resolve(&base(), &layers, &PodFacts::default(), &workload()).unwrap_err();
        assert!(matches!(err, InjectError::Conflict { .. }), "{err}");
    }
}
