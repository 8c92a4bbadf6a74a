//! Go's float printing, which Helm users see in `{{ v }}`, `toString`, `toYaml` and `toJson`.

/// Shortest round-trip digits of `f` and its decimal exponent: `1234567.0` is `("1234567", 6)`.
///
/// When two digit strings of the shortest length are equally close to `f`, Go (like Python)
/// takes the even one; Rust's shortest formatting does not, so the digits are re-rounded to that
/// length with Rust's exact formatting, which rounds half to even (`-959879266437.65625` is
/// `-959879266437.6562` in Helm's JSON, not `...6563`).
fn shortest_digits(f: f64) -> (String, i32) {
    let abs = f.abs();
    let shortest = format!("{abs:e}");
    let (digits, exponent) = split_scientific(&shortest);
    if digits.len() > 1 {
        let rounded = format!("{:.*e}", digits.len() - 1, abs);
        if rounded != shortest && rounded.parse::<f64>() == Ok(abs) {
            return split_scientific(&rounded);
        }
    }
    (digits, exponent)
}

/// `"1.2345e6"` → `("12345", 6)`, trailing zeros of the digits dropped.
fn split_scientific(sci: &str) -> (String, i32) {
    let (mantissa, exponent) = sci.split_once('e').unwrap_or((sci, "0"));
    let digits: String = mantissa.chars().filter(|c| c.is_ascii_digit()).collect();
    let digits = digits.trim_end_matches('0');
    let digits = if digits.is_empty() {
        "0".to_owned()
    } else {
        digits.to_owned()
    };
    (digits, exponent.parse().unwrap_or(0))
}

fn format_with_exponent_limits(f: f64, low: i32, high: i32, exponent_width: usize) -> String {
    if f.is_nan() {
        return "NaN".into();
    }
    if f.is_infinite() {
        return if f > 0.0 {
            "+Inf".into()
        } else {
            "-Inf".into()
        };
    }
    if f == 0.0 {
        return if f.is_sign_negative() {
            "-0".into()
        } else {
            "0".into()
        };
    }
    let sign = if f < 0.0 { "-" } else { "" };
    let (digits, exp) = shortest_digits(f);
    if exp < low || exp >= high {
        let (head, tail) = digits.split_at(1);
        let mantissa = if tail.is_empty() {
            head.to_owned()
        } else {
            format!("{head}.{tail}")
        };
        let exp_sign = if exp < 0 { '-' } else { '+' };
        return format!(
            "{sign}{mantissa}e{exp_sign}{:0width$}",
            exp.abs(),
            width = exponent_width
        );
    }
    let point = exp + 1;
    let body = if point <= 0 {
        format!("0.{}{}", "0".repeat((-point) as usize), digits)
    } else if point as usize >= digits.len() {
        format!("{}{}", digits, "0".repeat(point as usize - digits.len()))
    } else {
        let (int, frac) = digits.split_at(point as usize);
        format!("{int}.{frac}")
    };
    format!("{sign}{body}")
}

/// Go's `%v` / `strconv.FormatFloat(f, 'g', -1, 64)`: exponent form below 1e-4 and from 1e6 on
/// (`1.234567e+06`), as Helm prints float64 values in templates.
pub fn format_go_float(f: f64) -> String {
    format_with_exponent_limits(f, -4, 6, 2)
}

/// Go's `encoding/json` float printing: plain digits from 1e-6 up to 1e21, exponent form outside.
///
/// The exponent has no zero padding (`1e-7`, `1e+21`): encoding/json strips the `0` that
/// `strconv` writes in `e-07` (Helm's `toJson` of `1.0e-7` is `1e-7` in the toyaml corpus).
pub fn format_json_float(f: f64) -> String {
    format_with_exponent_limits(f, -6, 21, 1)
}

/// How `toYaml` prints a float: as Helm's JSON digits when go-yaml reads those back as an int64
/// or uint64, else as `%v`.
///
/// The JSON digits are the shortest round-trip digits padded with zeros, so the test is on that
/// text, not on the value: -2^63 is written `-9223372036854776000`, which overflows int64, and
/// prints as `-9.223372036854776e+18`; `-0` reads back as the integer 0.
pub fn format_yaml_float(f: f64) -> String {
    let json = format_json_float(f);
    if let Ok(i) = json.parse::<i64>() {
        return i.to_string();
    }
    if json.parse::<u64>().is_ok() {
        return json;
    }
    format_go_float(f)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn go_v_switches_to_exponent_at_a_million() {
        assert_eq!(format_go_float(999999.0), "999999");
        assert_eq!(format_go_float(1000000.0), "1e+06");
        assert_eq!(format_go_float(1234567.5), "1.2345675e+06");
        assert_eq!(format_go_float(0.0001), "0.0001");
        assert_eq!(format_go_float(0.00001), "1e-05");
        assert_eq!(format_go_float(123456.7), "123456.7");
        assert_eq!(format_go_float(1.5), "1.5");
    }

    #[test]
    fn ties_between_shortest_digit_strings_go_to_the_even_one() {
        // -959879266437.65625, halfway between ...6562 and ...6563.
        // Helm 3.17.1: toJson -959879266437.6562, toYaml -9.598792664376562e+11.
        let tie = -(959879266437.0 + 21.0 / 32.0);
        assert_eq!(format_json_float(tie), "-959879266437.6562");
        assert_eq!(format_go_float(tie), "-9.598792664376562e+11");
        assert_eq!(format_go_float(0.3), "0.3");
        assert_eq!(format_go_float(5e-324), "5e-324");
        assert_eq!(format_go_float(f64::MAX), "1.7976931348623157e+308");
    }

    #[test]
    fn json_floats_stay_plain_below_1e21() {
        assert_eq!(format_json_float(1234567.5), "1234567.5");
        assert_eq!(format_json_float(1e20), "100000000000000000000");
        assert_eq!(format_json_float(0.00001), "0.00001");
        assert_eq!(format_json_float(1e21), "1e+21");
        assert_eq!(format_json_float(1e-7), "1e-7");
        assert_eq!(format_json_float(1.5e-10), "1.5e-10");
        assert_eq!(format_json_float(-0.0), "-0");
    }

    #[test]
    fn yaml_prints_integral_floats_as_integers() {
        assert_eq!(format_yaml_float(1000000.0), "1000000");
        assert_eq!(
            format_yaml_float(12345678901234567890.0),
            "12345678901234567000"
        );
        assert_eq!(format_yaml_float(1e20), "1e+20");
        assert_eq!(
            format_yaml_float(1.8446744073709552e19),
            "1.8446744073709552e+19"
        );
        assert_eq!(format_yaml_float(-0.0), "0");
        // -2^63's JSON digits overflow int64; 2^63's still fit uint64 (Helm 3.17.1 output).
        let two_63 = 2f64.powi(63);
        assert_eq!(format_yaml_float(-two_63), "-9.223372036854776e+18");
        assert_eq!(format_yaml_float(two_63), "9223372036854776000");
        assert_eq!(format_yaml_float(two_63 - 1024.0), "9223372036854775000");
        assert_eq!(format_yaml_float(1e-7), "1e-07");
    }
}
