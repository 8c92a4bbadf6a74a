//! Unit tests for the inject report: kept beside `report.rs` rather than in it so the report's code
//! reads in one screenful.

use super::*;

fn entry(outcome: Outcome) -> Entry {
    Entry {
        source: "in.yaml".into(),
        line: 3,
        kind: "Deployment".into(),
        name: "web".into(),
        namespace: "emojivoto".into(),
        outcome,
    }
}

#[test]
fn text_lines() {
    let report = Report {
        entries: vec![
            entry(Outcome::Injected {
                already: false,
                changed: true,
                warnings: vec![],
            }),
            entry(Outcome::Skipped(SkipReason::HostNetwork)),
            Entry {
                kind: String::new(),
                ..entry(Outcome::Skipped(SkipReason::MissingKind))
            },
        ],
    };
    assert_eq!(
        report.render(ReportFormat::Text),
        "deployment \"web\" injected\n\
             deployment \"web\" skipped: hostNetwork is enabled\n\
             document missing \"kind\" field, skipped\n"
    );
}

#[test]
fn the_summary_counts_resources_and_warnings_and_quiet_keeps_only_it() {
    let report = Report {
        entries: vec![
            entry(Outcome::Injected {
                already: false,
                changed: true,
                warnings: vec![Warning::Udp, Warning::WaitBeforeExitIgnored],
            }),
            entry(Outcome::Injected {
                already: false,
                changed: true,
                warnings: vec![],
            }),
            entry(Outcome::Skipped(SkipReason::Unsupported)),
        ],
    };
    assert_eq!(
        report.summary().to_string(),
        "2 injected, 1 skipped, 2 warnings"
    );
    assert_eq!(
        report.render_inject(ReportFormat::Text, true),
        "2 injected, 1 skipped, 2 warnings\n"
    );
    let loud = report.render_inject(ReportFormat::Text, false);
    assert!(loud.starts_with("deployment \"web\" injected; warning: "));
    assert!(loud.ends_with("\ndeployment \"web\" skipped: not a workload (it has no pods)\n2 injected, 1 skipped, 2 warnings\n"));
    let json: serde_json::Value =
        serde_json::from_str(&report.render_inject(ReportFormat::Json, true)).unwrap();
    assert_eq!(json["resources"], serde_json::json!([]));
    assert_eq!(json["summary"]["warnings"], 2);
    let one = Report {
        entries: vec![entry(Outcome::Injected {
            already: false,
            changed: true,
            warnings: vec![Warning::Udp],
        })],
    };
    assert_eq!(
        one.summary().to_string(),
        "1 injected, 0 skipped, 1 warning"
    );
}

#[test]
fn json_entries() {
    let report = Report {
        entries: vec![entry(Outcome::Skipped(SkipReason::InjectionDisabled))],
    };
    let parsed: serde_json::Value =
        serde_json::from_str(&report.render(ReportFormat::Json)).unwrap();
    let e = &parsed["resources"][0];
    assert_eq!(e["result"], "skipped");
    assert_eq!(e["reason"], "injection_disabled");
    assert_eq!(e["line"], 3);
}

#[test]
fn a_spooled_report_prints_what_the_whole_report_renders() {
    let entries = [
        entry(Outcome::Injected {
            already: true,
            changed: true,
            warnings: vec![Warning::Udp],
        }),
        entry(Outcome::Skipped(SkipReason::HostNetwork)),
        entry(Outcome::Uninjected),
    ];
    for format in [ReportFormat::Text, ReportFormat::Json] {
        for count in 0..=entries.len() {
            let report = Report {
                entries: entries[..count].to_vec(),
            };
            let mut spooled = SpooledReport::new(format).unwrap();
            for e in &report.entries {
                spooled.entry(e.clone()).unwrap();
            }
            let mut printed = Vec::new();
            spooled.copy_to(&mut printed).unwrap();
            assert_eq!(
                String::from_utf8(printed).unwrap(),
                report.render(format),
                "{format:?}, {count} entries"
            );
        }
    }
}

/// The spooled inject report writes its summary by hand: it must stay what
/// [`Report::render_inject`] prints, quiet or not, in either format.
#[test]
fn a_spooled_inject_report_prints_what_render_inject_renders() {
    let entries = [
        entry(Outcome::Injected {
            already: false,
            changed: true,
            warnings: vec![Warning::Udp, Warning::WaitBeforeExitIgnored],
        }),
        entry(Outcome::Skipped(SkipReason::HostNetwork)),
        entry(Outcome::Injected {
            already: true,
            changed: false,
            warnings: vec![],
        }),
    ];
    for format in [ReportFormat::Text, ReportFormat::Json] {
        for quiet in [false, true] {
            for count in 0..=entries.len() {
                let report = Report {
                    entries: entries[..count].to_vec(),
                };
                let mut spooled = SpooledReport::for_inject(format, quiet).unwrap();
                for e in &report.entries {
                    spooled.entry(e.clone()).unwrap();
                }
                let mut printed = Vec::new();
                spooled.copy_to(&mut printed).unwrap();
                assert_eq!(
                    String::from_utf8(printed).unwrap(),
                    report.render_inject(format, quiet),
                    "{format:?}, quiet {quiet}, {count} entries"
                );
            }
        }
    }
}
