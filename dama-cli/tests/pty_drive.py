"""Drives a full-screen program through a pseudo-terminal, for dama-cli's tests.

Usage: pty_drive.py SCRIPT_JSON -- COMMAND ARGS...
SCRIPT_JSON is a list of steps: ["send", TEXT] writes TEXT to the terminal; ["wait", TEXT,
SECONDS] waits until TEXT appears in the screen text produced since the last mark (escape
sequences removed); ["mark"] starts a new stretch of output; ["exit", SECONDS] waits for
the program to end. Prints, as JSON, each stretch's raw output (escapes kept, decoded as
UTF-8 with replacement) and the exit status. Exit status 1 with the screen text on stderr
when a wait times out.
"""
import fcntl
import json
import os
import pty
import re
import select
import struct
import sys
import termios
import time

ESCAPES = re.compile(r"\x1b\[[0-9;?<>]*[A-Za-z~]|\x1b[()][A-Za-z0-9]|\x1b[=>78]")


def text_of(raw):
    # Cursor moves become line breaks, so that words of different rows stay apart.
    raw = re.sub(r"\x1b\[\d+;\d+H", "\n", raw)
    return ESCAPES.sub("", raw)


def main():
    steps = json.loads(sys.argv[1])
    command = sys.argv[sys.argv.index("--") + 1:]
    pid, fd = pty.fork()
    if pid == 0:
        os.execvp(command[0], command)
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 30, 100, 0, 0))
    stretches = [b""]
    status = None

    def pump(timeout):
        ready, _, _ = select.select([fd], [], [], timeout)
        if ready:
            try:
                data = os.read(fd, 65536)
            except OSError:
                return False
            if not data:
                return False
            stretches[-1] += data
        return True

    for step in steps:
        kind = step[0]
        if kind == "send":
            os.write(fd, step[1].encode())
            pump(0.05)
        elif kind == "mark":
            stretches.append(b"")
        elif kind == "wait":
            deadline = time.time() + step[2]
            while step[1] not in text_of(stretches[-1].decode("utf-8", "replace")):
                if time.time() > deadline:
                    sys.stderr.write("timed out waiting for %r; screen text:\n%s\n" % (
                        step[1], text_of(stretches[-1].decode("utf-8", "replace"))[-3000:]))
                    os.kill(pid, 9)
                    sys.exit(1)
                pump(0.1)
        elif kind == "exit":
            deadline = time.time() + step[1]
            while time.time() < deadline:
                done, code = os.waitpid(pid, os.WNOHANG)
                if done:
                    status = os.waitstatus_to_exitcode(code)
                    break
                pump(0.05)
            # Whatever is left in the terminal's buffer.
            while pump(0.05):
                if not select.select([fd], [], [], 0)[0]:
                    break
    if status is None:
        os.kill(pid, 9)
        os.waitpid(pid, 0)
    print(json.dumps({
        "stretches": [s.decode("utf-8", "replace") for s in stretches],
        "status": status,
    }))


main()
