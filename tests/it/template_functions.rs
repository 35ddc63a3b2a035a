//! A template evaluated again is called as a compiled function rather than
//! evaluated as a module (`template::function`). Rendering a library for
//! many sets of data values through one compile cache (functions from the
//! second render on) must give, render for render, exactly what a fresh
//! cache gives (modules only): documents, and errors with their messages
//! and positions, also when a function call fails and the module is
//! evaluated instead. The helpers file loads nothing, so it is evaluated
//! once for all renders (`template::cache::SharedModule`).

use std::sync::Arc;

use yttcheck::files::LibraryTree;
use yttcheck::render::Renderer;
use yttcheck::source::worktree::WorkTree;
use yttcheck::source::Stdin;
use yttcheck::template::{CompileCache, EvalOpts};
use yttcheck::values::flags::Overlays;
use yttcheck::values::DataValuesFlags;
use yttcheck::yaml::print::print_docset;

use super::common::input_file as file;

const HELPERS: &str = r#"
def double(n):
  return n * 2
end
suffix = "-svc"
def check(n):
  if n > 100:
    fail("too many replicas: " + str(n))
  end
  return n
end
def _private():
  return 1
end
"#;

const SCHEMA: &str = r#"#@data/values-schema
---
name: app
mode: ok
replicas: 1
ports:
- 80
#@schema/type any=True
labels: {}
"#;

/// Loads (one aliased), a top-level function reading a variable assigned
/// after it, a lambda, loops, conditions, `*` (which the limits replace),
/// a nested function, reassignment, and failures that depend on the values.
const DEPLOYMENT: &str = r#"#@ load("@ytt:data", "data")
#@ load("@ytt:yaml", "yaml")
#@ load("@ytt:struct", "struct")
#@ load("helpers.star", twice="double", "suffix", "check")
#@ def full_name():
#@   return data.values.name + tail
#@ end
#@ tail = suffix
#@ tail = tail + "-" + str(twice(data.values.replicas))
#@ scale = lambda n: n * 3
#@ def labels():
#@   def one(k, v):
#@     return {k: v}
#@   end
#@   out = {}
#@   for k in data.values.labels:
#@     out.update(one(k, data.values.labels[k]))
#@   end
#@   return out
#@ end
#@ if data.values.mode == "boom":
#@   fail("boom for " + data.values.name)
#@ end
---
kind: Deployment
metadata:
  name: #@ full_name()
  labels: #@ labels()
spec:
  replicas: #@ scale(check(data.values.replicas))
  template:
    spec:
      containers:
      #@ for p in data.values.ports:
      - name: #@ "port-" + str(p)
        port: #@ p
        #@ if p > 1000:
        high: true
        #@ else:
        high: false
        #@ end
      #@ end
---
kind: ConfigMap
data:
  #@ if data.values.mode == "attr":
  missing: #@ data.values.nothing_here
  #@ end
  config.yml: #@ yaml.encode(struct.encode(data.values))
  repeated: #@ "ab" * data.values.replicas
"#;

/// An overlay whose matcher is a lambda calling a function of its file.
const OVERLAY: &str = r#"#@ load("@ytt:overlay", "overlay")
#@ load("@ytt:data", "data")
#@ def is_config(i, l, r):
#@   return l["kind"] == "ConfigMap"
#@ end
#@overlay/match by=lambda i, l, r: is_config(i, l, r)
---
#@overlay/match missing_ok=True
metadata:
  #@overlay/match missing_ok=True
  name: #@ "config-" + data.values.name
"#;

/// Not turned into a function (a string spanning lines): still right.
const MULTILINE: &str = r#"#@ load("@ytt:data", "data")
#@ text = """line one
#@ line two"""
---
kind: Note
text: #@ text + " " + data.values.name
"#;

fn library() -> Arc<LibraryTree> {
    Arc::new(LibraryTree::new(vec![
        file(0, "helpers.star", HELPERS),
        file(1, "schema.yml", SCHEMA),
        file(2, "deployment.yml", DEPLOYMENT),
        file(3, "overlay.yml", OVERLAY),
        file(4, "note.yml", MULTILINE),
    ]))
}

/// The data values `flags` give (none of them reads a file).
fn overlays_of(flags: DataValuesFlags) -> Overlays {
    flags
        .as_overlays(
            &WorkTree::new(std::env::temp_dir()),
            &Stdin::default(),
            &[],
            false,
        )
        .expect("the values parse")
}

fn render(
    tree: &Arc<LibraryTree>,
    cache: Arc<CompileCache>,
    values: &[&str],
    repeatedly: bool,
) -> String {
    let flags = DataValuesFlags {
        kvs_from_yaml: values.iter().map(|v| v.to_string()).collect(),
        ..DataValuesFlags::default()
    };
    let overlays = overlays_of(flags);
    let mut renderer = Renderer::new(tree.clone(), cache, false);
    if repeatedly {
        renderer = renderer.repeatedly();
    }
    match renderer.render_root(&EvalOpts::default(), &overlays) {
        Ok(r) => print_docset(&r.docs),
        Err(e) => format!("error: {}", e.message()),
    }
}

#[test]
fn a_template_called_as_a_function_renders_as_the_module_does() {
    let sets: Vec<Vec<&str>> = vec![
        vec![
            "name=web",
            "ports=[80, 8080]",
            "labels={team: a, tier: web}",
        ],
        vec!["name=api", "replicas=3", "ports=[443]"],
        vec!["name=bad", "mode=boom"],
        vec!["name=attr", "mode=attr", "replicas=2"],
        vec!["name=web2", "ports=[]", "labels={x: y}"],
        vec!["name=bad2", "mode=boom", "replicas=4"],
        vec!["name=web3", "replicas=5", "ports=[1, 2000, 3]"],
        vec!["name=many", "replicas=200"],
    ];
    let tree = library();
    let shared = Arc::new(CompileCache::new(yttcheck::ytt::stdlib()));
    // functions from the first render (as `check` renders), through a cache
    // of its own
    let at_once = Arc::new(CompileCache::new(yttcheck::ytt::stdlib()));
    for (i, set) in sets.iter().enumerate() {
        let fresh = Arc::new(CompileCache::new(yttcheck::ytt::stdlib()));
        let as_module = render(&tree, fresh, set, false);
        let reused = render(&tree, shared.clone(), set, false);
        assert_eq!(reused, as_module, "render {i} ({set:?}) differs");
        let called = render(&tree, at_once.clone(), set, true);
        assert_eq!(called, as_module, "render {i} ({set:?}) differs");
    }
    // the failures fail, the others render
    let outputs: Vec<String> = sets
        .iter()
        .map(|s| render(&tree, shared.clone(), s, false))
        .collect();
    assert!(outputs[2].contains("boom for bad"), "{}", outputs[2]);
    assert!(outputs[3].starts_with("error:"), "{}", outputs[3]);
    assert!(outputs[0].contains("name: web-svc-2"), "{}", outputs[0]);
    assert!(outputs[0].contains("name: config-web"), "{}", outputs[0]);
    assert!(
        outputs[6].contains("repeated: ababababab"),
        "{}",
        outputs[6]
    );
    // the templates without a multi-line string were turned (the schema,
    // the deployment and the overlay file); the note was not
    assert_eq!(shared.template_functions(), 3);
    assert_eq!(at_once.template_functions(), 3);
}

/// A template that runs out of its step budget as a function gives the
/// module's error (same line), without being run again as a module.
#[test]
fn a_runaway_template_called_as_a_function_stops_at_the_same_line() {
    let tree = Arc::new(LibraryTree::new(vec![file(
        0,
        "loop.yml",
        "#@ load(\"@ytt:data\", \"data\")\n#@ x = 0\n#@ for i in range(100000000):\n#@   x = x + i\n#@ end\n---\ntotal: #@ x\n",
    )]));
    let opts = EvalOpts {
        max_steps: 100_000,
        ..EvalOpts::default()
    };
    let overlays = overlays_of(DataValuesFlags::default());
    let message = |renderer: Renderer| match renderer.render_root(&opts, &overlays) {
        Ok(_) => panic!("the loop runs out of steps"),
        Err(e) => e.message().to_string(),
    };
    let fresh = || Arc::new(CompileCache::new(yttcheck::ytt::stdlib()));
    let as_module = message(Renderer::new(tree.clone(), fresh(), false));
    let cache = fresh();
    let called = message(Renderer::new(tree.clone(), cache.clone(), false).repeatedly());
    assert_eq!(called, as_module);
    assert!(as_module.contains("loop.yml:4"), "{as_module}");
    assert_eq!(cache.template_functions(), 1);
}

/// `@ytt:url` and `@ytt:ip` values: their attributes, zero-argument
/// methods, names and `dir()` (each module gives its own through
/// `ytt::object::ObjectValue`).
#[test]
fn url_and_ip_values_answer_their_attributes_and_methods() {
    let d = tempfile::tempdir().unwrap();
    super::common::write(
        d.path(),
        "t.yml",
        r#"#@ load("@ytt:url", "url")
#@ load("@ytt:ip", "ip")
#@ u = url.parse("https://user:p%40ss@example.com:8443/path?q=1")
#@ c = ip.parse_cidr("10.1.2.3/8")
s: #@ u.string()
h: #@ u.hostname()
w: #@ u.without_user().string()
un: #@ u.user.name
up: #@ u.user.password
nouser: #@ url.parse("http://x").user
a4: #@ ip.parse_addr("10.1.2.3").is_ipv4()
a6: #@ ip.parse_addr("::1").is_ipv6()
c0: #@ c[0].string()
c1: #@ c[1].string()
c1a: #@ c[1].addr().string()
d: #@ dir(u)
r: #@ str(c[1])
m: #@ str(u.string)
"#,
    );
    let (code, out, err) = super::common::run(d.path(), &["render", "-f", "t.yml"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        out,
        "s: https://user:p%40ss@example.com:8443/path?q=1\nh: example.com\nw: https://example.com:8443/path?q=1\nun: user\nup: p@ss\nnouser: null\na4: true\na6: true\nc0: 10.1.2.3\nc1: 10.0.0.0/8\nc1a: 10.0.0.0\nd:\n- hostname\n- string\n- user\n- without_user\nr: '@ytt:ip.net(...)'\nm: <built-in method string>\n"
    );
    super::common::write(
        d.path(),
        "e.yml",
        "#@ load(\"@ytt:url\", \"url\")\nx: #@ url.parse(\"http://x\").string(1)\n",
    );
    let (code, _, err) = super::common::run(d.path(), &["render", "-f", "e.yml"]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("string: expected no argument"), "{err}");
}
