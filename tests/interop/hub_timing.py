"""Measures dama-engine: stop -> done latency and end-of-input -> exit time during an analysis
(20 runs each), and resident memory idle before and after `init`.

Usage: python3 tests/interop/hub_timing.py target/release/dama-engine (Linux: reads /proc).
"""
import subprocess, sys, time, statistics
eng = sys.argv[1]
def start():
    return subprocess.Popen([eng], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
def send(p, l): p.stdin.write(l + "\n"); p.stdin.flush()
def until(p, prefix):
    while True:
        l = p.stdout.readline()
        if l == "" : raise EOFError
        if l.startswith(prefix): return l
def rss(p):
    for l in open(f"/proc/{p.pid}/status"):
        if l.startswith("VmRSS"): return l.split()[1] + " KiB"
stops = []
for i in range(20):
    p = start(); send(p, "init"); until(p, "ready"); send(p, "pos start"); send(p, "go analyze")
    until(p, "info"); time.sleep(0.3)
    t = time.perf_counter(); send(p, "stop"); until(p, "done"); stops.append((time.perf_counter() - t) * 1000)
    send(p, "quit"); p.wait()
print(f"stop->done ms: median {statistics.median(stops):.2f} max {max(stops):.2f}")
eofs = []
for i in range(20):
    p = start(); send(p, "init"); until(p, "ready"); send(p, "pos start"); send(p, "go analyze")
    until(p, "info"); time.sleep(0.3)
    t = time.perf_counter(); p.stdin.close(); p.wait(); eofs.append((time.perf_counter() - t) * 1000)
print(f"EOF->exit ms: median {statistics.median(eofs):.2f} max {max(eofs):.2f}")
p = start(); time.sleep(0.5); a = rss(p)
send(p, "hub"); until(p, "wait"); send(p, "init"); until(p, "ready"); time.sleep(0.3); b = rss(p)
send(p, "quit"); p.wait()
print(f"idle RSS: before init {a}, after init (32 MiB hash) {b}")
