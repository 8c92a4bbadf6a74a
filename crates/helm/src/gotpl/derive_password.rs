//! Sprig's `derivePassword` for Go charts: the Master Password algorithm (site passwords
//! derived from a master password, a user name, a site name and a counter), with Sprig
//! v3.3.0's templates and characters. It is deterministic, so it gives Helm's text exactly.

use super::sprig::string_arg;
use meshchart_gotemplate::{Arity, Context, FuncError, Templates, Value};
use std::rc::Rc;

/// The algorithm's fixed scope, written before each length-prefixed name.
const SCOPE: &[u8] = b"com.lyndir.masterpassword";

/// Sprig's templates per password type: one is chosen by the seed's first byte.
fn templates(kind: &str) -> Option<&'static [&'static str]> {
    Some(match kind {
        "maximum" => &["anoxxxxxxxxxxxxxxxxx", "axxxxxxxxxxxxxxxxxno"],
        "long" => &[
            "CvcvnoCvcvCvcv",
            "CvcvCvcvnoCvcv",
            "CvcvCvcvCvcvno",
            "CvccnoCvcvCvcv",
            "CvccCvcvnoCvcv",
            "CvccCvcvCvcvno",
            "CvcvnoCvccCvcv",
            "CvcvCvccnoCvcv",
            "CvcvCvccCvcvno",
            "CvcvnoCvcvCvcc",
            "CvcvCvcvnoCvcc",
            "CvcvCvcvCvccno",
            "CvccnoCvccCvcv",
            "CvccCvccnoCvcv",
            "CvccCvccCvcvno",
            "CvcvnoCvccCvcc",
            "CvcvCvccnoCvcc",
            "CvcvCvccCvccno",
            "CvccnoCvcvCvcc",
            "CvccCvcvnoCvcc",
            "CvccCvcvCvccno",
        ],
        "medium" => &["CvcnoCvc", "CvcCvcno"],
        "short" => &["Cvcn"],
        "basic" => &["aaanaaan", "aannaaan", "aaannaaa"],
        "pin" => &["nnnn"],
        _ => return None,
    })
}

/// The characters each template letter draws from.
fn characters(class: u8) -> &'static [u8] {
    match class {
        b'V' => b"AEIOU",
        b'C' => b"BCDFGHJKLMNPQRSTVWXYZ",
        b'v' => b"aeiou",
        b'c' => b"bcdfghjklmnpqrstvwxyz",
        b'A' => b"AEIOUBCDFGHJKLMNPQRSTVWXYZ",
        b'a' => b"AEIOUaeiouBCDFGHJKLMNPQRSTVWXYZbcdfghjklmnpqrstvwxyz",
        b'n' => b"0123456789",
        b'o' => b"@&%?,=[]_:-+*$#!'^~;()/.",
        b'x' => b"AEIOUaeiouBCDFGHJKLMNPQRSTVWXYZbcdfghjklmnpqrstvwxyz0123456789!@#$%^&*()",
        _ => b"",
    }
}

fn scoped(name: &str) -> Vec<u8> {
    let mut bytes = SCOPE.to_vec();
    bytes.extend_from_slice(&(name.len() as u32).to_be_bytes());
    bytes.extend_from_slice(name.as_bytes());
    bytes
}

/// Sprig's `derivePassword(counter, type, password, user, site)`; a type it does not know
/// gives its failure text as the result, as Sprig returns it.
fn derive_password(counter: u32, kind: &str, password: &str, user: &str, site: &str) -> String {
    let Some(templates) = templates(kind) else {
        return format!("cannot find password template {kind}");
    };
    // scrypt with N = 32768, r = 8, p = 2 and a 64-byte key, as Sprig calls it.
    let mut key = [0u8; 64];
    let derived = scrypt::Params::new(15, 8, 2)
        .map_err(|e| e.to_string())
        .and_then(|params| {
            scrypt::scrypt(password.as_bytes(), &scoped(user), &params, &mut key)
                .map_err(|e| e.to_string())
        });
    if let Err(e) = derived {
        return format!("failed to derive password: {e}");
    }
    let mut message = scoped(site);
    message.extend_from_slice(&counter.to_be_bytes());
    let signing = ring::hmac::Key::new(ring::hmac::HMAC_SHA256, &key);
    let seed = ring::hmac::sign(&signing, &message);
    let seed = seed.as_ref();
    let template = templates[usize::from(seed[0]) % templates.len()];
    template
        .bytes()
        .enumerate()
        .map(|(i, class)| {
            let chars = characters(class);
            char::from(chars[usize::from(seed[i + 1]) % chars.len()])
        })
        .collect()
}

/// Adds `derivePassword`.
pub(super) fn register(set: &mut Templates) {
    set.add_function(
        "derivePassword",
        Arity::Exact(5),
        Rc::new(|_: &mut Context<'_, '_>, args: &[Value]| {
            let counter = args[0].as_int().and_then(|n| u32::try_from(n).ok()).ok_or(
                FuncError::WrongType {
                    index: 0,
                    expected: "uint32".into(),
                },
            )?;
            Ok(Value::from(derive_password(
                counter,
                string_arg(args, 1)?,
                string_arg(args, 2)?,
                string_arg(args, 3)?,
                string_arg(args, 4)?,
            )))
        }),
    );
}

#[cfg(test)]
mod tests {
    use super::derive_password;

    #[test]
    fn an_unknown_type_gives_sprigs_text() {
        assert_eq!(
            derive_password(1, "huge", "p", "u", "s"),
            "cannot find password template huge"
        );
    }

    #[test]
    fn a_password_follows_its_template() {
        let pin = derive_password(1, "pin", "secret", "user", "example.com");
        assert_eq!(pin.len(), 4);
        assert!(pin.bytes().all(|b| b.is_ascii_digit()), "{pin}");
    }
}
