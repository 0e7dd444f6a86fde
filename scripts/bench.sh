#!/usr/bin/env bash
# Throughput and memory of `neardup run` as the input grows: the SCALE corpus
# tiled K times (../shared/corpus/scale/tile.py: K disjoint ciphered copies,
# so documents and true pairs grow exactly K-fold), each size also done by
# the same work in one Go process without Beam (scripts/baseline: read,
# exact duplicates, signatures, candidates, verification, exact checks,
# clusters and outputs, with the same packages), so that the job's time and
# memory over the baseline's compare like with like. Each row gives wall
# time, CPU-seconds (user + system, GNU time), CPU-seconds per GB of input
# text (the decompressed input, summary.json's input_bytes) and cores busy
# (CPU-seconds over the process's wall time) and the work files written in
# GB: the bytes the process wrote to files (GNU time's file system outputs,
# 512-byte blocks, which count a page when it is first written, also for a
# file removed before it reaches the disk) less the outputs' size.
#
#   scripts/bench.sh                  # COPIES="1 2 4 10"
#   COPIES="1 2" scripts/bench.sh     # only x1 and x2
#   RUNNER=prism scripts/bench.sh     # another runner (default direct, as the command)
#   REPEAT=3 scripts/bench.sh         # each size and its baseline 3 times, taking
#                                     # turns; the ratios use the medians
#   BASELINE=0 scripts/bench.sh       # the job only
#   FLAGS="--containment 0.8" BASELINE=0 scripts/bench.sh
#                                     # more options for every job (the baseline
#                                     # has none of them: leave it out)
#   VS=8eb9330 scripts/bench.sh       # also that commit's (or that binary's) job, in
#                                     # turn with this one at each size: the ratios of
#                                     # time, CPU-s and peak RSS, and whether every
#                                     # output file but summary.json and report.html
#                                     # is the same
#
# SCALE is built by ../shared/corpus/scale/build_scale.sh into $SCALE_DIR
# (default /tmp/corpus-scale, 20-40 minutes), the tiles by tile.py into
# $TILE_DIR (default /tmp/corpus-tiled; about 5 minutes and 4 GB for 10
# copies). Copy 0 is SCALE itself.
set -euo pipefail
cd "$(dirname "$0")/.."
SCALE_DIR="${SCALE_DIR:-/tmp/corpus-scale}"
TILE_DIR="${TILE_DIR:-/tmp/corpus-tiled}"
COPIES="${COPIES:-1 2 4 10}"
RUNNER="${RUNNER:-direct}"
REPEAT="${REPEAT:-1}"
BASELINE="${BASELINE:-1}"
VS="${VS:-}"
read -r -a FLAGS <<<"${FLAGS:-}"
OUT="${BENCH_OUT:-/tmp/neardup-bench}"
BIN="$OUT/bin"
mkdir -p "$BIN"

if ! ls "$SCALE_DIR"/scale-*.jsonl.gz >/dev/null 2>&1; then
  echo "building the scale corpus in $SCALE_DIR" >&2
  ../shared/corpus/scale/build_scale.sh "$SCALE_DIR" >&2
fi
maxk=$(printf '%s\n' $COPIES | sort -n | tail -1)
last=$(printf 'tile-%02d-' $((maxk - 1)))
if [ "$maxk" -gt 1 ] && ! ls "$TILE_DIR"/"$last"*.jsonl.gz >/dev/null 2>&1; then
  echo "tiling SCALE $maxk times into $TILE_DIR" >&2
  python3 ../shared/corpus/scale/tile.py --copies "$maxk" --out "$TILE_DIR" "$SCALE_DIR"/scale-*.jsonl.gz >&2
fi
mapfile -t scale < <(ls "$SCALE_DIR"/scale-*.jsonl.gz | sort)

# shards K: the input files of K copies, comma-separated.
shards() {
  local k=$1 c list=("${scale[@]}")
  for ((c = 1; c < k; c++)); do
    list+=($(ls "$TILE_DIR"/"$(printf 'tile-%02d-' "$c")"*.jsonl.gz | sort))
  done
  (IFS=,; echo "${list[*]}")
}

go build -o "$BIN/neardup" ./cmd/neardup
go build -o "$BIN/baseline" ./scripts/baseline
if [ -n "$VS" ] && [ -x "$VS" ]; then
  cp "$VS" "$BIN/neardup-vs"
elif [ -n "$VS" ]; then
  rm -rf "$OUT/vs-src"
  git worktree add --detach "$OUT/vs-src" "$VS" >&2
  (cd "$OUT/vs-src" && go build -o "$BIN/neardup-vs" ./cmd/neardup)
  git worktree remove --force "$OUT/vs-src"
fi
TIME=/usr/bin/time
[ -x "$TIME" ] || { echo "bench.sh needs GNU time (/usr/bin/time, Debian package 'time')" >&2; exit 1; }

# summary FIELD FILE: one number from summary.json.
summary() { grep -o "\"$1\": [0-9.]*" "$2" | head -1 | awk '{print $2}'; }

# median N...: the middle value (the mean of the two middle ones for an even
# count).
median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# cpu FILE: user + system seconds from the output of GNU time -v in FILE.
cpu() { awk -F': ' '/User time \(seconds\)|System time \(seconds\)/ { s += $2 } END { print s }' "$1"; }

# written FILE: the bytes the process wrote to files, from GNU time -v's
# output in FILE.
written() { awk -F': ' '/File system outputs/ { printf "%.0f\n", $2 * 512 }' "$1"; }

# elapsed FILE: the process's wall seconds from GNU time -v's output in FILE.
elapsed() { awk -F': ' '/Elapsed \(wall clock\)/ { n = split($2, p, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + p[i]; print s }' "$1"; }

# run_size K [BINARY NAME]: one run of neardup (or BINARY, its rows named
# NAME) on K copies; prints its row and appends its wall time, peak RSS and
# CPU-seconds to the lists of xK (NAME).
declare -A runwalls runrsss runcpus runworks textbytes
run_size() {
  local k=$1 bin=${2:-$BIN/neardup} size=${3:-x$1} inputs dir wall rss docs bytes cs ela work
  inputs=$(shards "$k")
  dir="$OUT/run-$size"
  rm -rf "$dir"
  $TIME -v "$bin" run --input "$inputs" --output "$dir" --runner="$RUNNER" "${FLAGS[@]}" \
    >"$OUT/$size.stdout" 2>"$OUT/$size.time"
  wall=$(grep -o '"wall_seconds": [0-9.]*' "$dir/summary.json" | awk '{print $2}')
  rss=$(grep 'Maximum resident set size' "$OUT/$size.time" | awk '{print $NF}')
  cs=$(cpu "$OUT/$size.time") ela=$(elapsed "$OUT/$size.time")
  work=$(($(written "$OUT/$size.time") - $(du -sb "$dir" | cut -f1)))
  runwalls[$size]+=" $wall" runrsss[$size]+=" $rss" runcpus[$size]+=" $cs" runworks[$size]+=" $work"
  docs=$(summary input_records "$dir/summary.json")
  bytes=$(summary input_bytes "$dir/summary.json")
  textbytes[$size]=$bytes
  awk -v size="$size" -v k="$(tr , '\n' <<<"$inputs" | wc -l)" -v docs="$docs" -v bytes="$bytes" -v wall="$wall" -v rss="$rss" \
    -v cl="$(summary clusters "$dir/summary.json")" -v rm="$(summary removed "$dir/summary.json")" -v cs="$cs" -v ela="$ela" -v work="$work" \
    'BEGIN { printf "%-8s %8d %9d %8.0f %8.1f %9.0f %8.1f %9.2f %9s %9s %8.1f %8.1f %6.2f %8.2f\n", size, k, docs, bytes/1e6, wall, docs/wall, bytes/1e6/wall, rss/1048576, cl, rm, cs, cs/(bytes/1e9), cs/ela, work/1e9 }'
  sed -n 's/^  stage spans (s since start):/           spans:/p' "$OUT/$size.stdout"
}

# run_baseline K: one run of the baseline on K copies (its outputs go to a
# temporary directory it removes); prints its row, checks its counts against
# the job's last run of the size, and appends its time (its own total,
# without start-up and removing its files, as the job's wall_seconds), peak
# RSS and CPU-seconds (of the whole process) to the lists of baseline-xK.
run_baseline() {
  local k=$1 size="x$1" inputs w r counts want cs ela
  inputs=$(shards "$k")
  $TIME -o "$OUT/baseline-$size.time" -f "%e %M %U %S" "$BIN/baseline" "$inputs" >"$OUT/baseline-$size.stdout"
  w=$(grep -o 'total [0-9.]* s' "$OUT/baseline-$size.stdout" | awk '{print $2}')
  r=$(awk '{print $2}' "$OUT/baseline-$size.time")
  cs=$(awk '{print $3 + $4}' "$OUT/baseline-$size.time") ela=$(awk '{print $1}' "$OUT/baseline-$size.time")
  runwalls[baseline-$size]+=" $w" runrsss[baseline-$size]+=" $r" runcpus[baseline-$size]+=" $cs"
  counts="$(sed -n 's/.*, verified pairs \([0-9]*\) .*/\1/p' "$OUT/baseline-$size.stdout") $(sed -n 's/^baseline: clusters \([0-9]*\) covering [0-9]* documents: kept \([0-9]*\), removed \([0-9]*\)$/\1 \2 \3/p' "$OUT/baseline-$size.stdout")"
  want=""
  if [ -f "$OUT/run-$size/summary.json" ]; then
    want="$(summary verified_pairs "$OUT/run-$size/summary.json") $(summary clusters "$OUT/run-$size/summary.json") $(summary kept "$OUT/run-$size/summary.json") $(summary removed "$OUT/run-$size/summary.json")"
  fi
  awk -v size="$size" -v w="$w" -v r="$r" -v c="$counts" -v want="$want" -v cs="$cs" -v ela="$ela" -v bytes="${textbytes[$size]:-}" 'BEGIN {
    same = want == "" ? "" : (c == want ? "  (the job'"'"'s counts)" : "  COUNTS DIFFER FROM THE JOB'"'"'S: " want)
    pergb = bytes == "" ? "" : sprintf(", %.1f CPU-s/GB", cs / (bytes / 1e9))
    printf "%-8s baseline: %.1f s, %.1f CPU-s%s, %.2f cores busy, %.2f GiB peak; verified pairs, clusters, kept, removed: %s%s\n", size, w, cs, pergb, cs / ela, r/1048576, c, same }'
}

# With REPEAT > 1 the sizes take turns (x1 and its baseline, x2 and its
# baseline, ..., x1, ...), so that a slow spell of the machine falls on all of
# them alike.
printf '%-8s %8s %9s %8s %8s %9s %8s %9s %9s %9s %8s %8s %6s %8s\n' size shards docs MB wall_s docs/s MB/s peak_GiB clusters removed cpu_s cpu_s/GB cores work_GB
for ((run = 1; run <= REPEAT; run++)); do
  for k in $COPIES; do
    run_size "$k"
    [ -z "$VS" ] || run_size "$k" "$BIN/neardup-vs" "vs-x$k"
    [ "$BASELINE" = 0 ] || run_baseline "$k"
  done
done
SIZES=$(printf 'x%s ' $COPIES)

declare -A walls rsss cpus works
echo
BASES=
[ "$BASELINE" = 0 ] || BASES=$(printf 'baseline-x%s ' $COPIES)
VSES=
[ -z "$VS" ] || VSES=$(printf 'vs-x%s ' $COPIES)
for size in $SIZES $VSES $BASES; do
  # shellcheck disable=SC2086 # the lists are space-separated numbers
  walls[$size]=$(median ${runwalls[$size]}) rsss[$size]=$(median ${runrsss[$size]}) cpus[$size]=$(median ${runcpus[$size]})
  [ -z "${runworks[$size]:-}" ] || works[$size]=$(median ${runworks[$size]})
  if [ "$REPEAT" -gt 1 ]; then
    awk -v size="$size" -v w="${walls[$size]}" -v r="${rsss[$size]}" -v c="${cpus[$size]}" -v n="$REPEAT" \
      'BEGIN { printf "%-8s median of %d runs: %.2f s, %.1f CPU-s, %.2f GiB\n", size, n, w, c, r/1048576 }'
  fi
done
# The ratios: time and peak RSS from each size to the next, and to x10
# from x1; the job against the baseline at each size (medians when REPEAT >
# 1).
echo
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2fx", b/a }'; }
prev=
for size in $SIZES; do
  if [ -n "$prev" ]; then
    echo "$prev -> $size: time $(ratio "${walls[$prev]}" "${walls[$size]}"), CPU-s $(ratio "${cpus[$prev]}" "${cpus[$size]}"), peak RSS $(ratio "${rsss[$prev]}" "${rsss[$size]}")"
  fi
  prev=$size
done
if [ -n "${walls[x1]:-}" ] && [ -n "${walls[x10]:-}" ] && [ "$(echo $SIZES)" != "x1 x10" ]; then
  echo "x1 -> x10: time $(ratio "${walls[x1]}" "${walls[x10]}"), CPU-s $(ratio "${cpus[x1]}" "${cpus[x10]}"), peak RSS $(ratio "${rsss[x1]}" "${rsss[x10]}")"
fi
for size in $SIZES; do
  if [ -n "${walls[vs-$size]:-}" ]; then
    echo "$size job / $VS: time $(ratio "${walls[vs-$size]}" "${walls[$size]}"), CPU-s $(ratio "${cpus[vs-$size]}" "${cpus[$size]}"), peak RSS $(ratio "${rsss[vs-$size]}" "${rsss[$size]}"), work files $(ratio "${works[vs-$size]}" "${works[$size]}")"
    differ=$(cd "$OUT/run-$size" && for f in *; do
      case $f in summary.json | report.html) continue ;; esac
      cmp -s "$f" "$OUT/run-vs-$size/$f" && continue
      # A compressed output may differ in its level: its text may not.
      case $f in *.gz) cmp -s <(gzip -dc "$f") <(gzip -dc "$OUT/run-vs-$size/$f") && continue ;; esac
      printf ' %s' "$f"
    done)
    echo "$size outputs against $VS's (but summary.json and report.html; .gz files decompressed): ${differ:+differ:}${differ:-the same}"
  fi
  if [ -n "${walls[baseline-$size]:-}" ]; then
    echo "$size job / baseline: time $(ratio "${walls[baseline-$size]}" "${walls[$size]}"), CPU-s $(ratio "${cpus[baseline-$size]}" "${cpus[$size]}"), peak RSS $(ratio "${rsss[baseline-$size]}" "${rsss[$size]}")"
  fi
done
echo
echo "summaries of the last run of each size: $OUT/run-*/summary.json"
