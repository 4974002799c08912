#!/usr/bin/env python3
"""Trains the moderator's learned semantic layer (ModerationClassifier) offline with numpy.

Two logistic-regression heads, self-harm and harm to others (threats, insults, dehumanising
language), over features the Swift side computes the same way (ModerationClassifier.swift):
  - mean and max of the centred static MiniLM word-piece vectors (the table ModerationSemantics
    caches beside the model, griot-moderation-static-v1.f32), 2 x 384;
  - hashed word unigrams and bigrams (FNV-1a, 32 bit, modulo BUCKETS), present or not.
Trained only on our own text: evals/moderation/semantic-training.jsonl (written for this),
tuning.jsonl and cases.jsonl, and the files FILES lists. Never on holdout.jsonl, crafted.jsonl
or the second held-out set (indirect-holdout-2.jsonl, fuzz-holdout-2.jsonl).
Thresholds are set on out-of-fold scores (5 folds) so that at most MAX_FP of the benign lines
of the training data cross them; the result is written as a generated Swift file with the hash
of its inputs.

  python3 scripts/train-moderation-classifier.py [MODEL_DIR]
"""
import base64, hashlib, json, os, re, sys, unicodedata
import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MODEL = sys.argv[1] if len(sys.argv) > 1 else os.environ.get("GRIOT_MODEL_DIR", os.path.expanduser("~/.cache/griot/models/all-MiniLM-L6-v2"))
FILES = ["evals/moderation/semantic-training.jsonl", "evals/moderation/semantic-training-2.jsonl", "evals/moderation/tuning.jsonl", "evals/moderation/cases.jsonl",
         # Issue 35, second round: indirect harm and its benign look-alikes. The first held-out
         # set (indirect-holdout, fuzz-holdout) is tuning material since its figures were
         # recorded; the second (indirect-holdout-2, fuzz-holdout-2) is never read here.
         "evals/moderation/indirect-tuning-2.jsonl", "evals/moderation/indirect-tuning.jsonl", "evals/moderation/indirect-holdout.jsonl",
         "evals/moderation/fuzz-holdout.jsonl"]
BUCKETS = 4096
# Share of the training data's hard benign lines (grief, idioms, method-like questions with a
# safe reading, giving things away after a move) a head's line may let over, out of fold. The
# hard lines are far harder than ordinary messages; the pipeline's gates and the held-out
# benign figure are what the 2 % target is judged on.
MAX_FP = {"selfHarm": 0.06, "harm": 0.04}
L2 = 1e-3
MEAN_SCALE = 3.0
# Words that send a sentence past the layer in ModerationSemanticGate (history, reports, lessons):
# the benign lines they cover never meet the classifier, so they do not set its threshold.
GATED = set("said says told tells remembered remembers recalled recalls described describes recounted recounts interview interviewer interviewed narrative narratives archive recording account story stories wrote survivors survived history documentary novel character contaba recordaba conto historia call calling called saying say explain lesson class training students student teachers teacher workshop module research prevention warning signs paragraph discuss support counseling counselling friend classmate someone somebody".split())
OUT = os.path.join(ROOT, "Sources/GriotSafety/ModerationClassifierWeights.swift")

vocab = [l.rstrip("\n") for l in open(os.path.join(MODEL, "vocab.txt"), encoding="utf-8")]
index = {p: i for i, p in enumerate(vocab)}
raw = open(os.path.join(MODEL, "griot-moderation-static-v1.f32"), "rb").read()
rows, cols, _ = np.frombuffer(raw[:24], dtype=np.int64)
table = np.frombuffer(raw[24:], dtype=np.float32).reshape(rows, cols)
centre = table.mean(axis=0)
centred = table - centre

CONTRACTED_IS = {"it", "that", "he", "she", "what", "there", "who", "here", "where", "this", "everything", "nothing", "everyone", "everybody", "let"}

def expand(word):
    if "'" not in word: return [word]
    head, tail = word.split("'", 1)
    if tail == "t":
        return {"can": ["can", "not"], "won": ["will", "not"], "ain": ["is", "not"], "shan": ["shall", "not"]}.get(head, [head[:-1], "not"] if head.endswith("n") else [head])
    return {"re": [head, "are"], "m": [head, "am"], "ll": [head, "will"], "ve": [head, "have"], "d": [head, "would"]}.get(tail,
        (["let", "us"] if head == "let" else [head, "is"] if head in CONTRACTED_IS else [head]) if tail == "s" else [head + tail])

def fold(text):
    return "".join(c for c in unicodedata.normalize("NFD", text) if unicodedata.category(c) != "Mn")

def sentences(text):
    """Roughly the moderator's words per sentence: lower case, accents folded, contractions expanded."""
    text = fold(text.lower().replace("\u2019", "'"))
    out = []
    for part in re.split(r"[.!?;]+", text):
        words = []
        for w in re.findall(r"[\w*']+", part):
            w = w.strip("'")
            if w: words.extend(x for x in expand(w) if x)
        if words: out.append(words)
    return out

def wordpiece(word):
    pieces, start = [], 0
    while start < len(word):
        end, found = len(word), None
        while start < end:
            piece = word[start:end] if start == 0 else "##" + word[start:end]
            if piece in index: found = index[piece]; break
            end -= 1
        if found is None: return [index["[UNK]"]]
        pieces.append(found); start = end
    return pieces

def piece_ids(words):
    ids = []
    for w in words:
        for token in re.findall(r"\w+|[^\w\s]", w):
            ids.extend(wordpiece(token))
    return [i for i in ids if not (vocab[i].startswith("[") and vocab[i].endswith("]")) and any(ch.isalnum() for ch in vocab[i])]

def fnv(s):
    h = 0x811C9DC5
    for b in s.encode("utf-8"):
        h ^= b; h = (h * 0x01000193) & 0xFFFFFFFF
    return h

def features(words):
    x = np.zeros(2 * cols + BUCKETS, dtype=np.float32)
    ids = piece_ids(words)
    if ids:
        v = centred[ids]
        mean = v.mean(axis=0); n = np.linalg.norm(mean)
        # Scaled by MEAN_SCALE so the unit-length mean weighs about as much as the other parts.
        x[:cols] = MEAN_SCALE * (mean / n if n > 0 else mean)
        x[cols:2 * cols] = v.max(axis=0)
    for i, w in enumerate(words):
        x[2 * cols + fnv(w) % BUCKETS] = 1
        if i > 0: x[2 * cols + fnv(words[i - 1] + " " + w) % BUCKETS] = 1
    return x

def load():
    texts, labels = [], []
    for f in FILES:
        for line in open(os.path.join(ROOT, f), encoding="utf-8"):
            if not line.strip(): continue
            r = json.loads(line)
            label = r.get("label") or {"crisis": "self_harm", "block": "harm", "allow": "benign"}[r["expect"]]
            texts.append(r["text"]); labels.append(label)
    return texts, labels

def train(X, y, epochs=300):
    w = np.zeros(X.shape[1], dtype=np.float64); b = 0.0
    pos = y.mean(); weight = np.where(y == 1, 0.5 / max(pos, 1e-6), 0.5 / max(1 - pos, 1e-6))
    m = np.zeros_like(w); v = np.zeros_like(w); mb = vb = 0.0
    for t in range(1, epochs + 1):
        p = 1 / (1 + np.exp(-(X @ w + b)))
        g = (weight * (p - y)); gw = X.T @ g / len(y) + L2 * w; gb = g.mean()
        m = 0.9 * m + 0.1 * gw; v = 0.999 * v + 0.001 * gw * gw
        mb = 0.9 * mb + 0.1 * gb; vb = 0.999 * vb + 0.001 * gb * gb
        w -= 0.1 * (m / (1 - 0.9 ** t)) / (np.sqrt(v / (1 - 0.999 ** t)) + 1e-8)
        b -= 0.1 * (mb / (1 - 0.9 ** t)) / (np.sqrt(vb / (1 - 0.999 ** t)) + 1e-8)
    return w, b

def main():
    texts, labels = load()
    # A message is as harmful as its worst sentence; each sentence of a harmful message is kept
    # with the message's label only when the message has one sentence, else the whole message.
    # The Swift side scores every sentence and the whole message; every sentence of a benign
    # message is benign, so those sentences are examples too (a harmful message's sentences are
    # not: which one carries the harm is not labelled).
    rows, row_labels, row_texts = [], [], []
    for t, label in zip(texts, labels):
        parts = sentences(t)
        rows.append([w for s in parts for w in s]); row_labels.append(label); row_texts.append(t)
        if label == "benign" and len(parts) > 1:
            for part in parts:
                if len(part) >= 2: rows.append(part); row_labels.append(label); row_texts.append(" ".join(part))
    texts = row_texts
    X = np.stack([features(r) for r in rows])
    labels = np.array(row_labels)
    met = np.array([not (set(w for s in sentences(t) for w in s) & GATED) and not re.search(r"\b1[5-9]\d\d\b|\b200\d\b", t) for t in texts])
    rng = np.random.default_rng(14)
    folds = rng.integers(0, 5, len(texts))
    result = {}
    for head, positive in [("selfHarm", "self_harm"), ("harm", "harm")]:
        y = (labels == positive).astype(np.float64)
        oof = np.zeros(len(y))
        for k in range(5):
            tr, te = folds != k, folds == k
            w, b = train(X[tr], y[tr]); oof[te] = X[te] @ w + b
        benign = np.sort(oof[(labels == "benign") & met])[::-1]
        allowed = int(np.floor(MAX_FP[head] * len(benign)))
        threshold = float(benign[allowed]) + 1e-3
        recall = float((oof[y == 1] > threshold).mean())
        fp = float((oof[(labels == "benign") & met] > threshold).mean())
        gated_benign = int(((labels == "benign") & met).sum())
        print(f"{head}: out-of-fold recall {recall:.3f} ({int((oof[y == 1] > threshold).sum())}/{int(y.sum())}), benign lines the gate lets through over the line {fp:.3f} of {gated_benign}, logit threshold {threshold:.3f}", file=sys.stderr)
        for i in np.where((y == 1) & (oof <= threshold))[0]: print("  missed:", texts[i], file=sys.stderr)
        for i in np.where((labels == "benign") & met & (oof > threshold))[0]: print("  benign over:", texts[i], file=sys.stderr)
        w, b = train(X, y)
        result[head] = (w.astype(np.float32), float(b), threshold)
    digest = hashlib.sha256()
    for f in FILES + ["scripts/train-moderation-classifier.py"]:
        digest.update(open(os.path.join(ROOT, f), "rb").read())
    def b64(a): return base64.b64encode(a.astype("<f4").tobytes()).decode()
    with open(OUT, "w", encoding="utf-8") as out:
        out.write("// Generated by scripts/train-moderation-classifier.py; do not edit. Run the script again after\n")
        out.write("// changing the training files; the hash covers them and the script.\n")
        out.write(f"// Inputs: {', '.join(FILES)}\n\n")
        out.write("enum ModerationClassifierWeights {\n")
        out.write(f"    static let inputsHash = \"{digest.hexdigest()[:16]}\"\n")
        out.write(f"    static let dimension = {cols}\n    static let buckets = {BUCKETS}\n    static let meanScale: Float = {MEAN_SCALE!r}\n")
        for head, (w, b, t) in result.items():
            out.write(f"    static let {head}Bias: Float = {b!r}\n")
            out.write(f"    /// Logit a sentence must exceed: at most {MAX_FP[head]:.0%} of the training data's hard benign lines, out of fold, cross it.\n")
            out.write(f"    static let {head}Threshold: Float = {t!r}\n")
            out.write(f"    static let {head}Weights = \"{b64(w)}\"\n")
        out.write("}\n")
    print("wrote", OUT, file=sys.stderr)

if __name__ == "__main__":
    main()
