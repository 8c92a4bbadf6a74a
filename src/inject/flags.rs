//! The flags of `meshchart inject` and `uninject` (also read from golden cases' `args` files).

use super::report::ReportFormat;
use crate::flags::ValueFlags;
use camino::Utf8PathBuf;
use clap::Args;

/// `meshchart inject`.
#[derive(Args, Clone, Debug, Default, PartialEq)]
pub struct InjectArgs {
    /// Manifests to inject: files, folders (recursively: .yaml, .yml, .json) or `-` for stdin.
    #[arg(value_name = "FILE|DIR|-", required = true)]
    pub inputs: Vec<String>,
    /// `-f` and the `--set` family.
    #[command(flatten)]
    pub values: ValueFlags,
    /// A Namespace manifest whose `config.linkerd.io/*` annotations the workloads inherit
    /// (workloads in that namespace, or naming none).
    #[arg(long, value_name = "FILE")]
    pub namespace_annotations: Option<Utf8PathBuf>,
    /// How the report on stderr is written.
    #[arg(long, value_enum, default_value_t = ReportFormat::Text)]
    pub report: ReportFormat,
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
}

/// `meshchart uninject`.
#[derive(Args, Clone, Debug, Default, PartialEq)]
pub struct UninjectArgs {
    /// Manifests to uninject: files, folders (recursively: .yaml, .yml, .json) or `-` for stdin.
    #[arg(value_name = "FILE|DIR|-", required = true)]
    pub inputs: Vec<String>,
    /// How the report on stderr is written.
    #[arg(long, value_enum, default_value_t = ReportFormat::Text)]
    pub report: ReportFormat,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::flags::RenderFlags;
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
            format!("{:?}", render.flags.overrides())
        );
    }
}
