#!/usr/bin/env python3
"""`cargo test --workspace`, its test executables run side by side.

    scripts/test_binaries.py [--jobs N]

`cargo test` runs one test executable after another, and most of them spend
their time waiting (on child processes, sockets, timeouts): on two cores the
run used one core on average. This builds them as `cargo test` does
(`--no-run`, the same flags, so the same artifacts), then runs every one of
them and the doc tests (`cargo test --doc --workspace`, one job) N at a time
(default 3),
each as cargo would run it: from its package's directory, with the
environment cargo gives a test (cargo's own, with CARGO, plus
CARGO_MANIFEST_DIR, CARGO_PKG_NAME, CARGO_PKG_VERSION, CARGO_CRATE_NAME).

Each executable's whole output is printed when it ends, under a header with
its time. Exits 1 if any failed (their output is printed again at the end),
2 if the build failed. Nothing is skipped: an executable that cannot start
is a failure.
"""

import argparse
import json
import os
import shlex
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor

# Started first, being the longest (ui runs trybuild, which builds a
# dependency tree of its own): the others fill the remaining slots around them.
LONGEST_FIRST = ["doc tests", "mcp-tests ui", "oxmcp-server protocol", "oxmcp-redis redis"]


def build(cargo, args, env):
    """The test executables `cargo test ARGS` would run, built."""
    cmd = [cargo, "test", "--no-run", "--message-format=json-render-diagnostics", *args]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True, env=env)
    jobs = []
    for line in proc.stdout:
        try:
            msg = json.loads(line)
        except json.JSONDecodeError:
            sys.stdout.write(line)
            continue
        if msg.get("reason") != "compiler-artifact":
            continue
        if not msg["profile"]["test"] or not msg.get("executable"):
            continue
        manifest = msg["manifest_path"]
        # The package id's last segment is `name@version` (or, for a path
        # package of the same name as its folder, just `version`).
        pkg = msg["package_id"].rsplit("#", 1)[-1]
        if "@" in pkg:
            name, version = pkg.rsplit("@", 1)
        else:
            name, version = os.path.basename(os.path.dirname(manifest)), pkg
        target = msg["target"]
        jobs.append({
            "label": f"{name} {target['name']}",
            "cmd": [msg["executable"]],
            "cwd": os.path.dirname(manifest),
            "env": {
                "CARGO_MANIFEST_DIR": os.path.dirname(manifest),
                "CARGO_MANIFEST_PATH": manifest,
                "CARGO_PKG_NAME": name,
                "CARGO_PKG_VERSION": version,
                "CARGO_CRATE_NAME": target["name"].replace("-", "_"),
            },
        })
    if proc.wait() != 0:
        sys.exit(2)
    return jobs


def cargo_env():
    """The environment cargo gives the processes it starts, as `cargo test`
    gives it to its tests: CARGO (the toolchain's binary, not rustup's
    proxy) and, under rustup, RUSTUP_HOME and RUSTUP_TOOLCHAIN (a test that
    moves HOME still runs cargo and rustc). Read by running a cargo
    subcommand that prints its environment; plus LD_LIBRARY_PATH with the
    toolchain's libraries (a proc-macro crate's test links libstd there)."""
    with tempfile.TemporaryDirectory() as bindir:
        helper = os.path.join(bindir, "cargo-oxmcp-print-env")
        with open(helper, "w") as f:
            f.write(f"#!/bin/sh\nexec {shlex.quote(sys.executable)} -c "
                    "'import json, os; print(json.dumps(dict(os.environ)))'\n")
        os.chmod(helper, 0o755)
        path = bindir + os.pathsep + os.environ.get("PATH", "")
        out = subprocess.run(["cargo", "oxmcp-print-env"], env=dict(os.environ, PATH=path),
                             capture_output=True, text=True, check=True).stdout
    env = json.loads(out)
    env["PATH"] = os.environ.get("PATH", "")
    libdir = subprocess.run(["rustc", "--print", "target-libdir"], capture_output=True, text=True,
                            check=True, env=env).stdout.strip()
    env["LD_LIBRARY_PATH"] = os.pathsep.join(p for p in (libdir, env.get("LD_LIBRARY_PATH")) if p)
    return env


def run(job, base_env, lock):
    env = dict(base_env, **job["env"])
    start = time.monotonic()
    try:
        done = subprocess.run(job["cmd"], cwd=job["cwd"], env=env, stdin=subprocess.DEVNULL,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        out, code = done.stdout.decode(errors="replace"), done.returncode
    except OSError as e:
        out, code = f"could not start {job['cmd'][0]}: {e}\n", 127
    job["secs"], job["code"], job["out"] = time.monotonic() - start, code, out
    with lock:
        verdict = "ok" if code == 0 else f"FAILED (exit status {code})"
        print(f"\n---- {job['label']}: {verdict} in {job['secs']:.1f} s ({' '.join(job['cmd'])})", flush=True)
        sys.stdout.write(out)
        sys.stdout.flush()
    return job


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=3)
    opts = parser.parse_args()
    base_env = cargo_env()
    # Under rustup, cargo itself runs in this environment too: with the
    # toolchain pinned, as the `cargo` proxy pins it (a crate's own
    # rust-toolchain file must not pick the compiler of its build).
    cargo = base_env["CARGO"]
    start = time.monotonic()
    jobs = build(cargo, ["--workspace"], base_env)
    print(f"built {len(jobs)} test executables in {time.monotonic() - start:.0f} s", flush=True)
    # The doc tests with the same packages selected as the build, so with the
    # same features: nothing is built again.
    jobs.append({"label": "doc tests", "cmd": [cargo, "test", "--doc", "--workspace"],
                 "cwd": os.getcwd(), "env": {}})
    rank = {label: i for i, label in enumerate(LONGEST_FIRST)}
    jobs.sort(key=lambda j: rank.get(j["label"], len(rank)))
    lock = threading.Lock()
    run_start = time.monotonic()
    with ThreadPoolExecutor(max_workers=opts.jobs) as pool:
        finished = list(pool.map(lambda j: run(j, base_env, lock), jobs))
    failed = [j for j in finished if j["code"] != 0]
    print(f"\n{len(finished)} jobs ran in {time.monotonic() - run_start:.0f} s, {opts.jobs} at a time; the longest:")
    for j in sorted(finished, key=lambda j: -j["secs"])[:8]:
        print(f"  {j['secs']:6.1f} s  {j['label']}")
    for j in failed:
        print(f"\n==== FAILED: {j['label']} (exit status {j['code']}), its output again:\n{j['out']}")
    if failed:
        print("failed: " + ", ".join(j["label"] for j in failed))
        sys.exit(1)


if __name__ == "__main__":
    main()
