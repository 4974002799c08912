#!/usr/bin/env python3
"""Builds the claim-level citation set by perturbation (issue 14, item 5).

Each item is one cited sentence, the passage it cites and what that story says about itself
(title, tellers, people, places); it is made beside the other passages retrieval would give
(two more of the same story, three of other stories, as a turn's six), which lend the
other_story values. The check under test (GroundedClaim, what
CitationFinder runs on every cited sentence) must accept the unaltered sentence and flag each
altered one, judging against the cited passage only:

  supported     label 1: a sentence of the cited passage rewritten by rule (make-groundedness-set.py's
                paraphrase: fillers and dialect spellings out, "I" -> "she", synonyms, clauses moved, framing)
  swap_name     label 0: a person's name swapped for another retrieved passage's name (else an invented one)
  swap_place    label 0: a place swapped for another
  swap_number   label 0: a number (not a year) changed
  swap_year     label 0: a year moved 2-25 years
  swap_kinship  label 0: a kinship word (mother, uncle, cousin, ...) swapped for another
  negation      label 0: "not"/"never" added, or the sentence's own negation taken out
  other_story   label 0: a year, place, name or number replaced by one that another retrieved
                story holds (the case a check against all passages misses)

A swapped value is never one the cited passage (or its story's description) already holds: a
swap to a value the same passage holds elsewhere is outside what this set measures.

Split: a story belongs to the held-out part when the SHA-1 of its id is 0 mod 3; the held-out
part is never used for tuning. Demo-corpus items (text written for this project) go to
evals/claims/{tune,heldout}.jsonl; WPA items (public-domain text we do not copy into the
repository) to .build/evals/claims-wpa-{tune,heldout}.jsonl. Standard library only; seed 14.

  scripts/make-claims-set.py --data ../shared/data
"""
import argparse
import glob
import hashlib
import importlib.util
import json
import os
import random
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("groundedness_set", os.path.join(HERE, "make-groundedness-set.py"))
gs = importlib.util.module_from_spec(spec)
spec.loader.exec_module(gs)

YEAR = re.compile(r"\b(1[6-9]\d\d|20[0-2]\d)\b")
KIN = ["mother", "father", "grandmother", "grandfather", "aunt", "uncle", "brother", "sister", "cousin",
       "son", "daughter", "husband", "wife", "niece", "nephew"]
KIN_RE = re.compile(r"\b(" + "|".join(KIN + ["mama", "daddy", "papa", "grandma", "grandpa", "granny"]) + r")(s?)\b", re.IGNORECASE)
SAME_RELATION = {"mama": "mother", "daddy": "father", "papa": "father", "grandma": "grandmother",
                 "granny": "grandmother", "grandpa": "grandfather"}
AUX = re.compile(r"\b(was|were|had|could|would|is|are|did|will|should|might|must|has|have)\b(?! not\b)(?!n't)")
NEGATIONS = [(re.compile(r"\b(not|never) ", re.IGNORECASE), ""),
             (re.compile(r"\b(was|were|had|could|would|did|does|do|is|are|has|have|should)n[’']t\b", re.IGNORECASE), r"\1"),
             (re.compile(r"\bcan[’']t\b", re.IGNORECASE), "can"), (re.compile(r"\bwon[’']t\b", re.IGNORECASE), "will"),
             (re.compile(r"\bain[’']t\b", re.IGNORECASE), "is")]


def held_out(story_id):
    return int(hashlib.sha1(story_id.encode()).hexdigest(), 16) % 3 == 0


def load_demo(root):
    stories = []
    for path in sorted(glob.glob(os.path.join(root, "**", "*.json"), recursive=True)):
        with open(path, encoding="utf-8") as f:
            story = json.load(f)
        transcript = story.get("transcript")
        if isinstance(transcript, str):
            text = transcript
        elif isinstance(transcript, dict) and "segments" in transcript:
            text = "\n".join(segment["text"] for segment in transcript["segments"])
        else:
            text = (transcript or {}).get("text", "")
        meta = story.get("ai_metadata") or {}
        about = [story.get("title", "")] + story.get("interviewees", []) + story.get("people", []) \
            + meta.get("people", []) + meta.get("places", [])
        stories.append({"id": story["artifact_id"], "source": "demo", "text": text, "about": [a for a in about if a]})
    return stories


def names_of(text, common):
    """Capitalised words that name someone. The groundedness set's names_in takes any capitalised
    word not after ". ", so a word opening a quoted sentence ('"Down the road', "'Bout") or a
    sentence after a colon counted as a name, and swaps drew common words ("Down", "Once",
    "Some", "During") from other passages or replaced a sentence's first word: no lie a check
    can see (the label noise measured on the tuning set). Here a name is past the start of its
    sentence (quotes, apostrophes and brackets skipped) and is a word the set's stories never
    write in lower case."""
    found = []
    for m in re.finditer(r"\b[A-Z][a-z]{2,}\b", text):
        word = m.group(0)
        before = text[:m.start()].rstrip(" \"'“”‘’([")
        if not before or before[-1] in ".!?:;…—-":
            continue
        if word in gs.NOT_NAMES or word in gs.MONTHS or word.lower() in common:
            continue
        if any(word in place.split() for place in gs.PLACES):
            continue
        found.append(word)
    return found


def contains(text, value):
    return re.search(rf"\b{re.escape(value)}\b", text, re.IGNORECASE) is not None


def swap_name(sentence, cited, others, common, rng):
    names = names_of(sentence, common)
    if not names:
        return None
    old = rng.choice(names)
    pool = [n for p in others for n in names_of(p, common) if not contains(cited, n)] or [n for n in gs.NAME_POOL if not contains(cited, n)]
    return re.sub(rf"\b{old}\b", rng.choice(pool), sentence, count=1)


def swap_place(sentence, cited, about, rng):
    places = [p for p in gs.PLACES if contains(sentence, p)]
    places += [a.split(",")[0] for a in about if a and contains(sentence, a.split(",")[0]) and a.split(",")[0] not in places
               and a.split(",")[0][:1].isupper()]
    if not places:
        return None
    old = rng.choice(places)
    pool = [p for p in gs.PLACES if not contains(cited, p)]
    return sentence.replace(old, rng.choice(pool), 1)


def swap_number(sentence, cited, rng):
    digits = [d for d in re.findall(r"\b\d[\d,]*\b", sentence) if not YEAR.fullmatch(d)]
    if digits:
        old = rng.choice(digits)
        value = int(old.replace(",", ""))
        for _ in range(20):
            new = str(max(0, value + rng.choice([-1, 1]) * rng.randint(1, max(3, value // 2))))
            if new != str(value) and not contains(cited, new):
                return re.sub(rf"\b{re.escape(old)}\b", new, sentence, count=1)
    spelled = [w for w in gs.NUMBER_WORDS if contains(sentence, w)]
    if spelled:
        old = rng.choice(spelled)
        pool = [w for w in gs.NUMBER_WORDS if not contains(cited, w)]
        if pool:
            return re.sub(rf"\b{old}\b", rng.choice(pool), sentence, count=1, flags=re.IGNORECASE)
    return None


def swap_year(sentence, cited, rng):
    years = YEAR.findall(sentence)
    if not years:
        return None
    old = rng.choice(years)
    for _ in range(20):
        new = str(int(old) + rng.choice([-1, 1]) * rng.randint(2, 25))
        if not contains(cited, new):
            return re.sub(rf"\b{old}\b", new, sentence, count=1)
    return None


def swap_kinship(sentence, cited, rng):
    found = list(KIN_RE.finditer(sentence))
    if not found:
        return None
    match = rng.choice(found)
    # "Mama" -> "mother" names the same person (no lie): the new word is another relation.
    relation = SAME_RELATION.get(match.group(1).lower(), match.group(1).lower())
    pool = [k for k in KIN if k != relation and not contains(cited, k)]
    if not pool:
        return None
    new = rng.choice(pool)
    if match.group(1)[0].isupper():
        new = new.capitalize()
    return sentence[:match.start()] + new + match.group(2) + sentence[match.end():]


def negate(sentence, rng):
    for pattern, replacement in NEGATIONS:
        if pattern.search(sentence):
            return re.sub(r"\s+", " ", pattern.sub(replacement, sentence, count=1))
    aux = AUX.search(sentence)
    if aux:
        return sentence[:aux.end()] + " not" + sentence[aux.end():]
    verbs = [m for m in re.finditer(r"\b([a-z]{3,}ed)\b", sentence)]
    if verbs:
        verb = verbs[0]
        return sentence[:verb.start()] + "never " + sentence[verb.start():]
    return None


def from_other_story(sentence, cited, foreign, common, rng):
    """A year, place, name or number of the sentence replaced by one of the same kind that a
    passage of another retrieved story holds and the cited passage does not."""
    options = []
    for year in YEAR.findall(sentence):
        pool = [y for p in foreign for y in YEAR.findall(p) if y != year and not contains(cited, y)]
        if pool:
            options.append((year, rng.choice(pool)))
    for place in [p for p in gs.PLACES if contains(sentence, p)]:
        pool = [p for f in foreign for p in gs.PLACES if contains(f, p) and not contains(cited, p)]
        if pool:
            options.append((place, rng.choice(pool)))
    for name in names_of(sentence, common):
        pool = [n for f in foreign for n in names_of(f, common) if not contains(cited, n)]
        if pool:
            options.append((name, rng.choice(pool)))
    for number in [d for d in re.findall(r"\b\d+\b", sentence) if not YEAR.fullmatch(d)]:
        pool = [d for f in foreign for d in re.findall(r"\b\d+\b", f) if not YEAR.fullmatch(d) and not contains(cited, d)]
        if pool:
            options.append((number, rng.choice(pool)))
    if not options:
        return None
    old, new = rng.choice(options)
    return re.sub(rf"\b{re.escape(old)}\b", new, sentence, count=1)


def make_items(stories, rng, per_passage):
    # Words the stories write in lower case somewhere ("down", "once", "during"): not names.
    common = {w for s in stories for w in re.findall(r"\b[a-z]+\b", s["text"])}
    items = []
    for story in stories:
        others = [s for s in stories if s is not story]
        for p_index, passage in enumerate(story["passages"]):
            candidates = [s for s in gs.sentences(passage) if gs.MIN_WORDS <= len(gs.words(s)) <= gs.MAX_WORDS]
            rng.shuffle(candidates)
            chosen = candidates[:per_passage]
            # Kinship words, years and negations are rarer: one more sentence that has one.
            rarer = [c for c in candidates[per_passage:] if KIN_RE.search(c) or YEAR.search(c)
                     or any(p.search(c) for p, _ in NEGATIONS)]
            chosen += rarer[:1]
            for sentence in chosen:
                same = [p for i, p in enumerate(story["passages"]) if i != p_index]
                rng.shuffle(same)
                foreign_stories = rng.sample(others, 3)
                foreign = [rng.choice(s["passages"]) for s in foreign_stories]
                retrieved = [passage] + same[:2] + foreign
                rng.shuffle(retrieved)
                claim = gs.paraphrase(sentence, rng)
                if len(gs.words(claim)) < 5:
                    continue
                cited_text = passage + "\n" + "\n".join(story["about"])
                # The item keeps the cited passage only: the check reads nothing else.
                base = {"story": story["id"], "source": story["source"], "split": "heldout" if held_out(story["id"]) else "tune",
                        "passage": passage, "about": story["about"]}
                items.append({**base, "kind": "supported", "label": 1, "claim": claim})
                altered = {
                    "swap_name": swap_name(claim, cited_text, [p for p in retrieved if p is not passage], common, rng),
                    "swap_place": swap_place(claim, cited_text, story["about"], rng),
                    "swap_number": swap_number(claim, cited_text, rng),
                    "swap_year": swap_year(claim, cited_text, rng),
                    "swap_kinship": swap_kinship(claim, cited_text, rng),
                    "negation": negate(claim, rng),
                    "other_story": from_other_story(claim, cited_text, foreign, common, rng),
                }
                for kind, text in altered.items():
                    if text and text != claim:
                        items.append({**base, "kind": kind, "label": 0, "claim": text})
    return items


def write(items, path):
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        for item in items:
            f.write(json.dumps(item, ensure_ascii=False, sort_keys=True) + "\n")
    counts = {}
    for item in items:
        counts[item["kind"]] = counts.get(item["kind"], 0) + 1
    print(f"{len(items)} items -> {path}: " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())), file=sys.stderr)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--corpus", default="corpus")
    parser.add_argument("--data", default="../shared/data", help="folder holding wpa-narratives/")
    parser.add_argument("--out", default="evals/claims", help="folder for the demo-corpus sets")
    parser.add_argument("--wpa-out", default=".build/evals", help="folder for the WPA sets (never committed)")
    parser.add_argument("--seed", type=int, default=14)
    parser.add_argument("--per-passage", type=int, default=2)
    parser.add_argument("--wpa-stories", type=int, default=60, help="WPA interviews used (0 for none)")
    args = parser.parse_args()

    rng = random.Random(args.seed)
    demo = load_demo(args.corpus)
    for story in demo:
        story["passages"] = gs.passages_of(story["text"])
    demo = [s for s in demo if s["passages"]]
    items = make_items(demo, rng, args.per_passage)
    write([i for i in items if i["split"] == "tune"], os.path.join(args.out, "tune.jsonl"))
    write([i for i in items if i["split"] == "heldout"], os.path.join(args.out, "heldout.jsonl"))

    folder = os.path.join(args.data, "wpa-narratives")
    if args.wpa_stories and os.path.isdir(folder):
        # Its own generator: a change to the demo part's draws does not pick other interviews.
        rng = random.Random(args.seed)
        wpa = gs.load_wpa(folder)
        rng.shuffle(wpa)
        wpa = sorted(wpa[: args.wpa_stories], key=lambda s: s["id"])
        for story in wpa:
            story["passages"] = gs.passages_of(story["text"])
            story["about"] = []
        wpa = [s for s in wpa if s["passages"]]
        items = make_items(wpa, rng, 1)
        write([i for i in items if i["split"] == "tune"], os.path.join(args.wpa_out, "claims-wpa-tune.jsonl"))
        write([i for i in items if i["split"] == "heldout"], os.path.join(args.wpa_out, "claims-wpa-heldout.jsonl"))
    elif args.wpa_stories:
        print(f"no {folder}; demo corpus only", file=sys.stderr)


if __name__ == "__main__":
    main()
