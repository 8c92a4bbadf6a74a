//! Go's `time.ParseInLocation(layout, value, time.Local)`, as Sprig's `toDate` and
//! `mustToDate` call it, with Go's error texts; `time.Local` is UTC (see `go_time`).

use super::go_time::{next_chunk, Chunk, GoTime};
use super::go_time::{LONG_DAYS, LONG_MONTHS};

/// What the value gave so far.
#[derive(Default)]
struct Fields {
    year: i32,
    month: Option<u8>,
    day: Option<u8>,
    hour: u32,
    minute: u32,
    second: u32,
    nanos: u32,
    pm: Option<bool>,
    offset: Option<i32>,
    zone: Option<String>,
    utc: bool,
}

fn quote(text: &str) -> String {
    meshchart_gotemplate::quote(text, false)
}

/// `cannot parse` error of Go's `ParseError`.
fn cannot(layout: &str, value: &str, value_elem: &str, layout_elem: &str) -> String {
    format!(
        "parsing time {} as {}: cannot parse {} as {}",
        quote(value),
        quote(layout),
        quote(value_elem),
        quote(layout_elem)
    )
}

fn out_of_range(value: &str, what: &str) -> String {
    format!("parsing time {}: {what} out of range", quote(value))
}

/// Go's `skip`: the value past the layout's literal `prefix` (a space matching any run).
fn skip<'v>(mut value: &'v str, mut prefix: &str) -> Option<&'v str> {
    while let Some(first) = prefix.chars().next() {
        if first == ' ' {
            if value.as_bytes().first().is_some_and(|b| *b != b' ') {
                return None;
            }
            prefix = prefix.trim_start_matches(' ');
            value = value.trim_start_matches(' ');
            continue;
        }
        value = value.strip_prefix(first)?;
        prefix = &prefix[first.len_utf8()..];
    }
    Some(value)
}

/// Go's `getnum`: one or two digits (exactly two when `fixed`).
fn number(value: &str, fixed: bool) -> Option<(u32, &str)> {
    let bytes = value.as_bytes();
    let first = *bytes.first().filter(|b| b.is_ascii_digit())?;
    match bytes.get(1) {
        Some(second) if second.is_ascii_digit() => Some((
            u32::from(first - b'0') * 10 + u32::from(second - b'0'),
            &value[2..],
        )),
        _ if fixed => None,
        _ => Some((u32::from(first - b'0'), &value[1..])),
    }
}

fn digits(value: &str, count: usize) -> Option<(u32, &str)> {
    let text = value.get(..count)?;
    if !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some((text.parse().ok()?, &value[count..]))
}

/// Nanoseconds from a separator and digits (`.123`), and the rest.
fn fraction(value: &str, length: usize) -> Option<(u32, &str)> {
    let text = value.get(1..length)?;
    if !text.bytes().all(|b| b.is_ascii_digit()) || text.is_empty() {
        return None;
    }
    let mut padded: String = text.chars().take(9).collect();
    while padded.len() < 9 {
        padded.push('0');
    }
    Some((padded.parse().ok()?, &value[length..]))
}

fn is_separator_then_digit(value: &str) -> bool {
    let bytes = value.as_bytes();
    bytes.len() >= 2 && matches!(bytes[0], b'.' | b',') && bytes[1].is_ascii_digit()
}

/// Go's `parseTimeZone` for the abbreviations it takes: three upper-case letters, or four or
/// five ending in `T`.
fn zone_length(value: &str) -> Option<usize> {
    let upper = value.bytes().take_while(u8::is_ascii_uppercase).count();
    match upper {
        3 => Some(3),
        4 | 5 if value.as_bytes()[upper - 1] == b'T' => Some(upper),
        _ => None,
    }
}

/// A numeric offset (`-0700`, `-07:00`, `-07`, `-070000`, `-07:00:00`) and the rest.
fn offset(value: &str, colon: bool, short: bool, seconds: bool) -> Option<(i32, &str)> {
    let sign = match value.as_bytes().first()? {
        b'+' => 1,
        b'-' => -1,
        _ => return None,
    };
    let (hours, mut rest) = digits(&value[1..], 2)?;
    let mut minutes = 0;
    let mut secs = 0;
    if !short {
        if colon {
            rest = rest.strip_prefix(':')?;
        }
        (minutes, rest) = digits(rest, 2)?;
    }
    if seconds {
        if colon {
            rest = rest.strip_prefix(':')?;
        }
        (secs, rest) = digits(rest, 2)?;
    }
    let total = (hours * 3600 + minutes * 60 + secs) as i32;
    Some((sign * total, rest))
}

fn month_by_name(value: &str, long: bool) -> Option<(u8, usize)> {
    LONG_MONTHS.iter().enumerate().find_map(|(index, name)| {
        let name = if long { name } else { &name[..3] };
        let given = value.get(..name.len())?;
        given
            .eq_ignore_ascii_case(name)
            .then_some((index as u8 + 1, name.len()))
    })
}

fn weekday_length(value: &str, long: bool) -> Option<usize> {
    LONG_DAYS.iter().find_map(|name| {
        let name = if long { name } else { &name[..3] };
        let given = value.get(..name.len())?;
        given.eq_ignore_ascii_case(name).then_some(name.len())
    })
}

/// Go's `time.ParseInLocation(layout, text, time.Local)`, `time.Local` being UTC.
pub(super) fn parse(layout: &str, text: &str) -> Result<GoTime, String> {
    let mut fields = Fields::default();
    let mut rest_layout = layout;
    let mut value = text;
    let mut range_error: Option<&str> = None;
    loop {
        let (prefix, chunk, after) = next_chunk(rest_layout);
        let element = &rest_layout[prefix.len()..rest_layout.len() - after.len()];
        value = skip(value, prefix).ok_or_else(|| cannot(layout, text, value, prefix))?;
        let Some(chunk) = chunk else {
            if !value.is_empty() {
                return Err(format!(
                    "parsing time {}: extra text: {}",
                    quote(text),
                    quote(value)
                ));
            }
            break;
        };
        rest_layout = after;
        let bad = || cannot(layout, text, value, element);
        value = match chunk {
            Chunk::Year => {
                let (year, rest) = digits(value, 2).ok_or_else(bad)?;
                fields.year = year as i32 + if year >= 69 { 1900 } else { 2000 };
                rest
            }
            Chunk::LongYear => {
                let (year, rest) = digits(value, 4).ok_or_else(bad)?;
                fields.year = year as i32;
                rest
            }
            Chunk::Month | Chunk::LongMonth => {
                let (month, length) =
                    month_by_name(value, chunk == Chunk::LongMonth).ok_or_else(bad)?;
                fields.month = Some(month);
                &value[length..]
            }
            Chunk::NumMonth | Chunk::ZeroMonth => {
                let (month, rest) = number(value, chunk == Chunk::ZeroMonth).ok_or_else(bad)?;
                if !(1..=12).contains(&month) {
                    range_error.get_or_insert("month");
                }
                fields.month = Some(month as u8);
                rest
            }
            Chunk::WeekDay | Chunk::LongWeekDay => {
                let length = weekday_length(value, chunk == Chunk::LongWeekDay).ok_or_else(bad)?;
                &value[length..]
            }
            Chunk::Day | Chunk::UnderDay | Chunk::ZeroDay => {
                let value = if chunk == Chunk::UnderDay {
                    value.strip_prefix(' ').unwrap_or(value)
                } else {
                    value
                };
                let (day, rest) = number(value, chunk == Chunk::ZeroDay).ok_or_else(bad)?;
                fields.day = Some(day.min(255) as u8);
                rest
            }
            Chunk::UnderYearDay | Chunk::ZeroYearDay => {
                let trimmed = value.trim_start_matches(' ');
                let (_, rest) = digits(trimmed, 3)
                    .or_else(|| number(trimmed, false))
                    .ok_or_else(bad)?;
                rest
            }
            Chunk::Hour | Chunk::Hour12 | Chunk::ZeroHour12 => {
                let (hour, rest) = number(value, chunk == Chunk::ZeroHour12).ok_or_else(bad)?;
                let limit = if chunk == Chunk::Hour { 23 } else { 12 };
                if hour > limit {
                    range_error.get_or_insert("hour");
                }
                fields.hour = hour;
                rest
            }
            Chunk::Minute | Chunk::ZeroMinute => {
                let (minute, rest) = number(value, chunk == Chunk::ZeroMinute).ok_or_else(bad)?;
                if minute > 59 {
                    range_error.get_or_insert("minute");
                }
                fields.minute = minute;
                rest
            }
            Chunk::Second | Chunk::ZeroSecond => {
                let (second, mut rest) =
                    number(value, chunk == Chunk::ZeroSecond).ok_or_else(bad)?;
                if second > 59 {
                    range_error.get_or_insert("second");
                }
                fields.second = second;
                // A fraction the layout does not spell out is read anyway.
                let next_is_fraction =
                    matches!(next_chunk(rest_layout).1, Some(Chunk::Fraction { .. }));
                if is_separator_then_digit(rest) && !next_is_fraction {
                    let length = 1 + rest[1..].bytes().take_while(u8::is_ascii_digit).count();
                    let (nanos, after) = fraction(rest, length).ok_or_else(bad)?;
                    fields.nanos = nanos;
                    rest = after;
                }
                rest
            }
            Chunk::Pm | Chunk::LowerPm => {
                let given = value.get(..2).ok_or_else(bad)?;
                let (pm, am) = if chunk == Chunk::Pm {
                    ("PM", "AM")
                } else {
                    ("pm", "am")
                };
                fields.pm = match given {
                    g if g == pm => Some(true),
                    g if g == am => Some(false),
                    _ => return Err(bad()),
                };
                &value[2..]
            }
            Chunk::Offset {
                z,
                colon,
                short,
                seconds,
            } => {
                if z && value.starts_with('Z') {
                    fields.utc = true;
                    &value[1..]
                } else {
                    let (seconds, rest) = offset(value, colon, short, seconds).ok_or_else(bad)?;
                    fields.offset = Some(seconds);
                    rest
                }
            }
            Chunk::Zone => {
                if let Some(rest) = value.strip_prefix("UTC") {
                    fields.utc = true;
                    rest
                } else {
                    let length = zone_length(value).ok_or_else(bad)?;
                    fields.zone = Some(value[..length].to_owned());
                    &value[length..]
                }
            }
            Chunk::Fraction { digits, trim, .. } => {
                if trim {
                    if is_separator_then_digit(value) {
                        let length = 1 + value[1..].bytes().take_while(u8::is_ascii_digit).count();
                        let (nanos, rest) = fraction(value, length).ok_or_else(bad)?;
                        fields.nanos = nanos;
                        rest
                    } else {
                        value
                    }
                } else {
                    let (nanos, rest) = fraction(value, 1 + usize::from(digits)).ok_or_else(bad)?;
                    fields.nanos = nanos;
                    rest
                }
            }
        };
    }
    if let Some(what) = range_error {
        return Err(out_of_range(text, what));
    }
    match fields.pm {
        Some(true) if fields.hour < 12 => fields.hour += 12,
        Some(false) if fields.hour == 12 => fields.hour = 0,
        _ => {}
    }
    let month = fields.month.unwrap_or(1);
    let day = fields.day.unwrap_or(1);
    let month_kind = time::Month::try_from(month).map_err(|_| out_of_range(text, "month"))?;
    let date = time::Date::from_calendar_date(fields.year, month_kind, day)
        .map_err(|_| out_of_range(text, "day"))?;
    let clock = time::Time::from_hms_nano(
        fields.hour as u8,
        fields.minute as u8,
        fields.second as u8,
        fields.nanos,
    )
    .map_err(|_| out_of_range(text, "hour"))?;
    let wall = time::PrimitiveDateTime::new(date, clock)
        .assume_utc()
        .unix_timestamp();
    let (unix, offset, zone) = if fields.utc {
        (wall, 0, "UTC".to_owned())
    } else if let Some(offset) = fields.offset {
        // An offset of zero is time.Local's (UTC); any other is a fixed zone without a name.
        let zone = if offset == 0 { "UTC" } else { "" };
        (wall - i64::from(offset), offset, zone.to_owned())
    } else if let Some(zone) = fields.zone {
        (wall, 0, zone)
    } else {
        (wall, 0, "UTC".to_owned())
    };
    Ok(GoTime {
        unix,
        nanos: fields.nanos,
        offset,
        zone,
    })
}

#[cfg(test)]
mod tests {
    use super::parse;

    #[test]
    fn parses_a_date_in_go_layout() {
        let t = parse("2006-01-02", "2024-02-29").expect("a date");
        assert_eq!(t.string(), "2024-02-29 00:00:00 +0000 UTC");
    }

    #[test]
    fn parses_offsets_fractions_and_twelve_hour_clocks() {
        let t = parse("2006-01-02T15:04:05Z07:00", "2024-01-02T03:04:05.5-07:00").expect("ok");
        assert_eq!(t.string(), "2024-01-02 03:04:05.5 -0700 -0700");
        assert_eq!(t.unix, 1_704_189_845);
        let t = parse("Jan 2 3:04PM", "Mar 9 1:05PM").expect("ok");
        assert_eq!(t.string(), "0000-03-09 13:05:00 +0000 UTC");
    }

    #[test]
    fn refuses_text_in_go_words() {
        assert_eq!(
            parse("2006-01-02", "24-01-02").expect_err("bad year"),
            "parsing time \"24-01-02\" as \"2006-01-02\": cannot parse \"24-01-02\" as \"2006\""
        );
        assert_eq!(
            parse("2006-01-02", "2024-13-02").expect_err("bad month"),
            "parsing time \"2024-13-02\": month out of range"
        );
        assert_eq!(
            parse("2006-01-02", "2023-02-29").expect_err("bad day"),
            "parsing time \"2023-02-29\": day out of range"
        );
        assert_eq!(
            parse("2006", "2024x").expect_err("extra"),
            "parsing time \"2024x\": extra text: \"x\""
        );
    }
}
