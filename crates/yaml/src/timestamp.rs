//! Which texts go-yaml v2 takes as a timestamp. The writer double-quotes them (read back plain
//! they would not be strings for every reader); the reader keeps them as text, as go-yaml does
//! for a generic value, and an explicit `!!timestamp` on any other text is an error.

/// go-yaml v2's timestamp test: text starting `YYYY-` that Go's `time.Parse` accepts with one of
/// `2006-1-2T15:4:5.999999999Z07:00`, the same with a lower-case `t`, `2006-1-2 15:4:5.999999999`
/// or `2006-1-2`.
pub(crate) fn is_timestamp(s: &str) -> bool {
    let b = s.as_bytes();
    if b.len() < 5 || !b[..4].iter().all(u8::is_ascii_digit) || b[4] != b'-' {
        return false;
    }
    let year = b[..4]
        .iter()
        .fold(0u32, |n, &c| n * 10 + u32::from(c - b'0'));
    let mut rest = &b[5..];
    let Some(month) = go_getnum(&mut rest) else {
        return false;
    };
    if !(1..=12).contains(&month) || !skip_literal(&mut rest, b'-') {
        return false;
    }
    let Some(day) = go_getnum(&mut rest) else {
        return false;
    };
    if day < 1 || day > days_in_month(month, year) {
        return false;
    }
    if rest.is_empty() {
        return true; // 2006-1-2
    }
    match rest[0] {
        b'T' | b't' => {
            rest = &rest[1..];
            clock(&mut rest) && zone(&mut rest) && rest.is_empty()
        }
        b' ' => {
            // A space in a Go layout matches one or more spaces.
            while rest.first() == Some(&b' ') {
                rest = &rest[1..];
            }
            clock(&mut rest) && rest.is_empty()
        }
        _ => false,
    }
}

/// `15:4:5.999999999`: hour, minute and second of one or two digits, then an optional fraction
/// (`.` or `,` and any number of digits).
fn clock(rest: &mut &[u8]) -> bool {
    let Some(hour) = go_getnum(rest) else {
        return false;
    };
    if hour >= 24 || !skip_literal(rest, b':') {
        return false;
    }
    let Some(minute) = go_getnum(rest) else {
        return false;
    };
    if minute >= 60 || !skip_literal(rest, b':') {
        return false;
    }
    let Some(second) = go_getnum(rest) else {
        return false;
    };
    if second >= 60 {
        return false;
    }
    if rest.len() >= 2 && matches!(rest[0], b'.' | b',') && rest[1].is_ascii_digit() {
        let digits = count_digits(&rest[1..]);
        *rest = &rest[1 + digits..];
    }
    true
}

/// `Z07:00`: `Z`, or a sign and `hh:mm` with two digits each.
fn zone(rest: &mut &[u8]) -> bool {
    if rest.first() == Some(&b'Z') {
        *rest = &rest[1..];
        return true;
    }
    let r = *rest;
    if r.len() < 6 || r[3] != b':' || !matches!(r[0], b'+' | b'-') {
        return false;
    }
    if ![r[1], r[2], r[4], r[5]].iter().all(u8::is_ascii_digit) {
        return false;
    }
    let hours = (r[1] - b'0') * 10 + (r[2] - b'0');
    let minutes = (r[4] - b'0') * 10 + (r[5] - b'0');
    if hours > 24 || minutes > 60 {
        return false;
    }
    *rest = &r[6..];
    true
}

/// Go's `getnum(value, false)`: one or two digits.
fn go_getnum(rest: &mut &[u8]) -> Option<u32> {
    let r = *rest;
    let first = *r.first().filter(|c| c.is_ascii_digit())?;
    let mut n = u32::from(first - b'0');
    let mut used = 1;
    if let Some(&second) = r.get(1).filter(|c| c.is_ascii_digit()) {
        n = n * 10 + u32::from(second - b'0');
        used = 2;
    }
    *rest = &r[used..];
    Some(n)
}

fn skip_literal(rest: &mut &[u8], c: u8) -> bool {
    if rest.first() == Some(&c) {
        *rest = &rest[1..];
        true
    } else {
        false
    }
}

fn days_in_month(month: u32, year: u32) -> u32 {
    match month {
        2 if year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

fn count_digits(b: &[u8]) -> usize {
    b.iter().take_while(|c| c.is_ascii_digit()).count()
}

#[cfg(test)]
mod tests {
    use super::is_timestamp;

    #[test]
    fn dates_and_times_go_yaml_reads_as_timestamps() {
        for text in [
            "2001-12-14",
            "2001-1-2",
            "2000-02-29",
            "2001-12-14T21:59:43.10Z",
            "2001-12-14t21:59:43-05:00",
            "2001-12-14 21:59:43.10",
            "2001-12-14T1:2:3Z",
            "2001-12-14 21:59:43,5",
            // A space in a Go layout matches one or more.
            "2001-12-14   21:59:43",
        ] {
            assert!(is_timestamp(text), "{text}");
        }
    }

    #[test]
    fn other_texts_are_not_timestamps() {
        for text in [
            "",
            "abc",
            "12",
            "01-12-14",
            "2001-13-01",
            "2001-02-29",
            "1900-02-29",
            "2001-12-14T21:59:43",
            "2001-12-14 21:59:43Z",
            "2001-12-14T24:00:00Z",
            "2001-12-14T21:60:00Z",
            "2001-12-14T21:59:43.Z",
            "2001-12-14 ",
            "2001-12-14T21:59:43+5:00",
            "2001-012-14",
        ] {
            assert!(!is_timestamp(text), "{text}");
        }
    }
}
