#!/usr/bin/env python3
"""Regenerate Tests/GriotEmbeddingTests/Fixtures/minilm-reference.json, the reference
output of all-MiniLM-L6-v2 that the pure-Swift embedder is tested against.

The reference is sentence-transformers itself, run on CPU from the model folder that
scripts/fetch-model.sh fills, in the venv that scripts/reference-venv.sh makes. The
fixture is committed, so the Swift tests need neither Python nor the network.
To regenerate:

    model_dir="$(scripts/fetch-model.sh)"
    python="$(scripts/reference-venv.sh)"
    "$python" scripts/make-embedding-fixture.py "$model_dir"

(The model folder defaults to $GRIOT_MODEL_DIR, then
$HOME/.cache/griot/models/all-MiniLM-L6-v2.) The script never touches the network:
it sets HF_HUB_OFFLINE and refuses any socket connection.

Output, one JSON object:

    {"model": "all-MiniLM-L6-v2", "max_seq_length": 256, "dimension": 384,
     "generated_by": {...versions and the model's SHA-256...},
     "texts": [{"text": str,
                "ids": [token ids with [CLS] and [SEP], after truncation to 256],
                "embedding": base64 of 384 little-endian float32 values}]}

The embedding is the normalized sentence embedding (mean pooling over the tokens,
then L2 normalization: encode(..., normalize_embeddings=True)), each text encoded
alone (no padding). The ids come from the model's own tokenizer,
model.tokenizer(text, truncation=True, max_length=256)["input_ids"].

The texts: a hand list of edge cases (short, punctuation, accents, curly quotes,
dashes, numbers, URLs, CJK, emoji, other scripts, control characters, capitals,
hyphens, texts far over 256 word pieces), a seeded sample of the transcript segments
of the demo corpus (corpus/*/*.json), and a seeded sample of interview paragraphs
from the public-domain WPA narratives (/work/shared/data/wpa-narratives/*.txt, the
Project Gutenberg header and licence left out). No SciFact text is used.
"""

import base64
import glob
import hashlib
import json
import os
import random
import re
import socket
import struct
import sys

os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["TRANSFORMERS_OFFLINE"] = "1"
os.environ["HF_DATASETS_OFFLINE"] = "1"
os.environ["TOKENIZERS_PARALLELISM"] = "false"


def _no_network(*args, **kwargs):
    raise OSError("make-embedding-fixture.py must not use the network")


# Refuse every outgoing connection (local Unix sockets are left alone).
_connect = socket.socket.connect


def _guarded_connect(self, address):
    if self.family in (socket.AF_INET, socket.AF_INET6):
        _no_network()
    return _connect(self, address)


socket.socket.connect = _guarded_connect
socket.create_connection = _no_network

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DATA = os.environ.get("GRIOT_DATA", "/work/shared/data")
OUT = os.path.join(REPO, "Tests", "GriotEmbeddingTests", "Fixtures", "minilm-reference.json")
DEFAULT_MODEL_DIR = os.environ.get(
    "GRIOT_MODEL_DIR", os.path.expanduser("~/.cache/griot/models/all-MiniLM-L6-v2")
)

SEED = 20251122
MAX_SEQ_LENGTH = 256
DIMENSION = 384
MAX_BYTES = 700_000
CORPUS_SEGMENTS = 64  # sampled transcript segments from the demo corpus
WPA_PARAGRAPHS = 55  # sampled interview paragraphs from the WPA narratives
LONG_FROM_EACH_SOURCE = 6  # concatenated passages far over 256 word pieces
LONG_TEXT_CHARS = (1400, 2000)  # character range for those concatenations

# WPA paragraphs mentioning these are not interview text; the slurs that the
# interviews quote are left out of the fixture as well (the paragraphs hold no
# tokenizer case that the others lack).
WPA_EXCLUDED = (
    "gutenberg", "federal writers", "ex-slave", "transcriber", "[tr", "illustration",
    "nigger", "nigga", "darky", "darkey", "darkie",
)

# Literal reserved-token strings: the HF tokenizer maps "[MASK]" etc. in the text to
# their special ids; kept in a few texts so that the Swift side can decide to match.
HAND_TEXTS = [
    # very short and empty-ish
    "",
    " ",
    " . ",
    "a",
    "I",
    "?",
    "!",
    "...",
    "--",
    "0",
    "42",
    "grandmother",
    "Grandma",
    "family",
    "genealogy",
    "unaffable",
    "Hello, world!",
    "hello world",
    "HELLO WORLD",
    "Hello   world",
    "  leading and trailing spaces  ",
    # questions about family history
    "Who was my great-grandmother on my mother's side?",
    "Where did Grandpa work before he moved to Detroit?",
    "What happened to the family during the 1927 flood?",
    "When did Aunt Loretta get married, and who sang at the wedding?",
    "Did anyone in the family work as a Pullman porter?",
    "How did the Batistes get from Opelousas to Oakland?",
    "Which church did the family attend in Bronzeville?",
    "what year did they leave clarksdale",
    "Tell me about the beauty shop on Fourth Avenue.",
    "Why did Grandpa lose his job at the Rouge plant?",
    "Is there a recording of Mama's sweet potato pie recipe?",
    "Who marched with Dr. King in Chicago in 1966?",
    "recipes from grandma's kitchen",
    "stories about the Great Migration",
    # accents and diacritics
    "café",
    "Café au lait at the café on Rue Royale.",
    "Opelousas, Louisiana — zydeco and la-la on Saturday nights.",
    "Mon frère est né à Opelousas en 1921.",
    "Antonín Dvořák wrote the New World Symphony in 1893.",
    "a naïve coöperation, a résumé and a façade",
    "Crème brûlée, jalapeño, piñata, São Paulo, Zürich, Kraków, Reykjavík",
    "Ångström, Øresund, Æsir, straße, œuvre, ﬁnance (fi ligature)",
    "Cafe\u0301 with a combining acute accent",
    "Nguyễn Thị Minh Khai street in Hồ Chí Minh City",
    "Łódź, Gdańsk, Wrocław and Poznań",
    "İstanbul and ıslak (dotted and dotless i)",
    # curly quotes, apostrophes, dashes
    "\u201cMama,\u201d she said, \u201ctell me about the flood.\u201d",
    "He didn\u2019t know; we\u2019d never told him. \u2018Hush,\u2019 said Grandma.",
    "Don't, can't, won't, y'all, ma'am, o'clock, rock 'n' roll",
    "It was 1943\u2014the war was on\u2014and everybody worked the swing shift.",
    "pages 10\u201312, the years 1937\u20131941, and a pause \u2015 then silence",
    "\u00abGuillemets\u00bb, \u201elow quotes\u201c, \u2039single\u203a and \u2032primes\u2033",
    "She said\u2026 and then \u2026 nothing.",
    # numbers and money
    "$2.40 an hour",
    "The house cost $1,000 in 1922, about $17,500 today.",
    "Interest was 3.5% and later 12.25%.",
    "1,000 people; 1.000,50 €; \u00a3300; \u00a5500; 10\u00bd acres; 3\u00b2 = 9",
    "Call 555-0147 or (313) 555-0199 ext. 12 before 9:30 a.m.",
    "On 04/11/1968 at 6:01 p.m. the news came over the radio.",
    "Route 66, I-94, the 7th Ward, the 16th Street Baptist Church, 1st and 2nd",
    "0.000001 3.14159265358979 6.022e23 -40 +7 #1 No. 9",
    # URLs and emails
    "https://www.example.com/family/tree?id=1234&lang=en#section-2",
    "Email me at ruth.carter@example.org or visit http://griot.example/stories.",
    "ftp://files.example.net/pub/README.txt and www.example.co.uk/path/to/page.html",
    "@grandma_ida #FamilyHistory #1927flood",
    "C:\\Users\\Ruth\\Documents\\family_tree_v2.gedcom",
    # CJK and other scripts
    "\u5bb6\u65cf\u306e\u6b74\u53f2",  # 家族の歴史
    "\u6211\u7684\u7956\u6bcd\u6765\u81ea\u5e7f\u4e1c\u3002",  # 我的祖母来自广东。
    "\u304a\u3070\u3042\u3061\u3083\u3093\u306e\u30ec\u30b7\u30d4",  # おばあちゃんのレシピ
    "\ud560\uba38\ub2c8\uc758 \uc774\uc57c\uae30",  # 할머니의 이야기
    "Grandma's recipe: \u7ea2\u70e7\u8089 (red-braised pork) and \u997a\u5b50",
    "\u0645\u0631\u062d\u0628\u0627 \u0628\u0627\u0644\u0639\u0627\u0644\u0645",  # مرحبا بالعالم
    "\u0627\u0644\u0639\u0627\u0626\u0644\u0629 \u0648\u0627\u0644\u062a\u0627\u0631\u064a\u062e",
    "\u041f\u0440\u0438\u0432\u0435\u0442, \u043c\u0438\u0440! \u041c\u043e\u044f \u0431\u0430\u0431\u0443\u0448\u043a\u0430 \u0436\u0438\u043b\u0430 \u0432 \u041c\u043e\u0441\u043a\u0432\u0435.",
    "\u0393\u03b5\u03b9\u03ac \u03c3\u03bf\u03c5 \u039a\u03cc\u03c3\u03bc\u03b5 \u2014 \u03b7 \u03b9\u03c3\u03c4\u03bf\u03c1\u03af\u03b1 \u03c4\u03b7\u03c2 \u03bf\u03b9\u03ba\u03bf\u03b3\u03ad\u03bd\u03b5\u03b9\u03b1\u03c2",
    "\u05e9\u05dc\u05d5\u05dd \u05e2\u05d5\u05dc\u05dd",  # שלום עולם
    "\u0928\u092e\u0938\u094d\u0924\u0947 \u0926\u0941\u0928\u093f\u092f\u093e",  # नमस्ते दुनिया
    "\u0e2a\u0e27\u0e31\u0e2a\u0e14\u0e35",  # สวัสดี
    "Yoruba: \u1eccm\u1ecd \u00ecy\u00e1 m\u00ed, \u1eb9 k\u00e1\u00e0r\u1ecd\u0300",
    # emoji and symbols
    "\U0001f600",
    "We had the best gumbo \U0001f372\U0001f525 at Mama's \u2764\ufe0f",
    "Family reunion 1993 \U0001f468\u200d\U0001f469\u200d\U0001f467\u200d\U0001f466 \U0001f3b7\U0001f3ba",
    "\u2605\u2606 \u2192 \u2190 \u2714 \u00a9 \u00ae \u2122 \u00b0F \u00b1 \u00d7 \u00f7 \u221e \u2248 \u2260",
    "\U0001d4d7\U0001d4ee\U0001d4f5\U0001d4f5\U0001d4f8 (math script letters)",
    # control characters, tabs, odd whitespace
    "tab\tseparated\tvalues",
    "line one\nline two\r\nline three\rline four",
    "bell\x07 and null\x00 and escape\x1b[0m characters",
    "zero\u200bwidth\u200bspace and soft\u00adhyphen and word\u2060joiner",
    "non\u00a0breaking\u00a0spaces and\u2003em\u2002en\u2009thin spaces",
    "\ufeffbyte order mark at the start",
    "replacement character \ufffd in the middle",
    "\t\n  \r\n",
    # capitals
    "ALL CAPS: THE WATER CAME UP TO THE PORCH!",
    "FOLK STUFF, FLORIDA",
    "NAACP, CIO, UAW LOCAL 600, WPA, USA, D.C., U.S.A.",
    "McDonald, MacArthur, O'Brien, DeShawn, LaToya, iPhone, eBay",
    # hyphenated words
    "great-great-grandmother",
    "a well-known, long-standing, hard-working, Detroit-born mother-in-law",
    "self-employed ex-husband's twenty-one-year-old step-son",
    "Batiste-Reyes and Odom-Harris married in Baton Rouge",
    "co-op re-enter pre-1900 post-war mid-century anti-lynching",
    # word-piece edge cases
    "unbelievably antidisestablishmentarianism pneumonoultramicroscopicsilicovolcanoconiosis",
    "Supercalifragilisticexpialidocious" * 4,
    "x" * 120,
    "abcdefghijklmnopqrstuvwxyz" * 4 + " and then some",
    "snake_case camelCase kebab-case PascalCase SCREAMING_SNAKE",
    "<b>bold</b> &amp; <a href=\"x\">link</a> {json: [1, 2]} `code` ~tilde~ ^caret^ |pipe|",
    "((( ))) [[[ ]]] {{{ }}} <<< >>> !!! ??? ;;; ::: ,,, ... ---",
    "Please [MASK] the door and say [CLS] or [SEP] out loud.",
    "[UNK] [PAD] tokens written out as text",
]


def hand_long_texts():
    """Synthetic texts far over 256 word pieces."""
    rng = random.Random(SEED + 1)
    words = (
        "grandmother church flood porch levee train Detroit Chicago Oakland gumbo "
        "choir shoe shop foundry union wedding letter radio kitchen recipe cousin"
    ).split()
    return [
        " ".join(rng.choice(words) for _ in range(400)),
        "the " * 400,
        "\u5bb6" * 300,
        "\U0001f600 " * 280,
        ("1,234.56 " * 150).strip(),
        "Opelousas-café-naïve-Dvořák " * 80,
    ]


def normalize_space(text):
    return re.sub(r"\s+", " ", text).strip()


def corpus_segments():
    segments = []
    for path in sorted(glob.glob(os.path.join(REPO, "corpus", "*", "*.json"))):
        with open(path, encoding="utf-8") as f:
            story = json.load(f)
        for segment in story.get("transcript", {}).get("segments", []):
            text = segment.get("text", "")
            if text.strip():
                segments.append((os.path.basename(path), text))
    return segments


def wpa_paragraphs():
    """Interview paragraphs of each volume, in order, as lists per file."""
    volumes = []
    for path in sorted(glob.glob(os.path.join(DATA, "wpa-narratives", "*.txt"))):
        with open(path, encoding="utf-8-sig") as f:
            lines = f.read().replace("\r\n", "\n").replace("\r", "\n").split("\n")
        start = next((i + 1 for i, l in enumerate(lines) if l.startswith("*** START OF")), None)
        if start is None:  # a header cut short: skip to past the "Author:" line
            start = next(i + 1 for i, l in enumerate(lines) if l.startswith("Author:"))
        end = next((i for i, l in enumerate(lines) if l.startswith("*** END OF")), len(lines))
        paragraphs, current = [], []
        for line in lines[start:end] + [""]:
            if line.strip():
                current.append(line.strip())
            elif current:
                paragraphs.append(" ".join(current))
                current = []
        kept = [
            p for p in paragraphs
            if len(p) >= 120
            and not any(word in p.lower() for word in WPA_EXCLUDED)
            and sum(c.islower() for c in p) > len(p) / 2  # prose, not headings
        ]
        volumes.append((os.path.basename(path), kept))
    return volumes


def long_concatenations(rng, pieces, count):
    """`count` texts, each consecutive pieces joined until LONG_TEXT_CHARS."""
    texts = []
    for _ in range(count):
        target = rng.randint(*LONG_TEXT_CHARS)
        i = rng.randrange(len(pieces))
        text = ""
        while len(text) < target:
            text = (text + " " + pieces[i % len(pieces)]).strip()
            i += 1
        texts.append(text)
    return texts


def select_texts():
    rng = random.Random(SEED)
    texts = list(HAND_TEXTS) + hand_long_texts()

    segments = corpus_segments()
    segment_texts = [t for _, t in segments]
    sampled = rng.sample(segments, CORPUS_SEGMENTS)
    texts += [t for _, t in sampled]
    texts += long_concatenations(rng, segment_texts, LONG_FROM_EACH_SOURCE)

    volumes = wpa_paragraphs()
    all_paragraphs = [p for _, ps in volumes for p in ps]
    per_volume = WPA_PARAGRAPHS // len(volumes)
    for _, paragraphs in volumes:
        texts += rng.sample(paragraphs, per_volume)
    texts += long_concatenations(rng, all_paragraphs, LONG_FROM_EACH_SOURCE)

    seen, unique = set(), []
    for text in texts:
        if text not in seen:
            seen.add(text)
            unique.append(text)
    return unique


def main():
    model_dir = sys.argv[1] if len(sys.argv) > 1 else DEFAULT_MODEL_DIR
    if not os.path.isfile(os.path.join(model_dir, "model.safetensors")):
        sys.exit(f"no model.safetensors in {model_dir}: run scripts/fetch-model.sh first")

    import numpy as np
    import sentence_transformers
    import torch
    import transformers
    from sentence_transformers import SentenceTransformer

    torch.manual_seed(0)
    torch.set_num_threads(1)  # one thread: the same sums in the same order every run

    model = SentenceTransformer(model_dir, device="cpu")
    model.max_seq_length = MAX_SEQ_LENGTH
    model.eval()

    with open(os.path.join(model_dir, "model.safetensors"), "rb") as f:
        model_sha256 = hashlib.sha256(f.read()).hexdigest()

    texts = select_texts()
    entries = []
    truncated = 0
    for text in texts:
        ids = model.tokenizer(text, truncation=True, max_length=MAX_SEQ_LENGTH)["input_ids"]
        # The ids the model is actually run on must be these.
        features = model.preprocess([text])
        if features["input_ids"][0].tolist() != ids:
            sys.exit(f"tokenizer ids differ from the model's own for {text!r}")
        if len(ids) == MAX_SEQ_LENGTH:
            truncated += 1
        embedding = model.encode(
            [text], batch_size=1, normalize_embeddings=True, convert_to_numpy=True
        )[0].astype("<f4")
        if embedding.shape != (DIMENSION,) or not np.all(np.isfinite(embedding)):
            sys.exit(f"bad embedding for {text!r}")
        entries.append(
            {
                "text": text,
                "ids": ids,
                "embedding": base64.b64encode(embedding.tobytes()).decode("ascii"),
            }
        )

    header = {
        "model": "all-MiniLM-L6-v2",
        "max_seq_length": MAX_SEQ_LENGTH,
        "dimension": DIMENSION,
        "generated_by": {
            "script": "scripts/make-embedding-fixture.py",
            "seed": SEED,
            "model_sha256": model_sha256,
            "sentence_transformers": sentence_transformers.__version__,
            "transformers": transformers.__version__,
            "torch": torch.__version__,
        },
    }
    # One text per line, so that a regenerated fixture diffs readably.
    head = json.dumps(header, ensure_ascii=False)[:-1]
    lines = [json.dumps(e, ensure_ascii=False, separators=(",", ":")) for e in entries]
    body = head + ',"texts":[\n' + ",\n".join(lines) + "\n]}\n"
    data = body.encode("utf-8")
    if len(data) > MAX_BYTES:
        sys.exit(f"fixture would be {len(data)} bytes, over {MAX_BYTES}")

    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    with open(OUT, "wb") as f:
        f.write(data)
    print(
        f"wrote {OUT}: {len(entries)} texts, {truncated} truncated at {MAX_SEQ_LENGTH}, "
        f"{len(data)} bytes",
        file=sys.stderr,
    )


if __name__ == "__main__":
    main()
