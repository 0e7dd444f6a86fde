#!/usr/bin/env bash
# SCALE on the direct runner, on the local Flink cluster (2 TaskManagers
# of one slot, parallelism 2) and on the local Spark cluster (2 workers of
# one core), in one run on this machine: job wall, CPU
# and peak resident memory of all the processes involved (the command, the
# JVMs, the Go workers: scripts/engines/procstat.py), the per-stage spans
# and the bytes each shuffle carried (summary.json), the time from
# submission to the first document read and signed, whether the
# outputs are byte-identical, the peak of one process of each kind, the
# peak disk of the output directory (the job's work directory is in it)
# and of each engine's shuffle and spill directory, and the lines of the
# engines' logs that tell of a task failed or retried (OutOfMemoryError,
# a lost task or executor, a job restarted). $BENCH_OUT/stat-RUNNER.json
# also has the JVMs' CPU by thread name (JIT compilers, the engine's own).
#
#   scripts/engines-bench.sh                # direct, flink, spark
#   RUNNERS="flink direct" scripts/engines-bench.sh
#   INPUT='/data/*.jsonl.gz' scripts/engines-bench.sh
#   TILES=4 scripts/engines-bench.sh        # SCALE tiled 4 times (tile.py
#                                           # into $TILE_DIR, as scripts/bench.sh)
#   FLAGS="--spill=false" scripts/engines-bench.sh   # more flags for neardup run
#
# SCALE is built by ../shared/corpus/scale/build_scale.sh into $SCALE_DIR
# (default /tmp/corpus-scale). Each cluster is started in $BENCH_OUT/NAME
# by scripts/NAME-cluster.sh before its job and stopped after it; the time
# to start it is not in the job's wall. Results go to $BENCH_OUT
# (default /tmp/neardup-engines-bench): one directory per runner and
# results.tsv.
set -euo pipefail
cd "$(dirname "$0")/.."
SCALE_DIR=${SCALE_DIR:-/tmp/corpus-scale}
RUNNERS=${RUNNERS:-direct flink spark}
OUT=${BENCH_OUT:-/tmp/neardup-engines-bench}
TILE_DIR=${TILE_DIR:-/tmp/corpus-tiled}
TILES=${TILES:-1}
input=${INPUT:-}
if [ -z "$input" ]; then
	ls "$SCALE_DIR"/scale-*.jsonl.gz >/dev/null 2>&1 ||
		{ echo "no SCALE in $SCALE_DIR: ../shared/corpus/scale/build_scale.sh $SCALE_DIR" >&2; exit 1; }
	input=$(ls "$SCALE_DIR"/scale-*.jsonl.gz | sort | paste -sd,)
	if [ "$TILES" -gt 1 ]; then
		last=$(printf 'tile-%02d-' $((TILES - 1)))
		if ! ls "$TILE_DIR/$last"*.jsonl.gz >/dev/null 2>&1; then
			echo "tiling SCALE $TILES times into $TILE_DIR" >&2
			python3 ../shared/corpus/scale/tile.py --copies "$TILES" --out "$TILE_DIR" "$SCALE_DIR"/scale-*.jsonl.gz >&2
		fi
		input=$(for k in $(seq 0 $((TILES - 1))); do ls "$TILE_DIR"/$(printf 'tile-%02d-' "$k")*.jsonl.gz; done | sort | paste -sd,)
	fi
fi
mkdir -p "$OUT/bin"
go build -o "$OUT/bin/neardup" ./cmd/neardup
cleanup() {
	for e in flink spark; do
		[ -f "$OUT/$e/endpoints.env" ] && scripts/$e-cluster.sh stop "$OUT/$e"
	done
	return 0
}
trap cleanup EXIT

printf 'runner\twall_s\tcpu_s\tpeak_rss_mb\tcpu_by_kind\tpeak_rss_by_kind\tpeak_rss_one_by_kind\tpeak_disk_mb\tfailures\n' >"$OUT/results.tsv"
for r in $RUNNERS; do
	rm -rf "$OUT/out-$r" "$OUT/tmp-$r"
	flags=(--quiet ${FLAGS:-})
	# The direct runner's work directory is in TMPDIR; an engine's is in
	# the output directory.
	mkdir -p "$OUT/tmp-$r"
	pids=(--disk "output=$OUT/out-$r" --disk "work=$OUT/tmp-$r")
	case $r in
	flink | spark)
		cleanup # one cluster at a time: 2 cores
		scripts/$r-cluster.sh start "$OUT/$r" >/dev/null
		. "$OUT/$r/endpoints.env"
		endpoint=${r^^}_JOB_ENDPOINT worker=${r^^}_GO_WORKER
		flags+=(--runner="$r" --endpoint="${!endpoint}" --environment_type=PROCESS
			--environment_config="{\"command\":\"${!worker}\"}" --worker_binary="$OUT/bin/neardup")
		pids+=(--pids-from "$OUT/$r" --disk "shuffle=$OUT/$r/tmp")
		;;
	esac
	echo "== $r" >&2
	TMPDIR="$OUT/tmp-$r" python3 scripts/engines/procstat.py "${pids[@]}" -- "$OUT/bin/neardup" run --input "$input" --output "$OUT/out-$r" "${flags[@]}" \
		2>"$OUT/stat-$r.json"
	failures=0
	if [ "$r" != direct ]; then
		failures=$({ grep -rhE 'OutOfMemoryError|Lost task|ExecutorLostFailure|Restarting job|switched from RUNNING to FAILED' \
			"$OUT/$r" --include='*.log' --include=stderr --include='*.out' 2>/dev/null || true; } | wc -l)
	fi
	python3 - "$r" "$OUT/stat-$r.json" "$failures" >>"$OUT/results.tsv" <<'EOF'
import json, sys
r, path, failures = sys.argv[1], sys.argv[2], sys.argv[3]
s = json.loads(open(path).read().strip().splitlines()[-1])
print("\t".join([r, str(s["wall_s"]), str(s["cpu_s"]), str(s["peak_rss_mb"]),
                 json.dumps(s["cpu_s_by_kind"]), json.dumps(s["peak_rss_mb_by_kind"]),
                 json.dumps(s["peak_rss_mb_one_by_kind"]), json.dumps(s.get("peak_disk_mb", {})), failures]))
EOF
done
column -t -s $'\t' "$OUT/results.tsv"
set -- $RUNNERS
for r in "${@:2}"; do
	same=yes
	for f in "$OUT/out-$1"/*; do
		case $(basename "$f") in summary.json | report.html) continue ;; esac
		cmp -s "$f" "$OUT/out-$r/$(basename "$f")" || { same=no; echo "differs: $(basename "$f")" >&2; }
	done
	echo "outputs of $r byte-identical to $1's: $same"
done
for r in $RUNNERS; do
	echo "== $r: stage spans (s since start) and shuffle bytes"
	python3 -c '
import json, sys
s = json.load(open(sys.argv[1]))
spans = sorted(s.get("stage_spans_seconds", {}).items(), key=lambda kv: kv[1][0])
print("  " + "  ".join("%s %.1f-%.1f" % (k, v[0], v[1]) for k, v in spans))
print("  shuffle bytes:", sum(s.get("shuffle_bytes", {}).values()))
print("  first document read %.1f s, signed %.1f s after submission" % (
    s.get("first_work_seconds", 0), s.get("stage_spans_seconds", {}).get("Signatures", [0])[0]))
w = s.get("workers", {})
print("  workers:", len(w), " signed:", [v.get("signed", 0) for v in w.values()])
' "$OUT/out-$r/summary.json"
done
