#!/usr/bin/env bash
# Times the README's first command on a fresh Debian 12: a minimal Debian 12 root made by
# debootstrap (nothing of the build installed), a clone of this repository in it, and
# `scripts/run.sh` run inside it with chroot, from the first apt-get to the first window (without
# a display, run.sh renders the window offscreen to rbmscope-screenshot.png and exits).
#   scripts/fresh_machine.sh [ROOT_DIR]     (default /tmp/rbmscope-fresh; needs root and the network)
# The build runs at nice -20 so that other work on the machine takes little from it; the script
# prints the load before and after, the wall time and the CPU time of the whole run.
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:-/tmp/rbmscope-fresh}
[ "$(id -u)" -eq 0 ] || { echo "fresh_machine.sh: needs root (debootstrap, chroot)" >&2; exit 2; }
"$src/scripts/deps.sh" debootstrap git
if [ ! -x "$dir/bin/bash" ]; then
  debootstrap --variant=minbase bookworm "$dir" http://deb.debian.org/debian >/dev/null
fi
cp /etc/resolv.conf "$dir/etc/resolv.conf"
rm -rf "$dir/root/rbmscope"
git clone -q "$src" "$dir/root/rbmscope"
mountpoint -q "$dir/proc" || mount -t proc proc "$dir/proc"
mountpoint -q "$dir/dev" || mount --rbind /dev "$dir/dev"
trap 'umount -R "$dir/dev" 2>/dev/null || true; umount "$dir/proc" 2>/dev/null || true' EXIT
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
nice -n -20 chroot "$dir" /bin/bash -c '
  cd /root/rbmscope && export HOME=/root PATH=/usr/sbin:/usr/bin:/sbin:/bin
  s=$(date +%s)
  time bash scripts/run.sh
  echo "fresh machine: scripts/run.sh to the first window in $(( $(date +%s) - s )) s"
  ls -la rbmscope-screenshot.png'
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
