#!/usr/bin/env bash
# gate.sh — the paired performance gate of a change: builds the merge base
# and HEAD side by side, then `moebench compare-builds` runs both on the ci
# sweep interleaved (docs/ci-gate.md). Used by the GitHub and GitLab files
# beside it; runs as is on a developer's machine.
#
#   ci/gate.sh [BASE_REF]          BASE_REF defaults to origin/main
#
# Writes results/gate/{gate.md,gate.json,runs/}; exit status is the gate's:
# 0 pass, 1 regressed, 3 inconclusive, 2 nothing judged.
set -euo pipefail
cd "$(dirname "$0")/.."
base_ref=${1:-origin/main}
base=$(git merge-base "$base_ref" HEAD)
work=${MOEBENCH_GATE_DIR:-results/gate}
mkdir -p "$work"

./make deps                                    # the Debian packages moebench builds with
# The change, built as the README builds it.
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j "$(nproc)" --target moebench
# The merge base, in a worktree of its own (the checkout is left alone).
rm -rf "$work/base-src"
git worktree add --detach "$work/base-src" "$base" >/dev/null
cmake -S "$work/base-src" -B "$work/base-build" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$work/base-build" -j "$(nproc)" --target moebench
git worktree remove --force "$work/base-src"

sync                                           # the builds' writeback done before anything is timed
set +e
build/moebench compare-builds "$work/base-build/moebench" build/moebench ci --out "$work"
rc=$?
set -e
echo "gate: exit $rc ($work/gate.md)"
exit "$rc"
