"""Independent reference implementations, written from the papers' formulas
as plain loops over items (no shared code with metaeval.metrics).

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
            between = sum(counts[l] for l in range(a + 1, b + 1))
        else:
            between = sum(counts[l] for l in range(b, a))
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
