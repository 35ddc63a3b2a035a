//! The Secret reader and the diff's masking, on any text: which lines of a
//! file are a Secret document's (`secrets::secret_document_lines`), and a
//! text as a diff may print it (`Secrets::mask_text`). Neither panics, the
//! ranges are ordered lines of the text, and a secret value (the input's
//! first line, when long enough) never survives masking. The line diff of
//! the rest against itself with one line changed (`diff::bound::line_diff`)
//! is bounded and holds no line of the secret either.
#![no_main]
use libfuzzer_sys::fuzz_target;
use yttcheck::secrets::{secret_document_lines, Secrets, MIN_SECRET_VALUE};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let lines = text.lines().count() as u32;
    let mut last = 0;
    for r in secret_document_lines(text) {
        assert!(
            r.start >= 1 && r.start < r.end && r.end <= lines + 1,
            "{r:?} of {lines}"
        );
        assert!(r.start >= last, "ranges in order");
        last = r.end;
    }
    let (secret, rest) = text.split_once('\n').unwrap_or((text, ""));
    let secrets = Secrets::default().with_values([secret]);
    match secrets.mask_text(rest) {
        None => assert_eq!(rest, secret),
        Some(shown) if secret.trim().chars().count() >= MIN_SECRET_VALUE => {
            // every place the secret is in what is shown overlaps a
            // `(value not shown)` of ours, or the space written on either
            // side of one (which may spell part of it)
            let hidden: Vec<std::ops::Range<usize>> = shown
                .match_indices(yttcheck::secrets::HIDDEN)
                .map(|(at, h)| at.saturating_sub(1)..at + h.len() + 1)
                .collect();
            for (at, _) in shown.char_indices() {
                if shown[at..].starts_with(secret) {
                    let found = at..at + secret.len();
                    assert!(
                        hidden
                            .iter()
                            .any(|h| h.start < found.end && found.start < h.end),
                        "{secret:?} shown in {shown:?}"
                    );
                }
            }
        }
        Some(_) => {}
    }
    // the line diff: the rest against the rest with its first line changed
    if secret.trim().chars().count() >= MIN_SECRET_VALUE && !secret.contains('\n') {
        let changed = format!("x{rest}");
        if let Some(lines) = yttcheck::diff::bound::line_diff(rest, &changed, &secrets) {
            assert!(lines.len() <= yttcheck::diff::bound::MAX_DIFF_LINES + 1);
            for l in &lines {
                assert!(
                    l.chars().count() <= yttcheck::diff::bound::MAX_LINE_CHARS + 60,
                    "{l:?}"
                );
                // (a hunk's header and the cut note are ours: only a line
                // of the text, after its sign, carries the input)
                if l.starts_with("@@ line ") || l.starts_with("… (cut: ") {
                    continue;
                }
                let shown = l[2..].replace(yttcheck::secrets::HIDDEN, "\0");
                assert!(
                    !shown.contains(secret) || secret.contains('\0'),
                    "{secret:?} shown in the line {l:?}"
                );
            }
        }
    }
});
