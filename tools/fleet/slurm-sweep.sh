#!/bin/bash
# slurm-sweep.sh — a moebench sweep on a Slurm cluster: a job array of N
# shards (moebench-shard.sbatch, one `moebench run --shard-from-env` each)
# and a merge job that runs when they have all ended (moebench-merge.sbatch).
#
#   slurm-sweep.sh SWEEP N OUT              submit the N shards and the merge
#   slurm-sweep.sh --rerun K SWEEP N OUT    rerun shard K (it resumes) and merge again
#
# OUT must be on storage every node sees. Shard K writes OUT/shards/K-of-N and
# logs to OUT/logs/shard-K-of-N.JOB.log (array task id K). Environment:
#   MOEBENCH           the moebench binary on the nodes (default: moebench)
#   SBATCH_OPTS        extra sbatch options for both jobs (partition, account, time)
#   MOEBENCH_RUN_ARGS  extra `moebench run` options (--machine, --drive-dir, ...)
# Prints the job ids; `squeue -u $USER` follows them.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
unset MOEBENCH_SHARD  # only --rerun sets it
rerun=""
if [ "${1:-}" = "--rerun" ]; then
  rerun=${2:?--rerun needs a shard number}
  shift 2
fi
if [ $# -ne 3 ]; then
  sed -n '2,14p' "$0" >&2
  exit 64
fi
sweep=$1 n=$2 out=$3
case $n in ''|*[!0-9]*) echo "slurm-sweep.sh: N must be a positive whole number, not \"$n\"" >&2; exit 64;; esac
n=$((10#$n))  # 08 is eight, not an octal error; 04 names the same shards as 4
if [ "$n" -lt 1 ]; then echo "slurm-sweep.sh: N must be 1 or more" >&2; exit 64; fi
if [ -n "$rerun" ]; then
  case $rerun in ''|*[!0-9]*) echo "slurm-sweep.sh: --rerun K: K must be 1 to $n" >&2; exit 64;; esac
  rerun=$((10#$rerun))
  if [ "$rerun" -lt 1 ] || [ "$rerun" -gt "$n" ]; then echo "slurm-sweep.sh: --rerun K: K must be 1 to $n" >&2; exit 64; fi
fi
mkdir -p "$out/logs"
out=$(cd "$out" && pwd)
case $sweep in */*) sweep=$(cd "$(dirname "$sweep")" && pwd)/$(basename "$sweep");; esac
export MOEBENCH="${MOEBENCH:-moebench}" MOEBENCH_SWEEP="$sweep" MOEBENCH_OUT="$out" MOEBENCH_SHARDS="$n" \
       MOEBENCH_RUN_ARGS="${MOEBENCH_RUN_ARGS:-}"
# shellcheck disable=SC2086  # SBATCH_OPTS is a list of options
if [ -n "$rerun" ]; then
  shards=$(MOEBENCH_SHARD="$rerun/$n" sbatch --parsable ${SBATCH_OPTS:-} --export=ALL \
           --output="$out/logs/shard-$rerun-of-$n.%j.log" "$here/moebench-shard.sbatch")
else
  # Task ids 1..N are the shard numbers: the log of shard K is shard-K-of-N.
  shards=$(sbatch --parsable ${SBATCH_OPTS:-} --export=ALL --array="1-$n" \
           --output="$out/logs/shard-%a-of-$n.%A.log" "$here/moebench-shard.sbatch")
fi
shards=${shards%%;*}
# shellcheck disable=SC2086
merge=$(sbatch --parsable ${SBATCH_OPTS:-} --export=ALL --dependency="afterany:$shards" \
        --output="$out/logs/merge.%j.log" "$here/moebench-merge.sbatch")
merge=${merge%%;*}
echo "shards: job $shards${rerun:+ (shard $rerun/$n)}; merge: job $merge (after the shards end); results: $out"
