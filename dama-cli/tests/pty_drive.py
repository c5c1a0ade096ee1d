"""Drives a full-screen program through a pseudo-terminal, for dama-cli's tests.

Usage: pty_drive.py [--size COLSxROWS] SCRIPT_JSON -- COMMAND ARGS...

The terminal starts at COLSxROWS (100x30 by default), set before the program starts.
SCRIPT_JSON is a list of steps:
  ["send", TEXT]           writes TEXT to the terminal;
  ["wait", TEXT, SECONDS]  waits until TEXT appears in the text produced since the last mark
                           (escape sequences removed);
  ["mark"]                 starts a new stretch of output;
  ["resize", COLS, ROWS]   changes the terminal's size (the kernel signals the program);
  ["snap", SECONDS]        waits for the next complete frame and records the screen;
  ["wait_screen", REGEX, SECONDS]  waits for a complete frame whose screen matches REGEX;
  ["exit", SECONDS]        waits for the program to end.

The output is fed to a small terminal emulator (xterm's behaviour for what the program
uses: cursor moves, erasing, colours, the alternate screen, autowrap with the pending-wrap
column, scrolling at the bottom row). A frame is complete at each "erase below" (CSI J), which
the program writes last in each frame. A character written past the last column (autowrap) or
a line feed at the bottom row (scroll) is a fault and is reported; after a resize, faults
count again from the program's first clear of the whole screen (CSI 2J), since until then it
may still be drawing for the old size, as any program does.

Prints, as JSON: each stretch's raw output (escapes kept, decoded as UTF-8 with
replacement), the snaps (each {"width", "height", "lines": [text of each row], "bg": [[colour
index of each cell, -1 for the default]]}), the faults, and the exit status. Exit status 1
with the screen text on stderr when a wait times out.
"""
import codecs
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
import unicodedata

ESCAPES = re.compile(r"\x1b\[[0-9;?<>]*[A-Za-z~]|\x1b[()][A-Za-z0-9]|\x1b[=>78]")


def text_of(raw):
    # Cursor moves become line breaks, so that words of different rows stay apart.
    raw = re.sub(r"\x1b\[\d+;\d+H", "\n", raw)
    return ESCAPES.sub("", raw)


def char_width(c):
    if unicodedata.combining(c):
        return 0
    return 2 if unicodedata.east_asian_width(c) in "WF" else 1


class Screen:
    """The part of an xterm that full-screen programs use."""

    def __init__(self, width, height):
        self.width, self.height = width, height
        self.chars = self.blank_rows(height)
        self.bg = [[-1] * width for _ in range(height)]
        self.main = None
        self.x = self.y = 0
        self.pending = False
        self.saved = (0, 0)
        self.cur_bg = -1
        self.state = "ground"
        self.seq = ""
        self.faults = []
        self.settling = False
        self.frames = 0
        self.last_frame = None

    def blank_rows(self, n):
        return [[" "] * self.width for _ in range(n)]

    def fault(self, what):
        if not self.settling:
            row = "".join(self.chars[self.y]).rstrip()
            self.faults.append("%s at row %d (%dx%d): %r" % (
                what, self.y, self.width, self.height, row))

    def resize(self, width, height):
        chars = [[" "] * width for _ in range(height)]
        bg = [[-1] * width for _ in range(height)]
        for y in range(min(height, self.height)):
            for x in range(min(width, self.width)):
                chars[y][x] = self.chars[y][x]
                bg[y][x] = self.bg[y][x]
        self.width, self.height, self.chars, self.bg = width, height, chars, bg
        self.x, self.y = min(self.x, width - 1), min(self.y, height - 1)
        self.pending = False
        self.settling = True

    def snapshot(self):
        return {
            "width": self.width,
            "height": self.height,
            "lines": ["".join(r).rstrip() for r in self.chars],
            "bg": [list(r) for r in self.bg],
        }

    def erase(self, y, x0, x1):
        for x in range(max(0, x0), min(self.width, x1)):
            self.chars[y][x] = " "
            self.bg[y][x] = self.cur_bg

    def linefeed(self):
        self.pending = False
        if self.y == self.height - 1:
            self.fault("scroll")
            self.chars = self.chars[1:] + self.blank_rows(1)
            self.bg = self.bg[1:] + [[self.cur_bg] * self.width]
        else:
            self.y += 1

    def put(self, c):
        w = char_width(c)
        if w == 0:
            return
        if self.pending or self.x + w > self.width:
            self.fault("wrap of %r" % c)
            self.x = 0
            self.linefeed()
        self.chars[self.y][self.x] = c
        self.bg[self.y][self.x] = self.cur_bg
        if w == 2 and self.x + 1 < self.width:
            self.chars[self.y][self.x + 1] = ""
            self.bg[self.y][self.x + 1] = self.cur_bg
        self.x += w
        if self.x >= self.width:
            self.x = self.width - 1
            self.pending = True

    def feed(self, text):
        for c in text:
            if self.state == "ground":
                if c == "\x1b":
                    self.state, self.seq = "esc", ""
                elif c == "\r":
                    self.x, self.pending = 0, False
                elif c == "\n":
                    self.linefeed()
                elif c == "\b":
                    self.x, self.pending = max(0, self.x - 1), False
                elif c == "\t":
                    self.x = min(self.width - 1, (self.x // 8 + 1) * 8)
                elif c >= " ":
                    self.put(c)
            elif self.state == "esc":
                if c == "[":
                    self.state = "csi"
                elif c == "]":
                    self.state = "osc"
                elif c in "()*+":
                    self.state = "charset"
                else:
                    if c == "7":
                        self.saved = (self.x, self.y)
                    elif c == "8":
                        self.x, self.y = self.saved
                    self.state = "ground"
            elif self.state == "charset":
                self.state = "ground"
            elif self.state == "osc":
                if c == "\x07" or (c == "\\" and self.seq.endswith("\x1b")):
                    self.state = "ground"
                self.seq += c
            elif self.state == "csi":
                if "\x40" <= c <= "\x7e":
                    self.csi(self.seq, c)
                    self.state = "ground"
                else:
                    self.seq += c

    def csi(self, params, final):
        private = params.startswith("?")
        nums = [int(p) if p.isdigit() else 0 for p in params.lstrip("?<>=").split(";")]
        n = nums[0] if nums and nums[0] else 1
        if final in "Hf":
            row = nums[0] if nums and nums[0] else 1
            col = nums[1] if len(nums) > 1 and nums[1] else 1
            self.y, self.x = min(self.height, row) - 1, min(self.width, col) - 1
            self.pending = False
        elif final == "A":
            self.y, self.pending = max(0, self.y - n), False
        elif final == "B":
            self.y, self.pending = min(self.height - 1, self.y + n), False
        elif final == "C":
            self.x, self.pending = min(self.width - 1, self.x + n), False
        elif final == "D":
            self.x, self.pending = max(0, self.x - n), False
        elif final == "G":
            self.x, self.pending = min(self.width, n) - 1, False
        elif final == "d":
            self.y, self.pending = min(self.height, n) - 1, False
        elif final == "K":
            mode = nums[0] if nums else 0
            if mode == 0:
                self.erase(self.y, self.x, self.width)
            elif mode == 1:
                self.erase(self.y, 0, self.x + 1)
            elif mode == 2:
                self.erase(self.y, 0, self.width)
            self.pending = False
        elif final == "J":
            mode = nums[0] if nums else 0
            if mode == 0:
                self.erase(self.y, self.x, self.width)
                for y in range(self.y + 1, self.height):
                    self.erase(y, 0, self.width)
                if not self.settling:
                    self.frames += 1
                    self.last_frame = self.snapshot()
            elif mode == 1:
                for y in range(0, self.y):
                    self.erase(y, 0, self.width)
                self.erase(self.y, 0, self.x + 1)
            elif mode == 2:
                for y in range(self.height):
                    self.erase(y, 0, self.width)
                self.settling = False
        elif final == "m" and not private:
            i = 0
            while i < len(nums):
                p = nums[i]
                if p in (0, 49):
                    self.cur_bg = -1
                elif 40 <= p <= 47:
                    self.cur_bg = p - 40
                elif 100 <= p <= 107:
                    self.cur_bg = p - 100 + 8
                elif p in (38, 48) and i + 1 < len(nums):
                    if nums[i + 1] == 5 and i + 2 < len(nums):
                        if p == 48:
                            self.cur_bg = nums[i + 2]
                        i += 2
                    elif nums[i + 1] == 2:
                        if p == 48:
                            self.cur_bg = 1000
                        i += 4
                i += 1
        elif final in "hl" and private and 1049 in nums:
            if final == "h" and self.main is None:
                self.main = (self.chars, self.bg, self.x, self.y)
                self.chars = self.blank_rows(self.height)
                self.bg = [[-1] * self.width for _ in range(self.height)]
            elif final == "l" and self.main is not None:
                chars, bg, self.x, self.y = self.main
                self.main = None
                self.chars, self.bg = self.blank_rows(self.height), [
                    [-1] * self.width for _ in range(self.height)]
                for y in range(min(self.height, len(chars))):
                    for x in range(min(self.width, len(chars[y]))):
                        self.chars[y][x], self.bg[y][x] = chars[y][x], bg[y][x]
                self.x, self.y = min(self.x, self.width - 1), min(self.y, self.height - 1)
        elif final == "s":
            self.saved = (self.x, self.y)
        elif final == "u":
            self.x, self.y = self.saved


def set_size(fd, cols, rows):
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))


def main():
    args = sys.argv[1:]
    cols, rows = 100, 30
    if args[0] == "--size":
        cols, rows = (int(v) for v in args[1].split("x"))
        args = args[2:]
    steps = json.loads(args[0])
    command = args[args.index("--") + 1:]
    pid, fd = pty.fork()
    if pid == 0:
        set_size(0, cols, rows)
        os.execvp(command[0], command)
    screen = Screen(cols, rows)
    decoder = codecs.getincrementaldecoder("utf-8")("replace")
    stretches = [b""]
    snaps = []
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
            screen.feed(decoder.decode(data))
        return True

    def fail(what):
        sys.stderr.write("timed out waiting for %s; screen:\n%s\n" % (
            what, "\n".join(screen.snapshot()["lines"])))
        os.kill(pid, 9)
        sys.exit(1)

    def next_frame(deadline, matching=None):
        frames = screen.frames
        while True:
            if screen.frames > frames and (matching is None or any(
                    re.search(matching, line) for line in screen.last_frame["lines"])):
                return screen.last_frame
            if time.time() > deadline:
                fail(repr(matching) if matching else "a frame")
            pump(0.05)

    for step in steps:
        kind = step[0]
        if kind == "send":
            os.write(fd, step[1].encode())
            pump(0.05)
        elif kind == "mark":
            stretches.append(b"")
        elif kind == "resize":
            # Output still in flight was drawn for the old size: take it in first.
            while select.select([fd], [], [], 0)[0] and pump(0):
                pass
            set_size(fd, step[1], step[2])
            screen.resize(step[1], step[2])
        elif kind == "snap":
            snaps.append(next_frame(time.time() + step[1]))
        elif kind == "wait_screen":
            next_frame(time.time() + step[2], step[1])
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
        "snaps": snaps,
        "faults": screen.faults,
        "status": status,
    }))


main()
