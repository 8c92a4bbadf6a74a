//! Slash-separated paths (`base`, `dir`, `clean`, `ext`, `isAbs` and their `os` forms, which
//! are the same on Linux, where Helm runs charts) and URLs (`urlParse`, `urlJoin`), with Go's
//! `path` and `net/url` rules.

use super::args::{describe, Args};
use minijinja::value::{Value, ValueKind};
use minijinja::Error;

/// Go's `path.Clean`: the shortest equivalent path (`a//b/../c/.` is `a/c`, `""` is `.`).
pub(crate) fn clean_path(path: &str) -> String {
    if path.is_empty() {
        return ".".to_owned();
    }
    let rooted = path.starts_with('/');
    let mut parts: Vec<&str> = Vec::new();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                if parts.last().is_some_and(|p| *p != "..") {
                    parts.pop();
                } else if !rooted {
                    parts.push("..");
                }
            }
            part => parts.push(part),
        }
    }
    let joined = parts.join("/");
    match (rooted, joined.is_empty()) {
        (true, _) => format!("/{joined}"),
        (false, true) => ".".to_owned(),
        (false, false) => joined,
    }
}

/// Go's `path.Base`: the last element (`a/b/` is `b`, `""` is `.`, `/` is `/`).
fn base_of(path: &str) -> String {
    if path.is_empty() {
        return ".".to_owned();
    }
    let trimmed = path.trim_end_matches('/');
    if trimmed.is_empty() {
        return "/".to_owned();
    }
    trimmed.rsplit('/').next().unwrap_or(trimmed).to_owned()
}

/// Go's `path.Dir`: all but the last element, cleaned.
fn dir_of(path: &str) -> String {
    let cut = path.rfind('/').map_or(0, |i| i + 1);
    clean_path(&path[..cut])
}

/// Go's `path.Ext`: from the last dot of the last element, or `""`.
fn ext_of(path: &str) -> &str {
    for (i, b) in path.bytes().enumerate().rev() {
        match b {
            b'/' => return "",
            b'.' => return &path[i..],
            _ => {}
        }
    }
    ""
}

/// `base(path)`: the last element: `base("a/b/c.yaml")` is `c.yaml`.
pub(super) fn base(args: &Args) -> Result<Value, Error> {
    args.exactly(1)?;
    Ok(Value::from(base_of(&args.string(0, "path")?)))
}

/// `dir(path)`: all but the last element: `dir("a/b/c.yaml")` is `a/b`.
pub(super) fn dir(args: &Args) -> Result<Value, Error> {
    args.exactly(1)?;
    Ok(Value::from(dir_of(&args.string(0, "path")?)))
}

/// `clean(path)`: the shortest equivalent path.
pub(super) fn clean(args: &Args) -> Result<Value, Error> {
    args.exactly(1)?;
    Ok(Value::from(clean_path(&args.string(0, "path")?)))
}

/// `ext(path)`: the extension with its dot: `ext("a.tar.gz")` is `.gz`.
pub(super) fn ext(args: &Args) -> Result<Value, Error> {
    args.exactly(1)?;
    Ok(Value::from(ext_of(&args.string(0, "path")?)))
}

/// `isAbs(path)`: whether the path starts with `/`.
pub(super) fn is_abs(args: &Args) -> Result<Value, Error> {
    args.exactly(1)?;
    Ok(Value::from(args.string(0, "path")?.starts_with('/')))
}

/// Go's `url.PathUnescape`-style decoding of `%XX`; `None` on a bad escape.
fn unescape(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = text.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

#[derive(Clone, Copy, PartialEq)]
enum Part {
    Path,
    Host,
    Fragment,
    UserPassword,
}

/// Go's `shouldEscape` for the parts `urlJoin` writes.
fn should_escape(c: u8, part: Part) -> bool {
    if c.is_ascii_alphanumeric() || matches!(c, b'-' | b'_' | b'.' | b'~') {
        return false;
    }
    if part == Part::Host {
        return !matches!(
            c,
            b'!' | b'$'
                | b'&'
                | b'\''
                | b'('
                | b')'
                | b'*'
                | b'+'
                | b','
                | b';'
                | b'='
                | b':'
                | b'['
                | b']'
                | b'<'
                | b'>'
                | b'"'
        );
    }
    match c {
        b'$' | b'&' | b'+' | b',' | b'/' | b':' | b';' | b'=' | b'?' | b'@' => match part {
            Part::Path => c == b'?',
            Part::UserPassword => matches!(c, b'@' | b'/' | b'?' | b':'),
            Part::Fragment => false,
            Part::Host => false,
        },
        b'!' | b'(' | b')' | b'*' if part == Part::Fragment => false,
        _ => true,
    }
}

fn escape(text: &str, part: Part) -> String {
    let mut out = String::with_capacity(text.len());
    for &b in text.as_bytes() {
        if should_escape(b, part) {
            out.push_str(&format!("%{b:02X}"));
        } else {
            out.push(b as char);
        }
    }
    out
}

/// A URL as Go's `url.Parse` splits it.
#[derive(Default)]
struct Url {
    scheme: String,
    opaque: String,
    userinfo: Option<String>,
    host: String,
    path: String,
    query: String,
    fragment: String,
}

fn parse_url(raw: &str) -> Result<Url, String> {
    let mut url = Url::default();
    let (rest, fragment) = match raw.split_once('#') {
        Some((rest, fragment)) => (rest, Some(fragment)),
        None => (raw, None),
    };
    if let Some(fragment) = fragment {
        url.fragment =
            unescape(fragment).ok_or_else(|| format!("parse {raw:?}: invalid URL escape"))?;
    }
    let mut rest = rest;
    // The scheme: a letter, then letters, digits, `+`, `-`, `.`, up to a colon.
    for (i, b) in rest.bytes().enumerate() {
        match b {
            b'a'..=b'z' | b'A'..=b'Z' => {}
            b'0'..=b'9' | b'+' | b'-' | b'.' if i > 0 => {}
            b':' if i == 0 => return Err(format!("parse {raw:?}: missing protocol scheme")),
            b':' => {
                url.scheme = rest[..i].to_ascii_lowercase();
                rest = &rest[i + 1..];
                break;
            }
            _ => break,
        }
    }
    if let Some((before, query)) = rest.split_once('?') {
        url.query = query.to_owned();
        rest = before;
    }
    if !rest.starts_with('/') && !url.scheme.is_empty() {
        url.opaque = rest.to_owned();
        return Ok(url);
    }
    if rest.starts_with("//") && (!url.scheme.is_empty() || !rest.starts_with("///")) {
        let authority_end = rest[2..].find('/').map_or(rest.len(), |i| i + 2);
        let authority = &rest[2..authority_end];
        rest = &rest[authority_end..];
        let host = match authority.rfind('@') {
            Some(at) => {
                url.userinfo = Some(authority[..at].to_owned());
                &authority[at + 1..]
            }
            None => authority,
        };
        url.host = unescape(host).ok_or_else(|| format!("parse {raw:?}: invalid URL escape"))?;
    }
    url.path = unescape(rest).ok_or_else(|| format!("parse {raw:?}: invalid URL escape"))?;
    Ok(url)
}

/// Go's `URL.Hostname`: the host without its port or IPv6 brackets.
fn hostname(host: &str) -> &str {
    if let Some(inner) = host.strip_prefix('[') {
        return inner.split(']').next().unwrap_or(inner);
    }
    match host.rfind(':') {
        Some(i) => &host[..i],
        None => host,
    }
}

/// `urlParse(url)`: a map of the URL's parts: `scheme`, `host`, `hostname`, `path`, `query`,
/// `opaque`, `fragment`, `userinfo`.
///
/// ```jinja
/// host: {{ urlParse(Values.endpoint).hostname }}
/// ```
pub(super) fn url_parse(args: &Args) -> Result<Value, Error> {
    args.exactly(1)?;
    let raw = args.string(0, "url")?;
    let url = parse_url(&raw).map_err(|e| args.error(format!("unable to parse url: {e}")))?;
    let userinfo = url
        .userinfo
        .as_deref()
        .map(|u| match u.split_once(':') {
            Some((user, password)) => format!(
                "{}:{}",
                escape(&unescape(user).unwrap_or_default(), Part::UserPassword),
                escape(&unescape(password).unwrap_or_default(), Part::UserPassword)
            ),
            None => escape(&unescape(u).unwrap_or_default(), Part::UserPassword),
        })
        .unwrap_or_default();
    Ok(Value::from_pairs([
        ("fragment", Value::from(url.fragment.as_str())),
        ("host", Value::from(url.host.as_str())),
        ("hostname", Value::from(hostname(&url.host))),
        ("opaque", Value::from(url.opaque.as_str())),
        ("path", Value::from(url.path.as_str())),
        ("query", Value::from(url.query.as_str())),
        ("scheme", Value::from(url.scheme.as_str())),
        ("userinfo", Value::from(userinfo)),
    ]))
}

/// `urlJoin(parts)`: the URL a map of parts (as `urlParse` gives) spells.
pub(super) fn url_join(args: &Args) -> Result<Value, Error> {
    args.exactly(1)?;
    let parts = args.get(0);
    if parts.kind() != ValueKind::Map {
        return Err(args.error(format!("parts must be a map, found {}", describe(&parts))));
    }
    let field = |key: &str| -> Result<String, Error> {
        let value = parts.get_item(&Value::from(key))?;
        match value.kind() {
            ValueKind::Undefined => Ok(String::new()),
            ValueKind::String => Ok(value.as_str().unwrap_or_default().to_owned()),
            _ => Err(args.error(format!(
                "unable to parse {key} key, must be of type string, but {} found",
                describe(&value)
            ))),
        }
    };
    let (scheme, host, path) = (field("scheme")?, field("host")?, field("path")?);
    let (query, opaque, fragment) = (field("query")?, field("opaque")?, field("fragment")?);
    let userinfo = field("userinfo")?;
    let mut out = String::new();
    if !scheme.is_empty() {
        out.push_str(&scheme);
        out.push(':');
    }
    if !opaque.is_empty() {
        out.push_str(&opaque);
    } else {
        if !scheme.is_empty() || !host.is_empty() || !userinfo.is_empty() {
            if !host.is_empty() || !path.is_empty() || !userinfo.is_empty() {
                out.push_str("//");
            }
            if !userinfo.is_empty() {
                out.push_str(&userinfo);
                out.push('@');
            }
            out.push_str(&escape(&host, Part::Host));
        }
        let escaped = escape(&path, Part::Path);
        if !escaped.is_empty() && !escaped.starts_with('/') && !host.is_empty() {
            out.push('/');
        }
        if out.is_empty() && escaped.split('/').next().is_some_and(|s| s.contains(':')) {
            out.push_str("./");
        }
        out.push_str(&escaped);
    }
    if !query.is_empty() {
        out.push('?');
        out.push_str(&query);
    }
    if !fragment.is_empty() {
        out.push('#');
        out.push_str(&escape(&fragment, Part::Fragment));
    }
    Ok(Value::from(out))
}
