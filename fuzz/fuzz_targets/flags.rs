//! The data values flags: `-v`, `--data-value-yaml` and `--data-values-env`,
//! cut from the input at NUL bytes, over a small fixed schema.
#![no_main]
use std::collections::BTreeMap;

use clap::Parser;
use libfuzzer_sys::fuzz_target;
use yttcheck::cli::inspect::{inspect_in, InspectArgs};
use yttcheck::source::Stdin;

#[path = "mem.rs"]
mod mem;

#[derive(Parser)]
struct Line {
    #[command(flatten)]
    args: InspectArgs,
}

const SCHEMA: &str = "#@data/values-schema\n---\nname: app\nreplicas: 1\nports:\n- name: http\n  port: 80\nlabels:\n  tier: web\n#@schema/nullable\nextra: \"\"\n";

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let mut parts = text.splitn(3, '\0');
    let v = parts.next().unwrap_or("");
    let yaml = parts.next().unwrap_or("");
    let env = parts.next().unwrap_or("");
    let mut files = BTreeMap::new();
    files.insert("config/schema.yml".to_string(), SCHEMA.as_bytes().to_vec());
    let snap = mem::Mem(files);
    let Ok(line) = Line::try_parse_from([
        "inspect",
        "-f",
        "config",
        "-v",
        v,
        "--data-value-yaml",
        yaml,
        "--data-values-env",
        "DVS",
        "--max-steps",
        "200000",
    ]) else {
        return;
    };
    let environ: Vec<(String, String)> = env
        .split_once('=')
        .map(|(k, val)| vec![(format!("DVS_{k}"), val.to_string())])
        .unwrap_or_default();
    let _ = inspect_in(&snap, &Stdin::closed(), &environ, &line.args);
});
