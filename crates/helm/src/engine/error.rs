//! Render errors, shaped for people: template, line, the source line, and what went wrong.

use crate::chart::Chart;

/// Why a chart could not be rendered.
#[derive(Debug, thiserror::Error)]
pub enum RenderError {
    /// A template failed to compile or to run (including `required` and `fail`).
    #[error("{}", display_template_error(.template, .line, .message, .source_line, .included_from))]
    Template {
        /// `chart/templates/file`.
        template: String,
        /// 1-based line in that template, when known.
        line: Option<usize>,
        /// What went wrong.
        message: String,
        /// The template's source line, when known.
        source_line: Option<String>,
        /// Outer templates that included it, innermost first (`chart/templates/x.yaml:12`).
        included_from: Vec<String>,
    },
    /// A template produced text that is not valid YAML.
    #[error("{}", display_yaml_error(self))]
    InvalidYaml {
        /// `chart/templates/file` that produced the line.
        template: String,
        /// The template line that produced the bad output line, when known.
        template_line: Option<usize>,
        /// That template line's text.
        template_source_line: Option<String>,
        /// 1-based line in the template's rendered output.
        output_line: usize,
        /// The rendered line.
        output_text: String,
        /// The YAML parser's complaint.
        message: String,
    },
    /// The render's output passed `--max-output-bytes`.
    #[error(
        "{template}{}: the render's output passes the limit of {limit} bytes (raise it with --max-output-bytes)",
        .line.map(|l| format!(":{l}")).unwrap_or_default()
    )]
    OutputTooLarge {
        /// `chart/templates/file` whose output passed the limit.
        template: String,
        /// The template line that wrote the byte past the limit, when known.
        line: Option<usize>,
        /// The limit in bytes.
        limit: u64,
    },
    /// `--show-only` named a template that emits nothing or does not exist.
    #[error("--show-only {pattern}: no such template emits anything in this chart (partials and NOTES.txt never do)")]
    ShowOnlyNotFound {
        /// The pattern as given.
        pattern: String,
    },
    /// The chart says it needs another Kubernetes version.
    #[error(
        "chart requires kubeVersion: {constraint} which is incompatible with Kubernetes \
         {actual}{}",
        reason.as_deref().map(|r| format!(" ({r})")).unwrap_or_default()
    )]
    KubeVersion {
        /// Chart.yaml's constraint.
        constraint: String,
        /// The version rendered for.
        actual: String,
        /// Why the chart has that range, when it says (`meshchart.io/kube-version-reason`).
        reason: Option<String>,
    },
    /// Chart.yaml's `kubeVersion` is not a version constraint.
    #[error("Chart.yaml: kubeVersion {constraint:?} is not a version constraint: {reason}")]
    BadKubeVersionConstraint {
        /// Chart.yaml's constraint.
        constraint: String,
        /// What is wrong with it.
        reason: String,
    },
}

fn display_template_error(
    template: &str,
    line: &Option<usize>,
    message: &str,
    source_line: &Option<String>,
    included_from: &[String],
) -> String {
    let mut out = match line {
        Some(l) => format!("{template}:{l}: {message}"),
        None => format!("{template}: {message}"),
    };
    if let (Some(l), Some(src)) = (line, source_line) {
        out.push_str(&format!("\n{l:>5} | {src}"));
    }
    // A runaway recursion repeats one place many times: show it once, with the count.
    let mut places = included_from.iter().peekable();
    while let Some(outer) = places.next() {
        let mut times = 1;
        while places.peek() == Some(&outer) {
            places.next();
            times += 1;
        }
        match times {
            1 => out.push_str(&format!("\n  included from {outer}")),
            n => out.push_str(&format!("\n  included from {outer} ({n} times)")),
        }
    }
    out
}

fn display_yaml_error(e: &RenderError) -> String {
    let RenderError::InvalidYaml {
        template,
        template_line,
        template_source_line,
        output_line,
        output_text,
        message,
    } = e
    else {
        return String::new();
    };
    let mut out = format!("{template}: rendered output is not valid YAML: {message}");
    out.push_str(&format!("\n  rendered line {output_line}: {output_text}"));
    match (template_line, template_source_line) {
        (Some(l), Some(src)) => {
            out.push_str(&format!("\n  produced by {template}:{l}\n{l:>5} | {src}"))
        }
        (Some(l), None) => out.push_str(&format!("\n  produced by {template}:{l}")),
        _ => {}
    }
    out
}

struct Frame {
    name: Option<String>,
    line: Option<usize>,
    message: String,
}

impl RenderError {
    /// Turns a minijinja error (possibly raised inside nested includes) into a located error.
    pub(crate) fn from_minijinja(
        chart_name: &str,
        error: &minijinja::Error,
        source_of: impl Fn(&str) -> Option<String>,
    ) -> RenderError {
        let mut frames = Vec::new();
        let mut current: Option<&(dyn std::error::Error + 'static)> = Some(error);
        while let Some(e) = current {
            match e.downcast_ref::<minijinja::Error>() {
                Some(mj) => frames.push(Frame {
                    name: mj.name().map(str::to_owned),
                    line: mj.line(),
                    message: match mj.kind() {
                        minijinja::ErrorKind::OutOfFuel => format!(
                            "the template used up its budget of {} steps or {} bytes of data \
                             built (an endless loop, or a string or list grown past the \
                             limit?)",
                            crate::limits::FUEL_PER_RENDER,
                            crate::limits::TEMPLATE_DATA_BYTES
                        ),
                        _ => mj
                            .detail()
                            .map(str::to_owned)
                            .unwrap_or_else(|| mj.kind().to_string()),
                    },
                }),
                None => frames.push(Frame {
                    name: None,
                    line: None,
                    message: e.to_string(),
                }),
            }
            current = e.source();
        }
        let qualify = |name: &str| {
            if crate::engine::include::is_tpl_name(name) {
                name.to_owned()
            } else {
                format!("{chart_name}/templates/{name}")
            }
        };
        // The innermost frame that knows its place is where the problem is.
        let innermost = frames.iter().rposition(|f| f.name.is_some()).unwrap_or(0);
        let inner = &frames[innermost];
        let mut message = inner.message.clone();
        if let Some(kind_text) = frames.last().filter(|_| innermost + 1 < frames.len()) {
            message = format!("{message}: {}", kind_text.message);
        }
        let name = inner.name.clone().unwrap_or_else(|| "?".into());
        let source_line = inner.line.and_then(|l| {
            source_of(&name).and_then(|src| src.lines().nth(l.saturating_sub(1)).map(str::to_owned))
        });
        let included_from = frames[..innermost]
            .iter()
            .rev()
            .filter_map(|f| {
                let n = f.name.as_deref()?;
                Some(match f.line {
                    Some(l) => format!("{}:{l}", qualify(n)),
                    None => qualify(n),
                })
            })
            .collect();
        RenderError::Template {
            template: qualify(&name),
            line: inner.line,
            // `fail` and `required` messages may quote a value, and a value may be a key.
            message: crate::redact::mask_private_keys(&message).into_owned(),
            source_line,
            included_from,
        }
    }

    pub(crate) fn from_template_error(
        chart_name: &str,
        error: &minijinja::Error,
        chart: &Chart,
    ) -> RenderError {
        RenderError::from_minijinja(chart_name, error, |name| {
            chart
                .templates
                .iter()
                .find(|t| t.path == name)
                .map(|t| t.text.to_string())
        })
    }
}
