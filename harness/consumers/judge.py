#!/usr/bin/env python3
"""Judge the consumer runs of harness/guest/consumers.sh.

    harness/consumers/judge.py ARCH RESULTS_DIR WORKLOAD_BINARY

Prints one TAP-like line per consumer and unwinder mode ("ok - ..." or
"not ok - ...") followed by "# " lines with the most frequent chains.

A chain is whole when it starts with one of the expected sequences
(leaf first): frames in libc (one or more), emit, wr_a2, wr_a, main, or
frames in libc, emit, wr_b, main (the writer); c, b, a, main (the spin).
Unwinder on: at least 99% of the events whole, each writer path in at least
a quarter of them, at least MIN events. Off: no event whole.

perf script output is symbolized by perf. bpftrace prints bare addresses
(it cannot symbolize the workload here); they are symbolized with the
workload's /proc/self/maps (WL_MAPS) and `nm` of the workload binary.
"""
import bisect
import os
import re
import subprocess
import sys
from collections import Counter

WRITER = [["@libc.so", "emit", "wr_a2", "wr_a", "main"],
          ["@libc.so", "emit", "wr_b", "main"]]
SPIN = [["c", "b", "a", "main"]]
MIN_EVENTS = {"writer": 1000, "spin": 300}


def matches(frames, expect, whole=False):
    """frames: [(symbol or None, file or None)], leaf first. whole: after
    expect, only the C library's entry frames (frames in libc.so, then
    _start), then the chain's end (as CHAIN_END in the selftests)."""
    i = 0
    for e in expect:
        if i >= len(frames):
            return False
        if e.startswith("@"):
            if not (frames[i][1] or "").startswith(e[1:]):
                return False
            while i < len(frames) and (frames[i][1] or "").startswith(e[1:]):
                i += 1
        else:
            if frames[i][0] != e:
                return False
            i += 1
    if whole:
        while i < len(frames) and (frames[i][1] or "").startswith("libc.so"):
            i += 1
        if i < len(frames) and frames[i][0] == "_start":
            i += 1
        return i == len(frames)
    return True


def perf_script(path):
    """Chains of perf script -F comm,ip,sym,dso of comm unwind_consumer*."""
    chains, cur, keep = [], None, False
    for line in open(path, errors="replace"):
        if not line.strip():
            if cur is not None and keep:
                chains.append(cur)
            cur = None
            continue
        if not line.startswith((" ", "\t")):
            cur, keep = [], line.split()[0].startswith("unwind_consum")
            continue
        m = re.match(r"\s*([0-9a-f]+)\s+(.*?)\s+\((.*)\)\s*$", line)
        if m and cur is not None:
            sym = re.sub(r"\+0x[0-9a-f]+$", "", m.group(2))
            if sym == "[unknown]":
                sym = None
            cur.append((sym, os.path.basename(m.group(3))))
    if cur is not None and keep:
        chains.append(cur)
    # user frames only: drop kernel frames (perf shows the kernel part)
    return Counter(tuple(f for f in c if f[1] != "[kernel.kallsyms]")
                   for c in chains)


class Symbolizer:
    def __init__(self, maps, binary):
        self.maps = []
        for line in open(maps):
            f = line.split()
            if len(f) < 6 or "x" not in f[1]:
                continue
            lo, hi = (int(x, 16) for x in f[0].split("-"))
            self.maps.append((lo, hi, int(f[2], 16), f[5]))
        self.binary = os.path.basename(binary)
        out = subprocess.run(["nm", "--defined-only", "-n", binary],
                             capture_output=True, text=True).stdout
        self.syms = []
        for line in out.splitlines():
            f = line.split()
            if len(f) == 3 and f[1] in "tTwW":
                self.syms.append((int(f[0], 16), f[2]))
        self.addrs = [a for a, _ in self.syms]

    def frame(self, addr, first):
        for lo, hi, off, path in self.maps:
            if lo <= addr < hi:
                name = os.path.basename(path)
                if name != self.binary:
                    return (None, name)
                # a return address points after its call
                vaddr = addr - lo + off - (0 if first else 1)
                i = bisect.bisect_right(self.addrs, vaddr) - 1
                return (self.syms[i][1] if i >= 0 else None, name)
        return (None, None)


def bpftrace(path, maps, binary):
    """Chains and counts of bpftrace's @[ustack] = count() output."""
    sym = Symbolizer(maps, binary)
    chains, text = Counter(), open(path, errors="replace").read()
    for m in re.finditer(r"@\[\n(.*?)\]: (\d+)", text, re.S):
        addrs = [int(x, 16) for x in re.findall(r"0x([0-9a-f]+)", m.group(1))]
        chain = tuple(sym.frame(a, i == 0) for i, a in enumerate(addrs))
        chains[chain] += int(m.group(2))
    return chains


def fmt(chain):
    return " <- ".join(s or ("?" if not f else f) for s, f in chain) or "(empty)"


def judge(label, chains, kind, mode):
    total = sum(chains.values())
    expects = WRITER if kind == "writer" else SPIN
    if kind == "spin":
        # the spin's own samples: leaf in c (start-up and exit left out)
        chains = Counter({c: n for c, n in chains.items()
                          if c and c[0][0] == "c"})
        total = sum(chains.values())
    # on: whole chains and their end; off: not even the path's start
    per = [sum(n for c, n in chains.items() if matches(c, e, mode == "on"))
           for e in expects]
    whole = sum(per)
    if mode == "on":
        ok = (total >= MIN_EVENTS[kind] and whole * 1000 >= total * 990 and
              all(p * 4 >= total for p in per))
        need = ">= 99%%, each path >= 25%%, >= %d events" % MIN_EVENTS[kind]
    else:
        ok = total >= MIN_EVENTS[kind] and whole == 0
        need = "none, >= %d events" % MIN_EVENTS[kind]
    print("%s - %s: %d of %d events with a whole chain (%s; unwinder %s)" %
          ("ok" if ok else "not ok", label, whole, total, need, mode))
    for c, n in chains.most_common(3):
        print("#   %6d x %s" % (n, fmt(c)))
    return ok


def main():
    arch, res, binary = sys.argv[1:4]
    fails = 0
    if os.path.exists(os.path.join(res, "absent")):
        print("not ok - consumers not run: %s" % open(os.path.join(res, "absent")).read().strip())
        return 1
    for mode in ("on", "off"):
        f = os.path.join(res, "perf-sys-%s.txt" % mode)
        if not os.path.exists(f):
            print("not ok - %s: perf record -g -e syscalls:sys_enter_write (%s): no output" % (arch, mode))
            fails += 1
        else:
            fails += not judge("%s: perf record -g -e syscalls:sys_enter_write" % arch,
                               perf_script(f), "writer", mode)
        for name, kind, label in (("bt-sys", "writer", "bpftrace tracepoint:syscalls:sys_enter_write ustack"),
                                  ("bt-prof", "spin", "bpftrace profile:hz:999 ustack")):
            f = os.path.join(res, "%s-%s.txt" % (name, mode))
            maps = os.path.join(res, "%s-%s.maps" % (name, mode))
            if arch != "x86_64":
                continue
            if not os.path.exists(f) or not os.path.exists(maps):
                print("not ok - %s: %s (%s): did not run" % (arch, label, mode))
                if os.path.exists(f):
                    for line in open(f).read().splitlines()[-5:]:
                        print("#   " + line)
                fails += 1
                continue
            fails += not judge("%s: %s" % (arch, label), bpftrace(f, maps, binary), kind, mode)
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
