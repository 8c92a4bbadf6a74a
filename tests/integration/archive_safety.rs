//! Reading chart archives without trusting them: each crafted archive is refused with the entry
//! named, and nothing is written to disk while reading.

use crate::support;

use camino::Utf8PathBuf;
use flate2::write::GzEncoder;
use flate2::Compression;
use meshchart::chart::{Chart, MAX_CHART_BYTES, MAX_CHART_FILES};
use std::io::Write;
use std::path::Path;
use support::cli::{command, run, scratch_dir};

const CHART_YAML: &[u8] = b"apiVersion: v2\nname: demo\nversion: 1.0.0\n";
const TEMPLATE: &[u8] = b"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n";

/// A header with `name` written raw (the tar crate's own setters refuse `..` and absolute paths).
fn header(name: &str, kind: tar::EntryType, size: u64) -> tar::Header {
    let mut h = tar::Header::new_ustar();
    let field = &mut h.as_old_mut().name;
    field[..name.len()].copy_from_slice(name.as_bytes());
    h.set_entry_type(kind);
    h.set_size(size);
    h.set_mode(0o644);
    h.set_mtime(0);
    h.set_cksum();
    h
}

fn link_header(name: &str, kind: tar::EntryType, target: &str) -> tar::Header {
    let mut h = header(name, kind, 0);
    let field = &mut h.as_old_mut().linkname;
    field[..target.len()].copy_from_slice(target.as_bytes());
    h.set_cksum();
    h
}

/// A gzipped tar of `entries` (header, content).
fn archive(entries: Vec<(tar::Header, Vec<u8>)>) -> Vec<u8> {
    let mut tar = tar::Builder::new(GzEncoder::new(Vec::new(), Compression::fast()));
    for (h, data) in entries {
        tar.append(&h, data.as_slice()).unwrap();
    }
    tar.into_inner().unwrap().finish().unwrap()
}

fn file(name: &str, data: &[u8]) -> (tar::Header, Vec<u8>) {
    (
        header(name, tar::EntryType::Regular, data.len() as u64),
        data.to_vec(),
    )
}

fn listing(dir: &Path) -> Vec<String> {
    let mut found = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            found.push(p.to_string_lossy().into_owned());
            if p.is_dir() {
                stack.push(p);
            }
        }
    }
    found.sort();
    found
}

/// Writes `bytes` as an archive in a fresh folder, reads it, and checks that the read fails
/// naming `entry` and `reason`, and that nothing appeared beside the archive or one level up.
fn assert_refused(name: &str, bytes: &[u8], entry: &str, reason: &str) {
    let dir = scratch_dir(name);
    let work = dir.join("work");
    std::fs::create_dir_all(&work).unwrap();
    let path = work.join("crafted.tgz");
    std::fs::write(&path, bytes).unwrap();
    let before = listing(&dir);
    let e = Chart::from_archive(&Utf8PathBuf::from_path_buf(path).unwrap())
        .expect_err("the archive must be refused")
        .to_string();
    assert!(
        e.contains(&format!("entry {entry:?}")),
        "entry not named: {e}"
    );
    assert!(e.contains(reason), "reason missing: {e}");
    assert_eq!(listing(&dir), before, "something was written");
}

#[test]
fn a_well_formed_archive_with_folder_entries_is_read() {
    let bytes = archive(vec![
        (header("./demo/", tar::EntryType::Directory, 0), vec![]),
        file("./demo/Chart.yaml", CHART_YAML),
        (
            header("demo/templates/", tar::EntryType::Directory, 0),
            vec![],
        ),
        file("demo/templates/cm.yaml", TEMPLATE),
    ]);
    let dir = scratch_dir("good");
    let path = dir.join("demo.tgz");
    std::fs::write(&path, bytes).unwrap();
    let chart = Chart::from_archive(&Utf8PathBuf::from_path_buf(path).unwrap()).unwrap();
    assert_eq!(chart.metadata.name, "demo");
    assert_eq!(chart.templates[0].path, "cm.yaml");
}

#[test]
fn a_path_that_climbs_out_with_dot_dot_is_refused() {
    let bytes = archive(vec![
        file("demo/Chart.yaml", CHART_YAML),
        file("demo/../../evil.yaml", b"x: 1\n"),
    ]);
    assert_refused("dotdot", &bytes, "demo/../../evil.yaml", "climbs out");
}

#[test]
fn an_absolute_path_is_refused() {
    let bytes = archive(vec![file("/etc/evil.yaml", b"x: 1\n")]);
    assert_refused(
        "absolute",
        &bytes,
        "/etc/evil.yaml",
        "absolute paths are not allowed",
    );
}

#[test]
fn a_symbolic_link_is_refused() {
    let bytes = archive(vec![
        file("demo/Chart.yaml", CHART_YAML),
        (
            link_header(
                "demo/templates/passwd.yaml",
                tar::EntryType::Symlink,
                "/etc/passwd",
            ),
            vec![],
        ),
    ]);
    assert_refused(
        "symlink",
        &bytes,
        "demo/templates/passwd.yaml",
        "symbolic links are not allowed",
    );
}

#[test]
fn a_hard_link_is_refused() {
    let bytes = archive(vec![
        file("demo/Chart.yaml", CHART_YAML),
        (
            link_header("demo/values.yaml", tar::EntryType::Link, "demo/Chart.yaml"),
            vec![],
        ),
    ]);
    assert_refused(
        "hardlink",
        &bytes,
        "demo/values.yaml",
        "hard links are not allowed",
    );
}

#[test]
fn devices_and_pipes_are_refused() {
    for (kind, reason) in [
        (tar::EntryType::Char, "devices are not allowed"),
        (tar::EntryType::Block, "devices are not allowed"),
        (tar::EntryType::Fifo, "pipes are not allowed"),
    ] {
        let bytes = archive(vec![
            file("demo/Chart.yaml", CHART_YAML),
            (header("demo/dev", kind, 0), vec![]),
        ]);
        assert_refused("device", &bytes, "demo/dev", reason);
    }
}

#[test]
fn a_second_top_folder_is_refused() {
    let bytes = archive(vec![
        file("demo/Chart.yaml", CHART_YAML),
        file("other/Chart.yaml", CHART_YAML),
    ]);
    assert_refused(
        "two-tops",
        &bytes,
        "other/Chart.yaml",
        "a second top folder",
    );
}

#[test]
fn a_file_outside_any_top_folder_is_refused() {
    let bytes = archive(vec![file("Chart.yaml", CHART_YAML)]);
    assert_refused(
        "no-top",
        &bytes,
        "Chart.yaml",
        "outside the chart's top folder",
    );
}

#[test]
fn a_path_stored_twice_is_refused() {
    let bytes = archive(vec![
        file("demo/Chart.yaml", CHART_YAML),
        file(
            "demo/Chart.yaml",
            b"apiVersion: v2\nname: other\nversion: 6.6.6\n",
        ),
    ]);
    assert_refused("duplicate", &bytes, "demo/Chart.yaml", "appears twice");
}

#[test]
fn more_entries_than_the_file_limit_are_refused() {
    let mut entries = vec![file("demo/Chart.yaml", CHART_YAML)];
    entries.extend((1..=MAX_CHART_FILES).map(|i| file(&format!("demo/f/{i}"), b"")));
    let bytes = archive(entries);
    let last = format!("demo/f/{MAX_CHART_FILES}");
    assert_refused(
        "count",
        &bytes,
        &last,
        &format!("more than {MAX_CHART_FILES} entries"),
    );
}

/// A gzip stream whose only entry declares `size` bytes, followed by that many zeros, streamed
/// through the encoder 64 KiB at a time (the zeros are never held in memory).
fn zero_bomb(name: &str, kind: tar::EntryType, size: u64) -> Vec<u8> {
    let mut gz = GzEncoder::new(Vec::new(), Compression::fast());
    gz.write_all(header(name, kind, size).as_bytes()).unwrap();
    let zeros = [0u8; 64 * 1024];
    let mut left = size;
    while left > 0 {
        let n = left.min(zeros.len() as u64) as usize;
        gz.write_all(&zeros[..n]).unwrap();
        left -= n as u64;
    }
    gz.finish().unwrap()
}

#[test]
fn a_one_gib_gzip_bomb_is_refused_before_it_is_inflated() {
    let bytes = zero_bomb("bomb/Chart.yaml", tar::EntryType::Regular, 1 << 30);
    assert!(
        bytes.len() < 8 << 20,
        "the bomb is small on disk: {} bytes",
        bytes.len()
    );
    let started = std::time::Instant::now();
    assert_refused(
        "bomb",
        &bytes,
        "bomb/Chart.yaml",
        &format!("{MAX_CHART_BYTES} bytes"),
    );
    assert!(started.elapsed().as_secs() < 10, "reading must stop early");
}

#[test]
fn a_bomb_inside_a_long_name_header_is_stopped_by_the_inflated_byte_count() {
    // The tar reader reads a GNU long name whole; only our count of inflated bytes bounds it.
    let mut gz = GzEncoder::new(Vec::new(), Compression::fast());
    gz.write_all(file("bomb/Chart.yaml", CHART_YAML).0.as_bytes())
        .unwrap();
    let mut padded = CHART_YAML.to_vec();
    padded.resize(512, 0);
    gz.write_all(&padded).unwrap();
    let mut long = tar::Header::new_gnu();
    long.as_gnu_mut().unwrap().name[..13].copy_from_slice(b"././@LongLink");
    long.set_entry_type(tar::EntryType::GNULongName);
    let size: u64 = 256 << 20;
    long.set_size(size);
    long.set_cksum();
    gz.write_all(long.as_bytes()).unwrap();
    let zeros = [b'a'; 64 * 1024];
    for _ in 0..size / zeros.len() as u64 {
        gz.write_all(&zeros).unwrap();
    }
    let bytes = gz.finish().unwrap();
    let dir = scratch_dir("longname");
    let path = dir.join("crafted.tgz");
    std::fs::write(&path, bytes).unwrap();
    let e = Chart::from_archive(&Utf8PathBuf::from_path_buf(path).unwrap())
        .unwrap_err()
        .to_string();
    assert!(e.contains("inflated stream exceeds"), "{e}");
    assert!(
        e.contains("entry \"bomb/Chart.yaml\""),
        "the last entry read is named: {e}"
    );
}

#[test]
fn render_refuses_a_crafted_archive_and_writes_nothing() {
    let dir = scratch_dir("cli");
    let work = dir.join("work");
    std::fs::create_dir_all(&work).unwrap();
    let bytes = archive(vec![
        file("demo/Chart.yaml", CHART_YAML),
        file("demo/templates/../../../evil.yaml", TEMPLATE),
    ]);
    std::fs::write(work.join("evil.tgz"), bytes).unwrap();
    let before = listing(&dir);
    let out = run(command(&["render", "--chart", "evil.tgz"]).current_dir(&work));
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("evil.tgz: entry \"demo/templates/../../../evil.yaml\""),
        "{stderr}"
    );
    assert_eq!(listing(&dir), before);
}

#[test]
fn an_archive_whose_gzip_checksum_or_length_is_wrong_is_refused_naming_it() {
    let good = archive(vec![
        file("demo/Chart.yaml", CHART_YAML),
        file("demo/templates/cm.yaml", TEMPLATE),
    ]);
    // The gzip trailer: the CRC-32 of the inflated bytes, then their length, 4 bytes each.
    let trailer = good.len() - 8;
    for (what, at) in [("checksum", trailer), ("length", trailer + 4)] {
        let mut bytes = good.clone();
        bytes[at] ^= 0xff;
        let dir = scratch_dir(&format!("bad-gzip-{what}"));
        let path = dir.join("demo.tgz");
        std::fs::write(&path, &bytes).unwrap();
        let e = Chart::from_archive(&Utf8PathBuf::from_path_buf(path).unwrap())
            .expect_err("a corrupt archive must be refused")
            .to_string();
        assert!(
            e.contains("demo.tgz") && e.contains("not a valid chart archive"),
            "{what}: {e}"
        );
    }
}
