//! Keeping private keys out of what meshchart shows people: error messages, lint findings and
//! diffs of expected against actual output.
//!
//! A value that should have been a port, an enum or a duration may be a key the user passed by
//! mistake (`--set-file proxyInit.iptablesMode=issuer.key`); the message about it must still say
//! where and what went wrong, but never print the key. Every PEM private key block and every
//! base64-encoded one becomes `<masked private key sha256:...>` (the first 12 hex digits of its
//! digest, so two messages about the same key can be matched), wherever it stands in the text:
//! alone on its lines, inside a quoted value, or with its line breaks escaped as `\n`.

use std::borrow::Cow;
use std::fmt::Write as _;

/// How every PEM block begins.
const PEM_BEGIN: &str = "-----BEGIN ";
/// How a PEM private key's label ends (`EC PRIVATE KEY`, `RSA PRIVATE KEY`, `PRIVATE KEY`, ...).
const PRIVATE_KEY_LABEL_END: &str = "PRIVATE KEY-----";
/// How every PEM block ends.
const PEM_END: &str = "-----END ";
/// `-----BEGIN ` in base64, as an encoded PEM starts.
const BASE64_PEM_BEGIN: &str = "LS0tLS1CRUdJTi";
/// What a masked key is shown as, before its digest.
const MASKED: &str = "<masked private key sha256:";

/// `text` with every private key in it masked (see the module's doc). Borrowed when there is
/// none, which is nearly always.
pub fn mask_private_keys(text: &str) -> Cow<'_, str> {
    let no_marker = !text.contains(PEM_BEGIN) && !text.contains(BASE64_PEM_BEGIN);
    if no_marker || next_private_key(text).is_none() {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some((start, end)) = next_private_key(rest) {
        out.push_str(&rest[..start]);
        let _ = write!(
            out,
            "{MASKED}{}>",
            short_digest(&rest.as_bytes()[start..end])
        );
        rest = &rest[end..];
    }
    out.push_str(rest);
    Cow::Owned(out)
}

/// Whether line `line` (1-based) of `text` lies inside a PEM private key block, its first and
/// last lines included: a message quoting that line alone would print part of the key.
pub fn line_is_in_private_key(text: &str, line: usize) -> bool {
    let mut inside = false;
    for (number, content) in text.lines().enumerate() {
        let starts = content.contains(PEM_BEGIN) && content.contains(PRIVATE_KEY_LABEL_END);
        inside |= starts;
        if number + 1 == line {
            return inside;
        }
        if inside && content.contains(PEM_END) {
            inside = false;
        }
    }
    false
}

/// The byte range of the first private key in `text`: a PEM block from `-----BEGIN` to the end
/// of its `-----END ...-----` line (an unterminated one to the end of the text), or a base64
/// run that decodes to one.
fn next_private_key(text: &str) -> Option<(usize, usize)> {
    let pem = next_pem_private_key(text);
    let encoded = base64_private_key_in(text);
    match (pem, encoded) {
        (Some(p), Some(e)) => Some(if p.0 <= e.0 { p } else { e }),
        (p, e) => p.or(e),
    }
}

fn next_pem_private_key(text: &str) -> Option<(usize, usize)> {
    let mut from = 0;
    while let Some(found) = text[from..].find(PEM_BEGIN) {
        let start = from + found;
        let label = &text[start + PEM_BEGIN.len()..];
        // The label runs to the next five dashes, on the same line.
        let label_end = label.find("-----").filter(|&i| !label[..i].contains('\n'));
        match label_end {
            Some(i) if label[..i].ends_with("PRIVATE KEY") => {
                let after_label = start + PEM_BEGIN.len() + i + "-----".len();
                let end = text[after_label..]
                    .find(PEM_END)
                    .and_then(|at| {
                        let closing = after_label + at + PEM_END.len();
                        text[closing..]
                            .find("-----")
                            .map(|dashes| closing + dashes + "-----".len())
                    })
                    .unwrap_or(text.len());
                return Some((start, end));
            }
            _ => from = start + PEM_BEGIN.len(),
        }
    }
    None
}

/// The byte range of the first run of base64 in `text` that decodes to a PEM private key.
pub fn base64_private_key_in(text: &str) -> Option<(usize, usize)> {
    use base64::Engine as _;
    let mut from = 0;
    while let Some(found) = text[from..].find(BASE64_PEM_BEGIN) {
        let start = from + found;
        let length = text[start..]
            .bytes()
            .take_while(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/' | b'='))
            .count();
        let end = start + length;
        let decoded = base64::engine::general_purpose::STANDARD.decode(&text[start..end]);
        let is_key = decoded
            .is_ok_and(|bytes| String::from_utf8_lossy(&bytes).contains(PRIVATE_KEY_LABEL_END));
        if is_key {
            return Some((start, end));
        }
        from = end.max(start + 1);
    }
    None
}

/// The first 12 hex digits of `bytes`' SHA-256: enough to tell two secrets apart in a review,
/// too little to say anything about them.
pub fn short_digest(bytes: &[u8]) -> String {
    crate::digest::sha256(bytes)
        .iter()
        .take(6)
        .map(|b| format!("{b:02x}"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const KEY: &str = "-----BEGIN EC PRIVATE KEY-----\nMHcCAQEEIEfNpjW7Ap6VVgKvE6muIPm2\nAwEHoUQDQgAElaIZhg4Y7uVwo0KA\n-----END EC PRIVATE KEY-----\n";

    #[test]
    fn a_key_quoted_inside_a_message_is_masked_and_the_message_kept() {
        let message = format!("Unsupported value \"{KEY}\" for proxyInit.iptablesMode");
        let masked = mask_private_keys(&message);
        assert!(
            !masked.contains("MHcCAQ") && !masked.contains("AwEHoUQ"),
            "{masked}"
        );
        assert!(masked.starts_with("Unsupported value \"<masked private key sha256:"));
        assert!(
            masked.ends_with(">\n\" for proxyInit.iptablesMode"),
            "{masked}"
        );
    }

    #[test]
    fn a_key_with_escaped_line_breaks_is_masked_whole() {
        let escaped = KEY.replace('\n', "\\n");
        let message = format!("got {escaped:?}");
        let masked = mask_private_keys(&message);
        assert!(
            !masked.contains("MHcCAQ") && !masked.contains("AwEHoUQ"),
            "{masked}"
        );
    }

    #[test]
    fn a_base64_encoded_key_is_masked_and_other_base64_stays() {
        use base64::Engine as _;
        let encoded = base64::engine::general_purpose::STANDARD.encode(KEY);
        let certificate = base64::engine::general_purpose::STANDARD
            .encode("-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n");
        let message = format!("a: {encoded}\nb: {certificate}\n");
        let masked = mask_private_keys(&message);
        assert!(!masked.contains(&encoded), "{masked}");
        assert!(masked.contains(&certificate), "{masked}");
    }

    #[test]
    fn certificates_and_plain_text_are_left_as_they_are() {
        let text = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\nport: 80";
        assert!(matches!(mask_private_keys(text), Cow::Borrowed(_)));
        assert_eq!(mask_private_keys(text), text);
    }

    #[test]
    fn an_unterminated_key_is_masked_to_the_end() {
        let masked = mask_private_keys("value: -----BEGIN PRIVATE KEY-----\nMIGHAgEAMBMG");
        assert!(!masked.contains("MIGHAgEAMBMG"), "{masked}");
    }

    #[test]
    fn the_lines_of_a_key_block_are_known_as_such() {
        let text = format!(
            "a: 1\nkey: |\n  {}\nb: 2\n",
            KEY.trim_end().replace('\n', "\n  ")
        );
        let inside: Vec<usize> = (1..=8)
            .filter(|&l| line_is_in_private_key(&text, l))
            .collect();
        assert_eq!(inside, vec![3, 4, 5, 6], "{text}");
    }
}
