//! The engine: compiles a chart's templates once and renders them with Helm's semantics.

mod ahead;
mod context;
pub(crate) mod convert;
mod error;
pub(crate) mod files;
pub mod functions;
mod gofmt;
mod include;
mod nesting;
mod remembered;
mod run;
mod static_text;

pub use crate::limits::{FUEL_PER_RENDER, MAX_LIST_ITEMS, MAX_STRING_BYTES, TEMPLATE_DATA_BYTES};
pub use ahead::build_environment_ahead;
pub use context::{ApiVersions, KubeVersion, DEFAULT_API_VERSIONS};
pub use convert::{from_jinja, to_jinja};
pub use error::RenderError;
pub use include::MAX_INCLUDE_DEPTH;
pub use run::{OutputProblem, OutputReader, RenderWork};

use crate::chart::{Chart, SharedText};
use crate::values::Value;
use minijinja::value::Value as JValue;
use minijinja::{AutoEscape, Environment, UndefinedBehavior};
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

/// The default cap on a render's total output (`--max-output-bytes`).
pub const DEFAULT_MAX_OUTPUT_BYTES: u64 = 64 * 1024 * 1024;

/// The `Chart.yaml` annotation that says why a chart's `kubeVersion` range is what it is; the
/// error for a Kubernetes version outside the range quotes it.
pub const KUBE_VERSION_REASON_ANNOTATION: &str = "meshchart.io/kube-version-reason";

/// The release-level inputs of a render (`helm template`'s flags besides values).
#[derive(Clone, Debug)]
pub struct RenderOptions {
    /// `.Release.Name`.
    pub release_name: String,
    /// `.Release.Namespace`.
    pub namespace: String,
    /// `.Capabilities.KubeVersion`.
    pub kube_version: KubeVersion,
    /// Extra `.Capabilities.APIVersions` entries.
    pub api_versions: Vec<String>,
    /// `.Release.IsUpgrade` (and not `.IsInstall`).
    pub is_upgrade: bool,
    /// Only emit these templates (`templates/x.yaml`, globs allowed).
    pub show_only: Vec<String>,
    /// The most bytes all templates together may output (`--max-output-bytes`).
    pub max_output_bytes: u64,
}

impl Default for RenderOptions {
    fn default() -> Self {
        RenderOptions {
            release_name: "release-name".into(),
            namespace: "default".into(),
            kube_version: KubeVersion::default(),
            api_versions: Vec::new(),
            is_upgrade: false,
            show_only: Vec::new(),
            max_output_bytes: DEFAULT_MAX_OUTPUT_BYTES,
        }
    }
}

/// A chart's templates compiled once, ready to render with any values; `'source` is the
/// chart's, whose template texts an engine made by [`Engine::new`] borrows.
pub struct Engine<'source> {
    env: Environment<'source>,
    chart_name: String,
    chart_object: JValue,
    /// `Files`: the chart's own files (see [`files`]).
    files_object: JValue,
    templates: Vec<String>,
    /// Each template's `Template` object, made once rather than for every render.
    template_objects: HashMap<String, JValue>,
    kube_version_constraint: Option<String>,
    /// Why the chart has that range: its `meshchart.io/kube-version-reason` annotation.
    kube_version_reason: Option<String>,
    /// Template outputs of earlier renders, with the values each read.
    remembered: Option<Arc<remembered::RememberedRenders>>,
}

/// The `Template` object of template `name` (relative to `templates/`).
fn template_object(chart_name: &str, name: &str) -> JValue {
    let base_path = format!("{chart_name}/templates");
    JValue::from_pairs([
        ("Name", JValue::from(format!("{base_path}/{name}"))),
        ("BasePath", JValue::from(base_path)),
    ])
}

/// The objects every template sees besides `Template`: `Values`, `Release`, `Chart`,
/// `Capabilities`, `Files`.
type Objects = [(&'static str, JValue); 5];

/// Templates still to compile, shared by the threads compiling them.
#[derive(Default)]
pub struct CompileWork {
    next: AtomicUsize,
    /// Templates whose compile has ended, with or without an error.
    finished: AtomicUsize,
    first_error: Mutex<Option<(usize, minijinja::Error)>>,
}

/// Counts a template's compile as ended when dropped, even by a panic, so that nothing waits
/// for it forever.
struct Finishing<'a>(&'a AtomicUsize);

impl Drop for Finishing<'_> {
    fn drop(&mut self) {
        self.0.fetch_add(1, Ordering::Release);
    }
}

fn is_partial(name: &str) -> bool {
    name.rsplit('/')
        .next()
        .is_some_and(|base| base.starts_with('_'))
}

impl<'source> Engine<'source> {
    /// Refuses a template of `chart` whose expressions nest deeper than minijinja's parser
    /// takes (see [`nesting`]): call it before [`Engine::uncompiled`] compiles them.
    pub fn check_nesting(&self, chart: &Chart) -> Result<(), RenderError> {
        nesting::check_expression_nesting(&self.chart_name, chart)
    }

    /// Compiles every template of `chart`; syntax errors are reported here with file and line.
    ///
    /// The templates go into the environment as borrowed from `chart`, which minijinja keeps in
    /// a table it reads without a lock. Those it loads itself (see [`Engine::uncompiled`]) sit
    /// behind one mutex that every lookup takes, every `include` included: threads rendering
    /// at once (a fleet, inject, `render_with`'s helper thread) passed that lock back and forth.
    /// Compiling here is serial; [`Engine::uncompiled`] shares it between threads instead.
    pub fn new(chart: &'source Chart) -> Result<Engine<'source>, RenderError> {
        let mut engine = Engine::without_templates(chart);
        nesting::check_expression_nesting(&engine.chart_name, chart)?;
        let mut lifted_texts = Vec::new();
        for template in &chart.templates {
            let added = match static_text::lift(&template.text, &mut lifted_texts) {
                Some(source) => engine.env.add_template_owned(template.path.clone(), source),
                None => engine.env.add_template(&template.path, &template.text),
            };
            added.map_err(|e| RenderError::from_template_error(&engine.chart_name, &e, chart))?;
        }
        engine
            .env
            .add_global(static_text::TABLE, static_text::table_value(lifted_texts));
        Ok(engine)
    }

    /// An engine whose templates compile on first use; [`Engine::compile`] compiles them ahead,
    /// from as many threads as share a [`CompileWork`], and [`Engine::finish_compile`] reports
    /// the first syntax error.
    pub fn uncompiled(chart: &Chart) -> Engine<'source> {
        let mut engine = Engine::without_templates(chart);
        // Templates come through a loader rather than `add_template`: minijinja then compiles
        // each one on first use, outside its lock, so several threads can compile at once.
        let mut lifted_texts = Vec::new();
        let sources: Arc<HashMap<String, SharedText>> = Arc::new(
            chart
                .templates
                .iter()
                .map(|t| {
                    let source = match static_text::lift(&t.text, &mut lifted_texts) {
                        Some(lifted) => SharedText::from(lifted),
                        // Shared, not copied: minijinja's loader takes a copy of its own.
                        None => t.text.clone(),
                    };
                    (t.path.clone(), source)
                })
                .collect(),
        );
        engine
            .env
            .add_global(static_text::TABLE, static_text::table_value(lifted_texts));
        engine
            .env
            .set_loader(move |name| Ok(sources.get(name).map(|source| source.to_string())));
        engine
    }

    /// An engine for `chart` with our syntax, functions and filters and no template yet.
    fn without_templates(chart: &Chart) -> Engine<'source> {
        let env = ahead::take_or_build();
        Engine {
            env,
            chart_name: chart.metadata.name.clone(),
            chart_object: to_jinja(&Value::Map(chart.metadata.template_object())),
            files_object: JValue::from_object(files::Files::of(chart)),
            templates: chart.templates.iter().map(|t| t.path.clone()).collect(),
            template_objects: chart
                .templates
                .iter()
                .map(|t| {
                    (
                        t.path.clone(),
                        template_object(&chart.metadata.name, &t.path),
                    )
                })
                .collect(),
            kube_version_constraint: chart.metadata.kube_version.clone(),
            kube_version_reason: chart
                .metadata
                .fields
                .get("annotations")
                .and_then(|a| a.get_path(&[KUBE_VERSION_REASON_ANNOTATION]))
                .and_then(|v| v.as_str())
                .map(str::to_owned),
            remembered: None,
        }
    }

    /// Remembers each template's and partial's output with the values it read, so a render
    /// whose context holds the same there (another cluster of a fleet) reuses it: see
    /// [`remembered`].
    pub fn remembering_template_outputs(mut self) -> Self {
        self.remembered = Some(Arc::new(remembered::RememberedRenders::new(
            &self.templates,
        )));
        self
    }

    /// Compiles templates until none is left, taking each from `work`; call it from several
    /// threads to share the compilation (a whole render is a few milliseconds, and compiling is
    /// a third of it).
    pub fn compile(&self, work: &CompileWork) {
        loop {
            let index = work.next.fetch_add(1, Ordering::Relaxed);
            let Some(name) = self.templates.get(index) else {
                return;
            };
            let _finishing = Finishing(&work.finished);
            if let Err(e) = self.env.get_template(name) {
                let mut first = work.first_error.lock().unwrap_or_else(|p| p.into_inner());
                if first.as_ref().is_none_or(|(at, _)| index < *at) {
                    *first = Some((index, e));
                }
            }
        }
    }

    /// The first syntax error in path order, as a sequential compile would report it. Call it
    /// after [`Engine::compile`] on this thread, which leaves no template untaken; it waits for
    /// the templates other threads are still compiling, and only for those: a helper that has
    /// not started yet took none.
    pub fn finish_compile(&self, work: &CompileWork, chart: &Chart) -> Result<(), RenderError> {
        let total = self.templates.len();
        crate::parallel::wait_until(|| work.finished.load(Ordering::Acquire) >= total);
        let first = work
            .first_error
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .take();
        match first {
            Some((_, e)) => Err(RenderError::from_template_error(
                &self.chart_name,
                &e,
                chart,
            )),
            None => Ok(()),
        }
    }

    /// Fails as Helm does when the chart's `kubeVersion` excludes the version rendered for.
    pub fn check_kube_version(&self, kube_version: &KubeVersion) -> Result<(), RenderError> {
        let Some(constraint) = &self.kube_version_constraint else {
            return Ok(());
        };
        let actual = kube_version.version();
        match functions::semver_satisfies(constraint, &actual) {
            Ok(true) => Ok(()),
            Ok(false) => Err(RenderError::KubeVersion {
                constraint: constraint.clone(),
                actual,
                reason: self.kube_version_reason.clone(),
            }),
            Err(reason) => Err(RenderError::BadKubeVersionConstraint {
                constraint: constraint.clone(),
                reason,
            }),
        }
    }

    /// The chart's name.
    pub fn chart_name(&self) -> &str {
        &self.chart_name
    }

    fn capabilities(opts: &RenderOptions) -> JValue {
        type Built = (KubeVersion, Vec<String>, JValue);
        thread_local! {
            /// The last `Capabilities` built on this thread, and what it was built from: a
            /// fleet's renders share one, which remembered renders then compare at once.
            static LAST: std::cell::RefCell<Option<Built>> = const { std::cell::RefCell::new(None) };
        }
        let known = LAST.with_borrow(|last| {
            last.as_ref()
                .filter(|(kube, apis, _)| *kube == opts.kube_version && *apis == opts.api_versions)
                .map(|(_, _, value)| value.clone())
        });
        if let Some(value) = known {
            return value;
        }
        let value = Self::build_capabilities(opts);
        LAST.with_borrow_mut(|last| {
            *last = Some((
                opts.kube_version.clone(),
                opts.api_versions.clone(),
                value.clone(),
            ))
        });
        value
    }

    /// `.Capabilities` for `opts`.
    fn build_capabilities(opts: &RenderOptions) -> JValue {
        let mut versions: Vec<String> = DEFAULT_API_VERSIONS
            .iter()
            .map(|s| (*s).to_owned())
            .collect();
        versions.extend(opts.api_versions.iter().cloned());
        JValue::from_pairs([
            (
                "KubeVersion",
                JValue::from_object(opts.kube_version.clone()),
            ),
            ("APIVersions", JValue::from_object(ApiVersions(versions))),
            (
                "HelmVersion",
                JValue::from_pairs([("Version", "v3.17.1"), ("GitCommit", ""), ("GoVersion", "")]),
            ),
        ])
    }

    /// `Values`, `Release`, `Chart` and `Capabilities`, built once per render.
    fn objects(&self, values: &Value, opts: &RenderOptions) -> Objects {
        let release = JValue::from_pairs([
            ("Name", JValue::from(opts.release_name.as_str())),
            ("Namespace", JValue::from(opts.namespace.as_str())),
            ("Service", JValue::from("Helm")),
            ("IsInstall", JValue::from(!opts.is_upgrade)),
            ("IsUpgrade", JValue::from(opts.is_upgrade)),
            ("Revision", JValue::from(1)),
        ]);
        [
            ("Values", convert::to_jinja_reusing(values)),
            ("Release", release),
            ("Chart", self.chart_object.clone()),
            ("Capabilities", Self::capabilities(opts)),
            ("Files", self.files_object.clone()),
        ]
    }

    /// The context of template `name`: the shared objects plus its own `Template`.
    fn template_context(&self, name: &str, objects: &Objects) -> JValue {
        let template = match self.template_objects.get(name) {
            Some(template) => template.clone(),
            None => template_object(&self.chart_name, name),
        };
        JValue::from_pairs(
            objects
                .iter()
                .cloned()
                .chain(std::iter::once(("Template", template))),
        )
    }

    /// Renders the one template `name` (relative to `templates/`, partials too) and returns its
    /// text exactly: no document splitting, YAML checks, sorting or framing.
    pub fn render_template(
        &self,
        name: &str,
        values: &Value,
        opts: &RenderOptions,
    ) -> Result<String, RenderError> {
        let ctx = self.template_context(name, &self.objects(values, opts));
        let template = self
            .env
            .get_template(name)
            .map_err(|e| self.template_error(&e))?;
        template.render(&ctx).map_err(|e| self.template_error(&e))
    }
}

/// A minijinja environment with our syntax, limits, output formatting, functions and filters,
/// and no template: what every engine starts from, whatever its chart.
fn our_environment() -> Environment<'static> {
    let mut env = Environment::new();
    env.set_auto_escape_callback(|_| AutoEscape::None);
    // Go templates keep a template's final newline; Jinja drops it by default.
    let syntax = minijinja::syntax::SyntaxConfig::builder()
        .keep_trailing_newline(true)
        .build();
    if let Ok(syntax) = syntax {
        env.set_syntax(syntax);
    }
    env.set_undefined_behavior(UndefinedBehavior::SemiStrict);
    env.set_fuel(Some(FUEL_PER_RENDER));
    env.set_recursion_limit(200);
    env.set_debug(true);
    env.set_formatter(|out, state, value| {
        if value.is_undefined() && state.undefined_behavior() != UndefinedBehavior::Lenient {
            return Err(minijinja::Error::from(minijinja::ErrorKind::UndefinedError));
        }
        // A list prints at least two bytes an item: refuse a long one before walking it (a
        // lazy list doubled with `+` claims billions of items).
        // The kind first: a string's length is a count of its characters.
        let listed = matches!(
            value.kind(),
            minijinja::value::ValueKind::Seq
                | minijinja::value::ValueKind::Iterable
                | minijinja::value::ValueKind::Map
        );
        if let Some(len) = listed.then(|| value.len()).flatten() {
            if len.saturating_mul(2) > MAX_STRING_BYTES {
                return Err(minijinja::Error::new(
                    minijinja::ErrorKind::InvalidOperation,
                    format!(
                        "the {} printed here has {len} items: more than the limit of \
                         {MAX_STRING_BYTES} bytes (10 MiB) once printed",
                        if value.kind() == minijinja::value::ValueKind::Map {
                            "map"
                        } else {
                            "list"
                        }
                    ),
                ));
            }
        }
        // Printing walks the value recursively: refuse one nested past the limit first.
        if listed && convert::nested_too_deep(value) {
            return Err(minijinja::Error::new(
                minijinja::ErrorKind::InvalidOperation,
                format!(
                    "the value printed here is nested deeper than {} levels",
                    crate::limits::MAX_NESTING
                ),
            ));
        }
        let write_failed = |e| {
            minijinja::Error::new(minijinja::ErrorKind::WriteFailure, "could not write output")
                .with_source(e)
        };
        // Most printed values are strings: they are written without a copy, as are the
        // template's own lifted runs of text.
        if let Some(lifted) = value.downcast_object_ref::<static_text::LiftedText>() {
            return out.write_str(lifted.text()).map_err(write_failed);
        }
        let mut built = String::new();
        let text = match (value.kind(), value.as_str()) {
            (minijinja::value::ValueKind::String, Some(text)) => text,
            _ => {
                gofmt::write_display(&mut built, value); // stops early past the cap
                &built
            }
        };
        if text.len() > MAX_STRING_BYTES {
            return Err(minijinja::Error::new(
                minijinja::ErrorKind::InvalidOperation,
                format!(
                    "the value printed here is {} bytes, more than the limit of \
                     {MAX_STRING_BYTES} (10 MiB)",
                    text.len()
                ),
            ));
        }
        out.write_str(text).map_err(write_failed)
    });
    env.add_function("include", include::include);
    env.add_function("tpl", include::tpl);
    env.add_filter("tpl", include::tpl);
    functions::register(&mut env);
    env
}
