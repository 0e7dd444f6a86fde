#!/usr/bin/env bash
# Quality on the whole dev corpus: runs neardup with the default method, with
# MinHash alone and with SimHash alone at several Hamming bounds, and prints
# `neardup eval` for each: recall per Jaccard band, found directly and linked
# through clusters, at J >= 0.8 and at J >= 0.85 (the headline band), strict
# (J >= 0.8) and lenient (J >= 0.7) precision, F1 from the strict one, per
# language (cross-language pairs apart) and per synthetic edit type, and
# cluster-level errors. See `neardup help eval` for the definitions.
#
#   scripts/quality.sh            # corpus at ../shared/corpus (or $NEARDUP_CORPUS)
set -euo pipefail
cd "$(dirname "$0")/.."
CORPUS="${NEARDUP_CORPUS:-../shared/corpus}"
OUT="${QUALITY_OUT:-/tmp/neardup-quality}"
mkdir -p "$OUT"
go build -o "$OUT/neardup" ./cmd/neardup
run() { # name, flags...
  local name=$1; shift
  rm -rf "$OUT/$name"
  "$OUT/neardup" run --input "$CORPUS/dev.jsonl" --output "$OUT/$name" "$@" >/dev/null
  echo "== $name: $*"
  "$OUT/neardup" eval --pairs "$OUT/$name/pairs-*.jsonl" --truth "$CORPUS/dev_pairs.tsv" \
    --corpus "$CORPUS/dev.jsonl" --synthetic "$CORPUS/dev_synthetic.tsv"
  echo
}
run both
run minhash --method minhash
for k in 3 6 7 8 10; do
  run "simhash-k$k" --method simhash --hamming "$k"
done
