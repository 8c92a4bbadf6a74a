//! Go's `strconv.FormatFloat` for the verbs `e E f F g G x X b`, and the `#` flag's rewrite
//! of its output: shortest digits, Go's exponent form (`1e+06`), hexadecimal floats.

/// Go's `#` flag on floats: keep a decimal point, and for `%g` (and `%x`) keep trailing
/// zeros up to the precision (6 by default). `num` has no sign.
pub(super) fn sharp_float(num: &str, verb: char, prec: Option<usize>) -> String {
    // Go keeps trailing zeros for these verbs only (not for `%#X`).
    let mut digits: i64 = match verb {
        'v' | 'g' | 'G' | 'x' => prec.map(|p| p as i64).unwrap_or(6),
        _ => 0,
    };
    let mut body = num.to_string();
    let mut tail = String::new();
    let mut has_point = false;
    let mut seen_nonzero = false;
    let hex = matches!(verb, 'x' | 'X');
    for (i, c) in num.char_indices() {
        match c {
            '.' => has_point = true,
            'p' | 'P' => {
                tail = num[i..].to_string();
                body = num[..i].to_string();
                break;
            }
            'e' | 'E' if !hex => {
                tail = num[i..].to_string();
                body = num[..i].to_string();
                break;
            }
            c => {
                if c != '0' {
                    seen_nonzero = true;
                }
                if seen_nonzero {
                    digits -= 1;
                }
            }
        }
    }
    if !has_point {
        if body == "0" {
            digits -= 1;
        }
        body.push('.');
    }
    while digits > 0 {
        body.push('0');
        digits -= 1;
    }
    body + &tail
}

/// Decimal digits and decimal-point position of `f` (non-negative), rounded to `sig`
/// significant digits, or the shortest digits that read back as `f` when `sig` is `None`.
fn digits(f: f64, sig: Option<usize>) -> (Vec<u8>, i32) {
    if f == 0.0 {
        return (vec![b'0'], 1);
    }
    let s = match sig {
        Some(p) => format!("{:.*e}", p.saturating_sub(1), f),
        None => format!("{f:e}"),
    };
    let (mant, exp) = s.split_once('e').unwrap_or((&s, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let mut d: Vec<u8> = mant.bytes().filter(u8::is_ascii_digit).collect();
    while d.len() > 1 && d.last() == Some(&b'0') {
        d.pop();
    }
    (d, exp + 1)
}

fn push_exp(out: &mut String, e: i32, upper: bool) {
    out.push(if upper { 'E' } else { 'e' });
    out.push(if e < 0 { '-' } else { '+' });
    let a = e.unsigned_abs();
    if a < 10 {
        out.push('0');
    }
    out.push_str(&a.to_string());
}

/// Go's `strconv.FormatFloat` for a non-negative finite `f` (signs and specials are the
/// caller's), verbs `e E f F g G`; `prec` None is `-1` (shortest).
pub(super) fn push_float(out: &mut String, f: f64, verb: char, prec: Option<usize>) {
    if f.is_nan() {
        out.push_str("NaN");
        return;
    }
    if f.is_infinite() {
        out.push_str("+Inf");
        return;
    }
    match verb {
        'x' | 'X' => push_hex_float(out, f, prec, verb == 'X'),
        'b' => {
            // Go's %b: the integer mantissa and a power-of-two exponent, `4503599627370496p-52`.
            let (mant, exp) = mantissa_exponent(f);
            out.push_str(&format!(
                "{mant}p{}{}",
                if exp - 52 >= 0 { "+" } else { "" },
                exp - 52
            ));
        }
        'e' | 'E' => {
            let upper = verb == 'E';
            match prec {
                Some(p) => {
                    let s = format!("{f:.p$e}");
                    let (mant, exp) = s.split_once('e').unwrap_or((&s, "0"));
                    out.push_str(mant);
                    push_exp(out, exp.parse().unwrap_or(0), upper);
                }
                None => {
                    let (d, dp) = digits(f, None);
                    push_e(out, &d, dp, d.len() - 1, upper);
                }
            }
        }
        'f' | 'F' => match prec {
            Some(p) => out.push_str(&format!("{f:.p$}")),
            None => {
                let (d, dp) = digits(f, None);
                push_f(out, &d, dp, (d.len() as i32 - dp).max(0) as usize);
            }
        },
        _ => {
            let upper = verb == 'G';
            let shortest = prec.is_none();
            let p = prec.map(|p| p.max(1));
            let (d, dp) = digits(f, p);
            let nd = d.len() as i32;
            let mut eprec = p.map(|p| p as i32).unwrap_or(nd);
            if eprec > nd && nd >= dp {
                eprec = nd;
            }
            if shortest {
                eprec = 6;
            }
            let exp = dp - 1;
            if exp < -4 || exp >= eprec {
                push_e(out, &d, dp, d.len() - 1, upper);
            } else {
                push_f(out, &d, dp, (nd - dp).max(0) as usize);
            }
        }
    }
}

/// The 53-bit mantissa (with its implicit bit) and the unbiased exponent of a finite,
/// non-negative float: `f = mant * 2^(exp - 52)`.
fn mantissa_exponent(f: f64) -> (u64, i32) {
    let bits = f.to_bits();
    let mut exp = ((bits >> 52) & 0x7ff) as i32;
    let mut mant = bits & ((1u64 << 52) - 1);
    if exp == 0 {
        exp += 1;
    } else {
        mant |= 1u64 << 52;
    }
    (mant, exp - 1023)
}

/// Go's `strconv.FormatFloat(f, 'x', prec, 64)` for a finite, non-negative `f`:
/// `0x1.8p+00`, with the fraction rounded to `prec` hex digits when given.
fn push_hex_float(out: &mut String, f: f64, prec: Option<usize>, upper: bool) {
    let (mut mant, mut exp) = mantissa_exponent(f);
    if mant == 0 {
        exp = 0;
    }
    // Put the leading 1 (if any) at bit 60.
    mant <<= 60 - 52;
    while mant != 0 && mant & (1 << 60) == 0 {
        mant <<= 1;
        exp -= 1;
    }
    if let Some(p) = prec.filter(|&p| p < 15) {
        let shift = p as u32 * 4;
        let extra = (mant << shift) & ((1 << 60) - 1);
        mant >>= 60 - shift;
        if extra | (mant & 1) > 1 << 59 {
            mant += 1;
        }
        mant <<= 60 - shift;
        if mant & (1 << 61) != 0 {
            mant >>= 1;
            exp += 1;
        }
    }
    let hex: &[u8; 16] = if upper {
        b"0123456789ABCDEF"
    } else {
        b"0123456789abcdef"
    };
    out.push('0');
    out.push(if upper { 'X' } else { 'x' });
    out.push(if (mant >> 60) & 1 == 1 { '1' } else { '0' });
    mant <<= 4;
    match prec {
        None if mant != 0 => {
            out.push('.');
            while mant != 0 {
                out.push(hex[((mant >> 60) & 15) as usize] as char);
                mant <<= 4;
            }
        }
        Some(p) if p > 0 => {
            out.push('.');
            for _ in 0..p {
                out.push(hex[((mant >> 60) & 15) as usize] as char);
                mant <<= 4;
            }
        }
        _ => {}
    }
    out.push(if upper { 'P' } else { 'p' });
    out.push(if exp < 0 { '-' } else { '+' });
    let e = exp.unsigned_abs();
    if e < 10 {
        out.push('0');
    }
    out.push_str(&e.to_string());
}

fn push_e(out: &mut String, d: &[u8], dp: i32, frac: usize, upper: bool) {
    out.push(d[0] as char);
    if frac > 0 {
        out.push('.');
        for i in 1..=frac {
            out.push(*d.get(i).unwrap_or(&b'0') as char);
        }
    }
    let e = if d == b"0" { 0 } else { dp - 1 };
    push_exp(out, e, upper);
}

fn push_f(out: &mut String, d: &[u8], dp: i32, frac: usize) {
    if dp > 0 {
        for i in 0..dp as usize {
            out.push(*d.get(i).unwrap_or(&b'0') as char);
        }
    } else {
        out.push('0');
    }
    if frac > 0 {
        out.push('.');
        for i in 0..frac as i32 {
            let j = dp + i;
            let c = if j < 0 {
                b'0'
            } else {
                *d.get(j as usize).unwrap_or(&b'0')
            };
            out.push(c as char);
        }
    }
}
