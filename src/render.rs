//! From flags to output: the pipeline behind `meshchart render`, and `--output-dir`.

use crate::chart::{Chart, ChartSource, SCHEMA_FILE};
use crate::engine::{CompileWork, Engine, KubeVersion, RenderOptions, RenderWork};
use crate::error::Error;
use crate::identity::{
    complete_kept_material, complete_material, now_from_env, MaterialOptions, MaterialTargets,
};
use crate::manifest::Rendered;
use crate::output::{self, OutputSet, Removal};
use crate::proxy_support;
use crate::values::known::KnownKeys;
use crate::values::schema::SchemaCheck;
use crate::values::{coalesce, user_values_noting, KeptFiles, Value, ValueOverrides, ValuesError};
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
    let name = format!("{}/{}", chart.metadata.name, overlay.path);
    overrides
        .already_read
        .insert(name.clone(), overlay.text.clone());
    overrides.files.insert(0, name);
    Ok(())
}

/// The values a render uses: chart defaults, then the user's flags, as Helm merges them, then
/// any identity material the chart asks for and the values lack.
pub fn values_for(
    chart: &Chart,
    request: &RenderRequest,
    stdin: &mut dyn Read,
    clock: Clock,
) -> Result<(Value, Vec<String>), Error> {
    values_with_kept(chart, request, stdin, clock, KeptFiles::new())
}

/// [`values_for`], taking files named in `kept` from there instead of reading them.
fn values_with_kept(
    chart: &Chart,
    request: &RenderRequest,
    stdin: &mut dyn Read,
    clock: Clock,
    kept: KeptFiles,
) -> Result<(Value, Vec<String>), Error> {
    let defaults = chart.default_values_read()?;
    let mut notes = Vec::new();
    let mut user = user_values_noting(request.overrides(), stdin, kept, &mut notes)?;
    if let Some(note) = namespace_value(defaults, request, &mut user) {
        notes.push(note);
    }
    let schema = match chart.file(SCHEMA_FILE) {
        Some(file) => Some(
            SchemaCheck::remembered(&file.text)
                .map_err(|reason| Error::Usage(format!("{}: {reason}", file.path)))?,
        ),
        None => None,
    };
    notes.extend(unknown_keys(
        chart,
        defaults,
        schema.as_deref(),
        &user,
        request.strict,
    )?);
    let values = coalesce(defaults, user, &mut notes);
    if let Some(schema) = &schema {
        let violations = schema.check(&values);
        if !violations.is_empty() {
            return Err(ValuesError::Schema {
                chart: chart.metadata.name.clone(),
                violations,
            }
            .into());
        }
    }
    let mut values = values;
    notes.extend(complete_chart_material(chart, &mut values, request, clock)?);
    Ok((values, notes))
}

/// Sets the 2021 line's `namespace` value from `-n`: its chart puts every resource in the
/// `namespace` value (default `linkerd`), not in the release namespace, so `-n` alone would
/// change nothing. Only when `-n` was given, the chart's defaults have a top-level `namespace`
/// and the user's values do not set it; when they set another, they win, and the note says so.
fn namespace_value(defaults: &Value, request: &RenderRequest, user: &mut Value) -> Option<String> {
    let declared = matches!(defaults, Value::Map(map) if map.contains_key("namespace"));
    if !request.namespace_given || !declared {
        return None;
    }
    let Value::Map(map) = user else {
        return None;
    };
    match map.get("namespace") {
        None | Some(Value::Null) => {
            map.insert(
                "namespace".to_owned(),
                Value::String(request.namespace.clone()),
            );
            None
        }
        Some(given) if given.as_str() == Some(request.namespace.as_str()) => None,
        Some(given) => Some(format!(
            "warning: the values set namespace to {}, which this chart puts its resources in; \
             -n {} only names the release",
            crate::yaml::to_json(given),
            request.namespace
        )),
    }
}

/// Warnings for the keys of the user's values that the chart does not read (not in its
/// defaults, not declared by its schema; see [`crate::values::known`]), each naming the nearest
/// key it knows; with `strict`, the same keys are an error. Helm's `global` is every chart's.
fn unknown_keys(
    chart: &Chart,
    defaults: &Value,
    schema: Option<&SchemaCheck>,
    user: &Value,
    strict: bool,
) -> Result<Vec<String>, Error> {
    let known = KnownKeys::new(defaults, schema.map(SchemaCheck::schema));
    let mut unknown: Vec<Vec<String>> = Vec::new();
    let mut path = Vec::new();
    collect_unknown(&known, user, &mut path, &mut unknown);
    unknown.dedup();
    let found: Vec<String> = unknown
        .iter()
        .map(|keys| {
            let hint = match known.suggest(keys) {
                Some(near) => format!(" (did you mean {near}?)"),
                None => String::new(),
            };
            format!("{}{hint}", keys.join("."))
        })
        .collect();
    let reader = match &chart.metadata.app_version {
        Some(release) => format!("{} {release}", chart.metadata.name),
        None => chart.metadata.name.clone(),
    };
    if strict && !found.is_empty() {
        return Err(ValuesError::UnknownKeys {
            chart: reader,
            keys: found,
        }
        .into());
    }
    Ok(found
        .into_iter()
        .map(|key| format!("warning: unknown key {key}: {reader} does not read it"))
        .collect())
}

/// The first unknown key on each path of `value` (depth first, in key order).
fn collect_unknown(
    known: &KnownKeys<'_>,
    value: &Value,
    path: &mut Vec<String>,
    out: &mut Vec<Vec<String>>,
) {
    let Value::Map(map) = value else {
        return;
    };
    for (key, child) in map {
        if path.is_empty() && key == "global" {
            continue;
        }
        path.push(key.clone());
        match known.unknown_prefix(path) {
            Some(unknown) => out.push(unknown),
            None => collect_unknown(known, child, path, out),
        }
        path.pop();
    }
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
    let schema = chart.file(SCHEMA_FILE).map(|f| f.text.as_str());
    Ok(MaterialTargets::new(
        chart.default_values_read()?,
        schema,
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
    chart.refuse_subcharts()?;
    let options = request.render_options().map_err(Error::Usage)?;
    let engine = Engine::uncompiled(chart);
    engine.check_nesting(chart)?;
    let compiling = CompileWork::default();
    let rendering: OnceLock<RenderWork> = OnceLock::new();
    let (helper_engine, helper_compiling, helper_rendering) = (&engine, &compiling, &rendering);
    // Made here, so that whichever side stops early drops its ends and the other stops waiting.
    let (compiled, helper_compiled) = mpsc::sync_channel::<()>(1);
    let (start, helper_may_render) = mpsc::sync_channel::<bool>(1);
    let values = crate::parallel::alongside(
        move || {
            helper_engine.compile(helper_compiling);
            let _ = compiled.send(());
            if helper_may_render.recv() == Ok(true) {
                if let Some(work) = helper_rendering.get() {
                    helper_engine.render_shared(work);
                }
            }
        },
        || {
            let values = values_for(chart, request, stdin, clock);
            engine.compile(&compiling);
            // The helper may still be compiling the last template it took.
            let _ = helper_compiled.recv();
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
                engine.render_shared(work);
            }
            prepared
        },
    );
    let (values, notes) = values?;
    let Some(work) = rendering.into_inner() else {
        unreachable!("a render is prepared whenever its values are");
    };
    let rendered = engine.finish_render(work, &options)?;
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
    let rendered = engine.render_with_a_helper(&inputs.values, &inputs.options)?;
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
    render_inputs(engine, chart, inputs)
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

/// Renders inputs read by [`read_inputs`] on this thread alone.
pub fn render_inputs(
    engine: &Engine,
    chart: &Chart,
    inputs: RenderInputs,
) -> Result<RenderOutcome, Error> {
    let rendered = engine.render(&inputs.values, &inputs.options)?;
    with_notes(chart, &inputs.values, rendered, inputs.notes)
}

/// A finished render with the notes of the values, the templates and the proxy checks.
fn with_notes(
    chart: &Chart,
    values: &Value,
    rendered: Rendered,
    mut notes: Vec<String>,
) -> Result<RenderOutcome, Error> {
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

/// Writes one file per template under `dir/<chart>/`, as Helm's `--output-dir` does, through
/// the output door ([`crate::output`]): the chart's folder is switched whole, under `dir`'s
/// lock. Files an earlier run wrote there that this render no longer makes are removed, unless
/// `removal` is [`Removal::None`] (a `--show-only` render leaves the other templates' files);
/// files meshchart did not write are never touched, and one where a template's file goes is an
/// error naming it. Returns every file of the render.
pub fn write_output_dir(
    dir: &Utf8Path,
    rendered: &Rendered,
    removal: Removal,
) -> Result<Vec<Utf8PathBuf>, Error> {
    write_output_dir_as(dir, rendered, removal, |path, text| {
        std::fs::write(path, text)
    })
}

/// What `render --output-dir` prints: a `wrote DIR/CHART/TEMPLATE` line per document, as Helm
/// does (so a file with two documents shows twice).
pub fn output_dir_listing(dir: &Utf8Path, rendered: &Rendered) -> String {
    rendered
        .documents
        .iter()
        .map(|doc| format!("wrote {dir}/{}/{}\n", rendered.chart_name, doc.template))
        .collect()
}

/// [`write_output_dir`] of a whole render with the file writer supplied (tests use it to fail
/// midway): it gets each file's staging path (beside `dir`, never inside it, so a run killed
/// midway leaves nothing in `dir` that `kubectl apply -R dir` would read), where the output door
/// has already created the file empty with its final mode (0600 for a Secret's).
pub fn write_output_dir_with(
    dir: &Utf8Path,
    rendered: &Rendered,
    write: impl FnMut(&Utf8Path, &str) -> std::io::Result<()>,
) -> Result<Vec<Utf8PathBuf>, Error> {
    write_output_dir_as(dir, rendered, Removal::Stale, write)
}

fn write_output_dir_as(
    dir: &Utf8Path,
    rendered: &Rendered,
    removal: Removal,
    mut write: impl FnMut(&Utf8Path, &str) -> std::io::Result<()>,
) -> Result<Vec<Utf8PathBuf>, Error> {
    let set = OutputSet::begin(dir, Some(&rendered.chart_name))?;
    let files = rendered.files();
    let prefix = format!("{}/", rendered.chart_name);
    let inside = |relative: &str| {
        relative
            .strip_prefix(&prefix)
            .unwrap_or(relative)
            .to_owned()
    };
    let names: Vec<String> = files.iter().map(|(relative, _)| inside(relative)).collect();
    let mut written = Vec::with_capacity(files.len());
    for ((relative, text), name) in files.iter().zip(&names) {
        set.write_with(name, text.as_bytes(), false, |path, _| write(path, text))?;
        written.push(dir.join(relative));
    }
    set.commit(removal)?;
    Ok(written)
}

/// Refuses an output folder that overlaps what the render reads: the chart (`--chart`), the
/// shared `--certs-dir`, the `-f` files, and a fleet's folder. Writing into any of them would
/// overwrite or delete an input (`--fleet DIR --output-dir DIR` turned every cluster's values
/// into its render).
pub fn refuse_output_overlap(
    out: &Utf8Path,
    chart: Option<&Utf8Path>,
    request: &RenderRequest,
    fleet: Option<&Utf8Path>,
) -> Result<(), Error> {
    let mut inputs: Vec<(&str, &Utf8Path)> = Vec::new();
    if let Some(fleet) = fleet {
        inputs.push(("fleet folder", fleet));
    }
    if let Some(chart) = chart {
        inputs.push(("chart", chart));
    }
    if let Some(certs) = &request.certs_dir {
        inputs.push(("--certs-dir", certs));
    }
    for file in &request.values.files {
        // Standard input and URLs are not files here.
        if file != "-" && !file.contains("://") {
            inputs.push(("values file", Utf8Path::new(file)));
        }
    }
    let inputs: Vec<output::Input<'_>> = inputs
        .into_iter()
        .map(|(what, path)| output::Input { what, path })
        .collect();
    output::refuse_overlap("--output-dir", out, &inputs)?;
    Ok(())
}

/// What `meshchart values` prints: the effective values as `toYaml` writes them, each leaf
/// annotated with its origin when `explain` is set; and the coalescing warnings.
pub fn show_values(
    chart: &Chart,
    overrides: &crate::values::ValueOverrides,
    explain: bool,
    stdin: &mut dyn Read,
) -> Result<(String, Vec<String>), Error> {
    use crate::values::explain::{annotate, explain as explain_values, DefaultsFile};
    let defaults = chart.default_values()?;
    let to_yaml = |values: &Value| {
        crate::yaml::try_to_yaml(values)
            .map(|yaml| yaml + "\n")
            .map_err(|e| Error::Usage(format!("the values cannot be printed as YAML: {e}")))
    };
    if !explain {
        // Where each value came from is not shown: not worked out either (it costs several
        // times the values' own memory).
        let (values, warnings) = crate::values::effective_values(&defaults, overrides, stdin)?;
        return Ok((to_yaml(&values)?, warnings));
    }
    let file = chart.default_values.as_ref().map(|f| DefaultsFile {
        name: &f.path,
        text: &f.text,
    });
    let mut explained = explain_values(file, &defaults, overrides, stdin)?;
    // The files' texts serve lint; here they would only add to the peak.
    explained.files = Vec::new();
    let yaml = to_yaml(&explained.values)?;
    let annotated = annotate(&yaml, |path| explained.origin_of(path));
    Ok((annotated, explained.warnings))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn values(yaml: &str) -> Value {
        crate::yaml::parse_document(yaml).unwrap()
    }

    #[test]
    fn wait_before_exit_with_native_sidecars_gets_a_warning() {
        let chart = Chart::embedded().unwrap();
        let notes = proxy_value_warnings(
            &chart,
            &values("proxy: {nativeSidecar: true, waitBeforeExitSeconds: 30}"),
        );
        assert_eq!(notes.len(), 1, "{notes:?}");
        assert!(
            notes[0].starts_with("proxy.waitBeforeExitSeconds=30 is ignored"),
            "{}",
            notes[0]
        );
        for quiet in [
            "proxy: {nativeSidecar: false, waitBeforeExitSeconds: 30}",
            "proxy: {nativeSidecar: true, waitBeforeExitSeconds: 0}",
            "proxy: {nativeSidecar: true}",
        ] {
            assert!(
                proxy_value_warnings(&chart, &values(quiet)).is_empty(),
                "{quiet}"
            );
        }
    }

    #[test]
    fn charts_without_the_proxy_partial_get_no_proxy_notes() {
        let chart = Chart::from_files(
            "test chart",
            vec![crate::chart::ChartFile {
                path: "Chart.yaml".into(),
                text: "apiVersion: v2\nname: other\nversion: 0.1.0\n".into(),
            }],
        )
        .unwrap();
        let v = values("proxy: {nativeSidecar: true, waitBeforeExitSeconds: 30}");
        assert!(proxy_value_warnings(&chart, &v).is_empty());
    }
}
