use super::*;

#[test]
fn attached_and_separate_values_read_alike() {
    let read = |words: &[&str]| CommandLineCaseArgs.render_case(words).unwrap().0;
    let separate = read(&["-f", "a.yaml", "--set", "x=1", "-n", "ns"]);
    let attached = read(&["-fa.yaml", "--set=x=1", "-n=ns"]);
    assert_eq!(separate, attached);
    assert_eq!(separate.values.files, ["a.yaml"]);
    assert_eq!(separate.values.set, ["x=1"]);
    assert_eq!(separate.namespace, "ns");
}

#[test]
fn a_case_names_its_chart_as_the_command_line_does() {
    let chart = |words: &[&str]| CommandLineCaseArgs.render_case(words).unwrap().1;
    assert_eq!(chart(&["web", "--set", "a=1"]).path.as_deref(), Some("web"));
    assert_eq!(chart(&["--chart=web"]).path.as_deref(), Some("web"));
    let line = chart(&["--linkerd", "edge-24.10.2", "--crds"]);
    assert_eq!(
        (line.linkerd.as_deref(), line.crds),
        (Some("edge-24.10.2"), true)
    );
    assert!(chart(&["--set", "a=1"]).is_empty());
}

#[test]
fn a_case_is_refused_what_the_command_line_refuses_naming_the_flag() {
    for (words, named) in [
        (&["--sett", "x"][..], "'--sett'"),
        (&["--set"], "'--set"),
        (&["a", "b", "c"], "'c'"),
        (&["a", "b", "--linkerd", "edge-24.10.2"], "--linkerd"),
        (&["a", "b", "--name", "c"], "--name"),
        (&["--chart", "a", "--crds"], "--crds"),
        (&["--is-upgrade=yes"], "--is-upgrade"),
        (&["-n", "a", "--namespace", "b"], "--namespace"),
        (&["--max-output-bytes", "lots"], "not a size"),
    ] {
        let error = CommandLineCaseArgs.render_case(words).unwrap_err();
        assert!(error.contains(named), "{words:?}: {error}");
        assert!(
            !error.starts_with("error:") && !error.contains('\n'),
            "{error}"
        );
    }
}

#[test]
fn inject_cases_read_inject_and_uninject_flags() {
    let read = |words: &[&str]| CommandLineCaseArgs.inject_case(words).unwrap();
    let InjectCaseCommand::Inject(request, format) = read(&[
        "inject",
        "in.yaml",
        "-ojson",
        "--report=json",
        "--set",
        "proxy.await=false",
    ]) else {
        panic!("an inject case");
    };
    assert_eq!(request.inputs, ["in.yaml"]);
    assert_eq!(request.output, OutputFormat::Json);
    assert_eq!(request.overrides.set, ["proxy.await=false"]);
    assert_eq!(format, ReportFormat::Json);
    assert_eq!(
        read(&["uninject", "x.yaml"]),
        InjectCaseCommand::Uninject(vec!["x.yaml".into()], ReportFormat::Text)
    );
    assert!(CommandLineCaseArgs
        .inject_case(&["uninject", "in.yaml", "--set", "x=1"])
        .is_err());
}
#[test]
fn value_flags_read_like_render_flags() {
    let value_args = [
        "-f",
        "a.yaml",
        "--values",
        "b.yaml",
        "--set",
        "x=1",
        "--set-string",
        "y=2",
        "--set-file",
        "z=f.txt",
        "--set-json",
        "j={}",
        "--set-literal",
        "l=a,b",
    ];
    let render = RenderCaseLine::try_parse_from(value_args).unwrap();
    let mut args = vec!["inject", "in.yaml"];
    args.extend(value_args);
    let InjectCaseLine::Inject(inject) = InjectCaseLine::try_parse_from(args).unwrap() else {
        panic!("an inject line");
    };
    assert_eq!(
        format!("{:?}", inject.values.overrides()),
        format!("{:?}", render.flags.values.overrides())
    );
}
