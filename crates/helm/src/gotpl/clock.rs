//! Sprig's clock functions for Go charts: `now`, `date`, `dateInZone`, `htmlDate`,
//! `htmlDateInZone`, `dateModify`, `mustDateModify`, `ago`, `duration`, `durationRound`,
//! `toDate`, `mustToDate`, `unixEpoch` (and the snake-case spellings Sprig keeps), with
//! Sprig v3.3.0's argument types: a number is a time only when Go would have it as an `int` or
//! `int64` (a values file's numbers are `float64`, which these functions take as "now").
//!
//! Helm reads the machine's clock for "now". Here "now" is `SOURCE_DATE_EPOCH` (1970-01-01
//! when unset), the one time a render reads (see `crate::epoch`), so the same inputs give the
//! same text; `now` also lacks Go's monotonic-clock suffix (`m=+0.01`) in its printed form
//! (rows of DEVIATIONS.md).

use super::go_time::{duration_string, parse_duration, round_to_second, GoTime};
use super::go_time_parse::parse;
use super::sprig::string_arg;
use meshchart_gotemplate::{Arity, Context, FuncError, Object, Templates, Value};
use std::rc::Rc;

/// Go's `time.Time` as a template value.
struct TimeObject(GoTime);

/// Hidden method names (no template can spell a NUL) that give a time's parts back to Rust.
const OFFSET: &str = "\0offset";
const ZONE: &str = "\0zone";

impl Object for TimeObject {
    fn type_name(&self) -> &str {
        "time.Time"
    }

    fn get(&self, name: &str, args: &[Value]) -> Option<Result<Value, String>> {
        let t = &self.0;
        let number = |format: &str| t.format(format).parse::<i64>().unwrap_or_default();
        Some(Ok(match name {
            "Format" => match args.first().and_then(Value::as_str) {
                Some(layout) => Value::from(t.format(layout)),
                None => return Some(Err("Format takes a layout string".into())),
            },
            "String" => Value::from(t.string()),
            "Unix" => Value::Int64(t.unix),
            "UnixMilli" => {
                Value::Int64(t.unix.saturating_mul(1000) + i64::from(t.nanos / 1_000_000))
            }
            "UnixNano" => Value::Int64(i64::try_from(t.unix_nanos()).unwrap_or(i64::MIN)),
            "Year" => Value::Int(number("2006")),
            "Month" => Value::from(t.format("January")),
            "Day" => Value::Int(number("2")),
            "Hour" => Value::Int(number("15")),
            "Minute" => Value::Int(number("4")),
            "Second" => Value::Int(number("5")),
            "Nanosecond" => Value::Int(i64::from(t.nanos)),
            "YearDay" => Value::Int(number("002")),
            "Weekday" => Value::from(t.format("Monday")),
            "IsZero" => {
                Value::Bool(*t == GoTime::zero() || t.unix_nanos() == GoTime::zero().unix_nanos())
            }
            "UTC" | "Local" => time_value(GoTime::utc(t.unix, t.nanos)),
            OFFSET => Value::Int(i64::from(t.offset)),
            super::objects::MARSHAL_JSON => {
                Value::from(t.format("2006-01-02T15:04:05.999999999Z07:00"))
            }
            ZONE => Value::from(t.zone.as_str()),
            _ => return None,
        }))
    }

    fn method_arity(&self, name: &str) -> Option<Arity> {
        match name {
            "Format" => Some(Arity::Exact(1)),
            "String" | "Unix" | "UnixMilli" | "UnixNano" | "Year" | "Month" | "Day" | "Hour"
            | "Minute" | "Second" | "Nanosecond" | "YearDay" | "Weekday" | "IsZero" | "UTC"
            | "Local" => Some(Arity::Exact(0)),
            _ => None,
        }
    }

    fn format(&self, out: &mut String) {
        out.push_str(&self.0.string());
    }
}

fn time_value(t: GoTime) -> Value {
    Value::Object(Rc::new(TimeObject(t)))
}

/// The `time.Time` a value holds, if it is one.
fn as_time(value: &Value) -> Option<GoTime> {
    let Value::Object(object) = value else {
        return None;
    };
    if object.type_name() != "time.Time" {
        return None;
    }
    let int = |name: &str| match object.get(name, &[]) {
        Some(Ok(Value::Int(i) | Value::Int64(i))) => Some(i),
        _ => None,
    };
    let zone = match object.get(ZONE, &[]) {
        Some(Ok(Value::String(zone))) => zone.to_string(),
        _ => return None,
    };
    Some(GoTime {
        unix: int("Unix")?,
        nanos: u32::try_from(int("Nanosecond")?).ok()?,
        offset: i32::try_from(int(OFFSET)?).ok()?,
        zone,
    })
}

fn time_arg(args: &[Value], index: usize) -> Result<GoTime, FuncError> {
    args.get(index)
        .and_then(as_time)
        .ok_or(FuncError::WrongType {
            index,
            expected: "time.Time".into(),
        })
}

/// Sprig's reading of a date argument: a `time.Time`, or seconds since 1970 as an `int` or
/// `int64`; anything else is now.
fn date_or_now(value: &Value, now: &GoTime) -> GoTime {
    match value {
        Value::Int(seconds) | Value::Int64(seconds) => GoTime::utc(*seconds, 0),
        other => as_time(other).unwrap_or_else(|| now.clone()),
    }
}

/// Go's `time.LoadLocation(zone)` falling back to UTC, as Sprig does when it fails: `Local`
/// is UTC here, and named zones are not read (see `go_time`).
fn in_zone(t: GoTime, _zone: &str) -> GoTime {
    GoTime::utc(t.unix, t.nanos)
}

fn add(
    set: &mut Templates,
    name: &str,
    arity: Arity,
    now: &GoTime,
    f: impl Fn(&[Value], &GoTime) -> Result<Value, FuncError> + 'static,
) {
    let now = now.clone();
    set.add_function(
        name,
        arity,
        Rc::new(move |_: &mut Context<'_, '_>, args: &[Value]| f(args, &now)),
    );
}

fn date_modify(args: &[Value], must: bool) -> Result<Value, FuncError> {
    let change = string_arg(args, 0)?;
    let date = time_arg(args, 1)?;
    match parse_duration(change) {
        Ok(nanos) => Ok(time_value(date.add_nanos(nanos))),
        Err(e) if must => Err(FuncError::Message(e)),
        Err(_) => Ok(time_value(date)),
    }
}

/// Adds the clock functions, "now" being `epoch` (seconds since 1970).
pub(super) fn register(set: &mut Templates, epoch: i64) {
    let now = GoTime::utc(epoch, 0);
    add(set, "now", Arity::Exact(0), &now, |_, now| {
        Ok(time_value(now.clone()))
    });
    add(set, "date", Arity::Exact(2), &now, |args, now| {
        let layout = string_arg(args, 0)?;
        let date = in_zone(date_or_now(&args[1], now), "Local");
        Ok(Value::from(date.format(layout)))
    });
    for name in ["dateInZone", "date_in_zone"] {
        add(set, name, Arity::Exact(3), &now, |args, now| {
            let layout = string_arg(args, 0)?;
            let zone = string_arg(args, 2)?;
            let date = in_zone(date_or_now(&args[1], now), zone);
            Ok(Value::from(date.format(layout)))
        });
    }
    add(set, "htmlDate", Arity::Exact(1), &now, |args, now| {
        let date = in_zone(date_or_now(&args[0], now), "Local");
        Ok(Value::from(date.format("2006-01-02")))
    });
    add(set, "htmlDateInZone", Arity::Exact(2), &now, |args, now| {
        let zone = string_arg(args, 1)?;
        let date = in_zone(date_or_now(&args[0], now), zone);
        Ok(Value::from(date.format("2006-01-02")))
    });
    for name in ["dateModify", "date_modify"] {
        add(set, name, Arity::Exact(2), &now, |args, _| {
            date_modify(args, false)
        });
    }
    for name in ["mustDateModify", "must_date_modify"] {
        add(set, name, Arity::Exact(2), &now, |args, _| {
            date_modify(args, true)
        });
    }
    add(set, "ago", Arity::Exact(1), &now, |args, now| {
        let then = match &args[0] {
            Value::Int(seconds) | Value::Int64(seconds) => GoTime::utc(*seconds, 0),
            other => as_time(other).unwrap_or_else(|| now.clone()),
        };
        let since = now.unix_nanos() - then.unix_nanos();
        let since = i64::try_from(since).unwrap_or(if since < 0 { i64::MIN } else { i64::MAX });
        Ok(Value::from(duration_string(round_to_second(since))))
    });
    add(set, "duration", Arity::Exact(1), &now, |args, _| {
        let seconds = match &args[0] {
            Value::String(text) => text.parse::<i64>().unwrap_or(0),
            Value::Int64(n) => *n,
            _ => 0,
        };
        Ok(Value::from(duration_string(
            seconds.wrapping_mul(1_000_000_000),
        )))
    });
    add(set, "durationRound", Arity::Exact(1), &now, |args, now| {
        let nanos: i128 = match &args[0] {
            Value::String(text) => i128::from(parse_duration(text).unwrap_or(0)),
            Value::Int64(n) => i128::from(*n),
            other => match as_time(other) {
                Some(then) => now.unix_nanos() - then.unix_nanos(),
                None => 0,
            },
        };
        Ok(Value::from(rounded_duration(nanos.unsigned_abs())))
    });
    add(set, "toDate", Arity::Exact(2), &now, |args, _| {
        let (layout, text) = (string_arg(args, 0)?, string_arg(args, 1)?);
        Ok(time_value(
            parse(layout, text).unwrap_or_else(|_| GoTime::zero()),
        ))
    });
    add(set, "mustToDate", Arity::Exact(2), &now, |args, _| {
        let (layout, text) = (string_arg(args, 0)?, string_arg(args, 1)?);
        parse(layout, text)
            .map(time_value)
            .map_err(FuncError::Message)
    });
    add(set, "unixEpoch", Arity::Exact(1), &now, |args, _| {
        Ok(Value::from(time_arg(args, 0)?.unix.to_string()))
    });
}

/// Sprig's `durationRound`: the largest whole unit the duration passes (`2h`, `3mo`, `1y`).
fn rounded_duration(nanos: u128) -> String {
    const SECOND: u128 = 1_000_000_000;
    const UNITS: [(u128, &str); 6] = [
        (SECOND * 3600 * 24 * 365, "y"),
        (SECOND * 3600 * 24 * 30, "mo"),
        (SECOND * 3600 * 24, "d"),
        (SECOND * 3600, "h"),
        (SECOND * 60, "m"),
        (SECOND, "s"),
    ];
    UNITS.iter().find(|(size, _)| nanos > *size).map_or_else(
        || "0s".to_owned(),
        |(size, unit)| format!("{}{unit}", nanos / size),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use meshchart_gotemplate::{MissingKey, Templates};

    /// `template` rendered with the clock functions, "now" being `epoch`.
    fn render(template: &str, epoch: i64) -> Result<String, String> {
        let mut set = Templates::new("gotpl");
        set.set_missing_key(MissingKey::Zero);
        super::super::register_functions(&mut set, b"seed".to_vec(), epoch);
        set.parse("t", template).map_err(|e| e.to_string())?;
        set.execute("t", &Value::Null).map_err(|e| e.to_string())
    }

    #[test]
    fn now_is_the_source_date_epoch() {
        assert_eq!(
            render(
                "{{ now | date \"2006-01-02T15:04:05Z07:00\" }}",
                1_700_000_000
            ),
            Ok("2023-11-14T22:13:20Z".into())
        );
        assert_eq!(render("{{ now | unixEpoch }}", 42), Ok("42".into()));
    }

    #[test]
    fn a_float_from_values_is_not_a_date_but_now() {
        let out = render(
            "{{ date \"2006\" 1.5e9 }} {{ date \"2006\" 1500000000 }}",
            0,
        );
        assert_eq!(out, Ok("1970 2017".into()));
    }

    #[test]
    fn date_modify_moves_a_time_and_must_date_modify_refuses_a_bad_duration() {
        assert_eq!(
            render("{{ now | dateModify \"-1.5h\" | htmlDate }}", 3600),
            Ok("1969-12-31".into())
        );
        let error = render("{{ now | mustDateModify \"1d\" }}", 0).expect_err("bad unit");
        assert!(
            error.contains("time: unknown unit \"d\" in duration \"1d\""),
            "{error}"
        );
    }

    #[test]
    fn ago_and_duration_round_measure_from_now() {
        let template = "{{ ago 0 }} {{ toDate \"2006-01-02\" \"1970-01-01\" | durationRound }}";
        assert_eq!(render(template, 90_061), Ok("25h1m1s 1d".into()));
    }

    #[test]
    fn duration_takes_int64s_and_strings_as_sprig_does() {
        assert_eq!(
            render(
                "{{ duration \"90\" }} {{ duration 90 }} {{ duration (int64 90) }}",
                0
            ),
            Ok("1m30s 0s 1m30s".into())
        );
    }

    #[test]
    fn to_date_gives_go_zero_time_on_bad_text_and_must_to_date_fails() {
        assert_eq!(
            render("{{ toDate \"2006\" \"x\" }}", 0),
            Ok("0001-01-01 00:00:00 +0000 UTC".into())
        );
        let error = render("{{ mustToDate \"2006\" \"x\" }}", 0).expect_err("bad");
        assert!(
            error.contains("parsing time \"x\" as \"2006\": cannot parse \"x\" as \"2006\""),
            "{error}"
        );
    }

    #[test]
    fn a_time_has_go_methods() {
        assert_eq!(
            render(
                "{{ (toDate \"2006-01-02\" \"2024-03-05\").Year }} {{ (now).Format \"Jan\" }}",
                0
            ),
            Ok("2024 Jan".into())
        );
    }
}
