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
    pub ignored: IgnoredFlags<TEMPLATE>,
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
    /// The commands that take it: [`TEMPLATE`], [`LINT`], [`PACKAGE`] (or'ed; [`GLOBAL`] for
    /// Helm's global flags, which every command takes).
    pub commands: u8,
    /// What the flag does in Helm.
    pub helm: &'static str,
}

/// `helm template` (meshchart's `render`).
pub const TEMPLATE: u8 = 1;
/// `helm lint`.
pub const LINT: u8 = 2;
/// `helm package`.
pub const PACKAGE: u8 = 4;
/// Helm's global flags: every command takes them.
pub const GLOBAL: u8 = TEMPLATE | LINT | PACKAGE;
/// The chart-download flags `helm template` and `helm package` share (package fetches
/// dependencies with them).
const DOWNLOAD: u8 = TEMPLATE | PACKAGE;

impl IgnoredFlag {
    /// Whether the flag is about subcharts, which meshchart's charts never have (rather than
    /// about a cluster or a repository).
    fn about_subcharts(&self) -> bool {
        matches!(self.long, "with-subcharts" | "dependency-update")
    }
}

const fn flag(
    long: &'static str,
    value: Option<&'static str>,
    commands: u8,
    helm: &'static str,
) -> IgnoredFlag {
    IgnoredFlag {
        long,
        short: None,
        value,
        commands,
        helm,
    }
}

/// Helm 3.17's flags that only matter when Helm installs into a cluster or downloads a chart,
/// in `helm template --help`'s order: template's own, then the global ones.
pub const IGNORED: &[IgnoredFlag] = &[
    flag("atomic", None, TEMPLATE, "delete a failed install"),
    flag(
        "ca-file",
        Some("FILE"),
        DOWNLOAD,
        "repository TLS CA bundle",
    ),
    flag(
        "cert-file",
        Some("FILE"),
        DOWNLOAD,
        "repository TLS client certificate",
    ),
    flag(
        "create-namespace",
        None,
        TEMPLATE,
        "create the release namespace",
    ),
    flag(
        "dependency-update",
        None,
        TEMPLATE,
        "fetch missing subcharts (meshchart renders none)",
    ),
    flag(
        "description",
        Some("TEXT"),
        TEMPLATE,
        "the release's description",
    ),
    flag(
        "devel",
        None,
        TEMPLATE,
        "allow development versions from a repository",
    ),
    flag(
        "disable-openapi-validation",
        None,
        TEMPLATE,
        "skip the cluster's OpenAPI check",
    ),
    flag(
        "enable-dns",
        None,
        TEMPLATE,
        "DNS lookups in templates (meshchart has none)",
    ),
    flag("force", None, TEMPLATE, "replace resources on upgrade"),
    flag("hide-notes", None, TEMPLATE, "hide NOTES.txt after install"),
    flag(
        "insecure-skip-tls-verify",
        None,
        DOWNLOAD,
        "skip repository TLS checks",
    ),
    flag(
        "key-file",
        Some("FILE"),
        DOWNLOAD,
        "repository TLS client key",
    ),
    flag("keyring", Some("FILE"), DOWNLOAD, "keys for --verify"),
    IgnoredFlag {
        short: Some('l'),
        ..flag(
            "labels",
            Some("KEY=VALUE"),
            TEMPLATE,
            "labels on the release record in the cluster",
        )
    },
    flag(
        "pass-credentials",
        None,
        TEMPLATE,
        "send repository credentials to every domain",
    ),
    flag("password", Some("TEXT"), DOWNLOAD, "repository password"),
    flag("plain-http", None, DOWNLOAD, "download the chart over HTTP"),
    flag(
        "render-subchart-notes",
        None,
        TEMPLATE,
        "print subcharts' NOTES.txt after install",
    ),
    flag("replace", None, TEMPLATE, "reuse a deleted release's name"),
    flag(
        "skip-crds",
        None,
        TEMPLATE,
        "do not install the chart's CRDs (helm template prints them only with --include-crds)",
    ),
    flag(
        "take-ownership",
        None,
        TEMPLATE,
        "adopt existing cluster resources",
    ),
    flag(
        "timeout",
        Some("DURATION"),
        TEMPLATE,
        "how long to wait for the cluster",
    ),
    flag("username", Some("TEXT"), DOWNLOAD, "repository user name"),
    flag("wait", None, TEMPLATE, "wait for the install to be ready"),
    flag("wait-for-jobs", None, TEMPLATE, "wait for Jobs too"),
    flag("burst-limit", Some("N"), GLOBAL, "API client throttling"),
    flag(
        "debug",
        None,
        GLOBAL,
        "verbose Helm logs (meshchart's errors always name file and line)",
    ),
    flag(
        "kube-apiserver",
        Some("URL"),
        GLOBAL,
        "the cluster's API server",
    ),
    flag("kube-as-group", Some("GROUP"), GLOBAL, "impersonated group"),
    flag("kube-as-user", Some("USER"), GLOBAL, "impersonated user"),
    flag("kube-ca-file", Some("FILE"), GLOBAL, "the cluster's CA"),
    flag("kube-context", Some("NAME"), GLOBAL, "kubeconfig context"),
    flag(
        "kube-insecure-skip-tls-verify",
        None,
        GLOBAL,
        "skip the cluster's TLS check",
    ),
    flag(
        "kube-tls-server-name",
        Some("NAME"),
        GLOBAL,
        "the cluster's TLS server name",
    ),
    flag("kube-token", Some("TOKEN"), GLOBAL, "cluster bearer token"),
    flag("kubeconfig", Some("FILE"), GLOBAL, "kubeconfig file"),
    flag("qps", Some("N"), GLOBAL, "API client rate"),
    flag(
        "registry-config",
        Some("FILE"),
        GLOBAL,
        "OCI registry credentials",
    ),
    flag(
        "repository-cache",
        Some("DIR"),
        GLOBAL,
        "repository index cache",
    ),
    flag("repository-config", Some("FILE"), GLOBAL, "repository list"),
    flag(
        "with-subcharts",
        None,
        LINT,
        "lint the chart's subcharts too",
    ),
    IgnoredFlag {
        short: Some('n'),
        ..flag(
            "namespace",
            Some("NAMESPACE"),
            PACKAGE,
            "the namespace of requests to a cluster (a package has none)",
        )
    },
    IgnoredFlag {
        short: Some('u'),
        ..flag(
            "dependency-update",
            None,
            PACKAGE,
            "fetch the chart's dependencies into charts/ first",
        )
    },
];

/// The Helm flags of [`IGNORED`] that were given, of those `COMMAND` ([`TEMPLATE`], [`LINT`]
/// or [`PACKAGE`]) takes. They are parsed from a table rather than declared one field each, as
/// they all do the same: nothing, said once.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct IgnoredFlags<const COMMAND: u8> {
    /// The long names given, in the table's order.
    pub given: Vec<&'static str>,
}

impl<const COMMAND: u8> IgnoredFlags<COMMAND> {
    fn table() -> impl Iterator<Item = &'static IgnoredFlag> {
        IGNORED.iter().filter(|f| f.commands & COMMAND != 0)
    }

    /// `note: ignored --wait, --timeout: ...` when any was given (and a second line for the
    /// flags about subcharts).
    pub fn note(&self) -> Option<String> {
        let named = |subcharts: bool| -> Vec<String> {
            Self::table()
                .filter(|f| self.given.contains(&f.long) && f.about_subcharts() == subcharts)
                .map(|f| format!("--{}", f.long))
                .collect()
        };
        let mut lines = Vec::new();
        let reaching = named(false);
        if !reaching.is_empty() {
            lines.push(format!(
                "note: ignored {}: Helm uses them to reach a cluster or a chart repository; \
                 meshchart renders offline",
                reaching.join(", ")
            ));
        }
        let subcharts = named(true);
        if !subcharts.is_empty() {
            lines.push(format!(
                "note: ignored {}: they are about subcharts, which meshchart's charts never \
                 have (a chart with any is refused, naming them)",
                subcharts.join(", ")
            ));
        }
        (!lines.is_empty()).then(|| lines.join("\n"))
    }
}

impl<const COMMAND: u8> FromArgMatches for IgnoredFlags<COMMAND> {
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

impl<const COMMAND: u8> Args for IgnoredFlags<COMMAND> {
    fn augment_args(command: Command) -> Command {
        command.args(Self::table().map(|f| {
            let arg = Arg::new(f.long)
                .long(f.long)
                .help(format!("Ignored (Helm: {})", f.helm))
                .help_heading("Helm's flags for a cluster, a repository or subcharts (ignored)")
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

/// `helm package`'s flags: signing, which meshchart refuses, and those it ignores.
#[derive(Args, Clone, Debug, Default, PartialEq)]
pub struct HelmPackageFlags {
    /// Refused: meshchart cannot write a PGP provenance (.prov) file; it prints the archive's
    /// SHA-256 digest, which `gpg --detach-sign` can sign.
    #[arg(long, help_heading = "Helm's package flags")]
    pub sign: bool,
    /// Refused with --sign.
    #[arg(long, value_name = "NAME", help_heading = "Helm's package flags")]
    pub key: Option<String>,
    /// Refused with --sign.
    #[arg(long, value_name = "FILE", help_heading = "Helm's package flags")]
    pub passphrase_file: Option<String>,
    /// Flags that only matter against a repository, or for subcharts.
    #[command(flatten)]
    pub ignored: IgnoredFlags<PACKAGE>,
}

impl HelmPackageFlags {
    /// Why the command line cannot be run as asked, if it cannot.
    pub fn refusal(&self) -> Option<String> {
        let given: Vec<&str> = [
            self.sign.then_some("--sign"),
            self.key.as_ref().map(|_| "--key"),
            self.passphrase_file.as_ref().map(|_| "--passphrase-file"),
        ]
        .into_iter()
        .flatten()
        .collect();
        (!given.is_empty()).then(|| {
            format!(
                "{}: meshchart cannot sign a package (Helm's PGP provenance file); the archive \
                 is byte-for-byte reproducible and its SHA-256 digest is printed: sign the \
                 archive with `gpg --detach-sign`, or publish the digest",
                given.join(", ")
            )
        })
    }

    /// The note on stderr about what was ignored, if anything was.
    pub fn note(&self) -> Option<String> {
        self.ignored.note()
    }
}
