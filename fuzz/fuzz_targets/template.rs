//! The template compiler and evaluator, overlays and the data values
//! pipeline, with the budgets on: up to three files of one library (a
//! template, a Starlark module it may load, a values or overlay file), cut
//! from the input at NUL bytes, inspected as `ytt -f config
//! --data-values-inspect` would, then rendered as `ytt -f config` would
//! (templates, text templates, output overlays).
#![no_main]
use std::collections::BTreeMap;

use libfuzzer_sys::fuzz_target;
use yttcheck::app::budget::Budget;
use yttcheck::app::ytt::{inspect_in, render_in, InspectRun, RenderRun, YttRun};
use yttcheck::source::Stdin;

#[path = "mem.rs"]
mod mem;

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
    // ytt -f config --max-steps 200000 --timeout 2
    let input = YttRun {
        files: vec!["config".to_string()],
        budget: Budget {
            max_steps: Some(200_000),
            timeout: Some(2.0),
        },
        ..YttRun::default()
    };
    let inspect = InspectRun {
        input: input.clone(),
        ..InspectRun::default()
    };
    let _ = inspect_in(&snap, &Stdin::closed(), &[], &inspect);
    let render = RenderRun {
        input,
        output: Vec::new(),
    };
    let _ = render_in(&snap, &Stdin::closed(), &[], &render);
});
