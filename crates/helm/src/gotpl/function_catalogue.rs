//! Every function a Go chart can call under Helm 3.17.1 is defined here, and none of them is
//! a refusal standing in for a function not written: Sprig v3.3.0's function map (the version
//! Helm 3.17.1's go.mod names; the names as `functions.go` at tag v3.3.0 of
//! github.com/Masterminds/sprig lists them) less `env` and `expandenv`, which Helm deletes, and
//! Helm's own (`pkg/engine/funcs.go` at v3.17.1).

use meshchart_gotemplate::{MissingKey, Templates, Value};

/// Sprig v3.3.0's `genericMap`, in its sorted order.
const SPRIG_V3_3_0: &[&str] = &[
    "abbrev",
    "abbrevboth",
    "add",
    "add1",
    "add1f",
    "addf",
    "adler32sum",
    "ago",
    "all",
    "any",
    "append",
    "atoi",
    "b32dec",
    "b32enc",
    "b64dec",
    "b64enc",
    "base",
    "bcrypt",
    "biggest",
    "buildCustomCert",
    "camelcase",
    "cat",
    "ceil",
    "chunk",
    "clean",
    "coalesce",
    "compact",
    "concat",
    "contains",
    "date",
    "dateInZone",
    "dateModify",
    "date_in_zone",
    "date_modify",
    "decryptAES",
    "deepCopy",
    "deepEqual",
    "default",
    "derivePassword",
    "dict",
    "dig",
    "dir",
    "div",
    "divf",
    "duration",
    "durationRound",
    "empty",
    "encryptAES",
    "env",
    "expandenv",
    "ext",
    "fail",
    "first",
    "float64",
    "floor",
    "fromJson",
    "genCA",
    "genCAWithKey",
    "genPrivateKey",
    "genSelfSignedCert",
    "genSelfSignedCertWithKey",
    "genSignedCert",
    "genSignedCertWithKey",
    "get",
    "getHostByName",
    "has",
    "hasKey",
    "hasPrefix",
    "hasSuffix",
    "hello",
    "htmlDate",
    "htmlDateInZone",
    "htpasswd",
    "indent",
    "initial",
    "initials",
    "int",
    "int64",
    "isAbs",
    "join",
    "kebabcase",
    "keys",
    "kindIs",
    "kindOf",
    "last",
    "list",
    "lower",
    "max",
    "maxf",
    "merge",
    "mergeOverwrite",
    "min",
    "minf",
    "mod",
    "mul",
    "mulf",
    "mustAppend",
    "mustChunk",
    "mustCompact",
    "mustDateModify",
    "mustDeepCopy",
    "mustFirst",
    "mustFromJson",
    "mustHas",
    "mustInitial",
    "mustLast",
    "mustMerge",
    "mustMergeOverwrite",
    "mustPrepend",
    "mustRegexFind",
    "mustRegexFindAll",
    "mustRegexMatch",
    "mustRegexReplaceAll",
    "mustRegexReplaceAllLiteral",
    "mustRegexSplit",
    "mustRest",
    "mustReverse",
    "mustSlice",
    "mustToDate",
    "mustToJson",
    "mustToPrettyJson",
    "mustToRawJson",
    "mustUniq",
    "mustWithout",
    "must_date_modify",
    "nindent",
    "nospace",
    "now",
    "omit",
    "osBase",
    "osClean",
    "osDir",
    "osExt",
    "osIsAbs",
    "pick",
    "pluck",
    "plural",
    "prepend",
    "quote",
    "randAlpha",
    "randAlphaNum",
    "randAscii",
    "randBytes",
    "randInt",
    "randNumeric",
    "regexFind",
    "regexFindAll",
    "regexMatch",
    "regexQuoteMeta",
    "regexReplaceAll",
    "regexReplaceAllLiteral",
    "regexSplit",
    "repeat",
    "replace",
    "rest",
    "reverse",
    "round",
    "semver",
    "semverCompare",
    "seq",
    "set",
    "sha1sum",
    "sha256sum",
    "sha512sum",
    "shuffle",
    "slice",
    "snakecase",
    "sortAlpha",
    "split",
    "splitList",
    "splitn",
    "squote",
    "sub",
    "subf",
    "substr",
    "swapcase",
    "ternary",
    "title",
    "toDate",
    "toDecimal",
    "toJson",
    "toPrettyJson",
    "toRawJson",
    "toString",
    "toStrings",
    "trim",
    "trimAll",
    "trimPrefix",
    "trimSuffix",
    "trimall",
    "trunc",
    "tuple",
    "typeIs",
    "typeIsLike",
    "typeOf",
    "uniq",
    "unixEpoch",
    "unset",
    "until",
    "untilStep",
    "untitle",
    "upper",
    "urlJoin",
    "urlParse",
    "uuidv4",
    "values",
    "without",
    "wrap",
    "wrapWith",
];

/// The names Helm 3.17.1 deletes from Sprig's map.
const DELETED_BY_HELM: &[&str] = &["env", "expandenv"];

/// The functions Helm 3.17.1 adds (or replaces) in its `funcMap` and at render time.
const HELM_3_17_1: &[&str] = &[
    "toToml",
    "fromToml",
    "toYaml",
    "toYamlPretty",
    "fromYaml",
    "fromYamlArray",
    "toJson",
    "fromJson",
    "fromJsonArray",
    "include",
    "tpl",
    "required",
    "lookup",
    "fail",
];

/// Functions meshchart refuses in Go charts on purpose, each a row of DEVIATIONS.md.
const REFUSED: &[&str] = &["getHostByName"];

fn function_set() -> Templates {
    let mut set = Templates::new("gotpl");
    set.set_missing_key(MissingKey::Zero);
    super::register_functions(&mut set, b"seed".to_vec(), 0);
    set
}

#[test]
fn every_function_helm_offers_a_go_chart_is_defined() {
    let set = function_set();
    let missing: Vec<&str> = SPRIG_V3_3_0
        .iter()
        .chain(HELM_3_17_1)
        .filter(|name| !DELETED_BY_HELM.contains(name))
        .filter(|name| !set.has_function(name))
        .copied()
        .collect();
    assert!(missing.is_empty(), "not defined: {missing:?}");
}

#[test]
fn no_function_helm_offers_is_a_stand_in_for_one_not_written() {
    let mut set = function_set();
    let mut stand_ins = Vec::new();
    for name in SPRIG_V3_3_0.iter().chain(HELM_3_17_1) {
        if DELETED_BY_HELM.contains(name) || REFUSED.contains(name) {
            continue;
        }
        let template = format!("t-{name}");
        // Called without arguments: a function that is written fails on its arguments, if
        // at all, not with a refusal.
        if set.parse(&template, &format!("{{{{ {name} }}}}")).is_err() {
            continue;
        }
        if let Err(e) = set.execute(&template, &Value::Null) {
            if e.to_string().contains("not supported") || e.to_string().contains("not available") {
                stand_ins.push(*name);
            }
        }
    }
    assert!(
        stand_ins.is_empty(),
        "refused as not written: {stand_ins:?}"
    );
}
