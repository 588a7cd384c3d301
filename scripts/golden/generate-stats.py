#!/usr/bin/env python3
"""Regenerate tests/fixtures/golden/significance.json from SciPy and statsmodels.

    /usr/bin/python3 scripts/golden/generate-stats.py

Needs Debian's python3-scipy and python3-statsmodels. The Vitest suite reads only the JSON, so CI
needs neither. Reference functions used (called, not copied):
  * scipy.stats.norm.cdf / norm.ppf                                  -> normalCdf / normalQuantile
  * statsmodels.stats.contingency_tables.mcnemar(table, exact=True)  -> mcnemarExact
  * statsmodels.stats.power.NormalIndPower().power / .solve_power    -> normalTestPower /
                                                                        minimumDetectableEffect
The cluster bootstrap has no library reference; its cases are computed here with NumPy from the
same mulberry32 stream the TypeScript uses, so the test checks the resampling arithmetic.
"""

import json
from pathlib import Path

import numpy as np
import scipy
import statsmodels
from scipy import stats
from statsmodels.stats.contingency_tables import mcnemar
from statsmodels.stats.power import NormalIndPower

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "tests" / "fixtures" / "golden" / "significance.json"


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


def cluster_bootstrap(baseline, candidate, clusters, resamples, seed, confidence):
    sums, counts, order = {}, {}, []
    diffs = []
    for a, b, c in zip(baseline, candidate, clusters):
        if a is None or b is None:
            continue
        d = b - a
        diffs.append(d)
        if c not in sums:
            order.append(c)
            sums[c], counts[c] = 0.0, 0
        sums[c] += d
        counts[c] += 1
    k = len(order)
    rng = mulberry32(seed)
    means = np.empty(resamples)
    for r in range(resamples):
        s, n = 0.0, 0
        for _ in range(k):
            c = order[int(rng() * k)]
            s += sums[c]
            n += counts[c]
        means[r] = s / n
    means.sort()
    alpha = 1 - confidence
    return {
        "meanDiff": float(np.mean(diffs)),
        "low": float(np.quantile(means, alpha / 2)),
        "high": float(np.quantile(means, 1 - alpha / 2)),
        "n": len(diffs),
        "clusters": k,
    }


def main():
    xs = [-38.0, -12.5, -8.0, -5.0, -3.3, -1.96, -1.0, -0.5, -1e-3, 0.0, 0.25, 0.6744897501960817,
          1.0, 1.6448536269514722, 2.0, 3.0, 4.5, 7.0, 9.0]
    ps = [1e-300, 1e-20, 1e-10, 1e-5, 0.001, 0.01, 0.025, 0.05, 0.1, 0.2, 0.3, 0.425, 0.5, 0.575,
          0.7, 0.8, 0.9, 0.95, 0.975, 0.99, 0.999, 1 - 1e-9]
    mcnemar_cases = [(0, 0), (1, 0), (0, 5), (3, 3), (5, 12), (40, 61), (12, 30), (150, 151),
                     (260, 310), (900, 1000)]
    power_cases = [(0.05, 100, 0.05, 0), (0.1, 100, 0.05, 0), (0.08, 1540, 0.05, 0),
                   (0.2, 50, 0.01, 1), (0.1, 1986, 0.05, 1), (0.0, 200, 0.05, 0)]
    mde_cases = [(10, 0.05, 0.8, 0), (100, 0.05, 0.8, 0), (1540, 0.05, 0.8, 0),
                 (1986, 0.05, 0.8, 0), (1986, 0.05, 0.8, 1), (446, 0.01, 0.9, 1)]

    rng = np.random.default_rng(7)
    n = 300
    clusters = [f"conv-{i % 10}" for i in range(n)]
    baseline = [float(round(v, 3)) for v in rng.random(n)]
    candidate = [float(round(min(1.0, v + 0.05 * (i % 10) / 10), 3)) for i, v in
                 enumerate(rng.random(n))]
    candidate[3] = None
    baseline[17] = None
    cluster_cases = [
        {"seed": 0, "resamples": 500, "confidence": 0.95},
        {"seed": 42, "resamples": 1000, "confidence": 0.9},
    ]

    golden = {
        "generator": "scripts/golden/generate-stats.py",
        "versions": {"scipy": scipy.__version__, "statsmodels": statsmodels.__version__,
                     "numpy": np.__version__},
        "normalCdf": [{"x": x, "cdf": float(stats.norm.cdf(x))} for x in xs],
        "normalQuantile": [{"p": p, "ppf": float(stats.norm.ppf(p))} for p in ps],
        "mcnemar": [
            {"baselineOnly": b, "candidateOnly": c,
             "pValue": float(mcnemar([[500, b], [c, 400]], exact=True).pvalue)}
            for b, c in mcnemar_cases
        ],
        "power": [
            {"d": d, "n": nn, "alpha": a, "ratio": r,
             "power": float(NormalIndPower().power(d, nn, a, ratio=r))}
            for d, nn, a, r in power_cases
        ],
        "mde": [
            {"n": nn, "alpha": a, "power": pw, "ratio": r,
             "d": float(NormalIndPower().solve_power(effect_size=None, nobs1=nn, alpha=a,
                                                     power=pw, ratio=r))}
            for nn, a, pw, r in mde_cases
        ],
        "clusterBootstrap": {
            "baseline": baseline,
            "candidate": candidate,
            "clusters": clusters,
            "cases": [dict(case, result=cluster_bootstrap(baseline, candidate, clusters,
                                                          case["resamples"], case["seed"],
                                                          case["confidence"]))
                      for case in cluster_cases],
        },
    }
    OUT.write_text(json.dumps(golden, indent=1) + "\n")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
