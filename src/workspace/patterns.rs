//! File patterns of `.yttcheck.yml` and of discovery: globs where `*` stays
//! within one path piece, checked for shapes that could never match.

use globset::{GlobBuilder, GlobMatcher, GlobSet, GlobSetBuilder};

/// A glob where `*` stays within one path piece (`libs/*` is the folders in
/// `libs`, not everything below it).
pub fn glob(pattern: &str) -> Result<GlobMatcher, String> {
    check_glob_shape(pattern)?;
    // globset builds a regex and panics when the regex is too big for it;
    // the shape check keeps patterns far from that, and this guard turns any
    // panic that is left into an error
    let built = std::panic::catch_unwind(|| {
        GlobBuilder::new(pattern.trim_end_matches('/'))
            .literal_separator(true)
            .build()
            .map(|g| g.compile_matcher())
    });
    match built {
        Ok(r) => r.map_err(|e| format!("bad glob '{pattern}': {e}")),
        Err(_) => Err(format!("bad glob '{pattern}': too complex to match")),
    }
}

/// Most `{a,b}` alternates nested in one glob, and the longest glob: far
/// beyond any real path pattern, far below what makes globset's regex fail.
const MAX_GLOB_NESTING: usize = 8;
const MAX_GLOB_LEN: usize = 1024;

fn check_glob_shape(pattern: &str) -> Result<(), String> {
    if pattern.len() > MAX_GLOB_LEN {
        return Err(format!(
            "bad glob '{}...': longer than {MAX_GLOB_LEN} characters",
            &pattern[..pattern
                .char_indices()
                .nth(40)
                .map_or(pattern.len(), |(i, _)| i)]
        ));
    }
    let mut depth = 0usize;
    for c in pattern.chars() {
        match c {
            '{' => {
                depth += 1;
                if depth > MAX_GLOB_NESTING {
                    return Err(format!(
                        "bad glob '{pattern}': alternates `{{...}}` nested more than {MAX_GLOB_NESTING} deep"
                    ));
                }
            }
            '}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    Ok(())
}

pub(super) fn glob_set(patterns: &[String]) -> Option<GlobSet> {
    if patterns.is_empty() {
        return None;
    }
    let mut b = GlobSetBuilder::new();
    for p in patterns {
        let p = p.trim_end_matches('/');
        if check_glob_shape(p).is_err() {
            continue;
        }
        for variant in [p.to_string(), format!("{p}/**")] {
            if let Ok(g) = GlobBuilder::new(&variant).literal_separator(true).build() {
                b.add(g);
            }
        }
    }
    std::panic::catch_unwind(|| b.build().ok()).ok().flatten()
}
