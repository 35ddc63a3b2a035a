//! Where a kind's schema lives: kubeconform's schema locations. A location
//! is a template over six variables (`{{ .ResourceKind }}{{ .KindSuffix }}`,
//! ...), a folder or URL prefix without `.json` at its end (kubeconform's
//! layout of yannh/kubernetes-json-schema is appended to it), or `default`.
//!
//! The same strings work in kubeconform and here, so a team moves its
//! `-schema-location` flags over unchanged.

/// kubeconform's default: the standalone schemas of yannh's fork of
/// kubernetes-json-schema, over HTTPS.
pub const DEFAULT_LOCATION: &str = "https://raw.githubusercontent.com/yannh/kubernetes-json-schema/master/{{ .NormalizedKubernetesVersion }}-standalone{{ .StrictSuffix }}/{{ .ResourceKind }}{{ .KindSuffix }}.json";

/// The layout kubeconform appends to a location that does not end in `json`.
const APPENDED_LAYOUT: &str =
    "/{{ .NormalizedKubernetesVersion }}-standalone{{ .StrictSuffix }}/{{ .ResourceKind }}{{ .KindSuffix }}.json";

const VARIABLES: &[&str] = &[
    "NormalizedKubernetesVersion",
    "StrictSuffix",
    "ResourceKind",
    "ResourceAPIVersion",
    "Group",
    "KindSuffix",
];

/// A schema location, checked when it is given (an unknown variable is an
/// error then, not at the first document).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Location {
    template: String,
}

impl Location {
    /// `default`, a template, or a prefix that gets kubeconform's layout.
    pub fn parse(given: &str) -> Result<Location, String> {
        let given = given.trim();
        if given.is_empty() {
            return Err("a schema location is empty".into());
        }
        let template = if given == "default" {
            DEFAULT_LOCATION.to_string()
        } else if given.ends_with("json") {
            given.to_string()
        } else {
            format!("{}{APPENDED_LAYOUT}", given.trim_end_matches('/'))
        };
        // every variable must be known
        let probe = Kind {
            api_version: "apps/v1",
            kind: "Deployment",
        };
        expand(&template, &probe, "master", true)?;
        Ok(Location { template })
    }

    /// The location of `kind`'s schema.
    pub fn of(&self, kind: &Kind, version: &str, strict: bool) -> String {
        // parse() checked every variable
        expand(&self.template, kind, version, strict).unwrap_or_default()
    }

    /// The folder (or URL prefix) every kind's schema is under for this
    /// version and strictness: the location up to the last `/` before the
    /// first kind-dependent part (`DIR/v1.30.0-local-strict/`).
    pub fn folder(&self, version: &str, strict: bool) -> String {
        const MARK: &str = "\u{1}";
        let probe = Kind {
            api_version: "\u{1}/\u{1}",
            kind: MARK,
        };
        let expanded = self.of(&probe, version, strict);
        let fixed = expanded.split(MARK).next().unwrap_or("");
        fixed.rsplit_once('/').map_or("", |(f, _)| f).to_string() + "/"
    }

    pub fn template(&self) -> &str {
        &self.template
    }

    /// Whether the location is fetched over the network.
    pub fn is_remote(&self) -> bool {
        is_url(&self.template)
    }
}

/// Whether `s` is an `http://` or `https://` URL.
pub fn is_url(s: &str) -> bool {
    let lower = s.get(..8).unwrap_or(s).to_ascii_lowercase();
    lower.starts_with("https://") || lower.starts_with("http://")
}

/// A document's `apiVersion` and `kind`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Kind<'a> {
    pub api_version: &'a str,
    pub kind: &'a str,
}

/// Whether `kind` is of Kubernetes' form (`Deployment`): it becomes part of
/// a file name or URL.
pub fn is_kind(kind: &str) -> bool {
    kind.len() <= 253
        && kind.starts_with(|c: char| c.is_ascii_alphabetic())
        && kind.chars().all(|c| c.is_ascii_alphanumeric())
}

/// Whether `api_version` is of Kubernetes' form (`v1`, `apps/v1`,
/// `networking.k8s.io/v1beta1`).
pub fn is_api_version(api_version: &str) -> bool {
    let (group, version) = match api_version.split_once('/') {
        Some((g, v)) => (Some(g), v),
        None => (None, api_version),
    };
    let label = |s: &str| {
        !s.is_empty()
            && s.len() <= 253
            && s.chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '.' || c == '-')
            && !s.starts_with(['.', '-'])
            && !s.contains("..")
    };
    group.is_none_or(label)
        && !version.is_empty()
        && version.chars().all(|c| c.is_ascii_alphanumeric())
}

/// kubeconform's template variables filled for `kind`: the version gets a
/// `v` unless it is `master`; `apps/v1` gives group `apps`, API version
/// `v1` and kind suffix `-apps-v1`; `v1` gives `-v1` (group `v1`, as
/// kubeconform has it); `networking.k8s.io/v1` gives `-networking-v1`.
fn expand(template: &str, kind: &Kind, version: &str, strict: bool) -> Result<String, String> {
    let version = version.trim_start_matches('v');
    let normalized = if version == "master" {
        "master".to_string()
    } else {
        format!("v{version}")
    };
    let mut parts = kind.api_version.split('/');
    let group = parts.next().unwrap_or("");
    let api = kind.api_version.rsplit('/').next().unwrap_or("");
    let mut kind_suffix = format!("-{}", group.split('.').next().unwrap_or("").to_lowercase());
    if let Some(v) = parts.next() {
        kind_suffix.push('-');
        kind_suffix.push_str(&v.to_lowercase());
    }
    let value = |name: &str| -> Option<String> {
        Some(match name {
            "NormalizedKubernetesVersion" => normalized.clone(),
            "StrictSuffix" => if strict { "-strict" } else { "" }.to_string(),
            "ResourceKind" => kind.kind.to_lowercase(),
            "ResourceAPIVersion" => api.to_string(),
            "Group" => group.to_string(),
            "KindSuffix" => kind_suffix.clone(),
            _ => return None,
        })
    };
    let mut out = String::with_capacity(template.len() + 32);
    let mut rest = template;
    while let Some(open) = rest.find("{{") {
        out.push_str(&rest[..open]);
        let after = &rest[open + 2..];
        let close = after
            .find("}}")
            .ok_or_else(|| format!("'{{{{' without '}}}}' in the schema location {template}"))?;
        let name = after[..close].trim();
        let name = name.strip_prefix('.').unwrap_or(name);
        match value(name) {
            Some(v) => out.push_str(&v),
            None => {
                return Err(format!(
                "unknown variable {{{{ .{name} }}}} in the schema location {template} (known: {})",
                VARIABLES.join(", ")
            ))
            }
        }
        rest = &after[close + 2..];
    }
    out.push_str(rest);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    const DEPLOYMENT: Kind = Kind {
        api_version: "apps/v1",
        kind: "Deployment",
    };

    #[test]
    fn kubeconforms_variables() {
        let l = Location::parse("/s/{{ .NormalizedKubernetesVersion }}-local{{ .StrictSuffix }}/{{ .ResourceKind }}{{ .KindSuffix }}.json").unwrap();
        assert_eq!(
            l.of(&DEPLOYMENT, "1.30.0", true),
            "/s/v1.30.0-local-strict/deployment-apps-v1.json"
        );
        let svc = Kind {
            api_version: "v1",
            kind: "Service",
        };
        assert_eq!(
            l.of(&svc, "master", false),
            "/s/master-local/service-v1.json"
        );
        let ing = Kind {
            api_version: "networking.k8s.io/v1",
            kind: "Ingress",
        };
        let g =
            Location::parse("https://x/{{.Group}}/{{.ResourceKind}}_{{.ResourceAPIVersion}}.json")
                .unwrap();
        assert_eq!(
            g.of(&ing, "1.30.0", false),
            "https://x/networking.k8s.io/ingress_v1.json"
        );
        assert_eq!(
            l.of(&ing, "1.30.0", false),
            "/s/v1.30.0-local/ingress-networking-v1.json"
        );
    }

    #[test]
    fn the_folder_of_a_version_stops_before_the_kind() {
        let l = Location::parse("/s/{{ .NormalizedKubernetesVersion }}-local{{ .StrictSuffix }}/{{ .ResourceKind }}{{ .KindSuffix }}.json").unwrap();
        assert_eq!(l.folder("1.30.0", true), "/s/v1.30.0-local-strict/");
        let g = Location::parse("/s/{{ .Group }}/{{ .ResourceKind }}.json").unwrap();
        assert_eq!(g.folder("1.30.0", false), "/s/");
    }

    #[test]
    fn a_prefix_gets_kubeconforms_layout_and_default_is_its_url() {
        let l = Location::parse("https://example.com/schemas/").unwrap();
        assert_eq!(
            l.of(&DEPLOYMENT, "1.29.1", true),
            "https://example.com/schemas/v1.29.1-standalone-strict/deployment-apps-v1.json"
        );
        assert!(Location::parse("default").unwrap().is_remote());
        assert_eq!(
            Location::parse("default").unwrap().template(),
            DEFAULT_LOCATION
        );
    }

    #[test]
    fn only_kubernetes_forms_of_kind_and_version_name_a_file() {
        for good in [
            "v1",
            "apps/v1",
            "networking.k8s.io/v1beta1",
            "kapp.k14s.io/v1alpha1",
        ] {
            assert!(is_api_version(good), "{good}");
        }
        for bad in [
            "", "../v1", "a/../v1", "x/v1/..", "a/b/c", "A/v1", "apps/", "/v1", "x?y/v1",
            "apps/v1#",
        ] {
            assert!(!is_api_version(bad), "{bad}");
        }
        assert!(is_kind("Deployment"));
        for bad in ["", "../etc", "a/b", "1Pod", "Pod.json", "Pod%2F"] {
            assert!(!is_kind(bad), "{bad}");
        }
    }

    #[test]
    fn an_unknown_variable_is_an_error_when_given() {
        let e = Location::parse("/s/{{ .Nope }}.json").unwrap_err();
        assert!(e.contains("unknown variable {{ .Nope }}"), "{e}");
        assert!(Location::parse("/s/{{ .Group .json").is_err());
        assert!(Location::parse("  ").is_err());
    }
}
