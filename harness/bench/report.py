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
      "series (boot `base`, -icount), where perf's own frame-pointer walk runs. "
      "`FP build, SFrame on, .eh_frame off`: `kernel.unwind_user_sframe=1` with "
      "`kernel.unwind_user_eh_frame=0`: no table in the task, the kernel's "
      "frame-pointer loop (with the conversion on, the frame-pointer build has "
      "tables from its own .eh_frame: table 1e).")
    p("")
    p("| depth | chains | SFrame instr/sample | SFrame instr/frame | FP instr/frame | "
      "SFrame/FP | FP, unpatched: instr/frame | SFrame/FP unpatched | "
      "FP build, SFrame on, .eh_frame off: instr/frame | wall ns/frame SFrame | "
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

    # ---- 1e. tables converted from .eh_frame -------------------------------
    if any(get("icount", l, 1, 16) is not None for l in ("eh", "fp-eh")) or \
            any(get("wall", l, 1, 16) is not None for l in ("eh", "fp-eh")):
        p("### 1e. Frames from .eh_frame tables")
        p("")
        p("The chain of table 1 built a third way, `-O2 -fomit-frame-pointer` "
          "without `--gsframe` (`ubench-eh`): its table comes from its .eh_frame, "
          "converted when it is mapped (`kernel.unwind_user_eh_frame=1`, the "
          "default), and the walk takes the same path as for the SFrame build. "
          "The frame-pointer build with the conversion on (`FP, eh on`: the "
          "program, its C library and ld.so have tables, the walk is the table "
          "walk), with it off (`FP, eh off`: no table, the kernel's "
          "frame-pointer loop; table 1's `FP build, SFrame on, .eh_frame off`), "
          "with `kernel.unwind_user_sframe=0` (table 1's `FP`), and on the "
          "unpatched base (boot `base`). Same method, the chains checked entry "
          "by entry.")
        p("")
        p("| depth | chains | SFrame build: instr/frame | .eh_frame build: instr/frame | "
          "eh/SFrame | FP, eh on | FP, eh off | FP, SFrame off | FP, unpatched | "
          "FP eh on / eh off | FP eh on / unpatched | wall ns/frame .eh_frame build | "
          "wall ns/frame FP, eh on | chains checked (.eh_frame build / FP, eh on) |")
        p("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
        for chains in (1, 64):
            for depth in (4, 16, 64, 128):
                sf = get("icount", "sf", chains, depth)
                ehv = get("icount", "eh", chains, depth)
                fpe = get("icount", "fp-eh", chains, depth)
                fpo = get("icount", "fp-sfon", chains, depth)
                fp = get("icount", "fp", chains, depth)
                fpb = get("base", "fp-base", chains, depth)
                p(f"| {depth} | {chains} | {num(sf)} | {num(ehv)} | {ratio(ehv, sf)} | "
                  f"{num(fpe)} | {num(fpo)} | {num(fp)} | {num(fpb)} | {ratio(fpe, fpo)} | "
                  f"{ratio(fpe, fpb)} | {num(get('wall', 'eh', chains, depth))} | "
                  f"{num(get('wall', 'fp-eh', chains, depth))} | "
                  f"{checked('eh', chains, depth)} / {checked('fp-eh', chains, depth)} |")
        p("")
        bl = [x for x in runs["icount"]
              if x.startswith("broken-as-expected") and "label=eh-off" in x]
        if bl:
            p("Sanity check: the .eh_frame build with `kernel.unwind_user_eh_frame=0`: "
              f"{bl[0].split(': ', 1)[-1]}.")
            p("")
        if get("icount", "eh-fde-1000000", 1, 16) is not None:
            p("The same 16-deep chains (256 copies: 4,096 distinct IPs) in a program "
              "with 1,000,000 one-instruction filler functions (table 2a's "
              "`ubench-scale-1000000`), built with SFrame and, assembled and "
              "compiled without it, with .eh_frame only "
              "(`ubench-ehscale-1000000`):")
            p("")
            p("| build | instr/frame, 1 chain | instr/frame, 256 chains | "
              "wall ns/frame, 256 chains | chains checked |")
            p("|---|---|---|---|---|")
            for lab, what in (("fde-1000000", "SFrame"), ("eh-fde-1000000", ".eh_frame")):
                p(f"| {what} | {num(get('icount', lab, 1, 16))} | "
                  f"{num(get('icount', lab, SC, 16))} | {num(get('wall', lab, SC, 16))} | "
                  f"{checked(lab, 1, 16)}, {checked(lab, SC, 16)} |")
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
    def part_secs(part):
        # " The part took N guest seconds (KIND boot)." per boot that ran it
        out = []
        for kind in ("icount", "wall"):
            marks = [(x.split()[1], float(kv(x)["uptime"]))
                     for x in runs[kind] if x.startswith("part ")]
            for a, b in zip(marks, marks[1:]):
                if a[0] == part:
                    out.append(f"{b[1] - a[1]:.0f} guest seconds in the {kind} boot")
        return f" The part took {' and '.join(out)}." if out else ""

    depths = [int(x) for x in meta.get("perf_depths", "16").split()]
    d0 = depths[0]
    preps = (f"{meta.get('perf_reps_icount', '?')} repetitions in the icount boot, "
             f"{meta.get('perf_reps_wall', '?')} in the wall-clock boot")
    p("## 3. perf record: perf.data size and overhead")
    p("")
    p(f"`perf record` (guest perf) of the same workload (main -> w1 .. w{d0}, spinning "
      f"in w{d0}; {meta.get('perf_iters', '?')} iterations), cpu-clock, period "
      f"{meta.get('perf_period', '?')} ns. Samples (all of the workload's) and "
      "bytes/sample (perf.data size / samples, headers and side-band records "
      "included): medians over the repetitions. Complete/leaf (first repetition): of the samples from 50% to 75% "
      "of the recording's time, those whose user chain is "
      f"w{d0} .. w1 main / those in w{d0} (harness/demo/chains.awk). Run times (medians "
      f"of the repetitions, {preps}): the workload's own loop (CLOCK_MONOTONIC inside "
      "it: all the guest did meanwhile, perf's own work included) and the whole "
      "command (perf's start-up, event setup and perf.data writing included). "
      "Task/sample: the loop's thread CPU time recorded minus alone "
      "(CLOCK_THREAD_CPUTIME_ID: the interrupts that hit the task and its work on "
      "the return to user space, not perf's), over the loop's samples (icount boot; "
      "table 3b)." + part_secs("perf"))
    p("")
    p("| variant | samples | bytes/sample | dwarf/this | complete/leaf | task/sample, instr | "
      "workload loop, instr: alone / recorded (overhead) | "
      "workload loop, wall ms: alone / recorded (overhead) | "
      "whole command, instr: alone / perf record (overhead) | "
      "whole command, wall ms: alone / perf record (overhead) |")
    p("|---|---|---|---|---|---|---|---|---|---|")

    def tm(kind, what="cmd"):
        # tmrun: the whole command; perfwl (just before it): the
        # workload's own loop, elapsed (ns) and its thread's CPU time
        # (cpu_ns).
        t, last = {}, None
        for x in runs[kind]:
            if x.startswith("perfwl "):
                last = kv(x)
            elif x.startswith("tmrun "):
                c = kv(x)
                if what == "cmd":
                    v = int(c["ns"])
                else:
                    v = int(last[what]) if last and what in last else None
                if v is not None:
                    t.setdefault(c["label"], []).append(v)
                last = None
        return {k: statistics.median(v) for k, v in t.items()}
    tmi, tmw = tm("icount"), tm("wall")
    owi, oww = tm("icount", "ns"), tm("wall", "ns")
    cpi = tm("icount", "cpu_ns")
    # per recording (every repetition): perf.data bytes, samples, samples
    # of the loop, the loop's elapsed and CPU time; the first repetition's
    # chain check
    psr, pdv = {}, {}
    for x in runs["icount"]:
        if x.startswith("perfsamples "):
            c = kv(x)
            psr.setdefault((c["variant"], int(c["depth"])), []).append(c)
        elif x.startswith("perfdata "):
            c = kv(x)
            pdv[(c["variant"], int(c.get("depth", 16)))] = c
    names = {"sf": "-g, SFrame build",
             "sfdefer": "--call-graph fp,defer, SFrame build",
             "fp": "-g, frame-pointer build (.eh_frame conversion off)",
             "fpdefer": "--call-graph fp,defer, frame-pointer build (.eh_frame conversion off)",
             "dwarf": "--call-graph dwarf, SFrame build"}

    def base(v, d):
        return f"base-{'fp' if v.startswith('fp') else 'sf'}-{d}"

    def med(v, d, f):
        # median over the repetitions of f(record), None where f is
        vals = [y for y in (f(c) for c in psr.get((v, d), [])) if y is not None]
        return statistics.median(vals) if vals else None

    def bps(v, d=d0):
        return med(v, d, lambda c: int(c["bytes"]) / int(c["samples"])
                   if int(c.get("samples", 0)) else None)

    def nsamples(v, d, k="samples"):
        m = med(v, d, lambda c: int(c[k]) if k in c else None)
        return "n/a" if m is None else f"{m:,.0f}"

    def per_sample(v, d, field="cpu_ns"):
        # (recorded - the median alone) / the loop's samples, per
        # repetition; the median
        a = (cpi if field == "cpu_ns" else owi).get(base(v, d))
        if a is None:
            return None
        return med(v, d, lambda c: (int(c[field]) - a) / int(c["loop_samples"])
                   if field in c and int(c.get("loop_samples", 0)) else None)

    def chk(v, d):
        c = pdv.get((v, d))
        if not c:
            return "n/a"
        s = f"{c.get('full', '?')}/{c.get('leaf', '?')}"
        return s if c.get("leaf") == c.get("samples") else f"{s} ({c.get('samples', '?')} checked)"
    for v in ("sf", "sfdefer", "fp", "fpdefer", "dwarf"):
        def cell(t, scale, unit):
            a, b = t.get(base(v, d0)), t.get(f"rec-{v}-{d0}")
            if not a or not b:
                return "n/a"
            return f"{num(a / scale)}{unit} / {num(b / scale)}{unit} ({(b / a - 1) * 100:+.0f}%)"
        p(f"| {names[v]} | {nsamples(v, d0)} | {num(bps(v))} | "
          f"{ratio(bps('dwarf'), bps(v), 1)} | {chk(v, d0)} | "
          f"{num(per_sample(v, d0))} | "
          f"{cell(owi, 1e6, 'M')} | {cell(oww, 1e6, '')} | {cell(tmi, 1e6, 'M')} | {cell(tmw, 1e6, '')} |")
    p("")

    # ---- 3b. synchronous against deferred ---------------------------------
    if any(k[0] in ("sfdefer", "fpdefer") for k in psr):
        p("### 3b. Synchronous against deferred call chains, per sample")
        p("")
        p("The same workload at depths " + ", ".join(str(d) for d in depths) +
          " (main -> w1 .. wD, spinning in wD), each build recorded with `-g` (the "
          "user chain taken in the sample's interrupt) and with `--call-graph "
          "fp,defer` (the sample holds the kernel chain and a cookie; the user chain "
          "is taken when the task returns to user space and written as a "
          "PERF_RECORD_CALLCHAIN_DEFERRED record, which perf script joins to the "
          "sample). SFrame build: its table walked; frame-pointer build: "
          "`kernel.unwind_user_eh_frame=0`, no table in the task, the kernel's "
          "frame-pointer loop. Icount boot, medians over the repetitions of each "
          "recording's figure. Loop samples: from the first to the last sample "
          "whose own IP is in wD (`perf script -G`). In the task: the loop's "
          "thread CPU time recorded minus alone, over the loop samples: the work in "
          "the sampled task from the interrupt to its return to user space, the "
          "deferred unwind included. Loop elapsed: the loop's CLOCK_MONOTONIC "
          "recorded minus alone, over the loop samples: perf's own work (reading "
          "the ring buffer, writing perf.data) while the loop ran too. Bytes/sample: "
          "perf.data size over all samples. defer/-g: the ratio. Complete/leaf "
          "(first repetition): of the samples from 50% to 75% of the recording's "
          "time (`perf script --time 50%-75%`, all in the loop), those whose user "
          "chain is wD .. w1 main / those in wD.")
        p("")
        p("| build | depth | loop samples: -g / defer | in the task, instr/sample: -g / "
          "defer (defer/-g) | loop elapsed, instr/sample: -g / defer (defer/-g) | "
          "bytes/sample: -g / defer (defer/-g) | complete/leaf: -g; defer |")
        p("|---|---|---|---|---|---|---|")

        def trio(x, y):
            return f"{num(x)} / {num(y)} ({ratio(y, x)})"
        for b, what in (("sf", "SFrame"), ("fp", "frame pointers, no table")):
            for d in depths:
                sv, dv = b, b + "defer"
                p(f"| {what} | {d} | {nsamples(sv, d, 'loop_samples')} / "
                  f"{nsamples(dv, d, 'loop_samples')} | "
                  f"{trio(per_sample(sv, d), per_sample(dv, d))} | "
                  f"{trio(per_sample(sv, d, 'loop_ns'), per_sample(dv, d, 'loop_ns'))} | "
                  f"{trio(bps(sv, d), bps(dv, d))} | {chk(sv, d)}; {chk(dv, d)} |")
        p("")
        # per frame: the difference between the first and the last depth
        if len(depths) > 1:
            lo, hi = depths[0], depths[-1]

            def pf(v):
                a, b = per_sample(v, lo), per_sample(v, hi)
                return None if a is None or b is None else (b - a) / (hi - lo)
            p(f"Per frame (in the task, depth {hi} minus depth {lo}, over {hi - lo} "
              "frames): " + "; ".join(
                  f"{what} `-g` {num(pf(b))}, deferred {num(pf(b + 'defer'))} instr"
                  for b, what in (("sf", "SFrame"), ("fp", "frame pointers"))) + ".")
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
                # "exec-run sframe=V eh=E execloop op=... n=... ns=... median_ns=...
                # file=... drop=D"
                c = kv("x " + x.replace("exec-run ", "", 1).replace("execloop ", "", 1))
                if "ns" not in c:
                    continue
                key = (kind, c["op"], os.path.basename(c["file"]), c["sframe"],
                       c.get("eh", "0"), c.get("drop", "0"))
                v = int(c["median_ns"]) if "median_ns" in c else int(c["ns"]) / int(c["n"])
                ex.setdefault(key, []).append(v)
    if ex:
        p("## 5. execve() and dlopen() with SFrame discovery and the .eh_frame conversion on and off")
        p("")
        p("`execloop exec N PROG`: fork, execve of PROG (which exits at once) and "
          "wait, N times; `execloop dlopen N LIB`: dlopen(RTLD_NOW) and "
          "dlclose, N times; each operation timed on its own. execloop holds a "
          "(disabled) perf event that samples call chains, as a profiler would: "
          "every executable mmap of the program, ld.so, the C library and the "
          "library then reads its ELF headers (page cache), and a file's table is "
          "built before the task returns to user space unless the file has one "
          "in memory (shared while another mapping uses it, and kept by the "
          "kernel after the last mapping goes, for the next, where it does). "
          "`all off`: `kernel.unwind_user_sframe=0`, the kernel reads nothing. "
          "`SFrame, eh off`: SFrame sections only (`kernel.unwind_user_eh_frame=0`). "
          "`eh on`: both (the default). `none kept`: `execloop -D`, 2 written to "
          "`/proc/sys/vm/drop_caches` before each operation (untimed), so no table "
          "is kept: each operation builds the tables of the files it maps (the "
          "cost of a first start). execloop and execloop-big have SFrame (a small "
          ".sframe; the 10,000 filler functions of the cold start program), "
          "execloop-eh has .eh_frame only; liblc.so has SFrame, libperl (Debian's, "
          "with libcrypt and libm) .eh_frame only; all but libperl run from a tmpfs "
          f"copy. Loops of {meta.get('exec_n', '?')} operations (part exec: `all "
          f"off`, `SFrame, eh off`) and {meta.get('eh_exec_n', '?')} (part eh: the "
          "others); the median operation of a loop, median over the repetitions "
          "(icount boot: guest time at one instruction per ns).")
        p("")
        p("| boot | operation | file | all off | SFrame, eh off | eh on | "
          "SFrame, eh off, none kept | eh on, none kept | added by SFrame | "
          "added by .eh_frame | added by .eh_frame, none kept |")
        p("|---|---|---|---|---|---|---|---|---|---|---|")

        def exmed(k):
            v = ex.get(k)
            return statistics.median(v) if v else None

        def us(v):
            return f"{num(v / 1000, 1)} us" if v is not None else "n/a"

        def added(a, b):
            if a is None or b is None:
                return "n/a"
            return f"{num((a - b) / 1000, 1)} us ({(a / b - 1) * 100:+.1f}%)"
        for kind in ("icount", "wall"):
            for op, f in sorted({(k[1], k[2]) for k in ex if k[0] == kind}):
                off = exmed((kind, op, f, "0", "0", "0"))
                sfo = exmed((kind, op, f, "1", "0", "0"))
                eho = exmed((kind, op, f, "1", "1", "0"))
                sfd = exmed((kind, op, f, "1", "0", "1"))
                ehd = exmed((kind, op, f, "1", "1", "1"))
                p(f"| {kind} | {op} | {f} | {us(off)} | {us(sfo)} | {us(eho)} | "
                  f"{us(sfd)} | {us(ehd)} | {added(sfo, off)} | {added(eho, sfo)} | "
                  f"{added(ehd, sfd)} |")
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
          "with frame pointers and no SFrame, mapped with "
          "`kernel.unwind_user_eh_frame=0` (N mappings without a table). Median over the "
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
            if "rows" in w:
                p(f"| {kind} | {int(w['rows']):,} | {w['map_ms']} | {w['max_late_ms']} | "
                  f"{w['idle_max_late_ms']} |")
        p("")
        files = [(kind, w) for kind, w in wakes if "file" in w]
        if files:
            p("The same while a crafted `.eh_frame` of 4 MiB is mapped (harness/safety/"
              "mkelf.py, three fresh copies, the sleeper as uid 1001): `hostile.so`, "
              "4,096 FDE records that each run to the end of the section (review F1; "
              "the kernel refuses it), and `valid.so`, disjoint FDEs of the same size, "
              "converted. Bound asked: under 100 ms in the x86_64 guest (not asserted: "
              "a figure).")
            p("")
            p("| boot | file | mmap ms (worst) | worst wake-up lateness ms | without the mapping ms |")
            p("|---|---|---|---|---|")
            for kind, w in files:
                p(f"| {kind} | {w['file']} | {w['map_ms']} | {w['max_late_ms']} | "
                  f"{w['idle_max_late_ms']} |")
            p("")

    # ---- 9. .eh_frame conversion and table memory per file ----------------
    ehm = {}
    for kind, lines in runs.items():
        for x in lines:
            if x.startswith("ehmap ") and "first_ns=" in x:
                c = kv(x)
                ehm.setdefault(kind, {})[c["name"]] = c
    if ehm:
        p("## 9. Table per file: conversion time and memory")
        p("")
        p("`ehmap map REPS FILE...`: with a perf event open that takes call chains, "
          "each file is read once (page cache warm; the benchmark programs are "
          "copied to the guest's tmpfs first), then its executable segment is "
          "mapped (`PROT_READ | PROT_EXEC`, `MAP_PRIVATE`, at its file offset, as "
          "ld.so maps text) and unmapped again, the mmap() call alone timed. "
          "`first mapping`: the conversion on, no other mapping of the file, and "
          "no table kept (2 written to `/proc/sys/vm/drop_caches` before, "
          "untimed): the mapping converts the file's .eh_frame into a new table, "
          "or validates its .sframe for an SFrame build. `kept`: a mapping after "
          "one that went, the table kept by the kernel if it keeps tables. "
          "`second`: while another mapping of the file exists (its table shared). "
          "`eh off`: `kernel.unwind_user_eh_frame=0` (the ELF headers read, "
          "nothing registered; an SFrame build still gets its table). `all off`: "
          "`kernel.unwind_user_sframe=0` (nothing read). Medians over the "
          "repetitions (1 for the two 1,000,000-function programs), in guest "
          "instructions (icount boot). `table bytes`: the change of the debugfs "
          "counter `table_bytes` at the first mapping (the table's kernel "
          "memory); `stop rows`: rows the table cannot express "
          "(`eh_frame_stop_rows`: the walk ends there). FDEs: the .eh_frame_hdr "
          "count (for an SFrame build, its .sframe's, from table 6).")
        p("")
        p("| file | table from | FDEs | .eh_frame bytes | .eh_frame_hdr bytes | "
          ".sframe bytes | first mapping: instr | instr/FDE | instr/byte of the section | "
          "kept: instr | second: instr | eh off: instr | all off: instr | table bytes | "
          "table / section bytes | table rows | table bytes/row | table bytes/FDE | "
          "stop rows | wall ms, first mapping |")
        p("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
        ic = ehm.get("icount", {})
        wl = ehm.get("wall", {})
        for name in list(ic) + [n for n in wl if n not in ic]:
            c = ic.get(name) or wl[name]
            w = wl.get(name)
            sfb = int(c["sframe"])
            eb, hb = int(c["eh_frame"]), int(c["eh_frame_hdr"])
            fdes = int(c["fdes"])
            if sfb:
                h = hostf.get(name)
                fdes = int(h["fdes"]) if h else -1
                src, sec = "SFrame", sfb
            else:
                src, sec = ".eh_frame", eb + hb

            def ins(f):
                return num(int(c[f])) if name in ic else "n/a"
            on = int(c["first_ns"]) if name in ic else None
            tb = int(c["table_bytes"])
            tr = int(c.get("table_rows", 0))
            fd = num(fdes) if fdes > 0 else "n/a"
            p(f"| {name} | {src} | {fd} | {num(eb)} | {num(hb)} | {num(sfb)} | "
              f"{num(on)} | {num(on / fdes) if on and fdes > 0 else 'n/a'} | "
              f"{num(on / (sfb or eb), 1) if on and (sfb or eb) else 'n/a'} | "
              f"{ins('kept_ns')} | {ins('second_ns')} | {ins('eh_off_ns')} | "
              f"{ins('off_ns')} | {num(tb)} | {ratio(tb, sec)} | "
              f"{num(tr) if tr else 'n/a'} | {num(tb / tr, 1) if tr else 'n/a'} | "
              f"{num(tb / fdes, 1) if fdes > 0 else 'n/a'} | {c['stop_rows']} | "
              f"{num(int(w['first_ns']) / 1e6, 1) if w else 'n/a'} |")
        p("")
        odd = [f"{n} (first mapping: {c['tables']} tables, {c['converted']} converted; "
               f"second: {c['second_tables']} tables, {c['second_shared']} shared)"
               for n, c in ic.items()
               if c["tables"] != "1" or c["second_tables"] != "0" or c["second_shared"] != "1"
               or c["converted"] != ("0" if c["sframe"] != "0" else "1")]
        if odd:
            p("Not as expected (the first mapping adds one table, converted from "
              ".eh_frame unless the file has SFrame; the second shares it): "
              + "; ".join(odd) + ".")
            p("")
        # The bounds of a conversion a distribution accepts: at most 128
        # guest instructions per byte of .eh_frame, and a table no larger
        # than the .eh_frame and .eh_frame_hdr it comes from.
        named = [n for n in ("libc.so.6", "libstdc++.so.6", "python3.11",
                             "ubench-ehscale-1000000")
                 if n in ic and ic[n]["sframe"] == "0"]
        if named:
            p("Bounds (conversion at most 128 instructions per byte of .eh_frame; "
              "table at most the .eh_frame + .eh_frame_hdr bytes):")
            p("")
            for n in named:
                c = ic[n]
                eb, hb = int(c["eh_frame"]), int(c["eh_frame_hdr"])
                on, tb = int(c["first_ns"]), int(c["table_bytes"])
                per = on / eb if eb else 0
                rt = tb / (eb + hb) if eb + hb else 0
                p(f"- {n}: {num(per, 1)} instructions per byte of .eh_frame (bound 128: "
                  f"{'within' if per <= 128 else 'above'}); table {rt:.2f} times "
                  f".eh_frame + .eh_frame_hdr (bound 1.00: "
                  f"{'within' if rt <= 1 else 'above'})")
            p("")
        kc = [n for n, c in ic.items() if c.get("kept_converted") == "0"]
        if ic:
            p(f"`kept`: the table of an earlier mapping reused for {len(kc)} of the "
              f"{len(ic)} files (no conversion at that mapping).")
            p("")

    # ---- 10. tables during a system-wide perf record -----------------------
    ehw = [kv(x) for x in runs["icount"] if x.startswith("ehwatch ")]
    if ehw:
        w = ehw[0]
        st = {}
        for x in runs["icount"]:
            if x.startswith("ehstats "):
                st[x.split()[1]] = kv("x " + " ".join(x.split()[2:]))
        ep = next((kv(x) for x in runs["icount"] if x.startswith("ehperf ")), {})
        comms = sorted(((int(kv(x)["samples"]), kv(x)["comm"]) for x in runs["icount"]
                        if x.startswith("ehcomm ")), reverse=True)
        rec = tmi.get("rec-eh-a")

        def delta(k):
            a, b = st.get("before", {}).get(k), st.get("after", {}).get(k)
            return int(b) - int(a) if a is not None and b is not None else None
        conv, val = delta("eh_frame_converted"), delta("validated")

        def trio(k):
            if f"{k}_first" not in w:
                return "n/a"
            return " / ".join(num(int(w[f"{k}_{x}"])) for x in ("first", "max", "last"))
        p("## 10. Kernel memory of the tables during `perf record -a -g`")
        p("")
        p(f"`perf record -a -g -e cpu-clock -c {meta.get('eh_perf_period', '?')}` "
          "(the tree's perf, -icount boot) of a guest running, at the same time, "
          "`perfwl-eh` (table 3's workload built without SFrame and without "
          "frame pointers) and the 1,000,000-function `.eh_frame` program "
          "(`ubench-ehscale-1000000`, three times 1,000 samples of its own) in the "
          "background, `execloop exec 20 ./execloop-eh` and `execloop dlopen 10 "
          "libperl.so.5.36`, the conversion on (perf itself, which maps Debian's "
          "libstdc++, libpython, libperl, libbfd and more, is sampled when it "
          "runs). Tables kept from earlier parts are dropped first "
          "(`/proc/sys/vm/drop_caches`). `ehmap watch 10` reads the debugfs "
          "counters every 10 ms meanwhile: tables in use (`tables`, "
          "`table_bytes`) and kept after their last mapping (`kept`, "
          "`kept_bytes`), before the run, at their peak, after it; `peak of "
          "both`: the highest table_bytes + kept_bytes. Conversions: the change "
          "of `eh_frame_converted` over the run.")
        p("")
        p("| polls | tables in use: before / peak / after | their bytes | "
          "tables kept: before / peak / after | their bytes | peak of both, bytes | "
          "conversions | SFrame sections validated | samples | perf.data bytes | "
          "perfwl-eh complete/leaf | perf record run, instr |")
        p("|---|---|---|---|---|---|---|---|---|---|---|---|")
        p(f"| {w['polls']} | {trio('tables')} | {trio('bytes')} | {trio('kept')} | "
          f"{trio('kept_bytes')} | {num(int(w['sum_max'])) if 'sum_max' in w else 'n/a'} | "
          f"{num(conv)} | "
          f"{num(val - conv) if val is not None and conv is not None else 'n/a'} | "
          f"{num(int(ep['total'])) if 'total' in ep else 'n/a'} | "
          f"{num(int(ep['bytes'])) if 'bytes' in ep else 'n/a'} | "
          f"{ep.get('full', '?')}/{ep.get('leaf', '?')} | {num(rec)} |")
        p("")
        if comms:
            p("Samples by command: " + ", ".join(f"{c} {n:,}" for n, c in comms[:8]) + ".")
            p("")

    # ---- 11. a whole system under perf record -a -g -----------------------
    def sysrun(lines):
        s = {"stats": {}, "order": [], "maps": {}, "sec": {}, "rss": {}, "comm": [],
             "exec": {}}
        for x in lines:
            if x.startswith("sysstats "):
                c = kv(x)
                at = c.pop("at")
                s["stats"][at] = {k: int(v) for k, v in c.items() if v.lstrip("-").isdigit()}
                s["order"].append(at)
            elif x.startswith("sysmap "):
                c = kv(x)
                s["maps"].setdefault(c["set"], set()).add(c["file"])
            elif x.startswith("ehsec ") and "error" not in kv(x):
                c = kv(x)
                s["sec"][c["file"]] = c
            elif x.startswith("sysrss "):
                c = kv(x)
                s["rss"][c["set"]] = c
            elif x.startswith("sysalive "):
                s["alive"] = kv(x)
            elif x.startswith("syssamples "):
                s["samples"] = kv(x)
            elif x.startswith("syscomm "):
                s["comm"].append(kv(x))
            elif x.startswith("sysexec ") and "median_ns=" in x:
                c = kv("x " + x.replace("sysexec ", "", 1).replace("execloop ", "", 1))
                s["exec"][(os.path.basename(c["file"]), c["eh"])] = c
        return s if s["order"] else None
    sysr = {k: sysrun(runs[k]) for k in ("icount", "wall")}
    sysr = {k: v for k, v in sysr.items() if v}
    if sysr:
        p("## 11. A whole system under `perf record -a -g`")
        p("")
        p("The Debian programs of `harness/bench/system.txt` (coreutils, python3, "
          "perl, gzip, xz, bzip2, zstd, sed, grep, mawk, bash, openssl, sqlite3, "
          "...: copied from the host with their libraries, bench.sh's "
          "`system-root.tar`), one process each, started at once while the "
          "tree's `perf record -a -g -e cpu-clock -c "
          f"{meta.get('eh_perf_period', '?')}` runs, every one reading a FIFO "
          "that stays open, the kernel's defaults (`kernel.unwind_user_sframe=1`, "
          "`kernel.unwind_user_eh_frame=1`), tables kept from earlier parts "
          "dropped first. Counters (debugfs `sframe_stats`): `before` the "
          "programs start (perf running), `alive` once every one waits for "
          "input (read(), poll()), `busy` after eleven of them were run again on 2 MB of text "
          "(gzip, xz, bzip2, zstd, sort, sha256sum, sed, grep, mawk, perl, "
          "python3: the samples), `exited` after end of file reached all of "
          "them (tables kept after their last mapping), `end` after perf "
          "exited too. Files: the distinct files the processes map executable "
          "(`/proc/PID/maps`), their `.eh_frame` + `.eh_frame_hdr` section "
          "sizes read in the guest (`ehmap sections`).")
        p("")
        p("| boot | programs alive (distinct) | tables in use: before / alive / busy / "
          "exited / end | table bytes | tables kept | kept bytes | "
          ".eh_frame conversions while the programs started | of them duplicates freed | "
          "samples | with a user chain | user chain > 2 entries |")
        p("|---|---|---|---|---|---|---|---|---|---|---|")
        for kind, s in sysr.items():
            st, order = s["stats"], s["order"]

            def seq(k):
                return " / ".join(num(st[a][k]) if k in st[a] else "n/a" for a in order)

            def d(k, a="alive", b="before"):
                if a in st and b in st and k in st[a] and k in st[b]:
                    return st[a][k] - st[b][k]
                return None
            conv, dt, dk = d("eh_frame_converted"), d("tables"), d("kept")
            # a table taken back from the kept ones is no conversion
            dup = conv - (dt + dk) if None not in (conv, dt, dk) else None
            al = s.get("alive", {})
            sm = s.get("samples", {})
            tot, us, dp = (int(sm[k]) if k in sm else None for k in ("total", "user", "deep"))
            p(f"| {kind} | {al.get('processes', '?')} ({al.get('distinct', '?')}) | "
              f"{seq('tables')} | {seq('table_bytes')} | {seq('kept')} | {seq('kept_bytes')} | "
              f"{num(conv)} | {num(dup)} | {num(tot)} | {num(us)} | "
              f"{num(dp)} ({ratio(100 * dp if dp is not None else None, us, 1)}%) |")
        p("")
        s = sysr.get("icount") or next(iter(sysr.values()))
        kind = "icount" if "icount" in sysr else next(iter(sysr))
        st, mp, sec = s["stats"], s["maps"], s["sec"]

        def secs(files):
            have = [f for f in files if f in sec]
            return (sum(int(sec[f]["eh_frame"]) + int(sec[f]["eh_frame_hdr"]) for f in have),
                    sum(1 for f in have if int(sec[f]["eh_frame"]) or int(sec[f]["sframe"])),
                    len(files) - len(have))
        started, every = mp.get("started", set()), mp.get("all", set())
        own = started - mp.get("others", set())
        rs, ra = s["rss"].get("started", {}), s["rss"].get("all", {})

        def kb(c, k):
            return int(c[k]) * 1024 if k in c else None

        def dst(k, a, b):
            if a in st and b in st and k in st[a] and k in st[b]:
                return st[a][k] - st[b][k]
            return None
        rows = []
        if "others" in mp:
            eb, withsec, miss = secs(own)
            rows.append(("the programs' own files (no other process maps them): "
                         "tables alive - exited", rs.get("processes"), len(own), withsec,
                         miss, eb, dst("tables", "alive", "exited"),
                         dst("table_bytes", "alive", "exited"), rs))
        if "alive" in st:
            eb, withsec, miss = secs(every)
            rows.append(("every process (the programs, perf, the shell): all tables "
                         "in use, alive", ra.get("processes"), len(every), withsec, miss, eb,
                         st["alive"].get("tables"), st["alive"].get("table_bytes"), ra))
        eb_all, _, _ = secs(started)
        p(f"Table memory against RSS and against the sections it comes from ({kind} "
          f"boot, all programs alive). The programs map {len(started)} distinct files "
          f"executable ({num(eb_all)} bytes of `.eh_frame` + `.eh_frame_hdr`), "
          f"{len(own)} of which no other process maps; their tables are the ones in "
          "use while they are alive and not once they exited (perf and the shell "
          "keep theirs). VmRSS, RssFile and RssShmem from `/proc/PID/status` (the "
          "guest's root is a tmpfs: the programs' and libraries' pages count as "
          "shmem), Pss of all mappings and Rss and Pss of the executable ones "
          "from `/proc/PID/smaps`, summed over the processes (Rss counts a page "
          "shared by N processes N times, Pss 1/N each).")
        p("")
        p("| set | processes | files mapped executable | of them with .eh_frame or .sframe | "
          ".eh_frame + .eh_frame_hdr bytes | tables | table bytes | VmRSS bytes | "
          "Pss bytes | RssFile + RssShmem bytes | executable mappings: Rss / Pss bytes | "
          "table bytes / VmRSS | table bytes / Pss | table bytes / section bytes |")
        p("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")

        def pct(a, b):
            return f"{ratio(100 * a, b, 2)}%" if a is not None and b else "n/a"
        for what, procs, nf, ws, miss, eb, tn, tb, r in rows:
            vm, ps = kb(r, "vmrss_kb"), kb(r, "pss_kb")
            fs = (kb(r, "rssfile_kb") + kb(r, "rssshmem_kb")
                  if "rssfile_kb" in r and "rssshmem_kb" in r else None)
            p(f"| {what} | {procs or 'n/a'} | {nf}{f' ({miss} unread)' if miss else ''} | "
              f"{ws} | {num(eb)} | {num(tn)} | {num(tb)} | {num(vm)} | {num(ps)} | "
              f"{num(fs)} | {num(kb(r, 'xrss_kb'))} / {num(kb(r, 'xpss_kb'))} | "
              f"{pct(tb, vm)} | {pct(tb, ps)} | {ratio(tb, eb)} |")
        p("")
        if s["comm"]:
            cm = sorted(s["comm"], key=lambda c: -int(c["samples"]))
            p("Samples by command (with more than 2 user entries / with a user chain / "
              "all): " + ", ".join(f"{c['comm']} {c['deep']}/{c['user']}/{c['samples']}"
                                    for c in cm[:14]) + ".")
            p("")
        names = [k for k in sorted(set(st["before"]) if "before" in st else [])]
        if names:
            p("All counters (" + kind + " boot): " + "; ".join(
                f"`{n}` " + " / ".join(str(st[a].get(n, "n/a")) for a in s["order"])
                for n in names) + f" ({' / '.join(s['order'])}).")
            p("")
        ex = [(k, v) for k, v in sysr.items() if v["exec"]]
        if ex:
            p("Exec of a cold start: `execloop -D exec "
              f"{meta.get('sys_exec_n', '?')} PROG` (fork, execve, wait; 2 written to "
              "`/proc/sys/vm/drop_caches` before each, untimed: no table kept from "
              "an earlier start) while `perf record -a -g` runs, "
              "`kernel.unwind_user_eh_frame=1` (the files the program maps that no "
              "running process holds get their tables converted at each start: the "
              "program, and python3's libraries perf does not map) and `=0`; the "
              "median exec.")
            p("")
            p("| boot | program | eh on | eh off | added per exec |")
            p("|---|---|---|---|---|")
            for kind, v in ex:
                for prog in sorted({k[0] for k in v["exec"]}):
                    on, off = v["exec"].get((prog, "1")), v["exec"].get((prog, "0"))
                    a = int(on["median_ns"]) if on else None
                    b = int(off["median_ns"]) if off else None
                    unit, sc = ("instr", 1) if kind == "icount" else ("us", 1000)
                    cell = (lambda x: f"{num(x / sc)} {unit}" if x is not None else "n/a")
                    add = (f"{num((a - b) / sc)} {unit} ({(a / b - 1) * 100:+.1f}%)"
                           if a is not None and b else "n/a")
                    p(f"| {kind} | {prog} | {cell(a)} | {cell(b)} | {add} |")
            p("")

    # ---- 6. host micro-benchmark -----------------------------------------
    p("## 6. Host micro-benchmark of the decoder")
    p("")
    p("kernel/unwind/sframe.c built for the host with the harness/hosttest shims "
      "(-O2, no sanitizers): each benchmark program's .sframe validated and "
      "decoded into the table the kernel builds (its rows, distinct rules and "
      "bytes, as the kernel allocates them), and sframe_rules_lookup() in that table: "
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
        def within(rs, bound):
            vals = [a / b for _, a, b in rs if a and b]
            if not vals:
                return "n/a"
            return "within" if max(vals) <= bound else "above"
        for chains, what in ((1, "repeated IPs, 1 chain"), (64, "distinct IPs, 64 chains")):
            r = [(d, get("icount", "sf", chains, d), get("base", "fp-base", chains, d)) for d in D]
            r4 = [(4, get("icount", "sf", chains, 4), get("base", "fp-base", chains, 4))]
            p(f"| SFrame frame / base frame-pointer step <= 1.5 at depth 16-128 ({what}) | "
              f"depth {rl(r4)} (printed), {rl(r)}: {within(r, 1.5)} |")
        for name, what in (("fde-1000000", "SFrame"), ("eh-fde-1000000", ".eh_frame")):
            for chains in (1, SC):
                r = [(16, get("icount", name, chains, 16), get("base", "fp-base", 1, 16))]
                if r[0][1] is not None:
                    p(f"| 1,004,108-function program ({what}), {chains} chain"
                      f"{'s' if chains > 1 else ''}: frame / base frame-pointer step <= 1.5 | "
                      f"depth {rl(r)}: {within(r, 1.5)} |")
    else:
        for chains, what in ((1, "repeated IPs, 1 chain"), (64, "distinct IPs, 64 chains")):
            r = [(d, get("icount", "sf", chains, d), get("icount", "fp", chains, d)) for d in D]
            p(f"| SFrame frame / frame-pointer step of this kernel ({what}; no base boot) "
              f"| depth {rl(r)} |")
    rw = [(d, get("icount", "adv-sf", 1, d), get("icount", "adv-fp", 1, d)) for d in D]
    if any(a is not None for _, a, _ in rw):
        p(f"| worst case printed (8,001-row functions, registrations changing): SFrame/FP "
          f"per frame | depth {rl(rw)} |")
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
          f"{chk('sf', d0)} (SFrame) vs {chk('dwarf', d0)} (dwarf) |")
    rd = [(d, per_sample("sfdefer", d), per_sample("sf", d)) for d in depths]
    if any(a is not None and b is not None for _, a, b in rd):
        p(f"| printed: work in the task per sample, deferred / synchronous (SFrame build) | "
          f"depth {rl(rd)}; complete " + ", ".join(
              f"{d}: -g {chk('sf', d)}, defer {chk('sfdefer', d)}" for d in depths) + " |")
    cs = [kv(x) for x in runs["icount"] if x.startswith("cold-summary")]
    if cs:
        p(f"| cold start: complete from the second sample period after the first miss | "
          f"leaf samples from the miss to the first complete one: mean "
          f"{cs[0]['recover_mean']}, max {cs[0]['recover_max']} "
          f"(runs with a miss: {cs[0]['runs_with_miss']}/{cs[0]['runs']}) |")
    re_ = [(d, get("icount", "eh", 64, d), get("icount", "sf", 64, d)) for d in D]
    if any(a is not None for _, a, _ in re_):
        p(f"| frame from an .eh_frame table / SFrame frame, same chain (64 chains) | "
          f"depth {rl(re_)} |")
        rf = [(d, get("icount", "fp-eh", 64, d), get("base", "fp-base", 64, d)
               if get("base", "fp-base", 64, d) is not None else get("icount", "fp-sfon", 64, d))
              for d in D]
        base_what = ("the unpatched base" if get("base", "fp-base", 64, 16) is not None
                     else "the conversion off (no base boot)")
        p(f"| frame-pointer program with the conversion on, per frame against {base_what} "
          f"(64 chains) | depth {rl(rf)} |")
    em = ehm.get("icount", {}) if ehm else {}
    if "libc.so.6" in em:
        c = em["libc.so.6"]
        p(f"| printed: first mapping of libc.so.6 (its .eh_frame converted) / with its "
          f"table kept / a second mapping | {num(int(c['first_ns']))} / "
          f"{num(int(c['kept_ns']))} / {num(int(c['second_ns']))} instructions; "
          f"table {num(int(c['table_bytes']))} bytes |")
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
