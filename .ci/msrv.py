"""Keeps the declared minimum Rust version true.

Every crate in the lock file (dependencies, dev-dependencies and build-dependencies alike,
since `cargo test --workspace` compiles them all) must declare a `rust-version` no higher than
the workspace's `rust-version`, and the README must state the same version.

Usage: msrv.py [README]. Run from the workspace root; reads `cargo metadata`.
Exit status 0 when all fits, 1 with the list of crates that need a newer Rust otherwise.
"""
import json
import re
import subprocess
import sys


def version(text):
    """A Rust version like `1.85` or `1.85.0` as a comparable tuple (1, 85, 0)."""
    parts = [int(p) for p in text.split(".")]
    return tuple(parts + [0] * (3 - len(parts)))


def show(v):
    return ".".join(str(p) for p in v[:2]) if v[2] == 0 else ".".join(map(str, v))


def main():
    readme = sys.argv[1] if len(sys.argv) > 1 else "README.md"
    meta = json.loads(
        subprocess.run(
            ["cargo", "metadata", "--format-version", "1"],
            check=True,
            capture_output=True,
            text=True,
        ).stdout
    )
    members = set(meta["workspace_members"])
    declared = {
        version(p["rust_version"])
        for p in meta["packages"]
        if p["id"] in members and p["rust_version"]
    }
    if len(declared) != 1:
        print(f"msrv: the workspace members declare {sorted(declared)}: expected one "
              "rust-version, set once in [workspace.package] of Cargo.toml")
        return 1
    msrv = declared.pop()
    too_new = sorted(
        (version(p["rust_version"]), p["name"], p["version"])
        for p in meta["packages"]
        if p["id"] not in members
        and p["rust_version"]
        and version(p["rust_version"]) > msrv
    )
    failed = False
    if too_new:
        failed = True
        print(f"msrv: the workspace declares rust-version {show(msrv)}, but the lock file has "
              "crates that need a newer Rust:")
        for need, name, ver in too_new:
            print(f"  {name} {ver} needs {show(need)}")
        need = show(too_new[-1][0])
        print(f"Either raise rust-version to {need} in [workspace.package] of Cargo.toml and "
              f"in {readme} (\"Rust (stable, {need} or newer\"), or keep an older release of "
              "each crate above: `cargo update -p NAME --precise VERSION` (check the crate's "
              "rust-version with `cargo info NAME@VERSION`).")
    text = open(readme, encoding="utf-8").read()
    stated = re.search(r"Rust \(stable, (\d+\.\d+(?:\.\d+)?) or newer", text)
    if not stated or version(stated.group(1)) != msrv:
        failed = True
        found = stated.group(0) if stated else "no such sentence"
        print(f"msrv: {readme} must say \"Rust (stable, {show(msrv)} or newer\", the "
              f"workspace's rust-version; found {found}")
    if not failed:
        print(f"msrv: every crate of the lock file fits rust-version {show(msrv)}; "
              f"{readme} agrees")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
