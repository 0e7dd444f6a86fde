#!/usr/bin/env bash
# Try the cluster shape on one machine: a Prism job server and a Go SDK worker
# pool run as processes of their own, and the job is submitted to them the
# way it is submitted to Flink (portable runner, EXTERNAL environment), as
# TestClusterShape does. The outputs are byte-identical to a local run's.
#
#   scripts/run-prism-cluster.sh 'INPUT_GLOB' OUTPUT_DIR [more neardup flags]
#
# Builds into a temporary directory, from the Go module cache:
#   neardup  ./cmd/neardup, passed as --worker_binary (no cross-compile)
#   prism    github.com/apache/beam/sdks/v2/go/cmd/prism       (job server)
#   boot     github.com/apache/beam/sdks/v2/go/container       (worker boot)
# then starts 'prism --job_port=$JOB_PORT' and 'boot --worker_pool' (in its
# own working directory and TMPDIR) and runs
#   neardup run --input ... --output ... --runner=universal \
#     --endpoint=localhost:$JOB_PORT --environment_type=EXTERNAL \
#     --environment_config=localhost:50000 --worker_binary=.../neardup-PID
# Both are stopped when the job ends; their logs are printed if it fails.
#
# Environment:
#   JOB_PORT   Prism's job port                 (default 8073)
#
# 'boot --worker_pool' always listens on port 50000 of every interface (it
# has no flag for the port or the address) and puts the staged worker binary
# in /tmp/staged and a copy of it in /tmp/binNNN/worker, whatever TMPDIR
# says; this script removes the copies of its own binary when it is done.
# Prism's job port also listens on every interface.
set -euo pipefail
[ $# -ge 2 ] || { sed -n '2,27p' "$0"; exit 2; }
here=$PWD # relative paths are the user's, not the repository's
cd "$(dirname "$0")/.."
input=$1 output=$2; shift 2
job_port=${JOB_PORT:-8073}
pool_port=50000

listening() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
for p in "$job_port" "$pool_port"; do
  if listening "$p"; then echo "port $p is in use (another job server or worker pool?)" >&2; exit 1; fi
done

work=$(mktemp -d "${TMPDIR:-/tmp}/neardup-prism-cluster.XXXXXX")
bin=$work/bin
worker=$bin/neardup-$$ # a name of its own: boot stages it as /tmp/staged/1-neardup-$$
mkdir -p "$bin" "$work/pool/tmp"
echo "building neardup, prism and boot in $bin" >&2
go build -o "$worker" ./cmd/neardup
go build -o "$bin/prism" github.com/apache/beam/sdks/v2/go/cmd/prism
go build -o "$bin/boot" github.com/apache/beam/sdks/v2/go/container

pids=()
status=1
cleanup() {
  set +e
  [ ${#pids[@]} -gt 0 ] && kill "${pids[@]}" 2>/dev/null && wait "${pids[@]}" 2>/dev/null
  if [ "$status" -ne 0 ]; then
    for log in "$work"/*.log; do echo "== $log (last 40 lines)" >&2; tail -n 40 "$log" >&2; done
  fi
  rm -f "/tmp/staged/1-$(basename "$worker")"
  for copy in /tmp/bin*/worker; do
    [ -f "$copy" ] && [ "$copy" -nt "$work/started" ] && cmp -s "$copy" "$worker" && rm -rf "$(dirname "$copy")"
  done
  rm -rf "$work"
}
trap cleanup EXIT

touch "$work/started"
"$bin/prism" --job_port="$job_port" --serve_http=false >"$work/prism.log" 2>&1 &
pids+=($!)
(cd "$work/pool" && TMPDIR="$work/pool/tmp" exec "$bin/boot" --worker_pool) >"$work/pool.log" 2>&1 &
pids+=($!)
for p in "$job_port" "$pool_port"; do
  for _ in $(seq 60); do listening "$p" && break; sleep 0.5; done
  listening "$p" || { echo "nothing listens on port $p after 30 s" >&2; exit 1; }
done

cd "$here"
"$worker" run --input "$input" --output "$output" \
  --runner=universal --endpoint="localhost:$job_port" \
  --environment_type=EXTERNAL --environment_config="localhost:$pool_port" \
  --worker_binary="$worker" --job_name=neardup "$@"
status=0
