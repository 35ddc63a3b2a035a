//! The data values flags: `-v`, `--data-value-yaml` and `--data-values-env`,
//! cut from the input at NUL bytes, over a small fixed schema.
#![no_main]
use std::collections::BTreeMap;

use libfuzzer_sys::fuzz_target;
use yttcheck::app::budget::Budget;
use yttcheck::app::ytt::{inspect_in, InspectRun, YttRun};
use yttcheck::source::Stdin;

#[path = "mem.rs"]
mod mem;

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
    // ytt -f config -v V --data-value-yaml YAML --data-values-env DVS --max-steps 200000
    let run = InspectRun {
        input: YttRun {
            files: vec!["config".to_string()],
            data_value: vec![v.to_string()],
            data_value_yaml: vec![yaml.to_string()],
            data_values_env: vec!["DVS".to_string()],
            budget: Budget {
                max_steps: Some(200_000),
                timeout: None,
            },
            ..YttRun::default()
        },
        ..InspectRun::default()
    };
    let environ: Vec<(String, String)> = env
        .split_once('=')
        .map(|(k, val)| vec![(format!("DVS_{k}"), val.to_string())])
        .unwrap_or_default();
    let _ = inspect_in(&snap, &Stdin::closed(), &environ, &run);
});
