#!/usr/bin/env bash
# scale_table.sh — time and peak memory of moebench's readers, statistics
# and writers on large inputs: null sweeps of 10^4 and 10^5 points (their
# results files are the 100 MB-class inputs), a row claiming 10^6 samples,
# and the rate of a 10^6-point sweep over its first minutes. Prints one
# markdown table (docs/measurements/*-scale.md holds a dated one).
#
#   bench/scale_table.sh BUILD_DIR SCRATCH_DIR [SECONDS_OF_THE_MILLION_POINT_RUN]
#
# Not a test: times vary with the machine; the tests assert the work (rows
# kept, refreshes made, samples refused) instead.
set -u
build=$(cd "$1" && pwd)
scratch=$2
million_s=${3:-180}
mb="$build/moebench"
mkdir -p "$scratch" && cd "$scratch" || exit 2
machine=$(dirname "$build")/configs/hardware/epyc-7763-2s-228gb.json

# A null sweep of n points (2 quants × 10 budgets × 2 drive counts × n/40 contexts).
sweep() {
  python3 - "$1" "$2" <<'EOF'
import json, sys
n, name = int(sys.argv[1]), sys.argv[2]
contexts = n // 40
json.dump({"name": name, "description": f"{n} null points (scale table)", "repetitions": 3, "warmup": 0,
           "seed": 1, "timeout_s": 60,
           "axes": {"engine": ["null"], "model": [{"card": "kimi-k3", "layers": 4, "experts": 112}],
                    "quant": ["mxfp4", "q4_k"], "ram_budget": [f"{g}GiB" for g in range(2, 12)],
                    "drives": [1, 2], "context_tokens": list(range(0, contexts * 16, 16)),
                    "prompt_tokens": [32], "gen_tokens": [4]}}, open(f"{name}.json", "w"))
EOF
}

echo "| command | input | wall s | peak RSS MB | exit | output |"
echo "|---|---|---:|---:|---:|---|"
row() {  # row LABEL INPUT CMD...
  local label=$1 input=$2
  shift 2
  /usr/bin/time -f "%e %M" -o time.txt "$@" >out.txt 2>err.txt
  local rc=$?
  read -r wall kb < <(tail -n 1 time.txt)  # after "Command exited with non-zero status N"
  local last
  last=$(tail -n 1 err.txt | cut -c1-140 | tr '|' '/')
  printf '| `%s` | %s | %s | %d | %d | %s |\n' "$label" "$input" "$wall" $((kb / 1024)) "$rc" "$last"
}

sweep 10000 p1e4
sweep 100000 p1e5
sweep 1000000 p1e6
rm -rf r1e4 r1e4b r1e5 m1e5 prs1e4 hist.sqlite
row "validate" "10^6-point sweep" "$mb" validate p1e6.json
row "run --out r1e4" "10^4-point null sweep" "$mb" run p1e4.json --out r1e4 -q
row "run --out r1e4b" "10^4-point null sweep (second, for compare)" "$mb" run p1e4.json --out r1e4b -q
# predict and calibrate take a modelled engine: the same axes, streaming tiny-moe at 1-10 GiB.
python3 -c 'import json; s = json.load(open("p1e4.json")); s["name"] = "ps1e4"; s["axes"].update({"engine": ["streaming"], "model": ["tiny-moe"], "quant": ["mxfp4", "q4_0"], "ram_budget": [f"{g}GiB" for g in range(1, 11)]}); json.dump(s, open("ps1e4.json", "w"))'
row "predict" "10^4-point streaming sweep" "$mb" predict ps1e4.json --machine "$machine" --out prs1e4 -q
row "run --out r1e5" "10^5-point null sweep" "$mb" run p1e5.json --out r1e5 -q
size=$(du -m r1e5/results.json | cut -f1)
row "compare" "10^4 rows vs 10^4 rows" "$mb" compare r1e4/results.json r1e4b/results.json
row "compare" "10^5 rows with itself (results.json ${size} MB)" "$mb" compare r1e5/results.json r1e5/results.json
row "report" "10^5 rows (${size} MB)" "$mb" report r1e5/results.json --machine "$machine" --html r1e5/report.html
row "merge" "10^5-row journal" "$mb" merge r1e5 --out m1e5
row "history add" "10^4 rows" "$mb" history add r1e4/results.json --db hist.sqlite
row "history show" "10^4 rows stored" "$mb" history show --db hist.sqlite
# calibrate fits measured rows: the predicted ones, relabelled.
sed 's/"provenance": "predicted"/"provenance": "measured"/' prs1e4/results.json >calib1e4.json
row "calibrate --dry-run" "10^4 rows" "$mb" calibrate calib1e4.json --machine "$machine" --dry-run

# A row claiming 10^6 samples of one metric (a hand-edited or hostile file).
python3 - <<'EOF'
import json
doc = json.load(open("r1e4/results.json"))
doc["rows"] = doc["rows"][:1]
doc["rows"][0]["samples"]["decode_tok_s"] = [1.0] * 1000000
json.dump(doc, open("samples1e6.json", "w"))
EOF
row "compare" "a row with 10^6 samples" "$mb" compare samples1e6.json samples1e6.json
row "history add" "a row with 10^6 samples" "$mb" history add samples1e6.json --db hist.sqlite

# The 10^6-point sweep: rows journaled per 30 s window of its first minutes.
rm -rf r1e6
"$mb" run p1e6.json --out r1e6 -q >/dev/null 2>&1 &
pid=$!
prev=0
rates=""
for ((t = 30; t <= million_s; t += 30)); do
  sleep 30
  now=$(($(wc -l <r1e6/journal.jsonl) - 1))
  rates="$rates $(((now - prev) / 30))"
  prev=$now
done
kill -INT $pid 2>/dev/null
wait $pid 2>/dev/null
echo
echo "10^6-point null sweep, points/s in each 30 s window of its first ${million_s} s:${rates} (${prev} rows)"
