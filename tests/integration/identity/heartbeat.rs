//! The heartbeat's schedule, derived from the cluster's identity instead of the clock.

use super::*;

fn schedule_at(mut values: Value, seconds: u64) -> String {
    complete_material(
        &mut values,
        &chart(),
        &MaterialOptions {
            certs_dir: None,
            now: at(seconds),
            read_only: false,
        },
    )
    .expect("completes");
    get_str(&values, "heartbeatSchedule").to_owned()
}

/// Whether `schedule` is daily at a minute and hour: `MM HH * * *`.
pub(super) fn is_daily(schedule: &str) -> bool {
    let fields: Vec<&str> = schedule.split(' ').collect();
    let in_range =
        |text: &str, below: u32| text.len() == 2 && text.parse::<u32>().is_ok_and(|n| n < below);
    fields.len() == 5
        && in_range(fields[0], 60)
        && in_range(fields[1], 24)
        && fields[2..] == ["*", "*", "*"]
}

#[test]
fn heartbeat_schedule_does_not_move_with_the_clock() {
    let today = schedule_at(with_reference_issuer(), NOW);
    let tomorrow = schedule_at(with_reference_issuer(), NOW + DAY + 37 * 60 + 11);
    assert_eq!(today, tomorrow);
    // The SHA-256 of the length-prefixed trust domain (`cluster.local`, from clusterDomain),
    // namespace (`linkerd`) and the reference anchors' DER picks minute 926 of the day (the
    // first 8 bytes, big-endian, modulo 1440), as Python's hashlib computes it too.
    assert_eq!(today, "26 15 * * *");
}

#[test]
fn heartbeat_schedule_follows_the_trust_domain_namespace_and_anchors() {
    let reference = schedule_at(with_reference_issuer(), NOW);
    let mut other_domain = with_reference_issuer();
    set(&mut other_domain, "identityTrustDomain", "prod.example.com");
    let mut other_namespace = with_reference_issuer();
    set(&mut other_namespace, "namespace", "linkerd-prod");
    let mut other_anchors = with_reference_issuer();
    let anchors = reference_file("valid-trust-anchors.pem");
    // The issuer's own certificate beside the root: a different bundle (still valid).
    let bundle = format!("{anchors}{}", reference_file("valid-crt.pem"));
    set(
        &mut other_anchors,
        "identityTrustAnchorsPEM",
        bundle.as_str(),
    );
    for (what, values) in [
        ("trust domain", other_domain),
        ("namespace", other_namespace),
        ("anchors", other_anchors),
    ] {
        let schedule = schedule_at(values, NOW);
        assert!(is_daily(&schedule), "{schedule}");
        assert_ne!(schedule, reference, "another {what} moves the schedule");
    }
}

#[test]
fn heartbeat_schedule_reads_the_anchors_not_their_line_endings() {
    let mut crlf = with_reference_issuer();
    let anchors = reference_file("valid-trust-anchors.pem").replace('\n', "\r\n");
    set(&mut crlf, "identityTrustAnchorsPEM", anchors.as_str());
    assert_eq!(
        schedule_at(crlf, NOW),
        schedule_at(with_reference_issuer(), NOW)
    );
}

#[test]
fn heartbeat_schedule_is_left_out_when_the_heartbeat_is_disabled() {
    let mut values = defaults();
    set(&mut values, "disableHeartBeat", true);
    complete(&mut values);
    assert_eq!(get_str(&values, "heartbeatSchedule"), "");
}
