#!/usr/bin/env python3
"""Regenerate Tests/GriotTokensTests/Fixtures/tokens.json, the byte-pair encoder fixture.

The expected ids come from OpenAI's `tiktoken` (the Rust-backed package), `encode_ordinary`
with cl100k_base and o200k_base. tiktoken would download its rank files at run time; this
script loads them instead from the folder scripts/fetch-tokenizers.sh fills (checked
against tiktoken's own SHA-256), so it runs offline. The fixture is committed, so the
tests need neither Python nor the network. To regenerate:

    scripts/fetch-tokenizers.sh
    "$(scripts/token-venv.sh | tail -n 1)" scripts/make-token-fixture.py

The texts, each chosen to break a hand-written split pattern or merge loop:
  - hand-written lines: prose, contractions in every case, numbers of many lengths, code,
    JSON, URLs, white-space runs, punctuation runs, emoji, CJK, Arabic, Hindi, accented
    and mixed-case Latin, scalars that Unicode 16 and 17 classify differently;
  - systematic combinations: each contraction after each kind of lead, each white-space
    scalar before each kind of scalar, digit runs of length 1 to 40;
  - seeded random strings from a pool of tricky scalars (case classes, marks, modifier
    letters, digits of many scripts, white space, apostrophes);
  - long pieces (thousands of letters, punctuation, white space, digits) for the long merge;
  - seeded narrative passages with tricky scalars dropped in, some upper-cased;
  - seeded samples of lines and paragraphs of the WPA narratives (CRLF line ends, a BOM)
    and of BEIR SciFact abstracts from the shared data folder.
Output: {"tiktoken": version, "patterns": {name: pat_str}, "cases": [{"text", name: ids}]}.

With --fuzz COUNT it writes COUNT fresh random and mutated texts (seed --seed) to --out
instead, for scripts/fuzz-tokens.sh: a far larger check than the committed fixture.
"""

import argparse
import glob
import json
import os
import random
import sys

import tiktoken
import tiktoken.load
from tiktoken_ext import openai_public

DATA = os.environ.get("GRIOT_SHARED_DATA", os.path.join(os.path.dirname(__file__), "..", "..", "shared", "data"))
RANKS = os.environ.get("GRIOT_TOKENIZER_DIR", os.path.expanduser("~/.cache/griot/tokenizers"))
REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(REPO, "Tests", "GriotTokensTests", "Fixtures", "tokens.json")
ENCODINGS = ["cl100k_base", "o200k_base"]
SEED = 20261122
MAX_BYTES = 1_500_000


def load_encoding(name):
    """tiktoken's own definition of the encoding (pattern, specials, expected hash), with the
    rank file read from RANKS instead of downloaded."""
    download = openai_public.load_tiktoken_bpe

    def local(url, expected_hash=None):
        path = os.path.join(RANKS, url.rsplit("/", 1)[-1])
        if not os.path.exists(path):
            sys.exit(f"make-token-fixture: {path} is missing; run scripts/fetch-tokenizers.sh")
        return tiktoken.load.load_tiktoken_bpe(path, expected_hash=expected_hash)

    openai_public.load_tiktoken_bpe = local
    try:
        return tiktoken.Encoding(**openai_public.ENCODING_CONSTRUCTORS[name]())
    finally:
        openai_public.load_tiktoken_bpe = download


HAND = [
    "",
    " ",
    "a",
    "Hello, world!",
    "The lantern swung twice before the ferryman answered, and by then the tide had turned.",
    "She said she'd come back; she didn't. We'll wait, won't we? They're late, aren't they?",
    "I'M SURE IT'S FINE. YOU'LL SEE. WE'VE DONE IT BEFORE AND THEY'D AGREE.",
    "it'S odd: he'Ll say We'Re here, yOu'Ve seen, I'D go, he'M... don'T.",
    "'s 't 're 've 'm 'll 'd 'S 'T 'RE 'VE 'M 'LL 'D",
    "'tis the season; 'twas the night; rock 'n' roll; the '90s; O'Brien's.",
    "The boss's car, the bosses' cars, James' hat, James's hat.",
    "'''triple quoted''' and \"\"\"docstring\"\"\" and ``backticks``",
    "' s", "''s", "'''s", "x'y'z", "'", "''", "'ll've", "I'll've", "y'all'd've",
    "0", "7", "42", "123", "1234", "12345", "123456", "1234567", "12345678901234567890",
    "3.14159265358979", "-0.000001", "1e-10", "6.02214076e23", "1,234,567.89", "$1,000,000",
    "Call 555-0142 or +1 (555) 010-4477 ext. 12.", "2026-11-22T06:35:00Z", "v1.2.3-beta.4+build.567",
    "0x7fffffff 0b1010 0o755 1_000_000", "IPv4 192.168.0.1 and IPv6 fe80::1ff:fe23:4567:890a",
    "for (int i = 0; i < n; ++i) {\n    total += values[i] * weights[i];\n}\n",
    "def merge(a, b):\n\treturn [x for x in a if x not in b]\n\n\nprint(merge([1, 2], [2]))\n",
    "func count(_ text: String) -> Int {\n    guard !text.isEmpty else { return 0 }\n    return text.utf8.count\n}",
    "SELECT id, title FROM stories WHERE year >= 1936 AND state = 'FL' ORDER BY title;",
    "<div class=\"card\"><a href=\"/stories/42?ref=home&amp;lang=en\">Read more &raquo;</a></div>",
    "{\"id\": 17, \"tags\": [\"river\", \"harvest\"], \"score\": 0.875, \"nested\": {\"ok\": true, \"none\": null}}",
    "[{\"a\":1},{\"b\":[2,3,{\"c\":\"\\u00e9\\n\"}]}]",
    "https://example.org/path/to/page.html?query=token+count&limit=50#section-3",
    "ftp://files.example.net/pub/archive_2026-01.tar.gz and mailto:someone@example.com",
    "C:\\Users\\griot\\Documents\\notes (final) v2.txt",
    "/usr/local/bin/griot --data ../shared/data//wpa-narratives/ --limit=10",
    "camelCaseIdentifier PascalCaseType snake_case_name SCREAMING_SNAKE kebab-case-name",
    "parseHTTPResponseHeaders XMLHttpRequest iOSAppDelegate getURLForID ABCdefGHIjkl",
    "ALLCAPS SENTENCE WITH NUMBERS 123 AND PUNCTUATION!!! REALLY?!",
    "trailing spaces   ",
    "trailing newline\n",
    "trailing mixed \t \n",
    "\n\n  indented after blank lines",
    "line one\r\nline two\r\n\r\nline four\r\n",
    "a\rb\rc\r",
    "\t\tdouble tab\tthen tab\t\t\tthree",
    "   leading spaces",
    "multiple     spaces    between     words",
    " \n \n \n",
    "\n",
    "\r\n",
    "\n\n\n\n",
    "  \n",
    "word  \n  word",
    "x\u00a0y\u00a0\u00a0z",
    "ideographic\u3000space\u3000\u3000here",
    "line\u2028separator\u2029paragraph",
    "vertical\x0btab\x0cform feed\x1cfile separator\x1dgroup\x1erecord\x1funit",
    "next\u0085line",
    "!!!", "...", "?!?!", "---", "***", "___", "~~~", "((()))", "[[[", "]]]", "{}", "<>", "=>", "->", "::", ";;",
    "Wait... what?! No -- really??? (Yes.) [Maybe.] {Never!}",
    " !", " !!", "  !!", "! !", "!\n", "!\r\n\r\n", "hello!\n\nworld", "path/to//file//",
    "a/b/c", " /", "//\n//\n", "-->\n\n", "*/\n/*", "\"\"\n\n", "),\n", "});\n\n",
    "😀", "😀😀😀", "Great job 👍🏽!", "Family: 👨‍👩‍👧‍👦", "Flags: 🇫🇷🇯🇵🇧🇷", "Hearts ❤️💛💚💙💜🖤",
    "emoji😀inside😀words", "🎉🎉 party 🎉🎉", "🧑🏿‍🚀 astronaut", "✨new✨", "☕️ and 🍰",
    "中文文本的分词测试。", "我们明天去北京吧！", "東京都渋谷区で会いましょう。", "ひらがなとカタカナとカンジ",
    "한국어 텍스트도 확인합니다.", "混合mixed文本text123数字", "全角ＡＢＣ１２３！", "々ー〃ゝゞヽヾ",
    "مرحبا بالعالم، كيف حالك؟", "العربية ١٢٣ و ٤٥٦٧", "عَرَبِيٌّ مُشَكَّلٌ", "שלום עולם", "Ελληνικά κείμενα ΚΑΙ ΚΕΦΑΛΑΙΑ",
    "नमस्ते दुनिया", "हिन्दी में लिखा गया वाक्य।", "क्षत्रिय ज्ञान श्री", "০১২৩ বাংলা", "தமிழ் மொழி", "ภาษาไทยไม่มีช่องว่าง",
    "Русский ТЕКСТ и смешанный Text", "Українська мова: ґ є і ї", "Ǆemal ǅemal ǆemal", "ᾈᾉᾊ ᾀᾁ",
    "café naïve résumé coöperate façade jalapeño São Paulo Zürich Ærøskøbing Łódź",
    "Cafe\u0301 nai\u0308ve re\u0301sume\u0301", "e\u0301\u0301\u0301", "\u0301leading mark", " \u0301", "\u0301\u0302\u0303",
    "Straße STRASSE ß ẞ", "İstanbul ıiIİ", "ﬁle ﬂow ﬀ", "ſ long s and 'ſ and 'ſt", "K Kelvin 'K Å Ångström",
    "But I'ſ sure I'ſ'll tell", " yo'ſ'Su will", "WE'ſ HERE'ſ", "x'ſt",
    "ʕAbc ʕab Aʕ ʕ", "ʰello ˢmall ʰA", "Aʰb AʰB aʰ", "ǅA ǅa Aǅ aǅ",
    "²³ ½¾ Ⅻ ⅻ ① ⑳ 𝟙𝟚𝟛 ٣ ४ ５",
    "digits \U00010d40\U00010d41 and 12\U00010d4012345",
    "digits \U00011de0\U00011de1 and 12\U00011de012345",
    "\u1c89\u1c8a \u1c89abc a\u1c89b",
    "\U00016d40x \U0001e6c0abc",
    "NUL\x00inside\x00\x00 and DEL\x7f and soft\u00adhyphen",
    "\ufeffbyte order mark",
    "zero\u200bwidth\u200cnon\u200djoiner",
    "<|endoftext|> is not special here <|fim_prefix|><|endofprompt|>",
    "Supercalifragilisticexpialidocious antidisestablishmentarianism pneumonoultramicroscopicsilicovolcanoconiosis",
    "Rindfleischetikettierungsüberwachungsaufgabenübertragungsgesetz",
    "a" * 50, "ab" * 40, "A" * 64, "é" * 30, "中" * 40, "!" * 100, "." * 70, " " * 65, "\n" * 33, "9" * 61,
]


def combinations():
    texts = []
    leads = ["", " ", "  ", "\t", "\n", "x", "X", "1", "!", "é", "É", "中", "\u0301", "ʰ", "ǅ", "'"]
    contractions = ["'s", "'S", "'t", "'T", "'re", "'RE", "'rE", "'ve", "'Ve", "'m", "'M", "'ll", "'LL",
                    "'lL", "'d", "'D", "'ſ", "'x", "'", "'l", "'v", "'r"]
    for lead in leads:
        for contraction in contractions:
            texts.append(f"{lead}word{contraction}")
            texts.append(f"{lead}{contraction} tail")
    spaces = [" ", "  ", "\t", "\n", "\r", "\r\n", "\u00a0", "\u3000", "\u2003", "\x0b", "\u0085", " \n", "\n ", "\t\n\t"]
    follows = ["", "a", "A", "1", "!", " ", "\n", "é", "中", "\u0301", "😀", "'s", "/"]
    for space in spaces:
        for follow in follows:
            texts.append(f"x{space}{follow}")
            texts.append(f"{space}{space}{follow}end")
    for length in range(1, 41):
        texts.append("".join(str((k * 7 + length) % 10) for k in range(length)))
    for length in (1, 2, 3, 4, 5, 7, 10):
        texts.append("ab" + "٣" * length + "cd")
    return texts


def random_texts(rng, count):
    pool = (
        list("abcdefghijklmnopqrstuvwxyz") * 2 + list("ABCDEFGHIJKLMNOPQRSTUVWXYZ") * 2 + list("0123456789")
        + ["'"] * 8 + ["s", "S", "t", "ll", "LL", "re", "ve", "d", "m", "D", "M"]
        + [" "] * 10 + ["\t", "\n", "\r", "\r\n", "\u00a0", "\u3000", "\x0b", "\x0c", "\u0085", "\u2028", "\x1c"]
        + list(".,!?/\\-_()[]{}\"':;@#$%^&*+=<>|~`")
        + ["\u0301", "\u0308", "\u0327", "\u093f", "\u094d", "\u0902", "\u20dd", "\ufe0f", "\u200d", "\u00ad"]
        + ["\u02b0", "\u02c6", "\u3005", "\u30fc", "\u0640"]
        + list("中文あアابकहאก한")
        + ["\u01c5", "\u1f88", "É", "Ω", "Ж", "İ", "\u212a", "é", "ß", "ω", "ж", "ı", "ſ", "ʕ"]
        + ["²", "½", "Ⅻ", "٣", "४", "５", "\U0001d7d9", "\U00010d40", "\U00011de0", "\u1c89", "\U00016d40", "\U0001e6c0"]
        + ["😀", "👍🏽", "👨\u200d👩\u200d👧", "🇫🇷", "❤️"]
    )
    texts = []
    for _ in range(count):
        length = rng.choice([1, 2, 3, 4, 6, 8, 12, 20, 30, 45])
        texts.append("".join(rng.choice(pool) for _ in range(length)))
    return texts


def codepoint_texts(rng, count):
    """Strings of code points drawn from the whole range (surrogates aside), weighted to the
    planes in use, with ASCII white space and contraction letters mixed in (fuzzing only)."""
    def scalar():
        while True:
            roll = rng.random()
            if roll < 0.5:
                value = rng.randrange(0x20, 0x3000)
            elif roll < 0.8:
                value = rng.randrange(0, 0x30000)
            elif roll < 0.9:
                value = rng.randrange(0xE0000, 0xE0200)
            else:
                value = ord(rng.choice(" '\n\r\tsSlLe1"))
            if not 0xD800 <= value < 0xE000:
                return chr(value)
    return ["".join(scalar() for _ in range(rng.randrange(1, 30))) for _ in range(count)]


def long_texts(rng):
    letters = "abcdefghijklmnopqrstuvwxyz"
    return [
        "".join(rng.choice(letters) for _ in range(3000)),
        "".join(rng.choice(letters + letters.upper()) for _ in range(1500)),
        "x" * 4000,
        "ab" * 1500,
        "=" * 2000 + "\n",
        "-" * 300 + " " + "-" * 300,
        " " * 1000 + "end",
        "\n" * 500,
        "\t \n" * 200,
        "7" * 1000,
        "".join(rng.choice("!@#$%^&*()_+-=[]{};:,.<>/?|~`\"'") for _ in range(1200)),
        "中文" * 600,
        "\u0928\u092e\u0938\u094d\u0924\u0947" * 200,
        "😀" * 300,
        "thequickbrownfoxjumpsoverthelazydog" * 40,
        "".join(rng.choice("ACGT") for _ in range(2500)),
    ]


def mutated_texts(rng, count):
    """Passages of a narrative with scalars from the tricky pool dropped in, some upper-cased:
    real words next to contractions, marks, case changes and odd digits."""
    with open(os.path.join(DATA, "wpa-narratives", "georgia-part1.txt"), encoding="utf-8") as f:
        text = f.read()
    insertions = ["'", "'S", "'ll", "'ſ", "ſ", " ", "  ", "\n", "\r\n", "\t", "\u00a0", "\u3000", "ʕ", "ǅ", "\u0301",
                  "ʰ", "中", "É", "٣", "123456", "😀", "!", "/", "\U00011de0", "\U00010d40", "\u1c89"]
    texts = []
    for _ in range(count):
        start = rng.randrange(len(text) - 400)
        scalars = list(text[start:start + rng.randrange(1, 400)])
        for _ in range(rng.randrange(1, 8)):
            scalars.insert(rng.randrange(len(scalars) + 1), rng.choice(insertions))
        mutated = "".join(scalars)
        texts.append(mutated.upper() if rng.random() < 0.3 else mutated)
    return texts


def data_texts(rng):
    texts = []
    lines, paragraphs = [], []
    for path in sorted(glob.glob(os.path.join(DATA, "wpa-narratives", "*.txt"))):
        with open(path, "rb") as f:
            content = f.read().decode("utf-8")
        lines += [line for line in content.split("\r\n") if line.strip()]
        paragraphs += [p for p in content.split("\r\n\r\n") if len(p) > 200]
        texts.append(content[:1500])  # the BOM and the Gutenberg header, CRLF and all
    texts += rng.sample(lines, 150)
    texts += rng.sample(paragraphs, 40)
    docs = []
    with open(os.path.join(DATA, "beir-scifact", "corpus.jsonl"), encoding="utf-8") as corpus:
        for line in corpus:
            doc = json.loads(line)
            docs.append(doc["title"] + "\n\n" + doc["text"][:1200])
    texts += rng.sample(docs, 60)
    return texts


def fixture_json(texts, encodings):
    """The fixture's JSON text, one case a line so that a regenerated fixture diffs readably."""
    seen, cases = set(), []
    for text in texts:
        if text in seen:
            continue
        seen.add(text)
        case = {"text": text}
        for name, encoding in encodings.items():
            case[name] = encoding.encode_ordinary(text)
        cases.append(case)
    compact = {"ensure_ascii": False, "separators": (",", ":")}
    head = json.dumps({
        "tiktoken": tiktoken.__version__ if hasattr(tiktoken, "__version__") else "unknown",
        "patterns": {name: encoding._pat_str for name, encoding in encodings.items()},
    }, **compact)[:-1]
    return len(cases), head + ',"cases":[\n' + ",\n".join(json.dumps(case, **compact) for case in cases) + "\n]}\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--fuzz", type=int, help="write this many random texts to --out instead of the fixture")
    parser.add_argument("--seed", type=int, default=SEED)
    parser.add_argument("--out", default=OUT)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    encodings = {name: load_encoding(name) for name in ENCODINGS}
    if args.fuzz:
        quarter = args.fuzz // 4
        texts = random_texts(rng, args.fuzz - 2 * quarter) + codepoint_texts(rng, quarter) + mutated_texts(rng, quarter)
        count, text = fixture_json(texts, encodings)
    else:
        texts = HAND + combinations() + random_texts(rng, 300) + long_texts(rng) + mutated_texts(rng, 150) + data_texts(rng)
        count, text = fixture_json(texts, encodings)
        if len(text.encode("utf-8")) > MAX_BYTES:
            sys.exit(f"make-token-fixture: {len(text.encode())} bytes is over {MAX_BYTES}; sample fewer texts")
    with open(args.out, "w", encoding="utf-8") as f:
        f.write(text)
    print(f"make-token-fixture: {count} texts, {len(text.encode('utf-8')):,} bytes -> {args.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
