//! `cargo bench`: generates a monorepo of 200 libraries x 5 environments with
//! realistic schemas (about 100 values each: nested maps, arrays of maps,
//! validations with named rules and custom lambdas) and runs the release
//! `yttcheck check` on it, reporting wall time, pairs per second and peak
//! memory. Also times `check` of the pairs one changed file affects.
//!
//! `YTTCHECK_BENCH_LIBRARIES` / `YTTCHECK_BENCH_ENVS` change the size;
//! `YTTCHECK_BENCH_KEEP=DIR` also writes the repository to DIR. Then two
//! repositories of 10,000 pairs (2,000 x 5 and 100 x 100) are checked once
//! each, to show that time and memory grow linearly.
//!
//! A warm daemon's whole check (with its text report) and the pre-commit
//! hook's command are timed after edits of one values file, on the
//! generated repository, on the same with a warning policy that gives it
//! 8,000 findings, and on each real-package monorepo.
//!
//! The real packages of `../shared/realworld` are checked as a monorepo
//! too, beside the ytt loop when `YTT=/path/to/ytt` is set;
//! `YTTCHECK_BENCH_CASES=DIR` adds a monorepo of another corpus folder in
//! the same layout (`docs/performance.md` says how the held-out one was
//! made).

use std::fmt::Write as _;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

const DEFAULT_LIBRARIES: usize = 200;
const DEFAULT_ENVS: usize = 5;
const RUNS: usize = 9;

fn env_usize(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// One library's schema: 8 sections of 10 values, 2 arrays of maps, and
/// validations (named rules and lambdas) on about a fifth of the values.
fn schema(lib: usize) -> String {
    let mut s = String::new();
    s.push_str("#@ load(\"helpers.star\", \"is_dns_label\", \"max_replicas\")\n");
    s.push_str("#@data/values-schema\n---\n");
    s.push_str("#@schema/validation min_len=1\nenvironment: \"\"\n");
    s.push_str(&format!(
        "#@schema/validation (\"a DNS label\", is_dns_label)\nname: svc-{lib}\n"
    ));
    s.push_str("#@schema/validation min=1, max=max_replicas\nreplicas: 1\n");
    for section in 0..8 {
        writeln!(s, "section{section}:").unwrap();
        for v in 0..10 {
            match v % 5 {
                0 => {
                    s.push_str("  #@schema/validation min=0, max=100000\n");
                    writeln!(s, "  count{v}: {}", v * 10).unwrap();
                }
                1 => {
                    s.push_str("  #@schema/validation one_of=[\"low\", \"medium\", \"high\"]\n");
                    writeln!(s, "  level{v}: medium").unwrap();
                }
                2 => writeln!(s, "  enabled{v}: true").unwrap(),
                3 => {
                    s.push_str("  #@schema/validation (\"lowercase\", lambda v: v == v.lower())\n");
                    writeln!(s, "  label{v}: value-{v}").unwrap();
                }
                _ => writeln!(s, "  ratio{v}: 0.5").unwrap(),
            }
        }
        s.push_str("  nested:\n    host: example.internal\n    port: 8080\n");
    }
    s.push_str("ports:\n- name: http\n  #@schema/validation min=1, max=65535\n  port: 80\n  protocol: TCP\n");
    s.push_str("#@schema/validation max_len=10\nsidecars:\n- name: \"\"\n  image: \"\"\n  #@schema/nullable\n  memory: 128\n");
    s
}

const HELPERS: &str = "def is_dns_label(v):\n  return len(v) <= 63 and v == v.lower() and not v.startswith(\"-\")\nend\nmax_replicas = 50\n";

/// The templates `check` renders for each pair: a Deployment and a
/// ConfigMap holding the whole configuration.
const DEPLOYMENT: &str = "#@ load(\"@ytt:data\", \"data\")\n#@ load(\"@ytt:yaml\", \"yaml\")\n---\nkind: Deployment\nmetadata:\n  name: #@ data.values.section0.label3\nspec:\n  replicas: #@ data.values.replicas\n  template:\n    spec:\n      containers:\n      #@ for s in data.values.sidecars:\n      - name: #@ s.name\n        image: #@ s.image\n        ports: #@ [p.port for p in data.values.ports]\n      #@ end\n---\nkind: ConfigMap\ndata:\n  config.yml: #@ yaml.encode(data.values)\n";

/// A pack of 10 rules on every pair's final values (`policies:`).
const POLICY: &str = "---\n#@assert/validate min=1, max=50\nreplicas: 0\nsection0:\n  #@assert/validate min=0\n  count0: 0\n  #@assert/validate one_of=[\"low\", \"medium\", \"high\"]\n  level1: \"\"\n  #@assert/validate min_len=1\n  label3: \"\"\nsection1:\n  #@assert/validate (\"a non-negative count\", lambda c: c >= 0)\n  count0: 0\nsection2:\n  #@assert/validate max_len=64\n  label3: \"\"\nports:\n-\n  #@assert/validate min=1, max=65535\n  port: 0\n  #@assert/validate min_len=1\n  name: \"\"\nsidecars:\n-\n  #@assert/validate (\"a pinned image\", lambda i: not i.endswith(\":latest\"))\n  image: \"\"\n#@assert/validate (\"an environment name\", lambda e: e.startswith(\"env\"))\nenvironment: \"\"\n";

const DEFAULTS: &str = "#@data/values\n---\nsection0:\n  nested:\n    host: defaults.internal\n";

fn env_values(lib: usize, env: usize) -> String {
    let mut s = String::new();
    writeln!(s, "replicas: {}", 1 + (lib + env) % 10).unwrap();
    for section in 0..8 {
        writeln!(s, "section{section}:").unwrap();
        writeln!(s, "  count0: {}", lib * 7 + env).unwrap();
        writeln!(
            s,
            "  level1: {}",
            ["low", "medium", "high"][(lib + env + section) % 3]
        )
        .unwrap();
        writeln!(s, "  label3: env-{env}").unwrap();
    }
    s.push_str("ports:\n- name: http\n  port: 8080\n- name: metrics\n  port: 9090\n");
    s.push_str("sidecars:\n- name: proxy\n  image: envoy:1.30\n");
    s
}

fn generate(root: &Path, libraries: usize, envs: usize) {
    for lib in 0..libraries {
        let dir = root.join(format!("libs/lib{lib}"));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("schema.yml"), schema(lib)).unwrap();
        std::fs::write(dir.join("helpers.star"), HELPERS).unwrap();
        std::fs::write(dir.join("defaults.yml"), DEFAULTS).unwrap();
        std::fs::write(dir.join("deployment.yml"), DEPLOYMENT).unwrap();
    }
    for env in 0..envs {
        let dir = root.join(format!("envs/env{env}"));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("common.yml"), format!("environment: env{env}\n")).unwrap();
        for lib in 0..libraries {
            std::fs::write(dir.join(format!("lib{lib}.yml")), env_values(lib, env)).unwrap();
        }
    }
}

/// One run of `yttcheck check` with its own wall time, CPU time and peak
/// memory (from `wait4`, so an earlier, bigger run does not hide it).
fn measured(root: &Path, args: &[&str]) -> (Duration, Duration, f64) {
    measured_exiting(root, args, &[0])
}

/// [`measured`], for a run that may end in one of the exit codes `ok` (a
/// check of real packages has findings: exit 1).
// the child is reaped by `wait4` itself, which `Child::wait` cannot do
#[allow(clippy::zombie_processes)]
fn measured_exiting(root: &Path, args: &[&str], ok: &[i32]) -> (Duration, Duration, f64) {
    let started = Instant::now();
    let child = Command::new(env!("CARGO_BIN_EXE_yttcheck"))
        .current_dir(root)
        .args(args)
        .stdout(std::process::Stdio::null())
        .spawn()
        .expect("run yttcheck");
    let mut status = 0;
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: waits for our own child, writing into values we own
    let pid = unsafe { libc::wait4(child.id() as i32, &mut status, 0, &mut usage) };
    let wall = started.elapsed();
    assert!(
        pid > 0 && libc::WIFEXITED(status) && ok.contains(&libc::WEXITSTATUS(status)),
        "{args:?} failed"
    );
    let tv = |t: libc::timeval| Duration::new(t.tv_sec as u64, t.tv_usec as u32 * 1000);
    (
        wall,
        tv(usage.ru_utime) + tv(usage.ru_stime),
        usage.ru_maxrss as f64 / 1024.0,
    )
}

/// The two shapes of a big monorepo, 10,000 pairs each: 2,000 libraries x
/// 5 environments, and 100 x 100. Time should grow linearly from the
/// 1,000-pair run (`per_pair` is its seconds per pair).
fn scale(per_pair: f64) {
    for (libraries, envs) in [(2000, 5), (100, 100)] {
        let dir = tempfile::tempdir().unwrap();
        generate(dir.path(), libraries, envs);
        let pairs = libraries * envs;
        let (wall, cpu, peak) = measured(dir.path(), &["check", "--quiet"]);
        println!(
            "  {libraries} libraries x {envs} environments = {pairs} pairs: {:.2} s wall ({:.2}x linear), {:.2} s CPU, {:.0} pairs/s, peak memory {:.0} MiB",
            wall.as_secs_f64(),
            wall.as_secs_f64() / (per_pair * pairs as f64),
            cpu.as_secs_f64(),
            pairs as f64 / wall.as_secs_f64(),
            peak
        );
    }
}

/// Runs `command` once per pair (two at a time, as `xargs -P2` would):
/// `ytt -f libs/libN --data-values-file envs/envM/...` or the same with
/// `yttcheck render`. Returns the wall time.
fn per_pair_loop(root: &Path, command: &[String], libraries: usize, envs: usize) -> Duration {
    let jobs: Vec<(usize, usize)> = (0..libraries)
        .flat_map(|l| (0..envs).map(move |e| (l, e)))
        .collect();
    two_at_a_time(&jobs, |&(l, e)| {
        let out = Command::new(&command[0])
            .args(&command[1..])
            .current_dir(root)
            .args(["-f", &format!("libs/lib{l}")])
            .args(["--data-values-file", &format!("envs/env{e}/common.yml")])
            .args(["--data-values-file", &format!("envs/env{e}/lib{l}.yml")])
            .output()
            .expect("run the per-pair command");
        assert!(
            out.status.success(),
            "{command:?} on lib{l} x env{e}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    })
}

/// Runs `run` on every job, two at a time (as `xargs -P2` would). Returns
/// the wall time.
fn two_at_a_time<T: Sync>(jobs: &[T], run: impl Fn(&T) + Sync) -> Duration {
    let next = std::sync::atomic::AtomicUsize::new(0);
    let started = Instant::now();
    std::thread::scope(|scope| {
        for _ in 0..2 {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some(job) = jobs.get(i) else { break };
                run(job);
            });
        }
    });
    started.elapsed()
}

/// `runs` runs of [`measured`].
fn measured_runs(root: &Path, args: &[&str], runs: usize) -> Vec<(Duration, Duration, f64)> {
    measured_runs_exiting(root, args, runs, &[0])
}

/// The median wall and CPU times of [`measured_runs`].
fn medians(runs: &[(Duration, Duration, f64)]) -> (Duration, Duration) {
    (
        median(runs.iter().map(|r| r.0).collect()),
        median(runs.iter().map(|r| r.1).collect()),
    )
}

/// A run of yttcheck that must check clean (exit 0): its wall time and stdout.
fn run(root: &Path, args: &[&str]) -> (Duration, String) {
    let (elapsed, out) = run_exiting(root, args, &[0]);
    (elapsed, String::from_utf8_lossy(&out.stdout).to_string())
}

/// A run of yttcheck that must end in one of the exit codes `ok`: its wall
/// time and output.
fn run_exiting(root: &Path, args: &[&str], ok: &[i32]) -> (Duration, std::process::Output) {
    let started = Instant::now();
    let out = Command::new(env!("CARGO_BIN_EXE_yttcheck"))
        .current_dir(root)
        .args(args)
        .output()
        .expect("run yttcheck");
    let elapsed = started.elapsed();
    assert!(
        out.status.code().is_some_and(|c| ok.contains(&c)),
        "{args:?} exited with {:?}:\n{}\n{}",
        out.status.code(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (elapsed, out)
}

fn git(dir: &Path, args: &[&str]) {
    let ok = Command::new("git")
        .current_dir(dir)
        .args(args)
        .env("GIT_AUTHOR_NAME", "bench")
        .env("GIT_AUTHOR_EMAIL", "bench@example.com")
        .env("GIT_COMMITTER_NAME", "bench")
        .env("GIT_COMMITTER_EMAIL", "bench@example.com")
        .status()
        .expect("git")
        .success();
    assert!(ok, "git {args:?}");
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn main() {
    // `cargo bench` passes --bench; `cargo test --benches` passes nothing:
    // then only a tiny repository is checked, to keep the harness honest
    let benching = std::env::args().any(|a| a == "--bench");
    let libraries = if benching {
        env_usize("YTTCHECK_BENCH_LIBRARIES", DEFAULT_LIBRARIES)
    } else {
        3
    };
    let envs = if benching {
        env_usize("YTTCHECK_BENCH_ENVS", DEFAULT_ENVS)
    } else {
        2
    };
    let dir = tempfile::tempdir().unwrap();
    generate(dir.path(), libraries, envs);
    // YTTCHECK_BENCH_KEEP=DIR keeps a copy of the repository (for profiling)
    if let Some(keep) = std::env::var_os("YTTCHECK_BENCH_KEEP") {
        let keep = std::path::PathBuf::from(keep);
        generate(&keep, libraries, envs);
        println!("repository kept in {}", keep.display());
    }
    let pairs = libraries * envs;

    let (_, json) = run(dir.path(), &["check", "--format", "json", "--quiet"]);
    assert!(json.contains(&format!("\"pairs\": {pairs}")), "{json}");

    let runs = if benching { RUNS } else { 1 };
    // each run's own wall, CPU and peak memory: medians, so that one run
    // slowed by a neighbour on a shared machine moves neither figure
    let full_runs = measured_runs(dir.path(), &["check", "--quiet"], runs);
    let mut fulls: Vec<Duration> = full_runs.iter().map(|r| r.0).collect();
    fulls.sort();
    let full = median(fulls.clone());
    let mut full_cpus: Vec<Duration> = full_runs.iter().map(|r| r.1).collect();
    full_cpus.sort();
    let full_cpu = median(full_cpus.clone());
    let peak = full_runs.iter().map(|r| r.2).fold(0.0, f64::max);
    // what the second core buys: -j1 and -j2 alternate, so that a slower
    // minute of the machine weighs on both alike
    let (mut j1s, mut j2s) = (Vec::new(), Vec::new());
    for _ in 0..runs {
        j1s.push(measured(dir.path(), &["check", "--quiet", "-j", "1"]).0);
        j2s.push(measured(dir.path(), &["check", "--quiet", "-j", "2"]).0);
    }
    let (j1, j2) = (median(j1s), median(j2s));
    let (values_only, values_only_cpu) = medians(&measured_runs(
        dir.path(),
        &["check", "--quiet", "--no-render"],
        runs,
    ));
    // the same with a 10-rule policy pack on every pair
    configure_policy(dir.path(), "pack.yml", POLICY, "");
    let (with_policy, with_policy_cpu) =
        medians(&measured_runs(dir.path(), &["check", "--quiet"], runs));
    std::fs::remove_file(dir.path().join(".yttcheck.yml")).unwrap();
    std::fs::remove_dir_all(dir.path().join("policies")).unwrap();
    // one values file changed: only its pair runs, by path and by git
    let changed = "envs/env0/lib0.yml";
    let one = median(
        (0..runs)
            .map(|_| run(dir.path(), &["check", "--quiet", changed]).0)
            .collect(),
    );
    let (_, listed) = run(dir.path(), &["list", changed]);
    assert!(listed.ends_with("1 pair of 1 library\n"), "{listed}");
    git(dir.path(), &["init", "-q"]);
    git(dir.path(), &["add", "-A"]);
    git(dir.path(), &["commit", "-q", "-m", "generated"]);
    let path = dir.path().join(changed);
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::write(&path, text.replacen("replicas: ", "replicas: 1", 1)).unwrap();
    let (_, listed) = run(dir.path(), &["list", "--changed-since", "HEAD"]);
    assert!(listed.ends_with("1 pair of 1 library\n"), "{listed}");
    // a run of ~25 ms on a shared machine: more runs than the others, for
    // a median that stays put
    let since_runs = 30;
    let mut since_all: Vec<Duration> = (0..since_runs)
        .map(|_| run(dir.path(), &["check", "--quiet", "--changed-since", "HEAD"]).0)
        .collect();
    since_all.sort();
    let since = since_all[since_runs / 2];
    let since_p90 = since_all[since_runs * 9 / 10];

    println!("yttcheck check on {libraries} libraries x {envs} environments = {pairs} pairs");
    println!(
        "  full check (values, validations, render): {:.3} s wall (median of {runs}; min {:.3}, max {:.3}), {:.3} s CPU (min {:.3}, max {:.3}), {:.0} pairs/s, peak memory {:.0} MiB",
        full.as_secs_f64(),
        fulls[0].as_secs_f64(),
        fulls[fulls.len() - 1].as_secs_f64(),
        full_cpu.as_secs_f64(),
        full_cpus[0].as_secs_f64(),
        full_cpus[full_cpus.len() - 1].as_secs_f64(),
        pairs as f64 / full.as_secs_f64(),
        peak
    );
    println!(
        "  -j1: {:.3} s wall, -j2: {:.3} s wall ({:.2}x; medians of {runs} alternating runs)",
        j1.as_secs_f64(),
        j2.as_secs_f64(),
        j1.as_secs_f64() / j2.as_secs_f64()
    );
    println!(
        "  check --no-render (values and validations only): {:.3} s wall, {:.3} s CPU",
        values_only.as_secs_f64(),
        values_only_cpu.as_secs_f64()
    );
    println!(
        "  check with a 10-rule policy pack on every pair: {:.3} s wall, {:.3} s CPU ({:+.0}% wall, {:+.0}% CPU)",
        with_policy.as_secs_f64(),
        with_policy_cpu.as_secs_f64(),
        (with_policy.as_secs_f64() / full.as_secs_f64() - 1.0) * 100.0,
        (with_policy_cpu.as_secs_f64() / full_cpu.as_secs_f64() - 1.0) * 100.0
    );
    // one process per pair, two at a time: ytt when there is one, and
    // yttcheck render (the same loop, to show what one process per pair costs)
    let ytt = std::env::var("YTT").ok().or_else(|| {
        Command::new("ytt")
            .arg("version")
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|_| "ytt".to_string())
    });
    if benching {
        let render = per_pair_loop(
            dir.path(),
            &[
                env!("CARGO_BIN_EXE_yttcheck").to_string(),
                "render".to_string(),
            ],
            libraries,
            envs,
        );
        println!(
            "  loop of `yttcheck render -f lib --data-values-file env` per pair (2 at a time): {:.2} s wall ({:.1}x the full check)",
            render.as_secs_f64(),
            render.as_secs_f64() / full.as_secs_f64()
        );
        match &ytt {
            Some(ytt) => {
                let t = per_pair_loop(dir.path(), std::slice::from_ref(ytt), libraries, envs);
                println!(
                    "  loop of `ytt -f lib --data-values-file env` per pair (2 at a time): {:.2} s wall ({:.1}x the full check)",
                    t.as_secs_f64(),
                    t.as_secs_f64() / full.as_secs_f64()
                );
            }
            None => println!("  ytt: not found (set YTT=/path/to/ytt to time the ytt loop too)"),
        }
    }
    println!(
        "  check {changed} (1 pair): {:.3} s wall",
        one.as_secs_f64()
    );
    println!(
        "  check --changed-since HEAD after editing {changed} (1 pair): {:.1} ms wall (median of {since_runs}; min {:.1}, p90 {:.1})",
        since.as_secs_f64() * 1e3,
        since_all[0].as_secs_f64() * 1e3,
        since_p90.as_secs_f64() * 1e3
    );

    if benching && std::env::var_os("YTTCHECK_BENCH_NO_SCALE").is_none() {
        println!("scale (YTTCHECK_BENCH_NO_SCALE=1 skips it):");
        scale(full.as_secs_f64() / pairs as f64);
    }

    if benching {
        cache_reruns(dir.path(), changed, &[0], full);
    }
    daemon(dir.path(), changed, benching);
    warm_daemon_checks(dir.path(), changed, &[0], benching);
    // the same repository with a warning policy that every pair breaks 8
    // times: a whole check has 8,000 findings to deliver
    configure_policy(dir.path(), "warn.yml", WARN_POLICY, ", severity: warning");
    git(dir.path(), &["add", "-A"]);
    git(dir.path(), &["commit", "-q", "-m", "a warning policy"]);
    let (_, json) = run(dir.path(), &["check", "--format", "json", "--quiet"]);
    let warnings = json.matches("\"severity\": \"warning\"").count();
    println!("with a warning policy ({warnings} warnings):");
    warm_daemon_checks(dir.path(), changed, &[0], benching);
    if benching {
        real_packages(ytt.as_deref());
    }
}

/// Writes `policies/<name>` and a `.yttcheck.yml` that applies it to every
/// pair (`more`: the rest of its entry, such as `, severity: warning`).
fn configure_policy(root: &Path, name: &str, text: &str, more: &str) {
    std::fs::create_dir_all(root.join("policies")).unwrap();
    std::fs::write(root.join("policies").join(name), text).unwrap();
    std::fs::write(
        root.join(".yttcheck.yml"),
        format!("policies: [{{path: policies/{name}{more}}}]\n"),
    )
    .unwrap();
}

/// A policy every generated pair breaks once per section (8 warnings).
const WARN_POLICY: &str = "---\nsection0:\n  #@assert/validate max=-1\n  count0: 0\nsection1:\n  #@assert/validate max=-1\n  count0: 0\nsection2:\n  #@assert/validate max=-1\n  count0: 0\nsection3:\n  #@assert/validate max=-1\n  count0: 0\nsection4:\n  #@assert/validate max=-1\n  count0: 0\nsection5:\n  #@assert/validate max=-1\n  count0: 0\nsection6:\n  #@assert/validate max=-1\n  count0: 0\nsection7:\n  #@assert/validate max=-1\n  count0: 0\n";

/// A warm daemon's whole check, end to end (process start, connect,
/// re-check, the text report read from a pipe): with nothing changed, and
/// after each edit of `changed` (a line added: the pair runs again); then
/// the pre-commit hook's command after each edit, staged. `root` is a git
/// repository with a commit.
fn warm_daemon_checks(root: &Path, changed: &str, ok: &[i32], benching: bool) {
    let path = root.join(changed);
    let original = std::fs::read_to_string(&path).expect("the edited file");
    let timed = |args: &[&str]| -> Duration {
        let (took, out) = run_exiting(root, args, ok);
        // (a daemon that could not answer would make these figures a
        // cold check's)
        assert!(
            !String::from_utf8_lossy(&out.stderr).contains("daemon"),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        took
    };
    let whole = ["check", "--daemon", "always"];
    let hook = [HOOK.as_slice(), &["--daemon", "always"]].concat();
    let runs = if benching { 50 } else { 2 };
    let _ = Command::new(env!("CARGO_BIN_EXE_yttcheck"))
        .current_dir(root)
        .args(["daemon", "stop"])
        .output();
    run(root, &["daemon", "start", "--idle-seconds", "300"]);
    timed(&whole);
    timed(&whole);
    let mut unchanged: Vec<Duration> = (0..runs).map(|_| timed(&whole)).collect();
    let edit = |i: usize, stage: bool| {
        std::fs::write(&path, format!("{original}\n# edit {i}\n")).expect("edit");
        if stage {
            git(root, &["add", changed]);
        }
        // (a person's edit is not followed by a check within microseconds)
        std::thread::sleep(Duration::from_millis(20));
    };
    let mut edited: Vec<Duration> = (0..runs)
        .map(|i| {
            edit(i, false);
            timed(&whole)
        })
        .collect();
    let mut hooked: Vec<Duration> = (0..runs)
        .map(|i| {
            edit(runs + i, true);
            timed(&hook)
        })
        .collect();
    std::fs::write(&path, &original).expect("restore");
    git(root, &["add", changed]);
    run(root, &["daemon", "stop"]);
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    let spread = |v: &mut Vec<Duration>| {
        v.sort();
        let p = |q: f64| ms(v[((v.len() - 1) as f64 * q).round() as usize]);
        format!(
            "p50 {:.1} ms (p90 {:.1}, min {:.1}, max {:.1})",
            p(0.5),
            p(0.9),
            ms(v[0]),
            ms(v[v.len() - 1])
        )
    };
    println!(
        "  warm daemon, whole check with its text report ({runs} runs each): nothing changed {}; after editing {changed} {}",
        spread(&mut unchanged),
        spread(&mut edited)
    );
    println!(
        "  warm daemon, pre-commit hook after editing {changed} (staged): {}",
        spread(&mut hooked)
    );
}

/// The persistent cache (`--cache-dir`): the cold run that fills it, a
/// re-run of the unchanged repository, and a run after one values file
/// changed (a line added before each run), against the cold check `cold`.
fn cache_reruns(root: &Path, edited: &str, ok: &[i32], cold: Duration) {
    let cache = tempfile::tempdir().expect("temp dir");
    let dir = cache.path().join("cache");
    let dir = dir.to_str().expect("a UTF-8 temp dir");
    let args = ["check", "--quiet", "--daemon", "never", "--cache-dir", dir];
    let filling = measured_exiting(root, &args, ok).0;
    let runs = 9;
    let mut reruns: Vec<Duration> = (0..runs)
        .map(|_| measured_exiting(root, &args, ok).0)
        .collect();
    reruns.sort();
    let file = root.join(edited);
    let original = std::fs::read_to_string(&file).expect("the edited file");
    let mut edits: Vec<Duration> = (0..runs)
        .map(|i| {
            std::fs::write(&file, format!("{original}\n# edit {i}\n")).expect("edit");
            measured_exiting(root, &args, ok).0
        })
        .collect();
    std::fs::write(&file, original).expect("restore");
    edits.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    println!(
        "  persistent cache (--cache-dir): the run that fills it {:.3} s; a re-run of the unchanged repository {:.1} ms (median of {runs}; min {:.1}, max {:.1}) = {:.1}% of the cold check; after editing {edited}: {:.1} ms (median of {runs}; min {:.1}, max {:.1})",
        filling.as_secs_f64(),
        ms(reruns[runs / 2]),
        ms(reruns[0]),
        ms(reruns[runs - 1]),
        100.0 * reruns[runs / 2].as_secs_f64() / cold.as_secs_f64(),
        ms(edits[runs / 2]),
        ms(edits[0]),
        ms(edits[runs - 1]),
    );
}

/// The real-package monorepo of `../shared/realworld/monorepo.py` (the
/// recorded real Carvel configurations, one library each, with their values
/// files as environments): `check` against the loop people run today, one
/// `ytt` per pair two at a time, from the `ytt-commands.txt` it writes.
fn real_packages(ytt: Option<&str>) {
    real_packages_of(None, ytt);
    if let Some(cases) = std::env::var_os("YTTCHECK_BENCH_CASES") {
        real_packages_of(Some(Path::new(&cases)), ytt);
    }
}

/// The monorepo of a corpus folder (`../shared/realworld`'s own cases by
/// default), checked, cached and beside the ytt loop.
fn real_packages_of(cases: Option<&Path>, ytt: Option<&str>) {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/realworld/monorepo.py");
    if !script.exists() {
        println!("real packages: ../shared/realworld/monorepo.py not found, skipped");
        return;
    }
    if let Some(cases) = cases {
        println!("real packages of {}:", cases.display());
    }
    let dir = tempfile::tempdir().expect("temp dir");
    let root = dir.path().join("realmono");
    let mut command = Command::new("python3");
    command.arg(&script).arg("--out").arg(&root);
    if let Some(cases) = cases {
        command.arg("--cases").arg(cases);
    }
    let out = command.output().expect("run monorepo.py");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    git(&root, &["init", "-q"]);
    let commands: Vec<Vec<String>> = std::fs::read_to_string(root.join("ytt-commands.txt"))
        .expect("ytt-commands.txt")
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.split_whitespace().skip(1).map(str::to_string).collect())
        .collect();
    let runs = measured_runs_exiting(&root, &["check", "--quiet"], 9, &[0, 1]);
    let mut walls: Vec<f64> = runs.iter().map(|r| r.0.as_secs_f64()).collect();
    walls.sort_by(f64::total_cmp);
    let (wall, cpu) = medians(&runs);
    let peak = runs.iter().map(|r| r.2).fold(0.0, f64::max);
    println!(
        "real packages ({} pairs): check {:.3} s wall (min {:.3}, max {:.3} of 9), {:.3} s CPU, {:.0} MiB",
        commands.len(),
        wall.as_secs_f64(),
        walls[0],
        walls[walls.len() - 1],
        cpu.as_secs_f64(),
        peak
    );
    // the first pair's values file, edited for the cache's figures
    let edited = commands.iter().find_map(|c| {
        c.windows(2)
            .find(|w| w[0] == "--data-values-file")
            .map(|w| w[1].clone())
    });
    if let Some(edited) = edited {
        cache_reruns(&root, &edited, &[0, 1], wall);
        // (monorepo.py commits what it writes: `--changed-since HEAD`)
        warm_daemon_checks(&root, &edited, &[0, 1], true);
        kubernetes_cost(&root, wall);
        rendered_diff(&root, &commands, wall);
    }
    let Some(ytt) = ytt else {
        println!("  ytt: not found (set YTT=/path/to/ytt to time the ytt loop too)");
        return;
    };
    let t = two_at_a_time(&commands, |args| {
        Command::new(ytt)
            .args(args)
            .current_dir(&root)
            .output()
            .expect("run ytt");
    })
    .as_secs_f64();
    println!(
        "  loop of one ytt per pair (2 at a time): {t:.2} s wall ({:.1}x the check)",
        t / wall.as_secs_f64()
    );
}

/// `check` with every rendered object validated against Kubernetes 1.30.0's
/// schemas (the `-local` layout `.ci/run` installs from the
/// kubernetes-validate wheel), beside the cold check: at most 1.3x it.
fn kubernetes_cost(root: &Path, check: Duration) {
    let schemas = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/tools/kubernetes-json-schema");
    if !schemas.join("v1.30.0-local").is_dir() {
        println!("  kubernetes: target/tools/kubernetes-json-schema not found (.ci/run installs it), skipped");
        return;
    }
    let location = schemas.to_string_lossy().into_owned();
    let args = [
        "check",
        "--quiet",
        "--schema-location",
        &location,
        "--kubernetes-version",
        "1.30.0",
    ];
    let runs = measured_runs_exiting(root, &args, 9, &[0, 1]);
    let mut walls: Vec<f64> = runs.iter().map(|r| r.0.as_secs_f64()).collect();
    walls.sort_by(f64::total_cmp);
    let (wall, _) = medians(&runs);
    println!(
        "  check with Kubernetes 1.30.0 schemas: {:.3} s wall (min {:.3}, max {:.3} of 9), {:.2}x the cold check",
        wall.as_secs_f64(),
        walls[0],
        walls[walls.len() - 1],
        wall.as_secs_f64() / check.as_secs_f64()
    );
}

/// `diff` with every pair rendered at base and head (`--all`), beside the
/// cold check: the rendered manifests' diff is to cost at most twice a
/// check (two revisions' renders). A commit edits every third pair's
/// values file first.
fn rendered_diff(root: &Path, commands: &[Vec<String>], check: Duration) {
    for c in commands.iter().step_by(3) {
        if let Some(w) = c.windows(2).find(|w| w[0] == "--data-values-file") {
            let path = root.join(&w[1]);
            let mut text = std::fs::read_to_string(&path).unwrap_or_default();
            text.push_str("\n# edited for the diff bench\n");
            std::fs::write(&path, text).expect("edit a values file");
        }
    }
    git(root, &["add", "-A"]);
    git(root, &["commit", "-q", "-m", "bench: edit"]);
    let args = [
        "diff", "--base", "HEAD~1", "--head", "HEAD", "--all", "--format", "json",
    ];
    let runs = measured_runs_exiting(root, &args, 9, &[0, 1]);
    let mut walls: Vec<f64> = runs.iter().map(|r| r.0.as_secs_f64()).collect();
    walls.sort_by(f64::total_cmp);
    let (wall, _) = medians(&runs);
    println!(
        "  diff --all, every pair rendered at base and head: {:.3} s wall (min {:.3}, max {:.3} of 9), {:.2}x the cold check",
        wall.as_secs_f64(),
        walls[0],
        walls[walls.len() - 1],
        wall.as_secs_f64() / check.as_secs_f64()
    );
}

/// `runs` runs of [`measured_exiting`].
fn measured_runs_exiting(
    root: &Path,
    args: &[&str],
    runs: usize,
    ok: &[i32],
) -> Vec<(Duration, Duration, f64)> {
    (0..runs)
        .map(|_| measured_exiting(root, args, ok))
        .collect()
}

/// The pre-commit hook's command (without `--daemon`).
const HOOK: [&str; 5] = ["check", "--staged", "--changed-since", "HEAD", "--quiet"];

/// The pre-commit hook's command, with a warm daemon and without: after
/// each edit of one environment's values file (staged), end to end
/// (process start, connect, re-check, print).
fn daemon(root: &Path, changed: &str, benching: bool) {
    let hook = |daemon: &str| -> Duration {
        run(root, &[HOOK.as_slice(), &["--daemon", daemon]].concat()).0
    };
    let path = root.join(changed);
    let original = std::fs::read_to_string(&path).unwrap();
    let edit = |i: usize| {
        // a real change every time: the pair must be checked again
        std::fs::write(&path, format!("{original}# edit {i}\n")).unwrap();
        git(root, &["add", changed]);
    };
    run(root, &["daemon", "start", "--idle-seconds", "300"]);
    edit(0);
    let first = hook("always");
    // the whole repository cached: the daemon's memory
    run(root, &["check", "--quiet", "--daemon", "always"]);
    let (_, status) = run(root, &["daemon", "status", "--json"]);
    let rss: f64 = serde_json::from_str::<serde_json::Value>(&status).unwrap()["rss_kib"]
        .as_f64()
        .unwrap()
        / 1024.0;
    let runs = if benching { 100 } else { 3 };
    let mut warm: Vec<Duration> = (1..=runs)
        .map(|i| {
            edit(i);
            hook("always")
        })
        .collect();
    warm.sort();
    let cold_runs = if benching { 10 } else { 1 };
    let cold = median(
        (0..cold_runs)
            .map(|i| {
                edit(runs + 1 + i);
                hook("never")
            })
            .collect(),
    );
    run(root, &["daemon", "stop"]);
    let p = |q: f64| warm[((warm.len() - 1) as f64 * q).round() as usize];
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    println!("pre-commit hook after editing {changed} (staged), end to end:");
    println!(
        "  warm daemon: p50 {:.1} ms, p99 {:.1} ms, min {:.1} ms, max {:.1} ms ({runs} runs)",
        ms(p(0.5)),
        ms(p(0.99)),
        ms(warm[0]),
        ms(warm[warm.len() - 1])
    );
    println!(
        "  in-process (cold): {:.1} ms (median of {cold_runs}); cold/warm = {:.1}x",
        ms(cold),
        ms(cold) / ms(p(0.5))
    );
    println!("  first request after daemon start: {:.1} ms", ms(first));
    println!("  daemon resident memory with every pair cached: {rss:.0} MiB");
}
