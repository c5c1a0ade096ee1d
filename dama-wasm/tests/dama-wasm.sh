#!/bin/sh
# The WebAssembly engine as a `dama` command for scripts that run one (crosscheck.py):
# `dama-wasm.sh moves --variant V --stdin` and the rest of cli.mjs.
exec node "$(dirname "$0")/../cli.mjs" "$@"
