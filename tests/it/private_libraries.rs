//! Private libraries evaluated on their own, with the values and schemas the
//! root library addresses to them (`#@library/ref`, `@lib:` flags), the way
//! `library.get(...).data_values()` computes them in ytt.

use std::path::Path;
use std::sync::Arc;

use yttcheck::files::{LibraryCtx, LibraryTree};
use yttcheck::source::worktree::WorkTree;
use yttcheck::source::{collect_inputs, Stdin};
use yttcheck::template::{CompileCache, EvalOpts, EvalSession};
use yttcheck::values::{
    library_schema, library_values, private_libraries, private_library_values, DataValuesFlags,
    LibRef, ParentEnvelopes,
};
use yttcheck::yaml::print::print_docset;
use yttcheck::yaml::{DocSet, Document, Value};

use super::common::write;

/// A private library by its path, without an alias.
fn named(path: &str) -> LibRef {
    LibRef {
        path: path.to_string(),
        alias: String::new(),
    }
}

fn print(doc: &Document) -> String {
    print_docset(&DocSet {
        docs: vec![doc.clone()],
        ..DocSet::default()
    })
}

/// A root library that configures a private library `web`, which has its own
/// private library `db`.
fn repository() -> tempfile::TempDir {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    write(
        p,
        "config/values.yml",
        r#"#@data/values
---
env: staging

#@library/ref "@web"
#@data/values
---
replicas: 2
region: eu

#@library/ref "@web"
#@data/values after_library_module=True
---
region: us

#@library/ref "@web@db"
#@data/values
---
size: large
"#,
    );
    write(
        p,
        "config/schema.yml",
        "#@library/ref \"@web\"\n#@data/values-schema\n---\n#@overlay/match missing_ok=True\ntier: gold\n",
    );
    write(
        p,
        "config/_ytt_lib/web/schema.yml",
        "#@data/values-schema\n---\n#@schema/validation min=1, max=10\nreplicas: 1\nregion: \"\"\nowner: web-team\n",
    );
    write(
        p,
        "config/_ytt_lib/web/values.yml",
        "#@data/values\n---\nregion: ap\nowner: platform\n",
    );
    write(
        p,
        "config/_ytt_lib/web/_ytt_lib/db/values.yml",
        "#@data/values\n---\nsize: small\nengine: postgres\n",
    );
    d
}

fn tree(dir: &Path) -> Arc<LibraryTree> {
    let files = collect_inputs(
        &WorkTree::new(dir),
        &["config".to_string()],
        &Stdin::default(),
        &[],
    )
    .expect("inputs");
    Arc::new(LibraryTree::new(files))
}

fn envelopes_for_libraries(
    session: &EvalSession,
    flags: &DataValuesFlags,
    dir: &Path,
) -> Result<ParentEnvelopes, String> {
    let overlays = flags
        .as_overlays(&WorkTree::new(dir), &Stdin::default(), &[], false)
        .map_err(|e| e.message)?;
    let schema = library_schema(session, LibraryCtx::ROOT, &[]).map_err(|e| e.message)?;
    let values = library_values(
        session,
        LibraryCtx::ROOT,
        &overlays.root,
        &schema.schema,
        false,
    )
    .map_err(|e| e.message)?;
    let mut for_libs = values.for_libraries.clone();
    for_libs.extend(overlays.libraries);
    Ok(ParentEnvelopes {
        values: for_libs,
        schemas: schema.for_libraries,
    })
}

#[test]
fn private_library_values_follow_library_refs_and_flags() {
    let d = repository();
    let tree = tree(d.path());
    let cache = CompileCache::new(yttcheck::ytt::stdlib());
    let opts = EvalOpts::default();
    let session = EvalSession::new(tree, &opts, &cache, Value::new_map(Default::default()));

    let names: Vec<String> = private_libraries(&session, LibraryCtx::ROOT)
        .into_iter()
        .map(|(n, _)| n)
        .collect();
    assert_eq!(names, vec!["web".to_string()]);

    let flags = DataValuesFlags {
        kvs_from_yaml: vec!["@web:replicas=4".to_string()],
        ..DataValuesFlags::default()
    };
    let from_root = envelopes_for_libraries(&session, &flags, d.path()).unwrap();
    let web = private_library_values(&session, LibraryCtx::ROOT, &named("web"), &from_root, false)
        .unwrap_or_else(|e| panic!("{}", e.message));
    // schema defaults, web's own values, then the root's (in file order, the
    // flag after the files), `after_library_module=True` last; the root's
    // schema document added `tier`.
    assert_eq!(
        print(&web.values.doc),
        "replicas: 4\nregion: us\nowner: platform\ntier: gold\n"
    );

    let from_web = ParentEnvelopes {
        values: web.values_for_libraries.clone(),
        schemas: web.schemas_for_libraries.clone(),
    };
    let db = private_library_values(&session, web.ctx, &named("db"), &from_web, false)
        .unwrap_or_else(|e| panic!("{}", e.message));
    assert_eq!(print(&db.values.doc), "size: large\nengine: postgres\n");
}

#[test]
fn private_library_validations_run_on_its_own_schema() {
    let d = repository();
    let tree = tree(d.path());
    let cache = CompileCache::new(yttcheck::ytt::stdlib());
    let opts = EvalOpts::default();
    let session = EvalSession::new(tree, &opts, &cache, Value::new_map(Default::default()));
    let flags = DataValuesFlags {
        kvs_from_yaml: vec!["@web:replicas=40".to_string()],
        ..DataValuesFlags::default()
    };
    let from_root = envelopes_for_libraries(&session, &flags, d.path()).unwrap();
    let err = private_library_values(&session, LibraryCtx::ROOT, &named("web"), &from_root, false)
        .err()
        .expect("replicas=40 breaks max=10");
    assert!(
        err.message
            .contains("must be: a value <= 10 (by: _ytt_lib/web/schema.yml:3)"),
        "{}",
        err.message
    );
    assert!(
        err.message.contains("from: (data-value-yaml arg):1"),
        "{}",
        err.message
    );

    // and a type error names the library's schema
    let flags = DataValuesFlags {
        kvs_from_strings: vec!["@web:replicas=four".to_string()],
        ..DataValuesFlags::default()
    };
    let from_root = envelopes_for_libraries(&session, &flags, d.path()).unwrap();
    let err = private_library_values(&session, LibraryCtx::ROOT, &named("web"), &from_root, false)
        .err()
        .expect("a string is not an integer");
    assert!(
        err.message
            .contains("= expected: integer (by _ytt_lib/web/schema.yml:4)"),
        "{}",
        err.message
    );
}

#[test]
fn unknown_private_library_is_an_error() {
    let d = repository();
    let tree = tree(d.path());
    let cache = CompileCache::new(yttcheck::ytt::stdlib());
    let opts = EvalOpts::default();
    let session = EvalSession::new(tree, &opts, &cache, Value::new_map(Default::default()));
    let err = private_library_values(
        &session,
        LibraryCtx::ROOT,
        &named("nope"),
        &ParentEnvelopes::default(),
        false,
    )
    .err()
    .expect("no such library");
    assert!(
        err.message.contains("Expected to find library 'nope'"),
        "{}",
        err.message
    );
}
