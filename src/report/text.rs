//! The default report: each finding with a code frame of the offending line,
//! what decided it, and where it happens; then a summary line.

use crate::check::{Finding, Severity};
use crate::diagnostics::RuleId;
use std::borrow::Cow;

use crate::escape::control;

use super::ReportInput;
use crate::diagnostics::FindingFields;
use crate::yaml::SourceFile;
use std::sync::{Arc, Mutex, PoisonError};

struct Style {
    on: bool,
}

impl Style {
    /// `s` in colour `code` when colours are on (borrowed when they are
    /// off: a report of thousands of findings paints tens of thousands of
    /// pieces).
    fn paint<'a>(&self, code: &str, s: &'a str) -> Cow<'a, str> {
        if self.on {
            Cow::Owned(format!("\x1b[{code}m{s}\x1b[0m"))
        } else {
            Cow::Borrowed(s)
        }
    }
    fn severity(&self, sev: Severity) -> Cow<'static, str> {
        match sev {
            Severity::Error => self.paint("1;31", "error"),
            Severity::Warning => self.paint("1;33", "warning"),
            Severity::Note => self.paint("1;36", "note"),
        }
    }
    fn dim<'a>(&self, s: &'a str) -> Cow<'a, str> {
        self.paint("2", s)
    }
    fn bold<'a>(&self, s: &'a str) -> Cow<'a, str> {
        self.paint("1", s)
    }
    fn blue<'a>(&self, s: &'a str) -> Cow<'a, str> {
        self.paint("34", s)
    }
}

/// Rules whose ytt text adds to the one-line message (stack traces, the
/// nested overlay path).
fn shows_detail(f: &Finding) -> bool {
    matches!(
        f.rule,
        RuleId::TemplateError | RuleId::TemplateBudget | RuleId::OverlayError | RuleId::ValuesError
    )
}

/// A source line for a code frame, with the value of every secret-looking
/// key left out (CI logs are widely readable), and no character a terminal
/// or log reader acts on. When the finding's own key is secret, the whole
/// value on the line is hidden, whatever its shape (a list item under
/// `password:`).
fn frame_line(
    line: &str,
    key_path: Option<&str>,
    secrets: &crate::secrets::Secrets,
    in_secret_manifest: bool,
) -> String {
    let line = line.trim_end();
    let own_key_secret = key_path.is_some_and(|k| {
        k.split(['.', '[', ']', '='])
            .any(|piece| secrets.is_secret(piece))
    });
    if own_key_secret || in_secret_manifest {
        return control(&crate::secrets::hide_value(line)).into_owned();
    }
    control(&secrets.redact_line(line)).into_owned()
}

/// A line of ytt's detail text: a stack trace's source lines
/// (`file:3 | key: value`) lose their secret values as code frames do
/// (every value, for a finding in a Secret manifest).
fn detail_line(l: &str, in_secret_manifest: bool) -> String {
    match l.split_once(" | ") {
        Some((place, src)) if in_secret_manifest => {
            control(&format!("{place} | {}", crate::secrets::hide_value(src))).into_owned()
        }
        Some((place, src)) => control(&format!(
            "{place} | {}",
            crate::secrets::Secrets::shared().redact_line(src)
        ))
        .into_owned(),
        None => control(l).into_owned(),
    }
}

/// Appends one line made of `parts` (pieces pushed as they are: the
/// formatting machinery cost more than the rest of a finding's frame in a
/// report of thousands).
fn line(out: &mut String, parts: &[&str]) {
    line_parts(out, parts);
    out.push('\n');
}

/// Appends `parts`, the start of a line.
fn line_parts(out: &mut String, parts: &[&str]) {
    for p in parts {
        out.push_str(p);
    }
}

/// `loc` as `path:line[:column]`, escaped, appended to `out`.
fn push_place(out: &mut String, loc: &crate::diagnostics::Location) {
    out.push_str(&control(&loc.path));
    out.push(':');
    push_number(out, loc.line);
    if loc.column > 0 {
        out.push(':');
        push_number(out, loc.column);
    }
}

/// `n` in decimal (without the formatting machinery: see [`line`]).
fn push_number(out: &mut String, n: u32) {
    let mut digits = [0u8; 10];
    let mut i = digits.len();
    let mut n = n;
    loop {
        i -= 1;
        digits[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    out.extend(digits[i..].iter().map(|&d| char::from(d)));
}

/// `n` spaces appended to `out`.
fn push_spaces(out: &mut String, n: usize) {
    out.extend(std::iter::repeat_n(' ', n));
}

/// Appends one finding's frame. Pieces are pushed onto `out` as they are,
/// with as few strings made on the way as can be: a report may frame
/// thousands (a daemon's answer of 8,000 findings spent a fifth of its
/// time here).
fn finding(
    out: &mut String,
    f: &Finding,
    input: &ReportInput,
    st: &Style,
    cache: &mut SourceCache,
    secrets: &crate::secrets::Secrets,
) {
    out.push_str(&st.severity(f.severity));
    let id = control(f.rule_id());
    if st.on {
        out.push_str(&st.bold(&["[", &id, "]"].concat()));
    } else {
        line_parts(out, &["[", &id, "]"]);
    }
    line(out, &[" ", &control(&f.message)]);
    let in_secret_manifest = f
        .location
        .as_ref()
        .is_some_and(|loc| cache.is_secret_manifest(input, &loc.path, loc.line));
    match &f.location {
        Some(loc) => {
            line_parts(out, &["  ", &st.blue("-->"), " "]);
            push_place(out, loc);
            out.push('\n');
            if let Some(code) = cache.line(input, &loc.path, loc.line) {
                let framed = frame_line(code, f.key_path.as_deref(), secrets, in_secret_manifest);
                let mut n = String::new();
                push_number(&mut n, loc.line);
                let bar = st.blue("|");
                out.push_str("  ");
                push_spaces(out, n.len());
                line(out, &[" ", &bar]);
                line(out, &["  ", &st.blue(&n), " ", &bar, " ", &framed]);
                if loc.column > 0 {
                    out.push_str("  ");
                    push_spaces(out, n.len());
                    line_parts(out, &[" ", &bar, " "]);
                    if st.on {
                        let caret = " ".repeat(loc.column as usize - 1) + "^";
                        out.push_str(&st.paint("1;31", &caret));
                    } else {
                        push_spaces(out, loc.column as usize - 1);
                        out.push('^');
                    }
                    out.push('\n');
                }
            }
        }
        None => {
            if let Some(o) = &f.origin {
                line(out, &["  ", &st.blue("-->"), " ", &control(o)]);
            }
        }
    }
    for r in &f.related {
        line_parts(out, &["  ", &st.blue("="), " ", &control(&r.message), ": "]);
        push_place(out, &r.location);
        out.push('\n');
    }
    if shows_detail(f) && f.detail.len() > 1 {
        // ytt's text starts with what the headline already says: said once
        let repeats = |l: &String| l.trim() == f.message.trim();
        let skip = usize::from(f.detail.first().is_some_and(repeats));
        for l in &f.detail[skip..] {
            line(
                out,
                &[
                    "  ",
                    &st.blue("|"),
                    " ",
                    &st.dim(&detail_line(l, in_secret_manifest)),
                ],
            );
        }
    } else {
        // (a Package CR's drift says both sides: the schema's and the CR's)
        let sides = matches!(f.rule, RuleId::PackageSchemaDrift | RuleId::PackageDocDrift);
        for l in f.detail.iter().filter(|l| sides || l.starts_with("hint: ")) {
            line(out, &["  ", &st.blue("="), " ", &control(l)]);
        }
    }
    if !f.library.is_empty() {
        line_parts(out, &["  ", &st.blue("="), " in "]);
        push_pairs(out, f);
        out.push('\n');
    }
    out.push('\n');
}

/// [`super::pairs_of`], escaped, appended to `out`.
fn push_pairs(out: &mut String, f: &Finding) {
    if f.environments.is_empty() {
        out.push_str(&control(&f.library));
        return;
    }
    let library = control(&f.library);
    for (i, e) in f.environments.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        out.push_str(&library);
        out.push('@');
        out.push_str(&control(e));
    }
}

/// Files read for code frames, once each (a report of thousands of
/// findings takes one line of a file for each).
#[derive(Default)]
struct SourceCache {
    files: foldhash::HashMap<String, Option<Arc<SourceFile>>>,
    /// The file asked for last: runs of findings are mostly in one file,
    /// and a report of thousands of findings asks for each one's.
    last: Option<(String, Option<Arc<SourceFile>>)>,
    /// The lines of each file asked about that are a Secret document's
    /// (their values are never framed).
    secret_manifests: foldhash::HashMap<String, Vec<std::ops::Range<u32>>>,
}

impl SourceCache {
    fn file(&mut self, input: &ReportInput, path: &str) -> Option<&Arc<SourceFile>> {
        if self.last.as_ref().is_none_or(|(last, _)| last != path) {
            let file = match self.files.get(path) {
                Some(file) => file.clone(),
                None => {
                    let file = (input.source)(path);
                    self.files.insert(path.to_string(), file.clone());
                    file
                }
            };
            self.last = Some((path.to_string(), file));
        }
        self.last.as_ref()?.1.as_ref()
    }

    /// Whether the file at `path` is a plain Kubernetes Secret manifest
    /// (a PackageInstall's values Secret): its lines are framed without
    /// their values.
    fn is_secret_manifest(&mut self, input: &ReportInput, path: &str, line: u32) -> bool {
        if !self.secret_manifests.contains_key(path) {
            let lines = self
                .file(input, path)
                .map(|f| crate::secrets::secret_document_lines(f.text()))
                .unwrap_or_default();
            self.secret_manifests.insert(path.to_string(), lines);
        }
        self.secret_manifests
            .get(path)
            .is_some_and(|ranges| ranges.iter().any(|r| r.contains(&line)))
    }

    fn line(&mut self, input: &ReportInput, path: &str, line: u32) -> Option<&str> {
        let file = self.file(input, path)?;
        // as `str::lines`: no line starts at the end of the text (after
        // its last line break), and a line is without its `\r\n` or `\n`
        let text = file.text();
        let past_the_end =
            line as usize == file.line_count() && (text.is_empty() || text.ends_with('\n'));
        if past_the_end {
            return None;
        }
        file.line_text(line)
    }
}

/// Each finding's text, kept between the checks of a long-lived process
/// (the daemon). Most of a check's findings are passed on from the last
/// check unchanged (the same shared fields), and framing thousands of them
/// again was a fifth of a warm check's time.
///
/// A frame is used again only for the very fields it was made from (the
/// entry holds them, so their address is theirs and they cannot change), the
/// same severity and colours, and the same file for its code line (the
/// daemon's file store gives an unchanged file's one copy; a changed file is
/// another). An entry goes at the first text report after nothing but this
/// cache holds its finding (until then it keeps the finding, and the copy of
/// the file its frame was made from, alive).
#[derive(Default)]
pub struct FrameCache {
    frames: Mutex<FrameMap>,
}

/// By the address of the fields framed.
type FrameMap = foldhash::HashMap<usize, Kept>;

/// The frames of one finding's fields: without colours and with.
struct Kept {
    fields: Arc<FindingFields>,
    frames: [Option<Frame>; 2],
}

struct Frame {
    severity: Severity,
    file: Option<Arc<SourceFile>>,
    text: String,
}

impl FrameCache {
    /// The map, even if a report panicked while holding it (it is only
    /// ever replaced whole).
    fn lock(&self) -> std::sync::MutexGuard<'_, FrameMap> {
        self.frames.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// How many findings' frames are kept.
    pub fn len(&self) -> usize {
        self.lock().len()
    }

    /// Whether no frame is kept.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// A frame made by [`frame_all`], to keep.
struct Made {
    fields: Arc<FindingFields>,
    color: bool,
    frame: Frame,
}

/// The frames of `chunk` appended to `out`, each taken from `kept` when it
/// holds the finding's frame, else made; the frames made are returned.
fn frame_all(
    out: &mut String,
    chunk: &[Finding],
    input: &ReportInput,
    st: &Style,
    secrets: &crate::secrets::Secrets,
    kept: Option<&FrameMap>,
) -> Vec<Made> {
    // (room for a file for every few findings at once: grown from empty,
    // the map of each of a large report's pieces was rehashed five times)
    let mut cache = SourceCache {
        files: foldhash::HashMap::with_capacity_and_hasher(chunk.len() / 4, Default::default()),
        last: None,
        secret_manifests: Default::default(),
    };
    let mut made = Vec::new();
    for f in chunk {
        let Some(kept) = kept else {
            finding(out, f, input, st, &mut cache, secrets);
            continue;
        };
        let file = f
            .location
            .as_ref()
            .and_then(|loc| cache.file(input, &loc.path))
            .cloned();
        let same_file = |other: &Option<Arc<SourceFile>>| match (other, &file) {
            (Some(a), Some(b)) => Arc::ptr_eq(a, b),
            (None, None) => true,
            _ => false,
        };
        let found = kept
            .get(&(Arc::as_ptr(f.fields()) as usize))
            .and_then(|k| k.frames[usize::from(st.on)].as_ref())
            .filter(|frame| frame.severity == f.severity && same_file(&frame.file));
        match found {
            Some(frame) => out.push_str(&frame.text),
            None => {
                let start = out.len();
                finding(out, f, input, st, &mut cache, secrets);
                made.push(Made {
                    fields: f.fields().clone(),
                    color: st.on,
                    frame: Frame {
                        severity: f.severity,
                        file,
                        text: out[start..].to_string(),
                    },
                });
            }
        }
    }
    made
}

/// Keeps the frames made, and lets go of those of findings that nothing
/// but the cache holds any more (the memo let them go).
fn keep(kept: &mut FrameMap, made: Vec<Made>) {
    for m in made {
        let k = kept
            .entry(Arc::as_ptr(&m.fields) as usize)
            .or_insert_with(|| Kept {
                fields: m.fields,
                frames: [None, None],
            });
        k.frames[usize::from(m.color)] = Some(m.frame);
    }
    kept.retain(|_, k| Arc::strong_count(&k.fields) > 1);
}

/// Findings framed on one thread below this many (a thread pool's start
/// costs more than a few hundred frames).
const PARALLEL_FROM: usize = 1024;
/// Findings framed in one piece of work.
const CHUNK: usize = 256;
/// Room made for each finding's frame before framing (most are shorter;
/// a longer one grows the piece).
const FRAME_BYTES: usize = 320;

pub fn render(input: &ReportInput) -> String {
    let st = Style { on: input.color };
    let secrets = crate::secrets::Secrets::shared();
    let findings = &input.result.findings;
    // the kept frames are taken out for the report, and the lock let go:
    // a thread of the pool that waits in the parallel framing below may
    // take up another check's report (rayon runs queued work while it
    // waits), which must not wait for a lock its own thread holds. A check
    // reporting meanwhile finds nothing kept, and frames everything.
    let mut kept: Option<FrameMap> = input.frames.map(|c| std::mem::take(&mut *c.lock()));
    let frames = |chunk: &[Finding]| {
        // (a frame is a few hundred bytes: a piece grown from empty was
        // copied a dozen times over, a tenth of a large report's making)
        let mut out = String::with_capacity(chunk.len() * FRAME_BYTES);
        let made = frame_all(&mut out, chunk, input, &st, secrets, kept.as_ref());
        (out, made)
    };
    // thousands of findings are framed on every core, in runs of
    // consecutive findings (which mostly share their files), and joined
    // in order
    // (in the pool the check ran in: no other is started for this)
    let parallel = findings.len() >= PARALLEL_FROM && rayon::current_thread_index().is_some();
    let parts: Vec<(String, Vec<_>)> = if parallel {
        use rayon::prelude::*;
        findings.par_chunks(CHUNK).map(frames).collect()
    } else {
        vec![frames(findings)]
    };
    let mut out = String::with_capacity(parts.iter().map(|p| p.0.len()).sum::<usize>() + 256);
    let mut made = Vec::new();
    for (text, m) in parts {
        out.push_str(&text);
        made.extend(m);
    }
    if let (Some(cache), Some(kept)) = (input.frames, kept.take()) {
        let mut now = cache.lock();
        // (with what a check that reported meanwhile kept)
        if now.is_empty() {
            *now = kept;
        } else {
            now.extend(kept);
        }
        keep(&mut now, made);
    }
    let libraries = {
        let mut l: Vec<&str> = input
            .result
            .pairs
            .iter()
            .map(|p| p.library.as_str())
            .collect();
        l.sort();
        l.dedup();
        l.len()
    };
    let counts = input.counts();
    let summary = format!(
        "yttcheck: {} in {} pair{} of {} librar{} ({:.2}s)",
        counts.describe(),
        input.result.pairs.len(),
        if input.result.pairs.len() == 1 {
            ""
        } else {
            "s"
        },
        libraries,
        if libraries == 1 { "y" } else { "ies" },
        input.result.elapsed.as_secs_f64()
    );
    let summary = if input.failed() {
        st.paint("1;31", &summary)
    } else {
        st.paint("1;32", &summary)
    };
    out.push_str(&summary);
    out.push('\n');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A kept frame is used only for the very finding it was made from, with
    /// the same severity, colours and file (the daemon's file store gives an
    /// unchanged file's one copy); anything else is framed again, and a
    /// report from kept frames is the report made afresh.
    #[test]
    fn a_kept_frame_is_only_used_for_what_it_was_made_from() {
        use crate::check::CheckResult;
        use crate::diagnostics::Location;
        let warning = |message: &str| {
            let mut f = Finding::new(
                RuleId::SchemaUnusedValue,
                message.into(),
                Some(Location {
                    path: "values.yml".into(),
                    line: 2,
                    column: 3,
                }),
            );
            f.severity = Severity::Warning;
            f.library = "app".into();
            f.environments = vec!["prod".into()];
            f
        };
        let files = Mutex::new(SourceFile::new("values.yml", "a: 1\nb: 2\n"));
        let cache = FrameCache::default();
        let source = |_: &str| {
            // the kept frames are not locked while findings are framed (a
            // thread of the pool that waits there may take up another
            // check's report, which would wait for its own lock)
            assert!(cache.frames.try_lock().is_ok(), "locked while framing");
            Some(files.lock().unwrap().clone())
        };
        let plan = crate::workspace::Plan::default();
        let report = |findings: &[Finding], color: bool, frames: Option<&FrameCache>| {
            let result = CheckResult {
                findings: findings.to_vec(),
                ..Default::default()
            };
            render(&ReportInput {
                result: &result,
                plan: &plan,
                fail_on: Severity::Error,
                source: &source,
                color,
                frames,
                repo_prefix: String::new(),
            })
        };
        let same = |findings: &[Finding], color: bool| {
            let kept = report(findings, color, Some(&cache));
            assert_eq!(kept, report(findings, color, None));
            kept
        };
        let (b, c) = (warning("b is unused"), warning("c is unused"));
        let first = same(&[b.clone(), c.clone()], false);
        assert!(first.contains("2 | b: 2"), "{first}");
        assert_eq!(cache.len(), 2);
        // the same findings: their kept frames
        assert_eq!(same(&[b.clone(), c.clone()], false), first);
        // another severity, other colours
        let mut graded = b.clone();
        graded.severity = Severity::Error;
        assert!(same(&[graded, c.clone()], false).starts_with("error"));
        assert!(same(std::slice::from_ref(&b), true).contains("\x1b["));
        // the file changed: the code line is the new one
        *files.lock().unwrap() = SourceFile::new("values.yml", "a: 1\nb: 3\n");
        let changed = same(&[b.clone(), c.clone()], false);
        assert!(
            changed.contains("2 | b: 3") && !changed.contains("b: 2"),
            "{changed}"
        );
        // an equal finding that is not the same one is framed, and kept
        let again = warning("b is unused");
        assert!(!again.shares_fields_with(&b));
        same(std::slice::from_ref(&again), false);
        // frames of findings no one holds any more go
        drop((b, c));
        same(&[again], false);
        assert_eq!(
            cache.len(),
            1,
            "only the frame of `again` (without colours) is left"
        );
    }

    #[test]
    fn numbers_are_written_in_decimal() {
        for n in [0, 7, 10, 99, 100, 4_294_967_295u32] {
            let mut s = String::from("x");
            push_number(&mut s, n);
            assert_eq!(s, format!("x{n}"));
        }
    }

    #[test]
    fn secret_looking_values_stay_out_of_code_frames() {
        let secrets = crate::secrets::Secrets::default();
        let frame = |line: &str, key: Option<&str>| frame_line(line, key, &secrets, false);
        assert_eq!(
            frame("  db_password: hunter2", None),
            "  db_password: (value not shown)"
        );
        assert_eq!(frame("apiToken: abc", None), "apiToken: (value not shown)");
        assert_eq!(frame("tls.key: |", None), "tls.key: (value not shown)");
        assert_eq!(frame("replicas: 3", None), "replicas: 3");
        assert_eq!(frame("monkey: 3", None), "monkey: 3");
        assert_eq!(frame("password:", None), "password:");
        assert_eq!(
            frame("harborAdminPassword: x", None),
            "harborAdminPassword: (value not shown)"
        );
        assert_eq!(frame("keyboard: x", None), "keyboard: x");
        assert_eq!(
            frame("db: {host: h, password: qa-pw}", None),
            "db: {host: h, password: (value not shown)}"
        );
        // the finding's own key is secret: its value goes whatever its shape
        assert_eq!(
            frame("    - hunter2", Some("db.passwords[0]")),
            "    - (value not shown)"
        );
        assert_eq!(
            frame("  pw_list: [a, b]", Some("pw_list")),
            "  pw_list: [a, b]"
        );
        assert_eq!(
            frame("  tokens: [a, b]", Some("tokens")),
            "  tokens: (value not shown)"
        );
        assert_eq!(frame("a\x1b[2Jb", None), "a\\x1b[2Jb");
    }
}
