#!/usr/bin/env bash
# Cost of `neardup audit` against the index of the whole SCALE corpus,
# compared with running the whole corpus again.
#
#   scripts/audit-bench.sh            # uses or builds $SCALE_DIR (default /tmp/corpus-scale)
#   PLAIN=1 scripts/audit-bench.sh    # also time `neardup run` without --index-out
#   REUSE_INDEX=1 scripts/audit-bench.sh  # keep an index built by an earlier call
#
# Steps: (1) `neardup run` over every scale shard with --index-out (the
# index of 1.39M documents); (2) a batch of 10,000 "new" documents: 8,000 of
# the dev corpus (../shared/corpus/dev.jsonl) and 2,000 copied from the last
# scale shard, ids prefixed with "new-"; (3) `neardup audit` of the batch
# against the index, with exact checks reading the indexed sources
# (default) and with --index-sources=false (MinHash estimate only).
# Prints wall seconds (from the summaries) and peak RSS (GNU time).
set -euo pipefail
cd "$(dirname "$0")/.."
SCALE_DIR="${SCALE_DIR:-/tmp/corpus-scale}"
DEV="${DEV:-../shared/corpus/dev.jsonl}"
OUT="${BENCH_OUT:-/tmp/neardup-audit-bench}"
BIN="$OUT/bin"
mkdir -p "$BIN"

if ! ls "$SCALE_DIR"/scale-*.jsonl.gz >/dev/null 2>&1; then
  echo "building the scale corpus in $SCALE_DIR" >&2
  ../shared/corpus/scale/build_scale.sh "$SCALE_DIR" >&2
fi
mapfile -t shards < <(ls "$SCALE_DIR"/scale-*.jsonl.gz | sort)
inputs=$(IFS=,; echo "${shards[*]}")
go build -o "$BIN/neardup" ./cmd/neardup
TIME=/usr/bin/time
[ -x "$TIME" ] || { echo "audit-bench.sh needs GNU time (/usr/bin/time)" >&2; exit 1; }

# The new batch.
mkdir -p "$OUT/new"
{
  head -n 8000 "$DEV"
  zcat "${shards[-1]}" | sed -n '50001,52000p'
} | sed 's/"id": "/"id": "new-/' >"$OUT/new/batch.jsonl"

peak() { grep 'Maximum resident set size' "$1" | awk '{printf "%.2f", $NF/1048576}'; }
wall() { grep -o '"wall_seconds": [0-9.]*' "$1" | awk '{printf "%.1f", $2}'; }
count() { grep -o "\"$1\": [0-9]*" "$2" | head -1 | awk '{print $2}'; }

printf '%-28s %9s %8s %8s\n' job docs wall_s peak_GB
if [ -n "${PLAIN:-}" ]; then
  rm -rf "$OUT/run-plain"
  $TIME -v "$BIN/neardup" run --quiet --input "$inputs" --output "$OUT/run-plain" >"$OUT/run-plain.stdout" 2>"$OUT/run-plain.time"
  printf '%-28s %9s %8s %8s\n' "run (no index)" "$(count input_records "$OUT/run-plain/summary.json")" \
    "$(wall "$OUT/run-plain/summary.json")" "$(peak "$OUT/run-plain.time")"
fi
if [ -z "${REUSE_INDEX:-}" ] || [ ! -f "$OUT/index/index.json" ]; then
  rm -rf "$OUT/run" "$OUT/index"
  $TIME -v "$BIN/neardup" run --quiet --input "$inputs" --output "$OUT/run" --index-out "$OUT/index" \
    >"$OUT/run.stdout" 2>"$OUT/run.time"
fi
printf '%-28s %9s %8s %8s\n' "run --index-out" "$(count input_records "$OUT/run/summary.json")" \
  "$(wall "$OUT/run/summary.json")" "$(peak "$OUT/run.time")"
for mode in sources estimate; do
  dir="$OUT/audit-$mode"
  rm -rf "$dir"
  flag=--index-sources=true
  [ "$mode" = estimate ] && flag=--index-sources=false
  $TIME -v "$BIN/neardup" audit --quiet --index "$OUT/index" --input "$OUT/new/batch.jsonl" --output "$dir" $flag \
    >"$OUT/audit-$mode.stdout" 2>"$OUT/audit-$mode.time"
  printf '%-28s %9s %8s %8s\n' "audit 10k ($mode)" "$(count input_records "$dir/audit-summary.json")" \
    "$(wall "$dir/audit-summary.json")" "$(peak "$OUT/audit-$mode.time")"
  sed 's/^/    /' "$OUT/audit-$mode.stdout"
done
du -sh "$OUT/index" | awk '{print "index size: " $1}'
