#!/bin/sh
# check_minbase.sh — the README's test command on a minimal Debian 12, the
# way a new user with nothing but apt would meet it: a fresh
# `debootstrap --variant=minbase bookworm` chroot (no make, no compiler, no
# git), a clean copy of this checkout's HEAD, then `./make test` inside.
#
#   sudo tools/check_minbase.sh [CHROOT_DIR] [COMMAND]
#
# CHROOT_DIR defaults to /var/tmp/moebench-minbase (made on first use and
# reused; delete it for a fresh one). COMMAND defaults to "./make test";
# "./make run" checks the other README command. Needs root, debootstrap and
# a reachable Debian mirror. /proc, /sys, /dev and /dev/shm are mounted as a
# pbuilder-style chroot has them, plus the host's cgroup hierarchy (slurmd
# needs one); no mountinfo entry covers the project directory there (the
# probe's fallback path is exercised).
set -eu
root=${1:-/var/tmp/moebench-minbase}
cmd=${2:-./make test}
mirror=${MIRROR:-http://deb.debian.org/debian}
src=$(cd "$(dirname "$0")/.." && pwd)

[ "$(id -u)" = 0 ] || { echo "check_minbase.sh: run as root" >&2; exit 1; }
command -v debootstrap >/dev/null || { echo "check_minbase.sh: apt-get install debootstrap" >&2; exit 1; }
if [ ! -x "$root/usr/bin/apt-get" ]; then
  debootstrap --variant=minbase bookworm "$root" "$mirror"
fi
rm -rf "$root/moebench"
git -C "$src" archive --format=tar --prefix=moebench/ HEAD | tar -x -C "$root"
cleanup() {
  for m in dev/shm dev/pts dev sys/fs/cgroup sys proc; do umount -l "$root/$m" 2>/dev/null || true; done
}
trap cleanup EXIT INT TERM
mount -t proc proc "$root/proc"
mount -t sysfs sys "$root/sys"
# The cgroup hierarchy, as a booted system or a container has it (slurmd
# needs one even without cgroup plugins).
mount --rbind /sys/fs/cgroup "$root/sys/fs/cgroup" 2>/dev/null || true
mount --bind /dev "$root/dev"
mount -t tmpfs -o size=1g shm "$root/dev/shm"
cp /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true
chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 \
  /bin/sh -c "cd /moebench && $cmd"
