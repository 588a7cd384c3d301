#!/usr/bin/env python3
"""Regenerate the tokenizer golden fixtures from NLTK 3.8 (Debian's python3-nltk).

    /usr/bin/python3 scripts/golden/generate-tokenize.py [path/to/locomo10.json]

Writes
  tests/fixtures/golden/tokenize.json          tricky strings -> NLTKWordTokenizer tokens; texts ->
                                               Punkt sentences and word_tokenize tokens under
                                               synthetic Punkt parameters defined here
  tests/fixtures/golden/tokenize-locomo.json   sha256 of every LoCoMo answer, adversarial answer and
                                               question (lowercased, as Mem0 tokenises) -> sha256 of
                                               its NLTKWordTokenizer tokens (no dataset text is kept)

Reference code called (not copied): nltk.tokenize.destructive.NLTKWordTokenizer.tokenize and
nltk.tokenize.punkt.PunktSentenceTokenizer.tokenize, i.e. what nltk.word_tokenize runs. NLTK's
trained English Punkt model is not needed: Punkt's decisions are checked under parameters made up
here, which exercise every branch (abbreviations, collocations, sentence starters, orthographic
contexts of initials and numbers).
"""

import hashlib
import json
import sys
from collections import defaultdict
from pathlib import Path

import nltk
from nltk.tokenize.destructive import NLTKWordTokenizer
from nltk.tokenize.punkt import PunktParameters, PunktSentenceTokenizer

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "tests" / "fixtures" / "golden" / "tokenize.json"
OUT_LOCOMO = ROOT / "tests" / "fixtures" / "golden" / "tokenize-locomo.json"

BEG_UC, MID_UC, UNK_UC, BEG_LC, MID_LC, UNK_LC = 2, 4, 8, 16, 32, 64

TRICKY = [
    "Good muffins cost $3.88 (roughly 3,36 euros)\nin New York.  Please buy me\ntwo of them.\nThanks.",
    "They'll save and invest more.", "hi, my name can't hello,", "I cannot believe it's not butter!",
    "gimme a break, we're gonna win, gotta go, lemme see, wanna go? more'n enough, d'ye know",
    "'tis the season, 'twas the night", "she said \"hello\" and left", "\"quoted start\" here",
    "``double backticks'' and ''two singles''", "rock 'n' roll", "the '90s were fun", "o'clock",
    "«French» “curly” ‘single’ „low“", "a -- b --- c", "wait... what...", "e.g. this, i.e. that.",
    "april.2023", "on 7 may 2023.", "it was 3.5.", "mr. smith went to washington.",
    "(Sent1.) Sent2.", "he said: 'yes'.", "a:b, c:1, 1,000 and 2,5", "50% off #1 @home & more; ok*",
    "[x] {y} <z> (w)", "it's Melanie's and James' books", "I'D YOU'LL WE'RE THEY'VE DON'T",
    "caf\u00e9 na\u00efve \u0130stanbul", "tab\tsep\u00a0nbsp\u2003em\u3000ideo", "sep\x1cfs\x1dgs",
    "ends with newline.\n", "trailing comma,", "trailing colon:", "multi?! marks!!", "",
    "   ", "'", "''", "\"", "...", ".", "a.", "a. b. c.", "U.S.A. and the U.K.", "3:30 pm, 2:00.",
    "'hello' 'world'", "don't' 'x", "\u2018tis", "it\u2019s", "D'ye", "CANNOT", "Wanna\tgo",
]

TEXTS = [
    "he went home. she stayed.", "He went home. She stayed.", "dr. smith is here. ok.",
    "i met j. smith on 7 may 2023. the weather was fine.", "it was 2023. however, nothing happened.",
    "it was 2023. however, nothing happened!", "The U.S. economy. It grew.",
    "I said no... Then he left.", "I said no... then he left.", "what? really! yes.",
    "(Sent1.) Sent2.", "\"Stop.\" She left.", "a. b. c.", "J. Smith went. K. Jones stayed.",
    "We left at 5. The end.", "we left at 5. the end.", "call me at no. 5. it works.",
    "the st. louis trip. fun.", "it cost $3. 50 cents more.", "first line.\nsecond line.",
    "para one.\n\npara two.", "ends with space.   ", "no period at end", "wait... what",
    "mr. and mrs. smith. ok", "ok. fine. sure.", "e.g. apples. however, pears.",
    "i.e. none. The End.", "jan. 5. feb.", "Went to the U.S. She liked it.", "x.y. z.",
    "He said \"hi.\" then left.", "it's may. may is warm.", "it's 2023. May is warm.",
    "by n. the end.", "   leading space. next.", "hello.' next", "done.) next.",
]


def synthetic_params():
    params = PunktParameters()
    params.abbrev_types = {"dr", "mr", "mrs", "u.s", "e.g", "i.e", "st", "jan", "etc", "ok", "n",
                           "no"}
    params.collocations = {("##number##", "may"), ("j", "smith"), ("st", "louis")}
    params.sent_starters = {"however", "the", "she", "then", "it"}
    params.ortho_context = defaultdict(int, {
        "she": BEG_UC | MID_LC, "the": BEG_UC | BEG_LC | MID_LC, "smith": MID_UC,
        "may": BEG_LC | MID_LC, "went": MID_LC, "however": BEG_LC, "then": BEG_UC | MID_LC,
        "it": BEG_UC | BEG_LC | MID_LC, "jones": MID_UC | UNK_UC, "k": BEG_UC,
        "feb": BEG_LC, "fine": BEG_LC, "sure": BEG_LC | UNK_LC, "pears": BEG_LC,
        "none": BEG_LC, "louis": MID_UC, "what": BEG_LC | MID_LC, "cents": BEG_LC,
        "is": MID_LC, "end": BEG_LC | MID_LC,
    })
    return params


def sha(text):
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def main():
    word = NLTKWordTokenizer()
    params = synthetic_params()
    punkt = PunktSentenceTokenizer(params)
    golden = {
        "generator": "scripts/golden/generate-tokenize.py",
        "nltk": nltk.__version__,
        "params": {
            "abbrevTypes": sorted(params.abbrev_types),
            "collocations": sorted(f"{a}\t{b}" for a, b in params.collocations),
            "sentStarters": sorted(params.sent_starters),
            "orthoContext": dict(sorted(params.ortho_context.items())),
        },
        "treebank": [{"text": t, "tokens": word.tokenize(t)} for t in TRICKY + TEXTS],
        "punkt": [
            {
                "text": t,
                "sentences": punkt.tokenize(t),
                "wordTokens": [w for s in punkt.tokenize(t) for w in word.tokenize(s)],
            }
            for t in TEXTS + [t.lower() for t in TEXTS] + TRICKY
        ],
    }
    OUT.write_text(json.dumps(golden, indent=1, ensure_ascii=False) + "\n")
    print(f"wrote {OUT}")

    dataset = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT.parent / "shared" / "datasets" / "locomo10.json"
    if not dataset.exists():
        print(f"{dataset} not found: {OUT_LOCOMO.name} left as it is")
        return
    texts = set()
    for sample in json.loads(dataset.read_text()):
        for qa in sample["qa"]:
            for key in ("answer", "adversarial_answer", "question"):
                if key in qa:
                    texts.add(str(qa[key]).lower())
    cases = {sha(t): sha("\u0001".join(word.tokenize(t))) for t in sorted(texts)}
    OUT_LOCOMO.write_text(json.dumps({
        "generator": "scripts/golden/generate-tokenize.py",
        "nltk": nltk.__version__,
        "dataset_sha256": hashlib.sha256(dataset.read_bytes()).hexdigest(),
        "cases": cases,
    }, indent=0) + "\n")
    print(f"wrote {OUT_LOCOMO} ({len(cases)} texts)")


if __name__ == "__main__":
    main()
