//! The objects a Go template sees, shaped as Helm 3.17.1 hands them to `text/template`: the
//! top-level `chartutil.Values` map, `.Chart` (`*chart.Metadata`), `.Capabilities`, `.Files`,
//! and the conversions between meshchart's value tree and Go's.

use crate::chart::ChartMetadata;
use crate::engine::files::{FileParts, Files};
use crate::engine::KubeVersion;
use crate::values::Value as Tree;
use meshchart_gotemplate::{Arity, Map, Object, Value};
use std::cell::RefCell;
use std::rc::Rc;

/// Helm's version string and build facts, as `helm version` of 3.17.1 prints them and
/// `.Capabilities.HelmVersion` shows them.
const HELM_VERSION: (&str, &str, &str, &str) = (
    "v3.17.1",
    "980d8ac1939e39138101364400756af2bdee1da5",
    "clean",
    "go1.23.5",
);

/// Helm 3.17.1's `.Capabilities.APIVersions` for `helm template` (no cluster), in its order:
/// the group/versions its Kubernetes client library registers (printed by the real helm).
pub(super) const HELM_API_VERSIONS: &[&str] = &[
    "v1",
    "admissionregistration.k8s.io/v1",
    "admissionregistration.k8s.io/v1alpha1",
    "admissionregistration.k8s.io/v1beta1",
    "internal.apiserver.k8s.io/v1alpha1",
    "apps/v1",
    "apps/v1beta1",
    "apps/v1beta2",
    "authentication.k8s.io/v1",
    "authentication.k8s.io/v1alpha1",
    "authentication.k8s.io/v1beta1",
    "authorization.k8s.io/v1",
    "authorization.k8s.io/v1beta1",
    "autoscaling/v1",
    "autoscaling/v2",
    "autoscaling/v2beta1",
    "autoscaling/v2beta2",
    "batch/v1",
    "batch/v1beta1",
    "certificates.k8s.io/v1",
    "certificates.k8s.io/v1beta1",
    "certificates.k8s.io/v1alpha1",
    "coordination.k8s.io/v1alpha2",
    "coordination.k8s.io/v1beta1",
    "coordination.k8s.io/v1",
    "discovery.k8s.io/v1",
    "discovery.k8s.io/v1beta1",
    "events.k8s.io/v1",
    "events.k8s.io/v1beta1",
    "extensions/v1beta1",
    "flowcontrol.apiserver.k8s.io/v1",
    "flowcontrol.apiserver.k8s.io/v1beta1",
    "flowcontrol.apiserver.k8s.io/v1beta2",
    "flowcontrol.apiserver.k8s.io/v1beta3",
    "networking.k8s.io/v1",
    "networking.k8s.io/v1alpha1",
    "networking.k8s.io/v1beta1",
    "node.k8s.io/v1",
    "node.k8s.io/v1alpha1",
    "node.k8s.io/v1beta1",
    "policy/v1",
    "policy/v1beta1",
    "rbac.authorization.k8s.io/v1",
    "rbac.authorization.k8s.io/v1beta1",
    "rbac.authorization.k8s.io/v1alpha1",
    "resource.k8s.io/v1beta1",
    "resource.k8s.io/v1alpha3",
    "scheduling.k8s.io/v1alpha1",
    "scheduling.k8s.io/v1beta1",
    "scheduling.k8s.io/v1",
    "storage.k8s.io/v1beta1",
    "storage.k8s.io/v1",
    "storage.k8s.io/v1alpha1",
    "storagemigration.k8s.io/v1alpha1",
    "apiextensions.k8s.io/v1beta1",
    "apiextensions.k8s.io/v1",
];

/// A values tree as Helm's templates see it: every number is a `float64`, as Helm decodes
/// values files through JSON.
pub fn values_to_go(tree: &Tree) -> Value {
    tree_to_go(tree, true)
}

/// A tree a function made (`fromYaml`, the library's results): integers stay integers
/// (`int64`), as Sprig's arithmetic returns them.
pub(super) fn result_to_go(tree: &Tree) -> Value {
    tree_to_go(tree, false)
}

fn tree_to_go(tree: &Tree, numbers_are_floats: bool) -> Value {
    match tree {
        Tree::Null => Value::Null,
        Tree::Bool(b) => Value::Bool(*b),
        Tree::Int(i) if numbers_are_floats => Value::Float(*i as f64),
        Tree::Int(i) => Value::Int64(*i),
        Tree::Float(f) => Value::Float(*f),
        Tree::Number(n) => Value::from(n.as_str()),
        Tree::String(s) => Value::from(s.as_str()),
        Tree::Seq(items) => Value::seq(
            items
                .iter()
                .map(|v| tree_to_go(v, numbers_are_floats))
                .collect(),
        ),
        Tree::Map(map) => Value::map(
            map.iter()
                .map(|(k, v)| (k.clone(), tree_to_go(v, numbers_are_floats)))
                .collect(),
        ),
    }
}

/// A Go value as meshchart's tree, the way Helm's `toYaml` and `toJson` see it through
/// `encoding/json`: a float with an integral value up to 1e21 is an integer (JSON writes it
/// without a point, and YAML reads it back as one); objects are written as their maps, or
/// as what Go prints for them.
pub fn go_to_tree(value: &Value) -> Tree {
    match value {
        Value::Null => Tree::Null,
        Value::Bool(b) => Tree::Bool(*b),
        Value::Int(i) | Value::Int64(i) => Tree::Int(*i),
        Value::Float(f) if f.fract() == 0.0 && f.abs() < 1e21 => Tree::Int(*f as i64),
        Value::Float(f) => Tree::Float(*f),
        Value::String(s) => Tree::String(s.to_string()),
        Value::Seq(items) => Tree::Seq(items.iter().map(go_to_tree).collect()),
        Value::Map(map) => Tree::Map(
            map.borrow()
                .iter()
                .map(|(k, v)| (k.clone(), go_to_tree(v)))
                .collect(),
        ),
        Value::Object(object) => match object.as_map() {
            Some(map) => go_to_tree(&Value::Map(map.clone())),
            None => match object.get(MARSHAL_JSON, &[]) {
                // A type with its own JSON form (Go's `time.Time`: RFC 3339).
                Some(Ok(Value::String(json))) => Tree::String(json.to_string()),
                _ => {
                    let mut text = String::new();
                    object.format(&mut text);
                    Tree::String(text)
                }
            },
        },
    }
}

/// The hidden method (no template can spell a NUL) of an object whose JSON (and so YAML)
/// form is a string other than what `%v` prints, as Go's `MarshalJSON` gives it.
pub(super) const MARSHAL_JSON: &str = "\0MarshalJSON";

/// Helm's `chartutil.Values`: the type of `.` and `.Values`, a map with methods.
pub(super) struct ChartutilValues(pub Rc<RefCell<Map>>);

impl Object for ChartutilValues {
    fn type_name(&self) -> &str {
        "chartutil.Values"
    }

    fn get(&self, name: &str, _: &[Value]) -> Option<Result<Value, String>> {
        match name {
            "AsMap" => Some(Ok(Value::Map(self.0.clone()))),
            _ => None,
        }
    }

    fn method_arity(&self, name: &str) -> Option<Arity> {
        (name == "AsMap").then_some(Arity::Exact(0))
    }

    fn format(&self, _: &mut String) {}

    fn as_map(&self) -> Option<&Rc<RefCell<Map>>> {
        Some(&self.0)
    }
}

/// A map as a `chartutil.Values`.
pub(super) fn chartutil_values(map: Map) -> Value {
    Value::Object(Rc::new(ChartutilValues(Rc::new(RefCell::new(map)))))
}

/// `.Chart`: Helm's `*chart.Metadata`, every field present (zero when Chart.yaml lacks it).
pub(super) struct ChartObject {
    fields: Map,
}

/// The fields of Helm's `chart.Metadata`, by Go name and Chart.yaml key, with whether the Go
/// field is a string (zero `""`) or something else (zero nil, or `false`).
const METADATA_FIELDS: &[(&str, &str, FieldKind)] = &[
    ("Name", "name", FieldKind::String),
    ("Home", "home", FieldKind::String),
    ("Sources", "sources", FieldKind::Nil),
    ("Version", "version", FieldKind::String),
    ("Description", "description", FieldKind::String),
    ("Keywords", "keywords", FieldKind::Nil),
    ("Maintainers", "maintainers", FieldKind::Nil),
    ("Icon", "icon", FieldKind::String),
    ("APIVersion", "apiVersion", FieldKind::String),
    ("Condition", "condition", FieldKind::String),
    ("Tags", "tags", FieldKind::String),
    ("AppVersion", "appVersion", FieldKind::String),
    ("Deprecated", "deprecated", FieldKind::Bool),
    ("Annotations", "annotations", FieldKind::Nil),
    ("KubeVersion", "kubeVersion", FieldKind::String),
    ("Dependencies", "dependencies", FieldKind::Nil),
    ("Type", "type", FieldKind::String),
];

#[derive(Clone, Copy)]
enum FieldKind {
    String,
    Bool,
    Nil,
}

impl ChartObject {
    /// `.Chart` of a chart with this metadata.
    pub(super) fn new(metadata: &ChartMetadata) -> ChartObject {
        let mut fields = Map::new();
        for (go_name, key, kind) in METADATA_FIELDS {
            let value = match (metadata.fields.get(*key), kind) {
                (Some(Tree::Null) | None, FieldKind::String) => Value::from(""),
                (Some(Tree::Null) | None, FieldKind::Bool) => Value::Bool(false),
                (Some(Tree::Null) | None, FieldKind::Nil) => Value::Null,
                // Helm reads Chart.yaml into Go strings: a number written there is its text.
                (Some(Tree::Int(i)), FieldKind::String) => Value::from(i.to_string()),
                (Some(Tree::Float(f)), FieldKind::String) => {
                    Value::from(meshchart_gotemplate::format_float_v(*f))
                }
                (Some(v), _) => result_to_go(v),
            };
            fields.insert((*go_name).to_owned(), value);
        }
        if !matches!(metadata.fields.get("version"), Some(Tree::String(_))) {
            fields.insert("Version".into(), Value::from(metadata.version.to_string()));
        }
        ChartObject { fields }
    }
}

impl Object for ChartObject {
    fn type_name(&self) -> &str {
        "*chart.Metadata"
    }

    fn get(&self, name: &str, _: &[Value]) -> Option<Result<Value, String>> {
        self.fields.get(name).cloned().map(Ok)
    }

    fn format(&self, out: &mut String) {
        out.push_str("&{");
        let mut first = true;
        for (go_name, _, _) in METADATA_FIELDS {
            if !first {
                out.push(' ');
            }
            first = false;
            if let Some(v) = self.fields.get(*go_name) {
                out.push_str(&meshchart_gotemplate::sprint(std::slice::from_ref(v)));
            }
        }
        out.push('}');
    }
}

/// `.Capabilities.KubeVersion`: prints as its version.
struct KubeVersionObject(KubeVersion);

impl Object for KubeVersionObject {
    fn type_name(&self) -> &str {
        "*chartutil.KubeVersion"
    }

    fn get(&self, name: &str, _: &[Value]) -> Option<Result<Value, String>> {
        match name {
            "Version" | "GitVersion" | "String" => Some(Ok(Value::from(self.0.version()))),
            "Major" => Some(Ok(Value::from(self.0.major.to_string()))),
            "Minor" => Some(Ok(Value::from(self.0.minor.to_string()))),
            _ => None,
        }
    }

    fn method_arity(&self, name: &str) -> Option<Arity> {
        (name == "String").then_some(Arity::Exact(0))
    }

    fn format(&self, out: &mut String) {
        out.push_str(&self.0.version());
    }
}

/// `.Capabilities.APIVersions`: a list of group/versions with Helm's `Has`.
struct ApiVersionsObject(Vec<String>);

impl Object for ApiVersionsObject {
    fn type_name(&self) -> &str {
        "chartutil.VersionSet"
    }

    fn get(&self, name: &str, args: &[Value]) -> Option<Result<Value, String>> {
        match (name, args) {
            ("Has", [version]) => Some(Ok(Value::Bool(
                self.0.iter().any(|v| Some(v.as_str()) == version.as_str()),
            ))),
            ("Has", _) => Some(Err("Has takes one group/version".into())),
            _ => None,
        }
    }

    fn method_arity(&self, name: &str) -> Option<Arity> {
        (name == "Has").then_some(Arity::Exact(1))
    }

    fn format(&self, out: &mut String) {
        out.push('[');
        out.push_str(&self.0.join(" "));
        out.push(']');
    }
}

/// `.Capabilities.HelmVersion`.
struct HelmVersionObject;

impl Object for HelmVersionObject {
    fn type_name(&self) -> &str {
        "version.BuildInfo"
    }

    fn get(&self, name: &str, _: &[Value]) -> Option<Result<Value, String>> {
        let (version, commit, tree_state, go) = HELM_VERSION;
        let text = match name {
            "Version" => version,
            "GitCommit" => commit,
            "GitTreeState" => tree_state,
            "GoVersion" => go,
            _ => return None,
        };
        Some(Ok(Value::from(text)))
    }

    fn format(&self, out: &mut String) {
        let (version, commit, tree_state, go) = HELM_VERSION;
        out.push_str(&format!("{{{version} {commit} {tree_state} {go}}}"));
    }
}

/// `.Capabilities`.
pub(super) struct Capabilities {
    kube_version: Value,
    api_versions: Value,
}

impl Capabilities {
    /// The capabilities of a render for `kube_version` with these API versions.
    pub(super) fn new(kube_version: &KubeVersion, api_versions: Vec<String>) -> Capabilities {
        Capabilities {
            kube_version: Value::Object(Rc::new(KubeVersionObject(kube_version.clone()))),
            api_versions: Value::Object(Rc::new(ApiVersionsObject(api_versions))),
        }
    }
}

impl Object for Capabilities {
    fn type_name(&self) -> &str {
        "*chartutil.Capabilities"
    }

    fn get(&self, name: &str, _: &[Value]) -> Option<Result<Value, String>> {
        match name {
            "KubeVersion" => Some(Ok(self.kube_version.clone())),
            "APIVersions" => Some(Ok(self.api_versions.clone())),
            "HelmVersion" => Some(Ok(Value::Object(Rc::new(HelmVersionObject)))),
            _ => None,
        }
    }

    fn format(&self, out: &mut String) {
        out.push('{');
        if let Value::Object(kube) = &self.kube_version {
            let (major, minor) = (kube.get("Major", &[]), kube.get("Minor", &[]));
            if let (Some(Ok(major)), Some(Ok(minor))) = (major, minor) {
                out.push('{');
                kube.format(out);
                out.push_str(&format!(" {major} {minor}}} "));
            }
        }
        out.push_str(&meshchart_gotemplate::sprint(&[
            self.api_versions.clone(),
            Value::from(" "),
        ]));
        HelmVersionObject.format(out);
        out.push('}');
    }
}

/// `.Files`: Helm's `engine.files`, a map of path to bytes with methods (`range` goes over
/// it as a map of path to text, made on first use). The files themselves may be made on
/// first use too ([`FilesObject::lazy`]): most templates never read one.
pub(super) struct FilesObject {
    files: std::cell::OnceCell<Files>,
    parts: RefCell<Option<FileParts>>,
    map: std::cell::OnceCell<Rc<RefCell<Map>>>,
}

impl FilesObject {
    /// `.Files` holding `files`.
    pub(super) fn new(files: Files) -> FilesObject {
        FilesObject {
            files: std::cell::OnceCell::from(files),
            parts: RefCell::new(None),
            map: std::cell::OnceCell::new(),
        }
    }

    /// `.Files` of a chart's files, sorted out when a template first reads them.
    pub(super) fn lazy(parts: FileParts) -> FilesObject {
        FilesObject {
            files: std::cell::OnceCell::new(),
            parts: RefCell::new(Some(parts)),
            map: std::cell::OnceCell::new(),
        }
    }

    fn files(&self) -> &Files {
        self.files
            .get_or_init(|| match self.parts.borrow_mut().take() {
                Some(parts) => Files::from_parts(&parts),
                None => Files::default(),
            })
    }
}

impl Object for FilesObject {
    fn type_name(&self) -> &str {
        "engine.files"
    }

    fn get(&self, name: &str, args: &[Value]) -> Option<Result<Value, String>> {
        let path = || args.first().and_then(Value::as_str).unwrap_or_default();
        Some(Ok(match name {
            "Get" | "GetBytes" => Value::from(self.files().text(path()).into_owned()),
            "Lines" => {
                let text = self.files().text(path());
                if text.is_empty() {
                    Value::seq(Vec::new())
                } else {
                    let text = text.strip_suffix('\n').unwrap_or(&text);
                    Value::seq(text.split('\n').map(Value::from).collect())
                }
            }
            "Glob" => Value::Object(Rc::new(FilesObject::new(self.files().matching(path())))),
            "AsConfig" => Value::from(
                self.files()
                    .as_map(|bytes| String::from_utf8_lossy(bytes).into_owned())
                    .unwrap_or_default(),
            ),
            "AsSecrets" => {
                use base64::Engine as _;
                Value::from(
                    self.files()
                        .as_map(|bytes| base64::engine::general_purpose::STANDARD.encode(bytes))
                        .unwrap_or_default(),
                )
            }
            _ => return None,
        }))
    }

    fn method_arity(&self, name: &str) -> Option<Arity> {
        match name {
            "Get" | "GetBytes" | "Lines" | "Glob" => Some(Arity::Exact(1)),
            "AsConfig" | "AsSecrets" => Some(Arity::Exact(0)),
            _ => None,
        }
    }

    fn as_map(&self) -> Option<&Rc<RefCell<Map>>> {
        Some(self.map.get_or_init(|| {
            let map = self
                .files()
                .0
                .iter()
                .map(|(path, bytes)| {
                    (
                        path.clone(),
                        Value::from(String::from_utf8_lossy(bytes).as_ref()),
                    )
                })
                .collect();
            Rc::new(RefCell::new(map))
        }))
    }

    fn format(&self, out: &mut String) {
        out.push_str("map[");
        let mut first = true;
        for (path, bytes) in &self.files().0 {
            if !first {
                out.push(' ');
            }
            first = false;
            out.push_str(path);
            out.push_str(":[");
            let numbers: Vec<String> = bytes.iter().map(u8::to_string).collect();
            out.push_str(&numbers.join(" "));
            out.push(']');
        }
        out.push(']');
    }
}
