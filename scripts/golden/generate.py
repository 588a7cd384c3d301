#!/usr/bin/env python3
"""Regenerate the golden fixtures for src-shared/scoring from the Python reference implementations.

    /usr/bin/python3 scripts/golden/generate.py [path/to/locomo10.json]

Needs NLTK (Debian's python3-nltk is enough; no NLTK data downloads are used). Writes
    tests/fixtures/golden/porter.json   word -> nltk PorterStemmer().stem(word)
    tests/fixtures/golden/scores.json   (prediction, gold, category) -> official F1, mem0 F1, BLEU-1

The Vitest suites read only these JSON files, so CI needs neither Python nor NLTK. The output is
deterministic (fixed seed, sorted word lists): rerunning with the same NLTK and dataset rewrites
identical files.

Reference sources reproduced below:
  * LoCoMo task_eval/evaluation.py (snap-research/locomo): normalize_answer, f1_score, f1 and the
    per-category dispatch of eval_question_answering.
  * mem0 evaluation/metrics/utils.py: simple_tokenize, the set F1 of calculate_metrics, and the
    BLEU-1 of calculate_bleu_scores (sentence_bleu, weights (1,0,0,0), SmoothingFunction().method1).
    mem0 tokenises BLEU input with nltk.word_tokenize (NLTK's own NLTKWordTokenizer and Punkt are
    called here; Punkt without NLTK's trained English parameters, see word_tokenize below), and the
    simple_tokenize BLEU-1 the workbench reported before is kept as a variant.

The LoCoMo dataset is CC BY-NC 4.0: the fixtures keep only a capped word list and a few hundred
short gold answers, never conversations.
"""

import hashlib
import json
import random
import re
import string
import sys
from collections import Counter
from pathlib import Path

import nltk
import numpy as np
import regex
from nltk.stem import PorterStemmer
from nltk.tokenize.destructive import NLTKWordTokenizer
from nltk.tokenize.punkt import PunktParameters, PunktSentenceTokenizer
from nltk.translate.bleu_score import SmoothingFunction, sentence_bleu

ROOT = Path(__file__).resolve().parents[2]
OUT_DIR = ROOT / "tests" / "fixtures" / "golden"
DEFAULT_DATASET = Path("/work/shared/datasets/locomo10.json")
MAX_DATASET_WORDS = 3000
SEED = 20250607

ps = PorterStemmer()


# --- LoCoMo task_eval/evaluation.py ---------------------------------------------------------


def normalize_answer(s):
    s = s.replace(",", "")

    def remove_articles(text):
        # The reference uses the `regex` module, whose \w (and so \b) also covers marks, connector
        # punctuation and join controls, unlike `re`.
        return regex.sub(r"\b(a|an|the|and)\b", " ", text)

    def white_space_fix(text):
        return " ".join(text.split())

    def remove_punc(text):
        exclude = set(string.punctuation)
        return "".join(ch for ch in text if ch not in exclude)

    def lower(text):
        return text.lower()

    return white_space_fix(remove_articles(remove_punc(lower(s))))


def f1_score(prediction, ground_truth):
    prediction_tokens = [ps.stem(w) for w in normalize_answer(prediction).split()]
    ground_truth_tokens = [ps.stem(w) for w in normalize_answer(ground_truth).split()]
    common = Counter(prediction_tokens) & Counter(ground_truth_tokens)
    num_same = sum(common.values())
    if num_same == 0:
        return 0
    precision = 1.0 * num_same / len(prediction_tokens)
    recall = 1.0 * num_same / len(ground_truth_tokens)
    return (2 * precision * recall) / (precision + recall)


def f1(prediction, ground_truth):
    predictions = [p.strip() for p in prediction.split(",")]
    ground_truths = [g.strip() for g in ground_truth.split(",")]
    return np.mean([max([f1_score(p, gt) for p in predictions]) for gt in ground_truths])


def official_score(output, answer, category):
    answer = str(answer)
    if category == 3:
        answer = answer.split(";")[0].strip()
    if category in [2, 3, 4]:
        return f1_score(output, answer)
    if category in [1]:
        return f1(output, answer)
    if category in [5]:
        if "no information available" in output.lower() or "not mentioned" in output.lower():
            return 1
        return 0
    raise ValueError(category)


# --- mem0 evaluation/metrics/utils.py ---------------------------------------------------------


def simple_tokenize(text):
    text = str(text)
    return text.lower().replace(".", " ").replace(",", " ").replace("!", " ").replace("?", " ").split()


def mem0_f1(prediction, reference):
    if not prediction or not reference:
        return 0.0
    prediction = str(prediction).strip()
    reference = str(reference).strip()
    pred_tokens = set(simple_tokenize(prediction))
    ref_tokens = set(simple_tokenize(reference))
    common_tokens = pred_tokens & ref_tokens
    if not pred_tokens or not ref_tokens:
        return 0.0
    precision = len(common_tokens) / len(pred_tokens)
    recall = len(common_tokens) / len(ref_tokens)
    return 2 * precision * recall / (precision + recall) if (precision + recall) > 0 else 0.0


# nltk.word_tokenize(text) is [t for s in sent_tokenize(text) for t in NLTKWordTokenizer().tokenize(s)];
# sent_tokenize loads NLTK's trained English Punkt model, which is NLTK data (not on Debian), so the
# fixture uses Punkt with empty parameters: the TypeScript default when the model is not installed.
_WORD = NLTKWordTokenizer()
_PUNKT = PunktSentenceTokenizer(PunktParameters())


def word_tokenize(text):
    return [t for s in _PUNKT.tokenize(text) for t in _WORD.tokenize(s)]


def mem0_bleu1(prediction, reference):
    """calculate_bleu_scores(...)['bleu1'] of mem0 evaluation/metrics/utils.py."""
    pred_tokens = word_tokenize(prediction.lower())
    ref_tokens = [word_tokenize(reference.lower())]
    smooth = SmoothingFunction().method1
    return sentence_bleu(ref_tokens, pred_tokens, weights=(1, 0, 0, 0), smoothing_function=smooth)


def simple_bleu1(prediction, reference):
    """The same BLEU-1 on simple_tokenize tokens (the workbench's earlier BLEU-1)."""
    pred_tokens = simple_tokenize(prediction)
    ref_tokens = [simple_tokenize(reference)]
    smooth = SmoothingFunction().method1
    return sentence_bleu(ref_tokens, pred_tokens, weights=(1, 0, 0, 0), smoothing_function=smooth)


# --- Porter word list -------------------------------------------------------------------------

TRICKY_WORDS = """
dying lying tying skies sky news innings inning outings outing cannings canning howe proceed exceed
succeed proceeding exceeded succeeds Dying SKIES News Sky generously agreed feed happy caresses ponies
ties caress cats plastered bled motoring sing conflated troubled sized hopping tanned falling hissing
fizzed failing filing relational conditional rational valenci hesitanci digitizer conformabli
radicalli differentli vileli analogousli vietnamization predication operator feudalism decisiveness
hopefulness callousness formaliti sensitiviti sensibiliti triplicate formative formalize electriciti
electrical hopeful goodness revival allowance inference airliner gyroscopic adjustable defensible
irritant replacement adjustment dependent adoption homologou communism activate angulariti
homologous effective bowdlerize probate rate cease controll controlling roll abli bli ousli
oscillators ying a is as at on ow by yy syzygy toy enjoy enjoyment spy fly try flies dies died spied
cried tried geology theology archaeology geologi fully beautifully hopefully eed ied ies bies sses ss
s y e ing ed ated bling izing feeds breed bleed agreement disagreeably generalization generalizations
sensational national conditionally radically finally logically analogously tion ational allies ally
rally tally totally mentally capability possibilities responsibilities sensibility hopelessness
happiness ladies studies studying studied skied skiing spying flying tying tie tied ties dyed dyeing
eyeing seeing agreeing fleeing knees trees tree bees yes yesterday youth young yelled yoga eyes
played playing plays stayed obeyed boy boys joyful joyfully annoying annoyance relied relies reliance
fixing taxes boxed waxy snowed allowing towel ooze caring cared hoping hoped hopping hopped filed
fined fining filling fell fall falls hiss fizz buzz buzzed jazz jazzy muddy muddle puzzled puzzling
controlled rolled tolling excellent excellence emergency emergencies agency residency dependency
electricity activity activities sensitivity specificity publicity Caroline's Melanie LGBTQ 2022 3pm
1st 10th mid-90s e.g. u.s.a. don't don’t “quoted” café naïve über straße İs İstanbul ΟΔΟΣ
🎉party 🎉🎉 a🎉 x
""".split()

STEMS = """
run hop tan fail fil conflat troubl siz motor plaster sens relat condit formal hope good
valen hesit digit confor radic differ vil analog predic oper feud decis callous sensit triplic
electr adjust depend adopt homolog commun activ angular effect bowdler prob cont agr fe sk d l t
gener nation ration nat cap y oy ay ey fly sp tr happ enj
""".split()

SUFFIXES = """
s es ies ied ed eed ing ings ly ally ally ies y iness ness ful fulness fulli ous ously ousli ousness
ation ations ational tional tion tions ator ators ize izer ization izations al alism aliti alli ity
iti iviti biliti ble bli able ably abli ible ibly ance anci ence enci ant ement ment ent entli eli ion
ou ism ate ates iv ive iveness icate ative alize iciti ical logi logy e ll l er ers est
""".split()


def dataset_words(dataset):
    words = set()
    for sample in dataset:
        for qa in sample["qa"]:
            for field in ("question", "answer"):
                if field in qa:
                    words.update(normalize_answer(str(qa[field])).split())
    # Cap deterministically by hash so the subset is spread over the alphabet.
    ranked = sorted(words, key=lambda w: hashlib.sha256(w.encode("utf-8")).hexdigest())
    return sorted(ranked[:MAX_DATASET_WORDS])


def porter_fixture(dataset):
    synthetic = sorted({stem + suffix for stem in STEMS for suffix in SUFFIXES})
    groups = [
        ("tricky", TRICKY_WORDS + [""]),
        ("synthetic", synthetic),
        ("locomo", dataset_words(dataset)),
    ]
    seen = set()
    items = []
    for source, words in groups:
        for word in words:
            if word in seen:
                continue
            seen.add(word)
            items.append([word, ps.stem(word), source])
    return {
        "description": "nltk PorterStemmer() (NLTK_EXTENSIONS) stems; items are [word, stem, source]",
        "nltk_version": nltk.__version__,
        "generator": "scripts/golden/generate.py",
        "items": items,
    }


# --- score cases ------------------------------------------------------------------------------

HAND_CASES = [
    # (prediction, gold, category, note)
    ("", "2022", 2, "empty prediction"),
    ("2022", 2022, 2, "numeric gold compared as a string"),
    ("In 2022.", 2022, 2, "number with extra words and punctuation"),
    ("May 7, 2023", "7 May 2023", 2, "reordered date"),
    ("7 May 2023", "7 May 2023", 2, "exact date"),
    ("the week before 9 June 2023", "The week before 9 June 2023", 2, "case and article"),
    ("last year", "2022", 2, "no overlap"),
    ("hiking, painting", "painting, hiking, swimming", 1, "multi-hop partial list"),
    ("hiking painting", "hiking, painting", 1, "multi-hop prediction without commas"),
    ("painting, hiking, swimming", "hiking, painting", 1, "multi-hop extra prediction part"),
    (", ,", "pottery, camping", 1, "multi-hop empty parts"),
    ("pottery,camping", "pottery, camping", 1, "multi-hop no space after comma"),
    ("Pottery, Camping, Painting, Swimming", "pottery, camping, painting, swimming", 1, "multi-hop full list"),
    ("the and a", "the", 4, "only articles on both sides"),
    ("an apple and a banana", "apple banana", 4, "articles removed"),
    ("Theater and Anderson", "the theater", 4, "article prefixes are not articles"),
    ("a.m.", "am", 4, "punctuation removed before article removal"),
    ("Likely yes", "Likely yes; because she said so", 3, "category 3 gold cut at semicolon"),
    ("because she said so", "Likely yes; because she said so", 3, "category 3 text after semicolon ignored"),
    ("anything", "; leading semicolon", 3, "category 3 empty first part"),
    ("Not mentioned in the conversation", None, 5, "adversarial correct"),
    ("NOT MENTIONED", None, 5, "adversarial upper case"),
    ("No information available.", None, 5, "adversarial other phrase"),
    ("There is no information available about that", None, 5, "adversarial phrase inside"),
    ("It was never mentioned", None, 5, "adversarial near miss"),
    ("not-mentioned", None, 5, "adversarial hyphenated"),
    ("", None, 5, "adversarial empty"),
    ("Sweden", "Sweden", 5, "adversarial with a gold"),
    ("!!!Hello???", "hello", 4, "punctuation heavy"),
    ("Caroline's dog's name is Max", "Max", 4, "possessives"),
    ("self-care & yoga", "self care and yoga", 4, "hyphen glued"),
    ("U.S.A.", "USA", 4, "dotted acronym"),
    ("3:30 p.m.", "330 pm", 4, "time punctuation"),
    ("$100", "100 dollars", 4, "currency"),
    ("50%", "50 percent", 4, "percent"),
    ("\u201cquoted\u201d words", "quoted words", 4, "unicode double quotes stay attached"),
    ("don\u2019t know", "don't know", 4, "unicode apostrophe vs ascii"),
    ("caf\u00e9 na\u00efve", "cafe naive", 4, "accented letters"),
    ("caf\u00e9 na\u00efve", "Caf\u00e9 na\u00efve", 4, "accented exact"),
    ("trips\u200b\u200b hiking", "trips hiking", 4, "zero width space is not whitespace"),
    ("new\u00a0york", "new york", 4, "no-break space splits in Python"),
    ("new\x85york", "new york", 4, "NEL splits in Python"),
    ("new\x1cyork", "new york", 4, "file separator splits in Python"),
    ("new\ufeffyork", "new york", 4, "BOM does not split in Python"),
    ("new\u3000york", "new york", 4, "ideographic space"),
    ("\u00e9the the", "the", 4, "unicode word boundary before article"),
    ("the\u00e9 a", "a", 4, "unicode word boundary after article"),
    ("\u0130stanbul", "istanbul", 4, "dotted capital I lowercases to two code points"),
    ("the\u0301 cat", "cat", 4, "a combining mark continues the word (regex \\b, not re)"),
    ("a\u200d cat", "cat", 4, "zero width joiner is a word character in regex"),
    ("\u203fthe cat", "cat", 4, "connector punctuation is a word character in regex"),
    ("the\u0903 cat", "cat", 4, "spacing mark continues the word"),
    ("\u039f\u0394\u039f\u03a3", "\u03bf\u03b4\u03bf\u03c2", 4, "final sigma"),
    ("\U0001f389 party", "party", 4, "emoji token"),
    ("a\U0001f389 party", "party", 4, "emoji glued"),
    ("running runs ran", "run", 4, "stemming conflation"),
    ("dying", "die", 4, "irregular form"),
    ("skies", "sky", 4, "irregular form plural"),
    ("dog dog dog", "dog", 4, "repeated prediction tokens"),
    ("dog", "dog dog dog", 4, "repeated gold tokens"),
    ("dog cat dog", "dog dog cat cat", 4, "multiset clipping"),
    ("She went to the beach with her kids last summer and had fun", "beach", 4, "long prediction"),
    ("beach", "She went to the beach with her kids last summer", 4, "short prediction"),
    ("   ", "something", 4, "whitespace-only prediction"),
    ("something", "   ", 4, "whitespace-only gold"),
    ("Hello, world!", "hello world", 4, "mem0 tokenizer splits on comma and bang"),
    ("e.g. yoga", "yoga", 4, "dots become spaces in mem0"),
    ("What? Really!", "really", 4, "question mark and bang"),
    ("Yes; definitely", "yes", 4, "semicolon kept by mem0 tokenizer"),
    ("Tokyo, Japan", "Tokyo, Japan", 1, "multi-hop exact"),
    ("Japan, Tokyo", "Tokyo, Japan", 1, "multi-hop reordered"),
    ("Tokyo", "Tokyo, Japan", 1, "multi-hop one of two"),
    ("", "Tokyo, Japan", 1, "multi-hop empty prediction"),
    ("Tokyo, Japan", "", 4, "empty gold"),
    ("2022, 2023", "2022", 1, "multi-hop numbers"),
    ("the 1st of May", "1 May", 2, "ordinal"),
    ("mid-90s", "mid 90s", 2, "hyphenated decade"),
    ("Relational conditional", "relate condition", 4, "step 2 rules"),
    ("generously agreed", "generous agree", 4, "step 1b and 4"),
    ("yes yes yes yes no", "yes no", 4, "BLEU clipping and brevity"),
    ("no", "yes no maybe so", 4, "BLEU brevity penalty"),
    ("x y z", "a b c", 4, "no unigram overlap"),
    ("One", "one two three four five six seven eight nine ten", 4, "strong brevity penalty"),
    ("the cat sat on the mat", "the cat is on the mat", 4, "classic BLEU pair"),
    ("the the the the", "the cat", 4, "BLEU clipping of a repeated word"),
    ("cat the", "the cat", 4, "order does not matter for unigrams"),
    ("Adoption agency", "adopting agencies", 4, "stems differ: adopt vs adopt, agenc vs agenc"),
    ("Painting; hiking", "painting, hiking", 1, "semicolon is not a multi-hop separator"),
    ("hiking, , painting", "hiking, painting", 1, "empty prediction part in the middle"),
    ("hiking", "hiking,", 1, "trailing comma makes an empty gold part"),
    ("Yes", "Yes; she did", 3, "category 3 short answer"),
    ("No; she did not", "No", 3, "semicolon in the prediction is kept"),
    ("June 2023", 2023, 2, "numeric gold with extra month"),
    ("four", 4, 4, "digit gold vs spelled number"),
    ("\t tab\tand\nnewline ", "tab newline", 4, "ASCII whitespace and the word and"),
]

PERTURBATIONS = [
    "exact",
    "drop_word",
    "add_words",
    "reorder",
    "upper_punct",
    "articles",
    "sentence",
    "unicode_quotes",
    "first_part",
    "empty",
]


def perturb(gold, kind, rng):
    words = gold.split()
    if kind == "exact":
        return gold
    if kind == "drop_word":
        if len(words) <= 1:
            return gold + " maybe"
        del words[rng.randrange(len(words))]
        return " ".join(words)
    if kind == "add_words":
        extra = rng.choice(["I think", "probably", "as far as I know", "she said"])
        return extra + " " + gold + " " + rng.choice(["too", "again", "", "last week"])
    if kind == "reorder":
        rng.shuffle(words)
        return " ".join(words)
    if kind == "upper_punct":
        return gold.upper() + rng.choice(["!", "?!", "...", " (!)", "."])
    if kind == "articles":
        return "The " + gold + " and a " + (words[-1] if words else "thing")
    if kind == "sentence":
        return "Based on the conversation, the answer is: " + gold + "."
    if kind == "unicode_quotes":
        return "\u201c" + gold.replace("'", "\u2019") + "\u201d"
    if kind == "first_part":
        return re.split(r"[,;]", gold)[0]
    if kind == "empty":
        return ""
    raise ValueError(kind)


def dataset_cases(dataset, rng):
    by_category = {c: [] for c in (1, 2, 3, 4, 5)}
    for sample in dataset:
        for qa in sample["qa"]:
            by_category[qa["category"]].append(qa)
    wanted = {1: 45, 2: 45, 3: 30, 4: 60, 5: 30}
    cases = []
    for category, count in wanted.items():
        pool = by_category[category]
        if category == 3:
            # Prefer golds with ';' so the category-3 cut is exercised.
            with_semicolon = [qa for qa in pool if ";" in str(qa.get("answer", ""))]
            rest = [qa for qa in pool if ";" not in str(qa.get("answer", ""))]
            chosen = with_semicolon[: count // 2] + rng.sample(rest, count - min(len(with_semicolon), count // 2))
        else:
            chosen = rng.sample(pool, count)
        for i, qa in enumerate(chosen):
            kind = PERTURBATIONS[i % len(PERTURBATIONS)]
            if category == 5:
                gold = qa.get("answer")
                tempting = str(qa.get("adversarial_answer", ""))
                options = [
                    "Not mentioned in the conversation",
                    tempting,
                    "(b) Not mentioned in the conversation",
                    "No information available",
                    "It is not mentioned",
                    tempting + " -- not mentioned explicitly",
                ]
                cases.append((options[i % len(options)], gold, 5, "dataset adversarial"))
                continue
            gold = qa["answer"]
            cases.append((perturb(str(gold), kind, rng), gold, category, "dataset " + kind))
    return cases


def score_fixture(dataset):
    rng = random.Random(SEED)
    cases = HAND_CASES + dataset_cases(dataset, rng)
    items = []
    for prediction, gold, category, note in cases:
        official = official_score(prediction, gold, category)
        has_gold = gold is not None
        items.append(
            {
                "note": note,
                "prediction": prediction,
                "gold": gold,
                "category": category,
                "normalized_prediction": normalize_answer(prediction),
                "official_tokens": [ps.stem(w) for w in normalize_answer(prediction).split()],
                "official_f1": float(official),
                "mem0_f1": float(mem0_f1(prediction, str(gold))) if has_gold else None,
                "bleu1": float(mem0_bleu1(prediction, str(gold))) if has_gold else None,
                "bleu1_simple": float(simple_bleu1(prediction, str(gold))) if has_gold else None,
            }
        )
    return {
        "description": "LoCoMo official F1, mem0 set F1 and BLEU-1 (word_tokenize, Punkt without parameters) and the simple_tokenize BLEU-1 variant, from the Python references",
        "nltk_version": nltk.__version__,
        "generator": "scripts/golden/generate.py",
        "items": items,
    }


def write(name, payload):
    OUT_DIR.mkdir(parents=True, exist_ok=True)
    path = OUT_DIR / name
    # One item per line: small diffs when NLTK or the cases change, and still valid JSON.
    header = {key: value for key, value in payload.items() if key != "items"}
    lines = [json.dumps(item, ensure_ascii=True) for item in payload["items"]]
    head = json.dumps(header, ensure_ascii=True, indent=1)[:-2]
    text = head + ',\n "items": [\n  ' + ",\n  ".join(lines) + "\n ]\n}\n"
    json.loads(text)
    path.write_text(text, encoding="utf-8")
    print(f"wrote {path.relative_to(ROOT)} ({len(payload['items'])} items)")


def main():
    dataset_path = Path(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT_DATASET
    dataset = json.loads(dataset_path.read_text(encoding="utf-8"))
    write("porter.json", porter_fixture(dataset))
    write("scores.json", score_fixture(dataset))


if __name__ == "__main__":
    main()
