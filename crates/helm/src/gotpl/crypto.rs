//! Sprig's password and cipher functions for Go charts: `bcrypt`, `htpasswd`, `randBytes`,
//! `encryptAES` and `decryptAES`, with Sprig v3.3.0's results and failure texts.
//!
//! Sprig salts `bcrypt` (and so `htpasswd`) and draws `encryptAES`'s initialisation vector and
//! `randBytes` from the process's random source, so every Helm render differs. Here they come
//! from the render's seeded stream (see `random`), so the same inputs give the same text; the
//! hash still checks against the password with any bcrypt reader, and the cipher text still
//! decrypts with Sprig's `decryptAES` (a row of DEVIATIONS.md).

use super::random::Stream;
use super::sprig::string_arg;
use aes::cipher::{Array, BlockCipherDecrypt, BlockCipherEncrypt, KeyInit};
use base64::Engine as _;
use meshchart_gotemplate::{Arity, Context, FuncError, Templates, Value};
use std::cell::RefCell;
use std::rc::Rc;

/// golang.org/x/crypto/bcrypt's `DefaultCost`, which Sprig hashes with.
const BCRYPT_COST: u32 = 10;
/// The longest password Go's bcrypt takes (x/crypto refuses longer ones).
const BCRYPT_MAX_PASSWORD: usize = 72;
/// AES's block, and so its initialisation vector, in bytes.
const AES_BLOCK: usize = 16;
/// The most random bytes one `randBytes` call makes (a template asking for more is a mistake,
/// and the text would pass every output limit anyway).
const MAX_RANDOM_BYTES: i64 = 1 << 20;

/// Sprig's `bcrypt`: the password's bcrypt hash (`$2a$10$...`), salted from `stream`; a
/// password Go's bcrypt refuses gives Sprig's failure text as the result, as Sprig returns it.
fn bcrypt_hash(password: &str, stream: &RefCell<Stream>) -> String {
    if password.len() > BCRYPT_MAX_PASSWORD {
        return "failed to encrypt string with bcrypt: bcrypt: password length exceeds 72 bytes"
            .to_owned();
    }
    let mut salt = [0u8; 16];
    for byte in &mut salt {
        *byte = stream.borrow_mut().next_byte();
    }
    match bcrypt::hash_with_salt(password, BCRYPT_COST, salt) {
        Ok(parts) => parts.format_for_version(bcrypt::Version::TwoA),
        Err(e) => format!("failed to encrypt string with bcrypt: {e}"),
    }
}

/// Sprig's key for the AES functions: the password's first 32 bytes, zero-padded (AES-256).
fn aes_key(password: &str) -> aes::Aes256 {
    let mut key = [0u8; 32];
    let given = password.as_bytes();
    let length = given.len().min(key.len());
    key[..length].copy_from_slice(&given[..length]);
    aes::Aes256::new(&Array::from(key))
}

/// Sprig's `encryptAES`: `plain` padded as PKCS#7, encrypted with AES-256 in CBC mode under
/// [`aes_key`], the initialisation vector (from `stream`) first, all in base64.
fn encrypt_aes(password: &str, plain: &str, stream: &RefCell<Stream>) -> String {
    if plain.is_empty() {
        return String::new();
    }
    let cipher = aes_key(password);
    let mut content = plain.as_bytes().to_vec();
    let padding = AES_BLOCK - content.len() % AES_BLOCK;
    content.extend(std::iter::repeat_n(padding as u8, padding));
    let mut out = Vec::with_capacity(AES_BLOCK + content.len());
    let mut previous = [0u8; AES_BLOCK];
    for byte in &mut previous {
        *byte = stream.borrow_mut().next_byte();
    }
    out.extend_from_slice(&previous);
    for chunk in content.chunks(AES_BLOCK) {
        let mut block = [0u8; AES_BLOCK];
        for (slot, (a, b)) in block.iter_mut().zip(chunk.iter().zip(&previous)) {
            *slot = a ^ b;
        }
        let mut block = Array::from(block);
        cipher.encrypt_block(&mut block);
        previous.copy_from_slice(&block);
        out.extend_from_slice(&block);
    }
    base64::engine::general_purpose::STANDARD.encode(out)
}

/// Sprig's `decryptAES`, failing where Sprig's Go code fails (bad base64, a text shorter than
/// the initialisation vector or not whole blocks, padding longer than the text).
fn decrypt_aes(password: &str, encoded: &str) -> Result<String, FuncError> {
    if encoded.is_empty() {
        return Ok(String::new());
    }
    let crypt = base64::engine::general_purpose::STANDARD
        .decode(encoded)
        .map_err(|e| FuncError::Message(go_base64_error(&e)))?;
    if crypt.len() < AES_BLOCK {
        return Err(FuncError::Message(format!(
            "runtime error: slice bounds out of range [:{AES_BLOCK}] with capacity {}",
            crypt.len()
        )));
    }
    let (iv, body) = crypt.split_at(AES_BLOCK);
    if body.len() % AES_BLOCK != 0 {
        return Err(FuncError::Message(
            "crypto/cipher: input not full blocks".into(),
        ));
    }
    let cipher = aes_key(password);
    let mut previous: [u8; AES_BLOCK] = iv.try_into().unwrap_or_default();
    let mut plain = Vec::with_capacity(body.len());
    for chunk in body.chunks(AES_BLOCK) {
        let mut block = Array::from(<[u8; AES_BLOCK]>::try_from(chunk).unwrap_or_default());
        cipher.decrypt_block(&mut block);
        plain.extend(block.iter().zip(&previous).map(|(a, b)| a ^ b));
        previous.copy_from_slice(chunk);
    }
    // Sprig trusts the last byte as the padding's length, as Go slices: too long panics.
    let padding = plain.last().copied().map_or(0, usize::from);
    if padding > plain.len() {
        return Err(FuncError::Message(format!(
            "runtime error: slice bounds out of range [:{}]",
            plain.len() as i64 - padding as i64
        )));
    }
    plain.truncate(plain.len() - padding);
    Ok(String::from_utf8_lossy(&plain).into_owned())
}

/// Go's `base64.CorruptInputError` text for a decoding failure.
fn go_base64_error(error: &base64::DecodeError) -> String {
    let at = match error {
        base64::DecodeError::InvalidByte(offset, _)
        | base64::DecodeError::InvalidLastSymbol(offset, _) => *offset,
        base64::DecodeError::InvalidLength(length) => *length,
        base64::DecodeError::InvalidPadding => 0,
    };
    format!("illegal base64 data at input byte {at}")
}

fn add(
    set: &mut Templates,
    name: &str,
    arity: Arity,
    stream: &Rc<RefCell<Stream>>,
    f: impl Fn(&[Value], &RefCell<Stream>) -> Result<Value, FuncError> + 'static,
) {
    let stream = stream.clone();
    set.add_function(
        name,
        arity,
        Rc::new(move |_: &mut Context<'_, '_>, args: &[Value]| f(args, &stream)),
    );
}

/// Adds the password and cipher functions, drawing salts and vectors from `stream`.
pub(super) fn register(set: &mut Templates, stream: &Rc<RefCell<Stream>>) {
    add(set, "bcrypt", Arity::Exact(1), stream, |args, stream| {
        Ok(Value::from(bcrypt_hash(string_arg(args, 0)?, stream)))
    });
    add(set, "htpasswd", Arity::Exact(2), stream, |args, stream| {
        let (user, password) = (string_arg(args, 0)?, string_arg(args, 1)?);
        if user.contains(':') {
            return Ok(Value::from(format!("invalid username: {user}")));
        }
        Ok(Value::from(format!(
            "{user}:{}",
            bcrypt_hash(password, stream)
        )))
    });
    add(set, "randBytes", Arity::Exact(1), stream, |args, stream| {
        let count = args[0].as_int().ok_or(FuncError::WrongType {
            index: 0,
            expected: "int".into(),
        })?;
        if count < 0 {
            return Err(FuncError::Message(
                "runtime error: makeslice: len out of range".into(),
            ));
        }
        if count > MAX_RANDOM_BYTES {
            return Err(FuncError::Message(format!(
                "randBytes: {count} bytes is more than meshchart makes ({MAX_RANDOM_BYTES})"
            )));
        }
        let bytes: Vec<u8> = (0..count)
            .map(|_| stream.borrow_mut().next_byte())
            .collect();
        Ok(Value::from(
            base64::engine::general_purpose::STANDARD.encode(bytes),
        ))
    });
    add(
        set,
        "encryptAES",
        Arity::Exact(2),
        stream,
        |args, stream| {
            Ok(Value::from(encrypt_aes(
                string_arg(args, 0)?,
                string_arg(args, 1)?,
                stream,
            )))
        },
    );
    add(set, "decryptAES", Arity::Exact(2), stream, |args, _| {
        decrypt_aes(string_arg(args, 0)?, string_arg(args, 1)?).map(Value::from)
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stream() -> RefCell<Stream> {
        RefCell::new(Stream::seeded(b"test".to_vec()))
    }

    #[test]
    fn bcrypt_hashes_check_against_the_password() {
        let hash = bcrypt_hash("s3cret", &stream());
        assert!(hash.starts_with("$2a$10$"), "{hash}");
        assert!(bcrypt::verify("s3cret", &hash).expect("a bcrypt hash"));
    }

    #[test]
    fn helms_htpasswd_hash_checks_as_ours_do() {
        // Made by Helm 3.17.1: `helm template` of `{{ htpasswd "user" "pass" }}`.
        let from_helm = "$2a$10$q5R9GNu5/Ke3IPTLtD/jAeMOzbxe4CjVxw7xsTE8ua9e7f.lIYliO";
        let ours = bcrypt_hash("pass", &stream());
        assert_eq!(ours.len(), from_helm.len());
        assert!(bcrypt::verify("pass", from_helm).expect("a bcrypt hash"));
        assert!(bcrypt::verify("pass", &ours).expect("a bcrypt hash"));
    }

    #[test]
    fn bcrypt_of_a_password_past_72_bytes_gives_sprigs_failure_text() {
        assert_eq!(
            bcrypt_hash(&"x".repeat(73), &stream()),
            "failed to encrypt string with bcrypt: bcrypt: password length exceeds 72 bytes"
        );
    }

    #[test]
    fn aes_round_trips_and_decrypts_sprigs_own_cipher_text() {
        let sealed = encrypt_aes("key", "hello world", &stream());
        assert_eq!(
            decrypt_aes("key", &sealed).expect("decrypts"),
            "hello world"
        );
        // Made by Helm 3.17.1: `helm template` of `{{ encryptAES "key" "hello world" }}`.
        let from_helm = "fVP4iO/k6ben3SA7jXWFMPCA3qUVltMeH5EmogmLOIE=";
        assert_eq!(
            decrypt_aes("key", from_helm).expect("decrypts"),
            "hello world"
        );
    }

    #[test]
    fn decrypting_too_short_a_text_fails_as_go_does() {
        let error = decrypt_aes("key", "AAAA").expect_err("three bytes");
        assert!(matches!(error, FuncError::Message(m) if m.contains("slice bounds out of range")));
    }
}
