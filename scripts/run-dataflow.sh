#!/usr/bin/env bash
# Run neardup on Google Cloud Dataflow. The job is the same as the local one;
# only the flags differ.
#
#   scripts/run-dataflow.sh 'gs://BUCKET/corpus/*.jsonl.gz' gs://BUCKET/out/run1 [more neardup flags]
#
# Needs: gcloud credentials (gcloud auth application-default login), a
# project with the Dataflow API enabled, and a bucket for staging.
#
# Environment:
#   PROJECT   GCP project                       (required)
#   REGION    Dataflow region                   (default us-central1)
#   BUCKET    staging bucket, gs://NAME         (required)
#   WORKERS   maximum number of workers         (default 20)
#   MACHINE   worker machine type               (default n2-standard-4)
#
# The worker binary: this script builds ./cmd/neardup for linux/amd64 and
# passes it as --worker_binary, so the workers run exactly this code (gse's
# dictionary is compiled in; workers need no other files). Without
# --worker_binary the SDK cross-compiles the main package itself.
# Dataflow runs it in the Beam Go SDK container on its own VMs: inputs,
# outputs and the work directory must be gs:// paths (--environment_type
# EXTERNAL/PROCESS are for Flink and Prism; see docs/CLUSTER.md).
# Metrics: the Dataflow console's job page lists the neardup counters
# (busy_ms.<stage>) under "Custom counters"; or
#   gcloud dataflow metrics list JOB_ID --region=$REGION --source=user
# summary.json in the output directory has the counts.
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 2 ] || { sed -n '2,27p' "$0"; exit 2; }
: "${PROJECT:?set PROJECT}" "${BUCKET:?set BUCKET (gs://...)}"
input=$1 output=$2; shift 2
worker=$(mktemp -d)/neardup-linux-amd64
GOOS=linux GOARCH=amd64 CGO_ENABLED=0 go build -o "$worker" ./cmd/neardup
exec go run ./cmd/neardup run --input "$input" --output "$output" \
  --runner=dataflow --project="$PROJECT" --region="${REGION:-us-central1}" \
  --staging_location="$BUCKET/staging" --temp_location="$BUCKET/tmp" \
  --worker_binary="$worker" --max_num_workers="${WORKERS:-20}" \
  --worker_machine_type="${MACHINE:-n2-standard-4}" --job_name="neardup-$(date +%Y%m%d-%H%M%S)" "$@"
