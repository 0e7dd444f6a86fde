#!/bin/sh
# screenshot-progress.sh [OUT] runs 'neardup run' in a tmux pane (a real
# terminal: the progress line is redrawn in place), captures the pane with
# 'tmux capture-pane -p' every NEARDUP_SHOT_EVERY seconds (default 1) while
# the job runs and once at the end, then runs the same job with stderr to a
# file (not a terminal: a plain line every 5 s), and writes the captures
# and those lines to OUT (default progress-captures.txt).
#
# Input: the bundled sample (testdata/sample), a job of under a second; with
# NEARDUP_CORPUS set, NEARDUP_COPIES (default 6) copies of its dev.jsonl,
# each copy's ids and texts made its own (a word added to every text), so
# the job reads, signs, verifies and clusters for some seconds.
set -eu

out=${1:-progress-captures.txt}
case $out in /*) ;; *) out=$(pwd)/$out ;; esac
every=${NEARDUP_SHOT_EVERY:-1}
command -v tmux >/dev/null || { echo "$0: tmux not found (apt-get install tmux)" >&2; exit 1; }
cd "$(dirname "$0")/.."

work=$(mktemp -d "${TMPDIR:-/tmp}/neardup-progress.XXXXXX")
session=neardup-progress-$$
trap 'tmux kill-session -t "$session" 2>/dev/null || true; rm -rf "$work"' EXIT
go build -o "$work/neardup" ./cmd/neardup

if [ -n "${NEARDUP_CORPUS:-}" ] && [ -f "$NEARDUP_CORPUS/dev.jsonl" ]; then
	mkdir "$work/in"
	copies=${NEARDUP_COPIES:-6}
	i=1
	while [ "$i" -le "$copies" ]; do
		sed -e "s/\"id\": *\"/\"id\":\"c$i-/" -e "s/\"text\": *\"/\"text\":\"copy$i /" \
			"$NEARDUP_CORPUS/dev.jsonl" >"$work/in/dev-$i.jsonl"
		i=$((i + 1))
	done
	input="$work/in/dev-*.jsonl"
else
	input="$(pwd)/testdata/sample/sample-*"
fi
size=$(du -ch $input | tail -1 | cut -f1)

# A pane of 100 x 30 characters; the shell waits after the job so that
# the last capture still shows it.
tmux new-session -d -s "$session" -x 100 -y 30 \
	"'$work/neardup' run --input '$input' --output '$work/out-tty'; echo \"[exit \$?]\"; sleep 600"
{
	echo "# neardup run --input '$input' ($size) in a 100x30 tmux pane"
	echo "# captured with tmux capture-pane -p every ${every}s while it ran, then at the end"
	echo
} >"$out"
start=$(date +%s)
n=0
while :; do
	sleep "$every"
	n=$((n + 1))
	pane=$(tmux capture-pane -p -t "$session")
	case $pane in *"[exit "*) break ;; esac
	{
		echo "--- capture $n, $(($(date +%s) - start))s after the start ---"
		printf '%s\n' "$pane" | sed -e '/^$/d'
		echo
	} >>"$out"
done
{
	echo "--- the end, $(($(date +%s) - start))s after the start ---"
	printf '%s\n' "$pane" | sed -e '/^$/d'
	echo
	echo "--- the same job with stderr to a file (not a terminal) ---"
} >>"$out"
"$work/neardup" run --input "$input" --output "$work/out-file" 2>>"$out" >/dev/null
echo "$out"
