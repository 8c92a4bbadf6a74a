//! Makes new ECDSA P-256 certificates with rcgen: the identity trust anchor and issuer, and the
//! self-signed webhook serving certificates. Keys come out as SEC1 `EC PRIVATE KEY` PEM.

use super::pem;
use rcgen::{
    BasicConstraints, CertificateParams, DistinguishedName, DnType, DnValue,
    ExtendedKeyUsagePurpose, IsCa, Issuer, KeyIdMethod, KeyPair, KeyUsagePurpose,
    PKCS_ECDSA_P256_SHA256,
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
/// (path length 0) signed by it, with the default lifetimes.
pub(crate) fn issuer_set(
    root_cn: &str,
    issuer_cn: &str,
    now: OffsetDateTime,
) -> Result<IssuerSet, String> {
    let root = root(root_cn, now, ROOT_LIFETIME)?;
    let signer = RootSigner::new(&root.crt_pem, &root.key_pem)?;
    let issuer = signer.sign_issuer(&IssuerName::Common(issuer_cn), now, ISSUER_LIFETIME)?;
    Ok(IssuerSet { root, issuer })
}

/// A new self-signed root CA (trust anchor) named `common_name`, path length 1, valid from
/// `now` (less the clock skew) for `lifetime`.
pub(crate) fn root(
    common_name: &str,
    now: OffsetDateTime,
    lifetime: Duration,
) -> Result<Generated, String> {
    let key = new_key()?;
    let params = ca_params(common_name, now, lifetime, 1)?;
    let crt = params.self_signed(&key).map_err(|e| e.to_string())?;
    Ok(Generated {
        crt_pem: pem::encode("CERTIFICATE", crt.der()),
        key_pem: key_pem(&key)?,
        not_after: params.not_after,
    })
}

/// The subject of an issuer to make: a new common name, or the very name of an issuer it
/// replaces (its DER contents), so that a renewal changes nothing but the key and dates.
pub(crate) enum IssuerName<'a> {
    /// `CN=<name>`.
    Common(&'a str),
    /// The attributes of an existing name, written back one by one.
    Existing(super::x509::Name<'a>),
}

/// A root CA that signs issuers: its certificate (for its name and key identifier) and its
/// key, whichever tool made them.
pub(crate) struct RootSigner {
    crt_der: Vec<u8>,
    key: KeyPair,
}

impl RootSigner {
    /// The root from its certificate PEM (the first block) and its private key PEM (SEC1 or
    /// PKCS#8 P-256, with its public half); an error when the key is not the certificate's.
    pub(crate) fn new(crt_pem: &str, key_pem: &str) -> Result<RootSigner, String> {
        let crt_der = pem::certificates(crt_pem)?
            .into_iter()
            .next()
            .ok_or("no certificate")?;
        let block = pem::private_key(key_pem)?;
        let ec = match pem::parse_private_key(block.label, &block.der)? {
            pem::PrivateKey::Ec(ec) => ec,
            pem::PrivateKey::Rsa { .. } => {
                return Err("it is an RSA key; linkerd's trust anchors are ECDSA P-256".to_owned())
            }
        };
        let public = ec.public.ok_or(
            "the key does not carry its public half, so it cannot be checked against the \
             certificate (write it with `openssl ec -in KEY -out KEY`)",
        )?;
        let key = KeyPair::try_from(pem::pkcs8_der(&ec.private, &public).as_slice())
            .map_err(|e| format!("not a usable P-256 key ({e})"))?;
        let cert = super::x509::parse(&crt_der)?;
        if cert.public_key.key != public.as_slice() {
            return Err("the key is not the certificate's: their public keys differ".to_owned());
        }
        Ok(RootSigner { crt_der, key })
    }

    /// A new issuer CA (path length 0) named `name`, signed by this root, valid from `now`
    /// (less the clock skew) for `lifetime`, cut to the root's own notAfter (an issuer cannot
    /// outlive the anchor it chains to).
    pub(crate) fn sign_issuer(
        &self,
        name: &IssuerName<'_>,
        now: OffsetDateTime,
        lifetime: Duration,
    ) -> Result<Generated, String> {
        let root = super::x509::parse(&self.crt_der)?;
        let root_name = distinguished_name(&root.subject)?;
        let mut root_params = CertificateParams::default();
        root_params.distinguished_name = root_name;
        // The authorityKeyIdentifier names the root's own subjectKeyIdentifier, whatever
        // method the tool that made the root used (OpenSSL checks that they match).
        root_params.key_identifier_method =
            KeyIdMethod::PreSpecified(root.subject_key_id.map(<[u8]>::to_vec).unwrap_or_default());
        let issuer_key = new_key()?;
        let mut params = match name {
            IssuerName::Common(cn) => ca_params(cn, now, lifetime, 0)?,
            IssuerName::Existing(existing) => {
                let mut params = ca_params("issuer", now, lifetime, 0)?;
                params.distinguished_name = distinguished_name(existing)?;
                // Linkerd reads no name of an issuer; the renewed one carries its subject only.
                params.subject_alt_names = Vec::new();
                params
            }
        };
        let root_end = OffsetDateTime::from_unix_timestamp(root.not_after)
            .map_err(|_| "the root's notAfter is out of range")?;
        if params.not_after > root_end {
            params.not_after = root_end;
        }
        params.use_authority_key_identifier_extension = root.subject_key_id.is_some();
        let signer = Issuer::new(root_params, &self.key);
        let crt = params
            .signed_by(&issuer_key, &signer)
            .map_err(|e| e.to_string())?;
        let made = super::x509::parse(crt.der())?;
        if made.issuer != root.subject {
            return Err(format!(
                "the root's name ({}) cannot be written back byte for byte, so no issuer it \
                 signs would chain to it",
                root.subject
            ));
        }
        Ok(Generated {
            crt_pem: pem::encode("CERTIFICATE", crt.der()),
            key_pem: key_pem(&issuer_key)?,
            not_after: params.not_after,
        })
    }
}

/// A name for rcgen that encodes as `name` does: the same attributes, in order, with the same
/// string types.
fn distinguished_name(name: &super::x509::Name<'_>) -> Result<DistinguishedName, String> {
    let attributes = name.single_attributes().ok_or_else(|| {
        format!("the name {name} has a multi-valued part, which cannot be written back")
    })?;
    let mut dn = DistinguishedName::new();
    for attribute in attributes {
        let text = || {
            String::from_utf8(attribute.value.to_vec())
                .map_err(|_| format!("an attribute of {name} is not text"))
        };
        let bad = |e: rcgen::Error| format!("an attribute of {name} cannot be written back ({e})");
        let value = match attribute.tag {
            0x0c => DnValue::Utf8String(text()?),
            0x13 => DnValue::PrintableString(text()?.try_into().map_err(bad)?),
            0x16 => DnValue::Ia5String(text()?.try_into().map_err(bad)?),
            0x1e => DnValue::BmpString(
                rcgen::string::BmpString::from_utf16be(attribute.value.to_vec()).map_err(bad)?,
            ),
            tag => {
                return Err(format!(
                    "an attribute of {name} is a string of ASN.1 type {tag:#04x}, which cannot \
                     be written back"
                ))
            }
        };
        dn.push(DnType::from_oid(&super::x509::arcs(attribute.oid)), value);
    }
    Ok(dn)
}

/// A self-signed serving certificate for `dns_name` (its CN and only SAN).
pub(crate) fn serving_cert(dns_name: &str, now: OffsetDateTime) -> Result<Generated, String> {
    serving_cert_for(dns_name, now, WEBHOOK_LIFETIME)
}

/// [`serving_cert`] with its lifetime given.
pub(crate) fn serving_cert_for(
    dns_name: &str,
    now: OffsetDateTime,
    lifetime: Duration,
) -> Result<Generated, String> {
    let key = new_key()?;
    let mut params = base_params(dns_name, now, lifetime)?;
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
