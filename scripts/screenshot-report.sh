#!/bin/sh
# screenshot-report.sh DIR [PNG] renders DIR/report.html in headless
# Chromium (Debian's chromium package) and writes a 1280-pixel-wide
# screenshot to PNG (default DIR/report.png). The page needs no network;
# Chromium's own background traffic is switched off too.
set -eu

if [ $# -lt 1 ] || [ $# -gt 2 ]; then
	echo "usage: $0 DIR [PNG]" >&2
	exit 2
fi
dir=$(cd "$1" && pwd)
png=${2:-$dir/report.png}
case $png in /*) ;; *) png=$(pwd)/$png ;; esac
if [ ! -f "$dir/report.html" ]; then
	echo "$0: $dir/report.html does not exist" >&2
	exit 1
fi
browser=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$browser" ]; then
	echo "$0: chromium not found (apt-get install chromium)" >&2
	exit 1
fi
profile=$(mktemp -d)
trap 'rm -rf "$profile"' EXIT
"$browser" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
	--disable-background-networking --disable-component-update --disable-sync \
	--user-data-dir="$profile" --window-size=1280,2400 \
	--screenshot="$png" "file://$dir/report.html" 2>/dev/null
if [ ! -s "$png" ]; then
	echo "$0: chromium wrote no screenshot to $png" >&2
	exit 1
fi
echo "$png"
