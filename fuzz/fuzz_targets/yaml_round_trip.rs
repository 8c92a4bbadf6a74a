//! Any text through our YAML reader: an error or documents; every document our writer prints
//! reads back as the same data.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(documents) = meshchart::yaml::parse_documents(text) {
        for document in &documents {
            meshchart_fuzz::assert_yaml_round_trip(document);
        }
    }
});
