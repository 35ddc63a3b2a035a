//! The daemon with real sockets and processes: its answers are the
//! in-process answers, it sees edits, survives bad requests and many
//! clients, replaces a stale socket, lets a client fall back when it dies,
//! refuses other users, writes nothing but its own folder, and serves one
//! repository each.

use std::io::{Read, Write};
use std::os::unix::fs::PermissionsExt;
use std::os::unix::net::UnixStream;
use std::path::Path;
use std::process::Command as Process;
use std::time::{Duration, Instant};

use super::common::{git, write, DaemonStopper};

struct Out {
    code: i32,
    stdout: String,
    stderr: String,
}

fn yttcheck(dir: &Path, args: &[&str]) -> Out {
    let out = Process::new(env!("CARGO_BIN_EXE_yttcheck"))
        .current_dir(dir)
        .args(args)
        .env_remove("CI")
        .env_remove("GIT_INDEX_FILE")
        .env_remove("GIT_DIR")
        .env_remove("NO_COLOR")
        .env_remove("MIMALLOC_PURGE_DELAY")
        .env_remove("MIMALLOC_RESET_DELAY")
        .output()
        .unwrap();
    Out {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into(),
        stderr: String::from_utf8_lossy(&out.stderr).into(),
    }
}

fn repository() -> tempfile::TempDir {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    git(p, &["init", "-q", "-b", "main"]);
    write(
        p,
        "libs/web/schema.yml",
        "#@data/values-schema\n---\n#@schema/validation min=1\nreplicas: 1\nname: web\n",
    );
    write(
        p,
        "libs/api/schema.yml",
        "#@data/values-schema\n---\n#@schema/validation min=1024\nport: 8080\n",
    );
    write(p, "envs/dev/web.yml", "replicas: 0\n");
    write(p, "envs/prod/web.yml", "replicas: 3\n");
    write(p, "envs/dev/api.yml", "port: 80\n");
    write(p, "envs/prod/api.yml", "port: 8443\n");
    git(p, &["add", "-A"]);
    git(p, &["commit", "-q", "-m", "initial"]);
    write(p, "envs/prod/api.yml", "port: 9443\n");
    git(p, &["commit", "-q", "-am", "prod port"]);
    d
}

fn status(dir: &Path) -> Option<serde_json::Value> {
    let out = yttcheck(dir, &["daemon", "status", "--json"]);
    let v: serde_json::Value = serde_json::from_str(&out.stdout).ok()?;
    (v["running"] == true).then_some(v)
}

fn start(dir: &Path, extra: &[&str]) -> (DaemonStopper, u64) {
    let mut args = vec!["daemon", "start"];
    args.extend_from_slice(extra);
    let out = yttcheck(dir, &args);
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    let pid = status(dir).expect("running")["pid"].as_u64().unwrap();
    (DaemonStopper(dir.to_path_buf()), pid)
}

/// Timings differ from run to run.
fn without_time(s: &str) -> String {
    regex::Regex::new(r"\([0-9.]+s\)")
        .unwrap()
        .replace_all(s, "(Ts)")
        .into()
}

fn same(dir: &Path, args: &[&str]) {
    let mut with = vec!["check", "--daemon", "always"];
    with.extend_from_slice(args);
    let mut without = vec!["check", "--daemon", "never"];
    without.extend_from_slice(args);
    let a = yttcheck(dir, &with);
    let b = yttcheck(dir, &without);
    assert!(
        !a.stderr.contains("could not answer"),
        "{args:?}: the daemon did not answer: {}",
        a.stderr
    );
    assert_eq!(a.code, b.code, "{args:?}\n{}\n{}", a.stderr, b.stderr);
    assert_eq!(without_time(&a.stdout), without_time(&b.stdout), "{args:?}");
    assert_eq!(a.stderr, b.stderr, "{args:?}");
}

#[test]
fn the_daemon_answers_as_the_check_in_process_does() {
    let repo = repository();
    let p = repo.path();
    let (_stop, _) = start(p, &[]);
    // the socket and its folder are private
    let sock = p
        .join(".git/yttcheck")
        .join(format!("{}.sock", env!("CARGO_PKG_VERSION")));
    let mode = |f: &Path| std::fs::metadata(f).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&p.join(".git/yttcheck")), 0o700);
    assert_eq!(mode(&sock), 0o600);

    write(p, "envs/dev/api.yml", "port: 81\n");
    git(p, &["add", "envs/dev/api.yml"]);
    write(p, "envs/dev/api.yml", "port: 82\n");
    for args in [
        &[][..],
        &["--format", "json"],
        &["--format", "sarif"],
        &["--staged"],
        &["--staged", "--changed-since", "HEAD"],
        &["--rev", "HEAD~1"],
        &["--changed-since", "HEAD~1"],
        &["envs/prod"],
        &["--library", "web", "--fail-on", "warning"],
        &["--env", "nowhere"],
        &["--color", "always"],
    ] {
        same(p, args);
        // twice: the second answer comes from the caches
        same(p, args);
    }
    // a report to a file is written by the client, relative to its folder
    let out = tempfile::tempdir().unwrap();
    let a = out.path().join("a.sarif");
    let b = out.path().join("b.sarif");
    yttcheck(
        p,
        &[
            "check",
            "--daemon",
            "always",
            "--format",
            &format!("sarif={}", a.display()),
        ],
    );
    yttcheck(
        p,
        &[
            "check",
            "--daemon",
            "never",
            "--format",
            &format!("sarif={}", b.display()),
        ],
    );
    assert_eq!(std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap());

    let s = status(p).unwrap();
    assert!(s["memo"]["pair_hits"].as_u64().unwrap() > 0, "{s}");
    assert!(s["files"]["hits"].as_u64().unwrap() > 0, "{s}");
    assert!(s["requests"].as_u64().unwrap() >= 23, "{s}");
    let text = yttcheck(p, &["daemon", "status"]).stdout;
    assert!(
        text.contains("pairs       ") && text.contains("% hits"),
        "{text}"
    );
}

#[test]
fn edits_are_seen_even_within_one_clock_tick() {
    let repo = repository();
    let p = repo.path();
    let (_stop, _) = start(p, &[]);
    let errors = |args: &[&str]| {
        let mut all = vec!["check", "--daemon", "always", "--format", "json"];
        all.extend_from_slice(args);
        let out = yttcheck(p, &all);
        let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
        v["summary"]["errors"].as_u64().unwrap()
    };
    assert_eq!(errors(&[]), 2);
    // same size, rewritten at once: stat may not tell, the watcher does
    for fixed in ["replicas: 1\n", "replicas: 0\n", "replicas: 2\n"] {
        std::fs::write(p.join("envs/dev/web.yml"), fixed).unwrap();
        let want = if fixed == "replicas: 0\n" { 2 } else { 1 };
        // right at once: a work tree read is checked against stat and the
        // watcher's count, not a cache's word
        assert_eq!(errors(&[]), want, "{fixed}");
        assert_eq!(errors(&[]), want, "{fixed}");
    }
    // staged content, not the work tree's
    git(p, &["add", "-A"]);
    write(p, "envs/dev/api.yml", "port: 1\n");
    assert_eq!(errors(&["--staged"]), 1);
    assert_eq!(errors(&[]), 1);
    // a new environment and a removed one
    write(p, "envs/qa/web.yml", "replicas: 0\n");
    assert_eq!(errors(&[]), 2);
    std::fs::remove_dir_all(p.join("envs/qa")).unwrap();
    assert_eq!(errors(&[]), 1);
}

/// Sends raw bytes; returns the reply line.
fn raw(socket: &Path, bytes: &[u8], close_write: bool) -> String {
    let mut s = UnixStream::connect(socket).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    let _ = s.write_all(bytes);
    if close_write {
        let _ = s.shutdown(std::net::Shutdown::Write);
    }
    let mut reply = String::new();
    let _ = s.read_to_string(&mut reply);
    reply
}

/// The protocol the daemon speaks.
const PROTOCOL: u32 = yttcheck::daemon::protocol::PROTOCOL;

/// A check request of protocol `protocol` for the folder `cwd`, a whole
/// check answered in JSON, with `fields` of the request replaced.
fn call(cwd: &Path, protocol: u32, fields: serde_json::Value) -> Vec<u8> {
    let mut request = serde_json::json!({
        "cwd": cwd, "outputs": [{"format": "json", "file": null}], "fail_on": null,
        "jobs": 0, "skip_validation": false, "render": true, "color": false,
        "progress": false, "baseline": null, "update_baseline": false,
        "budget": {"max_steps": null, "timeout": null},
        "selection": {"paths": [], "libraries": [], "environments": [], "shard": null,
            "root": ".", "staged": false, "rev": null, "changed_since": null},
    });
    for (k, v) in fields.as_object().unwrap() {
        request[k] = v.clone();
    }
    let call = serde_json::json!({
        "kind": "check", "protocol": protocol, "request": request, "index_file": null,
    });
    let mut bytes = serde_json::to_vec(&call).unwrap();
    bytes.push(b'\n');
    bytes
}

#[test]
fn bad_requests_get_an_error_and_the_daemon_lives_on() {
    let repo = repository();
    let p = repo.path();
    let (_stop, pid) = start(p, &[]);
    let sock = p
        .join(".git/yttcheck")
        .join(format!("{}.sock", env!("CARGO_PKG_VERSION")));
    let big = vec![b'x'; (1 << 20) + 10];
    for (bytes, close, expect) in [
        (&b"not json\n"[..], false, "malformed request"),
        (
            &b"{\"kind\": \"check\", \"protocol\": 1"[..],
            true,
            "truncated",
        ),
        (&big[..], false, "over 1048576 bytes"),
        (
            &b"{\"kind\": \"format_disk\"}\n"[..],
            false,
            "malformed request",
        ),
        (
            &call(Path::new("/"), 99, serde_json::json!({}))[..],
            false,
            "protocol 99",
        ),
        (
            &call(Path::new("/"), PROTOCOL, serde_json::json!({}))[..],
            false,
            "is not in this daemon's repository",
        ),
        // a request is typed: an unknown field is refused, not ignored
        (
            &call(p, PROTOCOL, serde_json::json!({"no_such_field": true}))[..],
            false,
            "malformed request",
        ),
    ] {
        let reply = raw(&sock, bytes, close);
        let v: serde_json::Value =
            serde_json::from_str(reply.trim()).unwrap_or_else(|e| panic!("{e}: {reply}"));
        assert_eq!(v["kind"], "error", "{reply}");
        assert!(
            v["message"].as_str().unwrap().contains(expect),
            "{expect}: {reply}"
        );
    }
    // a request for 100,000 threads is refused, not served by starting them
    let reply = raw(
        &sock,
        &call(p, PROTOCOL, serde_json::json!({"jobs": 100000})),
        false,
    );
    // an answer's line, then its stdout's length and the stdout (none here)
    let (line, stdout) = reply.split_once('\n').unwrap();
    assert_eq!(stdout, "0\n", "{reply}");
    let v: serde_json::Value = serde_json::from_str(line).unwrap();
    assert_eq!(v["kind"], "answer", "{reply}");
    assert_eq!(v["code"], 2, "{reply}");
    assert!(
        v["stderr"]
            .as_str()
            .unwrap()
            .contains("from 0 (one per core) to 256"),
        "{reply}"
    );
    // a client that connects and says nothing does not block others
    let _silent = UnixStream::connect(&sock).unwrap();
    same(p, &["--format", "json"]);
    assert_eq!(status(p).unwrap()["pid"].as_u64().unwrap(), pid);
}

#[test]
fn fifty_clients_at_once_get_right_answers() {
    let repo = repository();
    let p = repo.path().to_path_buf();
    let (_stop, _) = start(&p, &[]);
    let expected = yttcheck(&p, &["check", "--daemon", "never", "--format", "json"]);
    let handles: Vec<_> = (0..50)
        .map(|i| {
            let p = p.clone();
            std::thread::spawn(move || {
                let args: &[&str] = if i % 2 == 0 {
                    &["check", "--daemon", "always", "--format", "json"]
                } else {
                    &[
                        "check", "--daemon", "always", "--format", "json", "--staged",
                    ]
                };
                yttcheck(&p, args)
            })
        })
        .collect();
    for h in handles {
        let out = h.join().unwrap();
        assert!(!out.stderr.contains("could not answer"), "{}", out.stderr);
        assert_eq!(out.code, expected.code);
        assert_eq!(out.stdout, expected.stdout);
    }
}

fn kill9(pid: u64) {
    assert!(Process::new("kill")
        .args(["-9", &pid.to_string()])
        .status()
        .unwrap()
        .success());
    // gone (reaped by init, or a zombie no longer serving)
    std::thread::sleep(Duration::from_millis(100));
}

#[test]
fn a_stale_socket_is_replaced() {
    let repo = repository();
    let p = repo.path();
    let (_stop, pid) = start(p, &[]);
    kill9(pid);
    let sock = p
        .join(".git/yttcheck")
        .join(format!("{}.sock", env!("CARGO_PKG_VERSION")));
    assert!(sock.exists(), "the killed daemon left its socket");
    assert!(status(p).is_none());
    // a check starts a new daemon on the stale socket's place
    same(p, &["--format", "json"]);
    let new = status(p)
        .expect("a new daemon")
        .get("pid")
        .unwrap()
        .as_u64()
        .unwrap();
    assert_ne!(new, pid);
    // and `daemon start` sees it running
    let out = yttcheck(p, &["daemon", "start"]);
    assert!(out.stdout.contains("already running"), "{}", out.stdout);
}

#[test]
fn a_link_where_the_socket_goes_never_stops_the_daemon() {
    let repo = repository();
    let p = repo.path();
    let dir = p.join(".git/yttcheck");
    std::fs::create_dir_all(&dir).unwrap();
    let sock = dir.join(format!("{}.sock", env!("CARGO_PKG_VERSION")));
    // dangling, and pointing at a file of someone else's
    let victim = p.join("victim.txt");
    std::fs::write(&victim, "keep\n").unwrap();
    for target in [p.join("no/such/place"), victim.clone()] {
        let _ = std::fs::remove_file(&sock);
        std::os::unix::fs::symlink(&target, &sock).unwrap();
        let (_stop, _pid) = start(p, &[]);
        same(p, &["--format", "json"]);
        assert!(!std::fs::symlink_metadata(&sock)
            .unwrap()
            .file_type()
            .is_symlink());
        let out = yttcheck(p, &["daemon", "stop"]);
        assert_eq!(out.code, 0, "{}", out.stderr);
    }
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "keep\n");
}

#[test]
fn a_client_whose_daemon_dies_mid_request_checks_in_its_own_process() {
    let repo = repository();
    let p = repo.path();
    // a template that runs until its step budget (about a second or two)
    write(
        p,
        "libs/slow/schema.yml",
        "#@ def spin():\n#@   n = 0\n#@   for i in range(100000000):\n#@     n += i\n#@   end\n#@   return n\n#@ end\n#@data/values-schema\n---\ntotal: #@ spin()\n",
    );
    write(p, "envs/dev/slow.yml", "total: 1\n");
    git(p, &["add", "-A"]);
    git(p, &["commit", "-q", "-m", "slow"]);
    let (_stop, pid) = start(p, &[]);
    let args = [
        "check",
        "--library",
        "slow",
        "--max-steps",
        "30000000",
        "--format",
        "json",
    ];
    let mut with: Vec<&str> = args.to_vec();
    with.extend_from_slice(&["--daemon", "always"]);
    let p2 = p.to_path_buf();
    let client = std::thread::spawn(move || yttcheck(&p2, &with));
    std::thread::sleep(Duration::from_millis(300));
    kill9(pid);
    let out = client.join().unwrap();
    let mut never: Vec<&str> = args.to_vec();
    never.extend_from_slice(&["--daemon", "never"]);
    let expected = yttcheck(p, &never);
    assert_eq!(out.stdout, expected.stdout);
    assert_eq!(out.code, expected.code);
    assert!(
        out.stderr.contains("checking in this process"),
        "{}",
        out.stderr
    );
    assert!(
        expected.stdout.contains("template/budget"),
        "{}",
        expected.stdout
    );
}

#[test]
fn a_peer_of_another_user_is_refused() {
    if unsafe { libc::geteuid() } != 0 {
        // the refusal itself is checked by the daemon's unit tests; here a
        // process of another uid is needed, which only root can start
        assert!(
            std::env::var_os("CI").is_none(),
            "CI runs the tests as root"
        );
        super::common::skip("a peer of another user: switching uid needs root");
        return;
    }
    let repo = repository();
    let p = repo.path();
    let (_stop, _) = start(p, &[]);
    // open the way (folder, socket, repository, binary) to uid 65532, so
    // that only the peer check stands
    let dir = p.join(".git/yttcheck");
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755)).unwrap();
    let sock = dir.join(format!("{}.sock", env!("CARGO_PKG_VERSION")));
    std::fs::set_permissions(&sock, std::fs::Permissions::from_mode(0o666)).unwrap();
    // (the temp dir's parent, /tmp, is open to everyone already)
    let _ = Process::new("chmod").args(["-R", "a+rX"]).arg(p).status();
    let bin_dir = tempfile::tempdir().unwrap();
    let exe = bin_dir.path().join("yttcheck");
    std::fs::copy(env!("CARGO_BIN_EXE_yttcheck"), &exe).unwrap();
    let _ = Process::new("chmod")
        .args(["-R", "a+rX"])
        .arg(bin_dir.path())
        .status();
    let out = Process::new("setpriv")
        .args(["--reuid=65532", "--regid=65532", "--clear-groups"])
        .arg(&exe)
        .args(["check", "--daemon", "always", "--format", "json"])
        .current_dir(p)
        .env_remove("CI")
        .env("HOME", "/nonexistent")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("refused: the client runs as uid 65532"),
        "{err}"
    );
    // and it still got its answer, from its own process
    assert_eq!(out.status.code(), Some(1), "{err}");
}

/// Every file under `dir` but the daemon's folder: path, size, mtime, bytes.
fn tree(dir: &Path) -> Vec<(String, Vec<u8>, std::time::SystemTime)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let e = e.unwrap();
            let path = e.path();
            if path.ends_with(".git/yttcheck") {
                continue;
            }
            let md = std::fs::symlink_metadata(&path).unwrap();
            if md.is_dir() {
                stack.push(path);
            } else {
                out.push((
                    path.display().to_string(),
                    std::fs::read(&path).unwrap_or_default(),
                    md.modified().unwrap(),
                ));
            }
        }
    }
    out.sort();
    out
}

#[test]
fn the_daemon_writes_nothing_but_its_own_folder() {
    let repo = repository();
    let p = repo.path();
    write(p, "envs/dev/api.yml", "port: 2\n");
    git(p, &["add", "-A"]);
    let before = tree(p);
    {
        let (_stop, _) = start(p, &[]);
        for args in [
            &["check"][..],
            &["check", "--staged"],
            &["check", "--rev", "HEAD~1"],
        ] {
            let mut a = args.to_vec();
            a.extend_from_slice(&["--daemon", "always"]);
            yttcheck(p, &a);
        }
        yttcheck(p, &["daemon", "status"]);
    }
    assert_eq!(tree(p), before);
}

#[test]
fn two_repositories_get_two_daemons() {
    let a = repository();
    let b = repository();
    let (_sa, pa) = start(a.path(), &[]);
    let (_sb, pb) = start(b.path(), &[]);
    assert_ne!(pa, pb);
    write(b.path(), "envs/dev/web.yml", "replicas: 5\n");
    same(a.path(), &["--format", "json"]);
    same(b.path(), &["--format", "json"]);
    // a check of one repository run from the other's folder goes to the
    // right daemon (or none), never the wrong one
    let other = b.path().display().to_string();
    same(a.path(), &["-C", &other, "--format", "json"]);
}

#[test]
fn idle_daemons_exit_and_a_config_change_restarts_one() {
    let repo = repository();
    let p = repo.path();
    let (_stop, _) = start(p, &["--idle-seconds", "1"]);
    let sock = p
        .join(".git/yttcheck")
        .join(format!("{}.sock", env!("CARGO_PKG_VERSION")));
    let deadline = Instant::now() + Duration::from_secs(10);
    while sock.exists() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(100));
    }
    assert!(!sock.exists(), "still running after its idle time");
    assert!(status(p).is_none());

    let (_stop, pid) = start(p, &[]);
    let before = status(p).unwrap();
    write(p, ".yttcheck.yml", "fail_on: warning\n");
    let deadline = Instant::now() + Duration::from_secs(10);
    let after = loop {
        if let Some(s) = status(p) {
            if s["restarts"] == 1 {
                break s;
            }
        }
        assert!(Instant::now() < deadline, "no restart");
        std::thread::sleep(Duration::from_millis(100));
    };
    // restarted in place (exec): same pid, new config
    assert_eq!(after["pid"].as_u64().unwrap(), pid);
    assert_ne!(after["config_hash"], before["config_hash"]);
    same(p, &["--format", "json"]);
}

#[test]
fn a_new_binary_restarts_the_daemon() {
    let repo = repository();
    let p = repo.path();
    let _stop = DaemonStopper(p.to_path_buf());
    // a daemon started from a copy of the binary, which is then upgraded
    // (replaced by a new file, as cargo install and package managers do)
    let bin = tempfile::tempdir().unwrap();
    let exe = bin.path().join("yttcheck");
    std::fs::copy(env!("CARGO_BIN_EXE_yttcheck"), &exe).unwrap();
    let out = Process::new(&exe)
        .current_dir(p)
        .args(["daemon", "start"])
        .env_remove("CI")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let pid = status(p).unwrap()["pid"].as_u64().unwrap();
    let new = bin.path().join("yttcheck.new");
    std::fs::copy(env!("CARGO_BIN_EXE_yttcheck"), &new).unwrap();
    std::fs::rename(&new, &exe).unwrap();
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        if let Some(s) = status(p) {
            if s["restarts"] == 1 {
                assert_eq!(s["pid"].as_u64().unwrap(), pid);
                break;
            }
        }
        assert!(
            Instant::now() < deadline,
            "no restart after the binary changed"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    same(p, &["--format", "json"]);
}

#[test]
fn auto_starts_a_daemon_and_never_runs_in_ci() {
    let repo = repository();
    let p = repo.path();
    let _stop = DaemonStopper(p.to_path_buf());
    // CI: no daemon, whatever the terminal
    let out = Process::new(env!("CARGO_BIN_EXE_yttcheck"))
        .current_dir(p)
        .args(["check", "--format", "json"])
        .env("CI", "true")
        .env("GIT_DIR", p.join(".git"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(status(p).is_none());
    // in a hook (git sets GIT_DIR): auto starts one for the next check
    let out = Process::new(env!("CARGO_BIN_EXE_yttcheck"))
        .current_dir(p)
        .args(["check", "--format", "json"])
        .env_remove("CI")
        .env("GIT_DIR", p.join(".git"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let deadline = Instant::now() + Duration::from_secs(5);
    while status(p).is_none() {
        assert!(Instant::now() < deadline, "auto started no daemon");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Reading is no change: the daemon's own reads of the work tree (and of
/// `.yttcheck.yml`) on each request must not count as edits, or every
/// request would re-read every file and wait out a config "change" (what
/// made the warm daemon slower than no daemon once a config existed).
#[test]
fn the_daemons_own_reads_are_not_changes() {
    let repo = repository();
    let p = repo.path();
    write(p, ".yttcheck.yml", "fail_on: error\n");
    git(p, &["add", "-A"]);
    git(p, &["commit", "-q", "-m", "config"]);
    let (_stop, pid) = start(p, &[]);
    for _ in 0..5 {
        same(p, &["--format", "json"]);
    }
    // a tick of the daemon's clock, so it would have seen a "change"
    std::thread::sleep(Duration::from_millis(600));
    let s = status(p).expect("running");
    assert_eq!(s["pid"].as_u64().unwrap(), pid, "no restart: {s}");
    assert_eq!(s["restarts"], 0, "{s}");
    assert_eq!(s["watched_changes"], 0, "reads counted as changes: {s}");
    // after the first request, every file comes from what the daemon kept
    assert!(
        s["files"]["hits"].as_u64().unwrap() >= 4 * s["files"]["entries"].as_u64().unwrap() / 2,
        "{s}"
    );
}

/// Whatever listens on the daemon's socket, the client writes only the
/// report files its check asked for: an answer that names another file is
/// not delivered (the check runs in the client instead).
#[test]
fn an_answer_naming_files_not_asked_for_is_not_delivered() {
    let repo = repository();
    let p = repo.path();
    let folder = p.join(".git/yttcheck");
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::set_permissions(&folder, std::fs::Permissions::from_mode(0o700)).unwrap();
    let sock = folder.join(format!("{}.sock", env!("CARGO_PKG_VERSION")));
    let listener = std::os::unix::net::UnixListener::bind(&sock).unwrap();
    let server = std::thread::spawn(move || {
        let (mut s, _) = listener.accept().unwrap();
        let mut line = Vec::new();
        let mut byte = [0u8; 1];
        while s.read(&mut byte).unwrap() == 1 && byte[0] != b'\n' {
            line.push(byte[0]);
        }
        let stdout = "{\"fake\": true}\n";
        let reply = serde_json::json!({
            "kind": "answer", "stdout": "", "human": false, "stderr": "",
            "files": [["planted.txt", "owned"]], "code": 0,
        });
        let _ = s.write_all(format!("{reply}\n{}\n{stdout}", stdout.len()).as_bytes());
    });
    let out = yttcheck(
        p,
        &[
            "check",
            "--daemon",
            "always",
            "-q",
            "--format",
            "json",
            "--format",
            "sarif=out.sarif",
        ],
    );
    server.join().unwrap();
    assert!(
        out.stderr
            .contains("names a file this check did not ask for"),
        "{}",
        out.stderr
    );
    assert!(!p.join("planted.txt").exists());
    assert!(!out.stdout.contains("fake"), "{}", out.stdout);
    let in_process = yttcheck(p, &["check", "--daemon", "never", "-q", "--format", "json"]);
    assert_eq!(without_time(&out.stdout), without_time(&in_process.stdout));
    assert_eq!(out.code, in_process.code);
    assert!(
        p.join("out.sarif").is_file(),
        "the report asked for is written"
    );
}

/// The environment of a running process, as `NAME=value` entries.
fn environment_of(pid: u64) -> Vec<String> {
    let raw = std::fs::read(format!("/proc/{pid}/environ")).unwrap();
    raw.split(|&b| b == 0)
        .map(|e| String::from_utf8_lossy(e).into_owned())
        .collect()
}

/// A daemon keeps the memory it freed for a minute (asked every few
/// seconds, it took it all back page by page at every check), unless the
/// person set the allocator's delay themselves.
#[test]
fn the_daemon_keeps_freed_memory_for_a_minute_unless_told_otherwise() {
    let d = repository();
    let p = d.path();
    let (stopper, pid) = start(p, &[]);
    assert!(
        environment_of(pid).contains(&"MIMALLOC_PURGE_DELAY=60000".to_string()),
        "{:?}",
        environment_of(pid)
    );
    drop(stopper);
    let _stopper = DaemonStopper(p.to_path_buf());
    let out = Process::new(env!("CARGO_BIN_EXE_yttcheck"))
        .current_dir(p)
        .args(["daemon", "start"])
        .env_remove("CI")
        .env_remove("GIT_INDEX_FILE")
        .env_remove("GIT_DIR")
        .env_remove("NO_COLOR")
        .env_remove("MIMALLOC_RESET_DELAY")
        .env("MIMALLOC_PURGE_DELAY", "250")
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let pid = status(p).expect("running")["pid"].as_u64().unwrap();
    let env = environment_of(pid);
    assert!(
        env.contains(&"MIMALLOC_PURGE_DELAY=250".to_string()),
        "{env:?}"
    );
    assert!(
        !env.contains(&"MIMALLOC_PURGE_DELAY=60000".to_string()),
        "{env:?}"
    );
}

#[test]
fn a_packageinstalls_secret_edited_is_planned_again() {
    let repo = repository();
    let p = repo.path();
    write(
        p,
        "packages/web/1.0.0/package.yaml",
        "apiVersion: data.packaging.carvel.dev/v1alpha1\nkind: Package\nmetadata:\n  name: web.example.com.1.0.0\nspec:\n  refName: web.example.com\n  version: 1.0.0\n  template:\n    spec:\n      template:\n      - ytt:\n          paths:\n          - config/\n",
    );
    write(
        p,
        "packages/web/1.0.0/bundle/config/schema.yml",
        "#@data/values-schema\n---\n#@schema/validation min=1\nreplicas: 1\n",
    );
    let install = "apiVersion: packaging.carvel.dev/v1alpha1\nkind: PackageInstall\nmetadata:\n  name: web-prod\nspec:\n  packageRef:\n    refName: web.example.com\n  values:\n  - secretRef:\n      name: v\n---\napiVersion: v1\nkind: Secret\nmetadata:\n  name: v\nstringData:\n  a.yml: |\n    replicas: 2\n";
    write(p, "gitops/web.yml", install);
    git(p, &["add", "-A"]);
    git(p, &["commit", "-q", "-m", "package"]);
    let (_stop, _) = start(p, &[]);
    same(p, &[]);
    // a key added to the Secret (its file's #@ lines unchanged): a values
    // file more for the install, which only a new plan reads
    write(
        p,
        "gitops/web.yml",
        format!("{install}  b.yml: |\n    replicas: 0\n"),
    );
    same(p, &[]);
    let out = yttcheck(p, &["check", "--daemon", "always", "--format", "json"]);
    assert!(out.stdout.contains("gitops/web.yml"), "{}", out.stdout);
}

#[test]
fn a_sample_values_file_that_changes_its_keys_changes_its_library_in_the_daemon() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    git(p, &["init", "-q", "-b", "main"]);
    for (lib, key) in [("web", "replicas"), ("api", "port")] {
        write(
            p,
            &format!("libs/{lib}/schema.yml"),
            format!("#@data/values-schema\n---\n{key}: 1\n"),
        );
        write(
            p,
            &format!("libs/{lib}/t.yml"),
            format!("#@ load(\"@ytt:data\", \"data\")\n---\n{key}: #@ data.values.{key}\n"),
        );
    }
    write(p, "sample-values.yml", "#@data/values\n---\nreplicas: 2\n");
    let (_stop, _) = start(p, &[]);
    let pairs = || {
        let out = yttcheck(p, &["check", "--daemon", "always", "--format", "json"]);
        let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
        v["pairs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x["name"].as_str().unwrap().to_string())
            .collect::<Vec<_>>()
    };
    assert_eq!(pairs(), ["api@defaults", "web@sample-values"]);
    // the same file now sets api's value: it is api's environment
    write(p, "sample-values.yml", "#@data/values\n---\nport: 2\n");
    assert_eq!(pairs(), ["api@sample-values", "web@defaults"]);
}
