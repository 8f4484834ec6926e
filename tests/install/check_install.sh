#!/usr/bin/env bash
# check_install.sh — the installed forms of moebench, as a user gets them
# (CTest "install: …"):
#   1. cmake --install into a scratch prefix: the binary, one manual page per
#      command, the bash completion and the docs, where Debian looks for them;
#   2. the pages are roff that starts with .TH, and the completion completes
#      a command, a subcommand and an option;
#   3. cpack builds the .deb: its control names its shared-library
#      dependencies, and the binary extracted from it runs --version, claims
#      and two points of `run ci`.
#   check_install.sh BUILD_DIR
set -euo pipefail
build=$(cd "$1" && pwd)
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
fail() { echo "check_install: $*" >&2; exit 1; }

cmake --install "$build" --prefix "$scratch/prefix" >/dev/null
p=$scratch/prefix
for f in bin/moebench share/man/man1/moebench.1 share/man/man1/moebench-run.1 share/man/man1/moebench-card-show.1 \
         share/bash-completion/completions/moebench share/doc/moebench/README.md share/doc/moebench/docs/ci-gate.md; do
  [ -e "$p/$f" ] || fail "cmake --install left out $f"
done
for page in "$p"/share/man/man1/*.1; do
  head -1 "$page" | grep -q '^\.TH ' || fail "$page does not start with .TH"
done
pages=$(ls "$p"/share/man/man1/*.1 | wc -l)
[ "$pages" -ge 20 ] || fail "only $pages manual pages"

complete_words() {  # complete_words WORD... → what the completion offers for the last word
  bash -c 'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _moebench; echo "${COMPREPLY[*]}"' _ \
    "$p/share/bash-completion/completions/moebench" "$@"
}
[ "$(complete_words moebench ru)" = run ] || fail "completion of 'moebench ru': '$(complete_words moebench ru)'"
[ "$(complete_words moebench card sh)" = show ] || fail "completion of 'moebench card sh'"
[ "$(complete_words moebench run --fre)" = --fresh ] || fail "completion of 'moebench run --fre'"

"$p/bin/moebench" --version | grep -q '^moebench ' || fail "the installed binary does not say its version"

cpack --config "$build/CPackConfig.cmake" -B "$scratch/pkg" >/dev/null
deb=$(ls "$scratch"/pkg/moebench_*.deb) || fail "cpack wrote no .deb"
dpkg-deb --field "$deb" Depends | grep -q 'libhwloc' || fail "the package does not depend on hwloc: $(dpkg-deb --field "$deb" Depends)"
dpkg-deb --contents "$deb" >"$scratch/contents"
grep -q './usr/share/man/man1/moebench.1' "$scratch/contents" || fail "the package has no manual page"
dpkg-deb -x "$deb" "$scratch/root"
bin=$scratch/root/usr/bin/moebench
"$bin" --version | grep -q '^moebench ' || fail "the packaged binary does not say its version"
"$bin" claims --verdict implausible >/dev/null || fail "the packaged binary cannot judge claims"
(cd "$scratch" && "$bin" run ci --points 1,4 --repetitions 2 --out "$scratch/ci" -q --print none \
   --drive-dir "$scratch/d0" --drive-dir "$scratch/d1") || fail "the packaged binary cannot run ci"
grep -q '"status": "ok"' "$scratch/ci/results.json" || fail "run ci from the package wrote no ok row"
echo "check_install: installed and packaged forms ok ($pages manual pages, $(basename "$deb"))"
