//! Unit tests for the fast path's plain-scalar check, kept apart so the scanner reads on its own.

use super::characters_are_plain;

/// The check as first written, one byte at a time: the block-wise one must agree.
fn plain_byte_by_byte(text: &str) -> bool {
    let unusual = text
        .bytes()
        .filter(|&b| !(0x20..0x7f).contains(&b) && b != b'\n')
        .count();
    if unusual == 0 {
        return true;
    }
    text.bytes().all(|b| b >= 0x20 || b == b'\n')
        && (text.is_ascii()
            || text.chars().all(|c| {
                !matches!(
                    c,
                    '\u{7f}'
                        ..='\u{9f}'
                            | '\u{2028}'
                            | '\u{2029}'
                            | '\u{feff}'
                            | '\u{fffe}'
                            | '\u{ffff}'
                )
            }))
}

#[test]
fn every_character_at_every_offset_of_a_block_is_judged_as_defined() {
    let base = "kind: ConfigMap\nmetadata:\n  name: x\n".repeat(5);
    let samples = (0u32..0x100)
        .chain([0x2028, 0x2029, 0xfeff, 0xfffe, 0xffff, 0x1f600])
        .filter_map(char::from_u32);
    for c in samples {
        for at in [0, 1, 31, 32, 33, 63, 64, 65, base.len() - 1, base.len()] {
            let mut text = base.clone();
            text.insert(at, c);
            assert_eq!(
                characters_are_plain(&text),
                plain_byte_by_byte(&text),
                "{c:?} at {at}"
            );
        }
    }
}
