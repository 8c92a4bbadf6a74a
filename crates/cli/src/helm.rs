//! Helm's flags that meshchart takes so that a `helm template` (or `helm lint`, `helm package`)
//! command line works unchanged: those that mean something offline are implemented
//! ([`HelmTemplateFlags`]); those that only matter when Helm talks to a cluster or a chart
//! repository are accepted and ignored with one note on stderr ([`IgnoredFlags`]); the few whose
//! silent omission would mislead are refused with the reason ([`HelmTemplateFlags::refusal`]).
//! The README's table of Helm's flags says the same, flag by flag.

use clap::parser::ValueSource;
use clap::{Arg, ArgAction, ArgMatches, Args, Command, FromArgMatches};

/// `helm template`'s own flags that change what meshchart prints, or that it refuses.
#[derive(Args, Clone, Debug, Default, PartialEq)]
pub struct HelmTemplateFlags {
    /// Print the chart's crds/ files (.yaml, .yml, .json) first, as `helm template --include-crds`
    /// does (without it, a note says they were left out).
    #[arg(long, help_heading = "Helm's template flags")]
    pub include_crds: bool,
    /// Leave out Helm test hooks (`helm.sh/hook: test`), as `helm template --skip-tests` does.
    #[arg(long, help_heading = "Helm's template flags")]
    pub skip_tests: bool,
    /// Leave out every Helm hook (documents annotated `helm.sh/hook`), as Helm's `--no-hooks`.
    #[arg(long, help_heading = "Helm's template flags")]
    pub no_hooks: bool,
    /// Helm's switch: with --output-dir, files go under DIR/NAME/CHART/ (the release name
    /// first) instead of DIR/CHART/. The release itself is named by `render NAME CHART` or
    /// --name (meshchart's `--release-name=NAME` of old is refused, saying so).
    #[arg(
        long,
        num_args = 0..=1,
        require_equals = true,
        default_missing_value = "",
        value_name = "",
        help_heading = "Helm's template flags"
    )]
    pub release_name: Option<String>,
    /// Helm's `--dry-run[=client|none|server]`: `helm template` never installs, nor does
    /// meshchart; `server` (a cluster's lookups) is refused.
    #[arg(
        long,
        num_args = 0..=1,
        require_equals = true,
        default_missing_value = "client",
        value_name = "MODE",
        help_heading = "Helm's template flags"
    )]
    pub dry_run: Option<String>,
    /// Refused: Helm validates against the cluster you point at; meshchart never contacts one
    /// (`meshchart lint` checks the documents offline).
    #[arg(long, help_heading = "Helm's template flags")]
    pub validate: bool,
    /// Refused: pipe the output instead (`meshchart render ... | PROGRAM ARGS`), which is what
    /// Helm's post-renderer does with it.
    #[arg(long, value_name = "PROGRAM", help_heading = "Helm's template flags")]
    pub post_renderer: Option<String>,
    /// Refused with --post-renderer.
    #[arg(long, value_name = "ARG", help_heading = "Helm's template flags")]
    pub post_renderer_args: Vec<String>,
    /// Refused: meshchart renders local charts only; its charts are Jinja, which no Helm
    /// repository serves.
    #[arg(long, value_name = "URL", help_heading = "Helm's template flags")]
    pub repo: Option<String>,
    /// Refused: meshchart cannot check a chart's provenance (.prov) signature, and will not
    /// pretend to.
    #[arg(long, help_heading = "Helm's template flags")]
    pub verify: bool,
    /// Flags that only matter against a cluster or a repository.
    #[command(flatten)]
    pub ignored: IgnoredFlags<true>,
}

impl HelmTemplateFlags {
    /// Why the command line cannot be run as asked, if it cannot.
    pub fn refusal(&self) -> Option<String> {
        if let Some(name) = self.release_name.as_deref().filter(|n| !n.is_empty()) {
            return Some(format!(
                "--release-name is Helm's switch (the release name in --output-dir paths) and \
                 takes no value: name the release {name:?} with `render {name} CHART` or \
                 `--name {name}`"
            ));
        }
        if let Some(mode) = &self.dry_run {
            match mode.as_str() {
                "client" | "none" | "true" | "false" => {}
                "server" => {
                    return Some(
                        "--dry-run=server lets Helm's templates look up a cluster; meshchart \
                         renders offline and never contacts one (lookup returns nothing, as \
                         in helm template)"
                            .into(),
                    )
                }
                other => {
                    return Some(format!(
                        "--dry-run={other}: Helm takes client, none or server"
                    ))
                }
            }
        }
        if self.validate {
            return Some(
                "--validate checks the output against the cluster kubectl points at; meshchart \
                 never contacts a cluster. `meshchart lint` checks the documents offline, or \
                 pipe the output to `kubectl apply --dry-run=server -f -`"
                    .into(),
            );
        }
        if self.post_renderer.is_some() || !self.post_renderer_args.is_empty() {
            return Some(
                "--post-renderer: pipe the output instead, `meshchart render ... | PROGRAM \
                 ARGS`, which gives the program the same stream Helm's post-renderer gets"
                    .into(),
            );
        }
        if let Some(url) = &self.repo {
            return Some(format!(
                "--repo {url}: meshchart renders local charts (a folder or a .tgz) and never \
                 downloads one; its charts are Jinja, which Helm repositories do not serve"
            ));
        }
        if self.verify {
            return Some(
                "--verify: meshchart cannot check a chart's provenance (.prov) signature; \
                 check it with `helm verify` (or gpg) before rendering"
                    .into(),
            );
        }
        None
    }

    /// The note on stderr about what was ignored, if anything was.
    pub fn note(&self) -> Option<String> {
        self.ignored.note()
    }
}

/// A Helm flag meshchart accepts and ignores, and what it is to Helm.
#[derive(Clone, Copy, Debug)]
pub struct IgnoredFlag {
    /// The long name, without `--`.
    pub long: &'static str,
    /// The short name, if Helm has one.
    pub short: Option<char>,
    /// The value's name when the flag takes one.
    pub value: Option<&'static str>,
    /// Whether it is one of Helm's global flags (every command takes it) rather than one of
    /// `helm template`'s.
    pub global: bool,
    /// What the flag does in Helm.
    pub helm: &'static str,
}

const fn flag(
    long: &'static str,
    value: Option<&'static str>,
    global: bool,
    helm: &'static str,
) -> IgnoredFlag {
    IgnoredFlag {
        long,
        short: None,
        value,
        global,
        helm,
    }
}

/// Helm 3.17's flags that only matter when Helm installs into a cluster or downloads a chart,
/// in `helm template --help`'s order: template's own, then the global ones.
pub const IGNORED: &[IgnoredFlag] = &[
    flag("atomic", None, false, "delete a failed install"),
    flag("ca-file", Some("FILE"), false, "repository TLS CA bundle"),
    flag(
        "cert-file",
        Some("FILE"),
        false,
        "repository TLS client certificate",
    ),
    flag(
        "create-namespace",
        None,
        false,
        "create the release namespace",
    ),
    flag(
        "dependency-update",
        None,
        false,
        "fetch missing subcharts (meshchart renders none)",
    ),
    flag(
        "description",
        Some("TEXT"),
        false,
        "the release's description",
    ),
    flag(
        "devel",
        None,
        false,
        "allow development versions from a repository",
    ),
    flag(
        "disable-openapi-validation",
        None,
        false,
        "skip the cluster's OpenAPI check",
    ),
    flag(
        "enable-dns",
        None,
        false,
        "DNS lookups in templates (meshchart has none)",
    ),
    flag("force", None, false, "replace resources on upgrade"),
    flag("hide-notes", None, false, "hide NOTES.txt after install"),
    flag(
        "insecure-skip-tls-verify",
        None,
        false,
        "skip repository TLS checks",
    ),
    flag("key-file", Some("FILE"), false, "repository TLS client key"),
    flag("keyring", Some("FILE"), false, "keys for --verify"),
    IgnoredFlag {
        short: Some('l'),
        ..flag(
            "labels",
            Some("KEY=VALUE"),
            false,
            "labels on the release record in the cluster",
        )
    },
    flag(
        "pass-credentials",
        None,
        false,
        "send repository credentials to every domain",
    ),
    flag("password", Some("TEXT"), false, "repository password"),
    flag("plain-http", None, false, "download the chart over HTTP"),
    flag(
        "render-subchart-notes",
        None,
        false,
        "print subcharts' NOTES.txt after install",
    ),
    flag("replace", None, false, "reuse a deleted release's name"),
    flag(
        "take-ownership",
        None,
        false,
        "adopt existing cluster resources",
    ),
    flag(
        "timeout",
        Some("DURATION"),
        false,
        "how long to wait for the cluster",
    ),
    flag("username", Some("TEXT"), false, "repository user name"),
    flag("wait", None, false, "wait for the install to be ready"),
    flag("wait-for-jobs", None, false, "wait for Jobs too"),
    flag("burst-limit", Some("N"), true, "API client throttling"),
    flag(
        "debug",
        None,
        true,
        "verbose Helm logs (meshchart's errors always name file and line)",
    ),
    flag(
        "kube-apiserver",
        Some("URL"),
        true,
        "the cluster's API server",
    ),
    flag("kube-as-group", Some("GROUP"), true, "impersonated group"),
    flag("kube-as-user", Some("USER"), true, "impersonated user"),
    flag("kube-ca-file", Some("FILE"), true, "the cluster's CA"),
    flag("kube-context", Some("NAME"), true, "kubeconfig context"),
    flag(
        "kube-insecure-skip-tls-verify",
        None,
        true,
        "skip the cluster's TLS check",
    ),
    flag(
        "kube-tls-server-name",
        Some("NAME"),
        true,
        "the cluster's TLS server name",
    ),
    flag("kube-token", Some("TOKEN"), true, "cluster bearer token"),
    flag("kubeconfig", Some("FILE"), true, "kubeconfig file"),
    flag("qps", Some("N"), true, "API client rate"),
    flag(
        "registry-config",
        Some("FILE"),
        true,
        "OCI registry credentials",
    ),
    flag(
        "repository-cache",
        Some("DIR"),
        true,
        "repository index cache",
    ),
    flag("repository-config", Some("FILE"), true, "repository list"),
];

/// The Helm flags of [`IGNORED`] that were given: all of them when `TEMPLATE` (render), the
/// global ones only otherwise (lint, package). They are parsed from a table rather than declared
/// one field each, as they all do the same: nothing, said once.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct IgnoredFlags<const TEMPLATE: bool> {
    /// The long names given, in the table's order.
    pub given: Vec<&'static str>,
}

impl<const TEMPLATE: bool> IgnoredFlags<TEMPLATE> {
    fn table() -> impl Iterator<Item = &'static IgnoredFlag> {
        IGNORED.iter().filter(|f| TEMPLATE || f.global)
    }

    /// `note: ignored --wait, --timeout: ...` when any was given.
    pub fn note(&self) -> Option<String> {
        if self.given.is_empty() {
            return None;
        }
        let names: Vec<String> = self.given.iter().map(|n| format!("--{n}")).collect();
        Some(format!(
            "note: ignored {}: Helm uses them to reach a cluster or a chart repository; \
             meshchart renders offline",
            names.join(", ")
        ))
    }
}

impl<const TEMPLATE: bool> FromArgMatches for IgnoredFlags<TEMPLATE> {
    fn from_arg_matches(matches: &ArgMatches) -> Result<Self, clap::Error> {
        let given = Self::table()
            .filter(|f| matches.value_source(f.long) == Some(ValueSource::CommandLine))
            .map(|f| f.long)
            .collect();
        Ok(IgnoredFlags { given })
    }

    fn update_from_arg_matches(&mut self, matches: &ArgMatches) -> Result<(), clap::Error> {
        *self = Self::from_arg_matches(matches)?;
        Ok(())
    }
}

impl<const TEMPLATE: bool> Args for IgnoredFlags<TEMPLATE> {
    fn augment_args(command: Command) -> Command {
        command.args(Self::table().map(|f| {
            let arg = Arg::new(f.long)
                .long(f.long)
                .help(format!("Ignored (Helm: {})", f.helm))
                .help_heading("Helm's flags for a cluster or a repository (ignored)")
                // Forty flags that do nothing would bury the help; the README's table lists them.
                .hide(true);
            let arg = match f.short {
                Some(short) => arg.short(short),
                None => arg,
            };
            match f.value {
                Some(value) => arg.value_name(value).action(ArgAction::Append),
                None => arg.action(ArgAction::SetTrue),
            }
        }))
    }

    fn augment_args_for_update(command: Command) -> Command {
        Self::augment_args(command)
    }
}
