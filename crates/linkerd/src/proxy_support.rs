//! What each Linkerd proxy release understands: the one table behind the warnings that `render`,
//! `inject` and `lint` give when a value asks a proxy image for something it does not have.
//!
//! A setting the image does not know is worse than useless: a postStart hook whose
//! `linkerd-await` rejects a flag exits non-zero and the kubelet kills the container, and an env
//! var an old proxy does not read silently leaves its default in force. Each proxy image's
//! Dockerfile pins its linkerd-await; the proxy's own code decides which env vars it reads.
//!
//! | feature | first edge | first stable | why |
//! | --- | --- | --- | --- |
//! | linkerd-await in the image | edge-21.4.4 | stable-2.11.0 | proxy-await shipped the binary (v0.2.3) |
//! | `linkerd-await --timeout` | edge-22.2.1 | stable-2.11.2 | linkerd-await v0.2.5 added it (edge-21.4.4 ships v0.2.3, stable-2.11.0/.1 v0.2.4) |
//! | `LINKERD2_PROXY_INBOUND_DEFAULT_POLICY` | edge-21.8.4 | stable-2.11.0 | older proxies ignore it |
//!
//! A version that names no release of either line (a custom build, a digest, `latest`) is
//! trusted: we cannot know what it has.
//!
//! The second table, [`KnownIssue`], holds faults of some releases that a workload's shape runs
//! into, with the shape that does ([`NotReadyService`]): `inject` and `lint` both judge
//! workloads by it.

use crate::values::{Map, Value};
use std::fmt;

/// A Linkerd release, as proxy image tags name them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Release {
    /// `edge-YY.M.N`.
    Edge(u32, u32, u32),
    /// `stable-X.Y.Z`.
    Stable(u32, u32, u32),
}

impl Release {
    /// Reads `edge-21.4.4` or `stable-2.11.2`; anything else (suffixes included) is not a release.
    pub fn parse(tag: &str) -> Option<Release> {
        let (line, number) = tag.split_once('-')?;
        let mut parts = number.split('.');
        let mut next = || -> Option<u32> {
            let part = parts.next()?;
            if part.is_empty() || !part.bytes().all(|b| b.is_ascii_digit()) || part.len() > 9 {
                return None;
            }
            part.parse().ok()
        };
        let (a, b, c) = (next()?, next()?, next()?);
        if parts.next().is_some() {
            return None;
        }
        match line {
            "edge" => Some(Release::Edge(a, b, c)),
            "stable" => Some(Release::Stable(a, b, c)),
            _ => None,
        }
    }

    fn at_least(self, first: Introduced) -> bool {
        match self {
            Release::Edge(a, b, c) => (a, b, c) >= first.edge,
            Release::Stable(a, b, c) => (a, b, c) >= first.stable,
        }
    }
}

/// Something a proxy image may or may not have.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Feature {
    /// The `linkerd-await` binary that `proxy.await`'s postStart hook runs.
    AwaitBinary,
    /// linkerd-await's `--timeout` flag (`proxy.awaitTimeout`).
    AwaitTimeoutFlag,
    /// The `LINKERD2_PROXY_INBOUND_DEFAULT_POLICY` env var (`proxy.defaultInboundPolicy`).
    InboundDefaultPolicy,
}

/// The first release of each line that has a feature.
#[derive(Clone, Copy, Debug)]
struct Introduced {
    edge: (u32, u32, u32),
    stable: (u32, u32, u32),
}

impl Feature {
    fn introduced(self) -> Introduced {
        match self {
            Feature::AwaitBinary => Introduced {
                edge: (21, 4, 4),
                stable: (2, 11, 0),
            },
            Feature::AwaitTimeoutFlag => Introduced {
                edge: (22, 2, 1),
                stable: (2, 11, 2),
            },
            Feature::InboundDefaultPolicy => Introduced {
                edge: (21, 8, 4),
                stable: (2, 11, 0),
            },
        }
    }

    /// The releases that first have it, as users name them.
    pub fn first_releases(self) -> String {
        let Introduced { edge, stable } = self.introduced();
        format!(
            "edge-{}.{}.{} and stable-{}.{}.{}",
            edge.0, edge.1, edge.2, stable.0, stable.1, stable.2
        )
    }

    /// The value that asks for the feature, and what it asks.
    fn asked_by(self) -> &'static str {
        match self {
            Feature::AwaitBinary => {
                "proxy.await gives the proxy a postStart hook running linkerd-await"
            }
            Feature::AwaitTimeoutFlag => {
                "proxy.awaitTimeout adds --timeout to the linkerd-await hook"
            }
            Feature::InboundDefaultPolicy => {
                "proxy.defaultInboundPolicy sets LINKERD2_PROXY_INBOUND_DEFAULT_POLICY"
            }
        }
    }

    /// What the old image lacks, as the object of "proxy VERSION ...".
    fn lacks(self) -> &'static str {
        match self {
            Feature::AwaitBinary => "does not ship linkerd-await",
            Feature::AwaitTimeoutFlag => "ships a linkerd-await without --timeout",
            Feature::InboundDefaultPolicy => "does not read that variable",
        }
    }

    /// What happens on a cluster when the image lacks it, and what to do.
    fn consequence(self) -> &'static str {
        match self {
            Feature::AwaitBinary => {
                "the hook would fail and the kubelet kill the container, so the pod would \
                 crash-loop; turn proxy.await off (proxy.controlPlaneAwait for the control plane) \
                 or use a newer proxy"
            }
            Feature::AwaitTimeoutFlag => {
                "the hook would fail and the kubelet kill the container, so the pod would \
                 crash-loop; leave proxy.awaitTimeout empty or use a newer proxy"
            }
            Feature::InboundDefaultPolicy => {
                "the policy would silently not apply (the proxy allows all unauthenticated \
                 traffic); use a newer proxy"
            }
        }
    }
}

/// Whether the proxy image `version` has `feature`: true for an unrecognised version.
pub fn supports(version: &str, feature: Feature) -> bool {
    Release::parse(version).is_none_or(|release| release.at_least(feature.introduced()))
}

/// A feature some value asks of a proxy image that the image's release lacks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unsupported {
    /// The proxy image tag.
    pub version: String,
    /// What it lacks.
    pub feature: Feature,
}

impl fmt::Display for Unsupported {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}, but proxy {} {} (the releases from {} on do): {} (linkerdVersion or \
             proxy.image.version)",
            self.feature.asked_by(),
            self.version,
            self.feature.lacks(),
            self.feature.first_releases(),
            self.feature.consequence(),
        )
    }
}

/// The proxy image tag the proxy partial writes: `proxy.image.version`, else `linkerdVersion`.
pub fn proxy_version(values: &Value) -> Option<&str> {
    fn non_empty(v: Option<&Value>) -> Option<&str> {
        v.and_then(Value::as_str).filter(|s| !s.is_empty())
    }
    non_empty(values.get_path(&["proxy", "image", "version"]))
        .or_else(|| non_empty(values.get_path(&["linkerdVersion"])))
}

/// What the proxies a set of values describes ask of their image, for one placement of the
/// proxy: `hook` says whether a proxy gets the linkerd-await postStart hook (awaited, and not a
/// native sidecar, which is probed instead).
pub fn unsupported_features(values: &Value, hook: bool) -> Vec<Unsupported> {
    let Some(version) = proxy_version(values) else {
        return Vec::new();
    };
    let set = |key: &str| {
        values
            .get_path(&["proxy", key])
            .filter(|v| !v.is_empty_like())
            .map(|v| {
                v.as_str()
                    .map_or_else(|| crate::yaml::to_json(v), str::to_owned)
            })
    };
    let mut wanted = Vec::new();
    if hook {
        wanted.push(Feature::AwaitBinary);
        if set("awaitTimeout").is_some() {
            wanted.push(Feature::AwaitTimeoutFlag);
        }
    }
    if set("defaultInboundPolicy").is_some_and(|policy| policy != DEFAULT_INBOUND_POLICY) {
        wanted.push(Feature::InboundDefaultPolicy);
    }
    wanted
        .into_iter()
        .filter(|&feature| !supports(version, feature))
        .map(|feature| Unsupported {
            version: version.to_owned(),
            feature,
        })
        .collect()
}

/// The inbound policy every proxy applies when none is configured.
pub const DEFAULT_INBOUND_POLICY: &str = "all-unauthenticated";

/// Whether the control plane's proxies get the linkerd-await hook: destination, proxy-injector
/// and sp-validator await with `proxy.controlPlaneAwait` (identity never does), unless they run
/// as native sidecars.
pub fn control_plane_hooks(values: &Value) -> bool {
    let on = |key: &str| {
        values
            .get_path(&["proxy", key])
            .is_some_and(|v| !v.is_empty_like())
    };
    let control_plane_await = values
        .get_path(&["proxy", "controlPlaneAwait"])
        .is_none_or(|v| !v.is_empty_like());
    control_plane_await && !on("nativeSidecar")
}

#[cfg(test)]
mod tests;

/// A fault of some Linkerd releases that a workload's shape can run into: the second table of
/// what a release supports, beside the proxy features above. `inject` warns, naming the issue
/// and the release that fixed it, when a workload it injects has that shape and the control
/// plane (`linkerdVersion`) is older than the fix; `lint` warns when a workload of the chart it
/// checks has that shape and the release that meshes it is older.
///
/// | issue | what goes wrong | fixed in |
/// | --- | --- | --- |
/// | linkerd/linkerd2#13247 | pods behind a headless Service with `publishNotReadyAddresses: true` cannot reach each other directly before they are ready (the destination controller left unready endpoints out) | edge-25.1.1 |
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KnownIssue {
    /// The upstream issue, `owner/repository#number`.
    pub issue: &'static str,
    /// What goes wrong, as a clause for a warning.
    pub what: &'static str,
    /// The first edge release with the fault.
    pub introduced_in: &'static str,
    /// The first edge release with the fix.
    pub fixed_in: &'static str,
    /// The first stable release with the fault, if the stable line has it.
    pub introduced_in_stable: Option<&'static str>,
    /// The first stable release with the fix; `None` while no stable release has it.
    pub fixed_in_stable: Option<&'static str>,
}

impl KnownIssue {
    /// Where the fix is, for someone on `release`: the fixing release of its own line.
    pub fn fix_for(&self, release: &str) -> String {
        match (Release::parse(release), self.fixed_in_stable) {
            (Some(Release::Stable(..)), Some(stable)) => format!("fixed in {stable}"),
            (Some(Release::Stable(..)), None) => format!(
                "no stable release has the fix ({} and later edge releases do)",
                self.fixed_in
            ),
            _ => format!("fixed in {}", self.fixed_in),
        }
    }
}

/// Direct traffic to a pod that is not ready yet, behind a headless Service that publishes
/// unready addresses (a StatefulSet whose members must find each other before they are ready).
pub const NOT_READY_PEERS: KnownIssue = KnownIssue {
    issue: "linkerd/linkerd2#13247",
    what: "direct pod-to-pod traffic to pods that are not ready yet is refused",
    // The destination controller's pod watcher began skipping unready pods here (linkerd2
    // commit 65ddba4e, backported to the stable branch as b5fb1a28); the fix is ba8a84c9.
    introduced_in: "edge-23.9.4",
    fixed_in: "edge-25.1.1",
    introduced_in_stable: Some("stable-2.14.2"),
    fixed_in_stable: None,
};

/// Every known issue, for the release table's `known-issues` lists.
pub const KNOWN_ISSUES: &[KnownIssue] = &[NOT_READY_PEERS];

/// The known issue named `issue` (`linkerd/linkerd2#13247`).
pub fn known_issue(issue: &str) -> Option<&'static KnownIssue> {
    KNOWN_ISSUES.iter().find(|known| known.issue == issue)
}

/// Whether the control plane of `values` (its `linkerdVersion`) has `issue` (see [`is_open_in`]);
/// a version that names no release is not judged.
pub fn is_open(values: &Value, issue: &KnownIssue) -> bool {
    let version = values
        .get_path(&["linkerdVersion"])
        .and_then(Value::as_str)
        .unwrap_or_default();
    is_open_in(version, issue)
}

/// Whether the release `version` (`edge-24.10.2`) has `issue`: an embedded release as its row
/// of the release table lists it ([`crate::releases::ReleaseRow::known_issues`]), any other
/// edge release as [`issue_rule`] says; stable releases and custom builds are not judged.
pub fn is_open_in(version: &str, issue: &KnownIssue) -> bool {
    match crate::releases::row(version) {
        Some(row) => row.known_issues.contains(&issue.issue),
        None => issue_rule(version, issue),
    }
}

/// Whether release `version` lies between the release of its line that brought `issue` and
/// the one that fixed it (a stable line without a fix has it from its first faulty release on);
/// false for anything that names no release.
pub fn issue_rule(version: &str, issue: &KnownIssue) -> bool {
    let numbers = |tag: &str| match Release::parse(tag) {
        Some(Release::Edge(a, b, c) | Release::Stable(a, b, c)) => Some((a, b, c)),
        None => None,
    };
    let (from, to) = match Release::parse(version) {
        Some(Release::Edge(..)) => (Some(issue.introduced_in), Some(issue.fixed_in)),
        Some(Release::Stable(..)) => match issue.introduced_in_stable {
            Some(from) => (Some(from), issue.fixed_in_stable),
            None => return false,
        },
        None => return false,
    };
    let (Some(v), Some(from)) = (numbers(version), from.and_then(numbers)) else {
        return false;
    };
    from <= v && to.and_then(numbers).is_none_or(|to| v < to)
}

/// A headless Service (`clusterIP: None`) with `publishNotReadyAddresses: true`: the pods it
/// selects reach each other before they are ready, which releases with [`NOT_READY_PEERS`] open
/// refuse.
#[derive(Clone, Debug, PartialEq)]
pub struct NotReadyService {
    /// Its namespace (empty when it names none).
    pub namespace: String,
    /// Its name.
    pub name: String,
    /// Its selector: the labels a pod must carry.
    pub selector: Map,
}

impl NotReadyService {
    /// The Service `document` describes, when it is one of that shape.
    pub fn from_document(document: &Map) -> Option<NotReadyService> {
        fn text(value: Option<&Value>) -> &str {
            value.and_then(Value::as_str).unwrap_or_default()
        }
        let spec = document.get("spec");
        let at = |key: &str| spec.and_then(|s| s.get_path(&[key]));
        let headless = text(at("clusterIP")) == "None";
        let publishes = matches!(at("publishNotReadyAddresses"), Some(Value::Bool(true)));
        let metadata = document.get("metadata");
        (text(document.get("kind")) == "Service" && headless && publishes).then(|| {
            NotReadyService {
                namespace: text(metadata.and_then(|m| m.get_path(&["namespace"]))).to_owned(),
                name: text(metadata.and_then(|m| m.get_path(&["name"]))).to_owned(),
                selector: at("selector")
                    .and_then(Value::as_map)
                    .cloned()
                    .unwrap_or_default(),
            }
        })
    }

    /// Whether it selects the pods of a workload in `namespace` whose template carries `labels`.
    pub fn selects(&self, namespace: &str, labels: Option<&Map>) -> bool {
        let same_namespace = self.namespace == namespace
            || [self.namespace.as_str(), namespace]
                .iter()
                .all(|n| n.is_empty() || *n == "default");
        same_namespace
            && !self.selector.is_empty()
            && labels.is_some_and(|labels| {
                self.selector
                    .iter()
                    .all(|(key, value)| labels.get(key) == Some(value))
            })
    }
}

/// How the proxy of a Job's pod can be shut down when the app is done, on the control plane's
/// release (`linkerdVersion`) with `values`: a regular container does not exit with the app, so
/// the Job never completes unless something stops the proxy. The third table of what a release
/// supports, read from linkerd2's `pkg/k8s/labels.go` and charts at each tag:
///
/// | way | first edge |
/// | --- | --- |
/// | the proxy's `/shutdown` admin endpoint (loopback only; `linkerd-await --shutdown` calls it) | before edge-21.4.4, always on |
/// | that endpoint off by default, on with `config.linkerd.io/proxy-admin-shutdown: enabled` (`proxy.enableShutdownEndpoint`) | edge-24.6.2 |
/// | a native sidecar, `config.alpha.linkerd.io/proxy-enable-native-sidecar` (`proxy.nativeSidecar`; Kubernetes 1.29+) | edge-23.11.4 |
/// | the same as `config.linkerd.io/proxy-enable-native-sidecar` (and `config.beta.`) | edge-26.5.2 |
///
/// A stable release or a version that names no release is not judged: the clause names the
/// newest spellings (which meshchart reads on every line). Returns the clause that says what
/// to do.
pub fn job_shutdown(values: &Value) -> String {
    let release = values
        .get_path(&["linkerdVersion"])
        .and_then(Value::as_str)
        .and_then(Release::parse);
    let edge_since = |first: (u32, u32, u32)| match release {
        Some(Release::Edge(a, b, c)) => Some((a, b, c) >= first),
        _ => None,
    };
    let native = match (edge_since((26, 5, 2)), edge_since((23, 11, 4))) {
        (Some(true), _) | (None, _) => Some("config.linkerd.io/proxy-enable-native-sidecar"),
        (Some(false), Some(true)) => Some("config.alpha.linkerd.io/proxy-enable-native-sidecar"),
        (Some(false), _) => None,
    };
    let admin = values
        .get_path(&["proxy", "ports", "admin"])
        .map(crate::yaml::to_json)
        .filter(|port| port != "null" && port != "\"\"")
        .unwrap_or_else(|| "4191".to_owned());
    let call = format!(
        "have the app shut the proxy down when it is done (run it under `linkerd-await \
         --shutdown -- <command>`, or POST to http://localhost:{admin}/shutdown)"
    );
    let opt_in = values.get_path(&["proxy", "enableShutdownEndpoint"]);
    let endpoint = match opt_in {
        // The chart has the opt-in (edge-24.6.2 on): off unless asked for.
        Some(enabled) if !enabled.is_empty_like() => {
            format!("the proxy's shutdown endpoint is enabled: {call}")
        }
        Some(_) => format!(
            "enable the proxy's shutdown endpoint (config.linkerd.io/proxy-admin-shutdown: \
             enabled, or proxy.enableShutdownEndpoint) and {call}"
        ),
        None if edge_since((24, 6, 2)) == Some(true) => format!(
            "enable the proxy's shutdown endpoint (config.linkerd.io/proxy-admin-shutdown: \
             enabled) and {call}"
        ),
        None => format!("{call}; the proxy's shutdown endpoint is always on, on the loopback only"),
    };
    match native {
        Some(key) => format!(
            "run the proxy as a native sidecar, which Kubernetes stops after the app ({key}: \
             \"true\", or proxy.nativeSidecar; Kubernetes 1.29 or newer), or {endpoint}"
        ),
        None => endpoint,
    }
}

#[cfg(test)]
mod job_shutdown_tests;
