//! The template compiler and evaluator, overlays and the data values
//! pipeline, with the budgets on: up to three files of one library (a
//! template, a Starlark module it may load, a values or overlay file), cut
//! from the input at NUL bytes, inspected as `ytt -f config
//! --data-values-inspect` would, then rendered as `ytt -f config` would
//! (templates, text templates, output overlays).
#![no_main]
use std::collections::BTreeMap;

use clap::Parser;
use libfuzzer_sys::fuzz_target;
use yttcheck::cli::inspect::{inspect_in, InspectArgs};
use yttcheck::cli::render::{render_in, RenderArgs};
use yttcheck::source::Stdin;

#[path = "mem.rs"]
mod mem;

#[derive(Parser)]
struct Line {
    #[command(flatten)]
    args: InspectArgs,
}

#[derive(Parser)]
struct RenderLine {
    #[command(flatten)]
    args: RenderArgs,
}

fuzz_target!(|data: &[u8]| {
    let mut parts = data.splitn(3, |b| *b == 0);
    let names = [
        "config/template.yml",
        "config/helpers.star",
        "config/values.yml",
    ];
    let mut files = BTreeMap::new();
    for name in names {
        if let Some(p) = parts.next() {
            files.insert(name.to_string(), p.to_vec());
        }
    }
    let snap = mem::Mem(files);
    let Ok(line) = Line::try_parse_from([
        "inspect",
        "-f",
        "config",
        "--max-steps",
        "200000",
        "--timeout",
        "2",
    ]) else {
        return;
    };
    let _ = inspect_in(&snap, &Stdin::closed(), &[], &line.args);
    let Ok(render) = RenderLine::try_parse_from([
        "render",
        "-f",
        "config",
        "--max-steps",
        "200000",
        "--timeout",
        "2",
    ]) else {
        return;
    };
    let _ = render_in(&snap, &Stdin::closed(), &[], &render.args);
});
