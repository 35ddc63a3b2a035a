"""Seed corpora for the fuzz targets, made at run time from ../shared (ytt's
recorded cases and real configurations stay out of this repository) plus a
few requests and configs of our own. Usage: seeds.py SHARED_DIR CORPUS_DIR"""
import json
import os
import sys

shared, corpus = sys.argv[1], sys.argv[2]


def put(target, name, data):
    d = os.path.join(corpus, target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


def files_of(root):
    for dirpath, _, names in os.walk(root):
        for n in sorted(names):
            p = os.path.join(dirpath, n)
            if os.path.getsize(p) <= 64 * 1024:
                yield p


n = 0
cases = os.path.join(shared, "conformance", "cases")
for case in sorted(os.listdir(cases)) if os.path.isdir(cases) else []:
    files = [p for p in files_of(os.path.join(cases, case, "files"))]
    ytt = [p for p in files if p.endswith((".yml", ".yaml"))]
    star = [p for p in files if p.endswith(".star")]
    for p in ytt:
        n += 1
        put("yaml", f"c{n}", open(p, "rb").read())
    parts = [open(p, "rb").read() for p in (ytt[:1] + star[:1] + ytt[1:2])]
    if parts:
        put("template", case, b"\0".join(parts))
    try:
        args = json.load(open(os.path.join(cases, case, "args.json")))
    except (OSError, ValueError):
        args = []
    if isinstance(args, dict):
        args = args.get("args", [])
    vs = [a for i, a in enumerate(args[1:], 1) if args[i - 1] in ("-v", "--data-value")]
    ys = [a for i, a in enumerate(args[1:], 1) if args[i - 1] == "--data-value-yaml"]
    if vs or ys:
        put("flags", case, "\0".join([vs[0] if vs else "", ys[0] if ys else "", "name=x"]).encode())

real = os.path.join(shared, "realworld")
for p in files_of(real) if os.path.isdir(real) else []:
    if p.endswith((".yml", ".yaml", ".star")):
        n += 1
        put("yaml" if not p.endswith(".star") else "template", f"r{n}", open(p, "rb").read())

for i, seed in enumerate([
    "replicas=3\0ports: [{name: http, port: 8080}]\0REPLICAS=2",
    "labels.tier=db\0labels: {a: b}\0EXTRA=x",
    "extra=\0extra: null\0NAME=svc",
]):
    put("flags", f"own{i}", seed.encode())

for i, seed in enumerate([
    "libraries:\n- path: libs/web\nenvironments:\n- glob: envs/*\n",
    "exclude: ['envs/prod/**']\nfail_on: warning\n",
    "environments:\n- name: dev\n  files: ['envs/dev/*.yml']\n  data_values: ['replicas=1']\n",
    "budget:\n  max_steps: 100\n  timeout_seconds: 1\nsecret_words: [token]\n",
    "rules:\n  values/deprecated: error\nignore:\n- rule: validation/min\n  paths: ['envs/**']\n",
]):
    put("config", f"own{i}", seed.encode())

def request(fields, selection):
    """A typed check request (protocol 2), with `fields` and `selection` set."""
    sel = {"paths": [], "libraries": [], "environments": [], "shard": None, "root": ".",
           "staged": False, "rev": None, "changed_since": None}
    sel.update(selection)
    req = {"cwd": "/tmp", "selection": sel, "outputs": [], "fail_on": None, "jobs": 0,
           "skip_validation": False, "render": True, "color": False, "progress": False,
           "baseline": None, "update_baseline": False,
           "budget": {"max_steps": None, "timeout": None}}
    req.update(fields)
    return req


for i, seed in enumerate([
    {"kind": "status"},
    {"kind": "stop"},
    {"kind": "check", "protocol": 2, "index_file": None, "request": request(
        {"outputs": [{"format": "json", "file": None}]},
        {"staged": True})},
    {"kind": "check", "protocol": 2, "index_file": "/tmp/i", "request": request(
        {"color": True, "jobs": 3, "budget": {"max_steps": 10, "timeout": 1.5}},
        {"root": "x", "shard": "1/2", "paths": ["envs"]})},
]):
    put("daemon_request", f"own{i}", json.dumps(seed).encode())

# the CI printers: fields separated by \x01 (library, environment, path, key,
# message, detail, origin, a source line), hostile and plain
for i, fields in enumerate([
    ["web", "prod", "envs/prod/web.yml", "replicas", "replicas: must be >= 1", "by libs/web/schema.yml:3", "(data-value arg)", "replicas: 0"],
    ["w\neb", "pr\rod", "a\n::error::x.yml", "k\r## h|`", "::add-mask::x ##[error]y", "\u2028<img src=x>", "@me :+1:", "password: {a: [b, c]}"],
    ["web`x`", "www.evil.io", "https://x", "db.password", "$x$ *y* _z_ [l](u)", "&amp; \\| \\", ":::", "\x1b[2J::stop-commands::t"],
]):
    put("ci_printers", f"own{i}", "\x01".join(fields).encode())

# YAML scalars: a style byte (plain, single, double, literal, folded, array
# item) then the text; values from the recorded YAML in every style, and
# hand-made ones with the characters YAML treats specially.
scalars = set()
for p in files_of(cases) if os.path.isdir(cases) else []:
    if p.endswith((".yml", ".yaml")):
        for line in open(p, "rb").read().splitlines():
            key, sep, value = line.partition(b": ")
            if sep and value.strip() and not value.startswith(b"#"):
                scalars.add(value.strip())
for i, value in enumerate(sorted(scalars)[:400]):
    put("yaml_scalars", f"c{i}", bytes([i % 6]) + value)
for i, text in enumerate([
    "a\u2028b", "a\u0085b", "\ufeffx", "x # y", "a: b", "- x", "0x1F", "1e3", "~",
    "yes", "'q'", '"q\\u00e9"', "tab\there", "  lead", "trail  ", "a\n\nb\n",
    "\x01\x7f", "#@ x", "[a, b]", "{a: b}", "!!str 1", "&a x", "*a", "% x", "@x", "`x",
]):
    for style in range(6):
        put("yaml_scalars", f"own{i}-{style}", bytes([style]) + text.encode())

# CRDs: the real configurations' CustomResourceDefinitions (contour's,
# tempo-operator's...), and a small one of our own
crd_n = 0
for p in files_of(real) if os.path.isdir(real) else []:
    if p.endswith((".yml", ".yaml")):
        data = open(p, "rb").read()
        if b"CustomResourceDefinition" in data:
            crd_n += 1
            put("crd", f"r{crd_n}", data)
put("crd", "own0", b"""apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  names: {kind: Widget, plural: widgets}
  versions:
  - name: v1
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec: {type: object, required: [size], properties: {size: {type: integer, nullable: true}, port: {x-kubernetes-int-or-string: true}}}
---
apiVersion: example.com/v1
kind: Widget
metadata: {name: w}
spec: {size: "3", port: http}
""")
