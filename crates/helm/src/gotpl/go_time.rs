//! Go's `time.Time` and `time.Duration` as Sprig's clock functions use them: formatting and
//! parsing with Go's reference-time layouts (`2006-01-02 15:04:05`), `time.ParseDuration`
//! and `Duration.String`.
//!
//! Go's `time.Local` is taken to be UTC (the zone of a container without `TZ`), and a named
//! zone other than UTC reads as UTC, as Go falls back when it cannot load the zone: a render
//! depends on its inputs, not on the machine's zone database (a row of DEVIATIONS.md).

use std::fmt::Write as _;

/// Seconds from 0001-01-01T00:00:00Z (Go's zero time) to 1970-01-01T00:00:00Z.
pub(super) const ZERO_TIME_UNIX: i64 = -62_135_596_800;

const NANOS_PER_SECOND: i64 = 1_000_000_000;

/// Go's month names (the short forms are their first three letters).
pub(super) const LONG_MONTHS: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];
/// Go's weekday names, Sunday first (the short forms are their first three letters).
pub(super) const LONG_DAYS: [&str; 7] = [
    "Sunday",
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
];

/// An instant with the zone it is shown in, as Go's `time.Time` (without a monotonic reading).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct GoTime {
    /// Seconds since 1970-01-01T00:00:00Z.
    pub unix: i64,
    /// Nanoseconds past `unix`, below one second.
    pub nanos: u32,
    /// The zone's offset east of UTC, in seconds.
    pub offset: i32,
    /// The zone's abbreviation (`UTC`, or `""` for a fixed offset parsed from text).
    pub zone: String,
}

/// A Go time's civil fields in its zone.
struct Civil {
    year: i32,
    month: u8,
    day: u8,
    hour: u8,
    minute: u8,
    second: u8,
    /// 0 = Sunday.
    weekday: u8,
    year_day: u16,
}

impl GoTime {
    /// The instant `unix` seconds after 1970 in UTC.
    pub(super) fn utc(unix: i64, nanos: u32) -> GoTime {
        GoTime {
            unix,
            nanos,
            offset: 0,
            zone: "UTC".into(),
        }
    }

    /// Go's zero `time.Time`: 0001-01-01 00:00:00 UTC.
    pub(super) fn zero() -> GoTime {
        GoTime::utc(ZERO_TIME_UNIX, 0)
    }

    /// Nanoseconds since 1970 (wide enough for every year Go prints).
    pub(super) fn unix_nanos(&self) -> i128 {
        i128::from(self.unix) * i128::from(NANOS_PER_SECOND) + i128::from(self.nanos)
    }

    /// The instant `nanos` nanoseconds later, in the same zone.
    pub(super) fn add_nanos(&self, nanos: i64) -> GoTime {
        let total = self.unix_nanos() + i128::from(nanos);
        let unix = total.div_euclid(i128::from(NANOS_PER_SECOND));
        GoTime {
            unix: i64::try_from(unix).unwrap_or(i64::MAX),
            nanos: total.rem_euclid(i128::from(NANOS_PER_SECOND)) as u32,
            offset: self.offset,
            zone: self.zone.clone(),
        }
    }

    fn civil(&self) -> Option<Civil> {
        let offset = time::UtcOffset::from_whole_seconds(self.offset).ok()?;
        let at = time::OffsetDateTime::from_unix_timestamp(self.unix)
            .ok()?
            .to_offset(offset);
        Some(Civil {
            year: at.year(),
            month: at.month() as u8,
            day: at.day(),
            hour: at.hour(),
            minute: at.minute(),
            second: at.second(),
            weekday: at.weekday().number_days_from_sunday(),
            year_day: at.ordinal(),
        })
    }

    /// Go's `Time.Format(layout)`.
    pub(super) fn format(&self, layout: &str) -> String {
        let Some(civil) = self.civil() else {
            return format!("time {} is out of the years meshchart prints", self.unix);
        };
        let mut out = String::with_capacity(layout.len() + 8);
        let mut rest = layout;
        while !rest.is_empty() {
            let (prefix, chunk, after) = next_chunk(rest);
            out.push_str(prefix);
            if let Some(chunk) = chunk {
                self.write_chunk(&mut out, chunk, &civil);
            }
            rest = after;
        }
        out
    }

    fn write_chunk(&self, out: &mut String, chunk: Chunk, c: &Civil) {
        let hour12 = match c.hour % 12 {
            0 => 12,
            h => h,
        };
        let _ = match chunk {
            Chunk::Year => write!(out, "{:02}", c.year.rem_euclid(100)),
            Chunk::LongYear => write!(out, "{:04}", c.year),
            Chunk::Month => write!(out, "{}", &LONG_MONTHS[usize::from(c.month) - 1][..3]),
            Chunk::LongMonth => write!(out, "{}", LONG_MONTHS[usize::from(c.month) - 1]),
            Chunk::NumMonth => write!(out, "{}", c.month),
            Chunk::ZeroMonth => write!(out, "{:02}", c.month),
            Chunk::WeekDay => write!(out, "{}", &LONG_DAYS[usize::from(c.weekday)][..3]),
            Chunk::LongWeekDay => write!(out, "{}", LONG_DAYS[usize::from(c.weekday)]),
            Chunk::Day => write!(out, "{}", c.day),
            Chunk::UnderDay => write!(out, "{:>2}", c.day),
            Chunk::ZeroDay => write!(out, "{:02}", c.day),
            Chunk::UnderYearDay => write!(out, "{:>3}", c.year_day),
            Chunk::ZeroYearDay => write!(out, "{:03}", c.year_day),
            Chunk::Hour => write!(out, "{:02}", c.hour),
            Chunk::Hour12 => write!(out, "{hour12}"),
            Chunk::ZeroHour12 => write!(out, "{hour12:02}"),
            Chunk::Minute => write!(out, "{}", c.minute),
            Chunk::ZeroMinute => write!(out, "{:02}", c.minute),
            Chunk::Second => write!(out, "{}", c.second),
            Chunk::ZeroSecond => write!(out, "{:02}", c.second),
            Chunk::Pm => write!(out, "{}", if c.hour >= 12 { "PM" } else { "AM" }),
            Chunk::LowerPm => write!(out, "{}", if c.hour >= 12 { "pm" } else { "am" }),
            Chunk::Zone => {
                if self.zone.is_empty() {
                    write_offset(out, self.offset, false, false, false);
                } else {
                    out.push_str(&self.zone);
                }
                Ok(())
            }
            Chunk::Offset {
                z,
                colon,
                short,
                seconds,
            } => {
                if z && self.offset == 0 {
                    out.push('Z');
                } else {
                    write_offset(out, self.offset, colon, short, seconds);
                }
                Ok(())
            }
            Chunk::Fraction {
                separator,
                digits,
                trim,
            } => {
                let all = format!("{:09}", self.nanos);
                let mut kept = &all[..usize::from(digits).min(9)];
                if trim {
                    kept = kept.trim_end_matches('0');
                }
                if !kept.is_empty() {
                    out.push(separator);
                    out.push_str(kept);
                }
                Ok(())
            }
        };
    }

    /// Go's `Time.String()` (`2006-01-02 15:04:05.999999999 -0700 MST`).
    pub(super) fn string(&self) -> String {
        self.format("2006-01-02 15:04:05.999999999 -0700 MST")
    }
}

fn write_offset(out: &mut String, offset: i32, colon: bool, short: bool, seconds: bool) {
    let sign = if offset < 0 { '-' } else { '+' };
    let absolute = offset.unsigned_abs();
    let _ = write!(out, "{sign}{:02}", absolute / 3600);
    if !short {
        if colon {
            out.push(':');
        }
        let _ = write!(out, "{:02}", absolute / 60 % 60);
    }
    if seconds {
        if colon {
            out.push(':');
        }
        let _ = write!(out, "{:02}", absolute % 60);
    }
}

/// One element of a Go layout.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Chunk {
    Year,
    LongYear,
    Month,
    LongMonth,
    NumMonth,
    ZeroMonth,
    WeekDay,
    LongWeekDay,
    Day,
    UnderDay,
    ZeroDay,
    UnderYearDay,
    ZeroYearDay,
    Hour,
    Hour12,
    ZeroHour12,
    Minute,
    ZeroMinute,
    Second,
    ZeroSecond,
    Pm,
    LowerPm,
    Zone,
    Offset {
        z: bool,
        colon: bool,
        short: bool,
        seconds: bool,
    },
    Fraction {
        separator: char,
        digits: u8,
        trim: bool,
    },
}

/// The layout's next element, as Go's `nextStdChunk` finds it: the literal text before it,
/// the element (none at the end), and the layout after it.
pub(super) fn next_chunk(layout: &str) -> (&str, Option<Chunk>, &str) {
    let bytes = layout.as_bytes();
    let starts = |at: usize, text: &str| layout[at..].starts_with(text);
    for i in 0..bytes.len() {
        let found: Option<(Chunk, usize)> = match bytes[i] {
            b'J' if starts(i, "January") => Some((Chunk::LongMonth, 7)),
            b'J' if starts(i, "Jan") => Some((Chunk::Month, 3)),
            b'M' if starts(i, "Monday") => Some((Chunk::LongWeekDay, 6)),
            b'M' if starts(i, "Mon") => Some((Chunk::WeekDay, 3)),
            b'M' if starts(i, "MST") => Some((Chunk::Zone, 3)),
            b'0' if starts(i, "002") => Some((Chunk::ZeroYearDay, 3)),
            b'0' => match bytes.get(i + 1) {
                Some(b'1') => Some((Chunk::ZeroMonth, 2)),
                Some(b'2') => Some((Chunk::ZeroDay, 2)),
                Some(b'3') => Some((Chunk::ZeroHour12, 2)),
                Some(b'4') => Some((Chunk::ZeroMinute, 2)),
                Some(b'5') => Some((Chunk::ZeroSecond, 2)),
                Some(b'6') => Some((Chunk::Year, 2)),
                _ => None,
            },
            b'1' if starts(i, "15") => Some((Chunk::Hour, 2)),
            b'1' => Some((Chunk::NumMonth, 1)),
            b'2' if starts(i, "2006") => Some((Chunk::LongYear, 4)),
            b'2' => Some((Chunk::Day, 1)),
            // `_2006` is a literal underscore, then the year.
            b'_' if starts(i, "_2006") => {
                return (&layout[..i + 1], Some(Chunk::LongYear), &layout[i + 5..])
            }
            b'_' if starts(i, "__2") => Some((Chunk::UnderYearDay, 3)),
            b'_' if starts(i, "_2") => Some((Chunk::UnderDay, 2)),
            b'3' => Some((Chunk::Hour12, 1)),
            b'4' => Some((Chunk::Minute, 1)),
            b'5' => Some((Chunk::Second, 1)),
            b'P' if starts(i, "PM") => Some((Chunk::Pm, 2)),
            b'p' if starts(i, "pm") => Some((Chunk::LowerPm, 2)),
            b'-' | b'Z' => offset_chunk(&layout[i..]),
            b'.' | b',' => fraction_chunk(&layout[i..]),
            _ => None,
        };
        if let Some((chunk, length)) = found {
            return (&layout[..i], Some(chunk), &layout[i + length..]);
        }
    }
    (layout, None, "")
}

fn offset_chunk(text: &str) -> Option<(Chunk, usize)> {
    let z = text.starts_with('Z');
    let body = &text[1..];
    let forms: [(&str, bool, bool, bool); 5] = [
        ("070000", false, false, true),
        ("07:00:00", true, false, true),
        ("0700", false, false, false),
        ("07:00", true, false, false),
        ("07", false, true, false),
    ];
    forms.iter().find_map(|(form, colon, short, seconds)| {
        body.starts_with(form).then_some((
            Chunk::Offset {
                z,
                colon: *colon,
                short: *short,
                seconds: *seconds,
            },
            form.len() + 1,
        ))
    })
}

fn fraction_chunk(text: &str) -> Option<(Chunk, usize)> {
    let bytes = text.as_bytes();
    let digit = *bytes.get(1)?;
    if digit != b'0' && digit != b'9' {
        return None;
    }
    let run = bytes[1..].iter().take_while(|b| **b == digit).count();
    // `.000` followed by another digit is not a fraction (Go's `isDigit` check).
    if bytes.get(1 + run).is_some_and(u8::is_ascii_digit) {
        return None;
    }
    Some((
        Chunk::Fraction {
            separator: char::from(bytes[0]),
            digits: run.min(9) as u8,
            trim: digit == b'9',
        },
        1 + run,
    ))
}

/// Go's `time.ParseDuration`: nanoseconds, or Go's error text.
pub(super) fn parse_duration(text: &str) -> Result<i64, String> {
    let invalid = || format!("time: invalid duration {}", quote(text));
    let (negative, mut rest) = match text.as_bytes().first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text),
    };
    if rest == "0" {
        return Ok(0);
    }
    if rest.is_empty() {
        return Err(invalid());
    }
    let mut total: u128 = 0;
    while !rest.is_empty() {
        let whole_end = rest
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(rest.len());
        let whole = &rest[..whole_end];
        rest = &rest[whole_end..];
        let mut fraction = "";
        if let Some(after_dot) = rest.strip_prefix('.') {
            let end = after_dot
                .find(|c: char| !c.is_ascii_digit())
                .unwrap_or(after_dot.len());
            fraction = &after_dot[..end];
            rest = &after_dot[end..];
        }
        if whole.is_empty() && fraction.is_empty() {
            return Err(invalid());
        }
        let unit_end = rest
            .find(|c: char| c == '.' || c.is_ascii_digit())
            .unwrap_or(rest.len());
        let unit = &rest[..unit_end];
        rest = &rest[unit_end..];
        let scale: u128 = match unit {
            "" => return Err(format!("time: missing unit in duration {}", quote(text))),
            "ns" => 1,
            "us" | "µs" | "μs" => 1_000,
            "ms" => 1_000_000,
            "s" => 1_000_000_000,
            "m" => 60_000_000_000,
            "h" => 3_600_000_000_000,
            _ => {
                return Err(format!(
                    "time: unknown unit {} in duration {}",
                    quote(unit),
                    quote(text)
                ))
            }
        };
        let whole: u128 = if whole.is_empty() {
            0
        } else {
            whole.parse().map_err(|_| invalid())?
        };
        let mut value = whole.checked_mul(scale).ok_or_else(invalid)?;
        let mut place = scale;
        for digit in fraction.bytes() {
            place /= 10;
            value += u128::from(digit - b'0') * place;
        }
        total = total.checked_add(value).ok_or_else(invalid)?;
        if total > i64::MAX as u128 + u128::from(negative) {
            return Err(invalid());
        }
    }
    let total = total as i128;
    Ok((if negative { -total } else { total }) as i64)
}

/// Go's `strconv.Quote` of plain text, as `time`'s errors quote.
fn quote(text: &str) -> String {
    meshchart_gotemplate::quote(text, false)
}

/// Go's `Duration.String()`: `1h2m3.5s`, `1.5ms`, `0s`.
pub(super) fn duration_string(nanos: i64) -> String {
    if nanos == 0 {
        return "0s".into();
    }
    let sign = if nanos < 0 { "-" } else { "" };
    let u = nanos.unsigned_abs();
    if u < 1_000_000_000 {
        let (unit, scale) = match u {
            0..=999 => ("ns", 1),
            1_000..=999_999 => ("µs", 1_000),
            _ => ("ms", 1_000_000),
        };
        return format!("{sign}{}{unit}", decimal(u, scale));
    }
    let seconds = decimal(u % 60_000_000_000, 1_000_000_000);
    let minutes = u / 60_000_000_000;
    let mut out = String::from(sign);
    if minutes >= 60 {
        let _ = write!(out, "{}h{}m", minutes / 60, minutes % 60);
    } else if minutes > 0 {
        let _ = write!(out, "{minutes}m");
    }
    let _ = write!(out, "{seconds}s");
    out
}

/// `value / scale` in decimal, trailing zeros of the fraction dropped.
fn decimal(value: u64, scale: u64) -> String {
    let whole = value / scale;
    let fraction = value % scale;
    if fraction == 0 {
        return whole.to_string();
    }
    let width = scale.ilog10() as usize;
    let digits = format!("{fraction:0width$}");
    format!("{whole}.{}", digits.trim_end_matches('0'))
}

/// Go's `Duration.Round(time.Second)`: halves away from zero.
pub(super) fn round_to_second(nanos: i64) -> i64 {
    let second = NANOS_PER_SECOND;
    let remainder = nanos % second;
    let down = nanos - remainder;
    if remainder.abs() * 2 >= second {
        down.saturating_add(if nanos < 0 { -second } else { second })
    } else {
        down
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(unix: i64, nanos: u32) -> GoTime {
        GoTime::utc(unix, nanos)
    }

    #[test]
    fn formats_go_reference_layouts() {
        let t = at(1_700_000_000, 120_000_000);
        assert_eq!(
            t.format("2006-01-02T15:04:05Z07:00"),
            "2023-11-14T22:13:20Z"
        );
        assert_eq!(
            t.format("Monday, 02-Jan-06 3:04:05.000 PM MST"),
            "Tuesday, 14-Nov-23 10:13:20.120 PM UTC"
        );
        assert_eq!(t.format("Jan _2 002 .999999"), "Nov 14 318 .12");
        assert_eq!(t.string(), "2023-11-14 22:13:20.12 +0000 UTC");
    }

    #[test]
    fn formats_offsets_with_and_without_colons() {
        let t = GoTime {
            unix: 0,
            nanos: 0,
            offset: -(5 * 3600 + 30 * 60),
            zone: String::new(),
        };
        assert_eq!(
            t.format("-0700 -07:00 -07 Z07:00 MST"),
            "-0530 -05:30 -05 -05:30 -0530"
        );
    }

    #[test]
    fn go_zero_time_prints_as_go_prints_it() {
        assert_eq!(GoTime::zero().string(), "0001-01-01 00:00:00 +0000 UTC");
    }

    #[test]
    fn parses_durations_as_go_does() {
        assert_eq!(parse_duration("1h30m"), Ok(5_400_000_000_000));
        assert_eq!(parse_duration("-1.5s"), Ok(-1_500_000_000));
        assert_eq!(parse_duration("0"), Ok(0));
        assert_eq!(
            parse_duration("1d"),
            Err("time: unknown unit \"d\" in duration \"1d\"".into())
        );
        assert_eq!(
            parse_duration("5"),
            Err("time: missing unit in duration \"5\"".into())
        );
        assert_eq!(
            parse_duration("x"),
            Err("time: invalid duration \"x\"".into())
        );
    }

    #[test]
    fn prints_durations_as_go_does() {
        assert_eq!(duration_string(3_723_000_000_000), "1h2m3s");
        assert_eq!(duration_string(60_000_000_000), "1m0s");
        assert_eq!(duration_string(1_500_000), "1.5ms");
        assert_eq!(duration_string(-5_000_000_000), "-5s");
        assert_eq!(duration_string(0), "0s");
    }
}
