#!/bin/sh
# screenshot-report.sh [DIR [PNG]] renders DIR/report.html in headless
# Chromium (Debian's chromium package: apt-get install chromium; for the
# Chinese texts a CJK font such as fonts-wqy-microhei) and writes a
# 1280-pixel-wide screenshot to PNG (default DIR/report.png). The page needs
# no network; Chromium's own background traffic is switched off too.
#
# With no DIR it builds neardup, runs it on the bundled sample
# (testdata/sample, plus testdata/bad/bad.jsonl so that the page has a
# rejects section) into out/screenshot/sample and renders that; with
# NEARDUP_CORPUS set (the dev corpus, /work/shared/corpus), also on
# $NEARDUP_CORPUS/dev.jsonl into out/screenshot/corpus. HEIGHT sets the
# window's height in pixels (default 4000).
set -eu

if [ $# -gt 2 ]; then
	echo "usage: $0 [DIR [PNG]]" >&2
	exit 2
fi
browser=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$browser" ]; then
	echo "$0: chromium not found (apt-get install chromium)" >&2
	exit 1
fi

# shot DIR PNG renders DIR/report.html to PNG.
shot() {
	dir=$(cd "$1" && pwd)
	png=$2
	case $png in /*) ;; *) png=$(pwd)/$png ;; esac
	if [ ! -f "$dir/report.html" ]; then
		echo "$0: $dir/report.html does not exist" >&2
		exit 1
	fi
	profile=$(mktemp -d)
	"$browser" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
		--disable-background-networking --disable-component-update --disable-sync \
		--hide-scrollbars --user-data-dir="$profile" --window-size="1280,${HEIGHT:-4000}" \
		--screenshot="$png" "file://$dir/report.html" 2>/dev/null || true
	rm -rf "$profile"
	if [ ! -s "$png" ]; then
		echo "$0: chromium wrote no screenshot to $png" >&2
		exit 1
	fi
	echo "$png"
}

if [ $# -ge 1 ]; then
	shot "$1" "${2:-$1/report.png}"
	exit 0
fi

cd "$(dirname "$0")/.."
mkdir -p out/screenshot
go build -o out/screenshot/neardup ./cmd/neardup
out/screenshot/neardup run --quiet --overwrite --input 'testdata/sample/sample-*,testdata/bad/bad.jsonl' \
	--output out/screenshot/sample
shot out/screenshot/sample out/screenshot/sample.png
if [ -n "${NEARDUP_CORPUS:-}" ]; then
	out/screenshot/neardup run --quiet --overwrite --input "$NEARDUP_CORPUS/dev.jsonl" \
		--output out/screenshot/corpus
	shot out/screenshot/corpus out/screenshot/corpus.png
fi
