#!/usr/bin/env bash
# Every stop of every shipped lesson (resources/lessons/order.txt) as the class sees it: presenter
# mode on a 1280x720 projector, the stop's action run to its end, the caption on the canvas.
# Writes OUT/NAME-K.png (default docs/screenshots/lessons); scripts/screenshots.sh calls it.
# Usage: scripts/lesson_screenshots.sh [OUT_DIR] [LESSON...]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${RBMSCOPE_BUILD_DIR:-$root/build}
app="$build/app/gui/rbmscope"
out=${1:-$root/docs/screenshots/lessons}
shift $(( $# > 0 ? 1 : 0 ))
lessons=("$@")
[ ${#lessons[@]} -gt 0 ] || mapfile -t lessons < "$root/resources/lessons/order.txt"
mkdir -p "$out"
export QT_QPA_PLATFORM=offscreen
for name in "${lessons[@]}"; do
  stops=$(python3 -c "import json,sys; print(len(json.load(open(sys.argv[1]))['stops']))" "$root/resources/lessons/$name.json")
  for k in $(seq 1 "$stops"); do
    "$app" --lesson "$name" --lesson-stop "$k" --presenter --size 1280x720 --timeout 600 \
           --screenshot "$out/$name-$k.png" >/dev/null
    echo "$out/$name-$k.png"
  done
done
