#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""report.py - turn bench/run.sh's DATA lines into results.md, results.json
and gnuplot plots.

usage: report.py [--kernel KVER] [--rounds N] DIR
DIR holds raw.txt (every DATA line of the guests) and gets the results.
Medians with min-max over the rounds; ratios are taken within each round
(configurations alternate inside a round) and then summarised the same way.
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys
from collections import defaultdict

# The commands, as the guests ran them: read from their "DATA cmd" lines.
CMD = {"pipe": "?", "messaging": "?", "hackbench": "?"}
SCHED_CONFIGS = ["absent", "none", "enforce"]
# the instruction counts also have the module with empty probes (the
# tracepoints' own calls) and, in a guest booted psi=0, the module absent
INSN_CONFIGS = ["absent", "empty", "none", "lean", "enforce", "nopsi"]
PLACE_CONFIGS = ["stock", "autonuma", "numad", "home", "home-jobs", "distance", "home+autonuma"]
CONFIG_TEXT = {
    "absent": "module not loaded",
    "empty": "loaded, probes that do nothing (tests/patches/empty-probes.patch)",
    "nopsi": "module not loaded, kernel booted psi=0",
    "none": "loaded, policy none",
    "lean": "loaded, policy none, lean=1 (no probe in a context switch)",
    "enforce": "loaded, distance + enforce",
    "stock": "stock scheduler, NUMA balancing off",
    "autonuma": "kernel NUMA balancing on",
    "numad": "numad -i 5 (balancing off)",
    "home": "numa_advise home, enforce",
    "home-jobs": "numa_advise home, enforce, scope include comm numa_job",
    "distance": "numa_advise distance, enforce",
    "home+autonuma": "numa_advise home, enforce, + NUMA balancing",
}


def num(s):
    try:
        return float(s)
    except ValueError:
        return float("nan")


def spread(values):
    """median, min, max, n of the finite values (None if there are none)"""
    v = sorted(x for x in values if x == x)
    if not v:
        return None
    return {"median": statistics.median(v), "min": v[0], "max": v[-1], "n": len(v)}


def fmt(s, digits=2, pct=False):
    if s is None:
        return "-"
    f = "{:+.%df}%%" % digits if pct else "{:.%df}" % digits
    return "%s (%s..%s)" % (f.format(s["median"]), f.format(s["min"]), f.format(s["max"]))


def load(path):
    rows = defaultdict(list)
    with open(path) as f:
        for line in f:
            w = line.split()
            if len(w) >= 3 and w[0] == "DATA" and w[1] == "cmd":
                # the guests' absolute build paths, as run from the tree
                CMD[w[2]] = re.sub(r"\S*/build/bench/", "build/bench/", " ".join(w[3:]))
            elif len(w) >= 2 and w[0] == "DATA":
                rows[w[1]].append(w[2:])
    return rows


def sched(rows):
    """per benchmark: the figure per config, and the slowdown per round"""
    by = defaultdict(dict)  # (bench, round) -> config -> value
    for b, c, r, v in rows.get("sched", []):
        by[(b, int(r))][c] = num(v)
    out = {}
    for b in ("pipe", "messaging", "hackbench"):
        rounds = [by[k] for k in sorted(by) if k[0] == b]
        res = {"command": CMD[b], "unit": "usecs/op" if b == "pipe" else "s"}
        for c in SCHED_CONFIGS:
            res[c] = spread(r.get(c, float("nan")) for r in rounds)
        for c in SCHED_CONFIGS[1:]:
            res["slowdown_" + c] = spread(
                100.0 * (r[c] / r["absent"] - 1)
                for r in rounds if c in r and r.get("absent", 0) > 0)
        out[b] = res
    return out


def scale(rows):
    acc = defaultdict(list)
    for nodes, n, r, probe, calls, mean, p50, p99, live in rows.get("scale", []):
        acc[(int(nodes), int(n), probe)].append((num(mean), num(p50), num(calls), num(live)))
    out = []
    for (nodes, n, probe), v in sorted(acc.items()):
        out.append({"nodes": nodes, "tasks": n, "probe": probe,
                    "mean_ns": spread(x[0] for x in v), "p50_ns": spread(x[1] for x in v),
                    "calls": spread(x[2] for x in v), "tracked": spread(x[3] for x in v)})
    return out


def memory(rows):
    return [{"max_tasks": int(c), "slot_bytes": int(s), "memory_bytes": int(m),
             "bytes_per_task": int(m) / int(c)} for c, s, m in rows.get("memory", [])]


def numatest(rows):
    runs = defaultdict(list)
    for c, r, secs, faults, migrated in rows.get("numatest-run", []):
        runs[c].append((num(secs), num(faults), num(migrated)))
    jobs = defaultdict(list)
    last = {}
    for w in rows.get("numatest-job", []):
        c, r = w[0], int(w[1])
        j = {"round": r, "job": int(w[2]), "elapsed_s": num(w[4]), "user_s": num(w[5]),
             "local_pct": num(w[6]), "node_changes": int(float(w[8])), "settled_s": num(w[9]),
             "run_node": int(w[10]), "mem_node": int(w[11]), "nodes": w[12],
             "home": int(w[14]) if len(w) > 14 else -1,
             "xnode": int(w[15]) if len(w) > 15 else 0,
             "node_pct": [num(x) for x in w[16:]]}
        jobs[c].append(j)
        last[c] = max(last.get(c, 0), r)
    out = {}
    for c in PLACE_CONFIGS:
        if c not in jobs:
            continue
        js = jobs[c]
        per_round = defaultdict(list)
        for j in js:
            per_round[j["round"]].append(j)
        out[c] = {
            "local_pct": spread(statistics.mean(x["local_pct"] for x in v) for v in per_round.values()),
            "mismatches": spread(sum(x["home"] != x["mem_node"] for x in v) for v in per_round.values()),
            "xnode": spread(sum(x["xnode"] for x in v) for v in per_round.values()),
            "node_changes": spread(sum(x["node_changes"] for x in v) for v in per_round.values()),
            "settled_s": spread(statistics.median(x["settled_s"] for x in v) for v in per_round.values()),
            "user_s": spread(statistics.mean(x["user_s"] for x in v) for v in per_round.values()),
            "elapsed_s": spread(x[0] for x in runs[c]),
            "hint_faults": spread(x[1] for x in runs[c]),
            "pages_migrated": spread(x[2] for x in runs[c]),
            "last_round": [j for j in js if j["round"] == last[c]],
        }
    return out


def insn(rows):
    """instructions per context switch (__schedule call), from the plugin's
    phases: the difference between the long and the short run of the same
    benchmark, so that starting it (exec, faults) cancels out"""
    count = {int(w[0]): [int(x) for x in w[1:]] for w in rows.get("insn-count", [])}
    runs = defaultdict(dict)  # (bench, config, round) -> loops -> counts
    for n, b, loops, c, r in rows.get("insn-phase", []):
        if int(n) in count:
            runs[(b, c, int(r))][int(loops)] = count[int(n)]
    per = defaultdict(dict)  # (bench, round) -> config -> figures
    for (b, c, r), v in runs.items():
        if len(v) != 2:
            continue
        (la, a), (lz, z) = sorted(v.items())
        calls = z[4] - a[4]
        if calls <= 0:
            continue
        per[(b, r)][c] = {"kernel_per_switch": (z[1] - a[1]) / calls,
                          "modules_per_switch": (z[3] - a[3]) / calls,
                          "switches_per_loop": calls / (lz - la),
                          "all_per_loop": (z[0] - a[0]) / (lz - la),
                          "modules_per_loop": (z[3] - a[3]) / (lz - la)}
    out = {}
    for b in sorted({k[0] for k in per}):
        rounds = [per[k] for k in sorted(per) if k[0] == b]
        res = {"command": CMD.get("insn-" + b, "?")}
        for c in INSN_CONFIGS:
            for f in ("kernel_per_switch", "modules_per_switch", "switches_per_loop",
                      "all_per_loop", "modules_per_loop"):
                res["%s_%s" % (c, f)] = spread(r[c][f] for r in rounds if c in r)
        for c in ("empty", "none", "lean", "enforce"):
            res["added_" + c] = spread(r[c]["kernel_per_switch"] - r["absent"]["kernel_per_switch"]
                                       for r in rounds if c in r and "absent" in r)
            res["share_" + c] = spread(100.0 * (r[c]["kernel_per_switch"] /
                                                r["absent"]["kernel_per_switch"] - 1)
                                       for r in rounds if c in r and "absent" in r)
            # the module's own instructions against all the benchmark
            # executes without it, user space too: counted, not a difference
            # of two totals (which vary by more with scheduling, where the
            # benchmark does more than switch)
            res["module_share_" + c] = spread(100.0 * r[c]["modules_per_loop"] /
                                              r["absent"]["all_per_loop"]
                                              for r in rounds if c in r and "absent" in r)
        # the kernel's own PSI: what the kernel executes per switch with it
        # (as booted) against without it (psi=0), both without the module,
        # and against all the benchmark executes without PSI
        res["added_psi"] = spread(r["absent"]["kernel_per_switch"] - r["nopsi"]["kernel_per_switch"]
                                  for r in rounds if "absent" in r and "nopsi" in r)
        res["all_share_psi"] = spread(100.0 * (r["absent"]["all_per_loop"] /
                                               r["nopsi"]["all_per_loop"] - 1)
                                      for r in rounds if "absent" in r and "nopsi" in r)
        for c in ("none", "lean", "enforce"):
            res["all_share_" + c] = spread(100.0 * (r[c]["all_per_loop"] /
                                                    r["absent"]["all_per_loop"] - 1)
                                           for r in rounds if c in r and "absent" in r)
        out[b] = res
    return out


def native(rows):
    """the probe's replica: ns it adds to the kernel's own switch accounting"""
    pipe = spread(num(w[1]) for w in rows.get("native-pipe", []))
    base, probe = defaultdict(dict), defaultdict(dict)
    for kind, acc in (("native-base", base), ("native-probe", probe)):
        for n, r, ns in rows.get(kind, []):
            acc[int(n)][int(r)] = num(ns)
    out = {"pipe_usecs_per_op": pipe, "probe_ns": {}, "base_ns": {}}
    for n in sorted(probe):
        # each repeat ran both back to back: the difference is the probe's
        s = spread(probe[n][r] - base[n][r] for r in probe[n] if r in base[n])
        out["probe_ns"][n] = s
        out["base_ns"][n] = spread(base[n].values())
        if pipe and s:
            # a pipe round trip is two context switches
            out.setdefault("share", {})[n] = 100.0 * 2 * s["median"] / (1000 * pipe["median"])
    return out


def numamem(rows):
    acc = defaultdict(list)
    for c, r, secs in rows.get("numamem", []):
        acc[c].append(num(secs))
    return {c: spread(v) for c, v in acc.items()}


def halves(rows):
    def dist(a, b):
        return 10 if a == b else (16 if a // 4 == b // 4 else 32)

    out = defaultdict(list)
    for c, r, a, b in rows.get("halves", []):
        sets = [[int(x) for x in s.split(",")] for s in (a, b)]
        total = [sum(dist(x, y) for i, x in enumerate(s) for y in s[i + 1:]) for s in sets]
        # each job within one group of four, the two in different groups
        groups = [{x // 4 for x in s} for s in sets]
        compact = all(len(g) == 1 for g in groups) and groups[0] != groups[1]
        out[c].append({"run": int(r), "a": a, "b": b, "distance": total, "compact": compact})
    return dict(out)


def plot(path, script, data=None):
    """render one PNG with gnuplot; a missing gnuplot is said, not fatal;
    nothing (and no old PNG left) if its data file is empty"""
    if data is not None and not os.path.getsize(data):
        if os.path.exists(path):
            os.remove(path)
        return None
    try:
        subprocess.run(["gnuplot"], input=script, text=True, check=True,
                       stdout=subprocess.DEVNULL)
        return os.path.basename(path)
    except (OSError, subprocess.CalledProcessError) as e:
        print("report.py: no plot %s: %s" % (path, e), file=sys.stderr)
        return None


def plots(d, res):
    made = []
    sd = os.path.join(d, "sched.dat")
    with open(sd, "w") as f:
        i = 0
        for b, r in res["sched"].items():
            for c in SCHED_CONFIGS[1:]:
                s = r["slowdown_" + c]
                if s:
                    f.write('%d "%s\\n%s" %f %f %f\n' % (i, b, c, s["median"], s["min"], s["max"]))
                    i += 1
    made.append(plot(os.path.join(d, "sched.png"), """
set terminal pngcairo size 800,420 font ",10" noenhanced
set output '%s'
set title "Scheduler-path slowdown vs module absent (median, min-max over rounds)"
set ylabel "slowdown %%"
set style fill solid 0.5
set boxwidth 0.6
set xtics rotate by 0
set grid ytics
plot '%s' using 1:3:xtic(2) with boxes notitle, '' using 1:3:4:5 with yerrorbars notitle lc rgb "black"
""" % (os.path.join(d, "sched.png"), sd), sd))

    sc = os.path.join(d, "scale.dat")
    series = []
    with open(sc, "w") as f:
        for nodes in sorted({x["nodes"] for x in res["scale"]}):
            rows = [x for x in res["scale"] if x["nodes"] == nodes and x["probe"] == "switch"]
            if not rows:
                continue
            f.write("# %d nodes\n" % nodes)
            for x in rows:
                f.write("%d %f %f %f\n" % (x["tasks"], x["mean_ns"]["median"],
                                           x["mean_ns"]["min"], x["mean_ns"]["max"]))
            f.write("\n\n")
            series.append(nodes)
    if series:
        lines = ", ".join("'%s' index %d using 1:2:3:4 with yerrorlines title '%d nodes'" % (sc, i, n)
                          for i, n in enumerate(series))
        made.append(plot(os.path.join(d, "scale.png"), """
set terminal pngcairo size 800,420 font ",10" noenhanced
set output '%s'
set title "sched_switch probe: mean ns per call vs live tasks (in the guest, TCG)"
set xlabel "live tasks"
set ylabel "ns per call"
set logscale x
set grid
set yrange [0:*]
plot %s
""" % (os.path.join(d, "scale.png"), lines)))

    nt = os.path.join(d, "numatest.dat")
    with open(nt, "w") as f:
        for i, c in enumerate(PLACE_CONFIGS):
            r = res["numatest"].get(c)
            if r and r["local_pct"]:
                s, m = r["local_pct"], r["pages_migrated"] or {"median": 0}
                f.write('%d "%s" %f %f %f %f\n' % (i, c, s["median"], s["min"], s["max"], m["median"]))
    made.append(plot(os.path.join(d, "numatest.png"), """
set terminal pngcairo size 900,420 font ",10" noenhanced
set output '%s'
set key top left
set title "numa_test: local memory accesses (bars, left) and pages migrated (points, right)"
set ylabel "local accesses %%"
set y2label "pages migrated"
set yrange [0:105]
set y2range [0:*]
set ytics nomirror
set y2tics
set style fill solid 0.5
set boxwidth 0.6
set grid ytics
plot '%s' using 1:3:xtic(2) with boxes notitle, '' using 1:3:4:5 with yerrorbars notitle lc rgb "black", \\
     '' using 1:6 axes x1y2 with points pt 7 ps 1.5 title "pages migrated"
""" % (os.path.join(d, "numatest.png"), nt), nt))
    return [m for m in made if m]


def markdown(res, kernel, rounds, seconds, pngs, parts="", commit="?"):
    L = []
    w = L.append
    w("# numa_advise benchmarks\n")
    w("Made by %s (`bench/run.sh -r %d%s`, %s) of commit %s on kernel %s in QEMU "
      "TCG guests; %d rounds on the scheduler path. Figures are medians with (min..max) over "
      "the rounds; a slowdown is taken within each round against the module "
      "absent in the same round, the configurations alternating in rotated "
      "order.\n" % ("a part of `make bench`" if parts else "`make bench`", rounds,
                     " -p " + parts if parts else "",
                     "%d minutes" % round(seconds / 60) if seconds else "?",
                     commit, kernel, rounds))
    w("An emulated guest has no remote-memory penalty: QEMU's memory is the "
      "host's, one latency for every node. Time gains from locality need a "
      "real NUMA host; what this machine measures is locality, convergence, "
      "page migrations and task node changes.\n")

    w("## Cost on the scheduler path\n")
    w("| benchmark (command) | module absent | policy none | distance + enforce | slowdown, none | slowdown, enforce |")
    w("|---|---|---|---|---|---|")
    for b in ("pipe", "messaging", "hackbench"):
        r = res["sched"][b]
        w("| %s (`%s`, %s) | %s | %s | %s | %s | %s |" % (
            b, r["command"], r["unit"], fmt(r["absent"]), fmt(r["none"]), fmt(r["enforce"]),
            fmt(r["slowdown_none"], 1, True), fmt(r["slowdown_enforce"], 1, True)))
    w("")
    if "sched.png" in pngs:
        w("![slowdown](sched.png)\n")

    if res["insn"]:
        w("### Instructions the module adds\n")
        w("Counted by a QEMU TCG plugin (bench/insn_phases.c) that counts every "
          "instruction the guest executes, in phases the guest marks: each "
          "benchmark run at two lengths (N below), the difference divided by the "
          "calls to `__schedule` between them, or by the loops. Instruction "
          "counts do not depend on emulation speed: the same kernel on a real "
          "machine executes the same instructions. *In the module* is what runs "
          "in module address space: the probes, and in enforce mode the engine's "
          "rounds. *Added* is the difference of the kernel's instructions per "
          "switch with the module and without: the module's part plus the "
          "tracepoints' own calls; exact for pipe, which does nothing else, and "
          "lost in the noise where scheduling changes how much else the kernel "
          "does. The last columns are the module's instructions as a share of "
          "all the benchmark executes without it, user space included: the "
          "slowdown a real CPU would show at the same instructions per cycle, "
          "before the tracepoints' calls (pipe: the difference between the two "
          "per-switch columns).\n")
        w("| benchmark (command) | switches per loop | all instructions per loop, absent "
          "| kernel instructions per switch, absent | in the module per switch, none "
          "| in the module per switch, enforce | added per switch, none "
          "| module's share of all, none | module's share of all, enforce |")
        w("|---|---|---|---|---|---|---|---|---|")
        for b, r in res["insn"].items():
            w("| %s (`%s`) | %s | %s | %s | %s | %s | %s | %s | %s |" % (
                b, r["command"], fmt(r["absent_switches_per_loop"], 1),
                fmt(r["absent_all_per_loop"], 0), fmt(r["absent_kernel_per_switch"], 0),
                fmt(r["none_modules_per_switch"], 0), fmt(r["enforce_modules_per_switch"], 0),
                fmt(r["added_none"], 0),
                fmt(r["module_share_none"], 2, True), fmt(r["module_share_enforce"], 2, True)))
        w("")
        w("Against the anchors, measured the same way in the same run: the "
          "module built with probes that do nothing (*empty*: what the "
          "tracepoints' own calls cost, the floor of any probe), and the "
          "kernel's own always-on accounting, PSI (Debian's kernels have it on: "
          "*absent* booted as usual against *nopsi*, booted `psi=0`, both "
          "without the module). *All* is everything the benchmark executes, "
          "user space included, per loop: the share a real CPU would show at "
          "the same instructions per cycle.\n")
        w("| benchmark | added per switch: empty probes | added per switch: none "
          "| added per switch: lean | added per switch: enforce | added per switch: PSI "
          "| all instructions: none | all instructions: lean "
          "| all instructions: enforce | all instructions: PSI |")
        w("|---|---|---|---|---|---|---|---|---|---|")
        for b, r in res["insn"].items():
            w("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
                b, fmt(r["added_empty"], 0), fmt(r["added_none"], 0),
                fmt(r["added_lean"], 0), fmt(r["added_enforce"], 0),
                fmt(r["added_psi"], 0),
                fmt(r["all_share_none"], 2, True), fmt(r["all_share_lean"], 2, True),
                fmt(r["all_share_enforce"], 2, True), fmt(r["all_share_psi"], 2, True)))
        w("")
        pipe = res["insn"].get("pipe")
        if pipe:
            w("The goals of issue 18, on pipe (medians; met or not as measured "
              "here):\n")
            w("| goal | measured | met |")
            w("|---|---|---|")
            for text, val, limit in (
                    ("policy none: all instructions added at most 1.5%",
                     pipe["all_share_none"], 1.5),
                    ("policy none: the module's own instructions per switch at most 25",
                     pipe["none_modules_per_switch"], 25),
                    ("lean: all instructions added at most 0.2%",
                     pipe["all_share_lean"], 0.2),
                    ("policy none: less than PSI's",
                     pipe["all_share_none"],
                     pipe["all_share_psi"]["median"] if pipe["all_share_psi"] else None)):
                m = val["median"] if val else None
                w("| %s | %s | %s |" % (
                    text, fmt(val, 2), "?" if m is None or limit is None else
                    ("yes" if m <= limit else "no")))
            w("")

    nat = res["native"]
    if nat["pipe_usecs_per_op"]:
        w("### Natively on the host\n")
        w("The host cannot load modules, so the probe's work is replayed there "
          "by `%s` (bench/probe_native.c: the switch count and the run_delay "
          "reads, after a replica of the kernel's own sched_info accounting "
          "that both runs share, the TSC read as local_clock() reads it, N "
          "live tasks 9 KiB apart met in random order), against the host's "
          "own context switch, `%s`: %s usecs per round trip (two "
          "switches).\n" % (
              CMD.get("native-probe", "?"), CMD.get("native-pipe", "?"),
              fmt(nat["pipe_usecs_per_op"], 2)))
        w("| live tasks | the kernel's own accounting, ns per switch "
          "| added by the probe (replica), ns per switch | share of a pipe switch |")
        w("|---|---|---|---|")
        for n, s in nat["probe_ns"].items():
            w("| %d | %s | %s | %.1f%% |" % (n, fmt(nat["base_ns"].get(n), 1), fmt(s, 1),
                                          nat.get("share", {}).get(n, float("nan"))))
        w("")

    w("## The probe's own cost against the number of tasks\n")
    w("From the module's `overhead` table after %s, with N sleeping threads "
      "alive (`bench/idle_tasks N`), `max_tasks=16384`. Nanoseconds in the "
      "guest are TCG's, inflated; what matters is that they do not grow with "
      "N.\n" % ", ".join("`%s` (%s)" % (v, k) for k, v in sorted(CMD.items())
                         if k.startswith("scale-")))
    w("| nodes | live tasks | tracked | probe | calls | mean ns | p50 ns |")
    w("|---|---|---|---|---|---|---|")
    for x in res["scale"]:
        w("| %d | %d | %s | %s | %s | %s | %s |" % (
            x["nodes"], x["tasks"], fmt(x["tracked"], 0), x["probe"], fmt(x["calls"], 0),
            fmt(x["mean_ns"], 0), fmt(x["p50_ns"], 0)))
    w("")
    if "scale.png" in pngs:
        w("![scale](scale.png)\n")

    w("## Memory\n")
    w("From `status` (slot_bytes, memory_bytes) after `insmod numa_advise.ko max_tasks=N`: "
      "all of it is reserved at load.\n")
    w("| max_tasks | bytes per slot | total bytes | bytes per task |")
    w("|---|---|---|---|")
    for x in res["memory"]:
        w("| %d | %d | %d | %.0f |" % (x["max_tasks"], x["slot_bytes"], x["memory_bytes"],
                                        x["bytes_per_task"]))
    w("")

    w("## What placement gains: numa_test (2003 seed)\n")
    w("`%s` (each job: a private array, random updates), 4 nodes x 2 CPUs. "
      "Local accesses: the job samples 64 of its pages every 250 ms with "
      "move_pages(2) against the node it runs on. Mismatches: jobs whose node "
      "by time (module's table) is not their memory node. Hint faults and "
      "pages migrated: /proc/vmstat deltas over the run.\n" % CMD.get("numatest", "?"))
    w("| configuration | local accesses % | mismatches | cross-node migrations | job node changes | settled after s | hint faults | pages migrated | elapsed s |")
    w("|---|---|---|---|---|---|---|---|---|")
    for c in PLACE_CONFIGS:
        r = res["numatest"].get(c)
        if not r:
            continue
        w("| %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            CONFIG_TEXT[c], fmt(r["local_pct"], 1), fmt(r["mismatches"], 0), fmt(r["xnode"], 0),
            fmt(r["node_changes"], 0), fmt(r["settled_s"], 1), fmt(r["hint_faults"], 0),
            fmt(r["pages_migrated"], 0), fmt(r["elapsed_s"], 0)))
    w("")
    if "numatest.png" in pngs:
        w("![numatest](numatest.png)\n")
    for c in PLACE_CONFIGS:
        r = res["numatest"].get(c)
        if not r or not r["last_round"]:
            continue
        n = len(r["last_round"][0]["node_pct"])
        w("%s, last round, as the 2003 seed printed it (iSched: the node the "
          "job ran on most, MSched: its memory's node, Xnode: cross-node "
          "migrations):\n" % CONFIG_TEXT[c])
        w("```")
        w("Job " + " ".join("node%02d" % i for i in range(n)) +
          " | iSched MSched | UserTime(s) Xnode Local%")
        for j in r["last_round"]:
            w("%3d " % j["job"] + " ".join("%6.1f" % p for p in j["node_pct"]) +
              " |   %d      %d %s| %8.2f %6d %6.1f" % (
                  j["home"], j["mem_node"], "*" if j["home"] != j["mem_node"] else " ",
                  j["user_s"], j["xnode"], j["local_pct"]))
        w("AverageUserTime %.2f seconds  ElapsedTime %.2f  TotalUserTime %.2f" % (
            statistics.mean(j["user_s"] for j in r["last_round"]),
            max(j["elapsed_s"] for j in r["last_round"]),
            sum(j["user_s"] for j in r["last_round"])))
        w("```\n")

    if res["numamem"]:
        w("## perf bench numa mem convergence\n")
        w("`%s`: seconds until the processes converged (- : not within the "
          "run).\n" % CMD.get("numamem", "?"))
        w("| configuration | seconds to converge |")
        w("|---|---|")
        for c in PLACE_CONFIGS:
            if c in res["numamem"]:
                w("| %s | %s |" % (CONFIG_TEXT[c], fmt(res["numamem"][c], 1)))
        w("")

    if res["halves"]:
        w("## Two half-machine jobs on 8 nodes (2014 seed)\n")
        w("`%s` on 8 nodes of 1 CPU (0-3 and 4-7 at 16, 32 across): the nodes "
          "each job's threads were running on, and the total pairwise distance "
          "of each set (the 4 nodes of one group: 96). *Compact*: each job "
          "within one group, the two in different groups.\n" % CMD.get("halves", "?"))
        w("| configuration | runs | both compact | job A nodes | job B nodes | distances |")
        w("|---|---|---|---|---|---|")
        for c, runs in res["halves"].items():
            w("| %s | %d | %d | %s | %s | %s |" % (
                CONFIG_TEXT[c], len(runs), sum(r["compact"] for r in runs),
                " ".join(r["a"] for r in runs), " ".join(r["b"] for r in runs),
                " ".join("%d/%d" % tuple(r["distance"]) for r in runs)))
        w("")
    return "\n".join(L)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kernel", default="?")
    ap.add_argument("--rounds", type=int, default=0)
    ap.add_argument("--seconds", type=int, default=0, help="how long the run took")
    ap.add_argument("--parts", default="", help="bench/run.sh -p, if not all")
    ap.add_argument("--commit", default="?", help="the commit measured (+changes: a tree that differs)")
    ap.add_argument("dir")
    a = ap.parse_args()
    rows = load(os.path.join(a.dir, "raw.txt"))
    res = {"commit": a.commit, "kernel": a.kernel, "rounds": a.rounds, "seconds": a.seconds, "sched": sched(rows), "scale": scale(rows),
           "memory": memory(rows), "insn": insn(rows), "native": native(rows), "numatest": numatest(rows), "numamem": numamem(rows),
           "halves": halves(rows)}
    with open(os.path.join(a.dir, "results.json"), "w") as f:
        json.dump(res, f, indent=1)
    pngs = plots(a.dir, res)
    with open(os.path.join(a.dir, "results.md"), "w") as f:
        f.write(markdown(res, a.kernel, a.rounds, a.seconds, pngs, a.parts, a.commit))
    print("report.py: %s/results.md, results.json, %s" % (a.dir, " ".join(pngs)))


if __name__ == "__main__":
    main()
