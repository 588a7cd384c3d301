#!/usr/bin/env python3
"""Regenerate tests/fixtures/golden/agreement.json from NLTK 3.8 and SciPy.

    /usr/bin/python3 scripts/golden/generate-agreement.py

Needs Debian's python3-nltk and python3-scipy. The Vitest suite reads only the JSON, so CI
needs neither. Reference functions used (called, not copied), with binary (nominal) distance:
  * nltk.metrics.agreement.AnnotationTask.kappa   -> mean of cohenKappa over all rater pairs
    (NLTK averages Cohen's kappa naively over pairs; with two raters it is Cohen's kappa)
  * AnnotationTask.pi                             -> fleissKappa (Scott's multi-pi = Fleiss' kappa)
  * AnnotationTask.avg_Ao                         -> percentAgreement
  * AnnotationTask.alpha                          -> krippendorffAlpha (also with missing labels)
  * scipy.stats.binomtest(k, n).proportion_ci(confidence, method="wilson") -> wilsonInterval
NLTK's kappa, pi and avg_Ao divide by the number of items, so they hold only for complete data:
matrices with missing labels are checked against alpha alone. `clusteredAlpha` is a percentile
bootstrap interval over conversations of NLTK's alpha, resampled with the same mulberry32 stream
the TypeScript uses (the resampling has no library reference; the statistic does).
"""

import json
import random
from pathlib import Path

import nltk
import numpy as np
import scipy
from nltk.metrics.agreement import AnnotationTask
from scipy.stats import binomtest

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "tests" / "fixtures" / "golden" / "agreement.json"


def mulberry32(seed):
    state = seed & 0xFFFFFFFF

    def imul(a, b):
        return (a * b) & 0xFFFFFFFF

    def rng():
        nonlocal state
        state = (state + 0x6D2B79F5) & 0xFFFFFFFF
        t = state
        t = imul(t ^ (t >> 15), t | 1)
        t ^= (t + imul(t ^ (t >> 7), t | 61)) & 0xFFFFFFFF
        return ((t ^ (t >> 14)) & 0xFFFFFFFF) / 4294967296

    return rng


def clustered_alpha(rows, clusters, resamples, seed, confidence):
    """Percentile interval of NLTK's alpha over resampled conversations (first-seen order)."""
    order, members = [], {}
    for i, c in enumerate(clusters):
        if c not in members:
            order.append(c)
            members[c] = []
        members[c].append(i)
    k = len(order)
    rng = mulberry32(seed)
    values = []
    for _ in range(resamples):
        drawn = []
        for _ in range(k):
            drawn.extend(members[order[int(rng() * k)]])
        values.append(task([rows[i] for i in drawn]).alpha())
    values.sort()
    alpha = 1 - confidence
    return {"estimate": task(rows).alpha(), "low": float(np.quantile(values, alpha / 2)),
            "high": float(np.quantile(values, 1 - alpha / 2)), "clusters": k}


def matrix(rng, questions, raters, labels, weights, missing=0.0):
    """A rating matrix whose raters mostly follow a hidden truth; None marks a missing label."""
    rows = []
    for _ in range(questions):
        truth = rng.choices(labels, weights)[0]
        row = []
        for r in range(raters):
            if rng.random() < missing:
                row.append(None)
            elif rng.random() < 0.75 + 0.05 * r:
                row.append(truth)
            else:
                row.append(rng.choice(labels))
        rows.append(row)
    return rows


def task(rows):
    triples = [(f"r{r}", f"q{q:04d}", label)
               for q, row in enumerate(rows) for r, label in enumerate(row) if label is not None]
    return AnnotationTask(data=triples)


def complete_case(name, rows):
    t = task(rows)
    return {"name": name, "ratings": rows, "kappa": t.kappa(), "pi": t.pi(),
            "avgAo": t.avg_Ao(), "alpha": t.alpha()}


def missing_case(name, rows):
    return {"name": name, "ratings": rows, "alpha": task(rows).alpha()}


def main():
    rng = random.Random(37)
    verdicts = ["correct", "wrong"]
    complete = [
        complete_case("two judges, balanced", matrix(rng, 60, 2, verdicts, [1, 1])),
        complete_case("two judges, 90% correct (kappa paradox)",
                      matrix(rng, 80, 2, verdicts, [9, 1])),
        complete_case("three judges", matrix(rng, 50, 3, verdicts, [3, 2])),
        complete_case("five judges", matrix(rng, 40, 5, verdicts, [2, 3])),
        complete_case("four raters, three labels",
                      matrix(rng, 45, 4, ["correct", "wrong", "partial"], [3, 2, 1])),
    ]
    missing = [
        missing_case("three raters, 20% missing", matrix(rng, 60, 3, verdicts, [1, 1], 0.2)),
        missing_case("six raters, 40% missing", matrix(rng, 50, 6, verdicts, [2, 1], 0.4)),
        missing_case("four raters, three labels, 30% missing",
                     matrix(rng, 40, 4, ["correct", "wrong", "unsure"], [2, 2, 1], 0.3)),
    ]
    wilson_cases = [(0, 12), (1, 12), (6, 12), (12, 12), (37, 50), (3, 200), (1500, 1986)]
    wilson = []
    for successes, n in wilson_cases:
        for confidence in (0.95, 0.9):
            ci = binomtest(successes, n).proportion_ci(confidence, method="wilson")
            wilson.append({"successes": successes, "n": n, "confidence": confidence,
                           "low": float(ci.low), "high": float(ci.high)})
    boot_rows = matrix(rng, 60, 3, verdicts, [3, 2], 0.2)
    boot_clusters = [f"conv-{i % 6}" for i in range(len(boot_rows))]
    clustered = {"ratings": boot_rows, "clusters": boot_clusters, "seed": 5, "resamples": 300,
                 "confidence": 0.95}
    clustered["result"] = clustered_alpha(boot_rows, boot_clusters, 300, 5, 0.95)
    golden = {
        "generator": "scripts/golden/generate-agreement.py",
        "versions": {"nltk": nltk.__version__, "scipy": scipy.__version__,
                     "numpy": np.__version__},
        "complete": complete,
        "missing": missing,
        "wilson": wilson,
        "clusteredAlpha": clustered,
    }
    OUT.write_text(json.dumps(golden, indent=1) + "\n")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
