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
                 publishNotReadyAddresses: true, and on {release} {} ({}); fixed in {}",
                issue.what, issue.issue, issue.fixed_in
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

/// A report written as it is made, in its format, to an unnamed temporary file, and copied out
/// at the end: what [`Report::render`] prints, without holding an entry per resource (a
/// stream of 400,000 workloads held its report in memory).
pub struct SpooledReport {
    format: ReportFormat,
    file: std::io::BufWriter<std::fs::File>,
    entries: usize,
}

impl SpooledReport {
    /// An empty report in `format`.
    pub fn new(format: ReportFormat) -> Result<SpooledReport, InjectError> {
        let file = tempfile::tempfile().map_err(|source| InjectError::Write { source })?;
        Ok(SpooledReport {
            format,
            file: std::io::BufWriter::with_capacity(64 * 1024, file),
            entries: 0,
        })
    }

    /// Copies the report to `out`, as [`Report::render`] would print it.
    pub fn copy_to(self, out: &mut dyn std::io::Write) -> std::io::Result<()> {
        use std::io::Seek;
        let mut file = self.file.into_inner().map_err(|e| e.into_error())?;
        file.rewind()?;
        if self.format == ReportFormat::Json {
            out.write_all(if self.entries == 0 {
                b"{\n  \"resources\": ["
            } else {
                b"{\n  \"resources\": [\n"
            })?;
        }
        std::io::copy(&mut file, out)?;
        if self.format == ReportFormat::Json {
            out.write_all(if self.entries == 0 {
                b"]\n}\n"
            } else {
                b"\n  ]\n}\n"
            })?;
        }
        out.flush()
    }
}

impl ReportSink for SpooledReport {
    fn entry(&mut self, entry: Entry) -> Result<(), InjectError> {
        use std::io::Write as _;
        let text = match self.format {
            ReportFormat::Text => entry.text() + "\n",
            ReportFormat::Json => {
                // An entry of `{"resources": [...]}` as serde_json's pretty printer indents it.
                let pretty = serde_json::to_string_pretty(&entry.json()).unwrap_or_default();
                let separator = if self.entries == 0 { "" } else { ",\n" };
                let indented: Vec<String> = pretty.lines().map(|l| format!("    {l}")).collect();
                format!("{separator}{}", indented.join("\n"))
            }
        };
        self.entries += 1;
        self.file
            .write_all(text.as_bytes())
            .map_err(|source| InjectError::Write { source })
    }
}

/// Every resource's entry, in input order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Report {
    /// The entries.
    pub entries: Vec<Entry>,
}

impl Report {
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

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(outcome: Outcome) -> Entry {
        Entry {
            source: "in.yaml".into(),
            line: 3,
            kind: "Deployment".into(),
            name: "web".into(),
            namespace: "emojivoto".into(),
            outcome,
        }
    }

    #[test]
    fn text_lines() {
        let report = Report {
            entries: vec![
                entry(Outcome::Injected {
                    already: false,
                    changed: true,
                    warnings: vec![],
                }),
                entry(Outcome::Skipped(SkipReason::HostNetwork)),
                Entry {
                    kind: String::new(),
                    ..entry(Outcome::Skipped(SkipReason::MissingKind))
                },
            ],
        };
        assert_eq!(
            report.render(ReportFormat::Text),
            "deployment \"web\" injected\n\
             deployment \"web\" skipped: hostNetwork is enabled\n\
             document missing \"kind\" field, skipped\n"
        );
    }

    #[test]
    fn json_entries() {
        let report = Report {
            entries: vec![entry(Outcome::Skipped(SkipReason::InjectionDisabled))],
        };
        let parsed: serde_json::Value =
            serde_json::from_str(&report.render(ReportFormat::Json)).unwrap();
        let e = &parsed["resources"][0];
        assert_eq!(e["result"], "skipped");
        assert_eq!(e["reason"], "injection_disabled");
        assert_eq!(e["line"], 3);
    }

    #[test]
    fn a_spooled_report_prints_what_the_whole_report_renders() {
        let entries = [
            entry(Outcome::Injected {
                already: true,
                changed: true,
                warnings: vec![Warning::Udp],
            }),
            entry(Outcome::Skipped(SkipReason::HostNetwork)),
            entry(Outcome::Uninjected),
        ];
        for format in [ReportFormat::Text, ReportFormat::Json] {
            for count in 0..=entries.len() {
                let report = Report {
                    entries: entries[..count].to_vec(),
                };
                let mut spooled = SpooledReport::new(format).unwrap();
                for e in &report.entries {
                    spooled.entry(e.clone()).unwrap();
                }
                let mut printed = Vec::new();
                spooled.copy_to(&mut printed).unwrap();
                assert_eq!(
                    String::from_utf8(printed).unwrap(),
                    report.render(format),
                    "{format:?}, {count} entries"
                );
            }
        }
    }
}
