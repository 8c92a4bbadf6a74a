//! The arguments of a golden case's `args` file, read into the library's plain requests.
//!
//! A case's `args` are the flags its command would take on the command line, split as a shell
//! splits them (see [`super::args_file_arguments`]). They are read here rather than by the command line's parser
//! so that the library stays free of it; the binary's tests parse the same argument lists both
//! ways and check that the requests agree, so the two grammars cannot drift apart.
//!
//! The grammar is the command line parser's for these flags: `--name value`, `--name=value`,
//! `-x value`, `-x=value` and `-xvalue`; flags may repeat where the command line allows it.

use crate::inject::command::InjectRequest;
use crate::inject::ReportFormat;
use crate::render::RenderRequest;
use crate::values::ValueOverrides;
use camino::Utf8PathBuf;

/// What an inject golden case runs.
// One per golden case, a few dozen in all: the size of the larger variant costs nothing.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug, PartialEq)]
pub enum InjectCaseCommand {
    /// `inject ...`: the request and how its report is printed.
    Inject(Box<InjectRequest>, ReportFormat),
    /// `uninject ...`: the inputs and how the report is printed.
    Uninject(Vec<String>, ReportFormat),
}

/// A flag's value, or the error naming the flag that lacks one.
struct Args<'a> {
    items: std::vec::IntoIter<&'a str>,
}

/// One flag read from the list: its name (`--set`, `-f`) and, for flags written `--name=value`
/// or `-xvalue`, the value attached to it.
struct Flag<'a> {
    name: String,
    attached: Option<&'a str>,
}

impl<'a> Args<'a> {
    fn new(items: Vec<&'a str>) -> Self {
        Args {
            items: items.into_iter(),
        }
    }

    /// The next argument, split into a flag and an attached value; `None` at the end.
    /// A positional argument comes back with an empty name and itself as the value.
    fn next(&mut self) -> Option<Flag<'a>> {
        let item = self.items.next()?;
        if let Some(long) = item.strip_prefix("--") {
            return Some(match long.split_once('=') {
                Some((name, value)) => Flag {
                    name: format!("--{name}"),
                    attached: Some(value),
                },
                None => Flag {
                    name: item.to_owned(),
                    attached: None,
                },
            });
        }
        match item.strip_prefix('-').and_then(|rest| rest.chars().next()) {
            Some(short) => {
                let rest = &item[1 + short.len_utf8()..];
                let attached = match rest {
                    "" => None,
                    _ => Some(rest.strip_prefix('=').unwrap_or(rest)),
                };
                Some(Flag {
                    name: format!("-{short}"),
                    attached,
                })
            }
            None => Some(Flag {
                name: String::new(),
                attached: Some(item),
            }),
        }
    }

    /// The value of `flag`: attached to it, or the next argument.
    fn value(&mut self, flag: &Flag<'a>) -> Result<String, String> {
        match flag.attached {
            Some(value) => Ok(value.to_owned()),
            None => self.items.next().map(str::to_owned).ok_or_else(|| {
                format!(
                    "a value is required for '{}' but none was supplied",
                    flag.name
                )
            }),
        }
    }
}

/// Reads a value flag (`-f` and the `--set` family) into `values`; `false` when `flag` is not one.
fn value_flag<'a>(
    args: &mut Args<'a>,
    flag: &Flag<'a>,
    values: &mut ValueOverrides,
) -> Result<bool, String> {
    let list = match flag.name.as_str() {
        "-f" | "--values" => &mut values.files,
        "--set" => &mut values.set,
        "--set-string" => &mut values.set_string,
        "--set-file" => &mut values.set_file,
        "--set-json" => &mut values.set_json,
        "--set-literal" => &mut values.set_literal,
        _ => return Ok(false),
    };
    list.push(args.value(flag)?);
    Ok(true)
}

/// The flags that take one value, seen so far: as on the command line, giving one twice is an
/// error rather than a silent choice.
#[derive(Default)]
struct Once {
    seen: Vec<&'static str>,
}

impl Once {
    /// Records `flag` when it is one of `names` (a long name and its short one count as one);
    /// the error names a flag given twice.
    fn check(&mut self, flag: &Flag<'_>, names: &[&'static str]) -> Result<(), String> {
        let Some(&name) = names.iter().find(|n| **n == flag.name) else {
            return Ok(());
        };
        let canonical = match name {
            "-n" => "--namespace",
            "-o" => "--output",
            other => other,
        };
        if self.seen.contains(&canonical) {
            return Err(format!(
                "the argument '{canonical}' cannot be used multiple times"
            ));
        }
        self.seen.push(canonical);
        Ok(())
    }
}

fn unexpected(flag: &Flag<'_>) -> String {
    if flag.name.is_empty() {
        format!(
            "unexpected argument '{}' found",
            flag.attached.unwrap_or_default()
        )
    } else {
        format!("unexpected argument '{}' found", flag.name)
    }
}

/// Reads a render case's arguments (`render`'s flags without `--chart` and `--output-dir`).
pub fn render_request<'a>(
    items: impl IntoIterator<Item = &'a str>,
) -> Result<RenderRequest, String> {
    let mut args = Args::new(items.into_iter().collect());
    let mut request = RenderRequest::default();
    let mut once = Once::default();
    while let Some(flag) = args.next() {
        if value_flag(&mut args, &flag, &mut request.values)? {
            continue;
        }
        once.check(
            &flag,
            &["-n", "--namespace", "--release-name", "--kube-version"],
        )?;
        once.check(
            &flag,
            &[
                "--certs-dir",
                "--max-output-bytes",
                "--is-upgrade",
                "--strict",
            ],
        )?;
        match flag.name.as_str() {
            "-n" | "--namespace" => {
                request.namespace = args.value(&flag)?;
                request.namespace_given = true;
            }
            "--release-name" => request.release_name = args.value(&flag)?,
            "--kube-version" => request.kube_version = Some(args.value(&flag)?),
            "-a" | "--api-versions" => request.api_versions.push(args.value(&flag)?),
            "-s" | "--show-only" => request.show_only.push(args.value(&flag)?),
            "--certs-dir" => request.certs_dir = Some(Utf8PathBuf::from(args.value(&flag)?)),
            "--max-output-bytes" => {
                let text = args.value(&flag)?;
                request.max_output_bytes = Some(parse_size(&text)?);
            }
            "--is-upgrade" if flag.attached.is_none() => request.is_upgrade = true,
            "--ha" if flag.attached.is_none() => request.ha = true,
            "--strict" if flag.attached.is_none() => request.strict = true,
            _ => return Err(unexpected(&flag)),
        }
    }
    Ok(request)
}

/// The chart a golden case names in its `args`, as the command line names one: a positional
/// `CHART`, `--chart CHART`, or `--linkerd RELEASE` (with `--crds`). Empty: the chart the golden
/// run was given.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CaseChart {
    /// `CHART` or `--chart CHART`, as written (relative to the case folder).
    pub path: Option<String>,
    /// `--linkerd RELEASE`.
    pub linkerd: Option<String>,
    /// `--crds`.
    pub crds: bool,
}

impl CaseChart {
    /// Whether the case names no chart of its own.
    pub fn is_empty(&self) -> bool {
        *self == CaseChart::default()
    }
}

/// Reads a render case's arguments as `render` takes them, chart included: [`render_request`]'s
/// flags plus a positional `CHART`, `--chart`, `--linkerd` and `--crds` (with the command line's
/// conflicts: one chart, named once; a folder or archive excludes `--linkerd` and `--crds`).
pub fn render_case<'a>(
    items: impl IntoIterator<Item = &'a str>,
) -> Result<(RenderRequest, CaseChart), String> {
    let mut chart = CaseChart::default();
    let mut rest: Vec<&'a str> = Vec::new();
    let mut items = items.into_iter();
    while let Some(item) = items.next() {
        let (name, attached) = match item.split_once('=') {
            Some((name, value)) if name.starts_with("--") => (name, Some(value)),
            _ => (item, None),
        };
        let mut value = |flag: &str| -> Result<String, String> {
            match attached {
                Some(v) => Ok(v.to_owned()),
                None => items.next().map(str::to_owned).ok_or_else(|| {
                    format!("a value is required for '{flag}' but none was supplied")
                }),
            }
        };
        let twice = |flag: &str| format!("the argument '{flag}' cannot be used multiple times");
        match name {
            "--chart" => {
                if chart.path.is_some() {
                    return Err("the argument '--chart' cannot be used with '[CHART]'".into());
                }
                chart.path = Some(value("--chart")?);
            }
            "--linkerd" => {
                if chart.linkerd.is_some() {
                    return Err(twice("--linkerd"));
                }
                chart.linkerd = Some(value("--linkerd")?);
            }
            "--crds" if attached.is_none() => {
                if chart.crds {
                    return Err(twice("--crds"));
                }
                chart.crds = true;
            }
            positional if !positional.starts_with('-') && !positional.is_empty() => {
                if chart.path.is_some() {
                    return Err(format!("unexpected argument '{positional}' found"));
                }
                chart.path = Some(positional.to_owned());
            }
            _ => {
                rest.push(item);
                // A flag's separate value goes with it, so it is never taken for a CHART.
                let takes_value = matches!(
                    item,
                    "-f" | "--values"
                        | "--set"
                        | "--set-string"
                        | "--set-file"
                        | "--set-json"
                        | "--set-literal"
                        | "-n"
                        | "--namespace"
                        | "--release-name"
                        | "--kube-version"
                        | "-a"
                        | "--api-versions"
                        | "-s"
                        | "--show-only"
                        | "--certs-dir"
                        | "--max-output-bytes"
                );
                if takes_value {
                    if let Some(v) = items.next() {
                        rest.push(v);
                    }
                }
            }
        }
    }
    if chart.path.is_some() && (chart.linkerd.is_some() || chart.crds) {
        let other = if chart.linkerd.is_some() {
            "--linkerd"
        } else {
            "--crds"
        };
        return Err(format!(
            "the argument '--chart' cannot be used with '{other}'"
        ));
    }
    Ok((render_request(rest)?, chart))
}

/// A `--max-output-bytes` size: a byte count, or with `KiB`, `MiB` or `GiB`.
pub fn parse_size(text: &str) -> Result<u64, String> {
    crate::input::parse_size(text)
        .ok_or_else(|| format!("{text:?} is not a size (a byte count, or with KiB, MiB or GiB)"))
}

/// A `--report` format by its command-line name.
pub fn report_format(text: &str) -> Result<ReportFormat, String> {
    match text {
        "text" => Ok(ReportFormat::Text),
        "json" => Ok(ReportFormat::Json),
        _ => Err(format!(
            "invalid value '{text}' for '--report <REPORT>' (possible values: text, json)"
        )),
    }
}

/// An `inject -o` format by its command-line name.
pub fn output_format(text: &str) -> Result<crate::inject::OutputFormat, String> {
    match text {
        "yaml" => Ok(crate::inject::OutputFormat::Yaml),
        "json" => Ok(crate::inject::OutputFormat::Json),
        _ => Err(format!(
            "invalid value '{text}' for '--output <FORMAT>' (possible values: yaml, json)"
        )),
    }
}

/// Reads an inject case's arguments: `inject` or `uninject`, then that command's flags and inputs.
pub fn inject_case<'a>(
    items: impl IntoIterator<Item = &'a str>,
) -> Result<InjectCaseCommand, String> {
    let mut items = items.into_iter();
    let command = items.next();
    let mut args = Args::new(items.collect());
    let mut request = InjectRequest::default();
    let mut report = ReportFormat::default();
    let mut once = Once::default();
    let inject = match command {
        Some("inject") => true,
        Some("uninject") => false,
        Some(other) => return Err(format!("unrecognized subcommand '{other}'")),
        None => return Err("a case's args start with inject or uninject".into()),
    };
    while let Some(flag) = args.next() {
        if flag.name.is_empty() {
            request
                .inputs
                .push(flag.attached.unwrap_or_default().to_owned());
            continue;
        }
        once.check(
            &flag,
            &["--report", "--namespace-annotations", "--kube-version"],
        )?;
        once.check(&flag, &["--certs-dir", "--config"])?;
        once.check(&flag, &["-o", "--output", "--quiet"])?;
        if flag.name == "--report" {
            report = report_format(&args.value(&flag)?)?;
            continue;
        }
        if !inject {
            return Err(unexpected(&flag));
        }
        if value_flag(&mut args, &flag, &mut request.overrides)? {
            continue;
        }
        match flag.name.as_str() {
            "--namespace-annotations" => {
                request.namespace_annotations = Some(Utf8PathBuf::from(args.value(&flag)?));
            }
            "--kube-version" => request.kube_version = Some(args.value(&flag)?),
            "--certs-dir" => request.certs_dir = Some(Utf8PathBuf::from(args.value(&flag)?)),
            "--config" => request.config = Some(args.value(&flag)?),
            "-o" | "--output" => request.output = output_format(&args.value(&flag)?)?,
            "--quiet" if flag.attached.is_none() => request.quiet = true,
            _ => return Err(unexpected(&flag)),
        }
    }
    if request.inputs.is_empty() {
        return Err("the following required arguments were not provided: <FILE|DIR|->...".into());
    }
    Ok(if inject {
        InjectCaseCommand::Inject(Box::new(request), report)
    } else {
        InjectCaseCommand::Uninject(request.inputs, report)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn attached_and_separate_values_read_alike() {
        let separate = render_request(["-f", "a.yaml", "--set", "x=1", "-n", "ns"]).unwrap();
        let attached = render_request(["-fa.yaml", "--set=x=1", "-n=ns"]).unwrap();
        assert_eq!(separate, attached);
        assert_eq!(separate.values.files, ["a.yaml"]);
        assert_eq!(separate.values.set, ["x=1"]);
        assert_eq!(separate.namespace, "ns");
    }

    #[test]
    fn a_flag_without_its_value_is_named() {
        let error = render_request(["--set"]).unwrap_err();
        assert!(error.contains("'--set'"), "{error}");
    }

    #[test]
    fn an_unknown_flag_is_named() {
        let error = render_request(["--sett", "x=1"]).unwrap_err();
        assert!(error.contains("'--sett'"), "{error}");
    }

    #[test]
    fn uninject_takes_no_value_flags() {
        assert!(inject_case(["uninject", "in.yaml", "--set", "x=1"]).is_err());
        assert_eq!(
            inject_case(["uninject", "in.yaml"]).unwrap(),
            InjectCaseCommand::Uninject(vec!["in.yaml".into()], ReportFormat::Text)
        );
    }
}
