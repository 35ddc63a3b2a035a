//! `.yttcheck.yml`: parsing it, and making the plan it describes (globs,
//! libraries, environments, flags) over a few files.
#![no_main]
use std::collections::BTreeMap;

use libfuzzer_sys::fuzz_target;
use yttcheck::source::SourceCache;

#[path = "mem.rs"]
mod mem;

fuzz_target!(|data: &[u8]| {
    let mut files = BTreeMap::new();
    files.insert(".yttcheck.yml".to_string(), data.to_vec());
    files.insert(
        "libs/web/schema.yml".to_string(),
        b"#@data/values-schema\n---\nreplicas: 1\n".to_vec(),
    );
    files.insert("envs/dev/web.yml".to_string(), b"replicas: 2\n".to_vec());
    files.insert(
        "envs/prod/values.yml".to_string(),
        b"replicas: 3\n".to_vec(),
    );
    let snap = mem::Mem(files);
    let sources = SourceCache::new(&snap);
    let _ = yttcheck::workspace::load(&sources);
});
