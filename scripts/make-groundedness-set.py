#!/usr/bin/env python3
"""Builds the labelled groundedness evaluation set by perturbation (issue 6).

Stories come from the demo corpus (corpus/**/*.json) and the WPA narratives
(../shared/data/wpa-narratives/*.txt, interviews delimited as SOURCE.md there says: by the
largest runs of blank lines). Each story is cut into passages of about 150 words; an item
gives the scorer six passages, as retrieval would (the source passage, two more from the same
story, three from other stories), and one answer-like sentence:

  paraphrase    label 1: a sentence of the source passage, rewritten by rule (fillers and
                dialect spellings dropped, "I" -> "she", synonyms, clauses reordered,
                sometimes framed "She recalled that ...")
  swap_name     label 0: the same paraphrase with a person's name swapped for one no passage has
  swap_date     label 0: ... a year or month swapped
  swap_number   label 0: ... a number swapped
  swap_place    label 0: ... a place swapped
  other_story   label 0: a sentence from a story none of the passages comes from, paraphrased alike

Every negative goes through the same rewriting as the positives, so the only thing that
separates them is what the label says. Standard library only; deterministic for a seed.
The output holds WPA text, so it goes under .build/ (outside git), never into the repo.

  scripts/make-groundedness-set.py --data ../shared/data --out .build/evals/groundedness.jsonl
"""
import argparse
import glob
import json
import os
import random
import re
import sys

WORD_TARGET = 150
MIN_WORDS, MAX_WORDS = 8, 40

FILLERS = [r"\bwell,\s*", r"\byou know,?\s*", r"\bI mean,?\s*", r"\buh,?\s*", r"\bum,?\s*",
           r"\boh,\s*", r"\b(honey|baby|child|chile|suh|sir|ma'am),\s*", r",\s*(honey|baby|child|suh|sir|ma'am)\b",
           r"\bjust\s+", r"\breally\s+"]

DIALECT = {"de": "the", "dey": "they", "dem": "them", "dat": "that", "dis": "this", "wuz": "was",
           "ter": "to", "gwine": "going", "wid": "with", "bawn": "born", "chillun": "children",
           "chilluns": "children", "marster": "master", "massa": "master", "marse": "master",
           "ole": "old", "an'": "and", "'em": "them", "dere": "there", "den": "then", "nothin'": "nothing",
           "somethin'": "something", "'members": "remembers", "'member": "remember", "befo'": "before",
           "fo'": "for", "mo'": "more", "kin'": "kind", "ol'": "old", "jes'": "just", "git": "get"}

PERSON = [(r"\bI'm\b", "she's"), (r"\bI've\b", "she has"), (r"\bI'd\b", "she'd"), (r"\bI'll\b", "she'll"),
          (r"\bI's\b", "she's"), (r"\bI am\b", "she is"), (r"\bI have\b", "she has"), (r"\bI do\b", "she does"),
          (r"\bI don't\b", "she doesn't"), (r"\bI\b", "she"), (r"\bme\b", "her"), (r"\bmy\b", "her"),
          (r"\bmine\b", "hers"), (r"\bmyself\b", "herself"), (r"\bwe're\b", "they're"), (r"\bwe\b", "they"),
          (r"\bus\b", "them"), (r"\bour\b", "their"), (r"\bourselves\b", "themselves")]

SYNONYMS = {"big": "large", "little": "small", "started": "began", "start": "begin", "house": "home",
            "children": "kids", "job": "work", "said": "told them", "went": "headed", "bought": "purchased",
            "mama": "her mother", "daddy": "her father", "papa": "her father", "got": "received",
            "worked": "labored", "lots": "plenty", "remember": "recall", "happy": "glad", "afraid": "scared",
            "cried": "wept", "learned": "found out", "place": "spot", "talk": "speak", "quit": "left",
            "old": "elderly", "road": "street", "ran": "rushed", "fast": "quickly", "church": "congregation",
            "killed": "slain", "wanted": "wished", "told": "informed", "kept": "held", "whole": "entire"}

LOWERABLE = set("she they the he it there her their at in on when after before during then one a an and but so his that this all some every once while because if since two three".split())
FRAMES = ["She recalled that {s}", "According to the story, {s}", "{S}", "{S}", "{S}", "The storyteller says {s}"]

MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September",
          "October", "November", "December"]
NUMBER_WORDS = ["two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve",
                "fifteen", "twenty", "thirty", "forty", "fifty", "hundred"]
PLACES = ["Alabama", "Arkansas", "Georgia", "Florida", "Mississippi", "Louisiana", "Texas", "Missouri",
          "Tennessee", "Kentucky", "Virginia", "Carolina", "Chicago", "Detroit", "Memphis", "Atlanta",
          "Oakland", "Houston", "Savannah", "Charleston", "Birmingham", "Jacksonville", "Tallahassee",
          "St. Louis", "Kansas City", "New Orleans", "Natchez", "Macon", "Augusta", "Columbia", "Galveston",
          "Greenville", "Clarksdale", "Opelousas", "Richmond", "Baltimore", "Philadelphia", "Harlem",
          "Cleveland", "Pittsburgh", "Los Angeles", "San Francisco", "Milwaukee", "Gary", "Natchitoches",
          "Mobile", "Montgomery", "Selma", "Vicksburg", "Nashville", "Louisville", "Norfolk", "Raleigh"]
NAME_POOL = ["Hattie", "Clarence", "Odessa", "Willie", "Mattie", "Josephine", "Elijah", "Rosa", "Luther",
             "Cornelius", "Bessie", "Thaddeus", "Minnie", "Ezekiel", "Viola", "Horace", "Lucinda", "Jasper",
             "Pearl", "Ambrose", "Dorothea", "Percy", "Beulah", "Otis", "Florence", "Silas", "Lottie",
             "Rufus", "Ophelia", "Moses", "Winifred", "Booker", "Henrietta", "Isaiah", "Nellie", "Calvin"]
NOT_NAMES = set("""I God Lord Jesus Christ Mister Miss Mr Mrs Ms Dr Rev Aunt Uncle Marse Massa Marster Missus
Mama Daddy Papa Christmas Easter Sunday Monday Tuesday Wednesday Thursday Friday Saturday Yankees Yankee
Negro Negroes White Black The A An And But So Then When After Before In On At Of For To With We They He She
It That This There Yes No Oh Well Now Everybody Somebody Nobody Bible Baptist Methodist Church War Civil
North South East West She's He's I'm American America Freedom Emancipation Confederate Union Ku Klux Klan""".split())


def words(text):
    return re.findall(r"[A-Za-z0-9'’]+", text)


def sentences(text):
    text = re.sub(r"\s+", " ", text).strip()
    return [s.strip() for s in re.split(r"(?<=[.!?])[\"”’)]*\s+(?=[\"“(]?[A-Z0-9])", text) if s.strip()]


def passages_of(text):
    out, current, count = [], [], 0
    for sentence in sentences(text):
        current.append(sentence)
        count += len(words(sentence))
        if count >= WORD_TARGET:
            out.append(" ".join(current))
            current, count = [], 0
    if count >= WORD_TARGET // 2:
        out.append(" ".join(current))
    return out


def load_corpus(root):
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
        stories.append({"id": story["artifact_id"], "source": "demo", "text": text})
    return stories


def load_wpa(folder):
    """One story per interview: sections between the largest runs of blank lines (SOURCE.md)."""
    stories = []
    for path in sorted(glob.glob(os.path.join(folder, "*.txt"))):
        with open(path, encoding="utf-8-sig") as f:
            raw = f.read().replace("\r\n", "\n")
        blank_runs = [len(run) - 1 for run in re.findall(r"\n{2,}", raw)]
        if not blank_runs:
            continue
        paragraph_gap = sorted(blank_runs)[len(blank_runs) // 2]
        boundary = "\n{%d,}" % (paragraph_gap * 4 + 1)
        sections = re.split(boundary, raw)
        name = os.path.basename(path)[:-4]
        for index, section in enumerate(sections):
            if "Gutenberg" in section or "INFORMANTS" in section or len(words(section)) < 250:
                continue
            text = re.sub(r"\[[^\]]*\]|[*=_]", " ", section)
            stories.append({"id": f"wpa-{name}-{index}", "source": "wpa", "text": text})
    return stories


def paraphrase(sentence, rng):
    s = sentence.strip().strip('"“”').strip()
    for pattern in FILLERS:
        s = re.sub(pattern, "", s, flags=re.IGNORECASE)
    s = re.sub(r"[A-Za-z']+", lambda m: DIALECT.get(m.group(0).lower(), m.group(0)), s)
    for pattern, replacement in PERSON:
        s = re.sub(pattern, replacement, s)
    tokens = s.split(" ")
    for i, token in enumerate(tokens):
        bare = token.strip(",.;:!?\"").lower()
        if bare in SYNONYMS and token[:1].islower() and rng.random() < 0.6:
            tokens[i] = token.lower().replace(bare, SYNONYMS[bare])
    s = " ".join(t for t in tokens if t)
    # Reorder: a leading subordinate clause goes to the end, or a trailing one to the front.
    clause = re.match(r"^(When|After|Before|Because|If|Once|While|Since) ([^,]+), (.+?)([.!?]?)$", s)
    if clause and rng.random() < 0.7:
        s = f"{clause.group(3)} {clause.group(1).lower()} {clause.group(2)}{clause.group(4) or '.'}"
    else:
        tail = re.match(r"^(.+?),? (when|after|before|because) ([^,]+?)([.!?])$", s)
        if tail and rng.random() < 0.5:
            s = f"{tail.group(2).capitalize()} {tail.group(3)}, {tail.group(1)[0].lower() + tail.group(1)[1:]}{tail.group(4)}"
    s = re.sub(r"\s+", " ", s).strip(" ,")
    if not s:
        return s
    s = s[0].upper() + s[1:]
    if s[-1] not in ".!?":
        s += "."
    # Frame only when the first word can be lowered safely (not a name).
    first = s.split(" ")[0]
    if first.lower() not in LOWERABLE:
        return s
    frame = rng.choice(FRAMES)
    lowered = s[0].lower() + s[1:]
    return frame.replace("{S}", s).replace("{s}", lowered)


def names_in(sentence):
    found = []
    for m in re.finditer(r"(?<![.!?] )(?<!^)\b([A-Z][a-z]{2,})\b", sentence):
        if m.start() == 0 or m.group(1) in NOT_NAMES or m.group(1) in MONTHS:
            continue
        if any(m.group(1) in place.split() for place in PLACES):
            continue
        found.append(m.group(1))
    return found


def swap(kind, sentence, passages_text, rng):
    """The sentence with one fact swapped for one that no passage has, or None if it has none."""
    lowered = passages_text.lower()
    if kind == "swap_date":
        years = re.findall(r"\b(1[6-9]\d\d|20[0-2]\d)\b", sentence)
        if years:
            old = rng.choice(years)
            for _ in range(20):
                new = str(int(old) + rng.choice([-1, 1]) * rng.randint(2, 25))
                if new not in passages_text:
                    return re.sub(rf"\b{old}\b", new, sentence, count=1)
        months = [m for m in MONTHS if re.search(rf"\b{m}\b", sentence)]
        if months:
            old = rng.choice(months)
            choices = [m for m in MONTHS if m.lower() not in lowered]
            if choices:
                return re.sub(rf"\b{old}\b", rng.choice(choices), sentence, count=1)
        return None
    if kind == "swap_number":
        digits = [d for d in re.findall(r"\b\d[\d,]*\b", sentence) if not re.fullmatch(r"1[6-9]\d\d|20[0-2]\d", d)]
        if digits:
            old = rng.choice(digits)
            value = int(old.replace(",", ""))
            for _ in range(20):
                new = str(max(0, value + rng.choice([-1, 1]) * rng.randint(1, max(3, value // 2))))
                if new != str(value) and new not in passages_text:
                    return re.sub(rf"\b{re.escape(old)}\b", new, sentence, count=1)
        spelled = [w for w in NUMBER_WORDS if re.search(rf"\b{w}\b", sentence, re.IGNORECASE)]
        if spelled:
            old = rng.choice(spelled)
            choices = [w for w in NUMBER_WORDS if not re.search(rf"\b{w}\b", lowered)]
            if choices:
                new = rng.choice(choices)
                return re.sub(rf"\b{old}\b", new, sentence, count=1, flags=re.IGNORECASE)
        return None
    if kind == "swap_place":
        places = [p for p in PLACES if re.search(rf"\b{re.escape(p)}\b", sentence)]
        if places:
            old = rng.choice(places)
            choices = [p for p in PLACES if p.lower() not in lowered]
            return sentence.replace(old, rng.choice(choices), 1)
        return None
    if kind == "swap_name":
        names = names_in(sentence)
        if names:
            old = rng.choice(names)
            choices = [n for n in NAME_POOL if n.lower() not in lowered]
            return re.sub(rf"\b{old}\b", rng.choice(choices), sentence, count=1)
        return None
    raise ValueError(kind)


def cut(text, start, length):
    """About `length` characters of `text` from `start`, on word boundaries."""
    begin = text.rfind(" ", 0, start) + 1
    end = text.find(" ", begin + length)
    return text[begin:] if end < 0 else text[begin:end]


def make_copyright_cases(stories, rng):
    """Answers that copy a passage (450 characters verbatim or with a few words changed: flag)
    or do not (300 characters verbatim, the same words reordered, another story's text: no
    flag); and a sentence-by-sentence light rewording, reported without a verdict."""
    cases = []
    long_passages = [(s, p) for s in stories for p in s["passages"] if len(p) >= 900]
    rng.shuffle(long_passages)
    for story, passage in long_passages[:150]:
        others = [p for s in stories if s is not story for p in s["passages"]]
        given = [passage] + rng.sample(others, 5)
        rng.shuffle(given)
        lead = "Here is what the stories say. "
        tail = " I hope this helps you with the family history."
        start = rng.randint(0, max(0, len(passage) - 480))
        copy450 = cut(passage, start, 450)
        tokens = copy450.split(" ")
        for i in rng.sample(range(1, len(tokens) - 1), max(1, len(tokens) // 25)):
            tokens[i] = SYNONYMS.get(tokens[i].lower(), tokens[i] + "s" if rng.random() < 0.5 else "the")
        near = " ".join(tokens)
        copy300 = cut(passage, start, 300)
        # The same words in another order: what a summary reusing the passage's vocabulary shares with it.
        shuffled = []
        for sentence in sentences(cut(passage, start, 480)):
            tokens = sentence.split(" ")
            rng.shuffle(tokens)
            shuffled.append(" ".join(tokens))
        close = [paraphrase(x, rng) for x in sentences(passage)]
        unrelated = cut(rng.choice(others), 0, 500)
        filler = cut(rng.choice(others), 0, 200)
        # expected: 1 flag, 0 no flag, None reported only (a sentence-by-sentence light rewording
        # keeps most of the passage's character shingles; whether that is copying is the coach's call).
        for kind, output, expected in [("verbatim_450", lead + copy450 + tail, 1),
                                       ("near_verbatim_450", lead + near + tail, 1),
                                       ("verbatim_300", lead + copy300 + " " + filler + tail, 0),
                                       ("same_words_reordered", lead + " ".join(shuffled) + tail, 0),
                                       ("other_text", lead + unrelated + tail, 0),
                                       ("close_rewording", lead + " ".join(close) + tail, None)]:
            cases.append({"passages": given, "output": output, "expected": expected, "kind": kind,
                          "source": story["source"]})
    return cases


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--corpus", default="corpus")
    parser.add_argument("--data", default="../shared/data", help="folder holding wpa-narratives/")
    parser.add_argument("--out", default=".build/evals/groundedness.jsonl")
    parser.add_argument("--seed", type=int, default=6)
    parser.add_argument("--per-passage", type=int, default=2, help="source sentences drawn per passage")
    parser.add_argument("--wpa-stories", type=int, default=80, help="WPA interviews used (0 for none)")
    args = parser.parse_args()
    rng = random.Random(args.seed)

    stories = load_corpus(args.corpus)
    wpa_folder = os.path.join(args.data, "wpa-narratives")
    if args.wpa_stories and os.path.isdir(wpa_folder):
        wpa = load_wpa(wpa_folder)
        rng.shuffle(wpa)
        stories += sorted(wpa[: args.wpa_stories], key=lambda s: s["id"])
    elif args.wpa_stories:
        print(f"no {wpa_folder}; demo corpus only", file=sys.stderr)
    for story in stories:
        story["passages"] = passages_of(story["text"])
    stories = [s for s in stories if len(s["passages"]) >= 1]

    items = []
    kinds = ["swap_name", "swap_date", "swap_number", "swap_place"]
    for index, story in enumerate(stories):
        others = [s for s in stories if s is not story]
        for p_index, passage in enumerate(story["passages"]):
            candidates = [s for s in sentences(passage) if MIN_WORDS <= len(words(s)) <= MAX_WORDS]
            rng.shuffle(candidates)
            chosen = candidates[: args.per_passage]
            # Dates and places are rarer than names; draw one more sentence that has one.
            factual = [c for c in candidates[args.per_passage:]
                       if re.search(r"\b(1[6-9]\d\d|20[0-2]\d)\b", c) or any(m in c for m in MONTHS)
                       or any(re.search(rf"\b{re.escape(p)}\b", c) for p in PLACES)]
            chosen += factual[:1]
            for sentence in chosen:
                same = [p for i, p in enumerate(story["passages"]) if i != p_index]
                rng.shuffle(same)
                distractor_stories = rng.sample(others, 3)
                given = [passage] + same[:2] + [rng.choice(s["passages"]) for s in distractor_stories]
                rng.shuffle(given)
                joined = " ".join(given)
                base = {"passages": given, "passage": given.index(passage), "story": story["id"], "source": story["source"]}
                rewritten = paraphrase(sentence, rng)
                if len(words(rewritten)) < 5:
                    continue
                items.append({**base, "sentence": rewritten, "label": 1, "kind": "paraphrase"})
                for kind in kinds:
                    swapped = swap(kind, rewritten, joined, rng)
                    if swapped and swapped != rewritten:
                        items.append({**base, "sentence": swapped, "label": 0, "kind": kind})
                # A sentence from a story none of the passages comes from.
                used = {story["id"]} | {s["id"] for s in distractor_stories}
                foreign = rng.choice([s for s in others if s["id"] not in used])
                pool = [s for p in foreign["passages"] for s in sentences(p) if MIN_WORDS <= len(words(s)) <= MAX_WORDS]
                if pool:
                    other = paraphrase(rng.choice(pool), rng)
                    items.append({**base, "sentence": other, "label": 0, "kind": "other_story"})

    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "w", encoding="utf-8") as f:
        for item in items:
            f.write(json.dumps(item, ensure_ascii=False) + "\n")
    copyright_cases = make_copyright_cases(stories, rng)
    copyright_out = os.path.join(os.path.dirname(os.path.abspath(args.out)), "copyright.jsonl")
    with open(copyright_out, "w", encoding="utf-8") as f:
        for case in copyright_cases:
            f.write(json.dumps(case, ensure_ascii=False) + "\n")
    print(f"{len(copyright_cases)} copyright cases -> {copyright_out}", file=sys.stderr)
    counts = {}
    for item in items:
        counts[item["kind"]] = counts.get(item["kind"], 0) + 1
    print(f"{len(items)} items from {len(stories)} stories -> {args.out}: "
          + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())), file=sys.stderr)


if __name__ == "__main__":
    main()
