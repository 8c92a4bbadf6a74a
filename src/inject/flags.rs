//! The flags of `meshchart inject` and `uninject` (also read from golden cases' `args` files).

use super::report::ReportFormat;
use crate::values::ValueOverrides;
use camino::Utf8PathBuf;
use clap::Args;

/// The values flags of `helm template` (the same as [`crate::flags::RenderFlags`]'s, without the
/// release settings, which mean nothing to inject).
#[derive(Args, Clone, Debug, Default, PartialEq)]
pub struct ValueFlags {
    /// Values file (repeatable; later files win; `-` reads stdin).
    #[arg(short = 'f', long = "values", value_name = "FILE")]
    pub values: Vec<String>,
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
    /// The value flags, for the values module.
    pub fn overrides(&self) -> ValueOverrides {
        ValueOverrides {
            files: self.values.clone(),
            set: self.set.clone(),
            set_string: self.set_string.clone(),
            set_file: self.set_file.clone(),
            set_json: self.set_json.clone(),
            set_literal: self.set_literal.clone(),
        }
    }

    /// Whether any flag reads stdin (`-f -`, `--set-file key=-`).
    pub fn reads_stdin(&self) -> bool {
        self.values.iter().any(|f| f == "-")
            || self
                .set_file
                .iter()
                .any(|s| s.split_once('=').is_some_and(|(_, p)| p == "-"))
    }

    /// Resolves relative file paths against `base` (a golden case's folder).
    pub fn resolve_paths(&mut self, base: &camino::Utf8Path) {
        let resolve = |path: &str| -> String {
            if path == "-" || camino::Utf8Path::new(path).is_absolute() {
                path.to_owned()
            } else {
                base.join(path).to_string()
            }
        };
        for file in &mut self.values {
            *file = resolve(file);
        }
        for item in &mut self.set_file {
            if let Some((key, path)) = item.split_once('=') {
                *item = format!("{key}={}", resolve(path));
            }
        }
    }
}

/// `meshchart inject`.
#[derive(Args, Clone, Debug, Default, PartialEq)]
pub struct InjectArgs {
    /// Manifests to inject: files, folders (recursively: .yaml, .yml, .json) or `-` for stdin.
    #[arg(value_name = "FILE|DIR|-", required = true)]
    pub inputs: Vec<String>,
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
