#!/usr/bin/env python3
"""Which copy would each order keep? Reads keepstudy's per-document and
per-pair features (go run ./scripts/keepstudy -corpus C -synthetic S
[-truth T] -out P) and prints, per edit type, the share of (original,
variant) pairs with exact Jaccard >= J whose original an order puts first
(a tie counts one half). With PREFIX.truth.tsv (keepstudy -truth) it also
prints the decisions the pipeline would make: every true pair >= J is a
verified pair, each connected component is ordered by Copeland score (pairs
won, a tie a half) then a per-document key, and decided greedily as
transforms/graph/greedy does; a pair counts when one of its documents is
removed for the other.

usage: orders.py PREFIX [J] [--grid]
"""
import collections
import csv
import itertools
import os
import sys

prefix = sys.argv[1]
J = float(sys.argv[2]) if len(sys.argv) > 2 and not sys.argv[2].startswith('-') else 0.8
GRID = '--grid' in sys.argv
EDITS = ['boilerplate', 'truncate', 'typos', 'whitespace', 'insdel', 'mixed', 'reorder']


def read_pairs(path, least):
    out = []
    for r in csv.DictReader(open(path), delimiter='\t'):
        if float(r['J']) < least:
            continue
        for k in list(r):
            if k.endswith('dfs'):
                r[k] = [int(x) for x in r[k].split(',')] if r[k] else []
            elif k not in ('a', 'b', 'edit', 'lang', 'J'):
                r[k] = int(r[k])
        out.append(r)
    return out


D = {r['id']: {k: (v if k == 'id' else int(v)) for k, v in r.items()}
     for r in csv.DictReader(open(prefix + '.docs.tsv'), delimiter='\t')}
P = read_pairs(prefix + '.pairs.tsv', J)
TRUTH = read_pairs(prefix + '.truth.tsv', J) if os.path.exists(prefix + '.truth.tsv') else None


def noise(d):
    """Formatting a careful copy lacks: CR, tabs, double spaces, indented
    lines, typographic quotes and dashes, half-width punctuation after a
    Chinese character, a space between Chinese and Latin."""
    return d['cr'] + d['tab'] + d['dbl'] + d['indent'] + d['smart'] + d['halfcjk'] + d['cjklat']


def side(p, x):
    """Side x ('a' or 'b') of pair p: its columns without the prefix."""
    return {k[1:]: v for k, v in p.items() if k[0] == x and k not in ('a', 'b')}


def quantile(v, f):
    return v[min(len(v) - 1, int(len(v) * f))] if v else -1


def cmp(x, y):
    return 1 if x > y else (0 if x < y else 0.5)


def by_score(f):
    def pick(p, a, b):
        return cmp(f(a), f(b))
    return pick


def pair_rule(p, a, b):
    """A pair's own evidence: what each has that the other lacks."""
    ao, bo = p['aonly'], p['bonly']
    af, bf = p['af4'], p['bf4']
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


def copied_rule(T=2, R=4, Q=0.9, slots=False, ends=True, attested=True, log2=False, longer=False, marks=True, doc_unattested=False):
    """The copied-in rule (docs/QUALITY.md, "A rule from copied and
    unattested text"). For each side X, E(X) is what X has that the other
    lacks: exactly (the shingle sets), or as the MinHash sketch shows it
    (slots=True: the positions where X's minimum is the smaller one, whose
    argmin shingle is X's only). frequency(s) is how many documents besides
    the pair's own hold shingle s.

    1. E(A) and E(B) empty (the same shingles): fewer formatting marks
       first, then fewer raw bytes.
    2. X's extra is copied in when it touches both ends of X (a header and a
       footer: exact, at most 3 runs; sketch, argmins in X's first and last
       tenth), or when e = the Q-quantile of the frequencies of E(X) is at
       least T and differs from s = the Q-quantile of the shared shingles'
       frequencies by a factor R either way ((e+1) >= R(s+1) or
       (s+1) >= R(e+1)).
    3. One side has extra: keep it unless its extra is copied in.
    4. Both have extra: fewer unattested tokens and bigrams (found in no
       other document; sketch: the share of X's positions whose argmin
       shingle holds one), then more extra shingles attested elsewhere,
       then the side whose extra is not copied in, then attested again.

    marks=False leaves out the formatting count (fewer raw bytes alone).
    doc_unattested=True counts unattested tokens and bigrams over each whole
    document (one count a document): what the two share is attested by the
    other, so the difference is the same as over the extras.
    log2=True compares frequencies as the signature pass would store them,
    4 bits a position: floor(log2(f + 1)); e >= T becomes
    floor(log2(e + 1)) >= floor(log2(T + 1)) and the factor R a difference
    of at least log2(R) (R a power of 2).
    """
    def copied(X, p):
        if ends:
            if not slots and X['edge'] == 2 and X['runs'] <= 3:
                return True
            if slots and X['k'] >= 2 and X['kpmin'] < 100 and X['kpmax'] >= 900:
                return True
        e = quantile(X['kdfs'] if slots else X['dfs'], Q)
        s = quantile(p['skdfs'] if slots else p['sdfs'], Q)
        if log2:
            e, s = min(15, (e + 1).bit_length() - 1), min(15, (s + 1).bit_length() - 1)
            r = R.bit_length() - 1
            return e >= (T + 1).bit_length() - 1 and abs(e - s) >= r
        return e >= T and ((e + 1) >= R * (s + 1) or (s + 1) >= R * (e + 1))

    def unattested(X, d):
        if doc_unattested:  # the document's own count: tokens and bigrams in no other document
            return d['utok'] + d['ubig']
        if slots:
            return (X['knov'] + X['kubg']) / max(1, X['k'])
        return X['etn'] + X['ebn']

    def rule(p, a, b):
        A, B = side(p, 'a'), side(p, 'b')
        ao, bo = (A['k'], B['k']) if slots else (A['only'], B['only'])
        if ao == 0 and bo == 0:
            if marks and noise(a) != noise(b):
                return cmp(-noise(a), -noise(b))
            return cmp(-a['raw'], -b['raw'])
        if ao == 0 or bo == 0:
            X = A if ao else B
            keep_x = not copied(X, p)
            return 1 if keep_x == (X is A) else 0
        F = 'kf1' if slots else 'f1'
        if attested:
            ua, ub = unattested(A, a), unattested(B, b)
            if ua != ub:
                return cmp(-ua, -ub)
            if A[F] != B[F]:
                return cmp(A[F], B[F])
        ca, cb = copied(A, p), copied(B, p)
        if ca != cb:
            return 0 if ca else 1
        if A[F] != B[F] or not longer:
            return cmp(A[F], B[F])
        return cmp(a['raw'], b['raw'])
    return rule


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
    ('copied-in rule, exact sets', copied_rule()),
    ('copied-in rule, MinHash positions', copied_rule(slots=True)),
    ('copied-in rule, MinHash positions, 4-bit log2 frequencies', copied_rule(slots=True, log2=True)),
    ('copied-in rule, exact sets, last tie: more raw bytes', copied_rule(longer=True)),
    ('copied-in rule, MinHash positions, 4-bit log2, last tie: more raw bytes', copied_rule(slots=True, log2=True, longer=True)),
    ('the same without unattested text and formatting count', copied_rule(slots=True, log2=True, longer=True, attested=False, marks=False)),
    ('the same with unattested text counted per document', copied_rule(slots=True, log2=True, longer=True, doc_unattested=True)),
]


def score(pick, pairs):
    res = {}
    for p in pairs:
        res.setdefault(p['edit'], []).append(pick(p, D[p['a']], D[p['b']]))
    every = [x for v in res.values() for x in v]
    return sum(every) / len(every), {e: sum(res[e]) / len(res[e]) for e in EDITS}


def row(name, total, per):
    return '| %s | %.2f | %s |' % (name, total, ' | '.join('%.2f' % per[e] for e in EDITS))


def decide(pick, key=lambda d: (noise(d), -d['norm'])):
    """The pipeline's decisions under pick: Copeland order per component of
    the true pairs >= J, ties by key then id, greedy removal."""
    adj = collections.defaultdict(dict)
    for p in TRUTH:
        v = pick(p, D[p['a']], D[p['b']])
        adj[p['a']][p['b']], adj[p['b']][p['a']] = v, 1 - v
    comp = {}
    for s in sorted(adj):
        if s in comp:
            continue
        comp[s], stack, members = s, [s], [s]
        while stack:
            for y in adj[stack.pop()]:
                if y not in comp:
                    comp[y] = s
                    stack.append(y)
                    members.append(y)
        wins = {x: sum(adj[x].values()) for x in members}
        order = sorted(members, key=lambda x: (-wins[x], key(D[x]), x))
        rank = {x: i for i, x in enumerate(order)}
        kept = set()
        for x in order:
            nb = [y for y in adj[x] if y in kept]
            if nb:
                removed_for[x] = min(nb, key=rank.get)
            else:
                kept.add(x)
    return removed_for


def decided(pick):
    global removed_for
    removed_for = {}
    decide(pick)
    res = collections.defaultdict(lambda: [0, 0])
    with open(SYN) as f:
        next(f)
        for line in f:
            a, b, e = line.split('\t')[:3]
            if removed_for.get(b) == a:
                res[e][0] += 1
                res[e][1] += 1
            elif removed_for.get(a) == b:
                res[e][1] += 1
    kept = sum(v[0] for v in res.values())
    n = sum(v[1] for v in res.values())
    return '| %.3f of %d | %s |' % (kept / n, n, ' | '.join('%.2f of %d' % (res[e][0] / max(1, res[e][1]), res[e][1]) for e in EDITS))


SYN = os.environ.get('SYNTHETIC', '../shared/corpus/dev_synthetic.tsv')

print('pairs with exact Jaccard >= %g: %d (%s)' % (J, len(P), ', '.join('%s %d' % (e, sum(p['edit'] == e for p in P)) for e in EDITS)))
print('| order | all | ' + ' | '.join(EDITS) + ' |')
print('|---|' + '---:|' * (len(EDITS) + 1))
for name, pick in ORDERS:
    print(row(name, *score(pick, P)))

if GRID:
    print('\nsensitivity of the copied-in rule (pairs compared alone; exact sets, and MinHash positions with 4-bit log2 frequencies):')
    print('| variant | all | ' + ' | '.join(EDITS) + ' |')
    print('|---|' + '---:|' * (len(EDITS) + 1))
    for slots in (False, True):
        kind = dict(slots=slots, log2=slots, longer=True)
        name = 'sketch' if slots else 'exact'
        for T, R, Q in itertools.product([1, 2, 3, 5], [2, 4, 8], [0.5, 0.75, 0.9]):
            print(row('%s T=%d R=%d Q=%g' % (name, T, R, Q), *score(copied_rule(T, R, Q, **kind), P)))
        for what, kw in [('without the both-ends test', dict(ends=False)), ('without unattested text', dict(attested=False)),
                         ('without the formatting count', dict(marks=False)),
                         ('without unattested text and formatting count', dict(attested=False, marks=False))]:
            print(row('%s %s' % (name, what), *score(copied_rule(**kind, **kw), P)))

if TRUTH is not None and os.path.exists(SYN):
    print('\nthe pipeline\'s decisions (true pairs >= %g as verified pairs, %d of them): original kept of decided pairs' % (J, len(TRUTH)))
    print('| order | all | ' + ' | '.join(EDITS) + ' |')
    print('|---|' + '---:|' * (len(EDITS) + 1))
    for name, pick in ORDERS:
        if name.startswith(('--keep first', 'S -', 'shingles in', 'distinct', 'fewest')):
            continue
        print('| %s %s' % (name, decided(pick)))
