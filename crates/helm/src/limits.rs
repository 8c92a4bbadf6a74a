//! The budgets every render runs on: how deep a value may nest, how large a string or list a
//! template may build, and how much work one template may do. They bound what hostile input can
//! make us build; the process's own ceilings (memory, time) are the binary's.

pub use meshchart_yaml::MAX_NESTING;

/// The largest string a template function may build (`repeat`, `printf` widths, `indent`, ...),
/// a value `{{ }}` prints, or the text an `include` or `tpl` returns.
pub const MAX_STRING_BYTES: usize = 10 * 1024 * 1024;
/// The longest list a template function may build or take (`until`, `untilStep`, `toYaml` of a
/// list): [`MAX_STRING_BYTES`] at the 32 bytes a slot minijinja's fuel counts, so a list has the
/// same 10 MiB cap as a string.
pub const MAX_LIST_ITEMS: usize = MAX_STRING_BYTES / 32;

/// The most top-level entries of a values tree (or a map written with `toYaml`) that is kept
/// for the next render on the thread to reuse (see `engine::convert::to_jinja_reusing`): a copy
/// of a larger one would cost more memory than the reuse is worth.
pub const MOST_REMEMBERED_ENTRIES: usize = 4096;

/// How many bytes of data one template render may build in all (strings and lists made by
/// operators, literals and function results, and its output), as minijinja's fuel counts them.
/// Three times [`MAX_STRING_BYTES`]: a string or list doubled with `~` or `+` stops before it
/// reaches 16 MiB, while printing one 10 MiB `repeat` still fits.
pub const TEMPLATE_DATA_BYTES: u64 = 3 * MAX_STRING_BYTES as u64;
/// The bytes one unit of minijinja's fuel stands for (one instruction costs one unit).
const BYTES_PER_FUEL: u64 = 64;
/// The fuel of one template render: [`TEMPLATE_DATA_BYTES`] of data, or as many instructions
/// (491,520), before we call it an endless loop or a runaway value. The control-plane's
/// templates use under 3,000.
pub const FUEL_PER_RENDER: u64 = TEMPLATE_DATA_BYTES / BYTES_PER_FUEL;
