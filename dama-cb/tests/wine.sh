#!/usr/bin/env bash
# The Windows build tested under Wine: builds dama.dll, dama.exe and dama-engine.exe for
# x86_64-pc-windows-gnu (dama-cb/build.sh --all), the C harness and the bcryptprimitives
# stand-in with mingw, then under Wine (Debian's wine64):
#   1. the harness loads dama.dll as CheckerBoard does, asks its name and game type, finds the
#      table files put beside it, feeds it refused boards, odd times, unknown commands and a
#      panic, and plays whole games against itself at CheckerBoard's time settings, each move
#      checked against the board it returns;
#   2. the games it wrote are checked move by move by the native `dama pdn check`;
#   3. dama.dll plays the native dama-engine through Hub, which checks every move;
#   4. dama.exe perft gives the native numbers; dama-engine.exe answers a Hub search.
# Needs (installed by .ci/run's step): gcc-mingw-w64-x86-64, wine64, rustc-web, cargo-web,
# rust-web-src. Usage: dama-cb/tests/wine.sh [GAMES] (default 4). DAMA_BIN and DAMA_ENGINE
# name the native dama and dama-engine (default target/release/, built when missing).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
games=${1:-4}
wine=/usr/lib/wine/wine64
for tool in x86_64-w64-mingw32-gcc "$wine" /usr/bin/cargo; do
    if ! command -v "$tool" >/dev/null 2>&1; then
        echo "wine.sh: $tool is missing: apt-get install gcc-mingw-w64-x86-64 wine64 rustc-web cargo-web rust-web-src"
        exit 2
    fi
done
dist="$root/target/windows/dist"
dama-cb/build.sh --all "$dist" >/dev/null
test_dir="$root/target/wine-test"
rm -rf "$test_dir"
mkdir -p "$test_dir"
cp "$dist/dama.dll" "$dist/dama.exe" "$dist/dama-engine.exe" "$test_dir/"
x86_64-w64-mingw32-gcc -O2 -Wall -Werror -shared -o "$test_dir/bcryptprimitives.dll" \
    dama-cb/tests/wine/bcryptprimitives.c -ladvapi32
x86_64-w64-mingw32-gcc -O2 -Wall -Werror -o "$test_dir/harness.exe" dama-cb/tests/wine/harness.c

native=${DAMA_BIN:-$root/target/release/dama}
if ! [ -x "$native" ]; then
    cargo build --release --quiet -p dama-cli --no-default-features
fi
native_engine=${DAMA_ENGINE:-$root/target/release/dama-engine}
if ! [ -x "$native_engine" ]; then
    cargo build --release --quiet -p dama-protocol --bin dama-engine
fi

# Endgame table files beside the DLL, as a user puts them there (3 pieces: a tenth of a second).
"$native" egtb build --pieces 3 --dir "$test_dir/dama-egtb" >/dev/null 2>&1

export WINEPREFIX="$root/target/wine-prefix" WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml="
if ! [ -f "$WINEPREFIX/system.reg" ]; then
    timeout 300 "$wine" wineboot -i >/dev/null 2>&1 || true
fi
cd "$test_dir"

echo "-- the harness: dama.dll as CheckerBoard loads it"
# The self-test panic prints its message (the default hook) before it is caught: no backtrace.
RUST_BACKTRACE=0 timeout 900 "$wine" harness.exe dama.dll "$games" games.pdn

echo "-- the games, move by move, by the native dama"
"$native" pdn check games.pdn

echo "-- dama.dll against the native dama-engine (Hub), which checks every move of each game"
timeout 900 python3 "$root/dama-cb/tests/wine/versus.py" "$wine" harness.exe dama.dll --serve -- \
    "$native_engine" 2 0.05

echo "-- dama.exe perft under Wine against the native numbers"
"$native" perft --depth 7 | awk '{print $1, $2, $3, $4}' > perft-native.txt
timeout 300 "$wine" dama.exe perft --depth 7 | tr -d '\r' | awk '{print $1, $2, $3, $4}' > perft-wine.txt
if ! cmp -s perft-native.txt perft-wine.txt; then
    echo "dama.exe perft differs from the native dama:"
    diff perft-native.txt perft-wine.txt || true
    exit 1
fi
cat perft-wine.txt

echo "-- dama-engine.exe through Hub under Wine"
hub=$({ printf 'hub\ninit\npos start\nlevel move-time=0.2\ngo think\n'; sleep 8; printf 'quit\n'; } |
    timeout 120 "$wine" dama-engine.exe | tr -d '\r')
echo "$hub" | grep -E '^(id|wait|ready|done)' || true
if ! grep -q '^done move=' <<<"$hub"; then
    echo "dama-engine.exe gave no move"
    exit 1
fi
echo "wine: every check passed"
