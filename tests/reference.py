"""Independent reference implementations, written from the papers' formulas
as plain loops over items (no shared code with metaeval.measures.labels).

Each function takes gold and predicted class codes (lists of ints 0..K-1).
"""

from __future__ import annotations

import math


def _per_class_counts(gold, pred, k):
    tp = [0] * k
    fp = [0] * k
    fn = [0] * k
    for g, p in zip(gold, pred):
        if g == p:
            tp[g] += 1
        else:
            fp[p] += 1
            fn[g] += 1
    return tp, fp, fn


def fbeta_loop(gold, pred, k, beta):
    tp, fp, fn = _per_class_counts(gold, pred, k)
    out = []
    for c in range(k):
        p = tp[c] / (tp[c] + fp[c]) if tp[c] + fp[c] else 0.0
        r = tp[c] / (tp[c] + fn[c]) if tp[c] + fn[c] else 0.0
        b2 = beta * beta
        out.append((1 + b2) * p * r / (b2 * p + r) if (b2 * p + r) > 0 else 0.0)
    return out


def auc_loop(gold, pred, k):
    """Scarton et al.: one ROC point (FPR_c, R_c) per class; area of the
    polygon (0,0), (FPR, R), (1,1), (1,0) by the shoelace formula."""
    out = []
    n = len(gold)
    for c in range(k):
        pos = sum(1 for g in gold if g == c)
        neg = n - pos
        tp = sum(1 for g, p in zip(gold, pred) if g == c and p == c)
        fp = sum(1 for g, p in zip(gold, pred) if g != c and p == c)
        r = tp / pos if pos else 0.0
        fpr = fp / neg if neg else 0.0
        pts = [(0.0, 0.0), (fpr, r), (1.0, 1.0), (1.0, 0.0)]
        area = 0.0
        for (x1, y1), (x2, y2) in zip(pts, pts[1:] + pts[:1]):
            area += x1 * y2 - x2 * y1
        out.append(abs(area) / 2.0)
    return out


def cem_ord_loop(gold, pred, k):
    """CEM^ORD from Amigo et al. (ACL 2020), per item, with Sakai's
    max{0.5, .} smoothing:

        prox(a, b) = -log2( max(0.5, n_a/2 + sum_{c strictly between a and b, or c = b} n_c) / N )
        CEM = sum_d prox(sys(d), gold(d)) / sum_d prox(gold(d), gold(d))
    """
    n = len(gold)
    counts = [0] * k
    for g in gold:
        counts[g] += 1

    def prox(a, b):
        if a <= b:
            between = sum(counts[c] for c in range(a + 1, b + 1))
        else:
            between = sum(counts[c] for c in range(b, a))
        return -math.log2(max(0.5, counts[a] / 2 + between) / n)

    num = sum(prox(p, g) for g, p in zip(gold, pred))
    den = sum(prox(g, g) for g in gold)
    return num / den


def fnc_score_loop(gold, pred, unrelated):
    """The official FNC-1 scorer.py rules, item by item."""
    score = 0.0
    best = 0.0
    for g, p in zip(gold, pred):
        if g == p:
            score += 0.25
            if g != unrelated:
                score += 0.50
        if g != unrelated and p != unrelated:
            score += 0.25
        best += 0.25 if g == unrelated else 1.0
    return score / best


def mae_macro_loop(gold, pred, k):
    per = []
    for j in range(k):
        errs = [abs(p - g) for g, p in zip(gold, pred) if g == j]
        if errs:
            per.append(sum(errs) / len(errs))
    return sum(per) / len(per)


# -- span metrics: plain loops over spans and characters, as the official ------
# -- SemEval-2020 Task 11 scorer computes them (task-SI_scorer.py) ------------
def _merge_sets(spans):
    """Union of overlapping character sets, as the official merge_spans does
    it (repeated pairwise unions until no two sets share a character)."""
    out = [set(s) for s in spans]
    changed = True
    while changed:
        changed = False
        for i in range(len(out)):
            for j in range(i + 1, len(out)):
                if out[i] & out[j]:
                    out[i] |= out.pop(j)
                    changed = True
                    break
            if changed:
                break
    return out


def span_scores_loop(gold, pred, labelled=False):
    """{metric: value} for lists of (article, label, start, end) tuples.

    Gold spans are merged per article (and label when ``labelled``), and so
    are the predictions (call with unmerged predictions only when they do
    not overlap).  Returns the partial-overlap P/R/F1, the max / min
    variants, exact-match F1, character F1 and per-article character F1.
    """
    def group(rows):
        g = {}
        for a, lab, s, e in rows:
            g.setdefault((a, lab if labelled else None), []).append(set(range(s, e)))
        return {k: _merge_sets(v) for k, v in g.items()}

    G, P = group(gold), group(pred)
    n_s = sum(len(v) for v in P.values())
    n_t = sum(len(v) for v in G.values())
    sp = sr = smax = smin = 0.0
    exact = 0
    for key, ps in P.items():
        gs = G.get(key, [])
        for s in ps:
            for t in gs:
                i = len(s & t)
                sp += i / len(s)
                sr += i / len(t)
                smax += i / max(len(s), len(t))
                smin += i / min(len(s), len(t))
        remaining = [frozenset(t) for t in gs]
        for s in ps:
            if frozenset(s) in remaining:
                remaining.remove(frozenset(s))
                exact += 1

    def prf(np_, dp, nr, dr):
        p = np_ / dp if dp > 0 else 0.0
        r = nr / dr if dr > 0 else 0.0
        f = 2 * p * r / (p + r) if p > 0 and r > 0 else 0.0
        return p, r, (1.0 if dp == 0 and dr == 0 else f)

    p, r, f = prf(sp, n_s, sr, n_t)
    articles = {k[0] for k in G} | {k[0] for k in P}
    tp = pc = gc = 0
    per_article = {}
    for a in articles:
        keys = {k for k in list(G) + list(P) if k[0] == a}
        atp = apc = agc = 0
        for k in keys:
            gchars = set().union(*G.get(k, [set()]))
            pchars = set().union(*P.get(k, [set()]))
            atp += len(gchars & pchars)
            apc += len(pchars)
            agc += len(gchars)
        tp, pc, gc = tp + atp, pc + apc, gc + agc
        per_article[a] = 1.0 if apc + agc == 0 else 2 * atp / (apc + agc)
    return {"span_precision": p, "span_recall": r, "span_f1": f,
            "span_f1_max": prf(smax, n_s, smax, n_t)[2], "span_f1_min": prf(smin, n_s, smin, n_t)[2],
            "span_f1_exact": prf(exact, n_s, exact, n_t)[2], "char_f1": prf(tp, pc, tp, gc)[2],
            "char_f1_macro_by_article": per_article}


def tsd_f1(predictions, gold):
    """SemEval-2021 Task 5's per-post F1 as its official scorer computes it
    (``evaluation/semeval2021.py`` of ipavlopoulos/toxic_spans, restated):
    the offsets as sets; 1 when both are empty, 0 when exactly one is."""
    if len(gold) == 0:
        return 1.0 if len(predictions) == 0 else 0.0
    if len(predictions) == 0:
        return 0.0
    p, g = set(predictions), set(gold)
    return 2 * len(p & g) / (len(p) + len(g))


def tsd_score_files(pred_path, gold_csv):
    """The official 2021 score of a submission file against the task's gold
    CSV (``spans,text``): the mean per-post F1 over every post, reading the
    lists with ``ast.literal_eval`` as the task's scorer does."""
    import ast
    import csv

    with open(gold_csv, newline="", encoding="utf-8") as fh:
        rows = [r for r in csv.DictReader(fh)]
    gold = {i: ast.literal_eval(r["spans"]) for i, r in enumerate(rows)}
    pred = {}
    with open(pred_path, encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                post, offs = line.rstrip("\n").split("\t")
                pred[int(post)] = ast.literal_eval(offs)
    assert set(pred) == set(gold)
    return sum(tsd_f1(pred[i], gold[i]) for i in gold) / len(gold)
