//! The event stream every YAML reader of ours walks: yaml-rust2's, which is quick and keeps
//! each scalar's style, and libyaml's for text that nests flow collections (`[[[...]]]`) deeper
//! than yaml-rust2 can count (it keeps the flow level in a byte, so 255 levels).
//!
//! kubectl and Helm read YAML with go-yaml, a port of libyaml, which takes flow-style nesting as
//! deep as block style. When yaml-rust2 gives up on the depth, the events it already delivered
//! are read again from libyaml, checked to be the same, and the stream goes on from there: the
//! readers above never see the switch.

use yaml_rust2::parser::{Event, Parser, Tag};
use yaml_rust2::scanner::{Marker, TScalarStyle};

/// 1-based line of byte `offset` in `text`: how a byte found in a stream (a document's start, a
/// template's output) is named to the user.
pub fn line_of(text: &str, offset: usize) -> usize {
    memchr::memchr_iter(b'\n', &text.as_bytes()[..offset.min(text.len())]).count() + 1
}

/// A position in YAML text (1-based line and column): where an event starts, and where every
/// reader above this stream reports a problem.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Position {
    /// 1-based line.
    pub line: usize,
    /// 1-based column.
    pub column: usize,
}

/// The prefix go-yaml and libyaml write `!!` tags out to.
const CORE_TAG_PREFIX: &str = "tag:yaml.org,2002:";

/// yaml-rust2's message when flow-style nesting passes what it counts.
const RUST2_FLOW_LIMIT: &str = "recursion limit exceeded";

/// Why the event stream stopped.
#[derive(Debug, Clone, PartialEq)]
pub struct EventError {
    /// Where the reader stopped (1-based line and column).
    pub position: Position,
    /// The reader's own words.
    pub message: String,
}

/// The events of one YAML text, in order, with the position each starts at.
pub struct Events<'a> {
    text: &'a str,
    reader: Reader<'a>,
    /// Events handed out so far (all from yaml-rust2 while that reads).
    delivered: usize,
}

enum Reader<'a> {
    Rust2(Box<Parser<std::str::Chars<'a>>>),
    Libyaml(Box<Libyaml<'a>>),
}

/// `digest` with `event` added: its kind, and a scalar's length.
fn digest(digest: u64, event: &Event) -> u64 {
    let part = match event {
        Event::Nothing => 1,
        Event::StreamStart => 2,
        Event::StreamEnd => 3,
        Event::DocumentStart => 4,
        Event::DocumentEnd => 5,
        Event::Alias(_) => 6,
        Event::SequenceStart(..) => 7,
        Event::SequenceEnd => 8,
        Event::MappingStart(..) => 9,
        Event::MappingEnd => 10,
        Event::Scalar(text, ..) => 11 + ((text.len() as u64) << 4),
    };
    digest.wrapping_mul(0x100_0000_01b3).wrapping_add(part)
}

impl<'a> Events<'a> {
    /// The events of `text`.
    pub fn new(text: &'a str) -> Self {
        Events {
            text,
            reader: Reader::Rust2(Box::new(Parser::new_from_str(text))),
            delivered: 0,
        }
    }

    /// The next event and where it starts.
    // Inlined into the readers' loops: the event is then built in place rather than moved
    // through one more result (0.7% of an inject's instructions).
    #[inline]
    pub fn next_event(&mut self) -> Result<(Event, Position), EventError> {
        match &mut self.reader {
            Reader::Rust2(parser) => match parser.next_token() {
                Ok((event, mark)) => {
                    self.delivered += 1;
                    Ok((event, rust2_position(&mark)))
                }
                Err(e) => self.rust2_stopped(e),
            },
            Reader::Libyaml(reader) => reader.next_event(),
        }
    }

    /// yaml-rust2 stopped: at its flow-level limit libyaml reads on, else its error.
    #[cold]
    #[inline(never)]
    fn rust2_stopped(
        &mut self,
        e: yaml_rust2::scanner::ScanError,
    ) -> Result<(Event, Position), EventError> {
        if e.info() == RUST2_FLOW_LIMIT {
            return self.switch_to_libyaml();
        }
        Err(EventError {
            position: rust2_position(e.marker()),
            message: e.info().to_owned(),
        })
    }

    /// Reads the events delivered so far again from libyaml, and goes on with it. Both readers
    /// read that prefix once more side by side (a rare path: nothing is kept per event on the
    /// common one), and must agree on the kind of every event and the length of every scalar.
    fn switch_to_libyaml(&mut self) -> Result<(Event, Position), EventError> {
        let mut libyaml = Box::new(Libyaml::new(self.text));
        let mut rust2 = Parser::new_from_str(self.text);
        let (mut from_libyaml, mut from_rust2) = (0, 0);
        let mut at = Position::default();
        for _ in 0..self.delivered {
            let (event, start) = libyaml.next_event()?;
            from_libyaml = digest(from_libyaml, &event);
            at = start;
            if let Ok((event, _)) = rust2.next_token() {
                from_rust2 = digest(from_rust2, &event);
            }
        }
        if from_libyaml != from_rust2 {
            return Err(EventError {
                position: at,
                message: "this text reads differently past 255 levels of flow-style nesting; \
                          write the deep part in block style"
                    .to_owned(),
            });
        }
        self.reader = Reader::Libyaml(libyaml);
        self.next_event()
    }
}

fn rust2_position(mark: &Marker) -> Position {
    Position {
        line: mark.line(),
        column: mark.col() + 1,
    }
}

/// libyaml's events, given in yaml-rust2's terms.
struct Libyaml<'a> {
    parser: libyaml_safer::Parser<&'a [u8]>,
    /// Anchor names to the id of their latest definition (ids from 1, as yaml-rust2 numbers).
    anchors: std::collections::HashMap<String, usize>,
    next_anchor: usize,
    /// Collections open now.
    depth: u64,
    /// The sum of `depth` over the events read: libyaml's scanner checks every open flow level
    /// at each token, so its time grows with this.
    work: u64,
}

/// Most [`Libyaml::work`] a text may take: about eight times what one structure nested 10,000
/// levels deep costs, a few seconds. Past it, text made of many such structures is refused
/// rather than read for minutes.
const MAX_DEEP_FLOW_WORK: u64 = 800_000_000;

impl<'a> Libyaml<'a> {
    fn new(text: &'a str) -> Self {
        let mut parser = libyaml_safer::Parser::new();
        parser.set_input(text.as_bytes());
        Libyaml {
            parser,
            anchors: std::collections::HashMap::new(),
            next_anchor: 1,
            depth: 0,
            work: 0,
        }
    }

    #[inline(never)]
    fn next_event(&mut self) -> Result<(Event, Position), EventError> {
        use libyaml_safer::EventData;
        let event = self.parser.parse().map_err(|e| {
            let mark = e.problem_mark().unwrap_or_default();
            EventError {
                position: libyaml_position(mark),
                message: match e.context() {
                    Some(context) => format!("{} {context}", e.problem()),
                    None => e.problem().to_owned(),
                },
            }
        })?;
        let at = libyaml_position(event.start_mark);
        match event.data {
            EventData::SequenceStart { .. } | EventData::MappingStart { .. } => self.depth += 1,
            EventData::SequenceEnd | EventData::MappingEnd => {
                self.depth = self.depth.saturating_sub(1)
            }
            _ => {}
        }
        self.work += self.depth;
        if self.work > MAX_DEEP_FLOW_WORK {
            return Err(EventError {
                position: at,
                message: "too much flow-style text nested past 255 levels: its reading time \
                          grows with the depth of every part; write the deep parts in block \
                          style"
                    .to_owned(),
            });
        }
        let converted = match event.data {
            EventData::StreamStart { .. } => Event::StreamStart,
            EventData::StreamEnd => Event::StreamEnd,
            EventData::DocumentStart { .. } => Event::DocumentStart,
            EventData::DocumentEnd { .. } => Event::DocumentEnd,
            // An unknown name gets id 0, which no anchor has: the reader names the problem.
            EventData::Alias { anchor } => {
                Event::Alias(self.anchors.get(&anchor).copied().unwrap_or(0))
            }
            EventData::Scalar {
                anchor,
                tag,
                value,
                style,
                ..
            } => Event::Scalar(
                value,
                scalar_style(style),
                self.anchor(anchor),
                tag.map(split_tag),
            ),
            EventData::SequenceStart { anchor, tag, .. } => {
                Event::SequenceStart(self.anchor(anchor), tag.map(split_tag))
            }
            EventData::SequenceEnd => Event::SequenceEnd,
            EventData::MappingStart { anchor, tag, .. } => {
                Event::MappingStart(self.anchor(anchor), tag.map(split_tag))
            }
            EventData::MappingEnd => Event::MappingEnd,
        };
        Ok((converted, at))
    }

    /// The id of an anchor being defined (0 for none).
    fn anchor(&mut self, name: Option<String>) -> usize {
        let Some(name) = name else { return 0 };
        let id = self.next_anchor;
        self.next_anchor += 1;
        self.anchors.insert(name, id);
        id
    }
}

fn libyaml_position(mark: libyaml_safer::Mark) -> Position {
    Position {
        line: usize::try_from(mark.line)
            .unwrap_or(usize::MAX)
            .saturating_add(1),
        column: usize::try_from(mark.column)
            .unwrap_or(usize::MAX)
            .saturating_add(1),
    }
}

fn scalar_style(style: libyaml_safer::ScalarStyle) -> TScalarStyle {
    use libyaml_safer::ScalarStyle;
    match style {
        ScalarStyle::SingleQuoted => TScalarStyle::SingleQuoted,
        ScalarStyle::DoubleQuoted => TScalarStyle::DoubleQuoted,
        ScalarStyle::Literal => TScalarStyle::Literal,
        ScalarStyle::Folded => TScalarStyle::Folded,
        // The reader gives only the five styles above and Plain; `Any` is the writer's choice.
        _ => TScalarStyle::Plain,
    }
}

/// A resolved tag as yaml-rust2 gives it: `!!int` is (`tag:yaml.org,2002:`, `int`), `!app`
/// is (`!`, `app`), any other is its whole text.
fn split_tag(tag: String) -> Tag {
    if let Some(suffix) = tag.strip_prefix(CORE_TAG_PREFIX) {
        Tag {
            handle: CORE_TAG_PREFIX.to_owned(),
            suffix: suffix.to_owned(),
        }
    } else if let Some(suffix) = tag.strip_prefix('!') {
        Tag {
            handle: "!".to_owned(),
            suffix: suffix.to_owned(),
        }
    } else {
        Tag {
            handle: String::new(),
            suffix: tag,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all_events(text: &str) -> Result<Vec<Event>, EventError> {
        let mut events = Events::new(text);
        let mut out = Vec::new();
        loop {
            let (event, _) = events.next_event()?;
            if event == Event::StreamEnd {
                return Ok(out);
            }
            out.push(event);
        }
    }

    fn nested(depth: usize) -> String {
        format!("{}x{}", "[".repeat(depth), "]".repeat(depth))
    }

    #[test]
    fn flow_nesting_past_255_levels_reads_on_from_libyaml() {
        let events = all_events(&nested(300)).expect("reads");
        let starts = events
            .iter()
            .filter(|e| matches!(e, Event::SequenceStart(..)))
            .count();
        assert_eq!(starts, 300);
        assert!(events.contains(&Event::Scalar("x".into(), TScalarStyle::Plain, 0, None)));
    }

    #[test]
    fn both_readers_give_the_same_events_below_the_switch() {
        let text = "a: &x [1, 'two', !!int \"3\", {b: *x}]\n---\n- |\n  block\n";
        let mut libyaml = Libyaml::new(text);
        let mut from_libyaml = Vec::new();
        loop {
            let (event, _) = libyaml.next_event().expect("libyaml reads");
            if event == Event::StreamEnd {
                break;
            }
            from_libyaml.push(event);
        }
        assert_eq!(all_events(text).expect("reads"), from_libyaml);
    }

    #[test]
    fn the_switch_keeps_positions_of_the_text() {
        let text = format!("a: 1\nb:\n  {}\n", nested(400));
        let mut events = Events::new(&text);
        let mut scalar_at = None;
        loop {
            let (event, at) = events.next_event().expect("reads");
            match event {
                Event::StreamEnd => break,
                Event::Scalar(text, ..) if text == "x" => scalar_at = Some(at),
                _ => {}
            }
        }
        assert_eq!(
            scalar_at,
            Some(Position {
                line: 3,
                column: 403
            })
        );
    }

    #[test]
    fn an_error_past_the_switch_names_its_line() {
        let text = format!("a: 1\nb: {}\n", &nested(300)[..600]);
        let e = all_events(&text).expect_err("unclosed");
        assert!(e.position.line >= 2, "{e:?}");
    }
}
