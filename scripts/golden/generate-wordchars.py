#!/usr/bin/env python3
"""Write tests/fixtures/golden/regex-word.json: which code points the `regex` module's \\w matches.

    /usr/bin/python3 scripts/golden/generate-wordchars.py

LoCoMo's normalize_answer removes articles with `regex.sub(r'\\b(a|an|the|and)\\b', ...)` (the
`regex` module, not `re`), so its word boundaries follow regex's \\w. This records, as code point
ranges, where regex's \\w matches and which code points regex's Unicode tables consider assigned,
so the TypeScript class can be checked over every assigned code point both sides know.
"""

import json
import sys
from pathlib import Path

import regex

OUT = Path(__file__).resolve().parents[2] / "tests" / "fixtures" / "golden" / "regex-word.json"
WORD = regex.compile(r"\w")
UNASSIGNED = regex.compile(r"\p{Cn}")


def ranges(predicate):
    out, start = [], None
    for cp in range(0x110000 + 1):
        inside = cp <= 0x10FFFF and not (0xD800 <= cp <= 0xDFFF) and predicate(chr(cp))
        if inside and start is None:
            start = cp
        elif not inside and start is not None:
            out.append([start, cp - 1])
            start = None
    return out


def main():
    golden = {
        "generator": "scripts/golden/generate-wordchars.py",
        "regex": regex.__version__,
        "python": sys.version.split()[0],
        "word": ranges(lambda ch: WORD.match(ch) is not None),
        "assigned": ranges(lambda ch: UNASSIGNED.match(ch) is None),
    }
    OUT.write_text(json.dumps(golden, separators=(",", ":")) + "\n")
    print(f"wrote {OUT}: {len(golden['word'])} word ranges, {len(golden['assigned'])} assigned ranges")


if __name__ == "__main__":
    main()
