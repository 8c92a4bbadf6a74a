//! The `--set` family parser: any expression in any mode either applies or fails with the map
//! untouched; what it builds prints as YAML that reads back the same.
#![no_main]

use libfuzzer_sys::fuzz_target;
use meshchart::values::{apply_set_with_reader, Map, SetMode, Value};

const MODES: [SetMode; 5] = [
    SetMode::Set,
    SetMode::SetString,
    SetMode::SetFile,
    SetMode::SetJson,
    SetMode::SetLiteral,
];

fuzz_target!(|data: &[u8]| {
    let Some((&selector, rest)) = data.split_first() else {
        return;
    };
    let Ok(text) = std::str::from_utf8(rest) else {
        return;
    };
    let mut map = Map::new();
    // Several expressions, one per line, in modes chosen by the selector's bits.
    for (i, expression) in text.split('\n').enumerate().take(8) {
        let mode = MODES[usize::from(selector.rotate_right(i as u32 * 3)) % MODES.len()];
        let before = map.clone();
        // `--set-file` reads the path's "file": the path itself stands for its contents.
        let mut read_file = |path: &str| -> Result<String, String> {
            if path.starts_with('!') {
                Err("unreadable".to_owned())
            } else {
                Ok(path.to_owned())
            }
        };
        if apply_set_with_reader(&mut map, expression, mode, &mut read_file).is_err() {
            assert_eq!(map, before, "a failed expression changed the map");
        }
    }
    meshchart_fuzz::assert_yaml_round_trip(&Value::Map(map));
});
