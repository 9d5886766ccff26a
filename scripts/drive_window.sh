#!/usr/bin/env bash
# Drives the real rbmscope window with the keyboard, as a user would, under a virtual X server
# with a window manager (Xvfb + openbox), and saves a PNG after each key: the check that the
# shortcuts reach the window and what the transport strip says after each (look at the PNGs).
#   scripts/drive_window.sh [OUT_DIR] [WIDTHxHEIGHT]   (defaults: ./drive, 1280x720, a projector)
# Keys: F5 run, Space pause, → step, Space resume, Esc stop, Ctrl+5 Tempering, F5, F11 presenter.
# Run after scripts/build.sh (or scripts/run.sh). Installs xvfb, xdotool, openbox, imagemagick.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=$(realpath -m "${1:-drive}")
size=${2:-1280x720}
"$root/scripts/deps.sh" xvfb xdotool openbox imagemagick
app="${RBMSCOPE_BUILD_DIR:-$root/build}/app/gui/rbmscope"
mkdir -p "$out"
if [ -z "${RBMSCOPE_DRIVE_INNER:-}" ]; then
  exec env RBMSCOPE_DRIVE_INNER=1 xvfb-run -a -s "-screen 0 ${size}x24" "$0" "$out" "$size"
fi
openbox >/dev/null 2>&1 &
wm=$!
sleep 1
# A long AIS run (2·10^9 chain-steps, tens of seconds), so that Space and → land while it runs.
"$app" --preset four-mode --steps 100000 --chains 20000 >"$out/app.log" 2>&1 &
pid=$!
trap 'kill $pid $wm 2>/dev/null || true' EXIT
win=
for _ in $(seq 60); do
  win=$(xdotool search --sync --onlyvisible --pid "$pid" --name rbmscope 2>/dev/null | head -1) && [ -n "$win" ] && break
  sleep 0.5
done
[ -n "$win" ] || { echo "drive_window: no window appeared" >&2; exit 1; }
xdotool windowactivate --sync "$win"
sleep 2
n=0
shot() {  # shot NAME: the whole screen, as the projector shows it
  n=$((n + 1))
  import -window root "$out/$(printf '%02d' $n)-$1.png"
}
key() {  # key NAME KEYS...: the keys to the focused window, then a picture
  local name=$1
  shift
  xdotool key --clearmodifiers "$@"
  sleep "${RBMSCOPE_DRIVE_PAUSE:-1.5}"
  shot "$name"
}
shot start
key run F5
key paused space
key stepped Right
key resumed space
key stopped Escape
key tempering ctrl+5
key tempering-run F5
key presenter F11
key presenter-paused space
key presenter-stopped Escape
key presenter-off F11
echo "drive_window: $n pictures in $out"
