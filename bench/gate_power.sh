#!/usr/bin/env bash
# gate_power.sh — how often the CI gate raises a false alarm and how often it
# catches a known slowdown, on this machine (issue 34). Not a test: it runs
# for an hour or more and its rates are the machine's.
#
#   bench/gate_power.sh INJECT_BUILD_DIR SCRATCH [AA_RUNS] [RUNS_PER_LEVEL] [LEVELS...]
#
# INJECT_BUILD_DIR holds a moebench built with -DMOEBENCH_INJECT_SLOWDOWN=ON:
# MOEBENCH_INJECT_SLOWDOWN_PCT=x stretches every layer's time by x percent
# (engines/executor/executor.cpp). Two wrapper scripts of that one binary are
# the builds: A at 0 %, B at each level. Defaults: 40 A/A runs, 20 runs per
# level, levels 2 3 5 10.
#
# Each trial runs, on a reduced ci sweep (points 1 and 4: one streaming and
# one resident point, about 26 s of gate on a 2-core VM),
#   new gate: moebench compare-builds A B ci --points 1,4 (its defaults: 4
#             ABBA blocks, the fewest whose test can pass Holm over 4 series,
#             × 1 repetition + 1 warm-up: 8 run pairs per metric)
#   old gate: moebench run ci --points 1,4 with A, then with B, then
#             moebench compare --threshold 10% (exit 1 = flagged)
# keeps each trial's gate.json (SCRATCH/gLEVEL-N/gate.json, for a look at the
# series afterwards) and prints one markdown table: per level, the share of trials flagged by
# each gate with its 95 % Wilson interval (at 0 % that share is the
# false-alarm rate; above, the detection rate).
set -u
bin=$(cd "$1" && pwd)/moebench
scratch=$2
aa=${3:-40}
per_level=${4:-20}
shift $(( $# >= 4 ? 4 : $# ))
levels=${*:-2 3 5 10}
mkdir -p "$scratch" && cd "$scratch" || exit 2
drives="--drive-dir $scratch/d0 --drive-dir $scratch/d1"

wrapper() {  # wrapper PCT → path of a script running the inject build at PCT %
  local w="$scratch/moebench-$1pct"
  printf '#!/bin/sh\nMOEBENCH_INJECT_SLOWDOWN_PCT=%s exec "%s" "$@"\n' "$1" "$bin" >"$w"
  chmod +x "$w"
  echo "$w"
}

a=$(wrapper 0)
"$a" run ci --points 1,4 --out warm -q --print none $drives >/dev/null 2>&1  # containers made once

trial() {  # trial B_WRAPPER N → "new_rc old_rc"
  local b=$1 n=$2
  rm -rf "g$n" "oa$n" "ob$n"
  "$a" compare-builds "$a" "$b" ci --points 1,4 --out "g$n" -q $drives >/dev/null 2>&1
  local new_rc=$?
  "$a" run ci --points 1,4 --out "oa$n" -q --print none $drives >/dev/null 2>&1
  "$b" run ci --points 1,4 --out "ob$n" -q --print none $drives >/dev/null 2>&1
  "$a" compare "oa$n" "ob$n" --threshold 10% >/dev/null 2>&1
  local old_rc=$?
  echo "$new_rc $old_rc"
}

echo "| injected slowdown | trials | new gate: flagged (exit 1) | inconclusive (exit 3) | rate, 95 % interval | old gate (compare --threshold 10%): flagged | rate, 95 % interval |"
echo "|---:|---:|---:|---:|---|---:|---|"
for level in 0 $levels; do
  runs=$per_level
  [ "$level" = 0 ] && runs=$aa
  b=$(wrapper "$level")
  new_hits=0 new_inc=0 old_hits=0
  for ((i = 1; i <= runs; i++)); do
    read -r new_rc old_rc < <(trial "$b" "$level-$i")
    [ "$new_rc" = 1 ] && new_hits=$((new_hits + 1))
    [ "$new_rc" = 3 ] && new_inc=$((new_inc + 1))
    [ "$old_rc" = 1 ] && old_hits=$((old_hits + 1))
    rm -rf "g$level-$i/runs" "oa$level-$i" "ob$level-$i"
  done
  python3 - "$level" "$runs" "$new_hits" "$new_inc" "$old_hits" <<'PY'
import math, sys
level, n, hits, inc, old = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
def wilson(k, n, z=1.959964):
    if n == 0:
        return "–"
    p = k / n
    d = 1 + z * z / n
    c = (p + z * z / (2 * n)) / d
    h = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return f"{100 * p:.0f} % ({100 * max(0, c - h):.0f}–{100 * min(1, c + h):.0f} %)"
print(f"| {level} % | {n} | {hits} | {inc} | {wilson(hits, n)} | {old} | {wilson(old, n)} |")
PY
done
