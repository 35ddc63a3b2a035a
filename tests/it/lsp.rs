//! `yttcheck lsp` with a real LSP client: the pytest-lsp suite in
//! `tests/lsp/` (pytest-lsp and lsprotocol from PyPI, installed by `.ci/run`
//! in target/tools/venv) drives the built binary over stdio.

use std::path::{Path, PathBuf};
use std::process::Command;

use super::common::tool;

#[test]
fn a_real_lsp_client_sees_findings_as_you_type() {
    let Some(pytest) = tool("pytest") else { return };
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = Command::new(pytest)
        .current_dir(root)
        .args([
            "-q",
            "-p",
            "no:cacheprovider",
            "-o",
            "asyncio_default_fixture_loop_scope=function",
            "tests/lsp/test_lsp.py",
        ])
        .env("YTTCHECK_BIN", env!("CARGO_BIN_EXE_yttcheck"))
        .output()
        .expect("run pytest");
    let report = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "{report}");
    // every test ran (none skipped or deselected)
    assert!(report.contains("12 passed"), "{report}");
}

/// Neovim's built-in client (Debian's `neovim`, headless) sees the same:
/// diagnostics of an opened values file, cleared by an unsaved edit (the
/// file on disk untouched), and every environment's value on hover.
#[test]
fn neovim_sees_diagnostics_and_hovers() {
    let Some(nvim) = tool("nvim") else { return };
    let d = tempfile::tempdir().unwrap();
    let repo = d.path().join("repo");
    let w = |p: &str, t: &str| super::common::write(&repo, p, t);
    w(
        "libs/web/schema.yml",
        "#@data/values-schema\n---\n#@schema/validation min=1\nreplicas: 1\n",
    );
    w(
        "libs/web/deploy.yml",
        "#@ load(\"@ytt:data\", \"data\")\n---\nreplicas: #@ data.values.replicas\n",
    );
    w("envs/dev/web.yml", "replicas: 2\n");
    w("envs/prod/web.yml", "replicas: 0\n");
    super::common::git(&repo, &["init", "-q"]);
    let out = d.path().join("seen.txt");
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let status = Command::new(nvim)
        .current_dir(root)
        .args([
            "--headless",
            "-u",
            "NONE",
            "-c",
            "luafile tests/lsp/nvim.lua",
        ])
        .env("YTTCHECK_BIN", env!("CARGO_BIN_EXE_yttcheck"))
        .env("REPO", &repo)
        .env("OUT", &out)
        .stdin(std::process::Stdio::null())
        .output()
        .expect("run nvim");
    let seen = std::fs::read_to_string(&out).unwrap_or_else(|e| {
        panic!(
            "{e}: nvim wrote nothing ({status:?}): {}",
            String::from_utf8_lossy(&status.stderr)
        )
    });
    for fact in [
        "diagnostic validation/min line 0 severity 1",
        "cleared after edit",
        "on disk: replicas: 0",
        "hover | `web@dev` | `2` | `envs/dev/web.yml:1` |",
        "hover | `web@prod` | `3` | `envs/prod/web.yml:1` |",
    ] {
        assert!(seen.lines().any(|l| l == fact), "{fact:?} not in:\n{seen}");
    }
}

/// The editors' set-ups are real code: VS Code's extension parses as
/// JavaScript and names the server and the files it serves; Zed's extension
/// compiles (its own workspace, its own target folder).
#[test]
fn the_editor_extensions_are_well_formed() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let vscode = root.join("editors/vscode");
    let manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(vscode.join("package.json")).unwrap())
            .unwrap();
    let main = manifest["main"].as_str().unwrap();
    let js = std::fs::read_to_string(vscode.join(main)).unwrap();
    assert!(js.contains("args: [\"lsp\"]"), "{js}");
    assert!(manifest["dependencies"]["vscode-languageclient"].is_string());
    match Command::new("node")
        .arg("--check")
        .arg(vscode.join(main))
        .output()
    {
        Ok(out) => assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        ),
        Err(e) => {
            assert!(std::env::var_os("CI").is_none(), "node: {e}, and CI is set");
            super::common::skip("editors/vscode: node is not installed");
        }
    }
    let out = Command::new(env!("CARGO"))
        .args(["check", "--quiet", "--manifest-path"])
        .arg(root.join("editors/zed/Cargo.toml"))
        .env("CARGO_TARGET_DIR", root.join("target/editors-zed"))
        .output()
        .expect("run cargo");
    assert!(
        out.status.success(),
        "editors/zed does not compile: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A plain LSP client over the server's stdio, for what a hostile
/// repository or a broken client does to the server: it reads the frames
/// itself (an answer to input that is no message has `id: null`, which no
/// typed client reads), and writes raw bytes when asked.
mod client {
    use std::collections::HashMap;
    use std::io::{BufRead, BufReader, Read, Write};
    use std::path::{Path, PathBuf};
    use std::process::{Child, ChildStdin, Command, Stdio};
    use std::sync::mpsc::{channel, Receiver};
    use std::time::{Duration, Instant};

    use serde_json::{json, Value};

    /// The server binary: this build's, or `YTTCHECK_LSP_BIN` (to run these
    /// tests against another build: a release, or one without a fix).
    fn binary() -> PathBuf {
        std::env::var_os("YTTCHECK_LSP_BIN")
            .map(PathBuf::from)
            .unwrap_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_yttcheck")))
    }

    pub fn uri(path: &Path) -> String {
        format!("file://{}", path.display())
    }

    pub struct Client {
        pub child: Child,
        stdin: Option<ChildStdin>,
        incoming: Receiver<Value>,
        /// Every message read, in order.
        pub seen: Vec<Value>,
        /// The last diagnostics published for each URI.
        pub diagnostics: HashMap<String, Vec<Value>>,
        next_id: i64,
        stderr: PathBuf,
    }

    /// Reads frames (`Content-Length` headers, a JSON body) until the end.
    fn read_frames(out: impl Read, to: std::sync::mpsc::Sender<Value>) {
        let mut out = BufReader::new(out);
        loop {
            let mut length = None;
            loop {
                let mut line = String::new();
                if out.read_line(&mut line).unwrap_or(0) == 0 {
                    return;
                }
                let line = line.trim_end();
                if line.is_empty() {
                    break;
                }
                if let Some(v) = line.strip_prefix("Content-Length: ") {
                    length = v.parse::<usize>().ok();
                }
            }
            let mut body = vec![0; length.expect("a Content-Length")];
            if out.read_exact(&mut body).is_err() {
                return;
            }
            let v: Value = serde_json::from_slice(&body).expect("a JSON body");
            if to.send(v).is_err() {
                return;
            }
        }
    }

    impl Client {
        /// Starts `yttcheck lsp` on the workspace folder `root` (a client
        /// that cannot watch files) and initializes it with `options`.
        pub fn start(root: &Path, options: Value, env: &[(&str, &str)]) -> Client {
            let stderr = root.with_extension("stderr");
            let home = root.with_extension("home");
            std::fs::create_dir_all(&home).unwrap();
            let mut cmd = Command::new(binary());
            cmd.arg("lsp")
                .current_dir(root)
                .env("HOME", &home)
                .env("XDG_CACHE_HOME", home.join("cache"))
                .env_remove("CI")
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .stderr(std::fs::File::create(&stderr).unwrap());
            for (k, v) in env {
                cmd.env(k, v);
            }
            let mut child = cmd.spawn().expect("start yttcheck lsp");
            let stdout = child.stdout.take().unwrap();
            let (to, incoming) = channel();
            std::thread::spawn(move || read_frames(stdout, to));
            let mut c = Client {
                stdin: child.stdin.take(),
                child,
                incoming,
                seen: Vec::new(),
                diagnostics: HashMap::new(),
                next_id: 0,
                stderr,
            };
            let answer = c.request(
                "initialize",
                json!({
                    "processId": null,
                    "rootUri": uri(root),
                    "capabilities": {},
                    "workspaceFolders": [{"uri": uri(root), "name": "repo"}],
                    "initializationOptions": options,
                }),
            );
            assert_eq!(
                answer["result"]["serverInfo"]["name"], "yttcheck",
                "{answer}"
            );
            c.notify("initialized", json!({}));
            c
        }

        /// What the server wrote to stderr so far.
        pub fn stderr(&self) -> String {
            std::fs::read_to_string(&self.stderr).unwrap_or_default()
        }

        pub fn raw(&mut self, bytes: &[u8]) {
            let stdin = self.stdin.as_mut().expect("stdin open");
            stdin.write_all(bytes).unwrap();
            stdin.flush().unwrap();
        }

        /// Closes the server's stdin (its input ends).
        pub fn close(&mut self) {
            self.stdin = None;
        }

        fn send(&mut self, v: &Value) {
            let body = serde_json::to_vec(v).unwrap();
            let mut bytes = format!("Content-Length: {}\r\n\r\n", body.len()).into_bytes();
            bytes.extend(body);
            self.raw(&bytes);
        }

        pub fn notify(&mut self, method: &str, params: Value) {
            self.send(&json!({"jsonrpc": "2.0", "method": method, "params": params}));
        }

        /// Sends a request, without waiting: its id.
        pub fn ask(&mut self, method: &str, params: Value) -> i64 {
            self.next_id += 1;
            let id = self.next_id;
            self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
            id
        }

        /// A request's response (within a minute).
        pub fn request(&mut self, method: &str, params: Value) -> Value {
            let id = self.ask(method, params);
            self.wait(Duration::from_secs(60), |m| {
                m["id"] == id && m.get("method").is_none()
            })
            .unwrap_or_else(|| panic!("no answer to {method} in a minute: {:?}", self.seen))
        }

        /// A request's response and how long it took.
        pub fn timed(&mut self, method: &str, params: Value) -> (Value, Duration) {
            let t = Instant::now();
            let answer = self.request(method, params);
            (answer, t.elapsed())
        }

        /// Reads messages until one satisfies `want` (looked for among those
        /// read before too), for at most `timeout`.
        pub fn wait(&mut self, timeout: Duration, want: impl Fn(&Value) -> bool) -> Option<Value> {
            if let Some(m) = self.seen.iter().find(|m| want(m)) {
                return Some(m.clone());
            }
            let deadline = Instant::now() + timeout;
            loop {
                let left = deadline.checked_duration_since(Instant::now())?;
                let m = self.read_one(left)?;
                if want(&m) {
                    return Some(m);
                }
            }
        }

        /// The next message (within `timeout`), recorded.
        fn read_one(&mut self, timeout: Duration) -> Option<Value> {
            let m = self.incoming.recv_timeout(timeout).ok()?;
            if m["method"] == "textDocument/publishDiagnostics" {
                let p = &m["params"];
                self.diagnostics.insert(
                    p["uri"].as_str().unwrap_or_default().to_string(),
                    p["diagnostics"].as_array().cloned().unwrap_or_default(),
                );
            }
            self.seen.push(m.clone());
            Some(m)
        }

        /// Waits until the diagnostics of `path` hold one of rule `code`;
        /// how long that took.
        pub fn wait_code(&mut self, path: &Path, code: &str, timeout: Duration) -> Duration {
            let t = Instant::now();
            let uri = uri(path);
            let has = |d: &HashMap<String, Vec<Value>>| {
                d.get(&uri)
                    .is_some_and(|l| l.iter().any(|x| x["code"] == code))
            };
            while !has(&self.diagnostics) {
                let left = timeout.checked_sub(t.elapsed()).unwrap_or_else(|| {
                    panic!(
                        "no {code} diagnostic of {uri} in {timeout:?}: {:#?}\n{}",
                        self.diagnostics,
                        self.stderr()
                    )
                });
                self.read_one(left);
            }
            t.elapsed()
        }

        /// Whether the server ends within `timeout`.
        pub fn ends_within(&mut self, timeout: Duration) -> bool {
            let deadline = Instant::now() + timeout;
            while Instant::now() < deadline {
                if let Ok(Some(_)) = self.child.try_wait() {
                    return true;
                }
                std::thread::sleep(Duration::from_millis(50));
            }
            false
        }
    }

    impl Drop for Client {
        fn drop(&mut self) {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

use std::time::Duration;

use serde_json::json;

use client::{uri, Client};

fn position(path: &Path, line: u32, character: u32) -> serde_json::Value {
    json!({"textDocument": {"uri": uri(path)}, "position": {"line": line, "character": character}})
}

fn open(c: &mut Client, path: &Path, text: &str) {
    c.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": uri(path), "languageId": "yaml", "version": 1, "text": text}}),
    );
}

fn change(c: &mut Client, path: &Path, version: i32, text: &str) {
    c.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri(path), "version": version}, "contentChanges": [{"text": text}]}),
    );
}

/// A repository with a template that loops for as long as its budget lets
/// it (the repository sets 3 s), in a library (`web`) beside one that
/// checks at once (`api`); the server started on it, its first check done.
fn looping_repository(d: &Path) -> (PathBuf, Client) {
    let repo = d.join("repo");
    let w = |p: &str, t: &str| super::common::write(&repo, p, t);
    w(
        ".yttcheck.yml",
        "budget:\n  timeout_seconds: 3\n  max_steps: 1000000000000\n",
    );
    w(
        "libs/web/schema.yml",
        "#@data/values-schema\n---\nreplicas: 1\n",
    );
    w(
        "libs/web/deploy.yml",
        "#@ load(\"@ytt:data\", \"data\")\n#@ def spin():\n#@   n = 0\n#@   for i in range(1000000):\n#@     for j in range(1000000):\n#@       n += 1\n#@     end\n#@   end\n#@   return n\n#@ end\n---\nreplicas: #@ data.values.replicas + spin()\n",
    );
    w(
        "libs/api/schema.yml",
        "#@data/values-schema\n---\n#@schema/validation min=1\nreplicas: 1\n",
    );
    w(
        "libs/api/deploy.yml",
        "#@ load(\"@ytt:data\", \"data\")\n---\nreplicas: #@ data.values.replicas\n",
    );
    w("envs/dev/web.yml", "replicas: 2\n");
    w("envs/dev/api.yml", "replicas: 2\n");
    super::common::git(&repo, &["init", "-q"]);
    let mut c = Client::start(&repo, json!({}), &[]);
    c.wait_code(
        &repo.join("libs/web/deploy.yml"),
        "template/budget",
        Duration::from_secs(60),
    );
    (repo, c)
}

/// After an edit that the looping template reads, hover, completion and
/// symbols answer at once while the loop is evaluated again: the check
/// runs off the loop that answers them.
#[test]
fn a_looping_template_does_not_hold_up_requests() {
    let d = tempfile::tempdir().unwrap();
    let (repo, mut c) = looping_repository(d.path());
    let web = repo.join("envs/dev/web.yml");
    let api = repo.join("envs/dev/api.yml");
    open(&mut c, &web, "replicas: 2\n");
    change(&mut c, &web, 2, "replicas: 3\n");
    // (the check has begun)
    std::thread::sleep(Duration::from_millis(300));
    let (hover, took_hover) = c.timed("textDocument/hover", position(&api, 0, 2));
    let (completion, took_completion) = c.timed("textDocument/completion", position(&api, 1, 0));
    let (symbols, took_symbols) = c.timed(
        "textDocument/documentSymbol",
        json!({"textDocument": {"uri": uri(&web)}}),
    );
    for (what, took) in [
        ("hover", took_hover),
        ("completion", took_completion),
        ("symbols", took_symbols),
    ] {
        assert!(
            took < Duration::from_millis(1500),
            "{what} took {took:?} while the loop was checked"
        );
    }
    assert!(
        hover["result"]["contents"]["value"]
            .as_str()
            .is_some_and(|v| v.contains("api@dev")),
        "{hover}"
    );
    assert!(completion["result"].is_array(), "{completion}");
    assert_eq!(symbols["result"][0]["name"], "replicas", "{symbols}");
}

/// An edit of the other library is checked without evaluating the loop
/// again: its budget failure is kept while nothing it reads changes.
#[test]
fn a_budget_failure_is_kept_until_its_inputs_change() {
    let d = tempfile::tempdir().unwrap();
    let (repo, mut c) = looping_repository(d.path());
    let api = repo.join("envs/dev/api.yml");
    open(&mut c, &api, "replicas: 2\n");
    change(&mut c, &api, 2, "replicas: 0\n");
    let took = c.wait_code(&api, "validation/min", Duration::from_secs(60));
    assert!(
        took < Duration::from_millis(2500),
        "the edit's check took {took:?}: the looping pair was evaluated again"
    );
    // the budget failure is still published
    assert!(c.diagnostics[&uri(&repo.join("libs/web/deploy.yml"))]
        .iter()
        .any(|x| x["code"] == "template/budget"));
}

/// A repository's `.yttcheck.yml` names a schema location on the network:
/// the server fetches nothing until the user trusts the workspace
/// (`trustWorkspace`), then does. The fetch goes through a proxy on
/// loopback (the runner's environment names it), which counts connections.
#[test]
fn an_untrusted_workspace_fetches_no_schema() {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let proxy = format!("http://{}", listener.local_addr().unwrap());
    let connections = Arc::new(AtomicUsize::new(0));
    let counted = connections.clone();
    std::thread::spawn(move || {
        for s in listener.incoming() {
            counted.fetch_add(1, Ordering::SeqCst);
            drop(s);
        }
    });
    let d = tempfile::tempdir().unwrap();
    let repo = d.path().join("repo");
    let w = |p: &str, t: &str| super::common::write(&repo, p, t);
    w(
        ".yttcheck.yml",
        "kubernetes:\n  schema_locations: [\"https://schemas.yttcheck-test.com/{{ .NormalizedKubernetesVersion }}/{{ .ResourceKind }}.json\"]\n",
    );
    w(
        "libs/web/schema.yml",
        "#@data/values-schema\n---\nreplicas: 1\n",
    );
    w(
        "libs/web/deploy.yml",
        "#@ load(\"@ytt:data\", \"data\")\n---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: #@ data.values.replicas\n",
    );
    w("envs/dev/web.yml", "replicas: 2\n");
    super::common::git(&repo, &["init", "-q"]);
    let env = [
        ("HTTPS_PROXY", proxy.as_str()),
        ("https_proxy", proxy.as_str()),
        ("ALL_PROXY", proxy.as_str()),
        ("NO_PROXY", ""),
        ("no_proxy", ""),
    ];
    let mut c = Client::start(&repo, json!({"trustWorkspace": false}), &env);
    let deploy = repo.join("libs/web/deploy.yml");
    c.wait_code(
        &deploy,
        "kubernetes/schema-unavailable",
        Duration::from_secs(60),
    );
    // an edit, and its check, fetch nothing either
    open(&mut c, &repo.join("envs/dev/web.yml"), "replicas: 2\n");
    change(&mut c, &repo.join("envs/dev/web.yml"), 2, "replicas: 3\n");
    std::thread::sleep(Duration::from_millis(1500));
    c.request(
        "textDocument/documentSymbol",
        json!({"textDocument": {"uri": uri(&deploy)}}),
    );
    assert_eq!(
        connections.load(Ordering::SeqCst),
        0,
        "an untrusted workspace's schema location was fetched"
    );
    // trusted: fetched (so the count above could have seen a fetch)
    c.notify(
        "workspace/didChangeConfiguration",
        json!({"settings": {"yttcheck": {"trustWorkspace": true}}}),
    );
    let t = std::time::Instant::now();
    while connections.load(Ordering::SeqCst) == 0 && t.elapsed() < Duration::from_secs(60) {
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(
        connections.load(Ordering::SeqCst) > 0,
        "a trusted workspace's schema location was never fetched: {}",
        c.stderr()
    );
}

/// A value written to show a link, an image, a code span's end and a table
/// cell's end shows as the value, in its cell.
#[test]
fn hover_shows_a_value_as_it_is_in_its_cell() {
    let d = tempfile::tempdir().unwrap();
    let repo = d.path().join("repo");
    let w = |p: &str, t: &str| super::common::write(&repo, p, t);
    w(
        "libs/web/schema.yml",
        "#@data/values-schema\n---\nnote: \"\"\n",
    );
    w(
        "libs/web/deploy.yml",
        "#@ load(\"@ytt:data\", \"data\")\n---\nnote: #@ data.values.note\n",
    );
    let value = "a `` b | c [x](http://e) ![i](http://e)";
    w("envs/dev/web.yml", &format!("note: \"{value}\"\n"));
    super::common::git(&repo, &["init", "-q"]);
    let mut c = Client::start(&repo, json!({}), &[]);
    let hover = c.request(
        "textDocument/hover",
        position(&repo.join("envs/dev/web.yml"), 0, 1),
    );
    let markdown = hover["result"]["contents"]["value"]
        .as_str()
        .unwrap_or_else(|| panic!("{hover}"));
    let row = markdown
        .lines()
        .find(|l| l.contains("web@dev"))
        .unwrap_or_else(|| panic!("{markdown}"));
    // the row's cells, split at the pipes that are not escaped
    let mut cells = vec![String::new()];
    let mut escaped = false;
    for ch in row.chars() {
        if ch == '|' && !escaped {
            cells.push(String::new());
        } else {
            cells.last_mut().unwrap().push(ch);
        }
        escaped = ch == '\\' && !escaped;
    }
    assert_eq!(cells.len(), 5, "three cells: {row}");
    // the value's cell is one code span, which no run of backticks inside
    // it closes early (inside one, nothing is a link or an image)
    let cell = cells[2].trim();
    let fence: String = cell.chars().take_while(|&ch| ch == '`').collect();
    assert!(!fence.is_empty() && cell.ends_with(&fence), "{row}");
    let inside = &cell[fence.len()..cell.len() - fence.len()];
    assert!(
        !inside
            .split(|ch| ch != '`')
            .any(|run| run.len() == fence.len()),
        "the code span ends early: {row}"
    );
    assert!(
        inside.replace("\\|", "|").contains(value),
        "the value, as it is: {row}"
    );
}

/// A misspelt key's fix-it edits the key exactly as it is written (an
/// escape and all, never the same text elsewhere on the line); a suggestion
/// that is no plain word is quoted.
#[test]
fn a_key_fix_edits_only_the_key_and_quotes_the_new_one() {
    let d = tempfile::tempdir().unwrap();
    let repo = d.path().join("repo");
    let w = |p: &str, t: &str| super::common::write(&repo, p, t);
    w(
        "libs/one/schema.yml",
        "#@data/values-schema\n---\nabd: 0\nother: \"\"\n",
    );
    w(
        "libs/one/deploy.yml",
        "#@ load(\"@ytt:data\", \"data\")\n---\na: #@ data.values.abd\nb: #@ data.values.other\n",
    );
    w(
        "libs/two/schema.yml",
        "#@data/values-schema\n---\n\"ab\\ncd\": 0\n",
    );
    w(
        "libs/two/deploy.yml",
        "#@ load(\"@ytt:data\", \"data\")\n---\na: #@ data.values[\"ab\\ncd\"]\n",
    );
    // the key `abc`, written with an escape, and the text `abc` after it
    w("envs/dev/one.yml", "{\"a\\u0062c\": 1, other: abc}\n");
    w("envs/dev/two.yml", "abccd: 1\n");
    super::common::git(&repo, &["init", "-q"]);
    let mut c = Client::start(&repo, json!({}), &[]);
    // (file, new text, the key's columns as written)
    for (file, new, columns) in [
        // the key as written, escape and all, and not the value `abc`
        ("envs/dev/one.yml", "abd", (1, 11)),
        ("envs/dev/two.yml", "\"ab\\ncd\"", (0, 5)),
    ] {
        let path = repo.join(file);
        c.wait_code(&path, "schema/undeclared-key", Duration::from_secs(60));
        let diagnostic = c.diagnostics[&uri(&path)]
            .iter()
            .find(|x| x["code"] == "schema/undeclared-key")
            .unwrap()
            .clone();
        let actions = c.request(
            "textDocument/codeAction",
            json!({
                "textDocument": {"uri": uri(&path)},
                "range": diagnostic["range"],
                "context": {"diagnostics": [diagnostic]},
            }),
        );
        let edits: Vec<&serde_json::Value> = actions["result"]
            .as_array()
            .unwrap_or_else(|| panic!("{actions}"))
            .iter()
            .filter(|a| !a["title"].as_str().unwrap_or("").starts_with("Ignore"))
            .flat_map(|a| a["edit"]["changes"][uri(&path)].as_array().unwrap().iter())
            .collect();
        assert_eq!(edits.len(), 1, "{file}: {actions}");
        assert_eq!(edits[0]["newText"], new, "{file}");
        assert_eq!(edits[0]["range"]["start"]["character"], columns.0, "{file}");
        assert_eq!(edits[0]["range"]["end"]["character"], columns.1, "{file}");
    }
}

/// Completion (and hover) anywhere in a line of characters wider than a
/// byte, or of surrogate pairs, answers without a panic.
#[test]
fn completion_in_wide_characters_does_not_panic() {
    let d = tempfile::tempdir().unwrap();
    let repo = d.path().join("repo");
    let w = |p: &str, t: &str| super::common::write(&repo, p, t);
    w(
        "libs/web/schema.yml",
        "#@data/values-schema\n---\nname: \"\"\n",
    );
    w("envs/dev/web.yml", "name: x\n");
    super::common::git(&repo, &["init", "-q"]);
    let mut c = Client::start(&repo, json!({}), &[]);
    let schema = repo.join("libs/web/schema.yml");
    let line = "#@schema/validation min_len=😀, é😀";
    open(
        &mut c,
        &schema,
        &format!("#@data/values-schema\n---\n{line}\nname: \"\"\n"),
    );
    let width = line.encode_utf16().count() as u32;
    for character in 0..=width + 1 {
        for method in ["textDocument/completion", "textDocument/hover"] {
            let answer = c.request(method, position(&schema, 2, character));
            assert!(answer.get("error").is_none(), "{answer}");
        }
    }
    let stderr = c.stderr();
    assert!(!stderr.contains("panicked"), "{stderr}");
}

/// Input that is no message (a body that is not JSON, headers without a
/// length) is answered with a parse error, and the server goes on.
#[test]
fn malformed_frames_are_answered_and_the_server_goes_on() {
    let d = tempfile::tempdir().unwrap();
    let repo = d.path().join("repo");
    super::common::write(&repo, "envs/dev/web.yml", "name: x\n");
    let mut c = Client::start(&repo, json!({}), &[]);
    c.raw(b"Content-Length: 7\r\n\r\ngarbage");
    c.raw(b"Content-Type: nothing\r\n\r\nmore garbage\r\n");
    let answer = c.request(
        "textDocument/documentSymbol",
        json!({"textDocument": {"uri": uri(&repo.join("envs/dev/web.yml"))}}),
    );
    assert_eq!(answer["result"][0]["name"], "name", "{answer}");
    // (answered before the request that came after)
    let errors: Vec<&serde_json::Value> = c
        .seen
        .iter()
        .filter(|m| m["error"]["code"] == -32700)
        .collect();
    assert_eq!(errors.len(), 2, "{:?}", c.seen);
    for e in errors {
        assert_eq!(e["id"], serde_json::Value::Null, "{e}");
    }
}

/// A frame that claims a terabyte is refused before anything is allocated
/// for it: the server answers, its memory stays small, and it ends when
/// its input does.
#[test]
fn a_huge_content_length_is_never_allocated() {
    let d = tempfile::tempdir().unwrap();
    let repo = d.path().join("repo");
    super::common::write(&repo, "envs/dev/web.yml", "name: x\n");
    let mut c = Client::start(&repo, json!({}), &[]);
    c.raw(b"Content-Length: 1099511627776\r\n\r\n{\"jsonrpc\":");
    let refused = c.wait(Duration::from_secs(30), |m| m["error"]["code"] == -32700);
    assert!(refused.is_some(), "no answer: {:?} {}", c.seen, c.stderr());
    // and the server reads on: the next message is answered (it was read
    // past for ever, as part of the terabyte)
    let symbols = c.request(
        "textDocument/documentSymbol",
        json!({"textDocument": {"uri": uri(&repo.join("envs/dev/web.yml"))}}),
    );
    assert!(symbols.get("error").is_none(), "{symbols}");
    let status = std::fs::read_to_string(format!("/proc/{}/status", c.child.id())).unwrap();
    let peak_kb: u64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap();
    assert!(peak_kb < 512 * 1024, "peak memory {peak_kb} kB");
    c.close();
    assert!(
        c.ends_within(Duration::from_secs(20)),
        "the server did not end"
    );
}

/// The server's own file watcher (a client that cannot watch) stays in the
/// workspace: a link to a big folder outside it adds no watch.
#[test]
fn the_file_watcher_does_not_follow_links_out_of_the_workspace() {
    let d = tempfile::tempdir().unwrap();
    let repo = d.path().join("repo");
    super::common::write(
        &repo,
        "libs/web/schema.yml",
        "#@data/values-schema\n---\nname: \"\"\n",
    );
    super::common::write(&repo, "envs/dev/web.yml", "name: x\n");
    std::os::unix::fs::symlink("/usr/share", repo.join("vendor")).unwrap();
    let mut c = Client::start(&repo, json!({}), &[]);
    c.request(
        "textDocument/documentSymbol",
        json!({"textDocument": {"uri": uri(&repo.join("envs/dev/web.yml"))}}),
    );
    // inotify's watches, as the kernel lists them for each of its fds
    let pid = c.child.id();
    let mut watches = 0;
    for fd in std::fs::read_dir(format!("/proc/{pid}/fdinfo"))
        .unwrap()
        .flatten()
    {
        let info = std::fs::read_to_string(fd.path()).unwrap_or_default();
        watches += info
            .lines()
            .filter(|l| l.starts_with("inotify wd:"))
            .count();
    }
    assert!(watches > 0, "the server watches the workspace");
    assert!(
        watches < 20,
        "{watches} inotify watches for a workspace of 6 folders"
    );
}

/// Hover on a key, in a values file and in the schema alike, lists each of
/// its validations as written and in words.
#[test]
fn hover_lists_each_validation_as_written_and_in_words() {
    let d = tempfile::tempdir().unwrap();
    let repo = d.path().join("repo");
    let w = |p: &str, t: &str| super::common::write(&repo, p, t);
    w(
        "libs/web/schema.yml",
        "#@data/values-schema\n---\n#@schema/validation min=1, max=20\nreplicas: 2\n#@schema/validation one_of=[\"debug\", \"info\"]\nlevel: info\n",
    );
    w(
        "libs/web/deploy.yml",
        "#@ load(\"@ytt:data\", \"data\")\n---\nreplicas: #@ data.values.replicas\nlevel: #@ data.values.level\n",
    );
    w("envs/dev/web.yml", "replicas: 3\nlevel: debug\n");
    super::common::git(&repo, &["init", "-q"]);
    let mut c = Client::start(&repo, json!({}), &[]);
    for (file, line) in [("envs/dev/web.yml", 0), ("libs/web/schema.yml", 3)] {
        let hover = c.request("textDocument/hover", position(&repo.join(file), line, 1));
        let markdown = hover["result"]["contents"]["value"]
            .as_str()
            .unwrap_or_else(|| panic!("{file}: {hover}"));
        assert!(markdown.contains("validations:"), "{file}: {markdown}");
        assert!(
            markdown.contains("- `min=1` a value \\>= 1"),
            "{file}: {markdown}"
        );
        assert!(
            markdown.contains("- `max=20` a value \\<= 20"),
            "{file}: {markdown}"
        );
    }
    let hover = c.request(
        "textDocument/hover",
        position(&repo.join("envs/dev/web.yml"), 1, 1),
    );
    let markdown = hover["result"]["contents"]["value"].as_str().unwrap();
    assert!(
        markdown.contains("`one_of=[\"debug\", \"info\"]` one of"),
        "{markdown}"
    );
}

/// The Neovim set-up docs/editors.md gives for Neovim 0.7 to 0.10, run as
/// written on the installed Neovim (Debian's is 0.7): a values file with a
/// bad value gets its diagnostic.
#[test]
fn the_documented_neovim_set_up_works_on_debians_neovim() {
    let Some(nvim) = super::common::tool("nvim") else {
        return;
    };
    let docs = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/editors.md"),
    )
    .unwrap();
    let block = docs
        .split("<!-- neovim-0.7 -->\n```lua\n")
        .nth(1)
        .and_then(|rest| rest.split("\n```").next())
        .expect("docs/editors.md holds the Neovim 0.7 set-up");
    let d = tempfile::tempdir().unwrap();
    let repo = d.path().join("repo");
    let w = |p: &str, t: &str| super::common::write(&repo, p, t);
    w(
        "libs/web/schema.yml",
        "#@data/values-schema\n---\n#@schema/validation min=1\nreplicas: 1\n",
    );
    w("envs/prod/web.yml", "replicas: 0\n");
    super::common::git(&repo, &["init", "-q"]);
    let setup = d.path().join("setup.lua");
    std::fs::write(&setup, block).unwrap();
    let out = d.path().join("out");
    let run = d.path().join("run.lua");
    std::fs::write(
        &run,
        "vim.cmd('filetype on')\ndofile(os.getenv('SETUP'))\nvim.cmd('edit envs/prod/web.yml')\nlocal buf = vim.api.nvim_get_current_buf()\nlocal ok = vim.wait(20000, function() return #vim.diagnostic.get(buf) > 0 end, 50)\nlocal f = io.open(os.getenv('OUT'), 'w')\nf:write(ok and ('diagnostics ' .. #vim.diagnostic.get(buf)) or 'none')\nf:close()\nvim.cmd('qa!')\n",
    )
    .unwrap();
    let bin_dir = std::path::Path::new(env!("CARGO_BIN_EXE_yttcheck"))
        .parent()
        .unwrap()
        .to_path_buf();
    let path = std::env::join_paths(std::iter::once(bin_dir).chain(std::env::split_paths(
        &std::env::var_os("PATH").unwrap_or_default(),
    )))
    .unwrap();
    let status = Command::new(nvim)
        .current_dir(&repo)
        .args(["--headless", "-u"])
        .arg(&run)
        .env("PATH", path)
        .env("SETUP", &setup)
        .env("OUT", &out)
        .env("HOME", d.path())
        .status()
        .unwrap();
    assert!(status.success());
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "diagnostics 1");
}
