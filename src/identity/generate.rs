//! Makes new ECDSA P-256 certificates with rcgen: the identity trust anchor and issuer, and the
//! self-signed webhook serving certificates. Keys come out as SEC1 `EC PRIVATE KEY` PEM.

use super::pem;
use rcgen::{
    BasicConstraints, CertificateParams, DistinguishedName, DnType, ExtendedKeyUsagePurpose, IsCa,
    Issuer, KeyPair, KeyUsagePurpose, PKCS_ECDSA_P256_SHA256,
};
use time::{Duration, OffsetDateTime};

/// Lifetime of a generated trust anchor (root CA): ten years, as `linkerd install`.
pub(crate) const ROOT_LIFETIME: Duration = Duration::days(3650);
/// Lifetime of a generated issuer certificate: one year.
pub(crate) const ISSUER_LIFETIME: Duration = Duration::days(365);
/// Lifetime of a generated webhook serving certificate: 365 days, as the chart's
/// `genSelfSignedCert … 365`.
pub(crate) const WEBHOOK_LIFETIME: Duration = Duration::days(365);
/// Certificates start this long before `now`, so that a cluster whose clock is a little behind
/// still accepts them (the chart's default `identity.issuer.clockSkewAllowance`).
pub(crate) const CLOCK_SKEW: Duration = Duration::seconds(20);

/// A new certificate and its key.
pub(crate) struct Generated {
    /// The certificate, PEM.
    pub crt_pem: String,
    /// The key, SEC1 PEM.
    pub key_pem: String,
    /// The certificate's notAfter.
    pub not_after: OffsetDateTime,
}

/// A new trust anchor and the issuer it signed.
pub(crate) struct IssuerSet {
    /// The self-signed root CA (trust anchor).
    pub root: Generated,
    /// The intermediate CA that linkerd's identity controller signs proxy certificates with.
    pub issuer: Generated,
}

fn new_key() -> Result<KeyPair, String> {
    KeyPair::generate_for(&PKCS_ECDSA_P256_SHA256).map_err(|e| e.to_string())
}

/// The key as `EC PRIVATE KEY` PEM.
fn key_pem(key: &KeyPair) -> Result<String, String> {
    let parsed = pem::parse_pkcs8(key.serialized_der())?;
    Ok(pem::encode(
        "EC PRIVATE KEY",
        &pem::sec1_der(&parsed.private, key.public_key_raw()),
    ))
}

fn base_params(
    common_name: &str,
    now: OffsetDateTime,
    lifetime: Duration,
) -> Result<CertificateParams, String> {
    let mut params =
        CertificateParams::new(vec![common_name.to_owned()]).map_err(|e| e.to_string())?;
    let mut name = DistinguishedName::new();
    name.push(DnType::CommonName, common_name);
    params.distinguished_name = name;
    params.not_before = now
        .checked_sub(CLOCK_SKEW)
        .ok_or("the start time is out of range")?;
    params.not_after = now
        .checked_add(lifetime)
        .ok_or("the end time is out of range")?;
    Ok(params)
}

fn ca_params(
    common_name: &str,
    now: OffsetDateTime,
    lifetime: Duration,
    path_len: u8,
) -> Result<CertificateParams, String> {
    let mut params = base_params(common_name, now, lifetime)?;
    params.is_ca = IsCa::Ca(BasicConstraints::Constrained(path_len));
    params.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign];
    Ok(params)
}

/// A self-signed root CA named `root_cn` (path length 1) and an issuer CA named `issuer_cn`
/// (path length 0) signed by it.
pub(crate) fn issuer_set(
    root_cn: &str,
    issuer_cn: &str,
    now: OffsetDateTime,
) -> Result<IssuerSet, String> {
    let root_key = new_key()?;
    let root_params = ca_params(root_cn, now, ROOT_LIFETIME, 1)?;
    let root_crt = root_params
        .self_signed(&root_key)
        .map_err(|e| e.to_string())?;

    let issuer_key = new_key()?;
    let mut issuer_params = ca_params(issuer_cn, now, ISSUER_LIFETIME, 0)?;
    issuer_params.use_authority_key_identifier_extension = true;
    let signer = Issuer::from_params(&root_params, &root_key);
    let issuer_crt = issuer_params
        .signed_by(&issuer_key, &signer)
        .map_err(|e| e.to_string())?;

    Ok(IssuerSet {
        root: Generated {
            crt_pem: pem::encode("CERTIFICATE", root_crt.der()),
            key_pem: key_pem(&root_key)?,
            not_after: root_params.not_after,
        },
        issuer: Generated {
            crt_pem: pem::encode("CERTIFICATE", issuer_crt.der()),
            key_pem: key_pem(&issuer_key)?,
            not_after: issuer_params.not_after,
        },
    })
}

/// A self-signed serving certificate for `dns_name` (its CN and only SAN).
pub(crate) fn serving_cert(dns_name: &str, now: OffsetDateTime) -> Result<Generated, String> {
    let key = new_key()?;
    let mut params = base_params(dns_name, now, WEBHOOK_LIFETIME)?;
    params.is_ca = IsCa::ExplicitNoCa;
    params.key_usages = vec![KeyUsagePurpose::DigitalSignature];
    params.extended_key_usages = vec![ExtendedKeyUsagePurpose::ServerAuth];
    let crt = params.self_signed(&key).map_err(|e| e.to_string())?;
    Ok(Generated {
        crt_pem: pem::encode("CERTIFICATE", crt.der()),
        key_pem: key_pem(&key)?,
        not_after: params.not_after,
    })
}
