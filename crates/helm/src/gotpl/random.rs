//! Sprig's random functions, made deterministic, and `getHostByName`, refused in Go charts.
//!
//! Helm draws `randAlphaNum`, `randInt` and `uuidv4` from the process's random source, so two
//! renders differ. Here they draw from a stream seeded by the render's explicit inputs only:
//! `SOURCE_DATE_EPOCH` (0 when unset), the release name and the chart's name; the same inputs
//! give the same text, call after call in template order (a row of DEVIATIONS.md).

use meshchart_gotemplate::{Arity, Context, FuncError, Templates, Value};
use std::cell::RefCell;
use std::rc::Rc;

/// A stream of bytes from SHA-256 of the seed and a counter.
pub(super) struct Stream {
    seed: Vec<u8>,
    counter: u64,
    block: Vec<u8>,
}

impl Stream {
    /// The stream of `seed`.
    pub(super) fn seeded(seed: Vec<u8>) -> Stream {
        Stream {
            seed,
            counter: 0,
            block: Vec::new(),
        }
    }

    pub(super) fn next_byte(&mut self) -> u8 {
        if self.block.is_empty() {
            let mut input = self.seed.clone();
            input.extend_from_slice(&self.counter.to_be_bytes());
            self.counter += 1;
            self.block = ring::digest::digest(&ring::digest::SHA256, &input)
                .as_ref()
                .to_vec();
        }
        self.block.pop().unwrap_or_default()
    }

    /// A number in `0..bound` without modulo bias.
    fn below(&mut self, bound: u32) -> u32 {
        if bound <= 1 {
            return 0;
        }
        let zone = u32::MAX - (u32::MAX % bound);
        loop {
            let n = u32::from_be_bytes([
                self.next_byte(),
                self.next_byte(),
                self.next_byte(),
                self.next_byte(),
            ]);
            if n < zone {
                return n % bound;
            }
        }
    }

    fn text(&mut self, alphabet: &[u8], length: usize) -> String {
        (0..length)
            .map(|_| char::from(alphabet[self.below(alphabet.len() as u32) as usize]))
            .collect()
    }
}

const LETTERS: &[u8] = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
const DIGITS: &[u8] = b"0123456789";

/// Functions that would reach the network: each fails with this reason when called.
const REFUSED: &[&str] = &["getHostByName"];

fn length_arg(args: &[Value]) -> Result<usize, FuncError> {
    match args.first() {
        Some(Value::Int(i) | Value::Int64(i)) => Ok(usize::try_from(*i).unwrap_or(0).min(1 << 20)),
        Some(Value::Float(f)) if *f >= 0.0 => Ok((*f as usize).min(1 << 20)),
        _ => Err(FuncError::WrongType {
            index: 0,
            expected: "int".into(),
        }),
    }
}

/// Adds the random functions, seeded by `seed`, and the refusals of [`REFUSED`] to `set`.
pub(super) fn register(set: &mut Templates, seed: Vec<u8>) -> Rc<RefCell<Stream>> {
    let stream = Rc::new(RefCell::new(Stream::seeded(seed)));
    let alphabets: [(&str, Vec<u8>); 4] = [
        ("randAlphaNum", [LETTERS, DIGITS].concat()),
        ("randAlpha", LETTERS.to_vec()),
        ("randNumeric", DIGITS.to_vec()),
        ("randAscii", (b' '..=b'~').collect()),
    ];
    for (name, alphabet) in alphabets {
        let stream = stream.clone();
        set.add_function(
            name,
            Arity::Exact(1),
            Rc::new(move |_: &mut Context<'_, '_>, args: &[Value]| {
                let length = length_arg(args)?;
                Ok(Value::from(stream.borrow_mut().text(&alphabet, length)))
            }),
        );
    }
    let for_int = stream.clone();
    set.add_function(
        "randInt",
        Arity::Exact(2),
        Rc::new(move |_: &mut Context<'_, '_>, args: &[Value]| {
            let (Some(low), Some(high)) = (args[0].as_int(), args[1].as_int()) else {
                return Err("randInt takes two integers".into());
            };
            let span = u32::try_from(high.saturating_sub(low)).unwrap_or(0);
            if span == 0 {
                return Err("randInt: the upper bound must be above the lower".into());
            }
            Ok(Value::Int(
                low + i64::from(for_int.borrow_mut().below(span)),
            ))
        }),
    );
    let for_shuffle = stream.clone();
    set.add_function(
        "shuffle",
        Arity::Exact(1),
        Rc::new(move |_: &mut Context<'_, '_>, args: &[Value]| {
            let Some(text) = args[0].as_str() else {
                return Err(FuncError::WrongType {
                    index: 0,
                    expected: "string".into(),
                });
            };
            let mut chars: Vec<char> = text.chars().collect();
            for i in (1..chars.len()).rev() {
                let j = for_shuffle.borrow_mut().below(i as u32 + 1) as usize;
                chars.swap(i, j);
            }
            Ok(Value::from(chars.into_iter().collect::<String>()))
        }),
    );
    let for_uuid = stream.clone();
    set.add_function(
        "uuidv4",
        Arity::Exact(0),
        Rc::new(move |_: &mut Context<'_, '_>, _: &[Value]| {
            let mut bytes = [0u8; 16];
            for b in &mut bytes {
                *b = for_uuid.borrow_mut().next_byte();
            }
            bytes[6] = (bytes[6] & 0x0f) | 0x40;
            bytes[8] = (bytes[8] & 0x3f) | 0x80;
            let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
            Ok(Value::from(format!(
                "{}-{}-{}-{}-{}",
                &hex[..8],
                &hex[8..12],
                &hex[12..16],
                &hex[16..20],
                &hex[20..]
            )))
        }),
    );
    for name in REFUSED {
        set.add_function(
            name,
            Arity::AtLeast(0),
            Rc::new(move |_: &mut Context<'_, '_>, _: &[Value]| {
                Err(FuncError::Message(format!(
                    "{name} is refused in Go charts by meshchart: it would ask the network, and \
                     a render depends only on the chart and its values (pass the value it would \
                     make instead)"
                )))
            }),
        );
    }
    stream
}
