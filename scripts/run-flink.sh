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
# (a shared file system, or gs:// / s3:// with credentials on the workers;
# s3:// uses the AWS SDK default credential chain and AWS_REGION).
#
# Environment:
#   JOB_SERVER        job server endpoint            (default localhost:8099)
#   ENVIRONMENT_TYPE  where the Go workers run:      (default DOCKER)
#     EXTERNAL - a Go SDK worker pool on each task manager host, at
#                $WORKER_POOL (default localhost:50000). Start it there with
#                  go build -o boot github.com/apache/beam/sdks/v2/go/container
#                  ./boot --worker_pool     # listens on :50000, no flag to change it
#                It fetches the worker binary staged with the job and runs it;
#                it puts the binary in /tmp/staged and a copy in /tmp/binNNN
#                (neither removed). This is the shape TestClusterShape and
#                scripts/run-prism-cluster.sh run on one machine.
#     DOCKER   - in the Beam Go SDK container, image $SDK_IMAGE. The container
#                sees only what the runner mounts into it (Prism 2.77: the
#                $GOOGLE_APPLICATION_CREDENTIALS file only), so use gs:// paths,
#                or a shared file system mounted into the container at the
#                same path as on the submitting machine. Not tried here (no
#                Docker daemon where this was written).
#     PROCESS  - $BOOT_COMMAND (default /opt/apache/beam/boot, the Go SDK's
#                boot) started as a process on each task manager. Prism 2.77
#                starts it with --id='...', the quotes part of the id, and the
#                job hangs; usable once Beam fixes the quoting. Not tried on
#                Flink.
#     LOOPBACK - inside this process (a local test cluster only)
#   SDK_IMAGE         apache/beam_go_sdk:2.77.0
#
# The worker binary: without WORKER_BINARY the Go SDK cross-compiles this
# command for linux/amd64 at submission (about 160 s); build it once instead:
#   GOOS=linux GOARCH=amd64 CGO_ENABLED=0 go build -o neardup-linux ./cmd/neardup
#   WORKER_BINARY=$PWD/neardup-linux scripts/run-flink.sh ...
# It is staged with the job; gse's dictionary is compiled in, so workers need
# no data files. Local --input globs are sent to the workers as absolute paths.
# Job metrics (busy_ms.<stage>, neardup namespace) appear as accumulators in
# the Flink web UI; summary.json in OUTPUT_DIR has the counts.
set -euo pipefail
[ $# -ge 2 ] || { sed -n '2,45p' "$0"; exit 2; }
here=$PWD # relative paths are the user's, not the repository's
cd "$(dirname "$0")/.."
input=$1 output=$2; shift 2
env_type=${ENVIRONMENT_TYPE:-DOCKER}
extra=()
case $env_type in
  DOCKER) extra+=(--environment_config="${SDK_IMAGE:-apache/beam_go_sdk:2.77.0}") ;;
  EXTERNAL) extra+=(--environment_config="${WORKER_POOL:-localhost:50000}") ;;
  PROCESS) extra+=(--environment_config="{\"command\":\"${BOOT_COMMAND:-/opt/apache/beam/boot}\"}") ;;
esac
[ -n "${WORKER_BINARY:-}" ] && extra+=(--worker_binary="$WORKER_BINARY")
neardup=$(mktemp -d)/neardup
go build -o "$neardup" ./cmd/neardup
cd "$here"
exec "$neardup" run --input "$input" --output "$output" \
  --runner=flink --endpoint="${JOB_SERVER:-localhost:8099}" \
  --environment_type="$env_type" "${extra[@]}" --job_name=neardup "$@"
