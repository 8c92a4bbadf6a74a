use super::*;

fn values(yaml: &str) -> Value {
    crate::yaml::parse_document(yaml).unwrap()
}

#[test]
fn wait_before_exit_with_native_sidecars_gets_a_warning() {
    let chart = crate::releases::default_control_plane().unwrap();
    let notes = proxy_value_warnings(
        &chart,
        &values("proxy: {nativeSidecar: true, waitBeforeExitSeconds: 30}"),
    );
    assert_eq!(notes.len(), 1, "{notes:?}");
    assert!(
        notes[0].starts_with("proxy.waitBeforeExitSeconds=30 is ignored"),
        "{}",
        notes[0]
    );
    for quiet in [
        "proxy: {nativeSidecar: false, waitBeforeExitSeconds: 30}",
        "proxy: {nativeSidecar: true, waitBeforeExitSeconds: 0}",
        "proxy: {nativeSidecar: true}",
    ] {
        assert!(
            proxy_value_warnings(&chart, &values(quiet)).is_empty(),
            "{quiet}"
        );
    }
}

#[test]
fn charts_without_the_proxy_partial_get_no_proxy_notes() {
    let chart = Chart::from_files(
        "test chart",
        vec![crate::chart::ChartFile {
            path: "Chart.yaml".into(),
            text: String::from("apiVersion: v2\nname: other\nversion: 0.1.0\n").into(),
        }],
    )
    .unwrap();
    let v = values("proxy: {nativeSidecar: true, waitBeforeExitSeconds: 30}");
    assert!(proxy_value_warnings(&chart, &v).is_empty());
}
