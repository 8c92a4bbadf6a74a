//! SHA-256 and SHA-1, from ring (already built for certificates): its assembly is faster than
//! the portable code on machines without SHA instructions, and a render hashes every config it
//! checksums.

use std::cell::RefCell;
use std::sync::{Mutex, PoisonError};

/// The SHA-256 of `data`.
pub fn sha256(data: &[u8]) -> [u8; 32] {
    sha256_of(&[data])
}

/// Inputs shorter than this are hashed again. Above it, comparing an input with the ones
/// remembered (which mostly differ in length or early) costs far less than hashing it: a
/// certificate of 600 bytes takes some 20,000 instructions to hash.
const REMEMBERED_FROM_BYTES: usize = 128;
/// Inputs remembered per thread, the most recent first.
const REMEMBERED_INPUTS: usize = 8;
/// Bytes of input remembered per thread at most.
const REMEMBERED_BYTES: usize = 1 << 20;

/// An input hashed before, and its digest.
type Hashed = (Box<[u8]>, [u8; 32]);

thread_local! {
    /// Recent large inputs and their digests on this thread.
    static RECENT: RefCell<Vec<Hashed>> = const { RefCell::new(Vec::new()) };
}

/// [`sha256`], remembering the digests of this thread's recent large inputs. A fleet's
/// templates hash the same text (a webhook's certificates and RBAC, for the pod's checksum) for
/// every cluster; comparing it with what was hashed before costs a twentieth of hashing it.
pub fn sha256_remembered(data: &[u8]) -> [u8; 32] {
    if data.len() < REMEMBERED_FROM_BYTES || data.len() > REMEMBERED_BYTES {
        return sha256(data);
    }
    RECENT.with(|recent| {
        let mut recent = recent.borrow_mut();
        if let Some(at) = recent.iter().position(|(input, _)| **input == *data) {
            let hit = recent.remove(at);
            let digest = hit.1;
            recent.insert(0, hit);
            return digest;
        }
        let digest = sha256(data);
        recent.insert(0, (data.into(), digest));
        recent.truncate(REMEMBERED_INPUTS);
        let mut kept = 0;
        recent.retain(|(input, _)| {
            kept += input.len();
            kept <= REMEMBERED_BYTES
        });
        digest
    })
}

/// `bytes` in lower-case hexadecimal, two digits a byte.
pub fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(bytes.len() * 2);
    for &byte in bytes {
        out.push(char::from(DIGITS[usize::from(byte >> 4)]));
        out.push(char::from(DIGITS[usize::from(byte & 0x0f)]));
    }
    out
}

/// The SHA-256 of `parts` one after the other.
pub fn sha256_of(parts: &[&[u8]]) -> [u8; 32] {
    let mut context = ring::digest::Context::new(&ring::digest::SHA256);
    for part in parts {
        context.update(part);
    }
    let mut out = [0; 32];
    out.copy_from_slice(context.finish().as_ref());
    out
}

/// The SHA-256 of `fields`, each preceded by its length: no two lists of fields share one.
pub fn sha256_of_fields(fields: &[&[u8]]) -> [u8; 32] {
    let lengths: Vec<[u8; 8]> = fields
        .iter()
        .map(|f| (f.len() as u64).to_be_bytes())
        .collect();
    let parts: Vec<&[u8]> = lengths
        .iter()
        .zip(fields)
        .flat_map(|(length, field)| [length.as_slice(), field])
        .collect();
    sha256_of(&parts)
}

/// Checks that passed, remembered by the digest of their inputs, for checks a fleet repeats
/// with the same inputs for every cluster (a signature, a key pair): each costs curve arithmetic
/// once per process. At most 64 are kept; past that, checks simply run again.
#[derive(Default)]
pub struct PassedChecks {
    digests: Mutex<Vec<[u8; 32]>>,
}

impl PassedChecks {
    /// None remembered yet.
    pub const fn new() -> Self {
        PassedChecks {
            digests: Mutex::new(Vec::new()),
        }
    }

    /// Ok when the check with inputs `digest` passed before; else runs `check` and remembers a
    /// pass. A failure is never remembered.
    pub fn check<E>(
        &self,
        digest: [u8; 32],
        check: impl FnOnce() -> Result<(), E>,
    ) -> Result<(), E> {
        let lock = || self.digests.lock().unwrap_or_else(PoisonError::into_inner);
        if lock().contains(&digest) {
            return Ok(());
        }
        check()?;
        let mut digests = lock();
        if !digests.contains(&digest) && digests.len() < 64 {
            digests.push(digest);
        }
        Ok(())
    }
}

/// The SHA-1 of `data`, for templates' `sha1sum` (Helm has it; nothing here relies on it).
pub fn sha1(data: &[u8]) -> [u8; 20] {
    let mut out = [0; 20];
    out.copy_from_slice(
        ring::digest::digest(&ring::digest::SHA1_FOR_LEGACY_USE_ONLY, data).as_ref(),
    );
    out
}

#[cfg(test)]
mod tests {
    use super::hex;

    #[test]
    fn hex_is_two_lower_case_digits_a_byte() {
        assert_eq!(hex(&[0x00, 0x0f, 0xa5, 0xff]), "000fa5ff");
    }

    #[test]
    fn sha256_matches_the_standard_test_vector() {
        assert_eq!(
            hex(&super::sha256(b"abc")),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        assert_eq!(super::sha256_of(&[b"a", b"bc"]), super::sha256(b"abc"));
    }

    #[test]
    fn remembered_digests_are_the_digests_of_their_inputs() {
        let long = |fill: u8, last: u8| {
            let mut text = vec![fill; 4096];
            text[4095] = last;
            text
        };
        // Same length, differing only in the last byte; then again, and a short one.
        for text in [
            long(b'a', b'x'),
            long(b'a', b'y'),
            long(b'a', b'x'),
            long(b'b', b'x'),
        ] {
            assert_eq!(super::sha256_remembered(&text), super::sha256(&text));
            assert_eq!(super::sha256_remembered(&text), super::sha256(&text));
        }
        assert_eq!(super::sha256_remembered(b"abc"), super::sha256(b"abc"));
        for n in 0..20u8 {
            let text = long(n, n);
            assert_eq!(super::sha256_remembered(&text), super::sha256(&text));
        }
        assert_eq!(
            super::sha256_remembered(&long(b'a', b'y')),
            super::sha256(&long(b'a', b'y'))
        );
    }

    #[test]
    fn sha1_matches_the_standard_test_vector() {
        assert_eq!(
            hex(&super::sha1(b"abc")),
            "a9993e364706816aba3e25717850c26c9cd0d89d"
        );
    }

    #[test]
    fn fields_are_told_apart_wherever_they_split() {
        let one = super::sha256_of_fields(&[b"ab", b"c"]);
        assert_ne!(one, super::sha256_of_fields(&[b"a", b"bc"]));
        assert_eq!(one, super::sha256_of_fields(&[b"ab", b"c"]));
    }

    #[test]
    fn a_passed_check_is_not_run_again_and_a_failed_one_is() {
        let checks = super::PassedChecks::new();
        let mut runs = 0;
        assert_eq!(
            checks.check([1; 32], || {
                runs += 1;
                Err("no")
            }),
            Err("no")
        );
        assert_eq!(
            checks.check([1; 32], || {
                runs += 1;
                Ok::<(), &str>(())
            }),
            Ok(())
        );
        assert_eq!(
            checks.check([1; 32], || {
                runs += 1;
                Err("no")
            }),
            Ok(())
        );
        assert_eq!(runs, 2);
    }
}
