#!/usr/bin/env bash
# Run neardup on a Flink cluster through Beam's Flink job server (portable
# runner). The job is the same as the local one; only the flags differ.
#
#   scripts/run-flink.sh 'INPUT_GLOB' OUTPUT_DIR [more neardup flags]
#
# Needs: a Flink cluster and Beam's Flink job server for it, e.g.
#   java -jar beam-runners-flink-1.18-job-server-2.77.0.jar --flink-master=HOST:8081
# (or the apache/beam_flink1.18_job_server image), listening on $JOB_SERVER.
# Input and output must be paths every Flink task manager can read and write
# (a shared file system, or gs:// / s3:// with credentials on the workers).
#
# Environment:
#   JOB_SERVER        job server endpoint            (default localhost:8099)
#   ENVIRONMENT_TYPE  where the Go workers run:      (default DOCKER)
#                     DOCKER   - in the Beam Go SDK container, image $SDK_IMAGE;
#                     PROCESS  - as a process on each task manager, see below;
#                     LOOPBACK - inside this process (a local test cluster only)
#   SDK_IMAGE         apache/beam_go_sdk:2.77.0
#
# The Go SDK cross-compiles this command for linux/amd64 as the worker binary
# and stages it with the job; set WORKER_BINARY to a prebuilt one instead
# (GOOS=linux GOARCH=amd64 go build -o neardup-linux ./cmd/neardup). gse's
# dictionary is compiled into the binary, so workers need no data files.
# Job metrics (busy_ms.<stage>, neardup namespace) appear as accumulators in
# the Flink web UI; summary.json in OUTPUT_DIR has the counts.
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 2 ] || { sed -n '2,30p' "$0"; exit 2; }
input=$1 output=$2; shift 2
env_type=${ENVIRONMENT_TYPE:-DOCKER}
extra=()
case $env_type in
  DOCKER) extra+=(--environment_config="${SDK_IMAGE:-apache/beam_go_sdk:2.77.0}") ;;
  PROCESS) extra+=(--environment_config='{"command":"/opt/apache/beam/boot"}') ;;
esac
[ -n "${WORKER_BINARY:-}" ] && extra+=(--worker_binary="$WORKER_BINARY")
exec go run ./cmd/neardup run --input "$input" --output "$output" \
  --runner=flink --endpoint="${JOB_SERVER:-localhost:8099}" \
  --environment_type="$env_type" "${extra[@]}" --job_name=neardup "$@"
