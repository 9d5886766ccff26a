#!/usr/bin/env bash
# Regenerates every picture in docs/screenshots from the built programs (offscreen, fixed seeds),
# so the README and docs/ always show what the current code draws. Run after scripts/build.sh.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${RBMSCOPE_BUILD_DIR:-$root/build}
out="$root/docs/screenshots"
app="$build/app/gui/rbmscope"
mkdir -p "$out"
export QT_QPA_PLATFORM=offscreen
shot() { local name=$1; shift; "$app" --size 1600x900 "$@" --screenshot "$out/$name.png"; }

shot four-mode-density          --preset four-mode --view density
shot four-mode-annealing        --preset four-mode --view annealing --run --beta 0.4
shot four-mode-compare-ais-aisc --preset four-mode --view compare --compare cov:moment --run --beta 0.3
shot four-mode-estimates        --preset four-mode --view estimates --compare cov:moment --run --sweep 10,30,100,300,1000 --reverse-ais
shot two-gaussians-ga-vs-ma     --preset two-gaussians --view compare --compare geometric,moments --scale separate --perfect --steps 25 --run --beta 0.5
# The default PT run of the Tempering view (headless, computed at full speed), at its end.
shot four-mode-tempering        --preset four-mode --view tempering --run

shot training-bars --view training --data bars:4 --train-method cd,pcd,pt,lpt,deo --train-hidden 16 --train-updates 1500 \
     --train-lr 0.1 --train-init-scale 0.1 --train-monitor 50 --size 1800x1000
# The tempering paper's digits setting, seed 1, 30 000 updates per method (a few minutes).
shot training-digits --view training --data digits --train-method cd,pcd,pt,lpt,deo --train-hidden 50 --train-batch 10 \
     --train-lr 0.02 --train-updates 30000 --train-monitor 2000 --train-shifts --train-prep binarize --timeout 3000 --size 1620x900
shot samples-bars --preset bars-and-stripes --view samples --data bars:4 --sampler pt --sample-sweeps 3000 --run --size 1400x800
shot filters-bars --preset bars-and-stripes --view filters --size 1400x800

# File → Export report of the four-mode preset (docs/examples), and how Chromium draws it.
"$root/scripts/deps.sh" chromium
mkdir -p "$root/docs/examples"
"$app" --size 1600x900 --preset four-mode --view estimates --compare cov:moment --run --sweep 10,30,100,300 \
       --report "$root/docs/examples/report-four-mode.html"
chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size=1200,3200 \
         --screenshot="$out/report-four-mode.png" "file://$root/docs/examples/report-four-mode.html" 2>/dev/null

# The tempering (schemes, replay) and mean-field pictures come from their widget suites, which render them.
RBMSCOPE_SCREENSHOT_DIR="$out" "$build/tests/tst_tempering_view"
RBMSCOPE_SCREENSHOT_DIR="$out" "$build/tests/tst_tempering_playback"
RBMSCOPE_SCREENSHOT_DIR="$out" "$build/tests/tst_meanfield_view"
RBMSCOPE_SCREENSHOT_DIR="$out" "$build/tests/tst_colour_scale"
# Presenter mode (F11) at 1920x1080 during runs: presenter-annealing, -compare, -tempering.
RBMSCOPE_SCREENSHOT_DIR="$out" "$build/tests/tst_presenter" screenshots
ls -l "$out"

# Every stop of every shipped lesson in presenter mode on a 1280x720 projector (docs/user/lessons.md).
RBMSCOPE_BUILD_DIR="$build" "$root/scripts/lesson_screenshots.sh" "$out/lessons" >/dev/null
