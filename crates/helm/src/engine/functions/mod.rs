//! Helm's function library under Helm's names, as Jinja functions and filters.
//!
//! Every function is written once, taking its arguments in Sprig's order, and registered twice:
//!
//! - as a **function**, called as in Helm: `trimPrefix("ab", s)`, `default("d", v)`,
//!   `ternary("y", "n", cond)`, `printf("%s-%d", a, b)`;
//! - as a **filter** (where Helm users pipe it), which works like Go's pipeline: the piped value
//!   becomes the *last* argument, so `s | trimPrefix("ab")` is `trimPrefix("ab", s)` and
//!   `cond | ternary("y", "n")` is `ternary("y", "n", cond)`.
//!
//! Where a name is also a minijinja builtin (`indent`, `default`, `int`, `replace`, `trim`, `list`,
//! `dict`, `upper`, `lower`, `title`, `join`, `split`, `first`, `last`), ours replaces it with
//! Sprig's meaning (`first` and `last` take a list, as Sprig's do): for
//! example `v | list` is `[v]`, not the characters of a string, and `s | split(",")` is Sprig's
//! map `{_0: .., _1: ..}` (`splitList` gives a list). The `max` and `min` filters stay Jinja's
//! (`[3, 1] | max`); the functions `max(a, b)` and `min(a, b)` are Sprig's; so do the filters
//! `reverse` and `round` (the functions `reverse(list)` and `round(n, places)` are Sprig's).
//! `empty` is also a test: `{% if v is empty %}`.
//!
//! Values are immutable here: `set`, `unset`, `merge` and `mergeOverwrite` return a new map and
//! never change their arguments (Sprig changes the first one in place). Rebind the result:
//! `{% set labels = set(labels, "tier", "web") %}`.
//!
//! Cluster and clock access (`lookup`, `now`, `randAlphaNum`, `genCA`, ...) fail with an error that
//! says so: a render must not depend on anything but the chart and its values. Helm's functions
//! not supported yet fail the same way, with what to do instead; [`listing`] prints them all.

mod args;
mod collections;
mod encoding;
mod go_regex;
mod lists;
mod logic;
mod numbers;
mod offline;
mod paths;
mod printf;
mod regex;
mod semver;
mod strings;
#[cfg(test)]
mod test_support;
mod text;
mod yaml_entries;

use minijinja::value::{Rest, Value, ValueOrKwargs};
use minijinja::{Environment, Error};

use args::{is_empty, Args};
pub use logic::noting_missing_required;
pub use printf::sprintf;
pub use semver::satisfies as semver_satisfies;

/// One library function: its usage line (name and Sprig's parameters) and how it is exposed.
struct Entry {
    usage: &'static str,
    call: fn(&Args) -> Result<Value, Error>,
    filter: bool,
    kwargs: bool,
}

impl Entry {
    /// A function that is also a filter (the piped value is its last argument).
    const fn both(usage: &'static str, call: fn(&Args) -> Result<Value, Error>) -> Entry {
        Entry {
            usage,
            call,
            filter: true,
            kwargs: false,
        }
    }

    /// A function only: nobody pipes into it, or a Jinja builtin filter of that name is better.
    const fn function(usage: &'static str, call: fn(&Args) -> Result<Value, Error>) -> Entry {
        Entry {
            usage,
            call,
            filter: false,
            kwargs: false,
        }
    }

    /// A function that also takes Jinja keyword arguments (only `dict(a=1)`).
    const fn with_kwargs(usage: &'static str, call: fn(&Args) -> Result<Value, Error>) -> Entry {
        Entry {
            usage,
            call,
            filter: false,
            kwargs: true,
        }
    }

    fn name(&self) -> &'static str {
        self.usage.split('(').next().unwrap_or(self.usage)
    }
}

/// The library: one row per name, in Sprig's argument order.
const LIBRARY: &[Entry] = &[
    // Strings.
    Entry::both("indent(width, text)", strings::indent),
    Entry::both("nindent(width, text)", strings::nindent),
    Entry::both("trim(text)", strings::trim),
    Entry::both("trimAll(cutset, text)", strings::trim_all),
    Entry::both("trimPrefix(prefix, text)", strings::trim_prefix),
    Entry::both("trimSuffix(suffix, text)", strings::trim_suffix),
    Entry::both("upper(text)", strings::upper),
    Entry::both("lower(text)", strings::lower),
    Entry::both("title(text)", strings::title),
    Entry::both("replace(old, new, text)", strings::replace),
    Entry::both("contains(substring, text)", strings::contains),
    Entry::both("hasPrefix(prefix, text)", strings::has_prefix),
    Entry::both("hasSuffix(suffix, text)", strings::has_suffix),
    Entry::both("quote(value...)", strings::quote),
    Entry::both("squote(value...)", strings::squote),
    Entry::both("cat(value...)", strings::cat),
    Entry::both("nospace(text)", strings::nospace),
    Entry::both("trunc(length, text)", strings::trunc),
    Entry::both("repeat(count, text)", strings::repeat),
    Entry::both("join(separator, list)", strings::join),
    Entry::both("splitList(separator, text)", strings::split_list),
    Entry::both("split(separator, text)", strings::split),
    Entry::both("sortAlpha(list)", strings::sort_alpha),
    Entry::both("toStrings(list)", strings::to_strings),
    Entry::both("toString(value)", strings::to_string),
    Entry::both("print(value...)", strings::print),
    Entry::both("printf(format, value...)", printf::printf),
    Entry::both("println(value...)", strings::println),
    Entry::function("hello()", strings::hello),
    Entry::both("substr(start, end, text)", text::substr),
    Entry::both("abbrev(width, text)", text::abbrev),
    Entry::both("abbrevboth(left, right, text)", text::abbrevboth),
    Entry::both("untitle(text)", text::untitle),
    Entry::both("swapcase(text)", text::swapcase),
    Entry::both("initials(text)", text::initials),
    Entry::both("wrap(width, text)", text::wrap),
    Entry::both("wrapWith(width, separator, text)", text::wrap_with),
    Entry::both("plural(one, many, count)", text::plural),
    Entry::both("splitn(separator, n, text)", text::splitn),
    Entry::both("trimall(cutset, text)", strings::trim_all),
    Entry::both("snakecase(text)", text::snakecase),
    Entry::both("kebabcase(text)", text::kebabcase),
    Entry::both("camelcase(text)", text::camelcase),
    // Encodings and digests.
    Entry::both("b64enc(text)", encoding::b64enc),
    Entry::both("b64dec(text)", encoding::b64dec),
    Entry::both("sha256sum(text)", encoding::sha256sum),
    Entry::both("sha1sum(text)", encoding::sha1sum),
    Entry::both("sha512sum(text)", encoding::sha512sum),
    Entry::both("adler32sum(text)", encoding::adler32sum),
    Entry::both("b32enc(text)", encoding::b32enc),
    Entry::both("b32dec(text)", encoding::b32dec),
    Entry::both("toRawJson(value)", encoding::to_raw_json),
    Entry::both("mustToJson(value)", encoding::to_json),
    Entry::both("mustToPrettyJson(value)", encoding::to_pretty_json),
    Entry::both("mustToRawJson(value)", encoding::to_raw_json),
    Entry::both("mustFromJson(text)", encoding::from_json),
    Entry::both("toToml(value)", encoding::to_toml),
    Entry::both("toYaml(value)", encoding::to_yaml),
    Entry::both("toYamlPretty(value)", encoding::to_yaml_pretty),
    Entry::both("toJson(value)", encoding::to_json),
    Entry::both("toPrettyJson(value)", encoding::to_pretty_json),
    Entry::both("fromYaml(text)", encoding::from_yaml),
    Entry::both("fromYamlArray(text)", encoding::from_yaml_array),
    Entry::both("fromJson(text)", encoding::from_json),
    Entry::both("fromJsonArray(text)", encoding::from_json_array),
    // Defaults, conditions and failures.
    Entry::both("default(fallback, value)", logic::default),
    Entry::both("empty(value)", logic::empty),
    Entry::function("coalesce(value...)", logic::coalesce),
    Entry::both("ternary(if_true, if_false, condition)", logic::ternary),
    Entry::both("required(message, value)", logic::required),
    Entry::both("fail(message)", logic::fail),
    Entry::function("all(value...)", lists::all),
    Entry::function("any(value...)", lists::any),
    // Lists and maps.
    Entry::both("list(item...)", collections::list),
    Entry::with_kwargs("dict(key, value, ...)", collections::dict),
    Entry::both("keys(map...)", collections::keys),
    Entry::function("hasKey(map, key)", collections::has_key),
    Entry::both("has(needle, list)", collections::has),
    Entry::function("set(map, key, value)", collections::set),
    Entry::function("unset(map, key)", collections::unset),
    Entry::both("merge(destination, source...)", collections::merge),
    Entry::both(
        "mergeOverwrite(destination, source...)",
        collections::merge_overwrite,
    ),
    Entry::both("deepCopy(value)", collections::deep_copy),
    Entry::both("dig(key..., default, map)", collections::dig),
    Entry::both("len(value)", collections::len),
    Entry::both("until(count)", collections::until),
    Entry::function("untilStep(start, stop, step)", collections::until_step),
    Entry::function("seq(bounds...)", collections::seq),
    Entry::both("kindIs(kind, value)", collections::kind_is),
    Entry::both("kindOf(value)", collections::kind_of),
    Entry::both("typeOf(value)", collections::type_of),
    Entry::both("typeIs(type, value)", collections::type_is),
    Entry::both("typeIsLike(type, value)", collections::type_is_like),
    Entry::function("deepEqual(a, b)", collections::deep_equal_fn),
    Entry::function("get(map, key)", collections::get),
    Entry::function("pick(map, key...)", collections::pick),
    Entry::function("omit(map, key...)", collections::omit),
    Entry::both("values(map)", collections::values),
    Entry::function("pluck(key, map...)", collections::pluck),
    Entry::both("mustMerge(destination, source...)", collections::merge),
    Entry::both(
        "mustMergeOverwrite(destination, source...)",
        collections::merge_overwrite,
    ),
    Entry::both("mustDeepCopy(value)", collections::deep_copy),
    Entry::both("mustHas(needle, list)", collections::has),
    Entry::both("tuple(item...)", collections::list),
    Entry::function("append(list, item)", lists::append),
    Entry::function("push(list, item)", lists::append),
    Entry::function("mustAppend(list, item)", lists::append),
    Entry::function("mustPush(list, item)", lists::append),
    Entry::function("prepend(list, item)", lists::prepend),
    Entry::function("mustPrepend(list, item)", lists::prepend),
    Entry::both("first(list)", lists::first),
    Entry::both("mustFirst(list)", lists::first),
    Entry::both("rest(list)", lists::rest),
    Entry::both("mustRest(list)", lists::rest),
    Entry::both("last(list)", lists::last),
    Entry::both("mustLast(list)", lists::last),
    Entry::both("initial(list)", lists::initial),
    Entry::both("mustInitial(list)", lists::initial),
    Entry::function("reverse(list)", lists::reverse),
    Entry::both("mustReverse(list)", lists::reverse),
    Entry::both("uniq(list)", lists::uniq),
    Entry::both("mustUniq(list)", lists::uniq),
    Entry::both("compact(list)", lists::compact),
    Entry::both("mustCompact(list)", lists::compact),
    Entry::function("without(list, item...)", lists::without),
    Entry::function("mustWithout(list, item...)", lists::without),
    Entry::function("slice(list, start, end)", lists::slice),
    Entry::function("mustSlice(list, start, end)", lists::slice),
    Entry::function("concat(list...)", lists::concat),
    Entry::both("chunk(size, list)", lists::chunk),
    Entry::both("mustChunk(size, list)", lists::chunk),
    // Numbers.
    Entry::both("int(value)", numbers::int),
    Entry::both("int64(value)", numbers::int),
    Entry::both("atoi(text)", numbers::atoi),
    Entry::both("float64(value)", numbers::float64),
    Entry::both("add(number...)", numbers::add),
    Entry::both("sub(a, b)", numbers::sub),
    Entry::both("mul(number...)", numbers::mul),
    Entry::both("div(a, b)", numbers::div),
    Entry::both("mod(a, b)", numbers::modulo),
    Entry::function("max(number...)", numbers::max),
    Entry::function("min(number...)", numbers::min),
    Entry::both("addf(number...)", numbers::addf),
    Entry::both("subf(a, b...)", numbers::subf),
    Entry::both("mulf(number...)", numbers::mulf),
    Entry::both("divf(a, b...)", numbers::divf),
    Entry::both("add1(number)", numbers::add1),
    Entry::both("add1f(number)", numbers::add1f),
    Entry::function("biggest(number...)", numbers::max),
    Entry::function("maxf(number...)", numbers::maxf),
    Entry::function("minf(number...)", numbers::minf),
    Entry::both("ceil(number)", numbers::ceil),
    Entry::both("floor(number)", numbers::floor),
    Entry::function("round(number, places, round_on)", numbers::round),
    Entry::both("toDecimal(text)", numbers::to_decimal),
    Entry::both("duration(seconds)", numbers::duration),
    // Paths and URLs.
    Entry::both("base(path)", paths::base),
    Entry::both("dir(path)", paths::dir),
    Entry::both("clean(path)", paths::clean),
    Entry::both("ext(path)", paths::ext),
    Entry::both("isAbs(path)", paths::is_abs),
    Entry::both("osBase(path)", paths::base),
    Entry::both("osDir(path)", paths::dir),
    Entry::both("osClean(path)", paths::clean),
    Entry::both("osExt(path)", paths::ext),
    Entry::both("osIsAbs(path)", paths::is_abs),
    Entry::both("urlParse(url)", paths::url_parse),
    Entry::both("urlJoin(parts)", paths::url_join),
    // Versions and regular expressions.
    Entry::both("semverCompare(constraint, version)", semver::semver_compare),
    Entry::both("semver(version)", semver::semver),
    Entry::both("regexMatch(regex, text)", regex::regex_match),
    Entry::both("mustRegexMatch(regex, text)", regex::must_regex_match),
    Entry::both("regexFind(regex, text)", regex::regex_find),
    Entry::both("mustRegexFind(regex, text)", regex::regex_find),
    Entry::function("regexFindAll(regex, text, n)", regex::regex_find_all),
    Entry::function("mustRegexFindAll(regex, text, n)", regex::regex_find_all),
    Entry::function(
        "regexReplaceAll(regex, text, replacement)",
        regex::regex_replace_all,
    ),
    Entry::function(
        "mustRegexReplaceAll(regex, text, replacement)",
        regex::regex_replace_all,
    ),
    Entry::function(
        "regexReplaceAllLiteral(regex, text, replacement)",
        regex::regex_replace_all_literal,
    ),
    Entry::function(
        "mustRegexReplaceAllLiteral(regex, text, replacement)",
        regex::regex_replace_all_literal,
    ),
    Entry::function("regexSplit(regex, text, n)", regex::regex_split),
    Entry::function("mustRegexSplit(regex, text, n)", regex::regex_split),
    Entry::both("regexQuoteMeta(text)", regex::regex_quote_meta),
];

/// Registers the whole library (functions, filters and the `empty` test) on `env`.
pub fn register(env: &mut Environment<'static>) {
    for entry in LIBRARY {
        let (usage, call, kwargs) = (entry.usage, entry.call, entry.kwargs);
        env.add_function(entry.name(), move |args: Rest<ValueOrKwargs>| {
            let values = args.into_values();
            let args = Args::new(usage, &values, false);
            if !kwargs {
                args.reject_kwargs()?;
            }
            call(&args)
        });
        if entry.filter {
            env.add_filter(
                entry.name(),
                move |piped: Value, args: Rest<ValueOrKwargs>| {
                    let mut values = args.into_values();
                    values.push(piped);
                    let args = Args::new(usage, &values, true);
                    args.reject_kwargs()?;
                    call(&args)
                },
            );
        }
    }
    env.add_test("empty", |value: &Value| is_empty(value));
    offline::register(env);
}

/// Names of the library's functions (`include` and `tpl` are the engine's), for docs and tests.
pub fn function_names() -> Vec<&'static str> {
    LIBRARY.iter().map(Entry::name).collect()
}

/// Names registered only to fail with the reason they cannot work offline (`lookup`, `now`, ...).
pub fn offline_names() -> Vec<&'static str> {
    offline::NAMES.to_vec()
}

/// `meshchart functions`: every function templates can call, with its arguments in Sprig's
/// order and whether it can be piped; then Helm's functions refused on purpose or not supported
/// yet, each with why; then Go's builtins that are Jinja syntax here.
pub fn listing() -> String {
    use std::fmt::Write as _;
    let mut rows: Vec<(&str, &str, &str)> = LIBRARY
        .iter()
        .map(|e| {
            let form = if e.filter {
                "function, filter"
            } else {
                "function"
            };
            (e.name(), e.usage, form)
        })
        .collect();
    rows.extend([
        ("include", "include(name, ctx)", "function"),
        ("tpl", "tpl(text, ctx)", "function, filter"),
    ]);
    rows.sort_by_key(|(name, _, _)| name.to_ascii_lowercase());
    let width = rows
        .iter()
        .map(|(_, usage, _)| usage.len())
        .max()
        .unwrap_or(0);
    let mut out = format!(
        "Functions ({}): called as in Helm, NAME(ARGS) in Sprig's argument order; a filter takes \
         the piped value as its last argument (v | trimPrefix(\"x\") is trimPrefix(\"x\", v)).\n",
        rows.len()
    );
    for (_, usage, form) in &rows {
        let _ = writeln!(out, "  {usage:<width$}  {form}");
    }
    let refused = offline::refused();
    let _ = writeln!(
        out,
        "\nRefused on purpose ({}): a render depends on the chart and its values only.",
        refused.len()
    );
    let name_width = refused
        .iter()
        .chain(offline::NOT_SUPPORTED)
        .map(|(name, _)| name.len())
        .max()
        .unwrap_or(0);
    for (name, reason) in refused {
        let _ = writeln!(out, "  {name:<name_width$}  {reason}");
    }
    let _ = writeln!(
        out,
        "\nNot supported ({}): Helm has them, meshchart does not yet.",
        offline::NOT_SUPPORTED.len()
    );
    for (name, reason) in offline::NOT_SUPPORTED {
        let _ = writeln!(out, "  {name:<name_width$}  {reason}");
    }
    let _ = writeln!(out, "\nGo template builtins that are Jinja syntax here:");
    for (name, jinja) in offline::GO_BUILTINS {
        let _ = writeln!(out, "  {name:<name_width$}  {jinja}");
    }
    out.push_str(
        "\nObjects: Values, Release, Chart, Capabilities, Template, Files (Get, GetBytes, Glob, \
         Lines, AsConfig, AsSecrets).\n",
    );
    out
}

/// Names of the filters the library registers.
pub fn filter_names() -> Vec<&'static str> {
    LIBRARY
        .iter()
        .filter(|e| e.filter)
        .map(Entry::name)
        .collect()
}

/// The library function `name` as a plain call on its arguments in Sprig's order: how the Go
/// template front end reaches the functions it does not write itself (see `gotpl::sprig`).
pub(crate) fn library_function(
    name: &str,
) -> Option<impl Fn(&[Value]) -> Result<Value, Error> + 'static> {
    let entry = LIBRARY.iter().find(|e| e.name() == name)?;
    let (usage, call) = (entry.usage, entry.call);
    Some(move |values: &[Value]| call(&Args::new(usage, values, false)))
}
