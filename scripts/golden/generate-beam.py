#!/usr/bin/env python3
"""Regenerate tests/fixtures/golden/beam.json from BEAM's own code.

    /usr/bin/python3 scripts/golden/generate-beam.py \
        --repo /work/.mirror/mohammadtavakoli78+BEAM/repo [--rev b2a3ee8] \
        --json-repair /work/.mirror/mangiucugna+json_repair/repo [--json-repair-rev v0.44.1]

Fetch both references first (git mirrors of mohammadtavakoli78/BEAM and mangiucugna/json_repair,
the version BEAM's requirements.txt pins). Files are checked out with `git show <rev>:<path>` into
a temporary directory and imported from there (nothing is copied into this repository):
  * src/evaluation/compute_metrics.py with src/prompts.py: every `evaluate_<ability>` driven by a
    fake LLM that records each request (messages as langchain sends them: a string prompt is one
    user message) and answers from a script of judge replies (fenced, prose around the JSON,
    braces in the reason, trailing commas, truncated, partial scores, string scores, lists, no
    score), so the prompts, the call order, the parsed replies and the scores are the reference's;
    `event_ordering_score` and scipy's `kendalltau(variant="b")` on tied ranks;
  * json_repair 0.44.1's `repair_json` on its own, through the reference's reader;
  * src/evaluation/report_results.py `report_llms_accuracies` over evaluation files written in
    its layout (chat folders sorted as integers), its DataFrame captured instead of the Excel file;
  * src/answer_probing_questions/long_term_memory_methods.py `create_chunking` and
    `handling_context` (read with ast: the module imports torch, faiss and langchain), turn_chunk,
    and `answer_generation_for_rag` filled as `probing_question_evaluation` fills it.
Stubbed imports (not installable here, unused by the functions called): nltk, rouge_score,
sentence_transformers (compute_metrics' BLEU/ROUGE/semantic helpers), src.llm (langchain_openai:
the fake LLM stands in for its `gpt_llm`), and pandas' Excel writer (openpyxl).
"""

import argparse
import ast
import json
import math
import random
import subprocess
import sys
import tempfile
import types
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "tests" / "fixtures" / "golden" / "beam.json"
ABILITIES = [
    "abstention",
    "contradiction_resolution",
    "event_ordering",
    "information_extraction",
    "instruction_following",
    "knowledge_update",
    "multi_session_reasoning",
    "preference_following",
    "summarization",
    "temporal_reasoning",
]


def checkout(repo, rev, path, into, dest_path=None):
    text = subprocess.run(
        ["git", "-C", repo, "show", f"{rev}:{path}"], check=True, capture_output=True
    ).stdout
    dest = Path(into) / (dest_path or path)
    dest.parent.mkdir(parents=True, exist_ok=True)
    dest.write_bytes(text)
    return dest


def stub_modules():
    nltk = types.ModuleType("nltk")
    nltk.download = lambda *a, **k: True
    translate = types.ModuleType("nltk.translate")
    bleu = types.ModuleType("nltk.translate.bleu_score")
    bleu.sentence_bleu = None
    bleu.SmoothingFunction = None
    rouge = types.ModuleType("rouge_score")
    rouge.rouge_scorer = None
    st = types.ModuleType("sentence_transformers")
    st.SentenceTransformer = None
    st.util = None
    llm = types.ModuleType("src.llm")
    llm.gpt_llm = None
    sys.modules.update({
        "nltk": nltk,
        "nltk.translate": translate,
        "nltk.translate.bleu_score": bleu,
        "rouge_score": rouge,
        "sentence_transformers": st,
        "src.llm": llm,
    })


class FakeLLM:
    """langchain's ChatOpenAI as the reference calls it: invoke(str | list[dict]) -> .content."""

    def __init__(self, judge_replies):
        self.judge_replies = list(judge_replies)
        self.calls = []

    def invoke(self, prompt):
        messages = [{"role": "user", "content": prompt}] if isinstance(prompt, str) else prompt
        if isinstance(prompt, str) and prompt.lstrip().startswith("You are tasked with breaking"):
            kind = "extract-facts"
            reply = "1. A fact the reference discards\n2. Another"
        elif not isinstance(prompt, str):
            kind = "equivalence"
            reply = equivalence_reply(messages[1]["content"])
        else:
            kind = "judge"
            reply = self.judge_replies.pop(0)
        self.calls.append({"kind": kind, "messages": messages, "reply": reply})
        return types.SimpleNamespace(content=reply)


def equivalence_reply(user):
    first = user.split("First snippet: ", 1)[1].split(" \n\n", 1)[0]
    second = user.split("Second snippet: ", 1)[1]
    key = first.split()[0].lower() if first.split() else ""
    # Deterministic and varied: "YES" when the line holds the item's first word; some replies
    # carry "yes" only inside another word, as the reference's substring test counts it.
    if key and key in second.lower():
        return "YES"
    return "No (eyes closed)" if "eyes" in second else "NO"


JUDGE_REPLIES = [
    '{"score": 1.0, "reason": "present"}',
    '```json\n{"score": 0.5, "reason": "partly"}\n```',
    'Here is my evaluation: {"score": 0.0, "reason": "missing"} Hope it helps.',
    '{"score": 1, "reason": "a {nested} brace"}',
    'Result: {"score": 0.5, "reason": "uses {braces} inside"}',
    '{"score": 1.0, "reason": "trailing comma",}',
    '{"score": 0.5, "reason": "cut off mid sentence   ',
    '```\n{"score": 1.0, "reason": "fence without a language"}\n```',
    '```json\n{"score": 0.0, "reason": "fenced, trailing comma",}\n```',
    '{"score": "1", "reason": "a string score"}',
    '  \n{"score": 0.5}\n\n',
    '{"score": true, "reason": "a boolean"}',
]

CRASHING_REPLIES = [
    '[{"score": 1.0, "reason": "a list"}]',
    '{"reason": "no score"}',
    "I cannot evaluate this.",
    '{"score": "0.5", "reason": "a string int() refuses"}',
    '{"score": null}',
]


def question_cases(rng):
    cases = []
    for n, ability in enumerate(ABILITIES):
        for variant in range(2):
            size = rng.randint(1, 4)
            rubric = [f"Item {ability} {n}.{variant}.{i}: mentions <llm_response> or {{x}}" if i == 0 and variant else f"Item {ability} {n}.{variant}.{i} states the fact {rng.randint(1, 99)}" for i in range(size)]
            replies = [rng.choice(JUDGE_REPLIES) for _ in range(size)]
            response = f"Answer about {ability} with $1 and \\1 and <question>.\nSecond line."
            if ability == "event_ordering":
                lines = [f"{r.split()[0]} {r.split()[1]} {i}" for i, r in enumerate(rubric)]
                rng.shuffle(lines)
                lines.insert(rng.randint(0, len(lines)), "")
                lines.append("an extra line, eyes open")
                if variant:
                    lines.append(lines[0])
                response = "\n".join(lines)
            cases.append({"ability": ability, "question": f"What about {ability}? (<rubric_item>)", "rubric": rubric, "response": response, "replies": replies})
    for i, reply in enumerate(CRASHING_REPLIES):
        ability = "event_ordering" if i == 3 else ABILITIES[i]
        cases.append({"ability": ability, "question": "q", "rubric": ["Item one states x"], "response": "Item one", "replies": [reply]})
    cases.append({"ability": "summarization", "question": "q", "rubric": ["Item a", "Item b"], "response": "r", "replies": ['{"score": 0.5}', CRASHING_REPLIES[0]]})
    return cases


def run_question(cm, case):
    llm = FakeLLM(case["replies"])
    fn = getattr(cm, f"evaluate_{case['ability']}")
    try:
        result = fn(rubric=case["rubric"], llm_response=case["response"], probing_question=case["question"], model=llm)
        out = {"raises": False, "result": result}
    except Exception as error:  # the reference's evaluation stops here
        out = {"raises": True, "error": type(error).__name__}
    return {**{k: case[k] for k in ("ability", "question", "rubric", "response")}, **out, "calls": llm.calls}


def tau_cases(rng, kendalltau):
    cases = []
    for _ in range(80):
        n = rng.randint(1, 9)
        x = [rng.randint(1, max(1, n // 2 + 1)) for _ in range(n)]
        y = [rng.randint(1, n + 1) for _ in range(n)]
        tau = kendalltau(x, y, variant="b").statistic
        cases.append({"x": x, "y": y, "tau": None if math.isnan(tau) else float(tau)})
    return cases


def ordering_cases(rng, cm):
    cases = []
    items = ["alpha", "beta", "gamma", "delta", "eps"]
    for _ in range(40):
        ref = rng.sample(items, rng.randint(1, 5))
        sys_list = [rng.choice(items + ["zeta", "eta", ""]) for _ in range(rng.randint(0, 6))]
        llm = types.SimpleNamespace(invoke=lambda m: types.SimpleNamespace(content="YES" if m[1]["content"].split("First snippet: ")[1].split(" ")[0] == m[1]["content"].split("Second snippet: ")[1].split("\n")[0] else "no"))
        try:
            score = cm.event_ordering_score(reference_list=ref, system_list=sys_list, align_type="llm", llm=llm)
            score = {k: (None if isinstance(v, float) and math.isnan(v) else float(v)) for k, v in score.items()}
        except Exception as error:
            score = {"raises": type(error).__name__}
        cases.append({"reference": ref, "system": sys_list, "score": score})
    return cases


REPAIR_INPUTS = JUDGE_REPLIES + CRASHING_REPLIES + [
    '{"score": 1.0, "reason": "two objects"} {"score": 0.0}',
    "{'score': 1.0, 'reason': 'single quotes'}",
    '{score: 1.0}',
    'Score below\n{"score": 0.5, "reason": "unclosed {brace"',
    '{"score": 0.5, "reason": "tab\tinside"}',
    '{"score": 1.0, "reason": "escaped \\"quote\\""}',
    'prefix {"score": 1.0, "reason": "nested {a: [1, 2]}", "extra": [1, 2,]} suffix',
    '{"score": 1.0, "items": [1, 2, 3',
    '{"score": -0.0}',
    '{"score": 1e0}',
    'Text {"score": 1, "reason": "x}y"} more',
    '{"score": 1.0, "reason": "line1\nline2"}'.replace("\\n", "\n"),
    '{"score": 1.0, "reason": "raw\nnewline", }',
    '{"score": 0.0, "reason": "ends with a comma, then more',
    '{"score": 0.5, "reason": "a brace } inside, unclosed',
    '{"score": 1.0, "reason": "ok"}}',
    '{"score": 1.0, "reason": "a", "notes": [1, 2',
    '{"score": 1.0 "reason": "missing comma"}',
    '{"score": .5}',
    'Score: {"score": 1.0, "reason": "colon: inside", "x": {"y": [true, null,]}',
    '{"score": 1.0, "reason": "unicode \u00e9 escape",}',
    '{"score": 0.5, "reason": "café — naïve",}',
    '{"score": 1.0,\n "reason": "multi\nline",\n}',
]


def repair_cases(cm):
    cases = []
    for reply in REPAIR_INPUTS:
        response = reply.strip()
        try:
            try:
                value = cm.parse_json_response(response=response)
                via = "parse_json_response"
            except Exception:
                value = json.loads(cm.repair_json(response))
                via = "repair_json"
            cases.append({"reply": reply, "via": via, "value": value})
        except Exception as error:
            cases.append({"reply": reply, "raises": type(error).__name__})
    return cases


def report_case(report_results, question_results, rng, tmp):
    import pandas

    captured = {}
    pandas.DataFrame.to_excel = lambda self, path, index=False: captured.update(frame=self, path=path)
    root = Path(tmp) / "results"
    chats = ["1", "2", "10"]
    files = {}
    for chat in chats:
        data = {}
        for ability in ABILITIES:
            objects = []
            for _ in range(rng.randint(1, 3)):
                pool = [r for r in question_results if r["ability"] == ability and not r["raises"]]
                base = dict(rng.choice(pool)["result"]) if pool and rng.random() < 0.5 else {"llm_judge_score": rng.choice([0, 0.25, 0.5, 1 / 3, 2 / 3, 1.0])}
                if ability == "event_ordering" and "tau_norm" not in base:
                    base["tau_norm"] = rng.choice([0.0, 0.5, 0.7071067811865476, 1.0])
                objects.append({k: base[k] for k in ("llm_judge_score", "tau_norm") if k in base})
            data[ability] = objects
        (root / chat).mkdir(parents=True, exist_ok=True)
        (root / chat / "evaluation-results-run.json").write_text(json.dumps(data))
        files[chat] = data
    report_results.report_llms_accuracies(str(root), ["evaluation-results-run.json"], "out.xlsx")
    frame = captured["frame"]
    row = [float(frame.iloc[0][a]) for a in ABILITIES]
    return {"chats": [files[c] for c in chats], "row": row, "columns": list(frame.columns)}


def load_function(path, name, namespace):
    tree = ast.parse(Path(path).read_text(encoding="utf-8"))
    node = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == name)
    exec(compile(ast.Module(body=[node], type_ignores=[]), str(path), "exec"), namespace)
    return namespace[name]


def answer_cases(methods_path, prompts):
    ns = {}
    create_chunking = load_function(methods_path, "create_chunking", ns)
    handling_context = load_function(methods_path, "handling_context", ns)
    chat = [
        {"turns": [[{"role": "user", "content": "I use <question> tags and $1."}, {"role": "assistant", "content": "Noted."}], [{"role": "user", "content": "Second turn"}, {"role": "assistant", "content": "Reply two"}]]},
        {"turns": [[{"role": "user", "content": "Batch two\nwith a newline"}, {"role": "assistant", "content": "OK"}]]},
    ]
    chunks, _, _ = create_chunking(messages=chat, chat_size="100K", retrieval_method="turn_chunk", scratchpad_save_address="", qwen_llm=None, gpt_llm=None)
    cases = []
    for order in ([2, 0], [0, 1, 2], []):
        docs = [types.SimpleNamespace(page_content=chunks[i]["text"]) for i in order]
        context = handling_context(retrieval_method="turn_chunk", result=docs, chunks=chunks, short_term_chunks=None, original_texts=[], scratch_pad="", saved_retriever=None, query="q", qwen_llm=None)
        question = "What did I say about <context> tags?"
        # probing_question_evaluation (rag): the two replaces, in this order.
        prompt = prompts.answer_generation_for_rag.replace("<context>", context).replace("<question>", question)
        cases.append({"turns": [chat[chunks[i]["metadata"]["batch_number"]]["turns"][chunks[i]["metadata"]["turn_number"]] for i in order], "question": question, "context": context, "prompt": prompt})
    return cases


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--repo", default="/work/.mirror/mohammadtavakoli78+BEAM/repo")
    parser.add_argument("--rev", default="b2a3ee8")
    parser.add_argument("--json-repair", default="/work/.mirror/mangiucugna+json_repair/repo")
    parser.add_argument("--json-repair-rev", default="v0.44.1")
    args = parser.parse_args()
    from scipy.stats import kendalltau

    with tempfile.TemporaryDirectory() as tmp:
        for path in ["src/__init__.py", "src/evaluation/__init__.py", "src/evaluation/compute_metrics.py", "src/evaluation/report_results.py", "src/prompts.py", "src/answer_probing_questions/long_term_memory_methods.py"]:
            checkout(args.repo, args.rev, path, tmp)
        for name in ["__init__.py", "json_parser.py", "json_repair.py", "json_context.py", "object_comparer.py", "string_file_wrapper.py"]:
            checkout(args.json_repair, args.json_repair_rev, f"src/json_repair/{name}", tmp, f"json_repair/{name}")
        sys.path.insert(0, tmp)
        stub_modules()
        import src.evaluation.compute_metrics as cm
        import src.evaluation.report_results as report_results
        import src.prompts as prompts

        rng = random.Random(36)
        questions = [run_question(cm, c) for c in question_cases(rng)]
        golden = {
            "reference": {"repo": "mohammadtavakoli78/BEAM", "rev": args.rev, "json_repair": args.json_repair_rev},
            "prompts": {"judge": prompts.unified_llm_judge_base_prompt, "facts": prompts.break_paragraph_to_facts_detailed_prompt, "rag": prompts.answer_generation_for_rag},
            "questions": questions,
            "tau": tau_cases(rng, kendalltau),
            "ordering": ordering_cases(rng, cm),
            "repair": repair_cases(cm),
            "report": report_case(report_results, questions, rng, tmp),
            "answer": answer_cases(Path(tmp) / "src/answer_probing_questions/long_term_memory_methods.py", prompts),
        }

    def clean(value):
        if isinstance(value, float) and math.isnan(value):
            return None
        if isinstance(value, dict):
            return {k: clean(v) for k, v in value.items()}
        if isinstance(value, list):
            return [clean(v) for v in value]
        return value

    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(clean(golden), indent=1, ensure_ascii=False, allow_nan=False) + "\n", encoding="utf-8")
    print(f"wrote {OUT.relative_to(ROOT)}: {len(questions)} questions, {len(golden['tau'])} tau, {len(golden['repair'])} repair cases")


if __name__ == "__main__":
    main()
