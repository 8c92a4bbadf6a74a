//! Sprig's certificate functions for Go charts (`genCA`, `genSelfSignedCert`, `genSignedCert`,
//! `genPrivateKey`), made deterministic: keys are Ed25519, from the render's random stream
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
            let pem = match &args[4] {
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
            let signer = m
                .made
                .borrow()
                .iter()
                .find(|c| *c.cert == *pem)
                .cloned()
                .ok_or("genSignedCert: the CA was not made by genCA in this render")?;
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
