#!/usr/bin/env python3
"""Attribute harness/bench/tbprof.c's counts to the kernel's functions.

  tbsym.py VMLINUX PROFILE [PROFILE2 [DIV]] [-n N] [-m REGEX]

One profile: guest instructions per function, most first. Two: the
difference PROFILE - PROFILE2 per function, divided by DIV (e.g. the
number of samples or frames the two runs differ by).
"""
import bisect, re, subprocess, sys

def syms(vmlinux):
    out = subprocess.run(['nm', '-n', vmlinux], capture_output=True,
                         text=True, check=True).stdout
    addrs, names = [], []
    for l in out.splitlines():
        f = l.split()
        if len(f) == 3 and f[1] in 'tTwW':
            addrs.append(int(f[0], 16))
            names.append(f[2])
    return addrs, names

def load(path, addrs, names):
    per = {}
    for l in open(path):
        va, insns, _ = l.split()
        i = bisect.bisect_right(addrs, int(va, 16)) - 1
        n = names[i] if i >= 0 else '?'
        per[n] = per.get(n, 0) + int(insns)
    return per

def main():
    a = [x for x in sys.argv[1:] if not x.startswith('-')]
    top = 40
    pat = None
    args = sys.argv[1:]
    if '-n' in args:
        top = int(args[args.index('-n') + 1])
        a.remove(args[args.index('-n') + 1])
    if '-m' in args:
        pat = re.compile(args[args.index('-m') + 1])
        a.remove(args[args.index('-m') + 1])
    addrs, names = syms(a[0])
    p1 = load(a[1], addrs, names)
    if len(a) > 2:
        p2 = load(a[2], addrs, names)
        div = float(a[3]) if len(a) > 3 else 1.0
        d = {k: (p1.get(k, 0) - p2.get(k, 0)) / div for k in set(p1) | set(p2)}
    else:
        d = {k: float(v) for k, v in p1.items()}
    rows = sorted(d.items(), key=lambda kv: -abs(kv[1]))
    if pat:
        rows = [r for r in rows if pat.search(r[0])]
    tot = sum(v for _, v in rows)
    for k, v in rows[:top]:
        print(f'{v:14.1f}  {k}')
    print(f'{tot:14.1f}  (sum of {len(rows)} functions)')

main()
