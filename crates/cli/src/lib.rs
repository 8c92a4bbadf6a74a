//! The command line's grammar, and the only crate besides the binary that knows clap: the flag
//! groups (the value flags of `render`, `lint`, `diff`, `values` and `inject`; the render flags;
//! the flags of `inject`/`uninject`; Helm's flags, in [`helm`]), each turned into the libraries'
//! plain requests, which never see a clap type. The `meshchart` binary parses its command line
//! with them, and golden cases' `args` are read with them ([`CommandLineCaseArgs`]), so a case
//! means what the same flags mean on the command line.

#![deny(missing_docs)]
// What is `pub` is the crate's surface: an item only the crate uses says `pub(crate)`.
#![warn(unreachable_pub)]

use camino::Utf8PathBuf;
use clap::{Args, Parser as _};
use meshchart_helm::values::ValueOverrides;
use meshchart_linkerd::golden::{CaseArgs, CaseChart, InjectCaseCommand};
use meshchart_linkerd::inject::command::InjectRequest;
use meshchart_linkerd::inject::{OutputFormat, ReportFormat};
use meshchart_linkerd::render::RenderRequest;
use meshchart_linkerd::ChartSource;

pub mod helm;

/// Which chart a command works on: a folder or archive (named as Helm takes it, `CHART`, or with
/// `--chart`), or one of the release lines compiled into meshchart (`--linkerd`). With none of
/// them, inside a folder holding a `Chart.yaml` the command works on that folder and says so
/// (see [`ChartFlags::resolved`]); elsewhere, on the default Linkerd line.
#[derive(Args, Clone, Debug, Default, PartialEq)]
pub struct ChartFlags {
    /// The chart: a folder or archive (.tgz), as `helm template CHART` takes it (the same as
    /// --chart).
    #[arg(value_name = "CHART", conflicts_with_all = ["chart", "linkerd", "crds"])]
    pub path: Option<Utf8PathBuf>,
    /// A chart folder or archive (.tgz) instead of an embedded Linkerd release line.
    #[arg(long, value_name = "DIR|TGZ", conflicts_with_all = ["linkerd", "crds"])]
    pub chart: Option<Utf8PathBuf>,
    /// The Linkerd release whose embedded charts to use (`meshchart releases` lists them);
    /// default: the release your values' linkerdVersion names, else the default line.
    #[arg(long, value_name = "RELEASE")]
    pub linkerd: Option<String>,
    /// The release line's CRD chart (linkerd-crds) instead of its control plane.
    #[arg(long)]
    pub crds: bool,
}

/// What `ChartFlags::resolved` tells on stderr when it takes the current folder's chart.
pub const CURRENT_FOLDER_NOTE: &str = "note: using the chart in ./ (this folder holds a \
     Chart.yaml); name a CHART to use another, or --linkerd RELEASE for an embedded Linkerd line";

impl ChartFlags {
    /// The flags with the chart made explicit: the positional `CHART` moves to `chart`; with no
    /// chart and no `--linkerd`/`--crds`, a `Chart.yaml` in the current folder makes `./` the
    /// chart, said on stderr (a command run inside a chart's folder must not quietly work on
    /// the embedded Linkerd chart instead).
    pub fn resolved(mut self) -> ChartFlags {
        if self.chart.is_none() {
            self.chart = self.path.take();
        }
        if self.chart.is_none()
            && self.linkerd.is_none()
            && !self.crds
            && camino::Utf8Path::new("Chart.yaml").is_file()
        {
            eprintln!("{CURRENT_FOLDER_NOTE}");
            self.chart = Some(Utf8PathBuf::from("./"));
        }
        self
    }

    /// Where the chart comes from.
    pub fn source(&self) -> ChartSource {
        match &self.chart {
            Some(path) => ChartSource::from_flag(Some(path)),
            None => ChartSource::Embedded {
                release: self.linkerd.clone(),
                crds: self.crds,
            },
        }
    }
}

/// `render`'s chart and release name, as `helm template [NAME] [CHART]` takes them: two words
/// are NAME and CHART; one word is the CHART, or the NAME when `--chart`, `--linkerd` or
/// `--crds` already names the chart (`render linkerd-control-plane --linkerd edge-26.8.3`).
#[derive(Args, Clone, Debug, Default, PartialEq)]
pub struct RenderChartFlags {
    /// `[NAME] CHART`, as `helm template` takes them: the release name (`Release.Name`) and the
    /// chart, a folder or archive (.tgz). One word is the chart, or the release name when
    /// --chart, --linkerd or --crds names the chart.
    #[arg(value_name = "NAME|CHART", num_args = 0..=2)]
    pub words: Vec<String>,
    /// A chart folder or archive (.tgz) instead of an embedded Linkerd release line.
    #[arg(long, value_name = "DIR|TGZ", conflicts_with_all = ["linkerd", "crds"])]
    pub chart: Option<Utf8PathBuf>,
    /// The Linkerd release whose embedded charts to use (`meshchart releases` lists them);
    /// default: the release your values' linkerdVersion names, else the default line.
    #[arg(long, value_name = "RELEASE")]
    pub linkerd: Option<String>,
    /// The release line's CRD chart (linkerd-crds) instead of its control plane.
    #[arg(long)]
    pub crds: bool,
}

impl RenderChartFlags {
    /// The chart flags and the release name the words give (`None`: the words name none). Two
    /// words beside another way of naming the chart, or a name given twice, are refused.
    pub fn split(self, flags: &RenderFlags) -> Result<(ChartFlags, Option<String>), String> {
        let named_otherwise = self.chart.is_some() || self.linkerd.is_some() || self.crds;
        let other = || {
            [
                self.chart.as_ref().map(|_| "--chart"),
                self.linkerd.as_ref().map(|_| "--linkerd"),
                self.crds.then_some("--crds"),
            ]
            .into_iter()
            .flatten()
            .collect::<Vec<_>>()
            .join(", ")
        };
        let mut words = self.words.clone().into_iter();
        let (name, path) = match (words.next(), words.next()) {
            (Some(name), Some(chart)) if !named_otherwise => (Some(name), Some(chart)),
            (Some(_), Some(chart)) => {
                return Err(format!(
                    "NAME CHART names the chart ({chart}), and so does {}: give one of them",
                    other()
                ))
            }
            (Some(word), None) if named_otherwise => (Some(word), None),
            (Some(chart), None) => (None, Some(chart)),
            (None, _) => (None, None),
        };
        if let Some(name) = &name {
            check_release_name(name).map_err(|reason| match path {
                None => format!(
                    "{reason}; {} already names the chart, so the word is read as the release \
                     name",
                    other()
                ),
                Some(_) => reason,
            })?;
            let given = [
                flags.name.as_ref().map(|_| "--name"),
                flags.name_template.as_ref().map(|_| "--name-template"),
                flags.generate_name.then_some("--generate-name"),
            ]
            .into_iter()
            .flatten()
            .next();
            if let Some(flag) = given {
                return Err(format!(
                    "the release is named {name:?} by NAME and also by {flag}: give one of them \
                     (Helm: \"cannot set --generate-name and also specify a name\")"
                ));
            }
        }
        let chart = ChartFlags {
            path: path.map(Utf8PathBuf::from),
            chart: self.chart,
            linkerd: self.linkerd,
            crds: self.crds,
        };
        Ok((chart, name))
    }
}

/// `diff`'s chart flags: `--chart`, `--linkerd`, `--crds` (its positional arguments are the
/// streams it compares).
#[derive(Args, Clone, Debug, Default, PartialEq)]
pub struct DiffChartFlags {
    /// A chart folder or archive (.tgz) both sides render, instead of an embedded Linkerd line.
    #[arg(long, value_name = "DIR|TGZ", conflicts_with_all = ["linkerd", "crds"])]
    pub chart: Option<Utf8PathBuf>,
    /// The Linkerd release whose embedded charts both sides use.
    #[arg(long, value_name = "RELEASE")]
    pub linkerd: Option<String>,
    /// The release line's CRD chart (linkerd-crds) instead of its control plane.
    #[arg(long)]
    pub crds: bool,
}

impl From<DiffChartFlags> for ChartFlags {
    fn from(flags: DiffChartFlags) -> ChartFlags {
        ChartFlags {
            path: None,
            chart: flags.chart,
            linkerd: flags.linkerd,
            crds: flags.crds,
        }
    }
}

/// The value flags of `helm template`: values files and the `--set` family.
#[derive(Args, Clone, Debug, Default, PartialEq)]
pub struct ValueFlags {
    /// Values file (repeatable; later files win; `-` reads stdin).
    #[arg(id = "values", short = 'f', long = "values", value_name = "FILE")]
    pub files: Vec<String>,
    /// Set a value: `a.b=1,c[0]=x` (types inferred as Helm does).
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub set: Vec<String>,
    /// Set a value, always as a string.
    #[arg(long = "set-string", value_name = "KEY=VALUE")]
    pub set_string: Vec<String>,
    /// Set a value to the contents of a file: `key=path`.
    #[arg(long = "set-file", value_name = "KEY=PATH")]
    pub set_file: Vec<String>,
    /// Set a value from JSON: `key={"a":1}`.
    #[arg(long = "set-json", value_name = "KEY=JSON")]
    pub set_json: Vec<String>,
    /// Set a value to a literal string, no commas or escapes interpreted.
    #[arg(long = "set-literal", value_name = "KEY=VALUE")]
    pub set_literal: Vec<String>,
}

impl ValueFlags {
    /// The value sources, for the library.
    pub fn overrides(&self) -> ValueOverrides {
        ValueOverrides {
            files: self.files.clone(),
            set: self.set.clone(),
            set_string: self.set_string.clone(),
            set_file: self.set_file.clone(),
            set_json: self.set_json.clone(),
            set_literal: self.set_literal.clone(),
            already_read: Default::default(),
        }
    }
}

/// Flags that choose values and release settings, as `helm template` has them.
#[derive(Args, Clone, Debug, Default, PartialEq)]
pub struct RenderFlags {
    /// `-f` and the `--set` family.
    #[command(flatten)]
    pub values: ValueFlags,
    /// `Release.Namespace` (default: `default`, as Helm's); on the 2021 line (edge-21.4.4),
    /// whose chart puts everything in its `namespace` value, that value too.
    #[arg(short = 'n', long)]
    pub namespace: Option<String>,
    /// Keys your values set that the chart does not read are an error (default: a warning);
    /// `lint --strict` also fails on every warning and on a `required` value left unset.
    #[arg(long)]
    pub strict: bool,
    /// Apply the chart's high-availability values (its values-ha.yaml) under your own -f and
    /// --set values, as `linkerd install --ha` does.
    #[arg(long)]
    pub ha: bool,
    /// `Release.Name` (default: `release-name`, as `helm template`'s): the NAME of `render NAME
    /// CHART`, for a chart named otherwise (--chart, --linkerd, the current folder).
    #[arg(long, value_name = "NAME", value_parser = parse_release_name, conflicts_with_all = ["name_template", "generate_name"])]
    pub name: Option<String>,
    /// Helm's `--name-template`: the release name, here plain text only (a template such as
    /// `{{randAlpha 6}}` would make every render differ, and is refused).
    #[arg(long, value_name = "TEXT", value_parser = parse_name_template, conflicts_with = "generate_name")]
    pub name_template: Option<String>,
    /// Helm's `-g/--generate-name`: `helm template` then names the release `release-name`, and so
    /// does meshchart (a generated name would change at every render).
    #[arg(short = 'g', long)]
    pub generate_name: bool,
    /// Do not check the values against the chart's values.schema.json (Helm's flag).
    #[arg(long)]
    pub skip_schema_validation: bool,
    /// Kubernetes version for `Capabilities.KubeVersion` (e.g. 1.30.0).
    #[arg(long, value_name = "VERSION")]
    pub kube_version: Option<String>,
    /// Extra group/versions for `Capabilities.APIVersions` (repeatable).
    #[arg(short = 'a', long = "api-versions", value_name = "GROUP/VERSION")]
    pub api_versions: Vec<String>,
    /// Only print documents from this template (`templates/x.yaml`; globs allowed; repeatable).
    #[arg(short = 's', long = "show-only", value_name = "TEMPLATE")]
    pub show_only: Vec<String>,
    /// Render as an upgrade (`Release.IsUpgrade`).
    #[arg(long)]
    pub is_upgrade: bool,
    /// Keep generated certificates here and reuse them on later renders.
    #[arg(long, value_name = "DIR")]
    pub certs_dir: Option<Utf8PathBuf>,
    /// Most bytes the whole render may output (e.g. `64MiB`, the default; `KiB`, `GiB` too).
    #[arg(long, value_name = "SIZE", value_parser = parse_size_flag)]
    pub max_output_bytes: Option<u64>,
}

/// Helm's rule for release names: at most 53 characters, lowercase letters, digits, `-` and
/// `.`, each dot-separated part starting and ending with a letter or digit (Kubernetes names
/// are built from it).
pub fn check_release_name(name: &str) -> Result<(), String> {
    let part_ok = |part: &str| {
        !part.is_empty()
            && part
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
            && !part.starts_with('-')
            && !part.ends_with('-')
    };
    if name.len() > 53 || !name.split('.').all(part_ok) {
        return Err(format!(
            "{name:?} is not a valid release name (Helm's rule: at most 53 characters, lowercase \
             letters, digits, '-' and '.', starting and ending with a letter or digit)"
        ));
    }
    Ok(())
}

fn parse_release_name(text: &str) -> Result<String, String> {
    check_release_name(text).map(|()| text.to_owned())
}

fn parse_name_template(text: &str) -> Result<String, String> {
    if text.contains("{{") {
        return Err(
            "meshchart takes the release name as plain text: a template there (Helm \
                    renders one, often with randomness or the time) would make each render \
                    differ; give the name itself"
                .into(),
        );
    }
    check_release_name(text).map(|()| text.to_owned())
}

fn parse_size_flag(text: &str) -> Result<u64, String> {
    meshchart_helm::input::parse_size(text)
        .ok_or_else(|| format!("{text:?} is not a size (a byte count, or with KiB, MiB or GiB)"))
}

impl RenderFlags {
    /// `Release.Name`: `--name`, `--name-template`, or Helm's default for `helm template`.
    pub fn release_name(&self) -> String {
        self.name
            .clone()
            .or_else(|| self.name_template.clone())
            .unwrap_or_else(|| RenderRequest::default().release_name)
    }

    /// The request the library renders.
    pub fn request(&self) -> RenderRequest {
        RenderRequest {
            values: self.values.overrides(),
            namespace: self
                .namespace
                .clone()
                .unwrap_or_else(|| RenderRequest::default().namespace),
            namespace_given: self.namespace.is_some(),
            strict: self.strict,
            ha: self.ha,
            release_name: self.release_name(),
            skip_schema_validation: self.skip_schema_validation,
            kube_version: self.kube_version.clone(),
            api_versions: self.api_versions.clone(),
            show_only: self.show_only.clone(),
            is_upgrade: self.is_upgrade,
            certs_dir: self.certs_dir.clone(),
            require_kept_material: false,
            certs_dir_read_only: false,
            max_output_bytes: self.max_output_bytes,
        }
    }
}

/// How a command prints its result (`-o`/`--output`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// For people: lines of text.
    #[default]
    Text,
    /// For programs: one JSON document on stdout (notes stay on stderr).
    Json,
}

/// `-o/--output text|json` of `lint`, `golden`, `diff`, `releases` and `certs inspect`.
#[derive(Args, Clone, Copy, Debug, Default, PartialEq)]
pub struct FormatFlag {
    /// How the result is printed: `text`, or `json` (one JSON document on stdout).
    #[arg(
        short = 'o',
        long = "output",
        value_enum,
        value_name = "FORMAT",
        default_value_t
    )]
    pub output: Format,
}

impl FormatFlag {
    /// Whether the result is printed as JSON.
    pub fn json(self) -> bool {
        self.output == Format::Json
    }
}

/// How the inject report on stderr is written (the library's [`ReportFormat`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum ReportKind {
    /// One line per resource.
    #[default]
    Text,
    /// One JSON document: `{"resources": [...]}`.
    Json,
}

impl From<ReportKind> for ReportFormat {
    fn from(kind: ReportKind) -> Self {
        match kind {
            ReportKind::Text => ReportFormat::Text,
            ReportKind::Json => ReportFormat::Json,
        }
    }
}

/// `meshchart inject`.
#[derive(Args, Clone, Debug, Default, PartialEq)]
pub struct InjectArgs {
    /// Manifests to inject: files, folders (recursively: .yaml, .yml, .json) or `-` for stdin.
    #[arg(value_name = "FILE|DIR|-", required = true)]
    pub inputs: Vec<String>,
    /// The Linkerd release whose proxy partials inject renders (`meshchart releases` lists
    /// them); default: the release your values' linkerdVersion names, else the default line.
    #[arg(long, value_name = "RELEASE")]
    pub linkerd: Option<String>,
    /// Upstream's linkerd-control-plane chart of the release to inject (a folder, or the
    /// archive `helm pull linkerd/linkerd-control-plane --version X` fetches): its proxy
    /// partials render the sidecars, as the Linkerd CLI of that release does.
    #[arg(long, value_name = "DIR|TGZ", conflicts_with = "linkerd")]
    pub chart: Option<Utf8PathBuf>,
    /// `-f` and the `--set` family.
    #[command(flatten)]
    pub values: ValueFlags,
    /// A Namespace manifest whose `config.linkerd.io/*` annotations the workloads inherit
    /// (workloads in that namespace, or naming none).
    #[arg(long, value_name = "FILE")]
    pub namespace_annotations: Option<Utf8PathBuf>,
    /// How the report on stderr is written.
    #[arg(long, value_enum, default_value_t = ReportKind::Text)]
    pub report: ReportKind,
    /// Kubernetes version of the target cluster, as render's `--kube-version` (default v1.32.0):
    /// native-sidecar proxies need 1.29 or newer.
    #[arg(long, value_name = "VERSION")]
    pub kube_version: Option<String>,
    /// The folder `render --certs-dir` kept: its ca.crt gives the trust anchors when the values
    /// give none.
    #[arg(long, value_name = "DIR")]
    pub certs_dir: Option<Utf8PathBuf>,
    /// The control plane's `linkerd-config` ConfigMap (a `meshchart render` output, or `kubectl
    /// get configmap linkerd-config -n linkerd -o yaml`; `-` for stdin): its values replace the
    /// chart defaults, under `-f`/`--set` and annotations.
    #[arg(long, value_name = "FILE|-")]
    pub config: Option<String>,
    /// Output format, as `linkerd inject -o`: `yaml`, or `json` (one compact JSON document per
    /// line for each input document). Default: YAML, or JSON when every input is JSON.
    #[arg(short = 'o', long, value_enum, value_name = "FORMAT")]
    pub output: Option<OutputKind>,
    /// Leave out the per-resource report and the progress bar on stderr: notes, the summary
    /// line and errors remain.
    #[arg(long)]
    pub quiet: bool,
}

/// `inject -o` (the library's [`OutputFormat`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum OutputKind {
    /// YAML, whatever the inputs.
    Yaml,
    /// One compact JSON document per line.
    Json,
}

/// `meshchart uninject`.
#[derive(Args, Clone, Debug, Default, PartialEq)]
pub struct UninjectArgs {
    /// Manifests to uninject: files, folders (recursively: .yaml, .yml, .json) or `-` for stdin.
    #[arg(value_name = "FILE|DIR|-", required = true)]
    pub inputs: Vec<String>,
    /// How the report on stderr is written.
    #[arg(long, value_enum, default_value_t = ReportKind::Text)]
    pub report: ReportKind,
    /// Leave out the per-resource report and the progress bar on stderr (errors remain).
    #[arg(long)]
    pub quiet: bool,
}

impl InjectArgs {
    /// The request the inject module runs.
    pub fn request(&self) -> InjectRequest {
        InjectRequest {
            inputs: self.inputs.clone(),
            overrides: self.values.overrides(),
            namespace_annotations: self.namespace_annotations.clone(),
            kube_version: self.kube_version.clone(),
            certs_dir: self.certs_dir.clone(),
            config: self.config.clone(),
            output: match self.output {
                None => OutputFormat::Auto,
                Some(OutputKind::Yaml) => OutputFormat::Yaml,
                Some(OutputKind::Json) => OutputFormat::Json,
            },
            quiet: self.quiet,
        }
    }
}

/// A render golden case's `args`: `render`'s chart flags and render flags.
#[derive(clap::Parser)]
#[command(name = "render", no_binary_name = true)]
struct RenderCaseLine {
    #[command(flatten)]
    chart: RenderChartFlags,
    #[command(flatten)]
    flags: RenderFlags,
}

/// An inject golden case's `args`: `inject ...` or `uninject ...`.
#[derive(clap::Parser)]
#[command(name = "meshchart", no_binary_name = true)]
enum InjectCaseLine {
    Inject(Box<InjectArgs>),
    Uninject(UninjectArgs),
}

/// Reads golden cases' `args` with the command line's own flag groups and clap's parser, so a
/// case's arguments mean what they mean to `meshchart render` and `meshchart inject`.
#[derive(Clone, Copy, Debug, Default)]
pub struct CommandLineCaseArgs;

/// Clap's message, without its `error: ` lead, usage and hints: it is quoted after the `args`
/// file's name.
fn clap_message(error: &clap::Error) -> String {
    let rendered = error.render().to_string();
    let first = rendered.lines().next().unwrap_or_default();
    first.strip_prefix("error: ").unwrap_or(first).to_owned()
}

impl CaseArgs for CommandLineCaseArgs {
    fn render_case(&self, arguments: &[&str]) -> Result<(RenderRequest, CaseChart), String> {
        let mut line = RenderCaseLine::try_parse_from(arguments).map_err(|e| clap_message(&e))?;
        let (chart, name) = line.chart.split(&line.flags)?;
        line.flags.name = name.or(line.flags.name);
        let chart = CaseChart {
            path: chart.chart.or(chart.path).map(|p| p.to_string()),
            linkerd: chart.linkerd,
            crds: chart.crds,
        };
        Ok((line.flags.request(), chart))
    }

    fn inject_case(&self, arguments: &[&str]) -> Result<InjectCaseCommand, String> {
        Ok(
            match InjectCaseLine::try_parse_from(arguments).map_err(|e| clap_message(&e))? {
                InjectCaseLine::Inject(args) => {
                    InjectCaseCommand::Inject(Box::new(args.request()), args.report.into())
                }
                InjectCaseLine::Uninject(args) => {
                    InjectCaseCommand::Uninject(args.inputs, args.report.into())
                }
            },
        )
    }
}

#[cfg(test)]
mod tests;
