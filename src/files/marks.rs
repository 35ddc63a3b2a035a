//! ytt's `--file-mark PATH:KEY=VALUE`: what a run does with some of its
//! input files, whatever their extension says.
//!
//! * `PATH` is matched against the file's original relative path (inside
//!   its `-f` folder, or the base name of a `-f FILE`; never a path a mark
//!   or `-f name=path` gave it). As in ytt, only the first `**/*` is a
//!   wildcard for several levels (`.+`) and then only the first remaining
//!   `*` for one (`[^/]+`); every other character, `*` included, is itself.
//! * Keys: `path=NEW` (the file's relative path: its library folder, type
//!   by extension, output path), `exclude=true`, `type=yaml-template |
//!   yaml-plain | text-template | text-plain | starlark | data`,
//!   `for-output=true`, `exclusive-for-output=true`.
//! * Marks apply in order, each to every file it matches; the last wins. A
//!   mark that matches no file is an error.
//!
//! Pure: the files are given as [`Markable`]s.

use super::FileType;

/// What marks say of one file.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Marks {
    /// `type=`: the file's type and whether it is a template.
    pub kind: Option<(FileType, bool)>,
    /// `for-output=` (and `exclusive-for-output=`).
    pub for_output: Option<bool>,
}

impl Marks {
    pub fn is_empty(&self) -> bool {
        *self == Marks::default()
    }
}

/// A file a mark may apply to.
#[derive(Debug, Clone)]
pub struct Markable<T> {
    /// The path marks match (ytt's `OriginalRelativePath`).
    pub original: String,
    /// The relative path the run uses (a `path=` mark changes it).
    pub rel_path: String,
    pub marks: Marks,
    /// What the caller carries along (where to read the file).
    pub item: T,
}

/// One parsed `--file-mark`.
#[derive(Debug, Clone)]
pub struct FileMark {
    raw: String,
    pattern: regex::Regex,
    key: String,
    value: String,
}

impl FileMark {
    /// Parses `PATH:KEY=VALUE`, with ytt's errors.
    pub fn parse(mark: &str) -> Result<FileMark, String> {
        let Some((path, kv)) = mark.split_once(':') else {
            return Err(format!(
                "Expected file mark '{mark}' to be in format path:key=value"
            ));
        };
        let Some((key, value)) = kv.split_once('=') else {
            return Err(format!(
                "Expected file mark '{mark}' key-value portion to be in format key=value"
            ));
        };
        Ok(FileMark {
            raw: mark.to_string(),
            pattern: pattern(path),
            key: key.to_string(),
            value: value.to_string(),
        })
    }

    /// Whether the mark applies to a file of this original relative path.
    pub fn matches(&self, original: &str) -> bool {
        self.pattern.is_match(original)
    }

    fn unknown_value(&self) -> String {
        format!("Unknown value in file mark '{}'", self.raw)
    }
}

/// ytt's translation of a mark's path to a regular expression.
fn pattern(path: &str) -> regex::Regex {
    let quoted = regex::escape(path);
    let quoted = quoted.replacen(r"\*\*/\*", ".+", 1);
    let quoted = quoted.replacen(r"\*", "[^/]+", 1);
    regex::Regex::new(&format!("^{quoted}$")).expect("an escaped path is a regular expression")
}

/// The files after `marks`, in order, with ytt's errors.
pub fn apply<T>(
    marks: &[FileMark],
    mut files: Vec<Markable<T>>,
) -> Result<Vec<Markable<T>>, String> {
    let mut exclusive: Vec<String> = Vec::new();
    for mark in marks {
        let mut matched = false;
        let mut excluded = vec![false; files.len()];
        for (i, f) in files.iter_mut().enumerate() {
            if !mark.matches(&f.original) {
                continue;
            }
            matched = true;
            match (mark.key.as_str(), mark.value.as_str()) {
                ("path", new) => f.rel_path = new.to_string(),
                ("exclude", "true") => excluded[i] = true,
                ("exclude", _) => return Err(mark.unknown_value()),
                ("type", t) => {
                    f.marks.kind = Some(match t {
                        "yaml-template" => (FileType::Yaml, true),
                        "yaml-plain" => (FileType::Yaml, false),
                        "text-template" => (FileType::Text, true),
                        "text-plain" => (FileType::Text, false),
                        "starlark" => (FileType::Starlark, false),
                        "data" => (FileType::Unknown, false),
                        _ => return Err(mark.unknown_value()),
                    })
                }
                ("for-output", "true") => f.marks.for_output = Some(true),
                ("for-output", _) => return Err(mark.unknown_value()),
                ("exclusive-for-output", "true") => exclusive.push(f.original.clone()),
                ("exclusive-for-output", _) => return Err(mark.unknown_value()),
                _ => return Err(format!("Unknown key in file mark '{}'", mark.raw)),
            }
        }
        if !matched {
            return Err(format!(
                "Expected file mark '{}' to match at least one file by path, but did not",
                mark.raw
            ));
        }
        let mut i = 0;
        files.retain(|_| {
            let keep = !excluded[i];
            i += 1;
            keep
        });
    }
    if !exclusive.is_empty() {
        for f in &mut files {
            f.marks.for_output = Some(exclusive.contains(&f.original));
        }
    }
    Ok(files)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn files(paths: &[&str]) -> Vec<Markable<()>> {
        paths
            .iter()
            .map(|p| Markable {
                original: p.to_string(),
                rel_path: p.to_string(),
                marks: Marks::default(),
                item: (),
            })
            .collect()
    }

    fn marked(marks: &[&str], paths: &[&str]) -> Result<Vec<Markable<()>>, String> {
        let marks: Vec<FileMark> = marks
            .iter()
            .map(|m| FileMark::parse(m))
            .collect::<Result<_, _>>()?;
        apply(&marks, files(paths))
    }

    #[test]
    fn paths_match_as_in_ytt() {
        let m = |path: &str, file: &str| {
            FileMark::parse(&format!("{path}:exclude=true"))
                .unwrap()
                .matches(file)
        };
        assert!(m("**/*.yml", "t.yml") && m("**/*.yml", "a/b/t.yml"));
        assert!(m("*.yml", "t.yml") && !m("*.yml", "a/t.yml"));
        // only the first single-level star is a wildcard
        assert!(!m("*/*.yml", "a/t.yml") && m("*/*.yml", "a/*.yml"));
        assert!(m("values/**/*", "values/prod.yaml"));
        assert!(!m("t.yml", "a/t.yml") && !m("t.ym", "t.yml"));
        assert!(m("a.b", "a.b") && !m("a.b", "axb"));
    }

    #[test]
    fn marks_apply_in_order_with_ytt_errors() {
        let out = marked(
            &[
                "x.yml:type=yaml-plain",
                "**/*:type=data",
                "y.txt:for-output=true",
            ],
            &["x.yml", "y.txt"],
        )
        .unwrap();
        assert_eq!(out[0].marks.kind, Some((FileType::Unknown, false)));
        assert_eq!(out[1].marks.for_output, Some(true));
        let out = marked(&["a.yml:exclude=true"], &["a.yml", "b.yml"]).unwrap();
        assert_eq!(out.len(), 1);
        // an excluded file matches no later mark
        assert_eq!(
            marked(&["a.yml:exclude=true", "a.yml:type=data"], &["a.yml"]).unwrap_err(),
            "Expected file mark 'a.yml:type=data' to match at least one file by path, but did not"
        );
        assert_eq!(
            marked(&["a.yml:bogus=1"], &["a.yml"]).unwrap_err(),
            "Unknown key in file mark 'a.yml:bogus=1'"
        );
        // the key is looked at only for a file that matches
        assert_eq!(
            marked(&["zz:bogus=1"], &["a.yml"]).unwrap_err(),
            "Expected file mark 'zz:bogus=1' to match at least one file by path, but did not"
        );
        assert_eq!(
            marked(&["a.yml:type=yaml"], &["a.yml"]).unwrap_err(),
            "Unknown value in file mark 'a.yml:type=yaml'"
        );
        assert_eq!(
            FileMark::parse("a.yml").unwrap_err(),
            "Expected file mark 'a.yml' to be in format path:key=value"
        );
        assert_eq!(
            FileMark::parse("a.yml:type").unwrap_err(),
            "Expected file mark 'a.yml:type' key-value portion to be in format key=value"
        );
        let out = marked(&["a.yml:path=sub/b=c.yml"], &["a.yml"]).unwrap();
        assert_eq!(out[0].rel_path, "sub/b=c.yml");
        let out = marked(&["a.yml:exclusive-for-output=true"], &["a.yml", "b.yml"]).unwrap();
        assert_eq!(
            (out[0].marks.for_output, out[1].marks.for_output),
            (Some(true), Some(false))
        );
    }
}
