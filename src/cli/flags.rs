//! The command line's flag groups: the value flags (`render`, `lint`, `diff`, `values`,
//! `inject`), the render flags (`render`, `lint`, `diff`) and the flags of `inject`/`uninject`.
//! Each turns into the library's plain request; the library never sees a clap type.

use camino::Utf8PathBuf;
use clap::Args;
use meshchart::inject::command::InjectRequest;
use meshchart::inject::{OutputFormat, ReportFormat};
use meshchart::render::RenderRequest;
use meshchart::values::ValueOverrides;
use meshchart::ChartSource;

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
    /// `Release.Name`.
    #[arg(long, default_value = "release-name")]
    pub release_name: String,
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

fn parse_size_flag(text: &str) -> Result<u64, String> {
    meshchart::golden::args::parse_size(text)
}

impl RenderFlags {
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
            release_name: self.release_name.clone(),
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
    /// Leave out the per-resource report on stderr: notes, the summary line and errors remain.
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

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    #[command(no_binary_name = true)]
    struct Render {
        #[command(flatten)]
        flags: RenderFlags,
    }

    #[derive(Parser)]
    #[command(no_binary_name = true)]
    struct Inject {
        #[command(flatten)]
        args: InjectArgs,
    }

    #[derive(Parser)]
    #[command(no_binary_name = true)]
    struct Uninject {
        #[command(flatten)]
        args: UninjectArgs,
    }

    /// Argument lists a golden case's `args` file may hold, in every spelling clap accepts.
    const RENDER_ARGUMENT_LISTS: &[&[&str]] = &[
        &[],
        &[
            "-f",
            "a.yaml",
            "--values",
            "b.yaml",
            "--values=c.yaml",
            "-fd.yaml",
            "-f=e.yaml",
        ],
        &[
            "--set",
            "x=1,y=2",
            "--set=z=3",
            "--set-string",
            "s=1",
            "--set-file",
            "k=f.txt",
        ],
        &[
            "--set-json",
            "j={\"a\":1}",
            "--set-literal",
            "l=a,b",
            "--set-literal=m=c",
        ],
        &[
            "-n",
            "linkerd",
            "--release-name",
            "r",
            "--kube-version",
            "1.30.0",
        ],
        &[
            "--namespace=ns",
            "-a",
            "x/v1",
            "--api-versions",
            "y/v1",
            "-s",
            "templates/a.yaml",
        ],
        &[
            "--show-only=templates/*.yaml",
            "--is-upgrade",
            "--certs-dir",
            "certs",
        ],
        &["--max-output-bytes", "1MiB"],
        &["--max-output-bytes=2048", "-nlinkerd"],
        &["--strict", "--namespace", "default"],
    ];

    #[test]
    fn golden_args_read_render_flags_as_the_command_line_does() {
        for list in RENDER_ARGUMENT_LISTS {
            let by_clap = Render::try_parse_from(*list).unwrap().flags.request();
            let by_golden = meshchart::golden::args::render_request(list.iter().copied()).unwrap();
            assert_eq!(by_golden, by_clap, "{list:?}");
        }
    }

    #[derive(Parser)]
    #[command(no_binary_name = true)]
    struct RenderWithChart {
        #[command(flatten)]
        chart: ChartFlags,
        #[command(flatten)]
        flags: RenderFlags,
    }

    #[test]
    fn golden_args_name_the_chart_as_the_command_line_does() {
        let lists: &[&[&str]] = &[
            &["web", "--set", "a=1"],
            &["-f", "v.yaml", "web.tgz", "-n", "shop"],
            &["--chart", "web"],
            &["--chart=web", "--set", "x=y"],
            &["--linkerd", "edge-24.10.2", "--crds"],
            &["--linkerd=edge-26.8.3"],
            &["--set", "a=1"],
        ];
        for list in lists {
            let parsed = RenderWithChart::try_parse_from(*list).unwrap();
            let by_clap = (
                parsed.flags.request(),
                meshchart::golden::args::CaseChart {
                    path: parsed
                        .chart
                        .chart
                        .or(parsed.chart.path)
                        .map(|p| p.to_string()),
                    linkerd: parsed.chart.linkerd,
                    crds: parsed.chart.crds,
                },
            );
            let by_golden = meshchart::golden::args::render_case(list.iter().copied()).unwrap();
            assert_eq!(by_golden, by_clap, "{list:?}");
        }
        for list in [
            &["a", "b"][..],
            &["a", "--linkerd", "edge-24.10.2"],
            &["--chart", "a", "--crds"],
            &["a", "--chart", "b"],
            &["--linkerd", "x", "--linkerd", "y"],
        ] {
            assert!(RenderWithChart::try_parse_from(list).is_err(), "{list:?}");
            assert!(
                meshchart::golden::args::render_case(list.iter().copied()).is_err(),
                "{list:?}"
            );
        }
    }

    #[test]
    fn golden_args_refuse_what_the_command_line_refuses() {
        for list in [
            &["--sett", "x"][..],
            &["--set"],
            &["positional"],
            &["--is-upgrade=yes"],
            &["-n", "a", "--namespace", "b"],
            &["--kube-version=1.30.0", "--kube-version", "1.31.0"],
        ] {
            assert!(Render::try_parse_from(list).is_err(), "{list:?}");
            assert!(
                meshchart::golden::args::render_request(list.iter().copied()).is_err(),
                "{list:?}"
            );
        }
    }

    #[test]
    fn golden_args_read_inject_flags_as_the_command_line_does() {
        let lists: &[&[&str]] = &[
            &["in.yaml"],
            &[
                "a.yaml",
                "b/",
                "-",
                "-f",
                "v.yaml",
                "--set",
                "proxy.await=false",
            ],
            &[
                "in.yaml",
                "--namespace-annotations",
                "ns.yaml",
                "--report",
                "json",
            ],
            &[
                "in.yaml",
                "--kube-version=1.29.0",
                "--certs-dir",
                "c",
                "--config",
                "cp.yaml",
            ],
            &["in.yaml", "-o", "json", "--quiet"],
            &["in.yaml", "--output=yaml"],
            &["in.yaml", "-ojson"],
        ];
        for list in lists {
            let args = Inject::try_parse_from(*list).unwrap().args;
            let by_clap = meshchart::golden::args::InjectCaseCommand::Inject(
                Box::new(args.request()),
                args.report.into(),
            );
            let mut with_command = vec!["inject"];
            with_command.extend(list.iter().copied());
            let by_golden = meshchart::golden::args::inject_case(with_command).unwrap();
            assert_eq!(by_golden, by_clap, "{list:?}");
        }
        let args = Uninject::try_parse_from(["x.yaml", "--report=json"])
            .unwrap()
            .args;
        assert_eq!(
            meshchart::golden::args::inject_case(["uninject", "x.yaml", "--report=json"]).unwrap(),
            meshchart::golden::args::InjectCaseCommand::Uninject(args.inputs, args.report.into())
        );
    }

    #[test]
    fn value_flags_read_like_render_flags() {
        let value_args = [
            "-f",
            "a.yaml",
            "--values",
            "b.yaml",
            "--set",
            "x=1",
            "--set-string",
            "y=2",
            "--set-file",
            "z=f.txt",
            "--set-json",
            "j={}",
            "--set-literal",
            "l=a,b",
        ];
        let render = Render::try_parse_from(value_args).unwrap();
        let mut args = vec!["in.yaml"];
        args.extend(value_args);
        let inject = Inject::try_parse_from(args).unwrap();
        assert_eq!(
            format!("{:?}", inject.args.values.overrides()),
            format!("{:?}", render.flags.values.overrides())
        );
    }
}
