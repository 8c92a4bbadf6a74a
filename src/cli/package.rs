//! `meshchart package`: a chart into a reproducible `<name>-<version>.tgz`.

use super::{print_notes, write_stdout};
use camino::Utf8Path;
use meshchart::flags::ChartFlags;
use meshchart::package::{self, PackageOptions};
use meshchart::Error;
use std::process::ExitCode;

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
    print_notes(&[format!(
        "packaged {source}: {} {}",
        package.name, package.version
    )]);
    let path = package::write_package(&package, destination)?;
    write_stdout(&package::sha256sum_line(&package, &path))?;
    Ok(ExitCode::SUCCESS)
}
