#!/usr/bin/env python3
"""Regenerate tests/fixtures/golden/longmemeval.json from LongMemEval's own code.

    /usr/bin/python3 scripts/golden/generate-longmemeval.py \
        [--repo /work/.mirror/xiaowu0162+LongMemEval/repo] [--rev HEAD]

Fetch the reference first (a git mirror of xiaowu0162/LongMemEval). Each file is checked out with
`git show <rev>:<path>` into a temporary directory and run there (nothing is copied into this
repository):
  * src/evaluation/evaluate_qa.py   get_anscheck_prompt, imported with backoff, openai and tqdm
    stubbed in sys.modules (its __main__ block does not run), called for every question type,
    with and without abstention, on values holding braces and newlines;
  * src/retrieval/eval_utils.py      evaluate_retrieval and evaluate_retrieval_turn2session
    (numpy), on turn ids built as run_retrieval.py's process_item_flat_index builds them
    (`<session>_<turn>`, answer-session turns without has_answer renamed `noans`), over seeded
    random rankings.
The turn ids are written beside the workbench's (`D<session>:<turn>`) so the tests can score the
same rankings.
"""

import argparse
import json
import random
import subprocess
import sys
import tempfile
import types
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "tests" / "fixtures" / "golden" / "longmemeval.json"
TYPES = [
    "single-session-user",
    "single-session-assistant",
    "single-session-preference",
    "multi-session",
    "knowledge-update",
    "temporal-reasoning",
]


def checkout(repo, rev, path, into):
    text = subprocess.run(
        ["git", "-C", repo, "show", f"{rev}:{path}"], check=True, capture_output=True
    ).stdout
    dest = Path(into) / path
    dest.parent.mkdir(parents=True, exist_ok=True)
    dest.write_bytes(text)
    return dest


def stub_modules():
    backoff = types.ModuleType("backoff")
    backoff.expo = object()
    backoff.on_exception = lambda *a, **k: (lambda f: f)
    openai = types.ModuleType("openai")
    openai.RateLimitError = type("RateLimitError", (Exception,), {})
    openai.APIError = type("APIError", (Exception,), {})
    openai.OpenAI = object
    tqdm = types.ModuleType("tqdm")
    tqdm.tqdm = lambda x, **k: x
    sys.modules.update({"backoff": backoff, "openai": openai, "tqdm": tqdm})


def load(path, name):
    import importlib.util

    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def prompt_cases(evaluate_qa):
    items = [
        ("What degree did I graduate with?", "Business Administration", "You graduated with a degree in Business Administration."),
        ("How many days passed between {the two visits}?", "7 days. 8 days (including the last day) is also acceptable.", "It was {} 7 days\n\nlater."),
    ]
    cases = []
    for task in TYPES:
        for abstention in (False, True):
            for question, answer, response in items:
                cases.append({
                    "task": task,
                    "abstention": abstention,
                    "question": question,
                    "gold": answer,
                    "answer": response,
                    "prompt": evaluate_qa.get_anscheck_prompt(task, question, answer, response, abstention=abstention),
                })
    return cases


def recall_cases(eval_utils, seed=17, count=60):
    rng = random.Random(seed)
    cases = []
    for _ in range(count):
        sessions = rng.randint(2, 6)
        corpus_ids, ours = [], []
        for s in range(1, sessions + 1):
            answer_session = rng.random() < 0.4
            name = f"answer_{s:03d}" if answer_session else f"sharegpt_{s:03d}"
            for t in range(1, rng.randint(1, 4) + 1):
                has_answer = answer_session and rng.random() < 0.5
                cid = f"{name}_{t}"
                if answer_session and not has_answer:
                    cid = cid.replace("answer", "noans")
                corpus_ids.append(cid)
                ours.append({"id": f"D{s}:{t}", "hasAnswer": has_answer})
        correct_docs = list(set(c for c in corpus_ids if "answer" in c))
        if not correct_docs:
            continue
        rankings = list(range(len(corpus_ids)))
        rng.shuffle(rankings)
        for k in (1, 3, 5):
            _, turn_all, _ = eval_utils.evaluate_retrieval(rankings, correct_docs, corpus_ids, k=k)
            # Replays the reference's effective k, to hand the tests the same ranked prefix.
            stripped = ["_".join(c.split("_")[:-1]) for c in corpus_ids]
            effective_k = k
            while effective_k <= len(stripped) and len(set(stripped[i] for i in rankings[:effective_k])) < k:
                effective_k += 1
            _, session_all, _ = eval_utils.evaluate_retrieval_turn2session(rankings, correct_docs, corpus_ids, k=k)
            cases.append({
                "turns": ours,
                "ranked": [ours[i]["id"] for i in rankings],
                "k": k,
                "effectiveK": effective_k,
                "turnRecallAll": turn_all,
                "sessionRecallAll": session_all,
            })
    return cases


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--repo", default="/work/.mirror/xiaowu0162+LongMemEval/repo")
    parser.add_argument("--rev", default="HEAD")
    args = parser.parse_args()
    rev = subprocess.run(
        ["git", "-C", args.repo, "rev-parse", args.rev], check=True, capture_output=True, text=True
    ).stdout.strip()
    stub_modules()
    with tempfile.TemporaryDirectory() as tmp:
        evaluate_qa = load(checkout(args.repo, rev, "src/evaluation/evaluate_qa.py", tmp), "evaluate_qa")
        eval_utils = load(checkout(args.repo, rev, "src/retrieval/eval_utils.py", tmp), "eval_utils")
        out = {
            "source": f"xiaowu0162/LongMemEval@{rev}",
            "judgePrompts": prompt_cases(evaluate_qa),
            "recall": recall_cases(eval_utils),
        }
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(out, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {OUT} ({len(out['judgePrompts'])} prompts, {len(out['recall'])} recall cases)")


if __name__ == "__main__":
    main()
