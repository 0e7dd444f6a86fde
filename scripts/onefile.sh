#!/usr/bin/env bash
# Memory of one large input file against the same documents in many files:
# the SCALE corpus as its 14 shards and as one file (the shards' gzip
# members concatenated), each run once with `neardup run --memprofile`. It
# prints, for each, the job wall (summary.json), the peak RSS (GNU time),
# the largest heap in use (the profile, taken when the heap in use was
# largest) and the keys of the passes after the first (sign_segments,
# verify_segments). Outputs of the two runs must be the same but for the
# file names in summary.json; the script checks the shards line for line.
#
#   scripts/onefile.sh                 # SCALE from $SCALE_DIR (default /tmp/corpus-scale)
#   BIN=/tmp/nd scripts/onefile.sh     # another build of neardup
set -euo pipefail
cd "$(dirname "$0")/.."
SCALE_DIR="${SCALE_DIR:-/tmp/corpus-scale}"
OUT="${ONEFILE_OUT:-/tmp/neardup-onefile}"
mkdir -p "$OUT"
if [ -z "${BIN:-}" ]; then
  BIN="$OUT/neardup"
  go build -o "$BIN" ./cmd/neardup
fi
ls "$SCALE_DIR"/scale-*.jsonl.gz >/dev/null
one="$OUT/scale-one.jsonl.gz"
[ -s "$one" ] || cat $(ls "$SCALE_DIR"/scale-*.jsonl.gz | sort) >"$one"
many=$(ls "$SCALE_DIR"/scale-*.jsonl.gz | sort | paste -sd,)

printf '%-8s %10s %10s %12s %14s %16s\n' input job_wall peak_rss heap_in_use sign_segments verify_segments
for v in many one; do
  in=$many
  [ "$v" = one ] && in=$one
  rm -rf "$OUT/run-$v"
  /usr/bin/time -f '%M' -o "$OUT/rss-$v" "$BIN" run --quiet --input "$in" --output "$OUT/run-$v" \
    --memprofile "$OUT/heap-$v.prof" >/dev/null 2>"$OUT/err-$v" || { cat "$OUT/err-$v" >&2; exit 1; }
  s="$OUT/run-$v/summary.json"
  wall=$(grep -o '"wall_seconds": [0-9.]*' "$s" | awk '{printf "%.1f s", $2}')
  rss=$(awk '{printf "%.2f GiB", $1/1048576}' "$OUT/rss-$v")
  heap=$(go tool pprof -top -inuse_space "$BIN" "$OUT/heap-$v.prof" 2>/dev/null | awk '/% of .* total/ {print $(NF-1)}')
  seg=$(grep -o '"sign_segments": [0-9]*' "$s" | awk '{print $2}')
  vseg=$(grep -o '"verify_segments": [0-9]*' "$s" | awk '{print $2}')
  printf '%-8s %10s %10s %12s %14s %16s\n' "$v" "$wall" "$rss" "$heap" "$seg" "$vseg"
done
# The same documents, the same clusters: the shards of the one file hold
# the lines of the shards of the many, in order (documents are ordered by
# file, then line, and ids are the same).
for kind in pairs clusters dedup; do
  a=$(cat "$OUT/run-many/$kind"-*.jsonl* | zcat -f | md5sum)
  b=$(cat "$OUT/run-one/$kind"-*.jsonl* | zcat -f | md5sum)
  n=$(cat "$OUT/run-one/$kind"-*.jsonl* | zcat -f | wc -l)
  if [ "$a" != "$b" ]; then
    echo "$kind: the one file's lines differ from the many files'" >&2
    exit 1
  fi
  echo "$kind: the same $n lines"
done
