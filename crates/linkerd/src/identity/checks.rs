//! Checks of given material: PEM framing, the issuer pair, private keys, what a certificate
//! serves, DNS names. Separate from the planning, which calls them, and used by `certs` too.

use super::clock::Clock;
use super::error::IdentityError;
use super::error::Origin;
use super::value_paths::text;
use super::{issuer, pem, recent, x509, NAMESPACE};
use crate::values::Value;
use camino::Utf8Path;
use std::time::UNIX_EPOCH;

/// Checks that `text` is one or more PEM certificates; returns their DER.
pub(super) fn certificates(text: &str, origin: Origin<'_>) -> Result<Vec<Vec<u8>>, IdentityError> {
    thread_local! {
        static PARSED: recent::Passes<Vec<Vec<u8>>> = const { std::cell::RefCell::new(Vec::new()) };
    }
    recent::passed(&PARSED, &[text], || {
        pem::certificates(text).map_err(|reason| IdentityError::InvalidPem {
            origin: origin.to_string(),
            reason,
        })
    })
}

/// Reads the trust anchors, the issuer certificate and its key (each with where it came from)
/// and checks them as `linkerd install` does; returns the issuer's notAfter, RFC 3339.
pub(super) fn check_given_issuer(
    [(anchors, anchors_origin), (crt, crt_origin), (key, key_origin)]: [(&str, Origin<'_>); 3],
    clock: Clock,
) -> Result<String, IdentityError> {
    thread_local! {
        static CHECKED: recent::Passes<String> = const { std::cell::RefCell::new(Vec::new()) };
    }
    // Nanoseconds from 1970, negative before it: each instant its own key.
    let now = match clock.0.duration_since(UNIX_EPOCH) {
        Ok(after) => after.as_nanos().to_string(),
        Err(before) => format!("-{}", before.duration().as_nanos()),
    };
    recent::passed(&CHECKED, &[anchors, crt, key, &now], || {
        check_issuer_material(
            [
                (anchors, anchors_origin),
                (crt, crt_origin),
                (key, key_origin),
            ],
            clock,
        )
    })
}

/// [`check_given_issuer`], every time.
pub(super) fn check_issuer_material(
    [(anchors, anchors_origin), (crt, crt_origin), (key, key_origin)]: [(&str, Origin<'_>); 3],
    clock: Clock,
) -> Result<String, IdentityError> {
    let anchors_der = certificates(anchors, anchors_origin)?;
    let crt_der = certificates(crt, crt_origin)?.swap_remove(0);
    let key = private_key(key, key_origin)?;
    issuer::check_issuer(
        &issuer::IssuerInput {
            anchors: &anchors_der,
            anchors_origin,
            crt: &crt_der,
            crt_origin,
            key: (key.label, &key.der),
            key_origin,
        },
        clock,
    )
}

/// Checks that `text` is one PEM private key (EC, RSA or PKCS#8); returns its block.
pub(super) fn private_key<'t>(
    text: &'t str,
    origin: Origin<'_>,
) -> Result<pem::Block<'t>, IdentityError> {
    pem::private_key(text).map_err(|reason| IdentityError::InvalidPem {
        origin: origin.to_string(),
        reason,
    })
}

/// Checks that a reused serving certificate names `host`: a certs dir filled for another
/// namespace would otherwise give the webhook a certificate the API server rejects.
pub(super) fn check_serves(
    der: &[u8],
    host: &str,
    path: &Utf8Path,
    files: [&str; 2],
) -> Result<(), IdentityError> {
    let invalid = |reason: String| IdentityError::InvalidPem {
        origin: path.to_string(),
        reason,
    };
    let cert =
        x509::parse(der).map_err(|e| invalid(format!("not a valid X.509 certificate ({e})")))?;
    let names = cert.dns_names;
    if names.contains(&host) {
        Ok(())
    } else {
        Err(invalid(format!(
            "it is for {}, not {host}: remove {} and {} to generate a new pair",
            if names.is_empty() {
                "no DNS name".to_owned()
            } else {
                names.join(", ")
            },
            files[0],
            files[1]
        )))
    }
}

pub(super) fn namespace(values: &Value) -> Result<&str, IdentityError> {
    let namespace = text(values, NAMESPACE)?.unwrap_or("linkerd");
    check_dns_name("namespace", namespace, true)?;
    Ok(namespace)
}

/// Checks a DNS-1123 label (`single_label`) or subdomain, as Kubernetes and linkerd require.
pub(super) fn check_dns_name(
    key: &'static str,
    value: &str,
    single_label: bool,
) -> Result<(), IdentityError> {
    let invalid = |reason| IdentityError::InvalidName {
        key,
        value: value.to_owned(),
        reason,
    };
    if value.len() > if single_label { 63 } else { 253 } {
        return Err(invalid("it is too long"));
    }
    if single_label && value.contains('.') {
        return Err(invalid("it must be a single DNS label (no dots)"));
    }
    for label in value.split('.') {
        let bytes = label.as_bytes();
        let (Some(first), Some(last)) = (bytes.first(), bytes.last()) else {
            return Err(invalid("it has an empty DNS label"));
        };
        if label.len() > 63 {
            return Err(invalid("a DNS label is longer than 63 characters"));
        }
        let allowed = |b: &u8| b.is_ascii_lowercase() || b.is_ascii_digit() || *b == b'-';
        if !bytes.iter().all(allowed)
            || !first.is_ascii_alphanumeric()
            || !last.is_ascii_alphanumeric()
        {
            return Err(invalid(
                "DNS labels are lowercase letters, digits and '-', starting and ending with a \
                 letter or digit",
            ));
        }
    }
    Ok(())
}
