#!/usr/bin/env python3
"""Re-score a run's JSON export with the Python reference implementations and compare.

    npm run -s cli -- export <run id> --format json --out run.json
    /usr/bin/python3 scripts/golden/check-export.py run.json

Recomputes each final answer's official LoCoMo F1 (LoCoMo task_eval/evaluation.py, NLTK Porter)
and, for categories 1-4, mem0's set F1 and BLEU-1 (generate.py holds the reference code), and
prints how many agree with the exported scores. Exits 1 on any disagreement. Needs python3-nltk.
"""

import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import generate as reference  # noqa: E402


def main(path):
    answers = json.load(open(path, encoding="utf-8"))["answers"]
    official_bad, mem0_bad, mem0_n = [], [], 0
    for a in answers:
        gold = "" if a["gold"] is None else a["gold"]
        expected = reference.official_score(a["prediction"], gold, a["category"])
        if abs(expected - a["officialF1"]) > 1e-9:
            official_bad.append((a, expected))
        if a["category"] != 5 and a.get("setF1") is not None:
            mem0_n += 1
            f1 = reference.mem0_f1(a["prediction"], str(gold))
            bleu = reference.mem0_bleu1(a["prediction"], str(gold))
            if abs(f1 - a["setF1"]) > 1e-9 or abs(bleu - a["bleu1"]) > 1e-6:
                mem0_bad.append((a, f1, bleu))
    for a, expected in official_bad[:10]:
        print(f"official F1 differs: {a['sampleId']} qa[{a['questionIndex']}] "
              f"{a['prediction']!r} vs {a['gold']!r}: reference {expected}, export {a['officialF1']}")
    for a, f1, bleu in mem0_bad[:10]:
        print(f"mem0 differs: {a['sampleId']} qa[{a['questionIndex']}]: reference "
              f"{f1}/{bleu}, export {a['setF1']}/{a['bleu1']}")
    n = len(answers)
    print(f"official F1: {n - len(official_bad)}/{n} agree; "
          f"set F1 and BLEU-1: {mem0_n - len(mem0_bad)}/{mem0_n} agree")
    return 1 if official_bad or mem0_bad else 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1]))
