#!/usr/bin/env bash
# Cost of `neardup audit` against the index of SCALE, and of the ×10 tiled
# SCALE: what an audit reads and writes must follow the batch, not the
# index (docs/AUDIT.md, "Measured").
#
#   scripts/audit-bench.sh                 # SCALE ×1: uses or builds $SCALE_DIR (default /tmp/corpus-scale)
#   BASE_BIN=/path/neardup scripts/audit-bench.sh   # also audit with that binary (an earlier
#                                          # version, its own index) and compare the outputs
#   X10_DIR=/tmp/corpus-x10 scripts/audit-bench.sh  # also the ×10 corpus (its tile-*.jsonl.gz;
#                                          # ../shared/corpus/scale/tile.py --copies 10), then
#                                          # a chain of 10 daily audits, compact, audit again
#   PLAIN=1 ...                            # also time `neardup run` without --index-out
#   REUSE_INDEX=1 ...                      # keep the indexes built by an earlier call
#   CONTAIN=0.8 ...                        # also an index built with --containment 0.8
#                                          # and the same audit against it
#
# The batch: 10,000 "new" documents, 8,000 of the dev corpus and 2,000
# copied from the last SCALE shard, ids prefixed with "new-". Each audit
# runs with --update-index and --index-sources=false, so that only the
# index is read. Prints wall seconds (from the summaries), the bytes the
# audit read of the index (index_bytes_read) and their share of the
# index's bytes (shards and key files of every generation), the bytes the
# next index's directory holds (what --update-index wrote) and peak RSS
# (GNU time).
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
go build -o "$BIN/neardup" ./cmd/neardup
TIME=/usr/bin/time
[ -x "$TIME" ] || { echo "audit-bench.sh needs GNU time (/usr/bin/time)" >&2; exit 1; }

# batch FILE PREFIX DEV_OFFSET SCALE_SHARD: 8,000 dev documents from line
# DEV_OFFSET+1 (wrapping) and 2,000 of a scale shard, ids prefixed.
batch() {
  local n from; n=$(wc -l <"$DEV"); from=$(( $3 % n + 1 ))
  cat "$DEV" "$DEV" | sed -n "${from},$((from + 7999))p" >"$1.tmp"
  zcat "$4" | sed -n '50001,52000p' >>"$1.tmp"
  sed "s/\"id\": \"/\"id\": \"$2/" "$1.tmp" >"$1"
  rm -f "$1.tmp"
}
mkdir -p "$OUT/new"
batch "$OUT/new/batch.jsonl" new- 0 "${shards[-1]}"

peak() { grep 'Maximum resident set size' "$1" | awk '{printf "%.2f", $NF/1048576}'; }
wall() { grep -o '"wall_seconds": [0-9.]*' "$1" | awk '{printf "%.1f", $2}'; }
count() { grep -o "\"$1\": [0-9]*" "$2" | head -1 | awk '{print $2}'; }
# indexbytes DIR: the bytes of the index's files, every generation.
indexbytes() {
  python3 - "$1" <<'PY'
import json, sys
m = json.load(open(sys.argv[1] + "/index.json"))
gens = m.get("generations") or [{"shards": m["shards"], "keys": []}]
print(sum(s["bytes"] for g in gens for s in g["shards"]) + sum(k["bytes"] for g in gens for k in g.get("keys") or []))
PY
}
dirbytes() { du -sb "$1" | awk '{print $1}'; }

header() { printf '%-34s %9s %8s %14s %7s %14s %8s\n' job docs wall_s index_read read_% written peak_GB; }
# index_run NAME BIN INPUTS DIR [FLAGS...]: run --index-out.
index_run() {
  if [ -z "${REUSE_INDEX:-}" ] || [ ! -f "$4/index.json" ]; then
    rm -rf "$OUT/run-$1" "$4"
    $TIME -v "$2" run --quiet --input "$3" --output "$OUT/run-$1" --index-out "$4" "${@:5}" >"$OUT/run-$1.stdout" 2>"$OUT/run-$1.time"
  fi
  if [ -f "$OUT/run-$1.time" ]; then
    printf '%-34s %9s %8s %14s %7s %14s %8s\n' "run --index-out ($1)" \
      "$(count input_records "$OUT/run-$1/summary.json")" "$(wall "$OUT/run-$1/summary.json")" - - "$(indexbytes "$4")" "$(peak "$OUT/run-$1.time")"
  fi
}
# audit NAME BIN INDEX INPUT [NEXT]: audit, --update-index NEXT if given.
audit() {
  local dir="$OUT/audit-$1" upd=()
  rm -rf "$dir"
  if [ -n "${5:-}" ]; then rm -rf "$5"; upd=(--update-index "$5"); fi
  $TIME -v "$2" audit --quiet --index "$3" --input "$4" --output "$dir" --index-sources=false "${upd[@]}" \
    >"$OUT/audit-$1.stdout" 2>"$OUT/audit-$1.time"
  local read total written=-
  read=$(count index_bytes_read "$dir/audit-summary.json" || true); read=${read:-0}
  total=$(indexbytes "$3")
  [ -n "${5:-}" ] && written=$(dirbytes "$5")
  printf '%-34s %9s %8s %14s %7s %14s %8s\n' "audit 10k ($1)" "$(count input_records "$dir/audit-summary.json")" \
    "$(wall "$dir/audit-summary.json")" "$read" "$(awk -v r="$read" -v t="$total" 'BEGIN{printf "%.2f", 100*r/t}')" \
    "$written" "$(peak "$OUT/audit-$1.time")"
}
# same A B: the audit outputs of A and B are identical (the summaries but
# for the index's path, the bytes read and the times).
same() {
  local a="$OUT/audit-$1" b="$OUT/audit-$2" f
  for f in $(cd "$a" && ls | grep -v audit-summary.json); do
    cmp -s "$a/$f" "$b/$f" || { echo "DIFFERENT: $1 and $2: $f"; return 1; }
  done
  python3 - "$a/audit-summary.json" "$b/audit-summary.json" <<'PY' || { echo "DIFFERENT: $1 and $2: counts"; return 1; }
import json, sys
c = [json.load(open(p))["counts"] for p in sys.argv[1:]]
for x in c:
    x.pop("index_bytes_read", None)
sys.exit(0 if c[0] == c[1] else 1)
PY
  echo "same outputs: $1 and $2"
}

inputs=$(IFS=,; echo "${shards[*]}")
header
if [ -n "${PLAIN:-}" ]; then
  rm -rf "$OUT/run-plain"
  $TIME -v "$BIN/neardup" run --quiet --input "$inputs" --output "$OUT/run-plain" >"$OUT/run-plain.stdout" 2>"$OUT/run-plain.time"
  printf '%-34s %9s %8s\n' "run (no index)" "$(count input_records "$OUT/run-plain/summary.json")" "$(wall "$OUT/run-plain/summary.json")"
fi
index_run x1 "$BIN/neardup" "$inputs" "$OUT/index-x1"
audit x1 "$BIN/neardup" "$OUT/index-x1" "$OUT/new/batch.jsonl" "$OUT/next-x1"
if [ -n "${CONTAIN:-}" ]; then
  index_run "x1 contain $CONTAIN" "$BIN/neardup" "$inputs" "$OUT/index-x1-contain" --containment "$CONTAIN"
  audit "x1 contain $CONTAIN" "$BIN/neardup" "$OUT/index-x1-contain" "$OUT/new/batch.jsonl" "$OUT/next-x1-contain"
  for c in candidate_pairs index_documents_joined index_matches duplicates_of_index contains_index_document removed; do
    printf '  %-24s %12s %12s\n' "$c" "$(count "$c" "$OUT/audit-x1/audit-summary.json" || echo -)" \
      "$(count "$c" "$OUT/audit-x1 contain $CONTAIN/audit-summary.json" || echo -)"
  done
fi
if [ -n "${BASE_BIN:-}" ]; then
  index_run x1-base "$BASE_BIN" "$inputs" "$OUT/index-x1-base"
  audit x1-base "$BASE_BIN" "$OUT/index-x1-base" "$OUT/new/batch.jsonl" "$OUT/next-x1-base"
  same x1 x1-base || true
  # The earlier version's index, converted (neardup index compact).
  rm -rf "$OUT/index-x1-conv"
  "$BIN/neardup" index compact --index "$OUT/index-x1-base" --output "$OUT/index-x1-conv" >/dev/null
  audit x1-conv "$BIN/neardup" "$OUT/index-x1-conv" "$OUT/new/batch.jsonl"
  same x1 x1-conv || true
fi
if [ -n "${X10_DIR:-}" ]; then
  x10=$(ls "$X10_DIR"/*.jsonl.gz | sort | paste -sd,)
  index_run x10 "$BIN/neardup" "$x10" "$OUT/index-x10"
  audit x10 "$BIN/neardup" "$OUT/index-x10" "$OUT/new/batch.jsonl" "$OUT/next-x10"
  # Ten days: day i audits its batch against day i-1's index.
  prev="$OUT/index-x10"
  for i in $(seq 1 10); do
    batch "$OUT/new/day$i.jsonl" "day$i-" $((i * 1000)) "${shards[$(( (i - 1) % ${#shards[@]} ))]}"
    audit "x10 day$i" "$BIN/neardup" "$prev" "$OUT/new/day$i.jsonl" "$OUT/chain/day$i"
    prev="$OUT/chain/day$i"
  done
  audit "x10 chain" "$BIN/neardup" "$prev" "$OUT/new/batch.jsonl"
  rm -rf "$OUT/chain/compact"
  $TIME -v "$BIN/neardup" index compact --index "$prev" --output "$OUT/chain/compact" >"$OUT/compact.stdout" 2>"$OUT/compact.time"
  echo "compact: $(grep -o 'Elapsed (wall clock) time.*' "$OUT/compact.time"), peak $(peak "$OUT/compact.time") GB"
  audit "x10 compacted" "$BIN/neardup" "$OUT/chain/compact" "$OUT/new/batch.jsonl"
  same "x10 chain" "x10 compacted" || true
fi
