#!/usr/bin/env bash
# same-outputs.sh: runs two neardup binaries on the same input and options
# and checks that their outputs are the same: every output and index file
# byte for byte, summary.json without its timings (wall and busy seconds,
# stage spans, workers, signed, work bytes, first work) and report.html without the output path and times (its lines
# compared as a set: the chart orders stages by time).
#
#   scripts/same-outputs.sh BIN_A BIN_B RUN_ARGS...
#   scripts/same-outputs.sh /tmp/old /tmp/new --input 'testdata/sample/sample-*'
#
# Each binary runs `run RUN_ARGS --output T/{a,b} --index-out T/{a,b}-index
# --quiet`, then `audit` of the same input against that index
# (T/{a,b}-audit, updating it into T/{a,b}-index2; --input must be given
# as two words). Prints one line per difference and exits 1 if any.
set -euo pipefail
a=$1 b=$2
shift 2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for side in a b; do
  bin=${!side}
  "$bin" run "$@" --output "$tmp/$side" --index-out "$tmp/$side-index" --quiet >/dev/null
  input=$(for ((i = 1; i < $#; i++)); do if [[ ${!i} == --input ]]; then j=$((i + 1)); echo "${!j}"; fi; done)
  "$bin" audit --input "$input" --index "$tmp/$side-index" --output "$tmp/$side-audit" \
    --update-index "$tmp/$side-index2" --quiet >/dev/null
done
python3 - "$tmp" <<'PY'
import json, os, re, sys
tmp = sys.argv[1]
timing = {"wall_seconds", "stage_busy_seconds", "stage_spans_seconds", "workers", "signed", "work_bytes_written", "first_work_seconds"}
bad = 0
for sub in ("", "-index", "-audit", "-index2"):
    da, db = os.path.join(tmp, "a" + sub), os.path.join(tmp, "b" + sub)
    fa, fb = sorted(os.listdir(da)), sorted(os.listdir(db))
    if fa != fb:
        print(f"{sub or 'run'}: files differ: {fa} vs {fb}"); bad += 1
    for name in sorted(set(fa) & set(fb)):
        xa, xb = open(os.path.join(da, name), "rb").read(), open(os.path.join(db, name), "rb").read()
        if name.endswith(".json"):
            ja, jb = json.loads(xa.replace(f"{tmp}/a".encode(), b"T/X")), json.loads(xb.replace(f"{tmp}/b".encode(), b"T/X"))
            for k in timing:
                ja.pop(k, None); jb.pop(k, None)
            same = ja == jb
        elif name.endswith(".html"):
            norm = lambda x: re.sub(rb"[0-9]+(\.[0-9]+)?", b"0", x.replace(f"{tmp}/a".encode(), b"T/X").replace(f"{tmp}/b".encode(), b"T/X"))
            same = sorted(norm(xa).splitlines()) == sorted(norm(xb).splitlines())  # the chart orders stages by time
        else:
            same = xa == xb
        if not same:
            print(f"{sub or 'run'}/{name}: differs"); bad += 1
print("same outputs" if not bad else f"{bad} differences")
sys.exit(1 if bad else 0)
PY
