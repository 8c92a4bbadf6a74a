//! The command line's flag types: the value flags (`render`, `lint`, `diff`, `values`,
//! `inject`), the render flags (`render`, `lint`, `diff`, and golden cases' `args` files) and
//! the flags of `inject`/`uninject`. The library's modules take plain option structs; these
//! types turn into them.

use crate::engine::{KubeVersion, RenderOptions};
use crate::inject::command::InjectRequest;
use crate::inject::ReportFormat;
use crate::values::ValueOverrides;
use camino::{Utf8Path, Utf8PathBuf};
use clap::Args;

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
    /// The value flags, for the values module.
    pub fn overrides(&self) -> ValueOverrides {
        ValueOverrides {
            files: self.files.clone(),
            set: self.set.clone(),
            set_string: self.set_string.clone(),
            set_file: self.set_file.clone(),
            set_json: self.set_json.clone(),
            set_literal: self.set_literal.clone(),
        }
    }

    /// Whether any flag reads stdin (`-f -`, `--set-file key=-`).
    pub fn reads_stdin(&self) -> bool {
        self.overrides().reads_stdin()
    }

    /// Resolves relative file paths against `base` (a golden case's folder).
    pub fn resolve_paths(&mut self, base: &Utf8Path) {
        for file in &mut self.files {
            *file = resolve_path(base, file);
        }
        for item in &mut self.set_file {
            if let Some((key, path)) = item.split_once('=') {
                *item = format!("{key}={}", resolve_path(base, path));
            }
        }
    }
}

/// `path` joined onto `base` when it is relative; `-` (stdin) and absolute paths as they are.
pub fn resolve_path(base: &Utf8Path, path: &str) -> String {
    if path == "-" || Utf8Path::new(path).is_absolute() {
        path.to_owned()
    } else {
        base.join(path).to_string()
    }
}

/// Flags that choose values and release settings, as `helm template` has them.
#[derive(Args, Clone, Debug, Default, PartialEq)]
pub struct RenderFlags {
    /// `-f` and the `--set` family.
    #[command(flatten)]
    pub values: ValueFlags,
    /// `Release.Namespace`.
    #[arg(short = 'n', long, default_value = "default")]
    pub namespace: String,
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
    crate::input::parse_size(text)
        .ok_or_else(|| format!("{text:?} is not a size (a byte count, or with KiB, MiB or GiB)"))
}

impl RenderFlags {
    /// The value flags, for the values module.
    pub fn overrides(&self) -> ValueOverrides {
        self.values.overrides()
    }

    /// The release settings, for the engine.
    pub fn render_options(&self) -> Result<RenderOptions, String> {
        let kube_version = match &self.kube_version {
            Some(v) => KubeVersion::parse(v)?,
            None => KubeVersion::default(),
        };
        Ok(RenderOptions {
            release_name: self.release_name.clone(),
            namespace: self.namespace.clone(),
            kube_version,
            api_versions: self.api_versions.clone(),
            is_upgrade: self.is_upgrade,
            show_only: self.show_only.clone(),
            max_output_bytes: self
                .max_output_bytes
                .unwrap_or(crate::engine::DEFAULT_MAX_OUTPUT_BYTES),
        })
    }

    /// Resolves relative file paths against `base` (a golden case's folder).
    pub fn resolve_paths(&mut self, base: &Utf8Path) {
        self.values.resolve_paths(base);
        if let Some(dir) = &self.certs_dir {
            self.certs_dir = Some(Utf8PathBuf::from(resolve_path(base, dir.as_str())));
        }
    }
}

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
