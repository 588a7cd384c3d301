#!/usr/bin/env python3
"""Write tests/fixtures/golden/locomo-recall.json: evidence recall as LoCoMo's evaluation computes it.

    /usr/bin/python3 scripts/golden/generate-locomo-recall.py

The formula is the one of snap-research/locomo task_eval/evaluation.py, eval_question_answering
(lines ~236-247), re-stated here on made-up cases: raw evidence strings against the retrieved
context ids; a context whose first id starts with "S" is a list of sessions and evidence counts by
its session; a question without evidence (or without a context) counts 1.
"""

import json
from pathlib import Path

OUT = Path(__file__).resolve().parents[2] / "tests" / "fixtures" / "golden" / "locomo-recall.json"

CASES = [
    # (evidence as written in the dataset, retrieved context ids or None)
    (["D1:3"], ["D1:3", "D2:1"]),
    (["D1:3", "D2:7"], ["D2:7"]),
    (["D1:3", "D1:3"], ["D1:3"]),  # duplicates weigh twice
    (["D1:3", "D1:3", "D4:2"], ["D4:2"]),
    (["D30:05"], ["D30:5"]),  # raw: a zero-padded id does not match
    (["D8:6; D9:17"], ["D8:6", "D9:17"]),  # raw: a joined string is one id
    ([], ["D1:1"]),  # no evidence counts 1
    (["D1:1"], None),  # no context counts 1
    (["D3:12", "D5:1"], ["S3", "S7"]),  # summaries: session level
    (["D3:12", "D5:1", "D5:9"], ["S5"]),
    (["D10:2"], ["S1", "S10"]),
    (["D1:2"], ["S1", "D1:2"]),  # first id decides the mode; "D1:2"[1:] is "1:2"
    (["D2:1"], ["D2:1", "S2"]),  # first id is a turn: string match only
    (["D2:1", "D3:4"], ["D9:9", "D8:8"]),
]


def recall(evidence, context):
    if context is not None and len(evidence) > 0:
        if context[0].startswith("S"):
            sessions = [c[1:] for c in context]
            return float(sum([ev.split(":")[0][1:] in sessions for ev in evidence])) / len(evidence)
        return float(sum([ev in context for ev in evidence])) / len(evidence)
    return 1.0


def main():
    cases = [
        {"evidence": ev, "context": ctx, "recall": recall(ev, ctx)} for ev, ctx in CASES
    ]
    golden = {
        "generator": "scripts/golden/generate-locomo-recall.py",
        "reference": "snap-research/locomo task_eval/evaluation.py eval_question_answering",
        "cases": cases,
        "mean": sum(c["recall"] for c in cases) / len(cases),
    }
    OUT.write_text(json.dumps(golden, indent=1) + "\n")


if __name__ == "__main__":
    main()
