//! Chart archives of any bytes: read or refused with an error, never a panic, a hang or
//! unbounded memory; a chart read from one loads its default values or fails cleanly.
//!
//! The first byte chooses whether the rest is the gzip stream itself or a tar stream this target
//! gzips first (random bytes rarely pass gzip's checksum, so the tar reader would go unexplored).
#![no_main]

use flate2::write::GzEncoder;
use flate2::Compression;
use libfuzzer_sys::fuzz_target;
use meshchart::chart::{Chart, ChartFile};
use meshchart::input::archive::read_archive;
use std::io::Write;

fuzz_target!(|data: &[u8]| {
    let Some((&selector, rest)) = data.split_first() else {
        return;
    };
    let gzipped;
    let stream: &[u8] = if selector & 1 == 0 {
        rest
    } else {
        let mut encoder = GzEncoder::new(Vec::new(), Compression::fast());
        encoder.write_all(rest).expect("gzip into memory");
        gzipped = encoder.finish().expect("gzip into memory");
        &gzipped
    };
    let Ok(contents) = read_archive(stream, "fuzz.tgz") else {
        return;
    };
    let files = contents
        .files
        .into_iter()
        .filter_map(|(path, bytes)| {
            String::from_utf8(bytes)
                .ok()
                .map(|text| ChartFile { path, text })
        })
        .collect();
    if let Ok(chart) = Chart::from_files("fuzz.tgz", files) {
        let _ = chart.default_values();
    }
});
