#!/usr/bin/env python3
"""Which copy would each order keep? Reads keepstudy's per-document and
per-pair features (go run ./scripts/keepstudy -corpus C -synthetic S -out P)
and prints, per edit type, the share of (original, variant) pairs with exact
Jaccard >= J whose original an order puts first (a tie counts one half).

usage: orders.py PREFIX [J]
"""
import csv
import sys

prefix = sys.argv[1]
J = float(sys.argv[2]) if len(sys.argv) > 2 else 0.8
D = {r['id']: {k: (v if k == 'id' else int(v)) for k, v in r.items()}
     for r in csv.DictReader(open(prefix + '.docs.tsv'), delimiter='\t')}
P = [r for r in csv.DictReader(open(prefix + '.pairs.tsv'), delimiter='\t') if float(r['J']) >= J]
EDITS = ['boilerplate', 'truncate', 'typos', 'whitespace', 'insdel', 'mixed', 'reorder']


def noise(d):
    """Formatting a careful copy lacks: CR, tabs, double spaces, indented
    lines, typographic quotes and dashes, half-width punctuation after a
    Chinese character, a space between Chinese and Latin."""
    return d['cr'] + d['tab'] + d['dbl'] + d['indent'] + d['smart'] + d['halfcjk'] + d['cjklat']


def by_score(f):
    def pick(p, a, b):
        sa, sb = f(a), f(b)
        return 1 if sa > sb else (0.5 if sa == sb else 0)
    return pick


def pair_rule(p, a, b):
    """A pair's own evidence: what each has that the other lacks."""
    ao, bo = int(p['aonly']), int(p['bonly'])
    af, bf = int(p['afreq']), int(p['bfreq'])
    if ao == 0 and bo == 0:  # the same shingles: the cleaner formatting
        na, nb = noise(a), noise(b)
        if na != nb:
            return 1 if na < nb else 0
        return 1 if a['raw'] < b['raw'] else (0 if a['raw'] > b['raw'] else 0.5)
    ab, bb = af * 4 >= ao and af >= 3, bf * 4 >= bo and bf >= 3  # extra text frequent in the corpus
    if ab != bb:
        return 0 if ab else 1
    if bo <= 0.1 * ao:  # one-sided extra: the one with more content
        return 1
    if ao <= 0.1 * bo:
        return 0
    ta, tb = a['utok'] + a['ubig'], b['utok'] + b['ubig']  # tokens and bigrams in no other document
    if ta != tb:
        return 1 if ta < tb else 0
    return 1 if a['S'] > b['S'] else (0 if a['S'] < b['S'] else 0.5)


ORDERS = [
    ('--keep longest (raw bytes)', by_score(lambda d: d['raw'])),
    ('--keep first (a coin here: ids are shuffled)', by_score(lambda d: 0)),
    ('normalized length', by_score(lambda d: d['norm'])),
    ('fewest raw bytes', by_score(lambda d: -d['raw'])),
    ('distinct shingles', by_score(lambda d: d['S'])),
    ('shingles in other docs (S - unique)', by_score(lambda d: d['S2'])),
    ('S - 2*frequent(df>=5) - 15*unique runs', by_score(lambda d: d['S'] - 2 * d['S5'] - 15 * d['inruns'])),
    ('S - 3*frequent(df>=10) - unique bigrams - 10*unique tokens', by_score(lambda d: (d['S'] - 3 * d['S10'] - d['ubig'] - 10 * d['utok'], -d['raw']))),
    ('pair rule', pair_rule),
]

print('pairs with exact Jaccard >= %g: %d (%s)' % (J, len(P), ', '.join('%s %d' % (e, sum(p['edit'] == e for p in P)) for e in EDITS)))
print('| order | all | ' + ' | '.join(EDITS) + ' |')
print('|---|' + '---:|' * (len(EDITS) + 1))
for name, pick in ORDERS:
    res = {}
    for p in P:
        res.setdefault(p['edit'], []).append(pick(p, D[p['a']], D[p['b']]))
    every = [x for v in res.values() for x in v]
    print('| %s | %.2f | %s |' % (name, sum(every) / len(every), ' | '.join('%.2f' % (sum(res[e]) / len(res[e])) for e in EDITS)))
