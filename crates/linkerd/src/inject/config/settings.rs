//! The tables of annotations inject honours: [`SETTINGS`], read on every release line, and
//! [`CHART_KEYED_SETTINGS`], which apply only where the chart declares their values key. Separate
//! because they are data, one entry per annotation, and make up most of the configuration's size.

use super::super::parse::{parse_go_duration, DURATION_ALLOWED};
use super::setters::{
    bool_path_setter, bool_setter, image_tag, millis, one_of, one_of_setter, port_list,
    port_list_setter, port_setter, quantity, quantity_setter, seconds_setter, set, word,
    AWAIT_VALUES, INBOUND_POLICIES, LOG_FORMATS, PULL_POLICIES,
};
use super::Setting;
use crate::values::Value;

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
pub(super) const NATIVE_SIDECAR_ANNOTATION: &str = "config.linkerd.io/proxy-enable-native-sidecar";

/// The annotations of the release lines' injectors (edge-24.10.2 and later). Each applies only
/// where the chart declares its key (`values_key`, one path) in its default values or its
/// values schema: with a chart that has no such setting (the 2021 line) it would have no
/// effect, so the report warns instead.
pub(super) const CHART_KEYED_SETTINGS: &[Setting] = &[
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
pub(super) const SETTINGS: &[Setting] = &[
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
