//! A library is parsed and compiled once, then evaluated with different data
//! values on many threads at the same time, through one shared cache.

use std::sync::Arc;

use yttcheck::files::{LibraryCtx, LibraryTree};
use yttcheck::source::worktree::WorkTree;
use yttcheck::source::Stdin;
use yttcheck::template::{CompileCache, EvalOpts, EvalSession};
use yttcheck::values::{library_schema, library_values, DataValuesFlags};
use yttcheck::yaml::print::print_docset;
use yttcheck::yaml::{DocSet, Value};

use super::common::input_file as file;

fn library() -> Arc<LibraryTree> {
    Arc::new(LibraryTree::new(vec![
        file(0, "helpers.star", "def double(n):\n  return n * 2\nend\n"),
        file(
            1,
            "schema.yml",
            "#@ load(\"helpers.star\", \"double\")\n#@data/values-schema\n---\n#@schema/validation min=1\nreplicas: 1\n#@schema/default double(21)\nlimit: 0\nname: \"\"\n",
        ),
        file(
            2,
            "values.yml",
            "#@ load(\"helpers.star\", \"double\")\n#@data/values\n---\nname: #@ \"app-\" + str(double(5))\n",
        ),
    ]))
}

fn values_for(
    tree: &Arc<LibraryTree>,
    cache: &CompileCache,
    replicas: i64,
) -> Result<String, String> {
    let opts = EvalOpts::default();
    let dir = std::env::temp_dir();
    let flags = DataValuesFlags {
        kvs_from_yaml: vec![format!("replicas={replicas}")],
        ..DataValuesFlags::default()
    };
    let overlays = flags
        .as_overlays(&WorkTree::new(dir), &Stdin::default(), &[], false)
        .map_err(|e| e.message)?;
    let session = EvalSession::new(
        tree.clone(),
        &opts,
        cache,
        Value::new_map(Default::default()),
    );
    let schema = library_schema(&session, LibraryCtx::ROOT, &[]).map_err(|e| e.message)?;
    let values = library_values(
        &session,
        LibraryCtx::ROOT,
        &overlays.root,
        &schema.schema,
        false,
    )
    .map_err(|e| e.message)?;
    Ok(print_docset(&DocSet {
        docs: vec![values.doc],
        ..DocSet::default()
    }))
}

#[test]
fn one_compiled_library_evaluates_on_many_threads() {
    let tree = library();
    let cache = CompileCache::new(yttcheck::ytt::stdlib());
    let results: Vec<(i64, Result<String, String>)> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..8)
            .map(|t| {
                let (tree, cache) = (&tree, &cache);
                s.spawn(move || {
                    (0..25)
                        .map(|i| {
                            let replicas = (t * 100 + i) as i64 - 3;
                            (replicas, values_for(tree, cache, replicas))
                        })
                        .collect::<Vec<_>>()
                })
            })
            .flat_map(|h| h.join().expect("thread"))
            .collect::<Vec<_>>();
        handles
    });
    assert_eq!(results.len(), 200);
    for (replicas, result) in results {
        if replicas < 1 {
            let err = result.expect_err("replicas below 1 fails validation");
            assert!(err.contains("must be: a value >= 1"), "{err}");
        } else {
            assert_eq!(
                result.expect("valid"),
                format!("replicas: {replicas}\nlimit: 42\nname: app-10\n")
            );
        }
    }
}

#[test]
fn compiled_engine_types_are_shareable() {
    fn shareable<T: Send + Sync>() {}
    shareable::<CompileCache>();
    shareable::<LibraryTree>();
}
