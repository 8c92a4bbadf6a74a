//! PEM text and the few DER shapes of P-256 keys that the identity material needs.
//!
//! Reading is strict inside a block and lenient outside (text around blocks is skipped, as Go's
//! `pem.Decode` does), so that a file from `openssl x509 -text` still reads but a corrupted block
//! is reported with what is wrong. Keys are written as SEC1 `EC PRIVATE KEY` with the curve named,
//! the only form linkerd's identity controller reads (`x509.ParseECPrivateKey`).

use base64::Engine as _;

/// One `-----BEGIN LABEL-----` … `-----END LABEL-----` block, decoded.
#[derive(Debug)]
pub(crate) struct Block<'a> {
    /// The label, e.g. `CERTIFICATE` or `EC PRIVATE KEY`.
    pub label: &'a str,
    /// The decoded bytes between the lines.
    pub der: Vec<u8>,
}

/// Decodes every PEM block in `text`; `Err` says what is wrong, in words for a person.
pub(crate) fn blocks(text: &str) -> Result<Vec<Block<'_>>, String> {
    let mut found = Vec::new();
    let mut open: Option<(&str, usize, String)> = None;
    for (index, raw_line) in text.lines().enumerate() {
        let line = raw_line.trim();
        let line_no = index + 1;
        match &mut open {
            None => {
                if let Some(rest) = line.strip_prefix("-----BEGIN ") {
                    let label = rest
                        .strip_suffix("-----")
                        .ok_or_else(|| format!("line {line_no}: malformed BEGIN line {line:?}"))?;
                    open = Some((label, line_no, String::new()));
                } else if line.starts_with("-----END ") {
                    return Err(format!(
                        "line {line_no}: {line:?} has no BEGIN line before it"
                    ));
                }
            }
            Some((label, begin_line, body)) => {
                if let Some(rest) = line.strip_prefix("-----END ") {
                    if rest.strip_suffix("-----") != Some(*label) {
                        return Err(format!(
                            "line {line_no}: BEGIN {label} (line {begin_line}) is closed by {line:?}"
                        ));
                    }
                    let der = base64::engine::general_purpose::STANDARD
                        .decode(body.as_bytes())
                        .map_err(|e| {
                            format!(
                                "the {label} block at line {begin_line} is not valid base64 ({e})"
                            )
                        })?;
                    if der.is_empty() {
                        return Err(format!("the {label} block at line {begin_line} is empty"));
                    }
                    found.push(Block { label, der });
                    open = None;
                } else if line.contains(':') {
                    return Err(format!(
                        "line {line_no}: the {label} block has PEM headers ({line:?}); \
                         encrypted keys are not supported"
                    ));
                } else if line.starts_with("-----") {
                    return Err(format!(
                        "line {line_no}: BEGIN {label} (line {begin_line}) is closed by {line:?}"
                    ));
                } else {
                    body.push_str(line);
                }
            }
        }
    }
    if let Some((label, begin_line, _)) = open {
        return Err(format!(
            "BEGIN {label} at line {begin_line} has no matching -----END {label}----- line"
        ));
    }
    if found.is_empty() {
        return Err("no PEM block (-----BEGIN ...-----) found".to_owned());
    }
    Ok(found)
}

/// Checks that `text` holds one or more certificates and nothing else; returns their DER.
pub(crate) fn certificates(text: &str) -> Result<Vec<Vec<u8>>, String> {
    blocks(text)?
        .into_iter()
        .map(|block| {
            if block.label == "CERTIFICATE" {
                Ok(block.der)
            } else {
                Err(format!(
                    "expected CERTIFICATE blocks, found a {} block",
                    block.label
                ))
            }
        })
        .collect()
}

/// Checks that `text` holds exactly one private key block of [`PRIVATE_KEY_LABELS`].
pub(crate) fn private_key(text: &str) -> Result<Block<'_>, String> {
    let mut found = blocks(text)?;
    if found.len() != 1 {
        return Err(format!(
            "expected one private key block, found {} blocks",
            found.len()
        ));
    }
    let block = found.remove(0);
    if PRIVATE_KEY_LABELS.contains(&block.label) {
        Ok(block)
    } else {
        Err(wrong_key_label(block.label))
    }
}

/// Says which key blocks are read, and which one was found instead.
fn wrong_key_label(found: &str) -> String {
    format!(
        "expected an EC PRIVATE KEY, RSA PRIVATE KEY or PRIVATE KEY (PKCS#8) block, found a \
         {found} block"
    )
}

/// Writes one PEM block, 64 base64 characters a line, ending in a newline (as Go writes it).
pub(crate) fn encode(label: &str, der: &[u8]) -> String {
    let b64 = base64::engine::general_purpose::STANDARD.encode(der);
    let mut out = String::with_capacity(b64.len() + b64.len() / 64 + 2 * label.len() + 40);
    out.push_str("-----BEGIN ");
    out.push_str(label);
    out.push_str("-----\n");
    let mut rest = b64.as_str();
    while !rest.is_empty() {
        // base64 output is ASCII, so any byte index is a character boundary.
        let (line, tail) = rest.split_at(rest.len().min(64));
        out.push_str(line);
        out.push('\n');
        rest = tail;
    }
    out.push_str("-----END ");
    out.push_str(label);
    out.push_str("-----\n");
    out
}

/// DER of the OID prime256v1 (1.2.840.10045.3.1.7), without tag and length.
pub(crate) const P256_OID: &[u8] = &[0x2a, 0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07];
/// DER of the OID id-ecPublicKey (1.2.840.10045.2.1), without tag and length.
pub(crate) const EC_PUBLIC_KEY_OID: &[u8] = &[0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02, 0x01];

/// A P-256 private key: the scalar and, when the encoding carries it, the public point.
pub(crate) struct EcKey {
    /// The 32-byte private scalar.
    pub private: Vec<u8>,
    /// The uncompressed public point (65 bytes, `04 || x || y`), if present.
    pub public: Option<Vec<u8>>,
}

/// Reads one DER tag-length-value; returns (tag, value, rest).
pub(crate) fn tlv(input: &[u8]) -> Result<(u8, &[u8], &[u8]), String> {
    let bad = || "truncated or malformed DER".to_owned();
    let (&tag, rest) = input.split_first().ok_or_else(bad)?;
    let (&first, rest) = rest.split_first().ok_or_else(bad)?;
    let (len, rest) = if first < 0x80 {
        (usize::from(first), rest)
    } else {
        let count = usize::from(first & 0x7f);
        if count == 0 || count > 2 || rest.len() < count {
            return Err(bad());
        }
        let len = rest[..count]
            .iter()
            .fold(0usize, |acc, &b| (acc << 8) | usize::from(b));
        (len, &rest[count..])
    };
    if rest.len() < len {
        return Err(bad());
    }
    Ok((tag, &rest[..len], &rest[len..]))
}

/// Reads a TLV that must have `tag`; `wrong_tag` says what was expected when it has another.
pub(crate) fn expect_tag(
    input: &[u8],
    tag: u8,
    wrong_tag: impl FnOnce() -> String,
) -> Result<(&[u8], &[u8]), String> {
    let (found, value, rest) = tlv(input)?;
    if found == tag {
        Ok((value, rest))
    } else {
        Err(wrong_tag())
    }
}

/// Reads a key's TLV that must have `tag`.
fn expect<'a>(input: &'a [u8], tag: u8, what: &str) -> Result<(&'a [u8], &'a [u8]), String> {
    expect_tag(input, tag, || format!("malformed key: expected {what}"))
}

/// Parses a SEC1 `ECPrivateKey` (RFC 5915) of a P-256 key.
pub(crate) fn parse_sec1(der: &[u8]) -> Result<EcKey, String> {
    let (body, _) = expect(der, 0x30, "an ECPrivateKey sequence")?;
    let (version, body) = expect(body, 0x02, "the ECPrivateKey version")?;
    if version != [1] {
        return Err("malformed key: ECPrivateKey version is not 1".to_owned());
    }
    let (private, mut body) = expect(body, 0x04, "the private key octets")?;
    if private.len() != 32 {
        return Err(format!(
            "not a P-256 key: the private scalar has {} bytes, not 32",
            private.len()
        ));
    }
    let mut public = None;
    while !body.is_empty() {
        let (tag, value, rest) = tlv(body)?;
        match tag {
            0xa0 => {
                let (oid, _) = expect(value, 0x06, "the curve OID")?;
                if oid != P256_OID {
                    return Err("not a P-256 (prime256v1) key".to_owned());
                }
            }
            0xa1 => {
                let (bits, _) = expect(value, 0x03, "the public key bit string")?;
                match bits.split_first() {
                    Some((0, point)) if point.len() == 65 && point[0] == 4 => {
                        public = Some(point.to_vec());
                    }
                    _ => return Err("malformed key: unexpected public key encoding".to_owned()),
                }
            }
            _ => {}
        }
        body = rest;
    }
    Ok(EcKey {
        private: private.to_vec(),
        public,
    })
}

/// Parses a PKCS#8 `PrivateKeyInfo` holding a P-256 key.
pub(crate) fn parse_pkcs8(der: &[u8]) -> Result<EcKey, String> {
    let (algorithm, inner) = pkcs8_parts(der)?;
    let (alg_oid, params) = expect(algorithm, 0x06, "the key algorithm OID")?;
    if alg_oid != EC_PUBLIC_KEY_OID {
        return Err("not an EC or RSA key".to_owned());
    }
    let (curve, _) = expect(params, 0x06, "the curve OID")?;
    if curve != P256_OID {
        return Err("not a P-256 (prime256v1) key".to_owned());
    }
    parse_sec1(inner)
}

/// DER of the OID rsaEncryption (1.2.840.113549.1.1.1), without tag and length.
const RSA_ENCRYPTION_OID: &[u8] = &[0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x01];

/// The PEM labels a private key may come under: SEC1 EC, PKCS#1 RSA, and PKCS#8 (EC or RSA),
/// the three that upstream's identity code and Go's `tls.X509KeyPair` read.
pub(crate) const PRIVATE_KEY_LABELS: &[&str] =
    &["EC PRIVATE KEY", "RSA PRIVATE KEY", "PRIVATE KEY"];

/// A private key, read far enough to compare it with a certificate's public key.
pub(crate) enum PrivateKey {
    /// A P-256 key.
    Ec(EcKey),
    /// An RSA key: its modulus and public exponent, as DER integers.
    Rsa {
        /// The modulus `n`.
        modulus: Vec<u8>,
        /// The public exponent `e`.
        exponent: Vec<u8>,
    },
}

/// Reads a private key block of one of [`PRIVATE_KEY_LABELS`].
pub(crate) fn parse_private_key(label: &str, der: &[u8]) -> Result<PrivateKey, String> {
    match label {
        "EC PRIVATE KEY" => parse_sec1(der).map(PrivateKey::Ec),
        "RSA PRIVATE KEY" => parse_pkcs1(der),
        "PRIVATE KEY" => {
            let (algorithm, inner) = pkcs8_parts(der)?;
            let (alg_oid, _) = expect(algorithm, 0x06, "the key algorithm OID")?;
            if alg_oid == RSA_ENCRYPTION_OID {
                parse_pkcs1(inner)
            } else {
                parse_pkcs8(der).map(PrivateKey::Ec)
            }
        }
        other => Err(wrong_key_label(other)),
    }
}

/// The algorithm identifier and the inner key octets of a PKCS#8 `PrivateKeyInfo`.
fn pkcs8_parts(der: &[u8]) -> Result<(&[u8], &[u8]), String> {
    let (body, _) = expect(der, 0x30, "a PrivateKeyInfo sequence")?;
    let (_version, body) = expect(body, 0x02, "the PrivateKeyInfo version")?;
    let (algorithm, body) = expect(body, 0x30, "the key algorithm")?;
    let (inner, _) = expect(body, 0x04, "the private key octets")?;
    Ok((algorithm, inner))
}

/// Parses a PKCS#1 `RSAPrivateKey` (RFC 8017) far enough to know its public key.
fn parse_pkcs1(der: &[u8]) -> Result<PrivateKey, String> {
    let (body, _) = expect(der, 0x30, "an RSAPrivateKey sequence")?;
    let (_version, body) = expect(body, 0x02, "the RSAPrivateKey version")?;
    let (modulus, body) = expect(body, 0x02, "the RSA modulus")?;
    let (exponent, _) = expect(body, 0x02, "the RSA public exponent")?;
    Ok(PrivateKey::Rsa {
        modulus: modulus.to_vec(),
        exponent: exponent.to_vec(),
    })
}

/// Encodes a length in DER.
fn push_len(out: &mut Vec<u8>, len: usize) {
    if len < 0x80 {
        out.push(len as u8);
    } else if len < 0x100 {
        out.extend_from_slice(&[0x81, len as u8]);
    } else {
        out.extend_from_slice(&[0x82, (len >> 8) as u8, len as u8]);
    }
}

/// Encodes one TLV.
fn der(tag: u8, value: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(value.len() + 4);
    out.push(tag);
    push_len(&mut out, value.len());
    out.extend_from_slice(value);
    out
}

/// The `ECPrivateKey` body fields shared by SEC1 and PKCS#8 output.
fn ec_private_key(private: &[u8], public: &[u8], with_curve: bool) -> Vec<u8> {
    let mut body = der(0x02, &[1]);
    body.extend(der(0x04, private));
    if with_curve {
        body.extend(der(0xa0, &der(0x06, P256_OID)));
    }
    let mut bits = vec![0u8];
    bits.extend_from_slice(public);
    body.extend(der(0xa1, &der(0x03, &bits)));
    der(0x30, &body)
}

/// SEC1 DER with the curve named and the public key included, as Go's `MarshalECPrivateKey`.
pub(crate) fn sec1_der(private: &[u8], public: &[u8]) -> Vec<u8> {
    ec_private_key(private, public, true)
}

/// PKCS#8 v1 DER in the shape `ring` reads (curve in the algorithm, public key included).
pub(crate) fn pkcs8_der(private: &[u8], public: &[u8]) -> Vec<u8> {
    let mut algorithm = der(0x06, EC_PUBLIC_KEY_OID);
    algorithm.extend(der(0x06, P256_OID));
    let mut body = der(0x02, &[0]);
    body.extend(der(0x30, &algorithm));
    body.extend(der(0x04, &ec_private_key(private, public, false)));
    der(0x30, &body)
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = "-----BEGIN THING-----\naGVsbG8=\n-----END THING-----\n";

    #[test]
    fn reads_a_block_with_text_around_it() {
        let text = format!("Certificate:\n  junk\n{SAMPLE}trailing words\n");
        let found = blocks(&text).expect("valid");
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].label, "THING");
        assert_eq!(found[0].der, b"hello");
    }

    #[test]
    fn reports_bad_base64_with_the_block_line() {
        let err = blocks("\n-----BEGIN THING-----\naGVsb!8=\n-----END THING-----\n")
            .expect_err("invalid");
        assert!(
            err.contains("THING block at line 2 is not valid base64"),
            "{err}"
        );
    }

    #[test]
    fn reports_a_missing_end_line() {
        let err = blocks("-----BEGIN THING-----\naGVsbG8=\n").expect_err("invalid");
        assert!(err.contains("no matching -----END THING-----"), "{err}");
    }

    #[test]
    fn reports_a_mismatched_end_line() {
        let err = blocks("-----BEGIN A-----\naGVsbG8=\n-----END B-----\n").expect_err("invalid");
        assert!(err.contains("BEGIN A (line 1) is closed by"), "{err}");
    }

    #[test]
    fn encode_round_trips_and_wraps_at_64() {
        let data: Vec<u8> = (0..=255).collect();
        let text = encode("DATA", &data);
        assert!(text.lines().all(|l| l.len() <= 64));
        assert_eq!(blocks(&text).expect("valid")[0].der, data);
    }

    #[test]
    fn sec1_and_pkcs8_round_trip() {
        let private = [7u8; 32];
        let mut public = vec![4u8];
        public.extend([9u8; 64]);
        let sec1 = parse_sec1(&sec1_der(&private, &public)).expect("sec1");
        assert_eq!(sec1.private, private);
        assert_eq!(sec1.public.as_deref(), Some(&public[..]));
        let pkcs8 = parse_pkcs8(&pkcs8_der(&private, &public)).expect("pkcs8");
        assert_eq!(pkcs8.private, private);
        assert_eq!(pkcs8.public.as_deref(), Some(&public[..]));
    }

    #[test]
    fn sec1_der_has_go_s_layout() {
        let mut public = vec![4u8];
        public.extend([0u8; 64]);
        let der = sec1_der(&[0u8; 32], &public);
        // 30 77 02 01 01 04 20 …: the prefix of every Go/OpenSSL P-256 EC PRIVATE KEY.
        assert_eq!(&der[..7], &[0x30, 0x77, 0x02, 0x01, 0x01, 0x04, 0x20]);
        assert_eq!(der.len(), 0x79);
    }
}
