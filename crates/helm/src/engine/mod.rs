//! The engine: compiles a chart's templates once and renders them with Helm's semantics.

mod context;
pub(crate) mod convert;
mod error;
mod files;
pub mod functions;
mod gofmt;
mod include;
mod nesting;
mod remembered;
mod static_text;

pub use crate::limits::{FUEL_PER_RENDER, MAX_LIST_ITEMS, MAX_STRING_BYTES, TEMPLATE_DATA_BYTES};
pub use context::{ApiVersions, KubeVersion, DEFAULT_API_VERSIONS};
pub use convert::{from_jinja, to_jinja};
pub use error::RenderError;
pub use include::MAX_INCLUDE_DEPTH;

use crate::chart::Chart;
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
    first_error: Mutex<Option<(usize, minijinja::Error)>>,
}

/// A render in progress: the objects the templates see and, per emitted template, its result
/// as an [`OutputReader`] read it (`T`), filled by as many threads as call
/// [`Engine::render_shared`].
pub struct RenderWork<T> {
    objects: Objects,
    templates: Vec<usize>,
    next: AtomicUsize,
    results: Vec<OnceLock<TemplateOutcome<T>>>,
    /// Output so far, all threads together; past `--max-output-bytes` no template is started.
    output_bytes: AtomicU64,
    max_output_bytes: u64,
}

/// One template's output length (its share of `--max-output-bytes`) and what the reader made of
/// its output.
type TemplateOutcome<T> = Result<(u64, T), RenderError>;

/// What becomes of each template's output, on the thread that rendered it. The engine renders
/// text, as Helm's engine does; the reader (manifest's `DocumentReader`) splits and checks it.
pub trait OutputReader: Sync {
    /// What one template's output becomes.
    type Read: Send + Sync;
    /// Reads the output of template `template` (relative to `templates/`); a problem names the
    /// line and column of the output where it lies, which the engine maps to the template line
    /// that wrote it.
    fn read(&self, template: &str, output: &str) -> Result<Self::Read, OutputProblem>;
}

/// Where a template's output cannot be read, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OutputProblem {
    /// 1-based line of the template's whole output.
    pub line: usize,
    /// 1-based column on that line.
    pub column: usize,
    /// What is wrong there.
    pub message: String,
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
        let sources: Arc<HashMap<String, String>> = Arc::new(
            chart
                .templates
                .iter()
                .map(|t| {
                    let source = static_text::lift(&t.text, &mut lifted_texts)
                        .unwrap_or_else(|| t.text.clone());
                    (t.path.clone(), source)
                })
                .collect(),
        );
        engine
            .env
            .add_global(static_text::TABLE, static_text::table_value(lifted_texts));
        engine
            .env
            .set_loader(move |name| Ok(sources.get(name).cloned()));
        engine
    }

    /// An engine for `chart` with our syntax, functions and filters and no template yet.
    fn without_templates(chart: &Chart) -> Engine<'source> {
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
            // Most printed values are strings: they are written without a copy.
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
            if let Err(e) = self.env.get_template(name) {
                let mut first = work.first_error.lock().unwrap_or_else(|p| p.into_inner());
                if first.as_ref().is_none_or(|(at, _)| index < *at) {
                    *first = Some((index, e));
                }
            }
        }
    }

    /// The first syntax error in path order, as a sequential compile would report it.
    pub fn finish_compile(&self, work: &CompileWork, chart: &Chart) -> Result<(), RenderError> {
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
            ("Values", to_jinja(values)),
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

    /// Renders every template with `values`; returns what `reader` made of each one's output,
    /// in template order.
    pub fn render<R: OutputReader>(
        &self,
        values: &Value,
        opts: &RenderOptions,
        reader: &R,
    ) -> Result<Vec<R::Read>, RenderError> {
        let work = self.prepare(values, opts)?;
        self.render_shared(&work, reader);
        self.finish_render(work, opts, reader)
    }

    /// [`Engine::render`] with a helper thread taking templates from the same queue as this one
    /// (for a single render; threads that already keep every core busy use `render`). The
    /// helper is the process's one helper thread ([`crate::parallel::alongside`]): renders on several threads at once
    /// share it, each taking it when it is free, and this thread renders whatever it has not.
    pub fn render_with_a_helper<R: OutputReader>(
        &self,
        values: &Value,
        opts: &RenderOptions,
        reader: &R,
    ) -> Result<Vec<R::Read>, RenderError> {
        let work = self.prepare(values, opts)?;
        crate::parallel::alongside(
            || self.render_shared(&work, reader),
            || self.render_shared(&work, reader),
        );
        self.finish_render(work, opts, reader)
    }

    /// Starts a render of `values`: [`Engine::render_shared`] does the work (from one thread or
    /// several) and [`Engine::finish_render`] collects it.
    pub fn prepare<T>(
        &self,
        values: &Value,
        opts: &RenderOptions,
    ) -> Result<RenderWork<T>, RenderError> {
        self.check_kube_version(&opts.kube_version)?;
        let templates: Vec<usize> = (0..self.templates.len())
            .filter(|&i| !is_partial(&self.templates[i]))
            .collect();
        Ok(RenderWork {
            objects: self.objects(values, opts),
            results: templates.iter().map(|_| OnceLock::new()).collect(),
            templates,
            next: AtomicUsize::new(0),
            output_bytes: AtomicU64::new(0),
            max_output_bytes: opts.max_output_bytes,
        })
    }

    /// Renders templates of `work` not yet taken by another thread, until none is left or the
    /// output so far passes `--max-output-bytes` (the error is [`Engine::finish_render`]'s),
    /// each output read by `reader` here.
    pub fn render_shared<R: OutputReader>(&self, work: &RenderWork<R::Read>, reader: &R) {
        while work.output_bytes.load(Ordering::Relaxed) <= work.max_output_bytes {
            let index = work.next.fetch_add(1, Ordering::Relaxed);
            let (Some(&template), Some(slot)) =
                (work.templates.get(index), work.results.get(index))
            else {
                return;
            };
            let outcome = self.render_remembering(template, work, reader);
            if let Ok((length, _)) = &outcome {
                work.output_bytes.fetch_add(*length, Ordering::Relaxed);
            }
            let _ = slot.set(outcome);
        }
    }

    /// What the reader made of each template's output, in template order, or the first error in
    /// template order (as a one-thread render would meet it). `max_output_bytes` caps all
    /// templates together: each template's own output is bounded by its fuel.
    pub fn finish_render<R: OutputReader>(
        &self,
        work: RenderWork<R::Read>,
        opts: &RenderOptions,
        reader: &R,
    ) -> Result<Vec<R::Read>, RenderError> {
        let mut total = 0u64;
        let mut all = Vec::new();
        let RenderWork {
            objects,
            templates,
            results,
            ..
        } = work;
        for (template, result) in templates.into_iter().zip(results) {
            let name = &self.templates[template];
            let (length, read) = match result.into_inner() {
                Some(outcome) => outcome?,
                // Not taken: the threads stopped at the output cap (or a caller skipped
                // render_shared). Rendered now, in order, the cap is met at the same template.
                None => self.render_one(name, &objects, reader)?,
            };
            let before = total;
            total += length;
            if total > opts.max_output_bytes {
                let room = opts.max_output_bytes - before;
                return Err(self.output_too_large(name, &objects, room, opts.max_output_bytes));
            }
            all.push(read);
        }
        Ok(all)
    }

    /// [`Engine::render_one`] of template `template`, or its remembered output when the engine
    /// remembers and `work`'s context holds what an earlier render read.
    fn render_remembering<R: OutputReader>(
        &self,
        template: usize,
        work: &RenderWork<R::Read>,
        reader: &R,
    ) -> TemplateOutcome<R::Read> {
        let name = &self.templates[template];
        let Some(remembered) = &self.remembered else {
            return self.render_one(name, &work.objects, reader);
        };
        let _active = remembered.activate();
        let context = self.template_context(name, &work.objects);
        let output = remembered.output(template, context.clone(), |context| {
            self.render_text(name, context)
        })?;
        self.read_output(name, &output, &context, reader)
            .map(|read| (output.len() as u64, read))
    }

    /// Renders one template and reads its output; returns its output's length too.
    fn render_one<R: OutputReader>(
        &self,
        name: &str,
        objects: &Objects,
        reader: &R,
    ) -> TemplateOutcome<R::Read> {
        let context = self.template_context(name, objects);
        let output = self.render_text(name, &context)?;
        self.read_output(name, &output, &context, reader)
            .map(|read| (output.len() as u64, read))
    }

    /// Renders template `name` with the context `ctx`.
    fn render_text(&self, name: &str, ctx: &JValue) -> Result<String, RenderError> {
        let template = self
            .env
            .get_template(name)
            .map_err(|e| self.template_error(&e))?;
        template.render(ctx).map_err(|e| self.template_error(&e))
    }

    /// `reader`'s reading of template `name`'s `output`, a problem it finds mapped to the
    /// template line that wrote it.
    fn read_output<R: OutputReader>(
        &self,
        name: &str,
        output: &str,
        ctx: &JValue,
        reader: &R,
    ) -> Result<R::Read, RenderError> {
        reader
            .read(name, output)
            .map_err(|problem| self.unreadable_output(name, output, ctx, problem))
    }

    /// The error for the template whose output passes the cap `limit`, `room` bytes into it.
    fn output_too_large(
        &self,
        name: &str,
        objects: &Objects,
        room: u64,
        limit: u64,
    ) -> RenderError {
        let ctx = self.template_context(name, objects);
        let line = self.env.get_template(name).ok().and_then(|template| {
            let length = template.render(&ctx).map_or(0, |output| output.len());
            let offset = usize::try_from(room).unwrap_or(usize::MAX).min(length);
            self.output_origin(&template, &ctx, offset)
                .map(|(_, line)| line)
        });
        RenderError::OutputTooLarge {
            template: format!("{}/templates/{name}", self.chart_name),
            line,
            limit,
        }
    }

    fn template_error(&self, error: &minijinja::Error) -> RenderError {
        RenderError::from_minijinja(&self.chart_name, error, |name| {
            self.env
                .get_template(name)
                .ok()
                .map(|t| t.source().to_owned())
        })
    }

    /// The error for `problem` in template `name`'s `output`: the template and line that wrote
    /// the offending output line, found by rendering it again with span tracking (error paths
    /// only, so rendering stays fast).
    fn unreadable_output(
        &self,
        name: &str,
        output: &str,
        ctx: &JValue,
        problem: OutputProblem,
    ) -> RenderError {
        let output_line = problem.line;
        let origin = self.env.get_template(name).ok().and_then(|template| {
            let line_start = line_start_offset(output, output_line)?;
            let line_end = output[line_start..]
                .find('\n')
                .map_or(output.len(), |i| line_start + i);
            let at = (line_start + problem.column.saturating_sub(1)).min(line_end);
            self.output_origin(&template, ctx, at)
        });
        let (origin_name, template_line) = match origin {
            Some((n, l)) => (n, Some(l)),
            None => (name.to_owned(), None),
        };
        let source_line = template_line.and_then(|l| {
            self.env
                .get_template(&origin_name)
                .ok()?
                .source()
                .lines()
                .nth(l - 1)
                .map(str::to_owned)
        });
        RenderError::InvalidYaml {
            template: format!("{}/templates/{}", self.chart_name, origin_name),
            template_line,
            template_source_line: source_line,
            output_line,
            output_text: if crate::redact::line_is_in_private_key(output, output_line) {
                "<a line of a private key, masked>".to_owned()
            } else {
                let line = output.lines().nth(output_line - 1).unwrap_or_default();
                crate::redact::mask_private_keys(line).into_owned()
            },
            message: problem.message,
        }
    }
}

impl Engine<'_> {
    /// The template and line that produced byte `at` of `template`'s output. Renders again with
    /// span tracking: only on error paths, so rendering stays fast.
    fn output_origin(
        &self,
        template: &minijinja::Template<'_, '_>,
        ctx: &JValue,
        at: usize,
    ) -> Option<(String, usize)> {
        let (text, spans) = template.render_with_spans(ctx).ok()?;
        let line_start = text[..at.min(text.len())].rfind('\n').map_or(0, |i| i + 1);
        spans
            .iter()
            .find(|s| s.output_range().contains(&at))
            .or_else(|| spans.iter().find(|s| s.output_range().start >= line_start))
            .map(|s| {
                let mut line = s.line();
                // Raw text maps byte for byte, so find the exact source line in it.
                if s.kind() == minijinja::OutputSpanKind::Raw {
                    if let Ok(t) = self.env.get_template(s.name()) {
                        let offset =
                            s.source_range().start + at.saturating_sub(s.output_range().start);
                        line = line_of(t.source(), offset);
                    }
                }
                (s.name().to_owned(), line)
            })
    }
}

fn line_start_offset(text: &str, line: usize) -> Option<usize> {
    if line == 1 {
        return Some(0);
    }
    text.match_indices('\n').nth(line - 2).map(|(i, _)| i + 1)
}

/// 1-based line of byte `offset` in `text`.
fn line_of(text: &str, offset: usize) -> usize {
    memchr::memchr_iter(b'\n', &text.as_bytes()[..offset.min(text.len())]).count() + 1
}
