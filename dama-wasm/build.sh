#!/bin/sh
# Builds dama-wasm/dama.wasm from the sources, reproducibly (the same bytes from any
# checkout folder). Needs Debian bookworm's rustc-web, cargo-web, rust-web-src (1.96) and
# lld: rustup's toolchain has no wasm32 standard library here; this one is built from source
# (-Z build-std) with panics that unwind (the boundary catches them), SIMD128 for the
# network, and wasm exception handling. Chromium 95+, Firefox 100+ and Safari 16.4+ run it;
# node 20 too. Usage: dama-wasm/build.sh [OUT] (default dama-wasm/dama.wasm).
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$root/dama-wasm/dama.wasm}
cargo_home=${CARGO_HOME:-$HOME/.cargo}
cd "$root"
RUSTC=/usr/bin/rustc RUSTDOC=/usr/bin/rustdoc RUSTC_BOOTSTRAP=1 \
RUSTFLAGS="-C panic=unwind -C target-feature=+simd128,+exception-handling -C linker=wasm-ld \
--remap-path-prefix=$root=/dama --remap-path-prefix=$cargo_home=/cargo" \
    /usr/bin/cargo build --quiet -Z build-std=std,panic_unwind,panic_abort \
    --target wasm32-unknown-unknown --profile wasm -p dama-wasm --target-dir "$root/target/wasm"
cp "$root/target/wasm/wasm32-unknown-unknown/wasm/dama_wasm.wasm" "$out"
# The toolchain that made it: CI compares the bytes when its toolchain is the same.
if [ "$#" -eq 0 ]; then
    /usr/bin/rustc -V > "$root/dama-wasm/dama.wasm.toolchain"
fi
