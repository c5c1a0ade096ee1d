#!/bin/sh
# Builds the Windows binaries of dama from the sources: dama-cb's engine DLL for CheckerBoard
# (dama.dll), and with --all also dama.exe and dama-engine.exe. Needs Debian bookworm's
# rustc-web, cargo-web and rust-web-src (1.96), which build the x86_64-pc-windows-gnu standard
# library from source (-Z build-std; rustup's toolchain has no Windows std here), and
# gcc-mingw-w64-x86-64 to link. Panics unwind, so that every export catches them (a panic
# must never reach CheckerBoard). Usage: dama-cb/build.sh [--all] [OUT_DIR]
# (default target/windows/dist).
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
all=no
if [ "${1:-}" = "--all" ]; then all=yes; shift; fi
out=${1:-$root/target/windows/dist}
cargo_home=${CARGO_HOME:-$HOME/.cargo}
cd "$root"
build() {
    RUSTC=/usr/bin/rustc RUSTDOC=/usr/bin/rustdoc RUSTC_BOOTSTRAP=1 \
    CARGO_TARGET_X86_64_PC_WINDOWS_GNU_LINKER=x86_64-w64-mingw32-gcc \
    RUSTFLAGS="-C panic=unwind --remap-path-prefix=$root=/dama --remap-path-prefix=$cargo_home=/cargo" \
        /usr/bin/cargo build --quiet -Z build-std=std,panic_unwind,panic_abort \
        --target x86_64-pc-windows-gnu --release --target-dir "$root/target/windows" "$@"
}
build -p dama-cb
if [ "$all" = yes ]; then
    # The lean dama.exe: without the web server and the PNG renderer (as the README's main
    # command); dama-engine.exe, the Hub engine.
    build -p dama-cli --no-default-features
    build -p dama-protocol --bin dama-engine
fi
mkdir -p "$out"
bin="$root/target/windows/x86_64-pc-windows-gnu/release"
cp "$bin/dama_cb.dll" "$out/dama.dll"
if [ "$all" = yes ]; then
    cp "$bin/dama.exe" "$bin/dama-engine.exe" "$out/"
fi
echo "$out"
