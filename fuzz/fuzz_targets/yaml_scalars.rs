//! YAML scalars of every Unicode category in every quoting style, against the
//! printer's round trip.
//!
//! ytt's output is go-yaml's printing of the values it read, and ytt's users
//! read that output back (a rendered manifest, `--data-values-inspect` fed to
//! another run). So two properties must hold for any text:
//!
//! 1. any string value, printed, reads back as the same string (the printer
//!    picks plain, quoted or block style and must never pick one that changes
//!    the value: a line break, a BOM, a `#`, a lone surrogate-free control
//!    character, a `: ` inside);
//! 2. a scalar written by a user in each style (plain, single-quoted,
//!    double-quoted, literal and folded block), when it parses, prints as
//!    YAML that reads back as the same value (numbers, booleans and nulls
//!    included: `'1'` stays a string, `0x1F` an integer) — except where
//!    go-yaml itself loses it and ytt with it: a float with no fraction
//!    prints as an integer.
//!
//! The first byte picks the style; the rest is the text, where bytes at or
//! above 0x80 pick characters from a table that visits every Unicode general
//! category and the characters YAML treats specially.
#![no_main]
use libfuzzer_sys::fuzz_target;
use std::sync::Arc;
use yttcheck::yaml::node::Value;
use yttcheck::yaml::SourceFile;

/// Characters beyond ASCII, one or more of each Unicode general category, and
/// those YAML or go-yaml treat specially (NEL, LS, PS, BOM, NBSP, the C1
/// controls, noncharacters, private use, combining marks, wide and astral).
const CHARS: &[char] = &[
    '\u{80}',
    '\u{85}',
    '\u{9F}',
    '\u{A0}',
    '\u{AD}',
    '\u{E9}',
    '\u{2028}',
    '\u{2029}',
    '\u{FEFF}',
    '\u{FFFE}',
    '\u{FFFF}',
    '\u{FFFD}',
    '\u{E000}',
    '\u{F8FF}',
    '\u{10FFFD}',
    '\u{300}',
    '\u{20DD}',
    '\u{903}',
    '\u{660}',
    '\u{16EE}',
    '\u{BD}',
    '\u{2000}',
    '\u{3000}',
    '\u{200B}',
    '\u{200D}',
    '\u{202E}',
    '\u{2060}',
    '\u{1F3B5}',
    '\u{1D11E}',
    '\u{4E2D}',
    '\u{5D0}',
    '\u{627}',
    '\u{391}',
    '\u{2160}',
    '\u{2010}',
    '\u{201C}',
    '\u{201D}',
    '\u{2018}',
    '\u{FF1A}',
    '\u{FE55}',
    '\u{2219}',
    '\u{20AC}',
    '\u{2C6}',
    '\u{2022}',
    '\u{E0001}',
    '\u{F0000}',
    '\u{1F600}',
    '\u{1F1FA}',
    '\u{D7FF}',
    '\u{10000}',
];

fn text_of(data: &[u8]) -> String {
    data.iter()
        .map(|&b| match b {
            0..=0x7F => b as char,
            _ => CHARS[(b as usize - 0x80) % CHARS.len()],
        })
        .collect()
}

fn parse_one(text: &str) -> Option<Value> {
    let src = SourceFile::new("fuzz.yml", text);
    let docs = yttcheck::yaml::parse::parse(&src, false).ok()?;
    Some(docs.docs.into_iter().next()?.value)
}

/// The same value after ytt's printing: a NaN equals a NaN (both print
/// `.nan`), collections by their items.
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Null, Value::Null) => true,
        (Value::Bool(x), Value::Bool(y)) => x == y,
        (Value::Int(x), Value::Int(y)) => x == y,
        (Value::UInt(x), Value::UInt(y)) => x == y,
        (Value::Float(x), Value::Float(y)) => {
            x == y && x.is_sign_negative() == y.is_sign_negative() || x.is_nan() && y.is_nan()
        }
        // go-yaml's own loss, which ytt prints: a float with no fraction
        // prints as an integer (`1e3` and `1.0` come out as `1000` and `1`)
        (Value::Float(x), Value::Int(y)) => *x == *y as f64 && x.fract() == 0.0,
        (Value::Str(x), Value::Str(y)) => x == y,
        (Value::Binary(x), Value::Binary(y)) => x == y,
        (Value::Map(x), Value::Map(y)) => {
            x.items.len() == y.items.len()
                && x.items
                    .iter()
                    .zip(&y.items)
                    .all(|(p, q)| same(&p.key, &q.key) && same(&p.value, &q.value))
        }
        (Value::Array(x), Value::Array(y)) => {
            x.items.len() == y.items.len()
                && x.items
                    .iter()
                    .zip(&y.items)
                    .all(|(p, q)| same(&p.value, &q.value))
        }
        _ => false,
    }
}

fn round_trip(v: &Value, how: &str) {
    let printed = yttcheck::yaml::print::print_value(v);
    let back = parse_one(&printed).unwrap_or_else(|| {
        panic!("{how}: the printer's output does not parse: {printed:?} of {v:?}")
    });
    assert!(
        same(v, &back),
        "{how}: printed {printed:?} reads back as {back:?}, not {v:?}"
    );
}

fuzz_target!(|data: &[u8]| {
    let Some((&style, rest)) = data.split_first() else {
        return;
    };
    let text = text_of(rest);
    round_trip(&Value::Str(Arc::from(text.as_str())), "string value");
    let indented = text.replace('\n', "\n  ");
    let doc = match style % 6 {
        0 => format!("k: {text}\n"),
        1 => format!("k: '{text}'\n"),
        2 => format!("k: \"{text}\"\n"),
        3 => format!("k: |\n  {indented}\n"),
        4 => format!("k: >-\n  {indented}\n"),
        _ => format!("- {text}\n"),
    };
    if let Some(v) = parse_one(&doc) {
        round_trip(&v, "scalar as written");
    }
});
