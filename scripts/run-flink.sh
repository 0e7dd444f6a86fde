#!/usr/bin/env bash
# Run neardup on a Flink cluster through Beam's Flink job server (portable
# runner). The job is the same as the local one; only the flags differ.
#
#   scripts/run-flink.sh 'INPUT_GLOB' OUTPUT_DIR [more neardup flags]
#
# On this machine: start a cluster first (Maven Central, no Docker),
#   scripts/flink-cluster.sh start
#   scripts/run-flink.sh 'testdata/sample/sample-*' out/sample-flink
#   scripts/flink-cluster.sh stop
# The script reads the cluster's endpoints.env ($FLINK_DIR, default the
# one flink-cluster.sh starts) and submits with a PROCESS environment:
# each TaskManager starts its own Go worker through the cluster's
# go-worker command (Beam's Go boot).
#
# On another cluster: set JOB_SERVER (Beam's Flink job server, e.g.
# flink-jobserver:8099) and ENVIRONMENT_TYPE. Input and output must be
# paths every TaskManager can read and write (a shared file system, or
# gs:// / s3:// with credentials on the workers).
#
# Environment:
#   FLINK_DIR         a flink-cluster.sh cluster      (default: the default one,
#                     if it runs and JOB_SERVER is unset)
#   JOB_SERVER        job server endpoint             (default: the cluster's,
#                     else localhost:8099)
#   ENVIRONMENT_TYPE  where the Go workers run:       (default: PROCESS with a
#                     flink-cluster.sh cluster, else DOCKER)
#     PROCESS  - $BOOT_COMMAND started by each TaskManager (default: the
#                cluster's go-worker; elsewhere /opt/apache/beam/boot, the
#                Go SDK's boot, built with
#                  go build -o boot github.com/apache/beam/sdks/v2/go/container)
#     EXTERNAL - a Go SDK worker pool at $WORKER_POOL (default
#                localhost:50000), one per TaskManager host: 'boot
#                --worker_pool'. Beam's pool refuses a second worker of the
#                same id, and every TaskManager numbers its workers from
#                1-1: two TaskManagers cannot share one pool.
#     DOCKER   - the Beam Go SDK container $SDK_IMAGE on each TaskManager
#                (apache/beam_go_sdk:2.77.0; not tried here: no Docker).
#   WORKER_BINARY     a prebuilt worker binary (default: this checkout's
#                     ./cmd/neardup, built into a temporary directory)
#
# Job metrics (busy_ms.<stage>, neardup namespace) appear as accumulators in
# the Flink web UI; summary.json in OUTPUT_DIR has the counts and, under
# "workers", what each Go worker process did.
set -euo pipefail
[ $# -ge 2 ] || { sed -n '2,44p' "$0"; exit 2; }
here=$PWD # relative paths are the user's, not the repository's
cd "$(dirname "$0")/.."
. scripts/engines/versions.sh
input=$1 output=$2; shift 2

flink_dir=${FLINK_DIR:-}
if [ -z "$flink_dir" ] && [ -z "${JOB_SERVER:-}" ] && [ -f "$ENGINES_CACHE/run/flink/endpoints.env" ]; then
  flink_dir=$ENGINES_CACHE/run/flink
fi
job_server=${JOB_SERVER:-localhost:8099}
boot_command=${BOOT_COMMAND:-/opt/apache/beam/boot}
env_type=${ENVIRONMENT_TYPE:-DOCKER}
if [ -n "$flink_dir" ]; then
  [ -f "$flink_dir/endpoints.env" ] || { echo "run-flink.sh: no cluster in $flink_dir (scripts/flink-cluster.sh start)" >&2; exit 1; }
  . "$flink_dir/endpoints.env"
  job_server=${JOB_SERVER:-$FLINK_JOB_ENDPOINT}
  boot_command=${BOOT_COMMAND:-$FLINK_GO_WORKER}
  env_type=${ENVIRONMENT_TYPE:-PROCESS}
fi
extra=()
case $env_type in
  DOCKER) extra+=(--environment_config="${SDK_IMAGE:-apache/beam_go_sdk:2.77.0}") ;;
  EXTERNAL) extra+=(--environment_config="${WORKER_POOL:-localhost:50000}") ;;
  PROCESS) extra+=(--environment_config="{\"command\":\"$boot_command\"}") ;;
esac

bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
worker=${WORKER_BINARY:-}
if [ -z "$worker" ]; then
  worker=$bin/neardup
  go build -o "$worker" ./cmd/neardup
fi
cd "$here"
"$worker" run --input "$input" --output "$output" \
  --runner=flink --endpoint="$job_server" --environment_type="$env_type" \
  "${extra[@]}" --worker_binary="$worker" --job_name=neardup "$@"
