#!/usr/bin/env bash
# tests/tools/report/render_report.sh: a command's HTML report renders in headless Chromium.
# Runs COMMAND... --report WORK_DIR/report, screenshots its index.html with Debian's chromium,
# and checks that the page has EXPECTED_SVGS figures and that the screenshot is not blank
# (check_png.py). Exits 77, which CTest reads as a skip, when chromium or python3 is missing.
# Usage: render_report.sh WORK_DIR EXPECTED_SVGS COMMAND...
set -euo pipefail

work=$1
expected_svgs=$2
shift 2

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
status=0
"$@" --report "$work/report" > "$work/stdout" || status=$?
# check and diagnose exit 1 when they find a fault: the report is written all the same.
if [ "$status" -gt 1 ]; then
  echo "FAIL: the command exited with status $status"
  exit 1
fi

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
