//! The parts of an X.509 certificate (RFC 5280) that the identity checks read, from DER.
//!
//! Only what `linkerd install` looks at: names, validity, public key, signature, basic
//! constraints and DNS names. Reading these few fields by hand spares every fresh build a full
//! ASN.1 stack (x509-parser and its derive macros took about a seventh of a release build's CPU;
//! the tests still check this reader against x509-parser).

use super::pem::{expect_tag, tlv};
use crate::digest::{sha256_of_fields, PassedChecks};
use std::fmt;

const SEQUENCE: u8 = 0x30;
const SET: u8 = 0x31;
const INTEGER: u8 = 0x02;
const BIT_STRING: u8 = 0x03;
const OCTET_STRING: u8 = 0x04;
const OID: u8 = 0x06;
const BOOLEAN: u8 = 0x01;
const UTC_TIME: u8 = 0x17;
const GENERALIZED_TIME: u8 = 0x18;
const VERSION: u8 = 0xa0;
const EXTENSIONS: u8 = 0xa3;
const DNS_NAME: u8 = 0x82;

/// DER of the OID basicConstraints (2.5.29.19), without tag and length.
const BASIC_CONSTRAINTS_OID: &[u8] = &[0x55, 0x1d, 0x13];
/// DER of the OID subjectAltName (2.5.29.17), without tag and length.
const SUBJECT_ALT_NAME_OID: &[u8] = &[0x55, 0x1d, 0x11];
/// DER of the OID subjectKeyIdentifier (2.5.29.14), without tag and length.
const SUBJECT_KEY_ID_OID: &[u8] = &[0x55, 0x1d, 0x0e];

/// A certificate's fields, borrowed from its DER.
#[derive(Debug)]
pub(crate) struct Certificate<'d> {
    /// The whole `tbsCertificate` element: the bytes the issuer signed.
    pub signed: &'d [u8],
    /// The signature algorithm's OID (without tag and length).
    pub signature_algorithm: &'d [u8],
    /// The signature's bytes.
    pub signature: &'d [u8],
    /// Who signed it.
    pub issuer: Name<'d>,
    /// Whom it is for.
    pub subject: Name<'d>,
    /// notBefore, in seconds since 1970.
    pub not_before: i64,
    /// notAfter, in seconds since 1970.
    pub not_after: i64,
    /// The subject's public key.
    pub public_key: PublicKeyInfo<'d>,
    /// basicConstraints says CA:TRUE.
    pub is_ca: bool,
    /// The subjectAltName's DNS names.
    pub dns_names: Vec<&'d str>,
    /// The subjectKeyIdentifier, when the certificate has one: what the certificates it signs
    /// must name as their authorityKeyIdentifier (OpenSSL refuses a chain where they differ).
    pub subject_key_id: Option<&'d [u8]>,
}

/// A `SubjectPublicKeyInfo`.
#[derive(Debug)]
pub(crate) struct PublicKeyInfo<'d> {
    /// The key algorithm's OID (without tag and length).
    pub algorithm: &'d [u8],
    /// The algorithm's parameter when it is an OID (an EC key's curve).
    pub curve: Option<&'d [u8]>,
    /// The key's bytes (an EC point, or an RSAPublicKey's DER).
    pub key: &'d [u8],
}

/// A distinguished name; equal when its DER is, as Go compares issuer and subject.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Name<'d> {
    der: &'d [u8],
}

fn expect<'d>(input: &'d [u8], tag: u8, what: &str) -> Result<(&'d [u8], &'d [u8]), String> {
    expect_tag(input, tag, || format!("expected {what}"))
}

/// Reads a DER certificate.
pub(crate) fn parse(der: &[u8]) -> Result<Certificate<'_>, String> {
    let (certificate, _) = expect(der, SEQUENCE, "a certificate sequence")?;
    let (tbs, rest) = expect(certificate, SEQUENCE, "a tbsCertificate sequence")?;
    let signed = &certificate[..certificate.len() - rest.len()];
    let (algorithm, rest) = expect(rest, SEQUENCE, "the signature algorithm")?;
    let (signature_algorithm, _) = expect(algorithm, OID, "the signature algorithm OID")?;
    let (signature, _) = expect(rest, BIT_STRING, "the signature")?;
    let signature = signature.get(1..).ok_or("the signature is empty")?;

    let mut body = tbs;
    if let Ok((VERSION, _, rest)) = tlv(body) {
        body = rest;
    }
    let (_, body) = expect(body, INTEGER, "the serial number")?;
    let (_, body) = expect(body, SEQUENCE, "the tbsCertificate's signature algorithm")?;
    let (issuer, body) = expect(body, SEQUENCE, "the issuer name")?;
    let (validity, body) = expect(body, SEQUENCE, "the validity")?;
    let (not_before, validity) = time(validity, "notBefore")?;
    let (not_after, _) = time(validity, "notAfter")?;
    let (subject, body) = expect(body, SEQUENCE, "the subject name")?;
    let (spki, mut body) = expect(body, SEQUENCE, "the subject public key info")?;
    let public_key = public_key_info(spki)?;

    let (mut is_ca, mut dns_names, mut subject_key_id) = (false, Vec::new(), None);
    while !body.is_empty() {
        let (tag, value, rest) = tlv(body)?;
        body = rest;
        if tag != EXTENSIONS {
            continue;
        }
        let (mut extensions, _) = expect(value, SEQUENCE, "the extensions")?;
        while !extensions.is_empty() {
            let (extension, rest) = expect(extensions, SEQUENCE, "an extension")?;
            extensions = rest;
            let (id, mut extension) = expect(extension, OID, "an extension OID")?;
            if let Ok((BOOLEAN, _, rest)) = tlv(extension) {
                extension = rest;
            }
            let (value, _) = expect(extension, OCTET_STRING, "an extension value")?;
            if id == BASIC_CONSTRAINTS_OID {
                let (constraints, _) = expect(value, SEQUENCE, "basicConstraints")?;
                is_ca = matches!(tlv(constraints), Ok((BOOLEAN, [flag], _)) if *flag != 0);
            } else if id == SUBJECT_KEY_ID_OID {
                let (key_id, _) = expect(value, OCTET_STRING, "subjectKeyIdentifier")?;
                subject_key_id = Some(key_id);
            } else if id == SUBJECT_ALT_NAME_OID {
                let (mut names, _) = expect(value, SEQUENCE, "subjectAltName")?;
                while !names.is_empty() {
                    let (tag, name, rest) = tlv(names)?;
                    names = rest;
                    if tag == DNS_NAME {
                        dns_names.push(
                            std::str::from_utf8(name)
                                .map_err(|_| "a DNS name in subjectAltName is not text")?,
                        );
                    }
                }
            }
        }
    }
    Ok(Certificate {
        signed,
        signature_algorithm,
        signature,
        issuer: Name { der: issuer },
        subject: Name { der: subject },
        not_before,
        not_after,
        public_key,
        is_ca,
        dns_names,
        subject_key_id,
    })
}

fn public_key_info(spki: &[u8]) -> Result<PublicKeyInfo<'_>, String> {
    let (algorithm, rest) = expect(spki, SEQUENCE, "the public key algorithm")?;
    let (algorithm_oid, parameters) = expect(algorithm, OID, "the public key algorithm OID")?;
    let curve = match tlv(parameters) {
        Ok((OID, curve, _)) => Some(curve),
        _ => None,
    };
    let (key, _) = expect(rest, BIT_STRING, "the public key")?;
    Ok(PublicKeyInfo {
        algorithm: algorithm_oid,
        curve,
        key: key.get(1..).ok_or("the public key is empty")?,
    })
}

/// Reads a UTCTime or GeneralizedTime (`Z` only, as RFC 5280 requires) as seconds since 1970.
fn time<'d>(input: &'d [u8], what: &str) -> Result<(i64, &'d [u8]), String> {
    let bad = || format!("unreadable {what}");
    let (tag, value, rest) = tlv(input)?;
    let text = std::str::from_utf8(value).map_err(|_| bad())?;
    let digits = text.strip_suffix('Z').ok_or_else(bad)?;
    if !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(bad());
    }
    let (year, rest_digits) = match (tag, digits.len()) {
        (UTC_TIME, 12) => {
            let yy: i32 = digits[..2].parse().map_err(|_| bad())?;
            (if yy < 50 { 2000 + yy } else { 1900 + yy }, &digits[2..])
        }
        (GENERALIZED_TIME, 14) => (digits[..4].parse().map_err(|_| bad())?, &digits[4..]),
        _ => return Err(bad()),
    };
    let field =
        |i: usize| -> Result<u8, String> { rest_digits[i..i + 2].parse().map_err(|_| bad()) };
    let month = time::Month::try_from(field(0)?).map_err(|_| bad())?;
    let date = time::Date::from_calendar_date(year, month, field(2)?).map_err(|_| bad())?;
    let clock = time::Time::from_hms(field(4)?, field(6)?, field(8)?).map_err(|_| bad())?;
    let seconds = time::PrimitiveDateTime::new(date, clock)
        .assume_utc()
        .unix_timestamp();
    Ok((seconds, rest))
}

/// The short names OpenSSL and Go print for the attributes certificates usually carry.
fn attribute_name(oid: &[u8]) -> Option<&'static str> {
    Some(match oid {
        [0x55, 0x04, 0x03] => "CN",
        [0x55, 0x04, 0x05] => "serialNumber",
        [0x55, 0x04, 0x06] => "C",
        [0x55, 0x04, 0x07] => "L",
        [0x55, 0x04, 0x08] => "ST",
        [0x55, 0x04, 0x09] => "street",
        [0x55, 0x04, 0x0a] => "O",
        [0x55, 0x04, 0x0b] => "OU",
        [0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x09, 0x01] => "Email",
        [0x09, 0x92, 0x26, 0x89, 0x93, 0xf2, 0x2c, 0x64, 0x01, 0x19] => "DC",
        _ => return None,
    })
}

/// The dotted form of an OID's DER, `1.2.840.10045.4.3.2`.
pub(crate) fn dotted(oid: &[u8]) -> String {
    let mut parts: Vec<u64> = Vec::new();
    let mut value: u64 = 0;
    for &byte in oid {
        value = (value << 7) | u64::from(byte & 0x7f);
        if byte & 0x80 == 0 {
            if parts.is_empty() {
                let first = (value / 40).min(2);
                parts.push(first);
                parts.push(value - first * 40);
            } else {
                parts.push(value);
            }
            value = 0;
        }
    }
    parts
        .iter()
        .map(u64::to_string)
        .collect::<Vec<_>>()
        .join(".")
}

/// The names of the signature algorithms a CA certificate is usually signed with.
pub(crate) fn signature_algorithm_name(oid: &[u8]) -> String {
    let name = match oid {
        [0x2a, 0x86, 0x48, 0xce, 0x3d, 0x04, 0x03, 0x02] => "ecdsa-with-SHA256",
        [0x2a, 0x86, 0x48, 0xce, 0x3d, 0x04, 0x03, 0x03] => "ecdsa-with-SHA384",
        [0x2a, 0x86, 0x48, 0xce, 0x3d, 0x04, 0x03, 0x04] => "ecdsa-with-SHA512",
        [0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x05] => "sha1WithRSAEncryption",
        [0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x0b] => "sha256WithRSAEncryption",
        [0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x0c] => "sha384WithRSAEncryption",
        [0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x0d] => "sha512WithRSAEncryption",
        [0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x0a] => "rsassa-pss",
        [0x2b, 0x65, 0x70] => "ED25519",
        _ => return dotted(oid),
    };
    name.to_owned()
}

/// One attribute of a distinguished name: its type's OID, its value's string tag and bytes.
pub(crate) struct Attribute<'d> {
    /// The attribute type's OID (without tag and length).
    pub oid: &'d [u8],
    /// The ASN.1 tag of the value (UTF8String 0x0c, PrintableString 0x13, ...).
    pub tag: u8,
    /// The value's bytes.
    pub value: &'d [u8],
}

impl<'d> Name<'d> {
    /// Every attribute in order, each RDN's attributes one after the other; `None` when an
    /// RDN holds more than one attribute (a name that cannot be written back one by one).
    pub(crate) fn single_attributes(&self) -> Option<Vec<Attribute<'d>>> {
        let mut rdns = self.der;
        let mut found = Vec::new();
        while !rdns.is_empty() {
            let (tag, attributes, rest) = tlv(rdns).ok()?;
            rdns = rest;
            if tag != SET {
                return None;
            }
            let (attribute, after) = expect(attributes, SEQUENCE, "an attribute").ok()?;
            if !after.is_empty() {
                return None;
            }
            let (oid, value) = expect(attribute, OID, "an attribute type").ok()?;
            let (tag, value, _) = tlv(value).ok()?;
            found.push(Attribute { oid, tag, value });
        }
        Some(found)
    }
}

/// The SHA-256 fingerprint of a certificate's DER as OpenSSL prints it (`openssl x509
/// -fingerprint -sha256`): uppercase hex pairs joined by colons.
pub(crate) fn fingerprint(der: &[u8]) -> String {
    let digest = ring::digest::digest(&ring::digest::SHA256, der);
    digest
        .as_ref()
        .iter()
        .map(|b| format!("{b:02X}"))
        .collect::<Vec<_>>()
        .join(":")
}

/// The arcs of an OID's DER, `[1, 2, 840, 10045, 4, 3, 2]`.
pub(crate) fn arcs(oid: &[u8]) -> Vec<u64> {
    dotted(oid)
        .split('.')
        .filter_map(|part| part.parse().ok())
        .collect()
}

impl fmt::Display for Name<'_> {
    /// `CN=root.linkerd.cluster.local, O=example`: attributes in the order the certificate
    /// lists them.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut rdns = self.der;
        let mut separator = "";
        while let Ok((SET, mut attributes, rest)) = tlv(rdns) {
            rdns = rest;
            while let Ok((SEQUENCE, attribute, rest)) = tlv(attributes) {
                attributes = rest;
                let Ok((oid, value)) = expect(attribute, OID, "an attribute type") else {
                    continue;
                };
                let key = attribute_name(oid).map_or_else(|| dotted(oid), str::to_owned);
                let text = match tlv(value) {
                    Ok((_, bytes, _)) => String::from_utf8_lossy(bytes).into_owned(),
                    Err(_) => String::new(),
                };
                write!(f, "{separator}{key}={text}")?;
                // Attributes of one RDN join with " + ", RDNs with ", ".
                separator = " + ";
            }
            separator = ", ";
        }
        Ok(())
    }
}

/// Whether the key `signer` signed `cert`, with ECDSA over SHA-256 on P-256 or P-384.
pub(crate) fn signed_by(cert: &Certificate<'_>, signer: &PublicKeyInfo<'_>) -> bool {
    use ring::signature::{UnparsedPublicKey, ECDSA_P256_SHA256_ASN1, ECDSA_P384_SHA256_ASN1};
    const P384_OID: &[u8] = &[0x2b, 0x81, 0x04, 0x00, 0x22];
    if cert.signature_algorithm != [0x2a, 0x86, 0x48, 0xce, 0x3d, 0x04, 0x03, 0x02]
        || signer.algorithm != super::pem::EC_PUBLIC_KEY_OID
    {
        return false;
    }
    let algorithm = match signer.curve {
        Some(curve) if curve == super::pem::P256_OID => &ECDSA_P256_SHA256_ASN1,
        Some(P384_OID) => &ECDSA_P384_SHA256_ASN1,
        _ => return false,
    };
    // A fleet checks the same issuer against the same anchors once per cluster.
    static VERIFIED: PassedChecks = PassedChecks::new();
    let digest = sha256_of_fields(&[
        cert.signed,
        cert.signature,
        signer.curve.unwrap_or_default(),
        signer.key,
    ]);
    VERIFIED
        .check(digest, || {
            UnparsedPublicKey::new(algorithm, signer.key).verify(cert.signed, cert.signature)
        })
        .is_ok()
}

/// An RSA public key's modulus and exponent, from a `PublicKeyInfo`'s key bytes.
pub(crate) fn rsa_public_key(key: &[u8]) -> Option<(&[u8], &[u8])> {
    let (body, _) = expect(key, SEQUENCE, "an RSAPublicKey").ok()?;
    let (modulus, body) = expect(body, INTEGER, "the modulus").ok()?;
    let (exponent, _) = expect(body, INTEGER, "the exponent").ok()?;
    Some((modulus, exponent))
}

#[cfg(test)]
mod tests {
    use super::{parse, signed_by};
    use x509_parser::public_key::PublicKey;

    /// Every certificate the tests carry: this repository's, upstream's, and the odd ones
    /// (RSA, SHA-384, another CA) that the issuer checks refuse.
    fn certificates() -> Vec<(String, Vec<u8>)> {
        let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");
        let mut found = Vec::new();
        for dir in ["tests/certs", "tests/identity-material", "tests/reference"] {
            let mut paths: Vec<_> = std::fs::read_dir(format!("{root}/{dir}"))
                .unwrap()
                .map(|e| e.unwrap().path())
                .filter(|p| p.extension().is_some_and(|e| e == "crt" || e == "pem"))
                .collect();
            paths.sort();
            for path in paths {
                let text = std::fs::read_to_string(&path).unwrap();
                for der in crate::identity::pem::certificates(&text).unwrap_or_default() {
                    found.push((path.display().to_string(), der));
                }
            }
        }
        assert!(found.len() >= 12, "found {} certificates", found.len());
        found
    }

    #[test]
    fn certificate_fields_match_x509_parser() {
        for (path, der) in certificates() {
            let ours = parse(&der).unwrap();
            let (_, theirs) = x509_parser::parse_x509_certificate(&der).unwrap();
            assert_eq!(
                ours.subject.to_string(),
                theirs.subject().to_string(),
                "{path}"
            );
            assert_eq!(
                ours.issuer.to_string(),
                theirs.issuer().to_string(),
                "{path}"
            );
            assert_eq!(
                ours.not_before,
                theirs.validity().not_before.timestamp(),
                "{path}"
            );
            assert_eq!(
                ours.not_after,
                theirs.validity().not_after.timestamp(),
                "{path}"
            );
            assert_eq!(ours.is_ca, theirs.is_ca(), "{path}");
            assert_eq!(
                ours.signature_algorithm,
                theirs.signature_algorithm.algorithm.as_bytes(),
                "{path}"
            );
            let spki = theirs.public_key();
            assert_eq!(
                ours.public_key.algorithm,
                spki.algorithm.algorithm.as_bytes()
            );
            assert_eq!(
                ours.public_key.key, &*spki.subject_public_key.data,
                "{path}"
            );
            if let Ok(PublicKey::RSA(rsa)) = spki.parsed() {
                let (modulus, exponent) = super::rsa_public_key(ours.public_key.key).unwrap();
                assert_eq!((modulus, exponent), (rsa.modulus, rsa.exponent), "{path}");
            }
            let dns: Vec<&str> = theirs
                .subject_alternative_name()
                .unwrap()
                .map(|san| {
                    san.value
                        .general_names
                        .iter()
                        .filter_map(|n| match n {
                            x509_parser::extensions::GeneralName::DNSName(d) => Some(*d),
                            _ => None,
                        })
                        .collect()
                })
                .unwrap_or_default();
            assert_eq!(ours.dns_names, dns, "{path}");
        }
    }

    #[test]
    fn signatures_verify_as_x509_parser_verifies_them() {
        let all = certificates();
        let mut verified = 0;
        for (path, der) in &all {
            let cert = parse(der).unwrap();
            for (signer_path, signer_der) in &all {
                let signer = parse(signer_der).unwrap();
                let (_, theirs) = x509_parser::parse_x509_certificate(der).unwrap();
                let (_, their_signer) = x509_parser::parse_x509_certificate(signer_der).unwrap();
                let expected = theirs
                    .verify_signature(Some(their_signer.public_key()))
                    .is_ok()
                    && cert.signature_algorithm == super::super::issuer::ECDSA_WITH_SHA256_OID;
                assert_eq!(
                    signed_by(&cert, &signer.public_key),
                    expected,
                    "{path} signed by {signer_path}"
                );
                verified += usize::from(expected);
            }
        }
        assert!(verified >= 5, "only {verified} signatures checked out");
    }

    #[test]
    fn malformed_certificates_are_errors_not_panics() {
        let (_, der) = certificates().remove(0);
        for cut in 0..der.len() {
            let _ = parse(&der[..cut]);
        }
        let mut flipped = der.clone();
        for i in 0..flipped.len() {
            flipped[i] ^= 0xff;
            let _ = parse(&flipped);
            flipped[i] ^= 0xff;
        }
        assert!(parse(&der[..der.len() / 2]).is_err());
        assert!(parse(b"").is_err());
    }
}
