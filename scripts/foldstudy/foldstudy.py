#!/usr/bin/env python3
"""Script-folding study: copies of real Chinese documents in the other script.

  python3 scripts/foldstudy/foldstudy.py make --corpus ../shared/corpus --out /tmp/foldstudy
  neardup run --input /tmp/foldstudy/fold.jsonl --output /tmp/foldstudy/run
  python3 scripts/foldstudy/foldstudy.py score --study /tmp/foldstudy --run /tmp/foldstudy/run

make picks real Chinese documents of the dev corpus (source not synthetic,
lang zh) that are in no ground-truth pair and no exact-duplicate group, so
that each study cluster is one original and its copy. Each document's script
is the one OpenCC changes less of (t2s against s2t). Simplified documents are
dealt, in a seeded random order, to the conversions s2t, s2tw, s2hk and s2twp
(phrases: 软件 -> 軟體), Traditional ones to t2s, --per documents each; a
document whose copy would equal it is skipped. It writes fold.jsonl (the
originals, then the copies, id "<conversion>-<original id>") and truth.tsv
(original, copy, conversion). OpenCC is PyPI's opencc package (pip install
opencc), used by this test tooling only.

score reads the run's pairs, clusters and dedup copies and prints, for each
conversion: the copies found directly (the run reports the pair, an
"exact" pair included), linked (in one cluster with the original), and the
pairs that kept one of the two documents.
"""
import argparse
import collections
import glob
import json
import os
import random
import sys


def script_of(text, t2s, s2t):
    """'trad' or 'simp': the script OpenCC changes less of."""
    to_s = sum(a != b for a, b in zip(t2s.convert(text), text))
    to_t = sum(a != b for a, b in zip(s2t.convert(text), text))
    if to_s > to_t:
        return "trad"
    if to_t > to_s:
        return "simp"
    return None


def make(args):
    import opencc  # PyPI's opencc; test tooling only

    conv = {c: opencc.OpenCC(c) for c in ("s2t", "s2tw", "s2hk", "s2twp", "t2s")}
    paired = set()
    with open(os.path.join(args.corpus, "dev_pairs.tsv")) as f:
        for line in f:
            a, b = line.split("\t")[:2]
            paired.update((a, b))
    with open(os.path.join(args.corpus, "dev_exact_groups.tsv")) as f:
        for line in f:
            paired.update(line.rstrip("\n").split("\t")[2].split(","))
    docs = {"simp": [], "trad": []}
    with open(os.path.join(args.corpus, "dev.jsonl")) as f:
        for line in f:
            d = json.loads(line)
            if d["source"].startswith("synthetic:") or d["lang"] != "zh" or d["id"] in paired:
                continue
            s = script_of(d["text"], conv["t2s"], conv["s2t"])
            if s:
                docs[s].append(d)
    rng = random.Random(args.seed)
    for s in docs:
        rng.shuffle(docs[s])
    plan = {"s2t": [], "s2tw": [], "s2hk": [], "s2twp": [], "t2s": []}
    simp = iter(docs["simp"])
    for name in ("s2t", "s2tw", "s2hk", "s2twp"):
        for d in simp:
            if len(plan[name]) == args.per:
                break
            copy = conv[name].convert(d["text"])
            if copy != d["text"]:
                plan[name].append((d, copy))
    for d in docs["trad"]:
        if len(plan["t2s"]) == args.per:
            break
        copy = conv["t2s"].convert(d["text"])
        if copy != d["text"]:
            plan["t2s"].append((d, copy))
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "fold.jsonl"), "w") as out, open(os.path.join(args.out, "truth.tsv"), "w") as truth:
        for name, items in plan.items():
            for d, _ in items:
                out.write(json.dumps({"id": d["id"], "text": d["text"], "source": d["source"], "lang": "zh"}, ensure_ascii=False) + "\n")
        for name, items in plan.items():
            for d, copy in items:
                cid = f"{name}-{d['id']}"
                out.write(json.dumps({"id": cid, "text": copy, "source": "fold:" + name, "lang": "zh"}, ensure_ascii=False) + "\n")
                truth.write(f"{d['id']}\t{cid}\t{name}\n")
    for name, items in plan.items():
        print(f"{name}: {len(items)} copies", file=sys.stderr)


def read_lines(pattern):
    for path in sorted(glob.glob(pattern)):
        with open(path) as f:
            for line in f:
                if line.strip():
                    yield json.loads(line)


def score(args):
    truth = []
    with open(os.path.join(args.study, "truth.tsv")) as f:
        for line in f:
            a, b, name = line.rstrip("\n").split("\t")
            truth.append((a, b, name))
    pairs = set()
    for p in read_lines(os.path.join(args.run, "pairs-*.jsonl")):
        pairs.add(frozenset((p["a"], p["b"])))
    cluster = {}
    for c in read_lines(os.path.join(args.run, "clusters-*.jsonl")):
        for m in c["members"]:
            cluster[m] = c["cluster"]
    kept = {d["id"] for d in read_lines(os.path.join(args.run, "dedup-*.jsonl"))}
    by = collections.defaultdict(collections.Counter)
    for a, b, name in truth:
        n = by[name]
        n["copies"] += 1
        n["direct"] += frozenset((a, b)) in pairs
        n["linked"] += a in cluster and cluster.get(a) == cluster.get(b)
        n["kept_one"] += (a in kept) or (b in kept)
        n["kept_both"] += (a in kept) and (b in kept)
    print(f"{'conversion':<10} {'copies':>6} {'direct':>8} {'linked':>8} {'kept one':>9} {'kept both':>9}")
    for name in ("s2t", "s2tw", "s2hk", "t2s", "s2twp"):
        n = by[name]
        if n["copies"]:
            c = n["copies"]
            print(f"{name:<10} {c:>6} {n['direct'] / c:>8.4f} {n['linked'] / c:>8.4f} {n['kept_one'] / c:>9.4f} {n['kept_both'] / c:>9.4f}")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    m = sub.add_parser("make")
    m.add_argument("--corpus", default=os.environ.get("NEARDUP_CORPUS", "../shared/corpus"))
    m.add_argument("--out", required=True)
    m.add_argument("--per", type=int, default=300, help="copies per conversion")
    m.add_argument("--seed", type=int, default=58)
    s = sub.add_parser("score")
    s.add_argument("--study", required=True)
    s.add_argument("--run", required=True)
    args = ap.parse_args()
    make(args) if args.cmd == "make" else score(args)


if __name__ == "__main__":
    main()
