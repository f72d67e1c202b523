#!/usr/bin/env python3
# Markdown tables of the unwind benchmark from the key=value lines that
# guest.sh (results-icount.txt, results-wall.txt) and hostbench
# (host.txt) write; see harness/bench/README.md.
#
#   report.py DIR META
#
# META: key=value lines from bench.sh (command, date, kernel, config, ...).
import math
import os
import statistics
import sys


def kv(line):
    d = {}
    for f in line.split()[1:]:
        if "=" in f:
            k, v = f.split("=", 1)
            d[k] = v
    return d


def load(path):
    out = []
    if not os.path.exists(path):
        return out
    with open(path, errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            if line:
                out.append(line)
    return out


def num(x, nd=0):
    if x is None:
        return "n/a"
    if nd == 0:
        return f"{x:,.0f}"
    return f"{x:,.{nd}f}"


def ratio(a, b, nd=2):
    if a is None or b is None or b == 0:
        return "n/a"
    return f"{a / b:.{nd}f}"


# Scaling runs (guest.sh): FDE programs with SC chains of 16, the main chain
# of the library runs at depth LD (64 chains), the library's own with LC.
SC, LD, LC = 256, 64, 256


def main():
    d, metaf = sys.argv[1], sys.argv[2]
    meta = {}
    for line in load(metaf):
        k, _, v = line.partition("=")
        meta[k] = v
    runs = {k: load(os.path.join(d, f"results-{k}.txt")) for k in ("icount", "wall", "base")}
    host = [kv(x) for x in load(os.path.join(d, "host.txt")) if x.startswith("host ")]

    cost = {}
    for kind, lines in runs.items():
        for x in lines:
            if x.startswith("cost "):
                c = kv(x)
                key = (kind, c["label"], c["lib"], int(c["chains"]), int(c["depth"]))
                cost[key] = c

    def get(kind, label, chains, depth, field="per_frame", lib="main"):
        # wall clock: the median of the paired (back-to-back) differences
        if kind == "wall" and field == "per_frame":
            field = "paired_per_frame"
        c = cost.get((kind, label, lib, chains, depth))
        return float(c[field]) if c else None

    def checked(label, chains, depth, lib="main"):
        c = cost.get(("icount", label, lib, chains, depth))
        if not c:
            return "n/a"
        return c["verified"]

    o = []
    p = o.append
    arch = meta.get("arch", "?")
    p(f"# SFrame user unwinding benchmark ({arch})")
    p("")
    p(f"- command: `{meta.get('command', '')}`")
    p(f"- date: {meta.get('date', '')}; run time {meta.get('elapsed', '?')} s "
      f"(icount boot {meta.get('boot_icount', '?')} s, wall-clock boot "
      f"{meta.get('boot_wall', '?')} s)")
    p(f"- kernel: {meta.get('kernel', '')}")
    p(f"- kernel image: {meta.get('image', '')}")
    p(f"- kernel config: {meta.get('config', '')}")
    p(f"- guest: {meta.get('guest', '')}")
    p(f"- host: {meta.get('host', '')}")
    p("")
    p("Instruction counts come from the boot with `-icount shift=0` (1 guest ns = "
      "1 guest instruction; medians of the repetitions); wall-clock figures from a "
      "second boot without icount (median of the per-repetition differences "
      "chain - none, each pair timed back to back; TCG on a shared host: not "
      "hardware time, and noisy). Address space randomisation is off in the "
      "guest for the cost and scaling parts, so that every run samples the same "
      "addresses (on, as configured, for perf.data and cold start). Every cost point first checked the sampled chains entry by entry "
      "(\"chains checked\": complete/checked samples).")
    p("")

    # ---- 1. per-sample cost ----------------------------------------------
    p("## 1. Unwind cost per sample, same chain: SFrame vs frame pointers")
    p("")
    p("Cost = time of a sampled iteration with the user call chain minus without "
      "it. `chains` = distinct copies of the chain cycled over: 1 = the same IPs "
      "every sample, 64 = 64 x 128 distinct functions (IPs not repeated within "
      "64 samples). Before each repetition an SFrame library is mapped and "
      "unmapped (new registrations: a per-IP cache starts afresh); SFrame "
      "instr/frame: median (min-max) over the repetitions.")
    p("")
    p("`FP, unpatched`: the frame-pointer build on the pinned base without the "
      "series (boot `base`, -icount), where perf's own frame-pointer walk runs.")
    p("")
    p("| depth | chains | SFrame instr/sample | SFrame instr/frame | FP instr/frame | "
      "SFrame/FP | FP, unpatched: instr/frame | SFrame/FP unpatched | "
      "FP build, SFrame on: instr/frame | wall ns/frame SFrame | "
      "wall ns/frame FP | wall SFrame/FP | chains checked (SF / FP / FP+on / FP unpatched) |")
    p("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for chains in (1, 64):
        for depth in (4, 16, 64, 128):
            sf = get("icount", "sf", chains, depth)
            fp = get("icount", "fp", chains, depth)
            fpon = get("icount", "fp-sfon", chains, depth)
            fpb = get("base", "fp-base", chains, depth)
            cb = cost.get(("base", "fp-base", "main", chains, depth))
            wsf = get("wall", "sf", chains, depth)
            wfp = get("wall", "fp", chains, depth)
            rng = ""
            if get("icount", "sf", chains, depth, "paired_min_per_frame") is not None:
                rng = (f" ({num(get('icount', 'sf', chains, depth, 'paired_min_per_frame'))}-"
                       f"{num(get('icount', 'sf', chains, depth, 'paired_max_per_frame'))})")
            p(f"| {depth} | {chains} | {num(get('icount', 'sf', chains, depth, 'unwind'))} | "
              f"{num(sf)}{rng} | {num(fp)} | {ratio(sf, fp)} | {num(fpb)} | "
              f"{ratio(sf, fpb)} | {num(fpon)} | "
              f"{num(wsf)} | {num(wfp)} | {ratio(wsf, wfp)} | "
              f"{checked('sf', chains, depth)} / {checked('fp', chains, depth)} / "
              f"{checked('fp-sfon', chains, depth)} / {cb['verified'] if cb else 'n/a'} |")
    p("")
    bl = [x for x in runs["icount"]
          if x.startswith("broken-as-expected") and "label=sf-off" in x]
    if bl:
        p("Sanity check: the SFrame build with `kernel.unwind_user_sframe=0` "
          f"(frame pointers only): {bl[0].split(': ', 1)[-1]}.")
        p("")

    # ---- 1b. recovered frames -------------------------------------------
    if get("icount", "rc-mid", 1, 16) is not None:
        p("### 1b. A frame without SFrame data in the chain")
        p("")
        p("The same 16-deep chain with one level built without SFrame and without "
          "frame pointers (as code in a C library without SFrame): level 8 "
          "(`rc-mid`: its caller found by the stack scan) or the leaf "
          "(`rc-leaf`: at the stack pointer, or in the link register). Cost per "
          "recovered frame = instructions per sample minus those of the all-SFrame "
          "chain of the same depth (`sf`, table 1).")
        p("")
        p("| chains | SFrame instr/sample | rc-leaf instr/sample | rc-mid instr/sample | "
          "recovered frame, leaf: instr | recovered frame, level 8: instr | "
          "wall ns, leaf | wall ns, level 8 | chains checked (leaf / level 8) |")
        p("|---|---|---|---|---|---|---|---|---|")

        def diff(a, b):
            return num(a - b) if a is not None and b is not None else "n/a"
        for chains in (1, 64):
            sf = get("icount", "sf", chains, 16, "unwind")
            rl = get("icount", "rc-leaf", chains, 16, "unwind")
            rm = get("icount", "rc-mid", chains, 16, "unwind")
            wsf = get("wall", "sf", chains, 16, "paired")
            wrl = get("wall", "rc-leaf", chains, 16, "paired")
            wrm = get("wall", "rc-mid", chains, 16, "paired")
            p(f"| {chains} | {num(sf)} | {num(rl)} | {num(rm)} | {diff(rl, sf)} | "
              f"{diff(rm, sf)} | {diff(wrl, wsf)} | {diff(wrm, wsf)} | "
              f"{checked('rc-leaf', chains, 16)} / {checked('rc-mid', chains, 16)} |")
        p("")
        rb = [x for x in runs["icount"]
              if x.startswith("broken-as-expected") and "label=rc-off" in x]
        if rb:
            p("Sanity check: `rc-mid` with `kernel.unwind_user_recover=0`: "
              f"{rb[0].split(': ', 1)[-1]}.")
            p("")

    # ---- 1c. worst case ---------------------------------------------------
    if get("icount", "adv-sf", 1, 16) is not None:
        p("### 1c. Worst case: the longest functions, registrations changing")
        p("")
        p("One chain of functions of 8,001 SFrame rows each (gen.py `--pad 4000`: "
          "close to the 8,192 a valid section may have per function), whose call "
          "sites are in their last row; before every sample the program maps and "
          "unmaps the executable segment of an SFrame library (`ubench -c`), so the "
          "mm's registrations change (`adv-sf`). The same code built with frame "
          "pointers and walked with SFrame off (`adv-fp`, the same churn); and the "
          "SFrame build without the churn (`adv-sf-cached`). Bound in the sources: "
          "a lookup reads one entry of the table's block index, then scans or "
          "binary-searches the rows of one block (at most as many blocks as rows), "
          "and reads one rule, in kernel memory.")
        p("")
        p("| depth | SFrame instr/frame | FP instr/frame | SFrame/FP | SFrame cached "
          "instr/frame | wall ns/frame SFrame | wall ns/frame FP | wall SFrame/FP | "
          "chains checked (SF / FP / cached) |")
        p("|---|---|---|---|---|---|---|---|---|")
        for depth in (16, 64, 128):
            sf = get("icount", "adv-sf", 1, depth)
            fp = get("icount", "adv-fp", 1, depth)
            wsf = get("wall", "adv-sf", 1, depth)
            wfp = get("wall", "adv-fp", 1, depth)
            p(f"| {depth} | {num(sf)} | {num(fp)} | {ratio(sf, fp)} | "
              f"{num(get('icount', 'adv-sf-cached', 1, depth))} | {num(wsf)} | "
              f"{num(wfp)} | {ratio(wsf, wfp)} | {checked('adv-sf', 1, depth)} / "
              f"{checked('adv-fp', 1, depth)} / {checked('adv-sf-cached', 1, depth)} |")
        p("")

    # ---- 1d. worst case of the recovery -----------------------------------
    if get("icount", "rc-hostile", 1, 16) is not None:
        p("### 1d. Worst case of the recovery: a hostile stack")
        p("")
        p("The 16-deep chain of table 1b with level 8 built without SFrame and "
          "without frame pointers, and filling 256 words of its frame, below its "
          "return address, with the return addresses its callers recorded, every "
          "other word (live call sites in SFrame text: each one a candidate the "
          "stack scan has to evaluate, and whose frame, read from the zeros, then "
          "refutes it; gen.py `--hostile 256`), with `kernel.unwind_user_recover=1`. "
          "Bound in the sources (kernel/unwind/user.c): at most "
          "UNWIND_USER_RECOVER_EVALS = 256 candidate evaluations and "
          "UNWIND_USER_SCAN_BUDGET = 1,024 scanned words a walk, an evaluation "
          "reading at most UNWIND_USER_FP_CHECK + 4 = 12 stack words with as many "
          "lookups. `chains checked` says how many sampled chains were whole and "
          "right: a guess the scan cannot validate ends the chain at level 8.")
        p("")
        p("| chains | SFrame instr/sample (table 1) | rc-mid instr/sample | hostile instr/sample | "
          "hostile minus SFrame: instr | wall ns/sample hostile | chains checked (hostile) |")
        p("|---|---|---|---|---|---|---|")
        for chains in (1, 64):
            sf = get("icount", "sf", chains, 16, "unwind")
            rm = get("icount", "rc-mid", chains, 16, "unwind")
            rh = get("icount", "rc-hostile", chains, 16, "unwind")
            wrh = get("wall", "rc-hostile", chains, 16, "paired")
            d = num(rh - sf) if rh is not None and sf is not None else "n/a"
            p(f"| {chains} | {num(sf)} | {num(rm)} | {num(rh)} | {d} | {num(wrh)} | "
              f"{checked('rc-hostile', chains, 16)} |")
        p("")

    # ---- 2. scaling -------------------------------------------------------
    p("## 2. Scaling")
    p("")
    p("### 2a. Cost per frame against the number of FDEs in the program")
    p("")
    p("Programs with N filler functions (one FDE each; half linked before the "
      "chain, half after) and 256 copies of a 16-deep chain (4,096 distinct IPs: "
      "lookups mostly miss a per-IP cache); depth 16.")
    p("")
    hostf = {h["file"]: h for h in host}
    p("| filler functions | FDEs in .sframe | .sframe bytes | instr/frame, 1 chain | "
      "instr/frame, 256 chains | wall ns/frame, 256 chains | host ns/lookup random | "
      "host ns/lookup repeated | chains checked |")
    p("|---|---|---|---|---|---|---|---|---|")
    sizes = sorted({int(k[1][4:]) for k in cost if k[1].startswith("fde-")})
    for n in sizes:
        lab = f"fde-{n}"
        h = hostf.get(f"ubench-scale-{n}", {})
        p(f"| {n:,} | {int(h['fdes']):,} | {int(h['bytes']):,} | " if h else f"| {n:,} | n/a | n/a | ")
        o[-1] += (f"{num(get('icount', lab, 1, 16))} | {num(get('icount', lab, SC, 16))} | "
                  f"{num(get('wall', lab, SC, 16))} | {h.get('random_ns', 'n/a')} | "
                  f"{h.get('repeated_ns', 'n/a')} | {checked(lab, 1, 16)}, {checked(lab, SC, 16)} |")
    p("")
    p("### 2b. Cost per frame against the number of SFrame libraries mapped")
    p("")
    p("One small SFrame library copied to N files and dlopen()ed N times. "
      "Main chain: in the program, depth 64 (64 copies: 4,096 distinct IPs); "
      "library chain: in the last library loaded, depth 16 (256 copies: "
      "4,096 distinct IPs).")
    p("")
    p("| libraries | instr/frame main chain, 1 chain | main, 64 chains | "
      "library chain, 1 chain | library, 256 chains | wall ns/frame main, 64 chains | "
      "wall ns/frame library, 256 chains | chains checked |")
    p("|---|---|---|---|---|---|---|---|")
    libs = sorted({int(k[1][5:]) for k in cost if k[1].startswith("libs-")})
    for n in libs:
        lab, lc = f"libs-{n}", f"libchain-{n}"
        p(f"| {n:,} | {num(get('icount', lab, 1, LD))} | {num(get('icount', lab, 64, LD))} | "
          f"{num(get('icount', lc, 1, 16, lib='lib'))} | {num(get('icount', lc, LC, 16, lib='lib'))} | "
          f"{num(get('wall', lab, 64, LD))} | {num(get('wall', lc, LC, 16, lib='lib'))} | "
          f"{checked(lab, 1, LD)}, {checked(lab, 64, LD)}, {checked(lc, 1, 16, 'lib')}, "
          f"{checked(lc, LC, 16, 'lib')} |")
    p("")

    # ---- 3. perf.data -----------------------------------------------------
    p("## 3. perf record: perf.data size and overhead")
    p("")
    p(f"`perf record` (guest perf) of the same workload (main -> w1 .. w16, spinning "
      f"in w16; {meta.get('perf_iters', '?')} iterations), cpu-clock, period "
      f"{meta.get('perf_period', '?')} ns. Bytes/sample = perf.data size / samples "
      "(headers and side-band records included). Complete = samples in w16 whose "
      "user chain is w16 .. w1 main (harness/demo/chains.awk). Run times (medians of "
      "the repetitions): the workload's own loop (CLOCK_MONOTONIC inside it: the "
      "sampling cost the workload sees) and the whole command (perf's start-up, "
      "event setup and perf.data writing included).")
    p("")
    p("| variant | samples | bytes/sample | dwarf/this | complete/leaf | "
      "workload loop, instr: alone / recorded (overhead) | "
      "workload loop, wall ms: alone / recorded (overhead) | "
      "whole command, instr: alone / perf record (overhead) | "
      "whole command, wall ms: alone / perf record (overhead) |")
    p("|---|---|---|---|---|---|---|---|---|")

    def tm(kind, own=False):
        # tmrun: the whole command; perfwl (just before it): the
        # workload's own loop.
        t, last = {}, None
        for x in runs[kind]:
            if x.startswith("perfwl "):
                last = int(kv(x)["ns"])
            elif x.startswith("tmrun "):
                c = kv(x)
                v = last if own else int(c["ns"])
                if v is not None:
                    t.setdefault(c["label"], []).append(v)
                last = None
        return {k: statistics.median(v) for k, v in t.items()}
    tmi, tmw = tm("icount"), tm("wall")
    owi, oww = tm("icount", True), tm("wall", True)
    pdv = {}
    for x in runs["icount"]:
        if x.startswith("perfdata "):
            c = kv(x)
            pdv[c["variant"]] = c
    names = {"sf": "-g, SFrame build", "fp": "-g, frame-pointer build",
             "dwarf": "--call-graph dwarf, SFrame build"}
    base = {"sf": "base-sf", "fp": "base-fp", "dwarf": "base-sf"}

    def bps(v):
        c = pdv.get(v)
        if not c or not int(c["samples"]):
            return None
        return int(c["bytes"]) / int(c["samples"])
    for v in ("sf", "fp", "dwarf"):
        c = pdv.get(v, {})
        def cell(t, scale, unit):
            a, b = t.get(base[v]), t.get(f"rec-{v}")
            if not a or not b:
                return "n/a"
            return f"{num(a / scale)}{unit} / {num(b / scale)}{unit} ({(b / a - 1) * 100:+.0f}%)"
        p(f"| {names[v]} | {c.get('samples', 'n/a')} | {num(bps(v))} | "
          f"{ratio(bps('dwarf'), bps(v), 1)} | {c.get('full', '?')}/{c.get('leaf', '?')} | "
          f"{cell(owi, 1e6, 'M')} | {cell(oww, 1e6, '')} | {cell(tmi, 1e6, 'M')} | {cell(tmw, 1e6, '')} |")
    p("")

    # ---- 4. cold start ----------------------------------------------------
    p("## 4. Cold start")
    p("")
    p("A freshly exec'd SFrame program (main -> a -> b -> c, 10,000 filler "
      "functions: a .sframe of many pages) sampled from its first instruction "
      "(enable_on_exec), cpu-clock every 20 us. Samples before the program's own "
      "code runs (ld.so, libc start-up) are counted, then the next 20 are shown: "
      "C = complete chain in the leaf c, x = incomplete chain in the leaf, "
      ". = sample in a/b/main, - = elsewhere (ld.so, libc start-up). "
      "Kernel as it is (a miss schedules a task_work that faults the section in).")
    p("")
    for kind in ("icount", "wall"):
        cl = [kv(x) for x in runs[kind] if x.startswith("cold run=")]
        cs = [kv(x) for x in runs[kind] if x.startswith("cold-summary")]
        if not cl:
            continue
        p(f"{'icount boot' if kind == 'icount' else 'wall-clock boot'}:")
        p("")
        p("| run | samples before the program's code | next samples | "
          "complete / leaf (first 20 leaf samples) | "
          "first miss (leaf sample #) | leaf samples from the miss to the first complete |")
        p("|---|---|---|---|---|---|")
        for c in cl:
            miss = c["first_miss"]
            p(f"| {c['run']} | {c.get('before', '?')} | `{c['samples']}` | {c['complete_first']}/{c['leaf']} | "
              f"{'none' if miss == '-1' else miss} | "
              f"{'-' if miss == '-1' else ('never' if c['recovered_after'] == '-1' else c['recovered_after'])} |")
        if cs:
            s = cs[0]
            p("")
            p(f"Total: {s['complete']}/{s['leaf']} leaf samples complete; runs with a "
              f"miss {s['runs_with_miss']}/{s['runs']}; leaf samples from the miss to "
              f"the first complete one: mean {s['recover_mean']}, max {s['recover_max']}.")
        p("")

    # ---- 5. execve() and dlopen() ----------------------------------------
    ex = {}
    for kind, lines in runs.items():
        for x in lines:
            if x.startswith("exec-run "):
                # "exec-run sframe=V execloop op=... n=... ns=... file=..."
                c = kv("x " + x.replace("exec-run ", "", 1).replace("execloop ", "", 1))
                if "ns" not in c:
                    continue
                key = (kind, c["op"], c["file"], c["sframe"])
                ex.setdefault(key, []).append(int(c["ns"]) / int(c["n"]))
    if ex:
        p("## 5. execve() and dlopen() with SFrame discovery on and off")
        p("")
        p("`execloop exec N PROG`: fork, execve of PROG (which exits at once) and "
          "wait, N times; `execloop dlopen N liblc.so`: dlopen(RTLD_NOW) and "
          "dlclose of an SFrame library, N times. execloop holds a (disabled) perf "
          "event that samples call chains, as a profiler would; with "
          "`kernel.unwind_user_sframe=1` every executable mmap of the program, ld.so "
          "and the library then reads its ELF headers (page cache), and a section "
          "is validated before the task returns to user space unless the unchanged "
          "file was validated before (then it is only faulted in); with 0 the "
          "kernel reads nothing. execloop has a small "
          ".sframe; execloop-big links the 10,000 filler functions of the cold "
          "start program. Median over the repetitions, time per operation "
          "(icount boot: guest time at one instruction per ns).")
        p("")
        p("| boot | operation | file | SFrame on | SFrame off | added by SFrame |")
        p("|---|---|---|---|---|---|")
        for kind in ("icount", "wall"):
            for op, f in sorted({(k[1], k[2]) for k in ex if k[0] == kind}):
                on = ex.get((kind, op, f, "1"))
                off = ex.get((kind, op, f, "0"))
                if not on or not off:
                    continue
                a, b = statistics.median(on), statistics.median(off)
                p(f"| {kind} | {op} | {os.path.basename(f)} | {num(a / 1000, 1)} us | "
                  f"{num(b / 1000, 1)} us | {num((a - b) / 1000, 1)} us ({(a / b - 1) * 100:+.1f}%) |")
        p("")

    # ---- 5b. lookup cache hit rates ------------------------------------------
    caches = {}
    for kind, lines in runs.items():
        for x in lines:
            if x.startswith("cache "):
                c = kv(x)
                h, m = int(c["hits"]), int(c["misses"])
                r = int(c.get("rows", "0"))
                t = caches.setdefault((kind, c["label"]), [0, 0, 0])
                t[0] += h
                t[1] += m
                t[2] += r
    if caches:
        p("## 5. Lookup hit rates, measured")
        p("")
        p("The lookup counters (debugfs `sframe_stats`: `row_table_hits`, "
          "`cache_hits`, `cache_misses`) read before and after each ubench run "
          "of the cost and scaling parts, summed over the run's points and "
          "repetitions (its checks and untimed loops included). Every lookup "
          "of an IP in a task with SFrame data counts, also for frames that "
          "end up unwound by frame pointers. A lookup in the section the CPU "
          "found last is answered by its row table, if it has one, before "
          "the per-CPU cache is asked; the others are cache hits or misses "
          "(a miss searches the task's sections).")
        p("")
        p("| boot | run | lookups | row table | cache hits | cache misses | answered without a section search |")
        p("|---|---|---|---|---|---|---|")
        for (kind, label), (h, m, r) in sorted(caches.items()):
            if h + m + r == 0:
                continue
            p(f"| {kind} | {label} | {h + m + r:,} | {r:,} | {h:,} | {m:,} | "
              f"{(h + r) * 100 / (h + m + r):.1f}% |")
        p("")

    # ---- 6b. fork with many registrations ---------------------------------
    forks = {}
    for kind, lines in runs.items():
        for x in lines:
            if x.startswith("forkbench "):
                f = kv(x)
                forks.setdefault((kind, f["lib"], f["mappings"]), []).append(
                    int(f["ns_per_fork"]))
    if forks:
        p("## 7. fork() with many SFrame registrations")
        p("")
        p("`forkbench LIB N F`: a process with a collector open maps the "
          "executable segment of LIB N times (each a mapping of its own), then "
          "times F fork()s whose child exits at once. `liblc.so` has SFrame "
          "(N registrations, one shared table), `liblc-fp.so` is the same code "
          "with frame pointers and no SFrame (N mappings only). Median over the "
          "repetitions; under -icount a nanosecond is an instruction.")
        p("")
        p("| boot | mappings | ns/fork, SFrame | ns/fork, no SFrame | SFrame / no SFrame |")
        p("|---|---|---|---|---|")
        for kind in runs:
            for (k, lib, maps), v in sorted(forks.items()):
                if k != kind or lib != "liblc.so":
                    continue
                sf = sorted(v)[len(v) // 2]
                w = forks.get((kind, "liblc-fp.so", maps))
                fp = sorted(w)[len(w) // 2] if w else None
                p(f"| {kind} | {int(maps):,} | {sf:,} | {fp if fp is None else format(fp, ',')} | "
                  f"{sf / fp:.2f} |" if fp else f"| {kind} | {int(maps):,} | {sf:,} | n/a | n/a |")
        p("")

    wakes = [(kind, kv(x)) for kind, lines in runs.items() for x in lines
             if x.startswith("wakebench ")]
    if wakes:
        p("## 8. Wake-up delay while a large section is validated")
        p("")
        p("`wakebench 3`: three times, a new file whose section has 512 "
          "functions of 8,192 rows sharing one block of rows (4,194,304 rows, "
          "the header claiming as many) is mapped executable with a collector "
          "open, so its table is built in the mmap, while a child sleeps 1 ms "
          "at a time; the worst lateness of its wake-ups, and the same child "
          "as long without the mapping. The guest has one CPU.")
        p("")
        p("| boot | rows | mmap ms (worst) | worst wake-up lateness ms | without the mapping ms |")
        p("|---|---|---|---|---|")
        for kind, w in wakes:
            p(f"| {kind} | {int(w['rows']):,} | {w['map_ms']} | {w['max_late_ms']} | "
              f"{w['idle_max_late_ms']} |")
        p("")

    # ---- 6. host micro-benchmark -----------------------------------------
    p("## 6. Host micro-benchmark of the decoder")
    p("")
    p("kernel/unwind/sframe.c built for the host with the harness/hosttest shims "
      "(-O2, no sanitizers): each benchmark program's .sframe validated and "
      "decoded into the table the kernel builds (its rows, distinct rules and "
      "bytes, as the kernel allocates them), and sframe_find() in that table: "
      "random IPs (4,096 addresses with an FDE, random order) and one repeated "
      f"IP; median ns per lookup. Host: {meta.get('host', '')}.")
    p("")
    p("| program | FDEs | .sframe bytes | rows | distinct rules | table bytes | bytes/row | table / .sframe | ns/lookup random | ns/lookup repeated |")
    p("|---|---|---|---|---|---|---|---|---|---|")
    for h in host:
        rows, tb = int(h.get('rows', 0)), int(h.get('table_bytes', 0))
        p(f"| {h['file']} | {int(h['fdes']):,} | {int(h['bytes']):,} | {rows:,} | "
          f"{int(h.get('rules', 0)):,} | {tb:,} | {tb / rows if rows else 0:.2f} | "
          f"{tb / int(h['bytes']):.2f} | {h['random_ns']} | {h['repeated_ns']} |")
    p("")

    # ---- goals ------------------------------------------------------------
    p("## Goals (figures from the tables above)")
    p("")
    p("| goal | measured |")
    p("|---|---|")
    D = (16, 64, 128)

    def rl(rs):
        return ", ".join(f"{d}: {ratio(a, b)}" for d, a, b in rs)
    fpb = [(d, get("icount", "fp", 64, d), get("base", "fp-base", 64, d)) for d in D]
    if any(b is not None for _, _, b in fpb):
        p(f"| frame-pointer program: series/base per frame <= 1.1 (64 chains) | depth {rl(fpb)} |")
        for chains, what in ((1, "repeated IPs, 1 chain"), (64, "distinct IPs, 64 chains")):
            r = [(d, get("icount", "sf", chains, d), get("base", "fp-base", chains, d)) for d in D]
            p(f"| SFrame frame / base frame-pointer step <= 2.0 ({what}) | depth {rl(r)} |")
    else:
        for chains, what in ((1, "repeated IPs, 1 chain"), (64, "distinct IPs, 64 chains")):
            r = [(d, get("icount", "sf", chains, d), get("icount", "fp", chains, d)) for d in D]
            p(f"| SFrame frame / frame-pointer step of this kernel ({what}; no base boot) "
              f"| depth {rl(r)} |")
    rw = [(d, get("icount", "adv-sf", 1, d), get("icount", "adv-fp", 1, d)) for d in D]
    if any(a is not None for _, a, _ in rw):
        p(f"| worst case printed (8,001-row functions, registrations changing): SFrame/FP "
          f"per frame | depth {rl(rw)} |")
    rh = get("icount", "rc-hostile", 1, 16, "unwind")
    if rh is not None:
        p(f"| worst case of the recovery printed (hostile stack, at most 256 evaluations) "
          f"| {num(rh)} instructions a sample, depth 16 |")
    if sizes and hostf:
        a, b = sizes[0], sizes[-1]
        ha, hb = hostf.get(f"ubench-scale-{a}"), hostf.get(f"ubench-scale-{b}")
        ca, cb = get("icount", f"fde-{a}", SC, 16), get("icount", f"fde-{b}", SC, 16)
        if ha and hb and ca and cb:
            la, lb = math.log2(int(ha["fdes"])), math.log2(int(hb["fdes"]))
            p(f"| per frame grows no faster than log(FDEs) | {int(ha['fdes']):,} -> "
              f"{int(hb['fdes']):,} FDEs: per frame x{cb / ca:.2f} ({SC} chains), "
              f"log2(FDEs) x{lb / la:.2f} |")
    if libs:
        a, b = libs[0], libs[-1]
        ca, cb = get("icount", f"libs-{a}", 64, LD), get("icount", f"libs-{b}", 64, LD)
        if ca and cb:
            p(f"| per frame grows no faster than log(sections) | {a} -> {b} libraries: "
              f"per frame x{cb / ca:.2f} (64 chains); log2(sections) "
              f"x{math.log2(b + 2) / math.log2(a + 2):.2f} (program + libraries) |")
    if bps("sf") and bps("dwarf"):
        p(f"| perf.data per sample >= 25x smaller than dwarf, chains as complete | "
          f"dwarf/SFrame bytes per sample {bps('dwarf') / bps('sf'):.1f}; complete "
          f"{pdv['sf'].get('full')}/{pdv['sf'].get('leaf')} (SFrame) vs "
          f"{pdv['dwarf'].get('full')}/{pdv['dwarf'].get('leaf')} (dwarf) |")
    cs = [kv(x) for x in runs["icount"] if x.startswith("cold-summary")]
    if cs:
        p(f"| cold start: complete from the second sample period after the first miss | "
          f"leaf samples from the miss to the first complete one: mean "
          f"{cs[0]['recover_mean']}, max {cs[0]['recover_max']} "
          f"(runs with a miss: {cs[0]['runs_with_miss']}/{cs[0]['runs']}) |")
    p("")
    for kind in ("icount", "wall"):
        marks = [(x.split()[1], float(kv(x)["uptime"])) for x in runs[kind] if x.startswith("part ")]
        if len(marks) > 1:
            p(f"Guest time per part ({kind} boot, guest seconds): " + ", ".join(
                f"{a[0]} {b[1] - a[1]:.0f}" for a, b in zip(marks, marks[1:])) + ".")
            p("")
    fails = [x for k in runs for x in runs[k] if x.startswith(("FAILED", "CHAIN-CHECK-FAILED"))]
    if fails:
        p("## Failures")
        p("")
        for x in fails:
            p(f"- {x}")
        p("")
    sys.stdout.write("\n".join(o) + "\n")


main()
