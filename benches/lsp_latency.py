#!/usr/bin/env python3
"""Time from `didChange` to `publishDiagnostics` of `yttcheck lsp`.

usage: lsp_latency.py YTTCHECK_BIN REPOSITORY ENV_FILE [N]

Opens ENV_FILE (a values file of REPOSITORY) and changes it N times (default
100), alternating a text with an undeclared key and the file's own text, so
that every change adds or clears a diagnostic of that file; prints the
median, p99, min and max of the time from sending each change to receiving
that file's diagnostics. A plain JSON-RPC client (no dependency), so the
figure is the server's and the pipe's.
"""

import json
import os
import pathlib
import statistics
import subprocess
import sys
import time


def send(proc, msg):
    body = json.dumps(msg).encode()
    proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
    proc.stdin.flush()


def read(proc):
    length = None
    while True:
        line = proc.stdout.readline()
        if not line:
            raise SystemExit("the server closed its output")
        line = line.strip()
        if not line:
            break
        key, _, value = line.partition(b":")
        if key.lower() == b"content-length":
            length = int(value)
    return json.loads(proc.stdout.read(length))


def wait_for(proc, pred):
    while True:
        msg = read(proc)
        if pred(msg):
            return msg


def main():
    binary, repo, env_file = sys.argv[1], pathlib.Path(sys.argv[2]).resolve(), sys.argv[3]
    n = int(sys.argv[4]) if len(sys.argv) > 4 else 100
    path = repo / env_file
    uri = path.as_uri()
    text = path.read_text()
    proc = subprocess.Popen([binary, "lsp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, cwd=repo)
    send(proc, {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "processId": os.getpid(), "capabilities": {},
        "workspaceFolders": [{"uri": repo.as_uri(), "name": "repo"}]}})
    wait_for(proc, lambda m: m.get("id") == 1)
    send(proc, {"jsonrpc": "2.0", "method": "initialized", "params": {}})
    started = time.perf_counter()
    send(proc, {"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {
        "uri": uri, "languageId": "yaml", "version": 1, "text": text + "no_such_key_0: 1\n"}}})
    is_ours = lambda m: m.get("method") == "textDocument/publishDiagnostics" and m["params"]["uri"] == uri
    wait_for(proc, is_ours)
    first = time.perf_counter() - started
    times = []
    for i in range(n):
        new = text if i % 2 == 0 else text + f"no_such_key_{i}: 1\n"
        t = time.perf_counter()
        send(proc, {"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {
            "textDocument": {"uri": uri, "version": i + 2},
            "contentChanges": [{"text": new}]}})
        wait_for(proc, is_ours)
        times.append((time.perf_counter() - t) * 1000)
    send(proc, {"jsonrpc": "2.0", "id": 2, "method": "shutdown"})
    wait_for(proc, lambda m: m.get("id") == 2)
    send(proc, {"jsonrpc": "2.0", "method": "exit"})
    proc.wait(timeout=10)
    times.sort()
    print(f"first check of the workspace: {first * 1000:.0f} ms")
    print(f"didChange -> publishDiagnostics over {n} edits: p50 {statistics.median(times):.1f} ms, "
          f"p99 {times[int(len(times) * 0.99) - 1]:.1f} ms, min {times[0]:.1f}, max {times[-1]:.1f}")


if __name__ == "__main__":
    main()
