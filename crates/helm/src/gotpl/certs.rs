//! Sprig's certificate functions for Go charts (`genCA`, `genSelfSignedCert`, `genSignedCert`,
//! `genPrivateKey`, their `...WithKey` forms taking a PEM key, `buildCustomCert`), made
//! deterministic: keys are Ed25519, from the render's random stream
//! (see `random`), certificates are valid from `SOURCE_DATE_EPOCH` (1970 when unset), and
//! Ed25519 signatures need no randomness. Helm's are RSA 2048 from the clock and the random
//! source (a row of DEVIATIONS.md). Charts mostly make them as a fallback they replace with
//! given certificates; the object has Sprig's fields, `Cert` and `Key`.

use super::random::Stream;
use meshchart_gotemplate::{Arity, Context, FuncError, Object, Templates, Value};
use rcgen::{BasicConstraints, CertificateParams, IsCa, Issuer, KeyPair, SerialNumber};
use std::cell::RefCell;
use std::rc::Rc;

/// PKCS#8 v1 of an Ed25519 key, before its 32-byte seed.
const ED25519_PKCS8_PREFIX: [u8; 16] = [
    0x30, 0x2e, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x04, 0x22, 0x04, 0x20,
];

/// Sprig's `certificate`: the PEMs, with what signing another certificate needs.
struct Certificate {
    cert: String,
    key: String,
    params: CertificateParams,
    key_der: Vec<u8>,
}

impl Object for Certificate {
    fn type_name(&self) -> &str {
        "sprig.certificate"
    }

    fn get(&self, name: &str, _: &[Value]) -> Option<Result<Value, String>> {
        match name {
            "Cert" => Some(Ok(Value::from(self.cert.as_str()))),
            "Key" => Some(Ok(Value::from(self.key.as_str()))),
            _ => None,
        }
    }

    fn format(&self, out: &mut String) {
        out.push_str(&format!("{{{} {}}}", self.cert, self.key));
    }
}

impl Maker {
    /// The certificate a CA argument names: one made in this render, which holds its key.
    fn signer(&self, ca: &Value) -> Result<Rc<Certificate>, FuncError> {
        let pem = match ca {
            Value::Object(object) => match object.get("Cert", &[]) {
                Some(Ok(Value::String(pem))) => pem,
                _ => return Err("genSignedCert: the CA is not a certificate".into()),
            },
            _ => {
                return Err(FuncError::WrongType {
                    index: 4,
                    expected: "sprig.certificate".into(),
                })
            }
        };
        self.made
            .borrow()
            .iter()
            .find(|c| *c.cert == *pem)
            .cloned()
            .ok_or_else(|| {
                "genSignedCert: the CA was not made by genCA or genCAWithKey in this render".into()
            })
    }
}

struct Maker {
    stream: Rc<RefCell<Stream>>,
    epoch: i64,
    /// The certificates made in this render, to sign with (found by their PEM).
    made: RefCell<Vec<Rc<Certificate>>>,
}

impl Maker {
    fn key(&self) -> Result<(KeyPair, Vec<u8>), String> {
        let mut der = ED25519_PKCS8_PREFIX.to_vec();
        for _ in 0..32 {
            der.push(self.stream.borrow_mut().next_byte());
        }
        let key = KeyPair::try_from(der.as_slice()).map_err(|e| e.to_string())?;
        Ok((key, der))
    }

    fn params(
        &self,
        cn: &str,
        sans: Vec<String>,
        days: i64,
        ca: bool,
    ) -> Result<CertificateParams, String> {
        let mut params = CertificateParams::new(sans).map_err(|e| e.to_string())?;
        params
            .distinguished_name
            .push(rcgen::DnType::CommonName, cn.to_owned());
        let start =
            time::OffsetDateTime::from_unix_timestamp(self.epoch).map_err(|e| e.to_string())?;
        params.not_before = start;
        params.not_after = start + time::Duration::days(days.clamp(0, 36500));
        let serial: Vec<u8> = (0..16)
            .map(|i| {
                let b = self.stream.borrow_mut().next_byte();
                if i == 0 {
                    b & 0x7f
                } else {
                    b
                }
            })
            .collect();
        params.serial_number = Some(SerialNumber::from_slice(&serial));
        if ca {
            params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        }
        Ok(params)
    }

    fn make(
        &self,
        cn: &str,
        sans: Vec<String>,
        days: i64,
        ca: bool,
        signer: Option<&Certificate>,
    ) -> Result<Value, FuncError> {
        let (key, key_der) = self.key()?;
        self.make_with(key, key_der, cn, sans, days, ca, signer)
    }

    /// [`Maker::make`] with the private key given as PEM (Sprig's `...WithKey` functions).
    fn make_with_pem(
        &self,
        key_pem: &str,
        cn: &str,
        sans: Vec<String>,
        days: i64,
        ca: bool,
        signer: Option<&Certificate>,
    ) -> Result<Value, FuncError> {
        let key = given_key(key_pem)?;
        let key_der = key.serialize_der();
        self.make_with(key, key_der, cn, sans, days, ca, signer)
    }

    #[allow(clippy::too_many_arguments)]
    fn make_with(
        &self,
        key: KeyPair,
        key_der: Vec<u8>,
        cn: &str,
        sans: Vec<String>,
        days: i64,
        ca: bool,
        signer: Option<&Certificate>,
    ) -> Result<Value, FuncError> {
        let params = self.params(cn, sans, days, ca)?;
        let cert = match signer {
            None => params.self_signed(&key),
            Some(signer) => {
                let signer_key =
                    KeyPair::try_from(signer.key_der.as_slice()).map_err(|e| e.to_string())?;
                let issuer = Issuer::new(signer.params.clone(), &signer_key);
                params.signed_by(&key, &issuer)
            }
        }
        .map_err(|e| FuncError::Message(e.to_string()))?;
        let made = Rc::new(Certificate {
            cert: cert.pem(),
            key: key.serialize_pem(),
            params,
            key_der,
        });
        self.made.borrow_mut().push(made.clone());
        Ok(Value::Object(made))
    }
}

/// The PEM block's type and body, Go's `pem.Decode` of the first block.
fn pem_block(text: &str) -> Option<(&str, Vec<u8>)> {
    use base64::Engine as _;
    let start = text.find("-----BEGIN ")?;
    let after = &text[start + 11..];
    let kind_end = after.find("-----")?;
    let kind = &after[..kind_end];
    let body_start = &after[kind_end + 5..];
    let end = body_start.find(&format!("-----END {kind}-----"))?;
    let body: String = body_start[..end]
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect();
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(body)
        .ok()?;
    Some((kind, bytes))
}

/// A private key given as PEM, as Sprig's `parsePrivateKeyPEM` takes it, in its words; an
/// ECDSA key is refused, because signing with it draws a random nonce and the render would
/// change from run to run.
fn given_key(pem: &str) -> Result<KeyPair, FuncError> {
    let fail = |why: String| FuncError::Message(format!("parse private key: {why}"));
    let ecdsa = || {
        FuncError::Message(
            "an ECDSA key signs with a random nonce, so the certificate would change from \
             render to render: give an Ed25519 or RSA key"
                .into(),
        )
    };
    let (kind, der) = pem_block(pem).ok_or_else(|| fail("no PEM data in input".into()))?;
    let key = match kind {
        "PRIVATE KEY" => KeyPair::try_from(der.as_slice()),
        // PKCS#1, as Sprig's genPrivateKey "rsa" and openssl genrsa write it.
        "RSA PRIVATE KEY" => KeyPair::try_from(rsa_pkcs1_as_pkcs8(&der).as_slice()),
        "EC PRIVATE KEY" => return Err(ecdsa()),
        other => {
            return Err(fail(format!(
                "no private key data in PEM block of type {other}"
            )))
        }
    }
    .map_err(|e| fail(e.to_string()))?;
    let algorithm = key.algorithm();
    if algorithm == &rcgen::PKCS_ECDSA_P256_SHA256 || algorithm == &rcgen::PKCS_ECDSA_P384_SHA384 {
        return Err(ecdsa());
    }
    Ok(key)
}

/// A PKCS#1 RSA private key wrapped as PKCS#8 (`PrivateKeyInfo`: version 0, the
/// rsaEncryption algorithm, the PKCS#1 key as an octet string), the form ring reads.
fn rsa_pkcs1_as_pkcs8(pkcs1: &[u8]) -> Vec<u8> {
    fn length(n: usize) -> Vec<u8> {
        if n < 0x80 {
            return vec![n as u8];
        }
        let bytes: Vec<u8> = n
            .to_be_bytes()
            .into_iter()
            .skip_while(|b| *b == 0)
            .collect();
        let mut out = vec![0x80 | bytes.len() as u8];
        out.extend(bytes);
        out
    }
    // INTEGER 0, then SEQUENCE { OID rsaEncryption, NULL }.
    const VERSION_AND_ALGORITHM: [u8; 18] = [
        0x02, 0x01, 0x00, 0x30, 0x0d, 0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01,
        0x01, 0x05, 0x00,
    ];
    let mut body = VERSION_AND_ALGORITHM.to_vec();
    body.push(0x04);
    body.extend(length(pkcs1.len()));
    body.extend_from_slice(pkcs1);
    let mut out = vec![0x30];
    out.extend(length(body.len()));
    out.extend(body);
    out
}

/// Sprig's `buildCustomCert(b64cert, b64key)`: a certificate object of given PEMs.
fn build_custom_cert(b64_cert: &str, b64_key: &str) -> Result<Value, FuncError> {
    use base64::Engine as _;
    let decode = |text: &str| base64::engine::general_purpose::STANDARD.decode(text);
    let cert = decode(b64_cert)
        .map_err(|_| FuncError::Message("unable to decode base64 certificate".into()))?;
    let key = decode(b64_key)
        .map_err(|_| FuncError::Message("unable to decode base64 private key".into()))?;
    let cert = String::from_utf8_lossy(&cert).into_owned();
    let key = String::from_utf8_lossy(&key).into_owned();
    match pem_block(&cert) {
        Some(("CERTIFICATE", _)) => {}
        _ => return Err(FuncError::Message("unable to decode certificate".into())),
    }
    if pem_block(&key).is_none() {
        return Err(FuncError::Message(
            "error parsing private key: no PEM data in input".into(),
        ));
    }
    Ok(Value::Object(Rc::new(Certificate {
        cert,
        key,
        params: CertificateParams::default(),
        key_der: Vec::new(),
    })))
}

fn text(args: &[Value], index: usize) -> Result<String, FuncError> {
    args.get(index)
        .and_then(Value::as_str)
        .map(str::to_owned)
        .ok_or(FuncError::WrongType {
            index,
            expected: "string".into(),
        })
}

fn days(args: &[Value], index: usize) -> Result<i64, FuncError> {
    args.get(index)
        .and_then(|v| match v {
            Value::Float(f) => Some(*f as i64),
            other => other.as_int(),
        })
        .ok_or(FuncError::WrongType {
            index,
            expected: "int".into(),
        })
}

/// The IPs and DNS names a certificate is for: Sprig's two lists.
fn names(args: &[Value], from: usize) -> Vec<String> {
    args[from..from + 2]
        .iter()
        .flat_map(|list| match list {
            Value::Seq(items) => items
                .iter()
                .filter_map(|i| i.as_str().map(str::to_owned))
                .collect(),
            _ => Vec::new(),
        })
        .collect()
}

/// Adds the certificate functions, drawing keys from `stream`, valid from `epoch`.
pub(super) fn register(set: &mut Templates, stream: Rc<RefCell<Stream>>, epoch: i64) {
    let maker = Rc::new(Maker {
        stream,
        epoch,
        made: RefCell::new(Vec::new()),
    });
    let m = maker.clone();
    set.add_function(
        "genCA",
        Arity::Exact(2),
        Rc::new(move |_: &mut Context<'_, '_>, args: &[Value]| {
            m.make(&text(args, 0)?, Vec::new(), days(args, 1)?, true, None)
        }),
    );
    let m = maker.clone();
    set.add_function(
        "genSelfSignedCert",
        Arity::Exact(4),
        Rc::new(move |_: &mut Context<'_, '_>, args: &[Value]| {
            m.make(&text(args, 0)?, names(args, 1), days(args, 3)?, false, None)
        }),
    );
    let m = maker.clone();
    set.add_function(
        "genSignedCert",
        Arity::Exact(5),
        Rc::new(move |_: &mut Context<'_, '_>, args: &[Value]| {
            let signer = m.signer(&args[4])?;
            let signer = &*signer;
            m.make(
                &text(args, 0)?,
                names(args, 1),
                days(args, 3)?,
                false,
                Some(signer),
            )
        }),
    );
    let m = maker.clone();
    set.add_function(
        "genCAWithKey",
        Arity::Exact(3),
        Rc::new(move |_: &mut Context<'_, '_>, args: &[Value]| {
            let (cn, days) = (text(args, 0)?, days(args, 1)?);
            m.make_with_pem(&text(args, 2)?, &cn, Vec::new(), days, true, None)
        }),
    );
    let m = maker.clone();
    set.add_function(
        "genSelfSignedCertWithKey",
        Arity::Exact(5),
        Rc::new(move |_: &mut Context<'_, '_>, args: &[Value]| {
            let (cn, days) = (text(args, 0)?, days(args, 3)?);
            m.make_with_pem(&text(args, 4)?, &cn, names(args, 1), days, false, None)
        }),
    );
    let m = maker.clone();
    set.add_function(
        "genSignedCertWithKey",
        Arity::Exact(6),
        Rc::new(move |_: &mut Context<'_, '_>, args: &[Value]| {
            let signer = m.signer(&args[4])?;
            let (cn, days) = (text(args, 0)?, days(args, 3)?);
            m.make_with_pem(
                &text(args, 5)?,
                &cn,
                names(args, 1),
                days,
                false,
                Some(&signer),
            )
        }),
    );
    set.add_function(
        "buildCustomCert",
        Arity::Exact(2),
        Rc::new(|_: &mut Context<'_, '_>, args: &[Value]| {
            build_custom_cert(&text(args, 0)?, &text(args, 1)?)
        }),
    );
    let m = maker;
    set.add_function(
        "genPrivateKey",
        Arity::Exact(1),
        Rc::new(move |_: &mut Context<'_, '_>, _: &[Value]| {
            let (key, _) = m.key()?;
            Ok(Value::from(key.serialize_pem()))
        }),
    );
}

#[cfg(test)]
mod tests {
    use meshchart_gotemplate::{MissingKey, Templates, Value};

    fn render(template: &str) -> Result<String, String> {
        let mut set = Templates::new("gotpl");
        set.set_missing_key(MissingKey::Zero);
        super::super::register_functions(&mut set, b"seed".to_vec(), 1_700_000_000);
        set.parse("t", template).map_err(|e| e.to_string())?;
        set.execute("t", &Value::Null).map_err(|e| e.to_string())
    }

    #[test]
    fn a_ca_made_with_a_given_key_signs_a_certificate_made_with_another() {
        let template = "{{ $ca := genCAWithKey \"ca\" 365 (genPrivateKey \"ed25519\") }}\
            {{ $leaf := genSignedCertWithKey \"leaf\" nil (list \"a.example\") 30 $ca (genPrivateKey \"ed25519\") }}\
            {{ $self := genSelfSignedCertWithKey \"self\" nil nil 30 (genPrivateKey \"ed25519\") }}\
            {{ $ca.Cert | len | lt 100 }} {{ $leaf.Cert | hasPrefix \"-----BEGIN CERTIFICATE-----\" }} \
            {{ $self.Key | hasPrefix \"-----BEGIN PRIVATE KEY-----\" }}";
        assert_eq!(render(template), Ok("true true true".into()));
    }

    #[test]
    fn the_same_inputs_give_the_same_certificate() {
        let template = "{{ (genCAWithKey \"ca\" 365 (genPrivateKey \"ed25519\")).Cert }}";
        assert_eq!(render(template), render(template));
    }

    #[test]
    fn an_rsa_key_in_pkcs1_signs_as_sprigs_do() {
        // A 2048-bit RSA key in PKCS#1, made with `openssl genrsa -traditional` for this test.
        let key = include_str!("certs_test_rsa.pem");
        let template = format!(
            "{{{{ (genCAWithKey \"ca\" 365 {key:?}).Cert | hasPrefix \"-----BEGIN CERTIFICATE\" }}}}"
        );
        assert_eq!(render(&template), Ok("true".into()));
    }

    #[test]
    fn a_given_key_that_is_not_pem_fails_in_sprigs_words() {
        let error = render("{{ genCAWithKey \"ca\" 365 \"nope\" }}").expect_err("no PEM");
        assert!(
            error.contains("parse private key: no PEM data in input"),
            "{error}"
        );
    }

    #[test]
    fn an_ecdsa_key_is_refused_because_its_signature_is_random() {
        // A P-256 key in PKCS#8, made with `openssl genpkey -algorithm EC` for this test.
        let key = "-----BEGIN PRIVATE KEY-----\nMIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgNAT6qWpFE8GlOqaR\nBNnHhkiNKtj8NcvSoKmNinWFOlqhRANCAATqFMFQJ4HwQQtB67lAbhA/rmiHYiNz\nzkCKfuvha4jlLVX8erqvKKAWeXegUD7/1cIx5k6fFMgeuG0dDkwn30p3\n-----END PRIVATE KEY-----\n";
        let template = format!("{{{{ genCAWithKey \"ca\" 365 {key:?} }}}}");
        let error = render(&template).expect_err("ECDSA");
        assert!(error.contains("random nonce"), "{error}");
    }

    #[test]
    fn build_custom_cert_refuses_text_that_is_not_base64() {
        let error = render("{{ buildCustomCert \"%%\" \"%%\" }}").expect_err("not base64");
        assert!(
            error.contains("unable to decode base64 certificate"),
            "{error}"
        );
    }
}
