#!/usr/bin/env python3
"""Faithful paraphrases of cited passages, as a model writes them (issue 35, item 1).

Every item is an answer sentence that says only what its cited passage says (label 1: the
citation check must not flag it), in one of the kinds a real model writes and the check was
seen to flag:

  teller_kinship   the teller's own words restated about the teller: "my daddy" becomes
                   "Ida Mae's father", "I" becomes the teller's name
  added_quotes     words of the passage put in quotation marks (capitalised, a full stop
                   inside, straight or curly marks) inside the model's own sentence
  joined_facts     two sentences of one passage joined in one answer sentence
  metadata_date    the story's recording date (from its metadata, not the passage) given with
                   what the passage says
  paraphrase       a sentence of the passage rewritten by rule (make-groundedness-set.py's
                   paraphrase: fillers and dialect spellings out, synonyms, clauses moved, framing)

The passages are the service's own: read from a database `griot ingest corpus` made (each with
its speaker), so that an item cites what a turn would cite. `about` is what the citation check
is given on the real path (title, tellers, people, places, the passage's speaker); `story` adds
the metadata a reader has beside it (description, date, creator).

Split: a story is held out when the SHA-1 of "paraphrase:" + its id is even; the held-out file
is never read while tuning. Standard library only; seed 35.

  .build/debug/griot ingest corpus --db /tmp/paraphrase.sqlite
  scripts/make-paraphrase-set.py --db /tmp/paraphrase.sqlite    # writes evals/claims/paraphrase-{tune,heldout}.jsonl
"""
import argparse
import glob
import hashlib
import importlib.util
import json
import os
import random
import re
import sqlite3

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("groundedness_set", os.path.join(HERE, "make-groundedness-set.py"))
gs = importlib.util.module_from_spec(spec)
spec.loader.exec_module(gs)

KIN = {"mama": "mother", "momma": "mother", "mother": "mother", "mom": "mother", "daddy": "father", "papa": "father",
       "father": "father", "grandma": "grandmother", "granny": "grandmother", "grandmother": "grandmother",
       "granddaddy": "grandfather", "grandpa": "grandfather", "grandfather": "grandfather", "husband": "husband",
       "wife": "wife", "brother": "brother", "sister": "sister", "aunt": "aunt", "uncle": "uncle", "cousin": "cousin",
       "son": "son", "daughter": "daughter", "boy": "son", "girl": "daughter", "children": "children", "kids": "children"}
MY_KIN = re.compile(r"\b[Mm]y (" + "|".join(sorted(KIN, key=len, reverse=True)) + r")\b")
# A kinship word used as a name, capitalised and not after "my", "your", "his", "her" or "their".
BARE_KIN = re.compile(r"(?<!\b[Mm]y )(?<!\b[Yy]our )(?<!\bhis )(?<!\bher )(?<!\btheir )\b(Mama|Momma|Daddy|Papa|Grandma|Granny|Granddaddy|Grandpa)\b(?! [A-Z])")
YEAR = re.compile(r"\b(1[89]\d\d|20[0-2]\d)\b")


def held_out(story_id):
    return int(hashlib.sha1(("paraphrase:" + story_id).encode()).hexdigest(), 16) % 2 == 0


def first_name(person):
    person = re.sub(r'"[^"]*"', "", person)
    parts = [p for p in person.split() if p not in ("Mr.", "Mrs.", "Ms.", "Dr.", "Rev.", "Sister", "Brother")]
    if len(parts) >= 3 and parts[0] == "Ida":
        return "Ida Mae"
    return parts[0] if parts else person


def third_person(sentence, name):
    """The teller's "I", "me" and "my" as their name, where that reads cleanly; None otherwise."""
    s = sentence.strip().strip('"“”').strip()
    if "?" in s or re.search(r"\byou\b|\byour\b", s, re.IGNORECASE):
        return None
    s = MY_KIN.sub(lambda m: f"{name}'s {KIN[m.group(1).lower()]}", s)
    s = re.sub(r"\bI'm\b", f"{name} is", s)
    s = re.sub(r"\bI'd\b", f"{name} had", s)
    s = re.sub(r"\bI've\b", f"{name} has", s)
    s = re.sub(r"^I\b", name, s)
    if re.search(r"\bI\b", s):
        return None
    if re.search(r"\b(me|my|mine|myself|we|us|our)\b", s, re.IGNORECASE):
        return None
    s = re.sub(r"\s+", " ", s).strip()
    if not s:
        return None
    s = s[0].upper() + s[1:]
    return s if s[-1] in ".!" else s + "."


def lower_first(s):
    return s[0].lower() + s[1:] if s and not re.match(r"^[A-Z][a-z]+ [A-Z]|^[A-Z][a-z]*[A-Z]|^(I|Ida|Amos|Ruth)\b", s) else s


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--db", required=True, help="a database made by `griot ingest corpus --db PATH`")
    parser.add_argument("--corpus", default=os.path.join(HERE, "..", "corpus"))
    parser.add_argument("--out", default=os.path.join(HERE, "..", "evals", "claims"))
    args = parser.parse_args()
    rng = random.Random(35)

    stories = {}
    for path in sorted(glob.glob(os.path.join(args.corpus, "**", "*.json"), recursive=True)):
        with open(path, encoding="utf-8") as f:
            story = json.load(f)
        stories[story["artifact_id"]] = story
    db = sqlite3.connect(args.db)
    rows = db.execute("select storyID, ordinal, text, speaker from passage order by storyID, ordinal").fetchall()
    items = {"tune": [], "heldout": []}
    for story_id, ordinal, text, speaker in rows:
        story = stories.get(story_id)
        if story is None:
            continue
        meta = story.get("ai_metadata") or {}
        about = [story.get("title", "")] + story.get("interviewees", []) + story.get("people", []) \
            + meta.get("people", []) + meta.get("places", []) + ([speaker] if speaker else [])
        about = [a for a in about if a]
        teller = speaker or (story.get("interviewees") or [""])[0]
        name = first_name(teller) if teller else None
        date = story.get("creation_date") or ""
        described = {"description": story.get("description", ""), "date": date, "creator": story.get("creator", "")}
        split = "heldout" if held_out(story_id) else "tune"
        sentences = [s for s in gs.sentences(text) if 8 <= len(gs.words(s)) <= 40]
        if not sentences:
            continue
        made = []
        # Every sentence where the teller names their kin: "my daddy", or "Daddy" used as a name.
        if name:
            for sentence in sentences:
                if MY_KIN.search(sentence):
                    converted = third_person(sentence, name)
                elif BARE_KIN.search(sentence):
                    converted = third_person(BARE_KIN.sub(lambda m: f"{rng.choice([name + chr(39) + 's', 'their'])} {KIN[m.group(1).lower()]}", sentence), name)
                else:
                    continue
                if converted:
                    made.append(("teller_kinship", converted))
        quotable = [s for s in sentences if '"' not in s and "“" not in s]
        if name and quotable:
            s = rng.choice(quotable).rstrip(".!?")
            words = s.split(" ")
            length = rng.randint(5, min(10, len(words)))
            start = rng.randint(0, len(words) - length)
            span = " ".join(words[start:start + length]).strip(",;:")
            if len(span) >= 14 and not re.search(r"\b(I|me|my|we|our|us)\b", span):
                style = rng.randrange(4)
                if style == 0:
                    made.append(("added_quotes", f"{name} remembered it this way: “{span[0].upper() + span[1:]}.”"))
                elif style == 1:
                    made.append(("added_quotes", f'In {name}\'s words, "{span}."'))
                elif style == 2:
                    made.append(("added_quotes", f"{name} described “{span}” in the story."))
                else:
                    made.append(("added_quotes", f"As {name} put it, “{span},” and that stayed with the family."))
        if name and len(sentences) >= 2:
            pairs = [(a, b) for a, b in zip(sentences, sentences[1:])]
            rng.shuffle(pairs)
            for a, b in pairs:
                first, second = third_person(a, name), third_person(b, name)
                if first and second:
                    joiner = rng.choice([", and ", "; ", ", and later "])
                    made.append(("joined_facts", first.rstrip(".!") + joiner + lower_first(second)))
                    break
        year = YEAR.search(date)
        if name and year:
            candidates = [third_person(s, name) for s in sentences]
            candidates = [c for c in candidates if c and year.group(0) not in text]
            if candidates:
                c = rng.choice(candidates)
                lead = rng.choice([f"In a {year.group(0)} recording, ", f"Recorded in {date}, the story says that ",
                                   f"Speaking in {year.group(0)}, {name} recalled that "])
                made.append(("metadata_date", lead + lower_first(c)))
        plain = rng.choice(sentences)
        rewritten = gs.paraphrase(plain, rng)
        if rewritten and len(gs.words(rewritten)) >= 6:
            made.append(("paraphrase", rewritten))
        for kind, claim in made:
            items[split].append({"kind": kind, "label": 1, "claim": claim, "passage": text, "about": about,
                                 "story": described, "source": f"demo:{story_id}#{ordinal}", "split": split})
    os.makedirs(args.out, exist_ok=True)
    for split, rows_out in items.items():
        path = os.path.join(args.out, f"paraphrase-{split}.jsonl")
        with open(path, "w", encoding="utf-8") as f:
            for item in rows_out:
                f.write(json.dumps(item, ensure_ascii=False) + "\n")
        counts = {}
        for item in rows_out:
            counts[item["kind"]] = counts.get(item["kind"], 0) + 1
        print(f"{path}: {len(rows_out)} items {dict(sorted(counts.items()))}")


if __name__ == "__main__":
    main()
