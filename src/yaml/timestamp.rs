//! Which texts go-yaml v2 takes as a `!!timestamp`: a date (`2001-12-14`), optionally with a
//! time (`T`, `t` or a space, then `h:m:s`, a fraction after `.` or `,`), and with `T`/`t` a
//! zone (`Z` or `±hh:mm`). Month, day and time must be in range, as Go's `time.Parse` checks.
//! Decoded into a generic value the text stays a string; an explicit `!!timestamp` on
//! anything else is an error.

/// Whether go-yaml v2 reads `text` as a timestamp.
pub fn is_timestamp(text: &str) -> bool {
    let mut rest = text.as_bytes();
    let Some(year) = fixed_digits(&mut rest, 4) else {
        return false;
    };
    if !literal(&mut rest, b'-') {
        return false;
    }
    let month = short_number(&mut rest);
    if !month.is_some_and(|m| (1..=12).contains(&m)) || !literal(&mut rest, b'-') {
        return false;
    }
    let (Some(month), Some(day)) = (month, short_number(&mut rest)) else {
        return false;
    };
    if day < 1 || day > days_in(month, year) {
        return false;
    }
    let zoned = match rest.first() {
        None => return true,
        Some(b'T' | b't') => true,
        Some(b' ') => false,
        Some(_) => return false,
    };
    rest = &rest[1..];
    if !time_of_day(&mut rest) {
        return false;
    }
    if zoned && !zone(&mut rest) {
        return false;
    }
    rest.is_empty()
}

/// `h:m:s`, each of one or two digits and in range, then an optional fraction.
fn time_of_day(rest: &mut &[u8]) -> bool {
    let in_range = |value: Option<u32>, end: u32| value.is_some_and(|v| v < end);
    if !in_range(short_number(rest), 24) || !literal(rest, b':') {
        return false;
    }
    if !in_range(short_number(rest), 60) || !literal(rest, b':') {
        return false;
    }
    if !in_range(short_number(rest), 60) {
        return false;
    }
    // A separator not followed by a digit is not a fraction, and is left over.
    if rest.len() >= 2 && matches!(rest[0], b'.' | b',') && rest[1].is_ascii_digit() {
        *rest = &rest[1..];
        while rest.first().is_some_and(u8::is_ascii_digit) {
            *rest = &rest[1..];
        }
    }
    true
}

/// `Z`, or a sign, two digits, `:` and two digits.
fn zone(rest: &mut &[u8]) -> bool {
    if literal(rest, b'Z') {
        return true;
    }
    let Some((&sign, after)) = rest.split_first() else {
        return false;
    };
    if !matches!(sign, b'+' | b'-') {
        return false;
    }
    *rest = after;
    let hours = fixed_digits(rest, 2);
    if !literal(rest, b':') {
        return false;
    }
    let minutes = fixed_digits(rest, 2);
    hours.is_some_and(|h| h <= 24) && minutes.is_some_and(|m| m <= 60)
}

/// Exactly `count` digits.
fn fixed_digits(rest: &mut &[u8], count: usize) -> Option<u32> {
    let digits = rest.get(..count)?;
    if !digits.iter().all(u8::is_ascii_digit) {
        return None;
    }
    *rest = &rest[count..];
    Some(digits.iter().fold(0, |n, d| n * 10 + u32::from(d - b'0')))
}

/// One digit, or two when the second is a digit too.
fn short_number(rest: &mut &[u8]) -> Option<u32> {
    let two = rest.len() >= 2 && rest[1].is_ascii_digit();
    fixed_digits(rest, if two { 2 } else { 1 })
}

fn literal(rest: &mut &[u8], byte: u8) -> bool {
    match rest.split_first() {
        Some((&first, after)) if first == byte => {
            *rest = after;
            true
        }
        _ => false,
    }
}

fn days_in(month: u32, year: u32) -> u32 {
    match month {
        2 if year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
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
