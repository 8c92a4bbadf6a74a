//! The line-based fast path of our YAML reader against the full reader (yaml-rust2): wherever
//! the fast path answers, the full reader reads the same text without error, to the same values,
//! under both rule sets (templates' output, and users' manifests).
#![no_main]

use libfuzzer_sys::fuzz_target;
use meshchart::yaml::load::readers::{fast, full};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    for manifest in [false, true] {
        let Some(quick) = fast(text, manifest) else {
            continue;
        };
        match full(text, manifest) {
            Ok(slow) => assert_eq!(quick, slow, "manifest rules: {manifest}; text:\n{text}"),
            Err(e) => panic!("the fast path read text the full reader refuses ({e}):\n{text}"),
        }
    }
});
