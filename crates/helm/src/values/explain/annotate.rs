//! Writing each leaf's origin as a comment on its line of the printed values.

use crate::values::positions::{walk, Shape, Step};

/// Appends `  # <origin>` to the line of `yaml` (a document printed from the explained values)
/// that holds each leaf, as `origin_of` names it by its path: the key's line for a block scalar
/// (`key: |-`), the last line of the value otherwise, so folded scalars stay intact. The text
/// is walked once and written as it goes: each leaf's line lies between its own node's and the
/// next node's, so the notes come in the order of the lines.
pub fn annotate(yaml: &str, origin_of: impl Fn(&[String]) -> Option<String>) -> String {
    let lines: Vec<&str> = yaml.lines().collect();
    let mut out = Annotated {
        lines: &lines,
        text: String::with_capacity(yaml.len() + yaml.len() / 2),
        written: 0,
        held: None,
    };
    // The leaf waiting for the next node to know where it ends, and a collection that is a
    // leaf if it ends before anything starts in it.
    let mut waiting: Option<Leaf> = None;
    let mut empty_if_it_ends: Option<Leaf> = None;
    let walked = walk(yaml, |step| match step {
        Step::Key { .. } => {}
        Step::Node {
            path, at, shape, ..
        } => {
            if let Some(leaf) = waiting.take() {
                let line = leaf.line(&lines, at.line);
                out.note(line, leaf.origin);
            }
            empty_if_it_ends = None;
            let leaf = |block| {
                origin_of(path).map(|origin| Leaf {
                    at: at.line,
                    block,
                    origin,
                })
            };
            match shape {
                Shape::Scalar { block, .. } => waiting = leaf(block),
                Shape::Alias => waiting = leaf(false),
                Shape::Collection => empty_if_it_ends = leaf(false),
            }
        }
        Step::End { len } => {
            if let Some(leaf) = empty_if_it_ends.take().filter(|_| len == 0) {
                waiting = Some(leaf);
            }
        }
    });
    if walked.is_err() {
        return yaml.to_owned();
    }
    if let Some(leaf) = waiting.take() {
        let line = leaf.line(&lines, lines.len() + 1);
        out.note(line, leaf.origin);
    }
    out.finish()
}

/// A leaf of the annotated text: where its node is, and the note for it.
struct Leaf {
    at: usize,
    block: bool,
    origin: String,
}

impl Leaf {
    /// The line its note goes on, given where the next node is: its own for a block scalar,
    /// else the last line before the next node that is not blank.
    fn line(&self, lines: &[&str], next: usize) -> usize {
        if self.block {
            return self.at;
        }
        let mut end = next.saturating_sub(1).max(self.at);
        while end > self.at && lines.get(end - 1).is_some_and(|t| t.trim().is_empty()) {
            end -= 1;
        }
        end
    }
}

/// The annotated text as far as it is known: lines are written once no later note can fall on
/// them (a later leaf on the same line replaces the note held for it).
struct Annotated<'l> {
    lines: &'l [&'l str],
    text: String,
    /// Lines written so far.
    written: usize,
    held: Option<(usize, String)>,
}

impl Annotated<'_> {
    fn note(&mut self, line: usize, origin: String) {
        if let Some((held, earlier)) = self.held.take() {
            if held < line {
                self.write_through(held, Some(&earlier));
            }
        }
        self.held = Some((line, origin));
    }

    /// Writes the lines up to `line` (1-based), the last with `note`.
    fn write_through(&mut self, line: usize, note: Option<&str>) {
        while self.written < line.min(self.lines.len()) {
            self.text.push_str(self.lines[self.written]);
            self.written += 1;
            if self.written == line {
                if let Some(note) = note {
                    self.text.push_str("  # ");
                    self.text.push_str(note);
                }
            }
            self.text.push('\n');
        }
    }

    fn finish(mut self) -> String {
        if let Some((line, note)) = self.held.take() {
            self.write_through(line, Some(&note));
        }
        self.write_through(self.lines.len(), None);
        self.text
    }
}
