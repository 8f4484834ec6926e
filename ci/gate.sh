#!/usr/bin/env bash
# gate.sh — the paired performance gate of a change: builds the merge base
# and HEAD side by side, then `moebench compare-builds` runs both on the ci
# sweep interleaved (docs/ci-gate.md). Used by the GitHub and GitLab files
# beside it; on a developer's machine it needs the build packages installed
# (`./make deps` installs them, with sudo when not root).
#
#   ci/gate.sh [BASE_REF]          BASE_REF defaults to origin/main
#
# Writes results/gate/{gate.md,gate.json,runs/}; exit status is the gate's:
# 0 pass, 1 regressed, 3 inconclusive, 2 nothing judged (a failed build or
# git step included: never 1, which means "regressed").
set -euo pipefail
trap 'exit 2' ERR
cd "$(dirname "$0")/.."
base_ref=${1:-origin/main}
work=${MOEBENCH_GATE_DIR:-results/gate}
base=$(git merge-base "$base_ref" HEAD)
mkdir -p "$work"
cleanup() { git worktree remove --force "$work/base-src" >/dev/null 2>&1 || true; git worktree prune; }
trap cleanup EXIT

./make deps                                    # the Debian packages moebench builds with
# Both sides built the same way, each in a build directory of its own (the
# checkout's build/ may hold a developer's options).
rm -rf "$work/base-src"
git worktree prune
git worktree add --detach "$work/base-src" "$base" >/dev/null
for side in base head; do
  src=$([ "$side" = base ] && echo "$work/base-src" || echo .)
  cmake -S "$src" -B "$work/$side-build" -DCMAKE_BUILD_TYPE=Release -DMOEBENCH_TESTS=OFF >/dev/null
  cmake --build "$work/$side-build" -j "$(nproc)" --target moebench
done

sync                                           # the builds' writeback done before anything is timed
set +e
trap - ERR
"$work/head-build/moebench" compare-builds "$work/base-build/moebench" "$work/head-build/moebench" ci --out "$work"
rc=$?
echo "gate: exit $rc ($work/gate.md)"
exit "$rc"
