#!/usr/bin/env python3
"""Records a real repository's history against ytt, for the history replay.

For each repository of replay.json (`name`, `repository`: its owner/name,
whose clone with its history is $REPLAY_MIRRORS/<owner>+<name>/repo, as the
search tool's `fetch` lays it out; `scripts`: the files that hold its own
ytt commands; `max`: how many commits to keep), this:

1. lists the commits that touched those scripts or a path their ytt commands
   read, and keeps `max` of them spread evenly over the history;
2. at each kept commit, reads the ytt commands of the scripts as written there
   (continued lines joined; each `ytt ...` up to the first `|`, `>`, `)`,
   `&&` or `;`), shell-split, with every `$VAR`/`$(...)` of a value replaced
   by a fixed `0.0.0-replay` (a command that reads a file or URL we cannot
   have, `--data-value-file x=$DIR/...` or `-f https://...`, is left out);
3. exports the files those commands read at that commit, runs the real ytt
   ($YTT) on each command in that folder with no environment but PATH and
   HOME, and keeps its exit status, stdout and stderr;
4. writes it all as one git bundle per repository (`<name>.bundle`): a
   commit per kept commit, in order, its tree `tree/` (the files read) and
   `replay/cases.json` (the original commit and each command with ytt's
   answers). Git stores each file and each output once however many commits
   share it.

    YTT=/path/to/ytt python3 tests/replay/record.py [NAME ...]

tests/it/replay.rs clones each bundle and runs `yttcheck render` the same way.
"""
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
PLACEHOLDER = "0.0.0-replay"
STOP = re.compile(r"\s(\||>|\)|&&|;|2>)")


def git(repo, *args, **kw):
    return subprocess.run(["git", "-C", repo, *args], check=True, capture_output=True, **kw).stdout


def show(repo, commit, path):
    r = subprocess.run(["git", "-C", repo, "show", f"{commit}:{path}"], capture_output=True)
    return r.stdout.decode("utf-8", "replace") if r.returncode == 0 else None


def joined_lines(text):
    out, cur = [], ""
    for line in text.splitlines():
        s = line.rstrip()
        if s.endswith("\\"):
            cur += s[:-1] + " "
            continue
        out.append(cur + s)
        cur = ""
    if cur:
        out.append(cur)
    return out


def commands_in(text):
    """Each `ytt ...` invocation of a script, as argument lists."""
    found = []
    for line in joined_lines(text):
        for m in re.finditer(r"(?:^|[\s(`'\"/])ytt\s+(-[^\n]*)", line):
            rest = m.group(1)
            stop = STOP.search(" " + rest)
            if stop:
                rest = (" " + rest)[: stop.start()]
            try:
                args = shlex.split(rest, comments=False)
            except ValueError:
                continue
            args = settled(args)
            if args and args not in found:
                found.append(args)
    return found


def settled(args):
    """The arguments with shell values fixed, or None when one cannot be."""
    out = []
    reads_file = {"--data-value-file", "--data-values-file", "-f", "--file"}
    prev = None
    for a in args:
        if "$" in a or "`" in a:
            if prev in reads_file or a.startswith("--data-value-file=") or a.startswith("--data-values-file="):
                return None
            a = re.sub(r"\$\{\{.*?\}\}|\$\{[^}]*\}|\$\([^)]*\)|\$[A-Za-z_][A-Za-z0-9_]*", PLACEHOLDER, a)
        if prev in reads_file and ("://" in a or a.startswith("/") or a == "-"):
            return None
        if a.startswith("<("):
            return None
        out.append(a)
        prev = a
    if "-f" not in out and "--file" not in out:
        return None
    return out


def read_paths(args):
    """The files and folders a command reads (relative to where it runs)."""
    paths, prev = [], None
    for a in args:
        if prev in ("-f", "--file"):
            paths.append(a.split("=", 1)[-1])
        elif prev in ("--data-value-file", "--data-values-file"):
            paths.append(a.split("=", 1)[-1])
        prev = a
    return [os.path.normpath(p) for p in paths]


def export(repo, commit, paths, dest):
    """The files of `paths` at `commit` under `dest`; False when one is missing."""
    existing = []
    for p in paths:
        kind = subprocess.run(["git", "-C", repo, "cat-file", "-t", f"{commit}:{p}"], capture_output=True)
        if kind.returncode != 0:
            return False
        existing.append(p)
    archive = subprocess.run(["git", "-C", repo, "archive", "--format=tar", commit, "--", *existing],
                             capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-m", "-C", dest], input=archive, check=True)
    return True


def sample(items, n):
    if len(items) <= n:
        return items
    step = (len(items) - 1) / (n - 1)
    return [items[round(i * step)] for i in range(n)]


def package_runs(repo, spec):
    """The `packages` layout (community-edition's
    hack/packages/check-sample-values-and-render-ytt.sh): each commit that
    touched a package version's `bundle/config` or `sample-values/`, and for
    each such version the script's command, run in its config folder:
    `ytt -f . [-f ../../sample-values/*.yaml]` (the shell's glob: sorted)."""
    root = spec["packages"]
    pattern = re.compile(re.escape(root) + r"/([^/]+)/([^/]+)/(bundle/config|sample-values)/")
    log = git(repo, "log", "--reverse", "--format=@%H", "--name-only", "--", root).decode()
    kept = []
    for block in log.split("@")[1:]:
        lines = block.split()
        commit, names = lines[0], lines[1:]
        versions = sorted({f"{root}/{m.group(1)}/{m.group(2)}" for m in map(pattern.match, names) if m})
        runs = []
        for v in versions:
            listing = git(repo, "ls-tree", "-r", "--name-only", commit, "--", f"{v}/").decode().split()
            if not any(f.startswith(f"{v}/bundle/config/") for f in listing):
                continue
            samples = sorted(f for f in listing if re.fullmatch(re.escape(v) + r"/sample-values/[^/]+\.yaml", f))
            args = ["-f", "."] + [a for f in samples for a in ("-f", "../../sample-values/" + f.rsplit("/", 1)[1])]
            runs.append({"dir": f"{v}/bundle/config", "args": args, "paths": [f"{v}/bundle/config"] + samples})
        if runs:
            kept.append((commit, runs))
    return kept


def script_runs(repo, spec):
    """The commands of the repository's scripts at each commit that touched
    them or what they read."""
    scripts = spec["scripts"]
    # the paths the commands ever read, over the whole history of the scripts
    touched = set(scripts)
    for commit in git(repo, "log", "--format=%H", "--", *scripts).decode().split():
        for s in scripts:
            text = show(repo, commit, s)
            for args in commands_in(text or ""):
                touched.update(p for p in read_paths(args) if p != ".")
    history = git(repo, "log", "--reverse", "--format=%H", "--", *sorted(touched)).decode().split()
    kept = []
    for commit in history:
        cmds = []
        for s in scripts:
            for args in commands_in(show(repo, commit, s) or ""):
                if args not in cmds:
                    cmds.append(args)
        if cmds:
            kept.append((commit, [{"dir": ".", "args": a, "paths": read_paths(a)} for a in cmds]))
    return kept


def record(spec, ytt):
    owner, name = spec["repository"].split("/")
    repo = os.path.join(os.environ.get("REPLAY_MIRRORS", "/work/.mirror"), f"{owner}+{name}", "repo")
    kept = package_runs(repo, spec) if "packages" in spec else script_runs(repo, spec)
    kept = sample(kept, spec["max"])
    out = tempfile.mkdtemp(prefix="replay-")
    git(out, "init", "-q", "-b", "main")
    env = {"PATH": os.environ["PATH"], "HOME": out}
    n_cases = 0
    for i, (commit, cmds) in enumerate(kept):
        for name in ("tree", "replay"):
            shutil.rmtree(os.path.join(out, name), ignore_errors=True)
        tree = os.path.join(out, "tree")
        os.makedirs(tree)
        os.makedirs(os.path.join(out, "replay"))
        cases = []
        for run_spec in cmds:
            args = run_spec["args"]
            if not export(repo, commit, run_spec["paths"], tree):
                continue
            cwd = os.path.join(tree, run_spec["dir"])
            run = subprocess.run([ytt, *args], cwd=cwd, env=env, capture_output=True, timeout=120)
            k = len(cases)
            for ext, data in (("stdout", run.stdout), ("stderr", run.stderr)):
                with open(os.path.join(out, "replay", f"{k}.{ext}"), "wb") as f:
                    f.write(data)
            cases.append({"dir": run_spec["dir"], "args": args, "exit": run.returncode})
        if not cases:
            continue
        n_cases += len(cases)
        with open(os.path.join(out, "replay", "cases.json"), "w") as f:
            json.dump({"repository": spec["repository"], "commit": commit, "cases": cases}, f, indent=1)
            f.write("\n")
        # (the index forgets what it had: an exported file keeps its commit's
        # time, and one of the same size and time would not be read again)
        git(out, "read-tree", "--empty")
        git(out, "add", "-A")
        git(out, "-c", "user.name=replay", "-c", "user.email=replay@localhost", "commit", "-q",
            "-m", f"{spec['repository']}@{commit}")
        print(f"{spec['name']}: {i + 1}/{len(kept)} {commit[:10]} {[c['exit'] for c in cases]}", flush=True)
    bundle = os.path.join(HERE, f"{spec['name']}.bundle")
    git(out, "gc", "-q", "--aggressive")
    git(out, "bundle", "create", bundle, "main")
    shutil.rmtree(out)
    print(f"{spec['name']}: {len(kept)} commits, {n_cases} runs -> {bundle} ({os.path.getsize(bundle)} bytes)")


def main():
    ytt = os.environ.get("YTT") or sys.exit("set YTT to the ytt binary to record with")
    with open(os.path.join(HERE, "replay.json")) as f:
        specs = json.load(f)["repositories"]
    wanted = sys.argv[1:]
    for spec in specs:
        if not wanted or spec["name"] in wanted:
            record(spec, ytt)


if __name__ == "__main__":
    main()
