#!/usr/bin/env python3
"""gate_power_series.py — per level and per series, what the gates of a
bench/gate_power.sh study saw (its SCRATCH/gLEVEL-N/gate.json files): the
verdicts, each series' median slowdown over the trials with its range, how
many trials flagged it, and how many of its run pairs were set aside as
disturbed.

    bench/gate_power_series.py SCRATCH
"""
import collections
import glob
import json
import os
import re
import statistics
import sys


def main(scratch):
    trials = collections.defaultdict(list)  # level -> [gate.json]
    for path in glob.glob(os.path.join(scratch, "g*-*", "gate.json")):
        m = re.match(r"g(\d+)-(\d+)$", os.path.basename(os.path.dirname(path)))
        if not m:
            continue
        with open(path) as f:
            trials[int(m.group(1))].append(json.load(f))
    if not trials:
        sys.exit(f"gate_power_series: no SCRATCH/gLEVEL-N/gate.json under {scratch}")
    for level in sorted(trials):
        gates = trials[level]
        verdicts = collections.Counter(g["verdict"] for g in gates)
        print(f"level {level}%: {len(gates)} trials, verdicts {dict(verdicts)}")
        series = collections.defaultdict(list)
        for g in gates:
            for s in g["series"]:
                engine = "streaming" if "streaming" in s["point"] else "resident"
                series[(engine, s["metric"])].append(s)
        for (engine, metric), ss in sorted(series.items()):
            slow = [100 * (s["median_slowdown"] - 1) for s in ss if s.get("median_slowdown")]
            flagged = sum(1 for s in ss if s["verdict"] == "regressed")
            disturbed = sum(s.get("disturbed_pairs", 0) for s in ss)
            total = sum(s.get("pairs", 0) + s.get("disturbed_pairs", 0) for s in ss)
            print(f"   {engine:9} {metric:14} median slowdown {statistics.median(slow):+.2f} % "
                  f"(range {min(slow):+.2f} .. {max(slow):+.2f}), flagged in {flagged} of {len(ss)}, "
                  f"{disturbed} of {total} run pairs disturbed")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
