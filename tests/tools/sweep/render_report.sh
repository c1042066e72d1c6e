#!/usr/bin/env bash
# tests/tools/sweep/render_report.sh: the report of a sweep renders in headless Chromium.
# Runs `railsim sweep SWEEP --report DIR`, screenshots DIR/index.html with Debian's chromium,
# and checks that the page has EXPECTED_SVGS figures and that the screenshot is not blank
# (check_png.py). Exits 77, which CTest reads as a skip, when chromium or python3 is missing.
# Usage: render_report.sh RAILSIM SWEEP.json WORK_DIR EXPECTED_SVGS
set -euo pipefail

railsim=$1
sweep=$2
work=$3
expected_svgs=$4

browser=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$browser" ]; then
  echo "SKIP: no chromium on PATH (tools/setup.sh installs Debian's chromium)"
  exit 77
fi
if ! command -v python3 >/dev/null; then
  echo "SKIP: no python3 to decode the screenshot"
  exit 77
fi

here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$work"
mkdir -p "$work"
"$railsim" sweep "$sweep" --jobs 2 --out "$work/out" --report "$work/report"

svgs=$(grep -o '<svg' "$work/report/index.html" | wc -l)
if [ "$svgs" -ne "$expected_svgs" ]; then
  echo "FAIL: index.html has $svgs <svg elements, expected $expected_svgs"
  exit 1
fi

# A profile of its own, so a browser already running for the user is neither reused nor
# disturbed; the timeout guards against a browser that never exits.
timeout 120 "$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars \
  --user-data-dir="$work/profile" --window-size=1200,3000 \
  --screenshot="$work/screenshot.png" "file://$work/report/index.html" >"$work/chromium.log" 2>&1 || {
  echo "FAIL: chromium exited with status $?"
  cat "$work/chromium.log"
  exit 1
}
python3 "$here/check_png.py" "$work/screenshot.png"
echo "PASS: $svgs figures; screenshot $work/screenshot.png"
