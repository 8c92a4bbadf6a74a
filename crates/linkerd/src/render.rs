//! From flags to output: the pipeline behind `meshchart render`, and `--output-dir`.

use crate::chart::{Chart, SCHEMA_FILE};
use crate::chart_source::ChartSource;
use crate::engine::{CompileWork, Engine, KubeVersion, RenderOptions, RenderWork};
use crate::error::Error;
use crate::identity::{
    complete_kept_material, complete_material, now_from_env, MaterialOptions, MaterialTargets,
};
use crate::manifest::Rendered;
use crate::manifest::{DocumentReader, RenderedDocument};
use crate::output::{self, OutputSet, Removal};
use crate::proxy_support;
use crate::values::{coalesce, user_values_noting, KeptFiles, Value, ValueOverrides, ValuesError};
use crate::values::{KnownKeys, SchemaCheck};
use camino::{Utf8Path, Utf8PathBuf};
use std::io::Read;
use std::sync::{mpsc, OnceLock};
use std::time::SystemTime;

/// What one render takes besides its chart, as `helm template` takes it: the value sources in
/// Helm's order, the release settings, which templates to print and where certificates are kept.
///
/// The command line builds one from its flags; golden cases from their `args` files (see
/// [`crate::golden`]); a fleet one per cluster.
#[derive(Clone, Debug, PartialEq)]
pub struct RenderRequest {
    /// `-f` files and the `--set` family.
    pub values: ValueOverrides,
    /// `Release.Namespace` (Helm's default: `default`).
    pub namespace: String,
    /// Whether `namespace` was given (`-n`), rather than Helm's default: a chart whose defaults
    /// have a top-level `namespace` value (the 2021 line's, where its resources go) then gets
    /// it there too, unless the user's values set `namespace` themselves.
    pub namespace_given: bool,
    /// Keys the chart does not read are an error rather than a warning (`--strict`).
    pub strict: bool,
    /// Whether the chart's high-availability overlay goes under the user's values (`--ha`,
    /// see [`with_ha_overlay`]); applied where the chart is chosen.
    pub ha: bool,
    /// `Release.Name` (Helm's default for `helm template`: `release-name`).
    pub release_name: String,
    /// `Capabilities.KubeVersion` as given (`1.30.0`, `v1.30.0`); `None` for the default.
    pub kube_version: Option<String>,
    /// Extra `Capabilities.APIVersions` entries.
    pub api_versions: Vec<String>,
    /// Only the documents of these templates (`templates/x.yaml`; globs allowed).
    pub show_only: Vec<String>,
    /// `Release.IsUpgrade` (and not `IsInstall`).
    pub is_upgrade: bool,
    /// Where generated certificates are kept and reused.
    pub certs_dir: Option<Utf8PathBuf>,
    /// Refuse to generate identity material when `certs_dir` is `None` (a fleet's clusters:
    /// material nothing keeps would be made afresh, a new trust root, at every run).
    pub require_kept_material: bool,
    /// Only read `certs_dir`: material it lacks is an error instead of being written there
    /// (`golden` in check mode writes nothing).
    pub certs_dir_read_only: bool,
    /// The most bytes the whole render may output; `None` for
    /// [`crate::engine::DEFAULT_MAX_OUTPUT_BYTES`].
    pub max_output_bytes: Option<u64>,
    /// Leave the values unchecked against the chart's `values.schema.json` (Helm's
    /// `--skip-schema-validation`); unknown keys are still reported.
    pub skip_schema_validation: bool,
}

impl Default for RenderRequest {
    fn default() -> Self {
        RenderRequest {
            values: ValueOverrides::default(),
            namespace: "default".into(),
            namespace_given: false,
            strict: false,
            ha: false,
            release_name: "release-name".into(),
            kube_version: None,
            api_versions: Vec::new(),
            show_only: Vec::new(),
            is_upgrade: false,
            certs_dir: None,
            require_kept_material: false,
            certs_dir_read_only: false,
            max_output_bytes: None,
            skip_schema_validation: false,
        }
    }
}

impl RenderRequest {
    /// The value sources, for the values module.
    pub fn overrides(&self) -> &ValueOverrides {
        &self.values
    }

    /// The release settings, for the engine; an unreadable `kube_version` is the error.
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
            self.certs_dir = Some(crate::input::resolve_path(base, dir.as_str()).into());
        }
    }
}

/// The `Chart.yaml` annotation by which a chart asks for identity material to be filled in.
pub const IDENTITY_MATERIAL_ANNOTATION: &str = "meshchart.io/identity-material";

/// Where "now" comes from for generated material and schedules: the only clock input.
#[derive(Clone, Copy, Debug)]
pub enum Clock {
    /// `SOURCE_DATE_EPOCH` when set, else the system clock (read only when needed).
    FromEnv,
    /// A fixed instant (golden cases, benchmarks).
    Fixed(SystemTime),
}

impl Clock {
    /// The instant this clock stands for.
    pub fn now(self) -> Result<SystemTime, Error> {
        match self {
            Clock::FromEnv => Ok(now_from_env()?),
            Clock::Fixed(t) => Ok(t),
        }
    }
}

fn wants_identity_material(chart: &Chart) -> bool {
    chart
        .metadata
        .fields
        .get("annotations")
        .and_then(|a| a.get_path(&[IDENTITY_MATERIAL_ANNOTATION]))
        .is_some_and(|v| matches!(v, Value::Bool(true)) || v.as_str() == Some("true"))
}

/// A finished render and what to tell the user on stderr.
#[derive(Debug)]
pub struct RenderOutcome {
    /// The documents.
    pub rendered: Rendered,
    /// Warnings and notes (coalesce warnings, dropped hooks, generated material).
    pub notes: Vec<String>,
}

/// The chart a command renders, chosen from its source and the user's values, with what the
/// choice has to say (see [`choose_chart`]).
pub struct ChosenChart {
    /// The chart.
    pub chart: Chart,
    /// Warnings for stderr (a `linkerdVersion` that only sets image tags).
    pub notes: Vec<String>,
    /// The value sources, with what choosing read of them kept
    /// ([`ValueOverrides::already_read`]): render with these, so that standard input or a
    /// FIFO is read once.
    pub overrides: ValueOverrides,
}

/// Loads the chart `source` names. An embedded chart comes from the line `--linkerd` names, or
/// else the one the user's own `linkerdVersion` names (see [`crate::chart::releases`]), so the
/// user's values are read first: what they read is kept in [`ChosenChart::overrides`].
pub fn choose_chart(
    source: &ChartSource,
    overrides: &ValueOverrides,
    stdin: &mut dyn Read,
) -> Result<ChosenChart, Error> {
    let mut overrides = overrides.clone();
    let chosen = match source {
        ChartSource::Embedded { .. } if !overrides.sources().is_empty() => {
            let mut assembler =
                crate::values::Assembler::for_sources(&overrides, stdin, KeptFiles::new());
            for value_source in overrides.sources() {
                assembler.apply(&value_source)?;
            }
            // Only the chart is chosen from them: the values are assembled again for the
            // command, from the files kept here.
            let chosen = source.load_for(assembler.values())?;
            overrides.already_read = assembler.into_kept();
            chosen
        }
        _ => source.load_for(&Value::Map(Default::default()))?,
    };
    let (chart, warning) = chosen;
    Ok(ChosenChart {
        chart,
        notes: warning.into_iter().collect(),
        overrides,
    })
}

impl ChosenChart {
    /// `request` as it renders this chart: with the value sources choosing read (kept, so they
    /// are read once) and, for `--ha`, the chart's HA overlay under them.
    pub fn request(&self, request: &RenderRequest) -> Result<RenderRequest, Error> {
        let mut chosen = RenderRequest {
            values: self.overrides.clone(),
            ..request.clone()
        };
        if chosen.ha {
            with_ha_overlay(&self.chart, &mut chosen.values)?;
        }
        Ok(chosen)
    }
}

/// The name of a chart's high-availability overlay (`render --ha`), in its `values/` folder.
pub const HA_OVERLAY: &str = "values-ha.yaml";

/// Puts the chart's [`HA_OVERLAY`] first among the value sources, as `linkerd install --ha`
/// does: the user's own `-f` files and `--set` flags still win over it. It is read from the
/// chart (compiled into the binary for an embedded line), named `<chart origin>/values-ha.yaml`
/// in `values --explain`. A chart without the overlay is an error.
pub fn with_ha_overlay(chart: &Chart, overrides: &mut ValueOverrides) -> Result<(), Error> {
    let overlay = chart.overlay(HA_OVERLAY).ok_or_else(|| {
        Error::Usage(format!(
            "--ha: {} has no {HA_OVERLAY} overlay to apply",
            chart.origin
        ))
    })?;
    // A user's chart names its own file; an embedded chart's is meshchart's, named by the flag.
    let name = match crate::releases::embedded_release_of(chart) {
        Some(release) => format!("--ha (the HA values of {} {release})", chart.metadata.name),
        None => format!("{}/{}", chart.metadata.name, overlay.path),
    };
    overrides
        .already_read
        .insert(name.clone(), overlay.text.to_string());
    overrides.files.insert(0, name);
    Ok(())
}

/// Fills in the identity material a chart asks for (see [`IDENTITY_MATERIAL_ANNOTATION`]).
pub fn complete_chart_material(
    chart: &Chart,
    values: &mut Value,
    request: &RenderRequest,
    clock: Clock,
) -> Result<Vec<String>, Error> {
    if !wants_identity_material(chart) {
        return Ok(Vec::new());
    }
    let targets = material_targets(chart, &request.namespace)?;
    let options = MaterialOptions {
        certs_dir: request.certs_dir.clone(),
        now: clock.now()?,
        read_only: request.certs_dir_read_only,
    };
    if request.require_kept_material {
        Ok(complete_kept_material(values, &targets, &options)?)
    } else {
        Ok(complete_material(values, &targets, &options)?)
    }
}

/// What `chart` takes of the identity material (its webhooks, the namespace its Services are
/// in, the keys it declares), read from its defaults and `values.schema.json`; a render into
/// `release_namespace`.
pub fn material_targets(chart: &Chart, release_namespace: &str) -> Result<MaterialTargets, Error> {
    // The values check compiled the schema on this thread already; one that is not JSON is
    // lint's to report, and declares nothing here.
    let schema = chart
        .file(SCHEMA_FILE)
        .and_then(|f| SchemaCheck::remembered(&f.text).ok());
    Ok(MaterialTargets::with_schema(
        chart.default_values_read()?,
        schema.as_deref().map(|check| check.schema()),
        release_namespace,
    ))
}

/// Renders `chart` with the user's flags, on this thread and the process's helper
/// ([`crate::parallel::alongside`]).
///
/// The templates compile on a helper thread while this one reads the values (they need nothing
/// from each other); once the values are read, this thread compiles too, and then both render
/// templates until none is left. A compile error is reported before a values error, and render
/// errors in template order, as when everything ran on one thread.
pub fn render(
    chart: &Chart,
    request: &RenderRequest,
    stdin: &mut dyn Read,
    clock: Clock,
) -> Result<RenderOutcome, Error> {
    if meshchart_helm::gotpl::is_go_template_chart(chart) {
        return render_go_templates(chart, request, stdin, clock);
    }
    chart.refuse_subcharts()?;
    let options = request.render_options().map_err(Error::Usage)?;
    let engine = Engine::uncompiled(chart);
    engine.check_nesting(chart)?;
    let compiling = CompileWork::default();
    let reader = DocumentReader::new();
    let rendering: OnceLock<RenderWork<Vec<RenderedDocument>>> = OnceLock::new();
    let (helper_engine, helper_compiling, helper_rendering, helper_reader) =
        (&engine, &compiling, &rendering, &reader);
    // Made here, so that whichever side stops early drops its end and the other stops waiting.
    let (start, helper_may_render) = mpsc::sync_channel::<bool>(1);
    let values = crate::parallel::alongside(
        move || {
            helper_engine.compile(helper_compiling);
            if crate::parallel::receive_soon(&helper_may_render) == Ok(true) {
                if let Some(work) = helper_rendering.get() {
                    helper_engine.render_shared(work, helper_reader);
                }
            }
        },
        || {
            let values = values_for(chart, request, stdin, clock);
            engine.compile(&compiling);
            // Waits for the templates the helper is still compiling, if it took any.
            let prepared = engine
                .finish_compile(&compiling, chart)
                .map_err(Error::from)
                .and(values)
                .and_then(|(values, notes)| {
                    let _ = rendering.set(engine.prepare(&values, &options)?);
                    Ok((values, notes))
                });
            let _ = start.send(prepared.is_ok());
            // Without a helper, this thread compiled all, and renders all here.
            if let Some(work) = rendering.get() {
                engine.render_shared(work, &reader);
            }
            prepared
        },
    );
    let (values, notes) = values?;
    let Some(work) = rendering.into_inner() else {
        unreachable!("a render is prepared whenever its values are");
    };
    let templates = engine.finish_render(work, &options, &reader)?;
    let rendered = crate::manifest::assemble(engine.chart_name(), templates, &options)?;
    let outcome = with_notes(chart, &values, rendered, notes);
    // A one-shot process leaves the compiled templates and the values to its exit.
    meshchart_helm::process::release(engine);
    meshchart_helm::process::release(values);
    outcome
}

/// Renders a chart written in Go templates (see [`meshchart_helm::gotpl`]): its values read
/// as for any chart, its templates run by the Go front end on this thread.
fn render_go_templates(
    chart: &Chart,
    request: &RenderRequest,
    stdin: &mut dyn Read,
    clock: Clock,
) -> Result<RenderOutcome, Error> {
    let options = request.render_options().map_err(Error::Usage)?;
    let (values, notes) = values_for(chart, request, stdin, clock)?;
    let templates =
        meshchart_helm::gotpl::render(chart, &values, &options, &DocumentReader::new())?;
    let rendered = crate::manifest::assemble(&chart.metadata.name, templates, &options)?;
    with_notes(chart, &values, rendered, notes)
}

/// Renders with an engine compiled earlier (golden runs reuse one engine for many cases). As in
/// [`render`], a helper thread renders templates from the same queue as this one (one the
/// process keeps, see [`Engine::render_with_a_helper`]); callers that already keep every core
/// busy (a fleet's workers) use [`render_with_kept`], on their thread alone.
pub fn render_with(
    engine: &Engine,
    chart: &Chart,
    request: &RenderRequest,
    stdin: &mut dyn Read,
    clock: Clock,
) -> Result<RenderOutcome, Error> {
    let inputs = read_inputs(chart, request, stdin, clock, KeptFiles::new())?;
    let rendered = crate::manifest::render_with_a_helper(
        engine,
        &inputs.values,
        &inputs.options,
        &DocumentReader::new(),
    )?;
    with_notes(chart, &inputs.values, rendered, inputs.notes)
}

/// [`render_with`], taking files named in `kept` from there instead of reading them (a fleet's
/// clusters share their flags' files).
pub fn render_with_kept(
    engine: &Engine,
    chart: &Chart,
    request: &RenderRequest,
    stdin: &mut dyn Read,
    clock: Clock,
    kept: KeptFiles,
) -> Result<RenderOutcome, Error> {
    let inputs = read_inputs(chart, request, stdin, clock, kept)?;
    render_inputs(engine, &DocumentReader::new(), chart, inputs)
}

/// What a render reads before any template runs: its options and values, and the notes so far.
#[derive(Debug)]
pub struct RenderInputs {
    options: crate::engine::RenderOptions,
    values: Value,
    notes: Vec<String>,
}

/// Reads and checks a render's inputs, without the templates: a fleet reads clusters' values
/// while its chart still compiles. Files named in `kept` come from there.
pub fn read_inputs(
    chart: &Chart,
    request: &RenderRequest,
    stdin: &mut dyn Read,
    clock: Clock,
    kept: KeptFiles,
) -> Result<RenderInputs, Error> {
    chart.refuse_subcharts()?;
    let options = request.render_options().map_err(Error::Usage)?;
    let (values, notes) = values_with_kept(chart, request, stdin, clock, kept)?;
    Ok(RenderInputs {
        options,
        values,
        notes,
    })
}

/// Renders inputs read by [`read_inputs`] on this thread alone, the templates' output read by
/// `reader` (a fleet's remembers the documents it checked).
pub fn render_inputs(
    engine: &Engine,
    reader: &DocumentReader,
    chart: &Chart,
    inputs: RenderInputs,
) -> Result<RenderOutcome, Error> {
    let rendered = crate::manifest::render(engine, &inputs.values, &inputs.options, reader)?;
    with_notes(chart, &inputs.values, rendered, inputs.notes)
}

/// A finished render with the notes of the values, the templates and the proxy checks.
fn with_notes(
    chart: &Chart,
    values: &Value,
    rendered: Rendered,
    mut notes: Vec<String>,
) -> Result<RenderOutcome, Error> {
    if let Some(duplicate) = chart.duplicate_default_key() {
        notes.insert(0, format!("warning: {duplicate}"));
    }
    notes.extend(rendered.notes.iter().cloned());
    notes.extend(
        proxy_value_warnings(chart, values)
            .into_iter()
            .map(|warning| format!("warning: {warning}")),
    );
    Ok(RenderOutcome { rendered, notes })
}

/// The proxy partial that [`proxy_value_warnings`] speaks for.
pub const PROXY_PARTIAL: &str = "_proxy.tpl";

/// Warnings on proxy values the chart accepts but some of its proxies cannot honour. A template can
/// only render or fail, never warn, so the pipeline says it, for charts that carry the shared
/// proxy partial (`templates/_proxy.tpl`): `proxy.waitBeforeExitSeconds` with
/// `proxy.nativeSidecar` (a native sidecar has no lifecycle hooks: Kubernetes stops it after the
/// app containers, so there is nothing to wait for), and any value the chosen proxy release
/// cannot honour (see [`proxy_support`]).
pub fn proxy_value_warnings(chart: &Chart, values: &Value) -> Vec<String> {
    if !chart.templates.iter().any(|t| t.path == PROXY_PARTIAL) {
        return Vec::new();
    }
    let at = |key: &str| values.get_path(&["proxy", key]);
    let native = at("nativeSidecar").is_some_and(|v| !v.is_empty_like());
    let wait = at("waitBeforeExitSeconds").filter(|v| !v.is_empty_like());
    let mut notes = Vec::new();
    if let (true, Some(seconds)) = (native, wait) {
        notes.push(format!(
            "proxy.waitBeforeExitSeconds={} is ignored by the proxies that run as native \
             sidecars (proxy.nativeSidecar): Kubernetes stops a native sidecar after the app \
             containers, so it gets no preStop hook; proxies that stay regular containers \
             (identity's) keep it",
            crate::yaml::to_json(seconds)
        ));
    }
    let hooks = proxy_support::control_plane_hooks(values);
    notes.extend(
        proxy_support::unsupported_features(values, hooks)
            .iter()
            .map(|missing| missing.to_string()),
    );
    notes
}

mod output_dir;
#[cfg(test)]
mod tests;
mod values;

pub use output_dir::{
    output_dir_contents, output_dir_listing, refuse_output_overlap, write_output_dir,
    write_output_dir_with,
};
use values::values_with_kept;
pub use values::{show_values, values_for};
