//! Parsers for annotation values: Go booleans and durations, ports and port ranges.
//!
//! Each returns `None` (or an error text) for a value it does not accept; the caller turns that
//! into an error naming the workload, the annotation and the allowed values.

/// Go's `strconv.ParseBool`: `1 t T TRUE true True` and `0 f F FALSE false False`.
pub(crate) fn parse_bool(text: &str) -> Option<bool> {
    match text {
        "1" | "t" | "T" | "TRUE" | "true" | "True" => Some(true),
        "0" | "f" | "F" | "FALSE" | "false" | "False" => Some(false),
        _ => None,
    }
}

/// The spellings [`parse_bool`] accepts, for messages.
pub(crate) const BOOL_ALLOWED: &str =
    "true, false (or Go's other spellings: 1, t, T, TRUE, True, 0, f, F, FALSE, False)";

/// A TCP port, 1 to 65535.
pub(crate) fn parse_port(text: &str) -> Option<u16> {
    let text = text.trim();
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse::<u16>().ok().filter(|p| *p > 0)
}

/// A port or an inclusive range of ports.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct PortRange {
    /// First port.
    pub lower: u16,
    /// Last port (equal to `lower` for a single port).
    pub upper: u16,
}

impl std::fmt::Display for PortRange {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.lower == self.upper {
            write!(f, "{}", self.lower)
        } else {
            write!(f, "{}-{}", self.lower, self.upper)
        }
    }
}

/// `80` or `8000-8100` (lower bound not above the upper one).
pub(crate) fn parse_port_range(text: &str) -> Option<PortRange> {
    let text = text.trim();
    match text.split_once('-') {
        None => parse_port(text).map(|p| PortRange { lower: p, upper: p }),
        Some((a, b)) => {
            let (lower, upper) = (parse_port(a)?, parse_port(b)?);
            (lower <= upper).then_some(PortRange { lower, upper })
        }
    }
}

/// The allowed form of a port list, for messages.
pub(crate) const PORT_LIST_ALLOWED: &str =
    "a comma-separated list of ports (1-65535) and ranges such as 8000-8100 (lower bound first)";

/// A comma-separated list of ports and ranges; one trailing comma is tolerated, as upstream does.
/// Returns the entries, or the first entry that is not a port or range.
pub(crate) fn parse_port_list(text: &str) -> Result<Vec<PortRange>, String> {
    let text = text.trim();
    let text = text.strip_suffix(',').unwrap_or(text);
    if text.trim().is_empty() {
        return Ok(Vec::new());
    }
    text.split(',')
        .map(|item| parse_port_range(item).ok_or_else(|| item.trim().to_owned()))
        .collect()
}

/// Joins port ranges back into the comma-separated form.
pub(crate) fn join_ports(ranges: &[PortRange]) -> String {
    ranges
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(",")
}

/// The allowed form of a Go duration, for messages.
pub(crate) const DURATION_ALLOWED: &str =
    "a non-negative Go duration such as 100ms, 1.5s, 2m0s or 1h (units ns, us, ms, s, m, h)";

/// Go's `time.ParseDuration`, for non-negative durations; returns nanoseconds.
pub(crate) fn parse_go_duration(text: &str) -> Option<u128> {
    let mut rest = text.strip_prefix('+').unwrap_or(text);
    if rest == "0" {
        return Some(0);
    }
    if rest.is_empty() {
        return None;
    }
    let mut total: u128 = 0;
    while !rest.is_empty() {
        let int_len = rest.bytes().take_while(u8::is_ascii_digit).count();
        let int_part = &rest[..int_len];
        rest = &rest[int_len..];
        let mut frac_part = "";
        if let Some(after) = rest.strip_prefix('.') {
            let frac_len = after.bytes().take_while(u8::is_ascii_digit).count();
            frac_part = &after[..frac_len];
            rest = &after[frac_len..];
        }
        if int_part.is_empty() && frac_part.is_empty() {
            return None;
        }
        let unit_len = rest
            .char_indices()
            .find(|(_, c)| c.is_ascii_digit() || *c == '.')
            .map_or(rest.len(), |(i, _)| i);
        let unit: u128 = match &rest[..unit_len] {
            "ns" => 1,
            "us" | "\u{b5}s" | "\u{3bc}s" => 1_000,
            "ms" => 1_000_000,
            "s" => 1_000_000_000,
            "m" => 60_000_000_000,
            "h" => 3_600_000_000_000,
            _ => return None,
        };
        rest = &rest[unit_len..];
        let whole: u128 = if int_part.is_empty() {
            0
        } else {
            int_part.parse().ok()?
        };
        let mut frac_nanos: u128 = 0;
        if !frac_part.is_empty() {
            let digits = &frac_part[..frac_part.len().min(30)];
            let numerator: u128 = digits.parse().ok()?;
            frac_nanos = numerator * unit / 10u128.pow(digits.len() as u32);
        }
        total = total.checked_add(whole.checked_mul(unit)?.checked_add(frac_nanos)?)?;
    }
    // Go rejects durations that overflow int64 nanoseconds.
    (total <= i64::MAX as u128).then_some(total)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bools() {
        assert_eq!(parse_bool("True"), Some(true));
        assert_eq!(parse_bool("0"), Some(false));
        assert_eq!(parse_bool("yes"), None);
        assert_eq!(parse_bool(" true"), None);
    }

    #[test]
    fn ports_and_ranges() {
        assert_eq!(parse_port("4191"), Some(4191));
        for bad in ["0", "65536", "-1", "+80", "8o", ""] {
            assert_eq!(parse_port(bad), None, "{bad}");
        }
        assert_eq!(
            parse_port_list("22, 8100-8102,").unwrap(),
            vec![
                PortRange {
                    lower: 22,
                    upper: 22
                },
                PortRange {
                    lower: 8100,
                    upper: 8102
                }
            ]
        );
        assert_eq!(parse_port_list("90-80"), Err("90-80".to_owned()));
        assert_eq!(parse_port_list("80,,81"), Err(String::new()));
        assert_eq!(parse_port_list("").unwrap(), vec![]);
        assert_eq!(
            join_ports(&parse_port_list("22,8100-8102,5-5").unwrap()),
            "22,8100-8102,5"
        );
    }

    #[test]
    fn durations() {
        let s = 1_000_000_000;
        assert_eq!(parse_go_duration("2m0s"), Some(120 * s));
        assert_eq!(parse_go_duration("1.5s"), Some(1_500_000_000));
        assert_eq!(parse_go_duration("100ms"), Some(100_000_000));
        assert_eq!(parse_go_duration("1h2m3s4ms"), Some(3723 * s + 4_000_000));
        assert_eq!(parse_go_duration(".5m"), Some(30 * s));
        assert_eq!(parse_go_duration("0"), Some(0));
        for bad in ["", "10", "1x", "-1s", "s", "1.s.", "1 s"] {
            assert_eq!(parse_go_duration(bad), None, "{bad}");
        }
    }
}
