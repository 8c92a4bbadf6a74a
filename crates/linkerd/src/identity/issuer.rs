//! The checks `linkerd install` makes on an issuer it is given, made at the render's instant:
//! the key belongs to the certificate, the certificate is an ECDSA P-256 CA signed with
//! ecdsa-with-SHA256, it is valid at that instant, and one of the trust anchors signed it.
//! A control plane rendered with anything else starts, but its identity controller cannot issue
//! certificates that proxies accept, so each failure stops the render naming the value at fault.

use super::clock::{rfc3339, Clock};
use super::error::{IdentityError, Origin};
use super::pem::{self, PrivateKey};
use super::x509::{self, Certificate};
use crate::digest::{sha256_of_fields, PassedChecks};
use time::OffsetDateTime;

/// DER of the OID ecdsa-with-SHA256 (1.2.840.10045.4.3.2), without tag and length.
pub(super) const ECDSA_WITH_SHA256_OID: &[u8] = &[0x2a, 0x86, 0x48, 0xce, 0x3d, 0x04, 0x03, 0x02];
/// DER of the OID rsaEncryption (1.2.840.113549.1.1.1), without tag and length.
const RSA_ENCRYPTION_OID: &[u8] = &[0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x01];

/// An issuer to check: the trust anchors, the certificate and its key, each with its origin.
pub(super) struct IssuerInput<'a> {
    /// DER of every trust anchor.
    pub anchors: &'a [Vec<u8>],
    /// Where the trust anchors came from.
    pub anchors_origin: Origin<'a>,
    /// DER of the issuer certificate (the first block of its PEM).
    pub crt: &'a [u8],
    /// Where the certificate came from.
    pub crt_origin: Origin<'a>,
    /// The key's PEM label and DER.
    pub key: (&'a str, &'a [u8]),
    /// Where the key came from.
    pub key_origin: Origin<'a>,
}

/// Runs every check; returns the certificate's notAfter as RFC 3339 (the chart's `crtExpiry`).
pub(super) fn check_issuer(input: &IssuerInput<'_>, clock: Clock) -> Result<String, IdentityError> {
    let crt_error = |reason: String| IdentityError::InvalidIssuer {
        origin: input.crt_origin.to_string(),
        reason,
    };
    let cert = parse(input.crt, input.crt_origin)?;
    check_key_matches(&cert, input)?;
    let now = clock.unix_seconds()?;
    let (starts, ends) = validity(&cert);
    if now < starts || now > ends {
        return Err(crt_error(format!(
            "it is valid from {} to {}, which does not include the render's instant {} \
             (SOURCE_DATE_EPOCH, or the clock when that is unset): renew the issuer certificate",
            stamp(starts, input.crt_origin)?,
            stamp(ends, input.crt_origin)?,
            stamp(now, input.crt_origin)?
        )));
    }
    if !is_p256(&cert) {
        return Err(crt_error(
            "the issuer certificate must have an ECDSA P-256 key, the only kind linkerd's \
             identity controller uses"
                .to_owned(),
        ));
    }
    if cert.signature_algorithm != ECDSA_WITH_SHA256_OID {
        let name = x509::signature_algorithm_name(cert.signature_algorithm);
        return Err(crt_error(format!(
            "it is signed with {name}; linkerd needs ecdsa-with-SHA256 (a P-256 trust anchor)"
        )));
    }
    if !cert.is_ca {
        return Err(crt_error(
            "it is not a CA certificate (no basicConstraints CA:TRUE), so it cannot issue proxy \
             certificates"
                .to_owned(),
        ));
    }
    check_signed_by_an_anchor(&cert, input, now)?;
    stamp(ends, input.crt_origin)
}

fn parse<'d>(der: &'d [u8], origin: Origin<'_>) -> Result<Certificate<'d>, IdentityError> {
    x509::parse(der).map_err(|e| IdentityError::InvalidPem {
        origin: origin.to_string(),
        reason: format!("not a valid X.509 certificate ({e})"),
    })
}

fn is_p256(cert: &Certificate<'_>) -> bool {
    cert.public_key.algorithm == pem::EC_PUBLIC_KEY_OID
        && cert.public_key.curve == Some(pem::P256_OID)
}

/// The key must be the certificate's: the same public key, whatever form the key is in.
fn check_key_matches(cert: &Certificate<'_>, input: &IssuerInput<'_>) -> Result<(), IdentityError> {
    let key_error = |reason: String| IdentityError::InvalidPem {
        origin: input.key_origin.to_string(),
        reason,
    };
    let mismatch = || IdentityError::KeyMismatch {
        key: input.key_origin.to_string(),
        crt: input.crt_origin.to_string(),
    };
    let (label, der) = input.key;
    let spki = &cert.public_key;
    match pem::parse_private_key(label, der).map_err(key_error)? {
        PrivateKey::Ec(key) => {
            // A SEC1 key without its public half cannot be compared without curve arithmetic;
            // every common tool (Go, OpenSSL, step, cert-manager) writes it, so such keys pass.
            let Some(public) = &key.public else {
                return Ok(());
            };
            // ring checks that the private scalar and the public point belong together: a
            // multiplication on the curve, so a fleet (the same key for every cluster) does it
            // once per key.
            static CHECKED: PassedChecks = PassedChecks::new();
            CHECKED.check(sha256_of_fields(&[&key.private, public]), || {
                rcgen::KeyPair::try_from(pem::pkcs8_der(&key.private, public))
                    .map(drop)
                    .map_err(|e| key_error(format!("not a usable P-256 key ({e})")))
            })?;
            // The pair's public key is the one the key file carries (ring checked them).
            if public.as_slice() == spki.key {
                Ok(())
            } else {
                Err(mismatch())
            }
        }
        PrivateKey::Rsa { modulus, exponent } => match x509::rsa_public_key(spki.key) {
            Some((their_modulus, their_exponent))
                if spki.algorithm == RSA_ENCRYPTION_OID
                    && strip_zeros(their_modulus) == strip_zeros(&modulus)
                    && strip_zeros(their_exponent) == strip_zeros(&exponent) =>
            {
                Ok(())
            }
            _ => Err(mismatch()),
        },
    }
}

/// A DER integer's magnitude (a positive integer may carry a leading zero byte).
fn strip_zeros(bytes: &[u8]) -> &[u8] {
    let first = bytes.iter().position(|&b| b != 0).unwrap_or(bytes.len());
    &bytes[first..]
}

/// One of the trust anchors must have signed the certificate and be valid at `now`.
fn check_signed_by_an_anchor(
    cert: &Certificate<'_>,
    input: &IssuerInput<'_>,
    now: i64,
) -> Result<(), IdentityError> {
    let mut expired_signer = None;
    for der in input.anchors {
        let anchor = parse(der, input.anchors_origin)?;
        if anchor.subject != cert.issuer || !x509::signed_by(cert, &anchor.public_key) {
            continue;
        }
        let (starts, ends) = validity(&anchor);
        if (starts..=ends).contains(&now) {
            return Ok(());
        }
        expired_signer = Some((anchor.subject.to_string(), starts, ends));
    }
    let reason = match expired_signer {
        Some((subject, starts, ends)) => format!(
            "its trust anchor {subject} in {} is valid from {} to {}, which does not include the \
             render's instant {}",
            input.anchors_origin,
            stamp(starts, input.anchors_origin)?,
            stamp(ends, input.anchors_origin)?,
            stamp(now, input.anchors_origin)?
        ),
        None => format!(
            "it is not signed by any certificate in {} (it names {} as its issuer): proxies \
             would reject every certificate it issues",
            input.anchors_origin, cert.issuer
        ),
    };
    Err(IdentityError::InvalidIssuer {
        origin: input.crt_origin.to_string(),
        reason,
    })
}

/// The certificate's notBefore and notAfter, in seconds since 1970.
fn validity(cert: &Certificate<'_>) -> (i64, i64) {
    (cert.not_before, cert.not_after)
}

/// RFC 3339 of `seconds`, or an error naming `origin` when it is out of range.
fn stamp(seconds: i64, origin: Origin<'_>) -> Result<String, IdentityError> {
    OffsetDateTime::from_unix_timestamp(seconds)
        .map(rfc3339)
        .map_err(|_| IdentityError::InvalidPem {
            origin: origin.to_string(),
            reason: format!("its validity ({seconds} s after 1970) is out of range"),
        })
}
