#!/bin/sh
# make — the README's two commands (`./make run`, `./make test`) on a machine
# that has nothing but apt: a minimal Debian 12 (debootstrap --variant=minbase)
# has no GNU make. Installs it with apt-get when missing, then hands every
# argument to it; the Makefile installs the rest (its `deps` target).
set -eu
cd "$(dirname "$0")"
if ! command -v make >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ]; then sudo=""; else sudo="sudo"; fi
  if ! command -v apt-get >/dev/null 2>&1; then
    echo "./make: GNU make is missing and there is no apt-get to install it; install make and run 'make $*'" >&2
    exit 1
  fi
  echo "./make: installing GNU make (apt-get)" >&2
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends make
fi
exec make "$@"
