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
    (numpy): recall_any, recall_all and ndcg_any at turn and session level, over seeded random
    rankings of a corpus built by src/retrieval/run_retrieval.py's own process_item_flat_index
    (that one function is read out of the file with ast; the module imports torch), with
    run_retrieval.py's exclusions replayed (no user has_answer turn: no value); and over the
    ranking the `test-recency` test memory returns on tests/fixtures/longmemeval/retrieval.json
    (`retrievalRun`: its whole ranking, as run_retrieval.py ranks the whole corpus, with its
    averaging; `retrievalRunCapped`: the same memory returning at most RETRIEVAL_CAP items, and
    which questions the reference would read past them), which the end-to-end test runs;
  * src/generation/run_generation.py prepare_prompt (read with ast; the module imports tiktoken and
    transformers), on tests/fixtures/longmemeval/reader.json: flat-turn retrieval (top 3 of a
    seeded ranking of the user-turn corpus) read with `con` (the default) and `direct`, and the
    full history (orig-session) with `con`; json history, assistant turns kept; and `con-separate`
    (con=True: a note request per retrieved round to a scripted stand-in client, then `con`
    over the notes) over the `test-recency` memory's ranking;
  * src/evaluation/print_qa_metrics.py run as a script (numpy) on made-up judge labels, its printed
    per-type, task-averaged, overall and abstention accuracies parsed back.
The turn ids are written beside the workbench's (`D<session>:<turn>`) so the tests can score the
same rankings.
"""

import argparse
import json
import random
import re
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


def load_function(path, name, namespace=None):
    """One top-level function of a module whose imports (torch, transformers) are not installed."""
    import ast

    tree = ast.parse(Path(path).read_text(encoding="utf-8"))
    node = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == name)
    namespace = dict(namespace or {})
    exec(compile(ast.Module(body=[node], type_ignores=[]), str(path), "exec"), namespace)
    return namespace[name]


def recall_cases(eval_utils, process_item_flat_index, seed=17, count=60):
    """Haystacks of user and assistant turns; the corpus and its ids come from the reference's
    process_item_flat_index (turn granularity), the metrics from eval_utils, and the exclusions
    replay run_retrieval.py's main (abstention ids and questions without a user has_answer turn)."""
    rng = random.Random(seed)
    cases = []
    for _ in range(count):
        sessions = rng.randint(2, 6)
        corpus_ids, ours, user_ids, haystack = [], [], [], []
        for s in range(1, sessions + 1):
            answer_session = rng.random() < 0.45
            name = f"answer_{s:03d}" if answer_session else f"sharegpt_{s:03d}"
            turns = []
            for t in range(rng.randint(1, 6)):
                role = "user" if t % 2 == 0 else "assistant"
                has_answer = answer_session and rng.random() < 0.4
                turn = {"role": role, "content": f"turn {s}.{t + 1}"}
                if answer_session:
                    turn["has_answer"] = has_answer
                turns.append(turn)
                ours.append({"id": f"D{s}:{t + 1}", "role": role, "hasAnswer": has_answer})
            haystack.append(turns)
            _, ids, _ = process_item_flat_index(turns, "turn", name, "2023/05/20 (Sat) 02:21")
            corpus_ids += ids
            user_ids += [f"D{s}:{t + 1}" for t, turn in enumerate(turns) if turn["role"] == "user"]
        correct_docs = list(set(c for c in corpus_ids if "answer" in c))
        # run_retrieval.py main: skipped when no user turn has has_answer (abstention ids likewise).
        no_target = not any(
            ("has_answer" in turn) and turn["has_answer"]
            for turn in [x for y in haystack for x in y if x["role"] == "user"]
        )
        rankings = list(range(len(corpus_ids)))
        rng.shuffle(rankings)
        ranked_users = [user_ids[i] for i in rankings]
        # The workbench's ranking also holds assistant turns, which the reference's corpus lacks.
        assistants = [t["id"] for t in ours if t["role"] == "assistant"]
        ranked = list(ranked_users)
        for a in assistants:
            ranked.insert(rng.randint(0, len(ranked)), a)
        case = {"turns": ours, "ranked": ranked, "excluded": no_target, "byK": []}
        for k in (1, 3, 5, 10):
            scores = {"k": k}
            if not no_target:
                turn = eval_utils.evaluate_retrieval(rankings, correct_docs, corpus_ids, k=k)
                session = eval_utils.evaluate_retrieval_turn2session(rankings, correct_docs, corpus_ids, k=k)
                scores["turn"] = dict(zip(("recallAny", "recallAll", "ndcgAny"), map(float, turn)))
                scores["session"] = dict(zip(("recallAny", "recallAll", "ndcgAny"), map(float, session)))
            case["byK"].append(scores)
        cases.append(case)
    return cases


READER_FILE = ROOT / "tests" / "fixtures" / "longmemeval" / "reader.json"
# run_generation.sh: READING_METHOD con -> --cot true (the default), direct -> --cot false;
# HISTORY_FORMAT json and USERONLY false are its defaults.
READERS = [
    ("longmemeval", "flat-turn", True),
    ("longmemeval-direct", "flat-turn", False),
    ("longmemeval-full-context", "orig-session", True),
]
READER_TOP_K = 3


class NoTruncation:
    """tiktoken's stand-in: prepare_prompt only counts tokens to cut a history over ~127k."""

    def encode(self, text, allowed_special=None):
        return [0]


def reader_cases(prepare_prompt, process_item_flat_index, seed=5):
    """prepare_prompt on each question of the hand-made reader.json: flat-turn over a seeded
    ranking of the user-turn corpus run_retrieval.py builds, and the full history."""
    import copy

    rng = random.Random(seed)
    cases = []
    for entry in json.loads(READER_FILE.read_text(encoding="utf-8")):
        corpus_ids = []
        for sess_id, session, date in zip(entry["haystack_session_ids"], entry["haystack_sessions"], entry["haystack_dates"]):
            corpus_ids += process_item_flat_index(session, "turn", sess_id, date)[1]
        ranked = list(corpus_ids)
        rng.shuffle(ranked)
        for protocol, retriever_type, cot in READERS:
            item = copy.deepcopy(entry)  # prepare_prompt pops has_answer out of the turns
            item["retrieval_results"] = {"ranked_items": [{"corpus_id": c, "text": ""} for c in ranked]}
            top_k = READER_TOP_K if retriever_type == "flat-turn" else 1000
            prompt = prepare_prompt(
                item, retriever_type, top_k, False, "json", cot, NoTruncation(), "openai", 10**9, "none"
            )
            cases.append({
                "questionId": entry["question_id"],
                "protocol": protocol,
                # The reference's corpus ids, best first; the tests map them to the workbench's turns.
                "ranked": ranked[:top_k] if retriever_type == "flat-turn" else [],
                "prompt": prompt,
            })
    return cases


class ScriptedNotes:
    """con_client's stand-in for the `con-separate` reading method: records each note request
    and answers it with a scripted note (padded and holding braces and quotes, so the test sees
    the reference strip it and json-encode it)."""

    def __init__(self):
        self.requests = []
        self.chat = types.SimpleNamespace(completions=types.SimpleNamespace(create=self.create))

    def create(self, **kwargs):
        reply = f"  Note {len(self.requests) + 1}: the user said {{\"x\"}} \u00e0 propos.\n"
        self.requests.append({"kwargs": kwargs, "reply": reply})
        message = types.SimpleNamespace(content=reply)
        return types.SimpleNamespace(choices=[types.SimpleNamespace(message=message)])


def con_separate_cases(prepare_prompt):
    """prepare_prompt with con=True (run_generation.sh's `con-separate`: --cot true --con true) on
    reader.json, flat-turn over the ranking the `test-recency` test memory returns at top-k
    READER_TOP_K (every turn, assistant ones included), so tests/integration's `cli experiment`
    run retrieves the same turns: the note requests it sends, their scripted replies and the
    final prompt."""
    import copy

    cases = []
    for entry in json.loads(READER_FILE.read_text(encoding="utf-8")):
        ranked = [ours_to_reference(entry, d) for d in recency_ranking(entry, READER_TOP_K)]
        item = copy.deepcopy(entry)
        item["retrieval_results"] = {"ranked_items": [{"corpus_id": c, "text": ""} for c in ranked]}
        client = ScriptedNotes()
        prompt = prepare_prompt(
            item, "flat-turn", READER_TOP_K, False, "json", True, NoTruncation(), "openai", 10**9, "none",
            con=True, con_client=client, con_model="fake-reader",
        )
        cases.append({
            "questionId": entry["question_id"],
            "protocol": "longmemeval-con-separate",
            "ranked": ranked,
            "notes": [
                {
                    "prompt": r["kwargs"]["messages"][-1]["content"],
                    "maxTokens": r["kwargs"]["max_tokens"],
                    "temperature": r["kwargs"]["temperature"],
                    "reply": r["reply"],
                }
                for r in client.requests
            ],
            "prompt": prompt,
        })
    return cases


RETRIEVAL_FILE = ROOT / "tests" / "fixtures" / "longmemeval" / "retrieval.json"
RETRIEVAL_TOP_K = 3


def time_order(entry):
    """The haystack's session indices in the order the workbench inserts them and numbers its
    turn ids (`D<position>:<turn>`): by date, stably, sessions without a readable date last."""
    from datetime import datetime

    def parsed(i):
        text = re.sub(r"\s*\(\w+\)\s*", " ", entry["haystack_dates"][i]).strip()
        try:
            return datetime.strptime(text, "%Y/%m/%d %H:%M")
        except ValueError:
            return None

    dates = [parsed(i) for i in range(len(entry["haystack_sessions"]))]
    return sorted(range(len(dates)), key=lambda i: (dates[i] is None, dates[i] or datetime.min))


def ours_to_reference(entry, turn_id):
    """`D<position>:<turn>` as the reference's corpus id `<session id>_<turn>`."""
    position, turn = turn_id[1:].split(":")
    return f"{entry['haystack_session_ids'][time_order(entry)[int(position) - 1]]}_{turn}"


def recency_ranking(entry, top_k):
    """The ranking tests/fixtures/experiment/test-presets.ts's `test-recency` memory returns (the
    turns sharing most question words, ties by recency; every turn, assistant ones included), in
    the workbench's turn ids. The end-to-end test checks the run retrieved exactly this."""
    words = set(re.findall(r"[a-z0-9]+", entry["question"].lower()))
    turns = []
    for s, index in enumerate(time_order(entry)):
        for t, turn in enumerate(entry["haystack_sessions"][index]):
            text = f"{turn['role']}: {turn['content']}".lower()
            turns.append((f"D{s + 1}:{t + 1}", sum(w in words for w in re.findall(r"[a-z0-9]+", text))))
    order = sorted(range(len(turns)), key=lambda i: (-turns[i][1], -i))
    return [turns[i][0] for i in order[:top_k]]


# The end-to-end test's second run: `test-recency` capped at this many items per retrieve.
RETRIEVAL_CAP = 4


def retrieval_run_case(eval_utils, process_item_flat_index, cap=None):
    """LongMemEval's retrieval metrics of a run over tests/fixtures/longmemeval/retrieval.json with
    the `test-recency` memory at top-k RETRIEVAL_TOP_K, as run_retrieval.py reports them: eval_utils
    over the memory's whole ranking (every turn it holds, assistant ones included, which the
    reference's user-turn corpus from process_item_flat_index skips), with run_retrieval.py's
    averaging and exclusions (abstention, no user has_answer turn). With `cap`, the memory returns
    at most `cap` items, so eval_utils gets that ranking; `short` says the reference's reading at
    k went past it (fewer than k corpus turns ranked for the turn level, or evaluate_retrieval_turn2session's
    effective k past the ranking's end), so the run must label the figure a lower bound."""
    questions = []
    for entry in json.loads(RETRIEVAL_FILE.read_text(encoding="utf-8")):
        corpus_ids = []
        for sess_id, session, date in zip(
            entry["haystack_session_ids"], entry["haystack_sessions"], entry["haystack_dates"]
        ):
            corpus_ids += process_item_flat_index(session, "turn", sess_id, date)[1]
        # The reference's corpus order, in the workbench's turn ids.
        position = {index: s + 1 for s, index in enumerate(time_order(entry))}
        ours = [
            f"D{position[i]}:{t + 1}"
            for i, session in enumerate(entry["haystack_sessions"])
            for t, turn in enumerate(session)
            if turn["role"] == "user"
        ]
        whole = recency_ranking(entry, 10**9)
        ranked = recency_ranking(entry, min(RETRIEVAL_TOP_K, cap or RETRIEVAL_TOP_K))
        scored = whole if cap is None else recency_ranking(entry, cap)
        rankings = [ours.index(i) for i in scored if i in ours]
        correct_docs = list(set(c for c in corpus_ids if "answer" in c))
        excluded = "_abs" in entry["question_id"] or not any(
            turn.get("has_answer") for session in entry["haystack_sessions"] for turn in session if turn["role"] == "user"
        )
        scores, short = None, False
        if not excluded:
            k = RETRIEVAL_TOP_K
            turn = eval_utils.evaluate_retrieval(rankings, correct_docs, corpus_ids, k=k)
            session = eval_utils.evaluate_retrieval_turn2session(rankings, correct_docs, corpus_ids, k=k)
            scores = {
                "turn": dict(zip(("recallAny", "recallAll", "ndcgAny"), map(float, turn))),
                "session": dict(zip(("recallAny", "recallAll", "ndcgAny"), map(float, session))),
            }
            if len(rankings) < len(corpus_ids):
                # evaluate_retrieval_turn2session's own widening, replayed on this ranking.
                sessions = ["_".join(c.split("_")[:-1]) for c in corpus_ids]
                effective_k = k
                while effective_k <= len(sessions) and len(set(sessions[i] for i in rankings[:effective_k])) < k:
                    effective_k += 1
                short = len(rankings) < k or effective_k > len(rankings)
        questions.append({"questionId": entry["question_id"], "ranked": ranked, "scores": scores, "short": short})
    import numpy as np

    kept = [q["scores"] for q in questions if q["scores"] is not None]
    averaged = {
        level: {m: float(np.mean([q[level][m] for q in kept])) for m in ("recallAny", "recallAll", "ndcgAny")}
        for level in ("turn", "session")
    }
    return {
        "topK": RETRIEVAL_TOP_K,
        **({"cap": cap} if cap is not None else {}),
        "questions": questions,
        "averaged": averaged,
        "n": len(kept),
        "lowerBound": sum(q["short"] for q in questions),
    }


def print_qa_metrics(repo, rev, tmp, questions):
    """print_qa_metrics.py run as a script on judge labels; its printed figures parsed back out."""
    import re

    script = checkout(repo, rev, "src/evaluation/print_qa_metrics.py", tmp)
    ref = Path(tmp) / "ref.json"
    ref.write_text(json.dumps([{"question_id": q["questionId"], "question_type": q["questionType"]} for q in questions]))
    hyp = Path(tmp) / "hyp.jsonl"
    hyp.write_text("".join(
        json.dumps({"question_id": q["questionId"], "autoeval_label": {"model": "gpt-4o-2024-08-06", "label": q["label"]}}) + "\n"
        for q in questions
    ))
    printed = subprocess.run(
        [sys.executable, str(script), str(hyp), str(ref)], check=True, capture_output=True, text=True
    ).stdout
    by_type = {m[0]: {"mean": float(m[1]), "n": int(m[2])} for m in re.findall(r"\t(\S+): (\S+) \((\d+)\)", printed)}
    number = lambda label: float(re.search(label + r": (\S+)", printed).group(1))
    return {
        "questions": questions,
        "printed": printed,
        "byType": by_type,
        "taskAveraged": number("Task-averaged Accuracy"),
        "overall": number("Overall Accuracy"),
        "abstention": number("Abstention Accuracy"),
    }


def qa_metrics_case(repo, rev, tmp, seed=3):
    """Made-up judge labels: each type with answerable and `_abs` questions."""
    rng = random.Random(seed)
    questions = []
    for t, task in enumerate(TYPES):
        for i in range(rng.randint(2, 6)):
            abstention = i < rng.randint(0, 2)
            qid = f"q{t}_{i}" + ("_abs" if abstention else "")
            questions.append({"questionId": qid, "questionType": task, "label": rng.random() < 0.6})
    return print_qa_metrics(repo, rev, tmp, questions)


# The reply the fake reader gives every question of reader.json, and the questions its fake judge
# says yes to: the end-to-end test (tests/integration/longmemeval-parity-cli.test.ts) scripts both.
READER_REPLY = "It was Caf\u00e9 \u00c9mile, {I think}."
JUDGED_YES = {"r_user_1", "r_assistant_3", "r_user_4_abs", "r_multi_6"}


def reader_run_case(evaluate_qa, repo, rev, tmp):
    """The judge prompts get_anscheck_prompt writes for reader.json's questions answered
    READER_REPLY, and print_qa_metrics.py's figures for the fake judge's labels."""
    entries = json.loads(READER_FILE.read_text(encoding="utf-8"))
    judge = []
    for e in entries:
        judge.append({
            "questionId": e["question_id"],
            "prompt": evaluate_qa.get_anscheck_prompt(
                e["question_type"], e["question"], e["answer"], READER_REPLY, abstention="_abs" in e["question_id"]
            ),
            "label": e["question_id"] in JUDGED_YES,
        })
    questions = [
        {"questionId": e["question_id"], "questionType": e["question_type"], "label": e["question_id"] in JUDGED_YES}
        for e in entries
    ]
    return {"reply": READER_REPLY, "judge": judge, "qaMetrics": print_qa_metrics(repo, rev, tmp, questions)}


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
        process_item_flat_index = load_function(
            checkout(args.repo, rev, "src/retrieval/run_retrieval.py", tmp), "process_item_flat_index"
        )
        prepare_prompt = load_function(
            checkout(args.repo, rev, "src/generation/run_generation.py", tmp),
            "prepare_prompt",
            # The module's backoff wrapper around client.chat.completions.create, without the retry.
            {"json": json, "chat_completions_with_backoff": lambda client, **kwargs: client.chat.completions.create(**kwargs)},
        )
        out = {
            "source": f"xiaowu0162/LongMemEval@{rev}",
            "judgePrompts": prompt_cases(evaluate_qa),
            "recall": recall_cases(eval_utils, process_item_flat_index),
            "readerPrompts": reader_cases(prepare_prompt, process_item_flat_index),
            "conSeparate": con_separate_cases(prepare_prompt),
            "qaMetrics": qa_metrics_case(args.repo, rev, tmp),
            "readerRun": reader_run_case(evaluate_qa, args.repo, rev, tmp),
            "retrievalRun": retrieval_run_case(eval_utils, process_item_flat_index),
            "retrievalRunCapped": retrieval_run_case(eval_utils, process_item_flat_index, RETRIEVAL_CAP),
        }
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(out, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {OUT} ({len(out['judgePrompts'])} prompts, {len(out['recall'])} recall cases)")


if __name__ == "__main__":
    main()
