"""Soak of `dama match`: thousands of fast games between levels in every variant, every game
file checked by `dama pdn check`, and one long match in a single process whose memory must
stay flat. Not run in CI (it takes several minutes); run it after changes to the search, the
match runner or the rules:

    cargo build --release -p dama-cli
    nice -n 19 python3 tests/soak/soak.py [--dama target/release/dama] [--out target/soak]
        [--games 200] [--memory-games 6000] [--memory-variant czech] [--concurrency 2]

Part 1, for each variant: `level:novice` against `level:easy` (--games games) and
`level:novice` against `level:normal` (half as many), each written to a PDN file; each run
must exit 0 with its result line, and `dama pdn check` must read back exactly as many games,
none bad.

Part 2: one `dama match` of --memory-games games in one process (--memory-variant, novice
against easy, written to PDN as well), its resident memory (VmRSS of /proc/PID/status)
sampled every 0.2 s. Flat means: the largest sample of the last tenth of the run is within
--rss-slack-mib (default 8 MiB) of the largest of the first tenth after a warm-up of 5 % of
the run. The peak (VmHWM) is printed too.

Exit status 0 when every check holds, 1 otherwise; the figures are printed either way.
"""
import argparse
import os
import re
import subprocess
import sys
import time

VARIANTS = ["italian", "spanish", "czech", "english", "russian", "brazilian"]
RESULT = re.compile(r"^wins (\d+) draws (\d+) losses (\d+) ")


def check_pdn(dama, path, variant, expected):
    r = subprocess.run([dama, "pdn", "check", "--variant", variant, path],
                       capture_output=True, text=True)
    last = r.stdout.strip().splitlines()[-1] if r.stdout.strip() else ""
    ok = r.returncode == 0 and last == f"{expected} games, 0 bad"
    return ok, last or r.stderr.strip()


def run_match(dama, out, variant, first, second, games, concurrency, seed):
    path = os.path.join(out, f"{variant}-{first.split(':')[1]}-{second.split(':')[1]}.pdn")
    cmd = [dama, "match", first, second, "--games", str(games), "--variant", variant,
           "--concurrency", str(concurrency), "--seed", str(seed), "--pdn", path]
    t = time.monotonic()
    r = subprocess.run(cmd, capture_output=True, text=True)
    elapsed = time.monotonic() - t
    m = RESULT.match(r.stdout.strip().splitlines()[-1] if r.stdout.strip() else "")
    problems = []
    if r.returncode != 0 or not m:
        problems.append(f"exit {r.returncode}: {r.stdout.strip()} {r.stderr.strip()}")
    ok, check = check_pdn(dama, path, variant, games)
    if not ok:
        problems.append(f"pdn check: {check}")
    wdl = tuple(int(x) for x in m.groups()) if m else (0, 0, 0)
    if m and sum(wdl) != games:
        problems.append(f"{sum(wdl)} results for {games} games")
    print(f"{variant:9} {first:13} v {second:13} {games:5} games {elapsed:6.1f} s  "
          f"W-D-L {wdl[0]}-{wdl[1]}-{wdl[2]}  pdn check: {check}"
          + ("" if not problems else "  PROBLEM: " + "; ".join(problems)), flush=True)
    return games, problems


def status_kib(pid, field):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return None


def memory_run(dama, out, variant, games, concurrency, slack_mib):
    path = os.path.join(out, f"memory-{variant}.pdn")
    cmd = [dama, "match", "level:novice", "level:easy", "--games", str(games),
           "--variant", variant, "--concurrency", str(concurrency), "--seed", "7",
           "--pdn", path]
    t0 = time.monotonic()
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    count_games = GameCounter(path)
    samples = []  # (seconds, games written so far, VmRSS KiB)
    hwm = None
    while p.poll() is None:
        try:
            rss = status_kib(p.pid, "VmRSS")
            hwm = status_kib(p.pid, "VmHWM") or hwm
        except (FileNotFoundError, ProcessLookupError):
            break
        written = count_games()
        if rss is not None:
            samples.append((time.monotonic() - t0, written, rss))
        time.sleep(0.2)
    stdout, stderr = p.communicate()
    elapsed = time.monotonic() - t0
    problems = []
    if p.returncode != 0 or not RESULT.match(stdout.strip().splitlines()[-1]):
        problems.append(f"exit {p.returncode}: {stdout.strip()} {stderr.strip()}")
    ok, check = check_pdn(dama, path, variant, games)
    if not ok:
        problems.append(f"pdn check: {check}")
    n = len(samples)
    if n < 20:
        problems.append(f"only {n} memory samples: run more games")
        print(f"memory run: {games} games in {elapsed:.1f} s; PROBLEM: " + "; ".join(problems))
        return games, problems
    warm = max(1, n // 20)
    early = samples[warm:warm + n // 10]
    late = samples[-(n // 10):]
    early_max = max(s[2] for s in early)
    late_max = max(s[2] for s in late)
    mib = lambda kib: kib / 1024
    growth = mib(late_max - early_max)
    if growth > slack_mib:
        problems.append(f"RSS grew {growth:.1f} MiB (allowed {slack_mib})")
    print(f"memory run: {variant}, novice v easy, {games} games in one process, {elapsed:.1f} s, "
          f"concurrency {concurrency}; {stdout.strip().splitlines()[-1]}")
    print(f"  VmRSS max over games {early[0][1]}..{early[-1][1]}: {mib(early_max):.1f} MiB; "
          f"over games {late[0][1]}..{late[-1][1]}: {mib(late_max):.1f} MiB "
          f"(growth {growth:+.1f} MiB); VmHWM {mib(hwm or 0):.1f} MiB; {n} samples; "
          f"pdn check: {check}" + ("" if not problems else "  PROBLEM: " + "; ".join(problems)))
    return games, problems


class GameCounter:
    """Counts the games written to a growing PDN file, reading only what is new."""

    def __init__(self, path):
        self.path, self.offset, self.games, self.tail = path, 0, 0, b""

    def __call__(self):
        try:
            with open(self.path, "rb") as f:
                f.seek(self.offset)
                data = self.tail + f.read()
        except FileNotFoundError:
            return 0
        self.offset += len(data) - len(self.tail)
        self.games += data.count(b"[Event ")
        self.tail = data[-7:]
        self.games -= self.tail.count(b"[Event ")
        return self.games + self.tail.count(b"[Event ")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--dama", default="target/release/dama")
    ap.add_argument("--out", default="target/soak")
    ap.add_argument("--games", type=int, default=200)
    ap.add_argument("--memory-games", type=int, default=6000)
    ap.add_argument("--memory-variant", default="czech", choices=VARIANTS)
    ap.add_argument("--concurrency", type=int, default=2)
    ap.add_argument("--rss-slack-mib", type=float, default=8.0)
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    t = time.monotonic()
    total, problems = 0, []
    for i, variant in enumerate(VARIANTS):
        for second, games in [("level:easy", args.games), ("level:normal", args.games // 2)]:
            g, p = run_match(args.dama, args.out, variant, "level:novice", second, games,
                             args.concurrency, seed=i + 1)
            total += g
            problems += p
    g, p = memory_run(args.dama, args.out, args.memory_variant, args.memory_games,
                      args.concurrency, args.rss_slack_mib)
    total += g
    problems += p
    print(f"soak: {total} games in {time.monotonic() - t:.0f} s, "
          f"{len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
