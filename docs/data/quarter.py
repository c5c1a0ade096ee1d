#!/usr/bin/env python3
"""A Hub proxy: runs the engine given as arguments, with a quarter of the node limit of each
`level` line (the weaker player of the contempt measurement)."""
import re, subprocess, sys, threading
p = subprocess.Popen(sys.argv[1:], stdin=subprocess.PIPE, stdout=sys.stdout, text=True, bufsize=1)
for line in sys.stdin:
    if line.startswith("level"):
        line = re.sub(r"nodes=(\d+)", lambda m: "nodes=%d" % max(1, int(m.group(1)) // 4), line)
    p.stdin.write(line); p.stdin.flush()
p.stdin.close(); p.wait()
