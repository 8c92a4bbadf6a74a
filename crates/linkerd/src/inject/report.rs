//! The report on stderr: one line per resource, saying what happened to it and why.

use super::InjectError;
use crate::proxy_support::{Feature, Unsupported};
use std::fmt::Write as _;

/// Why a resource was left as it was.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SkipReason {
    /// The document has no `kind` (or is empty).
    MissingKind,
    /// The kind has no pods (Service, ConfigMap, Namespace, ...).
    Unsupported,
    /// A workload kind without a pod template.
    NoPodTemplate,
    /// The pod has no containers.
    NoContainers,
    /// `linkerd.io/inject: disabled`.
    InjectionDisabled,
    /// `hostNetwork: true`: the proxy cannot capture the host's traffic.
    HostNetwork,
    /// Another mesh's sidecar (the container's name).
    Sidecar(String),
    /// `automountServiceAccountToken: false` while identity needs the token.
    AutomountDisabled,
    /// A container of the pod's own carries a name the mesh's sidecars use (its name and
    /// image): inject would replace it, uninject would delete it.
    NameTaken {
        /// The container's name (`linkerd-proxy`, `linkerd-init`, ...).
        name: String,
        /// Its image.
        image: String,
    },
    /// uninject: nothing of inject's was found.
    NotInjected,
}

impl SkipReason {
    /// A stable key for machines (upstream's reason keys where it has one).
    pub fn key(&self) -> &'static str {
        match self {
            SkipReason::MissingKind => "missing_kind",
            SkipReason::Unsupported => "unsupported_resource",
            SkipReason::NoPodTemplate => "no_pod_template",
            SkipReason::NoContainers => "no_containers",
            SkipReason::InjectionDisabled => "injection_disabled",
            SkipReason::HostNetwork => "host_network_enabled",
            SkipReason::Sidecar(_) => "sidecar_already_exists",
            SkipReason::AutomountDisabled => "automount_service_account_token_false",
            SkipReason::NameTaken { .. } => "container_name_taken",
            SkipReason::NotInjected => "not_injected",
        }
    }

    /// A sentence for people.
    pub fn message(&self) -> String {
        match self {
            SkipReason::MissingKind => "document has no \"kind\" field".into(),
            SkipReason::Unsupported => "not a workload (it has no pods)".into(),
            SkipReason::NoPodTemplate => "no pod template".into(),
            SkipReason::NoContainers => "the pod has no containers".into(),
            SkipReason::InjectionDisabled => {
                "\"linkerd.io/inject: disabled\" annotation set".into()
            }
            SkipReason::HostNetwork => "hostNetwork is enabled".into(),
            SkipReason::Sidecar(name) => {
                format!("pod has another mesh's sidecar already (container {name:?})")
            }
            SkipReason::AutomountDisabled => "automountServiceAccountToken set to \"false\" \
                 (the proxy needs the token for its identity)"
                .into(),
            SkipReason::NameTaken { name, image } => format!(
                "the pod has a container of its own named {name:?} (image {image:?}), a name \
                 the mesh's sidecars use; rename it"
            ),
            SkipReason::NotInjected => "not injected".into(),
        }
    }
}

/// Something worth knowing about an injected pod.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Warning {
    /// A container port uses UDP, which the proxy does not handle.
    Udp,
    /// `proxy.waitBeforeExitSeconds` is set for a native-sidecar proxy, which has no hooks.
    WaitBeforeExitIgnored,
    /// A port list annotation names a port that none of the pod's containers has; the rest of
    /// the list applies.
    UnresolvedPortName {
        /// The annotation.
        annotation: &'static str,
        /// The name.
        name: String,
    },
    /// A value asks the proxy image for something its release does not have.
    ProxyLacks(Unsupported),
    /// The workload has a shape a known issue of the control plane's release meets (see
    /// [`crate::proxy_support::KnownIssue`]).
    KnownIssue {
        /// The issue.
        issue: crate::proxy_support::KnownIssue,
        /// The control plane's release (`linkerdVersion`).
        release: String,
        /// The Service whose shape meets it.
        service: String,
    },
    /// A `config.linkerd.io/*` (or `config.alpha.`/`config.beta.`) annotation no setting of
    /// this line has (a misspelling, most often): it has no effect.
    UnknownAnnotation {
        /// The annotation as written.
        annotation: String,
        /// The line's annotation closest to it, if one is close.
        nearest: Option<&'static str>,
    },
    /// An annotation upstream's injector reads that meshchart does not apply.
    NotApplied {
        /// The annotation.
        annotation: &'static str,
    },
    /// A Job's (or a CronJob's) proxy runs as a regular container, which does not exit when
    /// the app does, so the Job never completes unless something shuts the proxy down.
    JobProxyShutdown {
        /// `Job` or `CronJob`.
        kind: &'static str,
        /// How this line's proxy can be shut down, as a clause (see
        /// [`crate::proxy_support::job_shutdown`]).
        how: String,
    },
    /// An annotation of a later Linkerd release that the chart's values do not have: it has no
    /// effect with this chart.
    NotInChart {
        /// The annotation.
        annotation: &'static str,
        /// The values key it would set.
        values_key: &'static str,
    },
}

impl Warning {
    /// A stable key.
    pub fn key(&self) -> &'static str {
        match self {
            Warning::Udp => "udp",
            Warning::WaitBeforeExitIgnored => "wait_before_exit_ignored",
            Warning::UnresolvedPortName { .. } => "unresolved_port_name",
            Warning::NotInChart { .. } => "annotation_not_in_chart",
            Warning::UnknownAnnotation { .. } => "unknown_annotation",
            Warning::NotApplied { .. } => "annotation_not_applied",
            Warning::JobProxyShutdown { .. } => "job_proxy_shutdown",
            Warning::KnownIssue { .. } => "known_issue",
            Warning::ProxyLacks(missing) => match missing.feature {
                Feature::AwaitBinary => "proxy_lacks_linkerd_await",
                Feature::AwaitTimeoutFlag => "proxy_lacks_await_timeout",
                Feature::InboundDefaultPolicy => "proxy_lacks_default_inbound_policy",
            },
        }
    }

    /// A sentence.
    pub fn message(&self) -> String {
        match self {
            Warning::Udp => "uses \"protocol: UDP\", which the proxy does not handle".into(),
            Warning::WaitBeforeExitIgnored => {
                "proxy-wait-before-exit-seconds (proxy.waitBeforeExitSeconds) is ignored for a \
                 native sidecar: Kubernetes stops it after the app containers"
                    .into()
            }
            Warning::UnresolvedPortName { annotation, name } => format!(
                "{annotation} names port {name:?}, which no container of the pod has: left out, \
                 the other ports apply"
            ),
            Warning::ProxyLacks(missing) => missing.to_string(),
            Warning::KnownIssue {
                issue,
                release,
                service,
            } => format!(
                "its pods are selected by headless Service {service} with \
                 publishNotReadyAddresses: true, and on {release} {} ({}); {}",
                issue.what,
                issue.issue,
                issue.fix_for(release)
            ),
            Warning::UnknownAnnotation {
                annotation,
                nearest,
            } => match nearest {
                Some(near) => {
                    format!("unknown annotation {annotation} has no effect (did you mean {near}?)")
                }
                None => format!(
                    "unknown annotation {annotation} has no effect: no setting of this Linkerd \
                     release has that name"
                ),
            },
            Warning::NotApplied { annotation } => format!(
                "{annotation} has no effect: upstream's injector reads it, meshchart inject does \
                 not apply it"
            ),
            Warning::JobProxyShutdown { kind, how } => format!(
                "a {kind}'s pod completes only when all its containers have exited, and the \
                 proxy keeps running after the app is done, so the {kind} never completes: {how}"
            ),
            Warning::NotInChart {
                annotation,
                values_key,
            } => format!(
                "{annotation} has no effect: this chart has no {values_key} (a setting of \
                 another Linkerd release; choose that release's line)"
            ),
        }
    }
}

/// What happened to one resource.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// The proxy was added (or re-added).
    Injected {
        /// The input held a proxy already (it was re-injected from scratch).
        already: bool,
        /// The output differs from the input.
        changed: bool,
        /// Things to know.
        warnings: Vec<Warning>,
    },
    /// uninject removed the mesh.
    Uninjected,
    /// Left as it was (or, if it carried a proxy, only uninjected).
    Skipped(SkipReason),
}

/// One resource's line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    /// File or `<stdin>`.
    pub source: String,
    /// Line its document starts on.
    pub line: usize,
    /// `kind` as written ("" when missing).
    pub kind: String,
    /// `metadata.name` (or `generateName`).
    pub name: String,
    /// `metadata.namespace`.
    pub namespace: String,
    /// What happened.
    pub outcome: Outcome,
}

impl Entry {
    /// The text line (upstream's phrasing, with the reason after a colon).
    pub fn text(&self) -> String {
        if self.kind.is_empty() {
            return "document missing \"kind\" field, skipped".into();
        }
        let subject = format!("{} {:?}", self.kind.to_lowercase(), self.name);
        match &self.outcome {
            Outcome::Injected {
                already,
                changed,
                warnings,
            } => {
                let mut line = format!("{subject} injected");
                match (already, changed) {
                    (true, false) => line.push_str(" (already injected, unchanged)"),
                    (true, true) => line.push_str(" (re-injected)"),
                    _ => {}
                }
                for w in warnings {
                    let _ = write!(line, "; warning: {}", w.message());
                }
                line
            }
            Outcome::Uninjected => format!("{subject} uninjected"),
            Outcome::Skipped(reason) => format!("{subject} skipped: {}", reason.message()),
        }
    }

    fn json(&self) -> serde_json::Value {
        let mut object = serde_json::json!({
            "source": self.source,
            "line": self.line,
            "kind": self.kind,
            "name": self.name,
            "namespace": self.namespace,
        });
        let fields = match &self.outcome {
            Outcome::Injected {
                already,
                changed,
                warnings,
            } => serde_json::json!({
                "result": "injected",
                "alreadyInjected": already,
                "changed": changed,
                "warnings": warnings.iter().map(|w| serde_json::json!({
                    "reason": w.key(),
                    "message": w.message(),
                })).collect::<Vec<_>>(),
            }),
            Outcome::Uninjected => serde_json::json!({ "result": "uninjected" }),
            Outcome::Skipped(reason) => serde_json::json!({
                "result": "skipped",
                "reason": reason.key(),
                "message": reason.message(),
            }),
        };
        if let (Some(o), serde_json::Value::Object(f)) = (object.as_object_mut(), fields) {
            o.extend(f);
        }
        object
    }
}

/// How the report is printed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ReportFormat {
    /// One line per resource.
    #[default]
    Text,
    /// One JSON document: `{"resources": [...]}`.
    Json,
}

/// Where a run's report entries go, in input order, as their documents are written.
pub trait ReportSink {
    /// Takes the next entry.
    fn entry(&mut self, entry: Entry) -> Result<(), InjectError>;
}

impl ReportSink for Vec<Entry> {
    fn entry(&mut self, entry: Entry) -> Result<(), InjectError> {
        self.push(entry);
        Ok(())
    }
}

/// Every resource's entry, in input order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Report {
    /// The entries.
    pub entries: Vec<Entry>,
}

/// How many resources inject injected and skipped, and how many warnings it gave.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Summary {
    /// Resources that got the proxy.
    pub injected: usize,
    /// Resources left as they were (not workloads, disabled, host network, ...).
    pub skipped: usize,
    /// Warnings, over all resources.
    pub warnings: usize,
}

impl std::fmt::Display for Summary {
    /// `3 injected, 2 skipped, 1 warning`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} injected, {} skipped, {} warning{}",
            self.injected,
            self.skipped,
            self.warnings,
            if self.warnings == 1 { "" } else { "s" }
        )
    }
}

impl Summary {
    /// Adds `entry` to the counts.
    fn count(&mut self, entry: &Entry) {
        match &entry.outcome {
            Outcome::Injected { warnings, .. } => {
                self.injected += 1;
                self.warnings += warnings.len();
            }
            Outcome::Skipped(_) => self.skipped += 1,
            Outcome::Uninjected => {}
        }
    }
}

impl Report {
    /// The counts of an inject run.
    pub fn summary(&self) -> Summary {
        let mut summary = Summary::default();
        for entry in &self.entries {
            summary.count(entry);
        }
        summary
    }

    /// What `inject` prints on stderr after the stream: the report in `format` (none with
    /// `quiet`) and the [`Summary`], as the last line of text or, in JSON, a `summary` field
    /// beside `resources` (`{"injected": 3, "skipped": 2, "warnings": 1}`).
    pub fn render_inject(&self, format: ReportFormat, quiet: bool) -> String {
        let summary = self.summary();
        match format {
            ReportFormat::Text => {
                let mut out = if quiet {
                    String::new()
                } else {
                    self.render(format)
                };
                out.push_str(&format!("{summary}\n"));
                out
            }
            ReportFormat::Json => {
                let entries = if quiet { &[][..] } else { &self.entries[..] };
                let resources: Vec<_> = entries.iter().map(Entry::json).collect();
                let doc = serde_json::json!({
                    "resources": resources,
                    "summary": {
                        "injected": summary.injected,
                        "skipped": summary.skipped,
                        "warnings": summary.warnings,
                    },
                });
                let mut text = serde_json::to_string_pretty(&doc).unwrap_or_default();
                text.push('\n');
                text
            }
        }
    }

    /// The report as text in `format`, ending with a newline.
    pub fn render(&self, format: ReportFormat) -> String {
        match format {
            ReportFormat::Text => {
                let mut out = String::new();
                for entry in &self.entries {
                    out.push_str(&entry.text());
                    out.push('\n');
                }
                out
            }
            ReportFormat::Json => {
                let resources: Vec<_> = self.entries.iter().map(Entry::json).collect();
                let doc = serde_json::json!({ "resources": resources });
                let mut text = serde_json::to_string_pretty(&doc).unwrap_or_default();
                text.push('\n');
                text
            }
        }
    }
}

mod spooled;
pub use spooled::SpooledReport;

#[cfg(test)]
mod tests;
