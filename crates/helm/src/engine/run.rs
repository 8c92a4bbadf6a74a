//! A render's run: every template rendered (by one thread or several taking from one queue),
//! each output handed to the caller's [`OutputReader`] on the thread that rendered it, the
//! results collected in template order under `--max-output-bytes`, and a problem the reader finds
//! mapped back to the template line that wrote it.

use super::*;

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

impl Engine<'_> {
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

    pub(super) fn template_error(&self, error: &minijinja::Error) -> RenderError {
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
                        line = crate::yaml::line_of(t.source(), offset);
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
