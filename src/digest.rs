//! SHA-256 and SHA-1, from ring (already built for certificates): its assembly is faster than
//! the portable code on machines without SHA instructions, and a render hashes every config it
//! checksums.

/// The SHA-256 of `data`.
pub fn sha256(data: &[u8]) -> [u8; 32] {
    sha256_of(&[data])
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
    #[test]
    fn sha256_matches_the_standard_test_vector() {
        let hex: String = super::sha256(b"abc")
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        assert_eq!(
            hex,
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        assert_eq!(super::sha256_of(&[b"a", b"bc"]), super::sha256(b"abc"));
    }

    #[test]
    fn sha1_matches_the_standard_test_vector() {
        let hex: String = super::sha1(b"abc")
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        assert_eq!(hex, "a9993e364706816aba3e25717850c26c9cd0d89d");
    }
}
