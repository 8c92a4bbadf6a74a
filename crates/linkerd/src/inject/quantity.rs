//! Kubernetes resource quantities (`500m`, `1.5`, `64Mi`): validation, the canonical spelling
//! Kubernetes stores (`0.5` is `500m`, `1536Mi` stays, `1024Ki` is `1Mi`), and whole cores.
//!
//! Upstream sends the proxy's resources through Go's `resource.Quantity`, which rewrites them in
//! canonical form; we do the same so that `config.linkerd.io/proxy-cpu-request: "0.5"` renders
//! `cpu: 500m` as upstream does.

/// The suffix family a quantity was written in; Kubernetes keeps it when printing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Format {
    /// `k`, `M`, `m`, ... or none.
    DecimalSi,
    /// `Ki`, `Mi`, ...
    BinarySi,
    /// `e3`, `E-2`.
    DecimalExponent,
}

/// A non-negative quantity: `mantissa × 10^exponent`, exactly.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Quantity {
    mantissa: u128,
    exponent: i32,
    format: Format,
}

/// The allowed spelling, for messages.
pub(crate) const QUANTITY_ALLOWED: &str =
    "a non-negative Kubernetes quantity such as 100m, 0.5, 1, 64Mi or 1Gi";

/// Most significant digits accepted (keeps the arithmetic exact in 128 bits).
const MAX_DIGITS: usize = 24;

impl Quantity {
    /// Parses a quantity as Kubernetes does (`resource.ParseQuantity`), for non-negative values.
    pub(crate) fn parse(text: &str) -> Option<Quantity> {
        let text = text.strip_prefix('+').unwrap_or(text);
        let number_len = text
            .bytes()
            .take_while(|b| b.is_ascii_digit() || *b == b'.')
            .count();
        let (number, suffix) = text.split_at(number_len);
        let (int_part, frac_part) = number.split_once('.').unwrap_or((number, ""));
        if (int_part.is_empty() && frac_part.is_empty()) || frac_part.contains('.') {
            return None;
        }
        let digits = format!("{int_part}{frac_part}");
        let digits = digits.trim_start_matches('0');
        if digits.len() > MAX_DIGITS {
            return None;
        }
        let mut mantissa: u128 = if digits.is_empty() {
            0
        } else {
            digits.parse().ok()?
        };
        let mut exponent = -(frac_part.len() as i32);
        let format = match suffix {
            "" => Format::DecimalSi,
            "n" => {
                exponent -= 9;
                Format::DecimalSi
            }
            "u" => {
                exponent -= 6;
                Format::DecimalSi
            }
            "m" => {
                exponent -= 3;
                Format::DecimalSi
            }
            "k" => {
                exponent += 3;
                Format::DecimalSi
            }
            "M" => {
                exponent += 6;
                Format::DecimalSi
            }
            "G" => {
                exponent += 9;
                Format::DecimalSi
            }
            "T" => {
                exponent += 12;
                Format::DecimalSi
            }
            "P" => {
                exponent += 15;
                Format::DecimalSi
            }
            "E" => {
                exponent += 18;
                Format::DecimalSi
            }
            "Ki" | "Mi" | "Gi" | "Ti" | "Pi" | "Ei" => {
                let power = match suffix {
                    "Ki" => 1,
                    "Mi" => 2,
                    "Gi" => 3,
                    "Ti" => 4,
                    "Pi" => 5,
                    _ => 6,
                };
                mantissa = mantissa.checked_mul(1u128 << (10 * power))?;
                Format::BinarySi
            }
            _ => {
                let exp = suffix.strip_prefix(['e', 'E'])?;
                let exp_digits = exp.strip_prefix(['+', '-']).unwrap_or(exp);
                if exp_digits.is_empty() || !exp_digits.bytes().all(|b| b.is_ascii_digit()) {
                    return None;
                }
                let e: i32 = exp.parse().ok()?;
                if !(-60..=60).contains(&e) {
                    return None;
                }
                exponent += e;
                Format::DecimalExponent
            }
        };
        let mut q = Quantity {
            mantissa,
            exponent,
            format,
        };
        q.normalize();
        // Kubernetes keeps nano precision at most, rounding up.
        while q.exponent < -9 {
            let rounded_up = q.mantissa % 10 != 0;
            q.mantissa = q.mantissa / 10 + u128::from(rounded_up);
            q.exponent += 1;
        }
        q.normalize();
        Some(q)
    }

    fn normalize(&mut self) {
        if self.mantissa == 0 {
            self.exponent = 0;
            return;
        }
        while self.mantissa % 10 == 0 {
            self.mantissa /= 10;
            self.exponent += 1;
        }
    }

    /// The value as an integer, when it is one.
    fn as_integer(&self) -> Option<u128> {
        if self.exponent >= 0 {
            self.mantissa
                .checked_mul(10u128.checked_pow(self.exponent as u32)?)
        } else {
            None
        }
    }

    /// The canonical spelling (Go's `Quantity.String()`).
    pub(crate) fn canonical(&self) -> String {
        if self.mantissa == 0 {
            return "0".into();
        }
        let mut format = self.format;
        if format == Format::BinarySi {
            match self.as_integer() {
                Some(v) if v >= 1024 => {
                    let mut value = v;
                    let mut power = 0;
                    while power < 6 && value % 1024 == 0 {
                        value /= 1024;
                        power += 1;
                    }
                    let suffix = ["", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"][power];
                    return format!("{value}{suffix}");
                }
                _ => format = Format::DecimalSi,
            }
        }
        // Decimal: the exponent goes down to a multiple of three.
        let mut mantissa = self.mantissa;
        let mut exponent = self.exponent;
        while exponent.rem_euclid(3) != 0 {
            mantissa *= 10;
            exponent -= 1;
        }
        let suffix = match (format, exponent) {
            (_, 0) => String::new(),
            (Format::DecimalSi, -9) => "n".into(),
            (Format::DecimalSi, -6) => "u".into(),
            (Format::DecimalSi, -3) => "m".into(),
            (Format::DecimalSi, 3) => "k".into(),
            (Format::DecimalSi, 6) => "M".into(),
            (Format::DecimalSi, 9) => "G".into(),
            (Format::DecimalSi, 12) => "T".into(),
            (Format::DecimalSi, 15) => "P".into(),
            (Format::DecimalSi, 18) => "E".into(),
            (_, e) => format!("e{e}"),
        };
        format!("{mantissa}{suffix}")
    }

    /// Whole cores for a CPU quantity, rounded up (`1500m` is 2), as upstream sets
    /// `LINKERD2_PROXY_CORES` from a CPU limit.
    pub(crate) fn ceil_units(&self) -> u128 {
        if self.exponent >= 0 {
            return self.as_integer().unwrap_or(u128::MAX);
        }
        let divisor = 10u128.pow((-self.exponent) as u32);
        self.mantissa.div_ceil(divisor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn canon(text: &str) -> String {
        Quantity::parse(text)
            .unwrap_or_else(|| panic!("{text}"))
            .canonical()
    }

    #[test]
    fn canonical_spellings_match_kubernetes() {
        let cases = [
            ("0.5", "500m"),
            ("1.5", "1500m"),
            ("0.15", "150m"),
            ("1", "1"),
            ("100m", "100m"),
            ("110m", "110m"),
            ("1000m", "1"),
            ("1000", "1k"),
            ("1500", "1500"),
            ("256Mi", "256Mi"),
            ("64Mi", "64Mi"),
            ("1024Ki", "1Mi"),
            ("1.5Gi", "1536Mi"),
            ("0.5Ki", "512"),
            ("1e3", "1e3"),
            ("1.5e3", "1500"),
            ("0", "0"),
            ("0.0000000001", "1n"),
            ("10M", "10M"),
        ];
        for (input, expected) in cases {
            assert_eq!(canon(input), expected, "{input}");
        }
    }

    #[test]
    fn rejects_what_kubernetes_rejects() {
        for bad in [
            "", "-1", "1.2.3", "abc", "1Ki2", "1mi", "m", ".", "1e", "1 m",
        ] {
            assert_eq!(Quantity::parse(bad), None, "{bad}");
        }
    }

    #[test]
    fn cores_round_up() {
        for (input, cores) in [("1", 1), ("1500m", 2), ("0.5", 1), ("2", 2), ("100m", 1)] {
            assert_eq!(
                Quantity::parse(input).unwrap().ceil_units(),
                cores,
                "{input}"
            );
        }
    }
}
