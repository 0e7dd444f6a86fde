#!/usr/bin/env bash
# Throughput and memory of `neardup run` on the SCALE corpus, at 1/4, 1/2 and
# full size, plus the same signature and blocking work in one Go process
# without Beam (scripts/baseline) for comparison.
#
#   scripts/bench.sh                 # uses or builds $SCALE_DIR (default /tmp/corpus-scale)
#   SIZES="full" scripts/bench.sh    # only the full corpus
#   RUNNER=direct scripts/bench.sh   # another runner (default prism)
#   REPEAT=3 scripts/bench.sh        # each size and the baseline 3 times; the
#                                    # ratios use the medians
#
# The corpus is built by ../shared/corpus/scale/build_scale.sh (about 7 minutes
# on 2 cores; TARGET_DOCS / TARGET_BYTES make a smaller one). Each size is a
# prefix of the shards in name order: 1/4 and 1/2 take the first quarter and
# half of them (rounded up).
set -euo pipefail
cd "$(dirname "$0")/.."
SCALE_DIR="${SCALE_DIR:-/tmp/corpus-scale}"
SIZES="${SIZES:-quarter half full}"
RUNNER="${RUNNER:-prism}"
REPEAT="${REPEAT:-1}"
OUT="${BENCH_OUT:-/tmp/neardup-bench}"
BIN="$OUT/bin"
mkdir -p "$BIN"

if ! ls "$SCALE_DIR"/scale-*.jsonl.gz >/dev/null 2>&1; then
  echo "building the scale corpus in $SCALE_DIR" >&2
  ../shared/corpus/scale/build_scale.sh "$SCALE_DIR" >&2
fi
mapfile -t shards < <(ls "$SCALE_DIR"/scale-*.jsonl.gz | sort)
n=${#shards[@]}

go build -o "$BIN/neardup" ./cmd/neardup
go build -o "$BIN/baseline" ./scripts/baseline
TIME=/usr/bin/time
[ -x "$TIME" ] || { echo "bench.sh needs GNU time (/usr/bin/time, Debian package 'time')" >&2; exit 1; }

# summary FIELD FILE: one number from summary.json.
summary() { grep -o "\"$1\": [0-9.]*" "$2" | head -1 | awk '{print $2}'; }

# median N...: the middle value (the mean of the two middle ones for an even
# count).
median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# run_size SIZE: one run of neardup at SIZE; prints its row and appends its
# wall time and peak RSS to the lists of SIZE.
declare -A runwalls runrsss
run_size() {
  local size=$1 k
  case $size in
    quarter) k=$(( (n + 3) / 4 )) ;;
    half) k=$(( (n + 1) / 2 )) ;;
    full) k=$n ;;
    *) echo "unknown size $size" >&2; exit 2 ;;
  esac
  local inputs dir wall rss docs bytes
  inputs=$(IFS=,; echo "${shards[*]:0:$k}")
  dir="$OUT/run-$size"
  rm -rf "$dir"
  $TIME -v "$BIN/neardup" run --input "$inputs" --output "$dir" --runner="$RUNNER" \
    >"$OUT/$size.stdout" 2>"$OUT/$size.time"
  wall=$(grep -o '"wall_seconds": [0-9.]*' "$dir/summary.json" | awk '{print $2}')
  rss=$(grep 'Maximum resident set size' "$OUT/$size.time" | awk '{print $NF}')
  runwalls[$size]+=" $wall" runrsss[$size]+=" $rss"
  docs=$(summary input_records "$dir/summary.json")
  bytes=$(summary input_bytes "$dir/summary.json")
  awk -v size="$size" -v k="$k" -v docs="$docs" -v bytes="$bytes" -v wall="$wall" -v rss="$rss" \
    -v cl="$(summary clusters "$dir/summary.json")" -v rm="$(summary removed "$dir/summary.json")" \
    'BEGIN { printf "%-8s %8d %9d %8.0f %8.1f %9.0f %8.1f %9.2f %9s %9s\n", size, k, docs, bytes/1e6, wall, docs/wall, bytes/1e6/wall, rss/1048576, cl, rm }'
  sed -n 's/^  busy seconds per stage:/           busy s:/p' "$OUT/$size.stdout"
}

# run_baseline: one run of the baseline on the full corpus.
run_baseline() {
  local inputs w r
  inputs=$(IFS=,; echo "${shards[*]}")
  $TIME -o "$OUT/baseline.time" -f "%e %M" "$BIN/baseline" "$inputs"
  read -r w r <"$OUT/baseline.time"
  runwalls[baseline]+=" $w" runrsss[baseline]+=" $r"
  awk -v w="$w" -v r="$r" 'BEGIN { printf "baseline: %.2f s wall, %.2f GiB peak\n", w, r/1048576 }'
}

# With REPEAT > 1 the sizes and the baseline take turns (quarter, half,
# full, baseline, quarter, ...), so that a slow spell of the machine falls on
# all of them alike.
printf '%-8s %8s %9s %8s %8s %9s %8s %9s %9s %9s\n' size shards docs MB wall_s docs/s MB/s peak_GiB clusters removed
for ((run = 1; run <= REPEAT; run++)); do
  for size in $SIZES; do
    run_size "$size"
  done
  echo "same signature + blocking work in one Go process without Beam (full corpus):"
  run_baseline
done

declare -A walls rsss
echo
for size in $SIZES baseline; do
  # shellcheck disable=SC2086 # the lists are space-separated numbers
  walls[$size]=$(median ${runwalls[$size]}) rsss[$size]=$(median ${runrsss[$size]})
  if [ "$REPEAT" -gt 1 ]; then
    awk -v size="$size" -v w="${walls[$size]}" -v r="${rsss[$size]}" -v n="$REPEAT" \
      'BEGIN { printf "%-8s median of %d runs: %.2f s, %.2f GiB\n", size, n, w, r/1048576 }'
  fi
done
bwall=${walls[baseline]}

# The issue's ratios: each doubling of the input (time, peak RSS), and the
# job against the baseline at full size (medians when REPEAT > 1).
echo
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2fx", b/a }'; }
for pair in quarter:half half:full; do
  from=${pair%:*} to=${pair#*:}
  if [ -n "${walls[$from]:-}" ] && [ -n "${walls[$to]:-}" ]; then
    echo "$from -> $to: time $(ratio "${walls[$from]}" "${walls[$to]}"), peak RSS $(ratio "${rsss[$from]}" "${rsss[$to]}")"
  fi
done
if [ -n "${walls[full]:-}" ]; then
  echo "full job / baseline: time $(ratio "$bwall" "${walls[full]}")"
fi
echo
echo "summaries of the last run of each size: $OUT/run-*/summary.json"
