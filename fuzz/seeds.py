"""Writes the seed corpora of the fuzz targets under fuzz/corpus/<target>/ (committed).

Usage (from the workspace root): python3 fuzz/seeds.py [path/to/dama]
With the `dama` binary, the movetext seeds hold legal moves of their positions (from
`dama moves`); without it, a few fixed texts. Seeds are named by the SHA-1 of their content.

Byte layouts follow fuzz_targets/common.rs (arbitrary's Unstructured reads from the front):
variant = byte % 6 (Variant::ALL order), a bool = byte & 1, a known position = byte % count.
"""
import glob
import hashlib
import os
import random
import re
import subprocess
import sys

ROOT = "fuzz/corpus"
VARIANTS = ["italian", "spanish", "czech", "english", "russian", "brazilian"]


def put(target, data):
    if isinstance(data, str):
        data = data.encode("latin-1" if target == "pdn" else "utf-8")
    os.makedirs(os.path.join(ROOT, target), exist_ok=True)
    name = hashlib.sha1(data).hexdigest()[:16]
    with open(os.path.join(ROOT, target, name), "wb") as f:
        f.write(data)


def known_positions():
    """The list fuzz_targets/common.rs builds, in the same order."""
    out = []
    for line in open("tests/data/perft.txt"):
        if line.startswith("pos "):
            out.append(line.split(" ", 2)[2].strip())
    shots = [l.split(";")[0] for l in open("tests/data/shots.txt")
             if l.strip() and not l.startswith("#")]
    return out + shots[:40]


def fen_seeds(known):
    fens = known[:30] + [
        '"B:B12,K1:W32,28."', "W:B:W", "W:WK1-4:B5", "W:W21:B1:H0:F1", "B:W18:B",
        "W:W21,,22,:B1", "W:W22", "X:W5:B1", "W:W21-32,1:B2-13", "w:wk5,6:bk27",
        "B:W1,2,3,4:B29,30,31,32", "W:WK1,K2,K3,K4,K5,K6,K7,K8,K9,K10,K11,K12:B13-24",
        "Wbbbbbbbbbbbbeeeeeeeewwwwwwwwwwww", "BeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeW", "W:W5-3:B1",
        "W:W 21 , 22 :B 1",
    ]
    for f in fens:
        put("fen", f)


def hub_seeds():
    start = "Wbbbbbbbbbbbbeeeeeeeewwwwwwwwwwww"
    sessions = [
        "hub\ninit\nping\nquit\n",
        "hub\nset-param name=variant value=russian\ninit\npos start\nlevel depth=2\ngo think\n",
        f'pos pos={start} moves="22-18 11-15"\nlevel nodes=200\ngo\nping\n',
        'pos start moves="22-18 22-18"\nping\n',
        "level depth=3\ngo think\nstop\nping\n",
        "level infinite\ngo analyze\nping\nstop\n",
        "level move-time=0.01\ngo ponder\nponder-hit\nping\n",
        "go ponder\nstop\ngo think\nstop\n",
        "level moves=20 time=60 inc=2\ngo\nnew-game\ngo\n",
        "set-param name=level value=novice\nlevel depth=2\ngo\nset-param name=level value=5\ngo\n",
        "set-param name=seed value=7\nset-param name=multipv value=3\nlevel depth=2\ngo analyze\nstop\n",
        "set-param name=hash value=99999\nset-param name=threads value=0\nset-param name=bogus value=1\n",
        "set-param name=variant value=klingon\nset-param name=variant\n",
        'pos pos=Wbbb\npos\npos start moves="22x18"\n',
        "go sideways\ngo\n",
        "level\nlevel depth=0\nlevel time=NaN\nlevel move-time=-1\nlevel time=-5 inc=1\n",
        "pos pos=BeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeW\ngo\n",
        "pos pos=Weeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee\ngo\nping\n",
        "pos pos=WeeeeeeeeeeeeeeeeebeeeeeeeeeeeeWe\nlevel depth=4\ngo\n",
        "ping\nping\nping\nstop\nstop\nponder-hit\n",
        '=x\nfoo bar\nset-param name="unterminated\n\r\n\t\n',
        'pos start moves="22-18 11-15 18x11x15"\ngo\n',
        'set-param name=variant value=english\npos start moves="22-18 11-15"\ngo think\nquit\nping\n',
        "set-param name=variant value=brazilian\nlevel depth=2 nodes=9\ngo\n"
        "set-param name=variant value=czech\ngo\n",
        "go\ngo\ngo\nstop\n",
        "go analyze\ngo think\nstop\nping\n",
        "init\nnew-game\nnew-game\ngo ponder\nnew-game\n",
        "hub\r\nping\r\n",
        'pos start moves="' + " ".join(["22-18"] * 50) + '"\n',
        'level depth=1\ngo\npos start moves="21-17"\ngo\npos start moves="21-17 10-14"\ngo\n',
    ]
    for s in sessions:
        put("hub_lines", s)


def pdn_seeds():
    # The first byte picks the default variant: '0' (48) is Italian, '1' Spanish...
    for path in sorted(glob.glob("tests/data/pdn/*.pdn")):
        text = open(path, "rb").read()
        for game in re.split(rb"\n(?=\[Event)", text):
            if game.strip():
                put("pdn", b"0" + game)
    snippets = [
        "1. 22-18 11-15 *",
        '[GameType "24"]\n1. 21-17 12-16 *',
        '[FEN "B:W18:B"]\n0-1',
        '[GameType "25"]\n1. c3-d4 f6-e5 2. d4xf6 g7xe5 *',
        '[GameType "21"]\n1. 11-15 23-19 *',
        "{only a comment} *",
        "1. 22-19 10-14 2. 19x10 5x14 (2... 6x13) 1/2-1/2",
        '%escape\n[Result "?"]\n*',
        '[Black "\\"q\\""]\n1.22-18 ; line comment }\n*',
        '[FEN "W:WK1,K2:BK31"]\n1. 1-5 31-27 2. 5-10 *',
        "1. 22-18! 11-15?? 2. 18x11x15 $3 *",
        '[GameType "26"]\n[FEN "W:Wa1,c1:Bh8"]\n*',
        '[GameType "29,W,8,8,A0,0"]\n1. c3-d4 *',
        '\xff\xfe[Event "latin1 \xe9"]\n*',
    ]
    for i, s in enumerate(snippets):
        put("pdn", chr(ord("0") + i % 6) + s)


def legal_moves(dama, variant, fen):
    if not dama:
        return []
    r = subprocess.run([dama, "moves", "--variant", variant, "--fen", fen],
                       capture_output=True, text=True)
    return r.stdout.split() if r.returncode == 0 else []


def movetext_seeds(known, dama):
    # variant byte, bool 1 (a known position), position index, format byte (0 Hub, 1 PDN,
    # 2 either), then the text.
    fixed = ["22-18", "27x20x23", "27x20", "13x22x31", "1-5", "11-15", "x", "22-", "33-1"]
    for i, fen in enumerate(known[:24]):
        v = VARIANTS.index(fen_variant(i)) if i < 18 else 0
        moves = legal_moves(dama, VARIANTS[v], fen)[:2] or fixed[i % len(fixed):][:1]
        for j, m in enumerate(moves):
            put("movetext", bytes([v, 1, i, (i + j) % 3]) + m.encode())
    for k, t in enumerate(fixed):
        put("movetext", bytes([k % 6, 1, 0, k % 3]) + t.encode())


def fen_variant(i):
    lines = [l for l in open("tests/data/perft.txt") if l.startswith("pos ")]
    return lines[i].split()[1]


def rules_seeds():
    # variant byte, bool 1 + position index, or bool 0 + turn + 32 square bytes (0..149
    # empty, then white men, black men, white kings, black kings); then the plies, then the
    # choices.
    rng = random.Random(12)
    for v in range(6):
        for i in [0, 6, 7, 18, 25, 40]:
            put("rules", bytes([v, 1, i, 24]) + bytes(rng.randrange(256) for _ in range(32)))
    for k in range(12):
        board = bytes(rng.choice([0] * 5 + [160, 190, 220, 240]) for _ in range(32))
        tail = bytes(rng.randrange(256) for _ in range(32))
        put("rules", bytes([k % 6, 0, k & 1]) + board + bytes([24]) + tail)


def setup_seeds():
    # turn byte, then one byte a square 1..32: 0..149 empty, 150.. white man, 180.. black
    # man, 210.. white king, 233.. black king (fuzz_targets/setup.rs).
    wm, bm, wk, bk = 160, 190, 220, 240
    start = bytes([bm] * 12 + [0] * 8 + [wm] * 12)
    put("setup", bytes([0]) + start)
    put("setup", bytes([1]))  # no pieces at all
    put("setup", bytes([0, wm] + [0] * 30 + [bm]))  # W:W1:B32, both crowned
    put("setup", bytes([1]) + bytes([wk] * 13 + [bk] * 4))  # 13 white pieces
    put("setup", bytes([0] + [0] * 17 + [wm] + [0] * 3 + [bm]))  # B:W18 style, men on 18, 22
    rng = random.Random(31)
    for _ in range(8):
        put("setup", bytes([rng.randrange(2)]) + bytes(
            rng.choice([0] * 6 + [wm, bm, wk, bk]) for _ in range(32)))


# Command lines for fuzz_targets/cli_args.rs: arguments after `dama`, separated by NUL bytes.
CLI_SEEDS = [
    "moves", "moves --fen W:W21:B1 --format pdn", "moves --stdin", "perft --depth 5 --divide",
    "perft --fen B:W18:B11 --depth 3 --variant russian", "analyze --depth 12 --multipv 3",
    "analyze --time 0.25 --fen W:W22,29:B18,9", "analyze --pdn game.pdn --ply 20 --json",
    "analyze --pdn game.pdn --annotate --depth 10 --margin 0.5", "analyze --level hard",
    "analyze --time -1", "analyze --time 1e308", "analyze --nodes 100000 --threads 2",
    "match level:strong level:normal --games 100 --concurrency 2",
    "match nodes:20000/weights=my.weights nodes:20000 --games 400",
    "match level:hard depth:8 --movetime 0.2 --pdn games.pdn",
    "match level:easy level:novice --games 1000 --shard 3/10 --pdn part3.pdn",
    "match depth:9999999999 level:novice", "match time:1e308 level:easy --egtb1 memory",
    "match hub:dama-engine level:easy --sprt elo0=0 elo1=5 alpha=0.05 beta=0.05",
    "pdn check games.pdn", "pdn fens -", "pdn convert x.pdn --variant spanish",
    "pdn stats a.pdn b.pdn --player dama --json --sprt elo0=0 elo1=5",
    "egtb build --pieces 7 --allow-huge --threads 2", "egtb probe --fen W:WK18,22:BK29",
    "egtb probe --stdin --dir /tmp", "egtb info --dir /nonexistent", "egtb verify --pieces 3",
    "egtb convert --positions 10 --pieces 5 --classes kings --start lost --seed 3",
    "board --png x.png --svg x.svg --highlight 22-18", "board --plain --fen B:W18:B11",
    "bench --depth 3", "completions bash", "engine", "play --plain --level 1 --seed 7",
    "serve --port 0 --memory --searchers 2", "serve --bind 0.0.0.0 --idle 0",
    "tune gen --games 10", "tune fit x.samples --rate 4 --l2 1e-6", "book build --help",
    "--log-level debug moves", "-vvv perft --depth 1", "--version", "help match",
]


def cli_args_seeds():
    for line in CLI_SEEDS:
        put("cli_args", "\0".join(line.split(" ")))


def main():
    dama = sys.argv[1] if len(sys.argv) > 1 else None
    known = known_positions()
    fen_seeds(known)
    hub_seeds()
    pdn_seeds()
    movetext_seeds(known, dama)
    rules_seeds()
    setup_seeds()
    cli_args_seeds()
    for t in sorted(os.listdir(ROOT)):
        print(t, len(os.listdir(os.path.join(ROOT, t))))


if __name__ == "__main__":
    main()
