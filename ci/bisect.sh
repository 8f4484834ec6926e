#!/usr/bin/env bash
# bisect.sh — the step of `git bisect run` that finds the commit the paired
# gate fires on (docs/ci-gate.md, "When the gate fires on a range"). Each
# step builds the checked-out commit and runs `moebench compare-builds`
# against a build of the last good commit, made once before the bisection.
# Copy this script out of the tree first: bisect checks out commits that
# predate it.
#
#   cp ci/bisect.sh /tmp/bisect.sh
#   cmake -S . -B /tmp/good -DCMAKE_BUILD_TYPE=Release -DMOEBENCH_TESTS=OFF   # at GOOD
#   cmake --build /tmp/good --target moebench -j"$(nproc)"
#   git bisect start BAD GOOD
#   git bisect run /tmp/bisect.sh /tmp/good/moebench [SWEEP [compare-builds options...]]
#   git bisect reset
#
# Both builds embed configs/: a range that changes them makes every later
# step "different configs" (skipped); bisect such a range with
# MOEBENCH_BISECT_CONFIGS=DIR, which both builds then read (--configs DIR).
#
# The step's exit status is what `git bisect run` reads: 0 good (the gate
# passes), 1 bad (regressed), 125 skip (the commit does not build, or the
# gate cannot decide: inconclusive, or nothing judged). Each step's gate.md
# stays in $MOEBENCH_BISECT_DIR/<commit>/ (default results/bisect).
set -u
good_bin=${1:?usage: ci/bisect.sh GOOD_MOEBENCH [SWEEP [compare-builds options...]]}
shift
sweep=${1:-ci}
[ $# -gt 0 ] && shift
case $good_bin in /*) ;; *) good_bin=$PWD/$good_bin ;; esac
cd "$(git rev-parse --show-toplevel)" || exit 125
[ -x "$good_bin" ] || { echo "bisect: $good_bin is not an executable moebench build of the good commit" >&2; exit 125; }
commit=$(git rev-parse --short HEAD) || exit 125
work=${MOEBENCH_BISECT_DIR:-results/bisect}
build="$work/build"
mkdir -p "$work" || exit 125

# One build directory reused across steps: only what a commit changed is rebuilt.
if ! cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DMOEBENCH_TESTS=OFF >"$work/cmake-$commit.log" 2>&1 ||
   ! cmake --build "$build" -j "$(nproc)" --target moebench >>"$work/cmake-$commit.log" 2>&1; then
  echo "bisect: $commit does not build ($work/cmake-$commit.log): skipped"
  exit 125
fi
sync

configs=()
[ -n "${MOEBENCH_BISECT_CONFIGS:-}" ] && configs=(--configs "$MOEBENCH_BISECT_CONFIGS")
"$good_bin" "${configs[@]}" compare-builds "$good_bin" "$build/moebench" "$sweep" --out "$work/$commit" "$@" >"$work/$commit.log" 2>&1
rc=$?
case $rc in
  0) echo "bisect: $commit unchanged against the good build: good"; exit 0 ;;
  1) echo "bisect: $commit regressed ($work/$commit/gate.md): bad"; exit 1 ;;
  3) echo "bisect: $commit inconclusive (a disturbed machine or too few pairs, $work/$commit/gate.md): skipped"; exit 125 ;;
  *) echo "bisect: $commit: nothing judged (exit $rc, $work/$commit.log): skipped"; exit 125 ;;
esac
