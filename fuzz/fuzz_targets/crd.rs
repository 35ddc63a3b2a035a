//! CustomResourceDefinitions from a repository: YAML -> each version's JSON
//! schema (OpenAPI's dialect made explicit, depth bounded) -> compiled
//! once, then a custom resource of the same text validated against it. A
//! CRD nesting thousands of levels must be refused before it is compiled
//! (compiling costs memory in the square of the depth).
#![no_main]
use std::sync::Arc;

use libfuzzer_sys::fuzz_target;
use yttcheck::kubernetes::{KubernetesOptions, Lookup, SchemaFetch, Schemas};

/// No schema location has anything: only the CRDs are compiled.
struct Nothing;

impl SchemaFetch for Nothing {
    fn fetch(&self, _: &str) -> Result<Option<Arc<[u8]>>, String> {
        Ok(None)
    }
}

fuzz_target!(|data: &[u8]| {
    // YAML nests up to 10,000 collections, and AddressSanitizer's frames
    // are large: on a big stack, as the check's own threads are
    let data = data.to_vec();
    std::thread::Builder::new()
        .stack_size(256 << 20)
        .spawn(move || one(&data))
        .expect("a thread")
        .join()
        .expect("no panic");
});

fn one(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let src = yttcheck::yaml::SourceFile::new("crd.yml", text);
    let Ok(parsed) = yttcheck::yaml::parse::parse(&src, false) else {
        return;
    };
    let opts = KubernetesOptions {
        version: "1.30.0".into(),
        locations: vec!["/nowhere/{{ .ResourceKind }}.json".into()],
        strict: true,
        skip_kinds: Vec::new(),
    };
    let Ok(schemas) = Schemas::new(opts, Arc::new(Nothing)) else {
        return;
    };
    for d in &parsed.docs {
        for v in yttcheck::kubernetes::crd::versions(&d.value, &d.pos, true) {
            let Ok(schema) = &v.schema else { continue };
            let cell = schemas.crd_schema(&v.crd_name, schema);
            if let Some(Lookup::Schema { validator, .. }) = cell.get() {
                // every document of the input, as a resource of that kind
                for other in &parsed.docs {
                    let json = yttcheck::kubernetes::json::to_json(&other.value);
                    let _ = validator.iter_errors(&json).count();
                }
            }
        }
    }
}
