//! Numbers: conversions (`int`, `int64`, `atoi`, `float64`) and Sprig's arithmetic.
//!
//! Integer arithmetic (`add`, `sub`, `mul`, `div`, `mod`, `max`, `min`) converts every argument
//! the way `int` does (`add(2.9, 1)` is 3, `add("3", 1)` is 4) and wraps on overflow, as Go does.
//! The float forms (`addf`, `subf`, `mulf`, `divf`) compute in decimal like Sprig, so
//! `addf(0.1, 0.2)` is `0.3`.

use super::args::Args;
use minijinja::value::{Value, ValueKind};
use minijinja::Error;

/// Sprig's `toInt64` (spf13/cast): integers as they are, floats truncated, booleans 0/1, strings
/// parsed like Go source (`"0x1F"`, `"010"` octal, `"42.0"`), anything else 0.
pub(crate) fn to_int64(value: &Value) -> i64 {
    match value.kind() {
        ValueKind::Bool => i64::from(value.is_true()),
        ValueKind::Number => match value.as_i64().filter(|_| value.is_integer()) {
            Some(n) => n,
            None if value.is_integer() => i128::try_from(value.clone())
                .map(|n| n.clamp(i64::MIN.into(), i64::MAX.into()) as i64)
                .unwrap_or_default(),
            None => f64::try_from(value.clone()).map_or(0, |f| f as i64),
        },
        ValueKind::String => {
            parse_go_int(trim_zero_decimal(value.as_str().unwrap_or_default())).unwrap_or(0)
        }
        _ => 0,
    }
}

/// cast's `trimZeroDecimal`: `"12.000"` becomes `"12"`; anything else is left alone.
fn trim_zero_decimal(s: &str) -> &str {
    let mut found_zero = false;
    for (i, b) in s.bytes().enumerate().rev() {
        match b {
            b'.' if found_zero => return &s[..i],
            b'0' => found_zero = true,
            _ => return s,
        }
    }
    s
}

/// Go's `strconv.ParseInt(s, 0, 64)`: optional sign, `0x`/`0o`/`0b`/leading-`0` prefixes, and
/// underscores between digits (`1_000`).
fn parse_go_int(s: &str) -> Option<i64> {
    let (negative, body) = match s.as_bytes().first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    };
    let lower = body.to_ascii_lowercase();
    let (radix, digits) = match lower.get(..2) {
        Some("0x") => (16, &lower[2..]),
        Some("0o") => (8, &lower[2..]),
        Some("0b") => (2, &lower[2..]),
        _ if lower.len() > 1 && lower.starts_with('0') => (8, &lower[1..]),
        _ => (10, &lower[..]),
    };
    if digits.contains('_') {
        // A base prefix counts as a digit: `0x_1F` is fine, `_1` and `1__0` and `1_` are not.
        let prefixed = radix != 10;
        if (!prefixed && digits.starts_with('_')) || digits.ends_with('_') || digits.contains("__")
        {
            return None;
        }
    }
    let digits = digits.replace('_', "");
    if digits.is_empty() || digits.starts_with(['+', '-']) {
        return None;
    }
    let magnitude = u64::from_str_radix(&digits, radix).ok()?;
    if negative {
        0i64.checked_sub_unsigned(magnitude)
    } else {
        i64::try_from(magnitude).ok()
    }
}

/// Sprig's `toFloat64`: numbers as floats, booleans 0/1, strings parsed (`"1.50"`), else 0.
pub(crate) fn to_float64(value: &Value) -> f64 {
    match value.kind() {
        ValueKind::Bool => f64::from(u8::from(value.is_true())),
        ValueKind::Number => f64::try_from(value.clone()).unwrap_or(0.0),
        ValueKind::String => value
            .as_str()
            .unwrap_or_default()
            .parse::<f64>()
            .unwrap_or(0.0),
        _ => 0.0,
    }
}

/// `int(value)` (and `int64`): the value as an integer: `int("42")` 42, `int(3.9)` 3,
/// `int("0x1F")` 31, `int("abc")` 0, `int(none)` 0. Unlike Jinja's `int`, it never fails.
///
/// ```jinja
/// port: {{ Values.port | int }}
/// ```
pub(super) fn int(args: &Args) -> Result<Value, Error> {
    args.exactly(1)?;
    Ok(Value::from(to_int64(&args.get(0))))
}

/// `atoi(text)`: a base-10 integer, or 0 when `text` is not one.
pub(super) fn atoi(args: &Args) -> Result<Value, Error> {
    args.exactly(1)?;
    let text = args.string(0, "text")?;
    let digits = text.strip_prefix('+').unwrap_or(&text);
    let valid = !digits.is_empty()
        && digits
            .strip_prefix('-')
            .unwrap_or(digits)
            .bytes()
            .all(|b| b.is_ascii_digit());
    Ok(Value::from(if valid {
        digits.parse::<i64>().unwrap_or(0)
    } else {
        0
    }))
}

/// `float64(value)`: the value as a float: `float64("1.50")` 1.5, `float64("x")` 0.
pub(super) fn float64(args: &Args) -> Result<Value, Error> {
    args.exactly(1)?;
    Ok(Value::from(to_float64(&args.get(0))))
}

fn ints(args: &Args, min: usize) -> Result<Vec<i64>, Error> {
    args.between(min, usize::MAX)?;
    Ok(args.all().iter().map(to_int64).collect())
}

/// `add(number...)`: the integer sum.
pub(super) fn add(args: &Args) -> Result<Value, Error> {
    Ok(Value::from(
        ints(args, 0)?.into_iter().fold(0i64, i64::wrapping_add),
    ))
}

/// `sub(a, b)`: `a - b` as integers.
pub(super) fn sub(args: &Args) -> Result<Value, Error> {
    args.exactly(2)?;
    let n = ints(args, 2)?;
    Ok(Value::from(n[0].wrapping_sub(n[1])))
}

/// `mul(number...)`: the integer product (`mul(1.5, 2)` is 2: each argument is an integer first).
pub(super) fn mul(args: &Args) -> Result<Value, Error> {
    let n = ints(args, 1)?;
    Ok(Value::from(
        n[1..].iter().fold(n[0], |a, b| a.wrapping_mul(*b)),
    ))
}

/// `div(a, b)`: integer division, rounding toward zero; dividing by zero is an error.
pub(super) fn div(args: &Args) -> Result<Value, Error> {
    args.exactly(2)?;
    let n = ints(args, 2)?;
    if n[1] == 0 {
        return Err(args.error("integer divide by zero"));
    }
    Ok(Value::from(n[0].wrapping_div(n[1])))
}

/// `mod(a, b)`: the integer remainder; zero `b` is an error.
pub(super) fn modulo(args: &Args) -> Result<Value, Error> {
    args.exactly(2)?;
    let n = ints(args, 2)?;
    if n[1] == 0 {
        return Err(args.error("integer divide by zero"));
    }
    Ok(Value::from(n[0].wrapping_rem(n[1])))
}

/// `max(number...)`: the largest, as an integer. (The `max` *filter* stays Jinja's.)
pub(super) fn max(args: &Args) -> Result<Value, Error> {
    Ok(Value::from(ints(args, 1)?.into_iter().max().unwrap_or(0)))
}

/// `min(number...)`: the smallest, as an integer. (The `min` *filter* stays Jinja's.)
pub(super) fn min(args: &Args) -> Result<Value, Error> {
    Ok(Value::from(ints(args, 1)?.into_iter().min().unwrap_or(0)))
}

/// `add1(number)`: the number as an integer, plus one.
pub(super) fn add1(args: &Args) -> Result<Value, Error> {
    args.exactly(1)?;
    Ok(Value::from(to_int64(&args.get(0)).wrapping_add(1)))
}

fn floats(args: &Args) -> Result<Vec<f64>, Error> {
    args.between(1, usize::MAX)?;
    Ok(args.all().iter().map(to_float64).collect())
}

/// `maxf(number...)`: the largest, as a float (Go's `math.Max`: NaN wins).
pub(super) fn maxf(args: &Args) -> Result<Value, Error> {
    let n = floats(args)?;
    Ok(Value::from(n[1..].iter().fold(n[0], |a, &b| {
        if a.is_nan() || b.is_nan() {
            f64::NAN
        } else {
            a.max(b)
        }
    })))
}

/// `minf(number...)`: the smallest, as a float.
pub(super) fn minf(args: &Args) -> Result<Value, Error> {
    let n = floats(args)?;
    Ok(Value::from(n[1..].iter().fold(n[0], |a, &b| {
        if a.is_nan() || b.is_nan() {
            f64::NAN
        } else {
            a.min(b)
        }
    })))
}

/// `ceil(number)`: the least whole number not below it, as a float.
pub(super) fn ceil(args: &Args) -> Result<Value, Error> {
    args.exactly(1)?;
    Ok(Value::from(to_float64(&args.get(0)).ceil()))
}

/// `floor(number)`: the greatest whole number not above it, as a float.
pub(super) fn floor(args: &Args) -> Result<Value, Error> {
    args.exactly(1)?;
    Ok(Value::from(to_float64(&args.get(0)).floor()))
}

/// `round(number, places, round_on?)`: rounded to `places` decimals; the dropped part rounds
/// up from `round_on` (0.5 unless given), as Sprig computes it.
pub(super) fn round(args: &Args) -> Result<Value, Error> {
    args.between(2, 3)?;
    let value = to_float64(&args.get(0));
    let places = args.int(1, "places")?;
    let round_on = if args.len() > 2 {
        to_float64(&args.get(2))
    } else {
        0.5
    };
    let pow = 10f64.powf(places as f64);
    let digit = pow * value;
    let fraction = digit - digit.trunc();
    let rounded = if fraction >= round_on {
        digit.ceil()
    } else {
        digit.floor()
    };
    Ok(Value::from(rounded / pow))
}

/// `toDecimal(text)`: an octal number read as an integer (`toDecimal("0777")` is 511); 0 when it
/// is not one.
pub(super) fn to_decimal(args: &Args) -> Result<Value, Error> {
    args.exactly(1)?;
    let text = super::args::strval(&args.get(0));
    let (negative, digits) = match text.as_bytes().first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, &text[..]),
    };
    let parsed = if digits.is_empty() || digits.starts_with(['+', '-']) {
        None
    } else {
        i64::from_str_radix(digits, 8).ok()
    };
    Ok(Value::from(
        parsed.map_or(0, |n| if negative { -n } else { n }),
    ))
}

/// `add1f(number)`: the number plus one, as a float.
pub(super) fn add1f(args: &Args) -> Result<Value, Error> {
    args.exactly(1)?;
    let one = [args.get(0), Value::from(1)];
    let args = Args::new("add1f(number)", &one, false);
    float_op(&args, None, Decimal::add, |a, b| a + b)
}

/// `duration(seconds)`: a number of seconds as Go prints a duration (`95` is `1m35s`, `3600`
/// is `1h0m0s`). A string is read as whole seconds (`"x"` is `0s`). Helm's Sprig reads only
/// int64 numbers and gives `0s` for a literal or a values-file number; here every number counts.
pub(super) fn duration(args: &Args) -> Result<Value, Error> {
    args.exactly(1)?;
    let value = args.get(0);
    let seconds = match value.kind() {
        ValueKind::String => value
            .as_str()
            .unwrap_or_default()
            .parse::<i64>()
            .unwrap_or(0),
        ValueKind::Number => to_int64(&value),
        _ => 0,
    };
    Ok(Value::from(go_duration(seconds)))
}

/// Go's `time.Duration.String` of whole seconds (saturating, as Go's multiplication would not:
/// past 292 years Go overflows).
fn go_duration(seconds: i64) -> String {
    if seconds == 0 {
        return "0s".to_owned();
    }
    let sign = if seconds < 0 { "-" } else { "" };
    let total = seconds.unsigned_abs();
    let (hours, minutes, secs) = (total / 3600, total / 60 % 60, total % 60);
    if hours > 0 {
        format!("{sign}{hours}h{minutes}m{secs}s")
    } else if minutes > 0 {
        format!("{sign}{minutes}m{secs}s")
    } else {
        format!("{sign}{secs}s")
    }
}

/// An exact decimal `coefficient × 10^-scale`, as Sprig's float arithmetic uses.
#[derive(Clone, Copy, Debug)]
struct Decimal {
    coefficient: i128,
    scale: u32,
}

impl Decimal {
    /// The shortest decimal that reads back as `f`; `None` for NaN, infinities and huge values.
    fn from_f64(f: f64) -> Option<Decimal> {
        if !f.is_finite() {
            return None;
        }
        let text = format!("{f}");
        let (int_part, frac_part) = text.split_once('.').unwrap_or((&text, ""));
        let coefficient: i128 = format!("{int_part}{frac_part}").parse().ok()?;
        Some(Decimal {
            coefficient,
            scale: frac_part.len() as u32,
        })
    }

    fn to_f64(self) -> f64 {
        let negative = self.coefficient < 0;
        let digits = self.coefficient.unsigned_abs().to_string();
        let scale = self.scale as usize;
        let text = if scale == 0 {
            digits
        } else if digits.len() > scale {
            let (int, frac) = digits.split_at(digits.len() - scale);
            format!("{int}.{frac}")
        } else {
            format!("0.{}{digits}", "0".repeat(scale - digits.len()))
        };
        let f: f64 = text.parse().unwrap_or(f64::NAN);
        if negative {
            -f
        } else {
            f
        }
    }

    fn rescale(self, scale: u32) -> Option<i128> {
        self.coefficient
            .checked_mul(10i128.checked_pow(scale.checked_sub(self.scale)?)?)
    }

    fn add(self, other: Decimal) -> Option<Decimal> {
        let scale = self.scale.max(other.scale);
        Some(Decimal {
            coefficient: self.rescale(scale)?.checked_add(other.rescale(scale)?)?,
            scale,
        })
    }

    fn sub(self, other: Decimal) -> Option<Decimal> {
        self.add(Decimal {
            coefficient: other.coefficient.checked_neg()?,
            scale: other.scale,
        })
    }

    fn mul(self, other: Decimal) -> Option<Decimal> {
        Some(Decimal {
            coefficient: self.coefficient.checked_mul(other.coefficient)?,
            scale: self.scale.checked_add(other.scale)?,
        })
    }

    /// Division rounded half away from zero to 16 decimal places (shopspring's default).
    fn div(self, other: Decimal) -> Option<Decimal> {
        const PLACES: u32 = 16;
        if other.coefficient == 0 {
            return None;
        }
        // self/other = (a·10^-sa)/(b·10^-sb); scaled by 10^PLACES: a·10^(PLACES+sb-sa) / b.
        let shift = i64::from(PLACES) + i64::from(other.scale) - i64::from(self.scale);
        let (numerator, denominator) = if shift >= 0 {
            (
                self.coefficient
                    .checked_mul(10i128.checked_pow(u32::try_from(shift).ok()?)?)?,
                other.coefficient,
            )
        } else {
            (
                self.coefficient,
                other
                    .coefficient
                    .checked_mul(10i128.checked_pow(u32::try_from(-shift).ok()?)?)?,
            )
        };
        let quotient = numerator / denominator;
        let remainder = numerator % denominator;
        let round_up = remainder.unsigned_abs() * 2 >= denominator.unsigned_abs();
        let away = if (numerator < 0) != (denominator < 0) {
            -1
        } else {
            1
        };
        Some(Decimal {
            coefficient: quotient + if round_up { away } else { 0 },
            scale: PLACES,
        })
    }
}

/// Folds the arguments with a decimal operation, falling back to plain floats where the
/// decimals would overflow.
fn float_op(
    args: &Args,
    start: Option<f64>,
    decimal: fn(Decimal, Decimal) -> Option<Decimal>,
    float: fn(f64, f64) -> f64,
) -> Result<Value, Error> {
    let mut numbers: Vec<f64> = args.all().iter().map(to_float64).collect();
    if let Some(start) = start {
        numbers.insert(0, start);
    }
    if numbers.is_empty() {
        return Err(args.error("expected at least 1 argument, got 0"));
    }
    let mut exact = Decimal::from_f64(numbers[0]);
    let mut approximate = numbers[0];
    for &n in &numbers[1..] {
        exact = exact
            .zip(Decimal::from_f64(n))
            .and_then(|(a, b)| decimal(a, b));
        approximate = float(approximate, n);
    }
    Ok(Value::from(exact.map_or(approximate, Decimal::to_f64)))
}

/// `addf(number...)`: the sum as a float.
pub(super) fn addf(args: &Args) -> Result<Value, Error> {
    float_op(args, Some(0.0), Decimal::add, |a, b| a + b)
}

/// `subf(a, b...)`: `a` minus the others, as a float.
pub(super) fn subf(args: &Args) -> Result<Value, Error> {
    float_op(args, None, Decimal::sub, |a, b| a - b)
}

/// `mulf(number...)`: the product as a float (`mulf(1.5, 2)` is 3).
pub(super) fn mulf(args: &Args) -> Result<Value, Error> {
    float_op(args, None, Decimal::mul, |a, b| a * b)
}

/// `divf(a, b...)`: `a` divided by the others, as a float (16 decimal places); by zero is an error.
pub(super) fn divf(args: &Args) -> Result<Value, Error> {
    if args.all().iter().skip(1).any(|v| to_float64(v) == 0.0) {
        return Err(args.error("division by zero"));
    }
    float_op(args, None, Decimal::div, |a, b| a / b)
}

#[cfg(test)]
mod tests {
    use crate::engine::functions::test_support::{err, ok};

    #[test]
    fn int_parses_strings_like_go() {
        assert_eq!(
            ok(
                r#"{{ int("42") }} {{ int("42.9") }} {{ int("0x1F") }} {{ int("010") }} {{ int("42.0") }} {{ int(" 42 ") }} {{ int("") }} {{ int("-0b101") }}"#
            ),
            "42 0 31 8 42 0 0 -5"
        );
    }

    #[test]
    fn int_truncates_floats_and_counts_booleans() {
        assert_eq!(
            ok("{{ int(42.9) }} {{ int(-3.7) }} {{ int(true) }} {{ int(none) }} {{ int([1]) }}"),
            "42 -3 1 0 0"
        );
    }

    #[test]
    fn int_is_sprig_int_as_a_filter() {
        assert_eq!(ok(r#"{{ "abc" | int }} {{ "7" | int64 }}"#), "0 7");
    }

    #[test]
    fn int64_reaches_the_largest_int64() {
        assert_eq!(
            ok(r#"{{ int64("9223372036854775807") }}"#),
            "9223372036854775807"
        );
    }

    #[test]
    fn atoi_is_base_ten_only() {
        assert_eq!(
            ok(r#"{{ atoi("42") }} {{ atoi("-7") }} {{ atoi("0x1F") }} {{ atoi("4 2") }}"#),
            "42 -7 0 0"
        );
    }

    #[test]
    fn float64_parses_or_gives_zero() {
        assert_eq!(
            ok(r#"{{ float64("1.50") }} {{ float64("x") }} {{ float64(2) }}"#),
            "1.5 0 2"
        );
    }

    #[test]
    fn add_converts_each_argument_to_an_integer() {
        assert_eq!(
            ok(r#"{{ add(1, 2) }} {{ add(2.9, 1) }} {{ add("3", 1) }} {{ 1 | add(1) }}"#),
            "3 3 4 2"
        );
    }

    #[test]
    fn sub_subtracts_integers() {
        assert_eq!(ok("{{ sub(5, 7) }} {{ sub(5.9, 1) }}"), "-2 4");
    }

    #[test]
    fn mul_multiplies_integers() {
        assert_eq!(ok("{{ mul(1.5, 2) }} {{ mul(2, 3, 4) }}"), "2 24");
    }

    #[test]
    fn div_rounds_toward_zero() {
        assert_eq!(ok("{{ div(7, 2) }} {{ div(-7, 2) }}"), "3 -3");
    }

    #[test]
    fn mod_is_the_remainder() {
        assert_eq!(ok("{{ mod(7, 3) }} {{ mod(-7, 3) }}"), "1 -1");
    }

    #[test]
    fn max_and_min_are_integers() {
        assert_eq!(
            ok(r#"{{ max(1, 9, 3) }} {{ min(4, "2") }} {{ max(1.9, 1) }}"#),
            "9 2 1"
        );
    }

    #[test]
    fn max_and_min_filters_stay_jinja() {
        assert_eq!(ok("{{ [3, 1, 2] | max }} {{ [3, 1, 2] | min }}"), "3 1");
    }

    #[test]
    fn integer_division_by_zero_is_an_error() {
        assert!(err("{{ div(1, 0) }}").contains("divide by zero"));
        assert!(err("{{ mod(1, 0) }}").contains("divide by zero"));
    }

    #[test]
    fn addf_adds_in_decimal() {
        assert_eq!(ok("{{ addf(0.1, 0.2) }} {{ addf(1, 2, 3.5) }}"), "0.3 6.5");
    }

    #[test]
    fn subf_subtracts_in_decimal() {
        assert_eq!(ok("{{ subf(1, 0.9) }} {{ subf(10, 1, 2) }}"), "0.1 7");
    }

    #[test]
    fn mulf_multiplies_in_decimal() {
        assert_eq!(ok("{{ mulf(1.5, 2) }} {{ mulf(0.1, 3) }}"), "3 0.3");
    }

    #[test]
    fn divf_rounds_to_sixteen_places() {
        assert_eq!(
            ok("{{ divf(7, 2) }} {{ divf(2, 3) }}"),
            "3.5 0.6666666666666667"
        );
        assert!(err("{{ divf(1, 0) }}").contains("division by zero"));
    }
}
