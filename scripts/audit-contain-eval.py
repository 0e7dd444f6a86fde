#!/usr/bin/env python3
# audit-contain-eval.py: scores an audit with --containment against the
# exact containment truth (scripts/containjoin). Run in a directory that
# holds A.jsonl (the indexed half), B.jsonl (the audited half),
# truth.tsv (containjoin over both), runA/ (the run that built the index)
# and aud/ (the audit's outputs):
#
#   python3 scripts/audit-contain-eval.py C
#
# It prints the containment matches of the audit lines and their
# precision (true containment of the contained side >= C; below C - 0.1),
# then recall by language of the true (new, indexed) pairs whose indexed
# document is in the index (kept by runA), contained document >= 10
# shingles, at containment >= C + 0.05 ("hi") and in [C, C + 0.05)
# ("band"); a pair counts as found when the audit reports it by any
# method, for the new document or for the representative of its exact
# duplicates within the batch (only that one is matched).
import csv
import glob
import json
import sys

C=float(sys.argv[1]) if len(sys.argv)>1 else 0.8
truth={}
for r in csv.DictReader(open('truth.tsv'),delimiter='\t'):
    truth[frozenset((r['id_a'],r['id_b']))]=r
def ids(path):
    s=set()
    for f in glob.glob(path):
        for l in open(f):
            s.add(json.loads(l)['id'])
    return s
A=ids('A.jsonl'); B=ids('B.jsonl'); kept=ids('runA/dedup-*.jsonl')
lang={}
for l in open('A.jsonl').readlines() + open('B.jsonl').readlines():
    d=json.loads(l); lang[d['id']]=d.get('lang','?')
found=set(); cm=0; good=0; low=0; wrongside=0; ins={'new':0,'indexed':0}; vals=[]
for f in glob.glob('aud/audit-*.jsonl'):
    for l in open(f):
        a=json.loads(l)
        for m in a['matches']:
            found.add(frozenset((a['doc'],m['id'])))
            if m['method']!='containment': continue
            cm+=1; ins[m['inside']]+=1
            t=truth.get(frozenset((a['doc'],m['id'])))
            cont_doc=a['doc'] if m['inside']=='new' else m['id']
            if t is None: low+=1; vals.append((a['doc'],m['id'],'<0.5')); continue
            c=float(t['contain_a']) if t['id_a']==cont_doc else float(t['contain_b'])
            if c>=C: good+=1
            elif c<C-0.1: low+=1; vals.append((a['doc'],m['id'],c))
            else: vals.append((a['doc'],m['id'],c))
print(f"C={C}: containment matches {cm} (inside new {ins['new']}, inside indexed {ins['indexed']}); true >= C: {good}; precision {good/max(cm,1):.4f}; below C-0.1: {low}; others {vals[:5]}")
# recall: cross pairs, contained >= 10 shingles, containment of smaller >= C+0.05, indexed side kept in the index run
rep={}
for f in glob.glob('aud/pairs-*.jsonl'):
    for l in open(f):
        p=json.loads(l)
        if p['method']=='exact': rep[p['b']]=p['a']
tot={};hit={}
for k,t in truth.items():
    a,b=t['id_a'],t['id_b']
    if not ((a in B and b in kept) or (b in B and a in kept)): continue
    sa,sb=int(t['size_a']),int(t['size_b'])
    c=float(t['contain_a']) if sa<=sb else float(t['contain_b'])
    if min(sa,sb)<10: continue
    band='hi' if c>=C+0.05 else ('band' if c>=C else None)
    if band is None: continue
    key=(lang[a],band); tot[key]=tot.get(key,0)+1
    nb,o=(a,b) if a in B else (b,a)
    if k in found or frozenset((rep.get(nb,nb),o)) in found: hit[key]=hit.get(key,0)+1
for k in sorted(tot): print(k, f"{hit.get(k,0)}/{tot[k]} = {hit.get(k,0)/tot[k]:.4f}")
