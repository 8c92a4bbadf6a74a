//! `meshchart package`: a chart into a reproducible `<name>-<version>.tgz`.

use super::{print_notes, write_stdout};
use camino::Utf8Path;
use meshchart::flags::ChartFlags;
use meshchart::package::{self, PackageOptions};
use meshchart::Error;
use std::process::ExitCode;

/// Said after every package: Helm reads the archive (`helm show chart`) but cannot render its
/// Jinja templates, and fails with `function "Release" not defined` when asked to.
pub const JINJA_ARCHIVE_NOTE: &str = "note: its templates are Jinja: helm template, helm install \
     and helm lint cannot render it (they fail with `function \"Release\" not defined`); render \
     it with `meshchart render NAME ARCHIVE`, or use meshchart as Helm's post-renderer for a Helm \
     chart";

/// Packages the chart `chart` names into `destination`, printing the archive's sha256sum line.
pub fn run(
    chart: &ChartFlags,
    destination: &Utf8Path,
    version: Option<String>,
    app_version: Option<String>,
    include_golden: bool,
) -> Result<ExitCode, Error> {
    let mut options = PackageOptions::from_env(version, app_version)?;
    options.include_golden = include_golden;
    let source = chart.source();
    let (package, notes) = source.package(&options)?;
    print_notes(&notes);
    print_notes(&[
        format!("packaged {source}: {} {}", package.name, package.version),
        JINJA_ARCHIVE_NOTE.to_owned(),
    ]);
    let path = package::write_package(&package, destination)?;
    write_stdout(&package::sha256sum_line(&package, &path))?;
    Ok(ExitCode::SUCCESS)
}
