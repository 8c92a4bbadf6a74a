//! `Chart.yaml`: the fields we require, validated with messages that name the field.

use super::ChartError;
use crate::values::{Map, Value};
use crate::yaml;

/// The validated fields of `Chart.yaml`, plus every field as written for `.Chart` in templates.
#[derive(Clone, Debug)]
pub struct ChartMetadata {
    /// `apiVersion` (v2; v1 is read too).
    pub api_version: String,
    /// `name`.
    pub name: String,
    /// `version`, a SemVer 2 version.
    pub version: semver::Version,
    /// `appVersion`, if any.
    pub app_version: Option<String>,
    /// `description`, if any.
    pub description: Option<String>,
    /// `kubeVersion` constraint, if any.
    pub kube_version: Option<String>,
    /// `type` (`application` or `library`), if given.
    pub chart_type: Option<String>,
    /// All fields, as parsed, for `.Chart` in templates.
    pub fields: Map,
}

impl ChartMetadata {
    /// Parses and validates Chart.yaml text.
    pub fn parse(origin: &str, text: &str) -> Result<Self, ChartError> {
        let value = yaml::parse_document(text).map_err(|source| ChartError::Yaml {
            origin: origin.to_owned(),
            file: "Chart.yaml".to_owned(),
            source,
        })?;
        let invalid = |field: &'static str, message: String| ChartError::InvalidMetadata {
            origin: origin.to_owned(),
            field,
            message,
        };
        let fields = match value {
            Value::Map(m) => m,
            Value::Null => Map::new(),
            other => {
                return Err(invalid(
                    "(top level)",
                    format!("must be a map, found a {}", other.type_name()),
                ))
            }
        };
        let string_field = |field: &'static str,
                            required: bool|
         -> Result<Option<String>, ChartError> {
            match fields.get(field) {
                None | Some(Value::Null) if required => Err(invalid(field, "is required".into())),
                None | Some(Value::Null) => Ok(None),
                Some(Value::String(s)) => Ok(Some(s.clone())),
                Some(other) => Err(invalid(
                    field,
                    format!("must be a string, found a {} (quote it)", other.type_name()),
                )),
            }
        };
        let api_version = string_field("apiVersion", true)?.unwrap_or_default();
        if api_version != "v2" && api_version != "v1" {
            return Err(invalid(
                "apiVersion",
                format!("{api_version:?} is not valid; use \"v2\""),
            ));
        }
        let name = string_field("name", true)?.unwrap_or_default();
        if name.is_empty()
            || name.contains('/')
            || name.contains('\\')
            || name == "."
            || name == ".."
        {
            return Err(invalid(
                "name",
                format!("{name:?} is not a valid chart name"),
            ));
        }
        let version_text = string_field("version", true)?.unwrap_or_default();
        // Helm reads versions with Masterminds' semver, which takes a leading `v` (cert-manager
        // writes `v1.21.1`); the text as written stays in `fields`.
        let bare = version_text.strip_prefix('v').unwrap_or(&version_text);
        let version = semver::Version::parse(bare).map_err(|e| {
            invalid(
                "version",
                format!("{version_text:?} is not a SemVer 2 version ({e})"),
            )
        })?;
        let chart_type = string_field("type", false)?;
        if let Some(t) = &chart_type {
            if t != "application" && t != "library" {
                return Err(invalid(
                    "type",
                    format!("{t:?} must be \"application\" or \"library\""),
                ));
            }
        }
        Ok(ChartMetadata {
            api_version,
            name,
            version,
            app_version: string_field("appVersion", false)?,
            description: string_field("description", false)?,
            kube_version: string_field("kubeVersion", false)?,
            chart_type,
            fields,
        })
    }

    /// `.Chart` as templates see it: Helm's capitalised names (`Name`, `Version`, `AppVersion`...).
    pub fn template_object(&self) -> Map {
        let mut map = Map::new();
        for (key, value) in &self.fields {
            let name = match key.as_str() {
                "apiVersion" => "APIVersion".to_owned(),
                other => {
                    let mut chars = other.chars();
                    match chars.next() {
                        Some(first) => first.to_uppercase().chain(chars).collect(),
                        None => continue,
                    }
                }
            };
            map.insert(name, value.clone());
        }
        map.insert("Version".into(), Value::String(self.version.to_string()));
        map
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<ChartMetadata, ChartError> {
        ChartMetadata::parse("test", text)
    }

    #[test]
    fn a_complete_chart_yaml_is_accepted() {
        let m = parse("apiVersion: v2\nname: demo\nversion: 1.2.3\nappVersion: \"2.0\"\n").unwrap();
        assert_eq!(m.name, "demo");
        assert_eq!(m.version.to_string(), "1.2.3");
        assert_eq!(
            m.template_object().get("AppVersion"),
            Some(&Value::String("2.0".into()))
        );
    }

    #[test]
    fn a_missing_name_is_named_in_the_error() {
        let e = parse("apiVersion: v2\nversion: 1.0.0\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("name: is required"), "{e}");
    }

    #[test]
    fn a_version_that_is_not_semver_2_is_rejected() {
        let e = parse("apiVersion: v2\nname: x\nversion: banana\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("version") && e.contains("SemVer"), "{e}");
        let e = parse("apiVersion: v2\nname: x\nversion: 1.0\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("must be a string"), "{e}");
    }

    #[test]
    fn a_name_with_a_path_is_rejected() {
        let e = parse("apiVersion: v2\nname: a/b\nversion: 1.0.0\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("not a valid chart name"), "{e}");
    }
}
