#!/usr/bin/env python3
"""Regenerate Tests/GriotTextTests/Fixtures/porter2.tsv, the Porter2 stemmer fixture.

The expected stems come from the Python `snowballstemmer` package (stemmer "english",
the Snowball Porter2 algorithm, not "porter"). The fixture is committed, so the tests
need neither Python nor the network. To regenerate:

    python3 -m venv /tmp/stemvenv && /tmp/stemvenv/bin/pip install snowballstemmer
    /tmp/stemvenv/bin/python scripts/make-stemmer-fixture.py

The words: a seeded random sample of the distinct words (a-z and apostrophes only,
lower-cased) of /work/shared/data/beir-scifact/corpus.jsonl and of
/work/shared/data/wpa-narratives/*.txt, plus a hand list of words that exercise the
special cases of the algorithm. Output: one `word<TAB>stem` line per word, sorted.
"""

import glob
import json
import os
import random
import re
import sys

import snowballstemmer

DATA = os.environ.get("GRIOT_DATA", "/work/shared/data")
REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(REPO, "Tests", "GriotTextTests", "Fixtures", "porter2.tsv")

SEED = 20240601
PER_SOURCE = 1400  # sampled words per source (scifact, narratives)
MAX_BYTES = 80_000

WORD = re.compile(r"[a-z']+")

# Words exercising exceptions, special R1 prefixes, invariant forms and each step.
HAND = """
generously generous generate generic generation general generality generals
communism communities community communal commune arsenal arsenic arsenals
past paste pasted pastel pastime pasting universe universal university universities
later lateral laterally emerge emergency emergent emerging organ organic organize
organization organism interest interests international interpret interior
skies skis sky dying lying tying vying idly gently ugly early only singly news
howe atlas cosmos bias andes inning innings outing outings canning herring
earring earrings evening evenings proceed proceeds proceeding exceed exceeded
exceeding succeed succeeded succeeding agreed agree feed feeds bleed bleeds
bleeding fleeing guaranteed disagreed decreed decreedly agreedly
hopping hoping hoped hopped fizzed fizzing luxuriating luxuriate caresses
caress ponies pony ties tie cries cried cry gas gaps gap kiwis kiwi
y'all don't mama's 'tis children's sisters' ain't can't o'clock 'em 'cause
'bout 'n' li'l ol' 's' ' '' '' ''s
abated abate happily happy crying tryst bye say says saying sayings yes yell
yelling yellow yo you young youth youthful toy toys toyed toying employ
employment employer boy boys buy buys buying obey obeyed obeying player
playing played plays enjoy enjoyed enjoys syzygy yearly yearning
added adding egged odd odder bedded bedding filled filling falling fall
controlled controlling troll trolling failed failing fizz buzz buzzed
tanned tanning bled bleeding pasted tasted wasted tasting hating dating
conditional rational relational national valenci valency hesitancy
probabilistic probability probably visible visibility sensibility
digitizer digitizers digitization organizational operational operator
operators alliteration feudalism feudalisms formality formalities formally
hopefulness hopefully callousness callously carelessly carelessness
decisiveness sensitivity sensitiviti abundantly eminently fluently
archaeology archaeologist biologist biology geology ecologist analogies
apologies logical chronologically fruitfully fruitfulness
triplicate triplicates formative formalize electricity electrical
hopeful goodness adjustment adjustments agreement agreements dependent
dependents irritant allowance inference adjustable defensible activate
effective bowdlerize homologou homologous communism activiti activities
adoption adoptions decision decisions revision predictions fusion
airliner airliners gyroscopic gyroscope probate rate cease ceases
controll control controller rolls roll bells bell spell swell
generously generosity universities cosmoses atlases biases
news newsy newspaper singlet skiing skied skier gentle gentleman
ugliness earliest onlooker idler idle
a i o an as at be by he me my no of on or so to up us we
is it its his has was mrs mr dr etc
e'en ne'er o'er 'twas 'twere wouldn't couldn't shouldn't y'know
ied ies eed ing ed s ss us sses ying eedly ingly edly
sing sings singing thing things king ring bring
dyed dyeing eyed eyeing flying flies fly spying spies
""".split()


def scifact_words():
    words = set()
    with open(os.path.join(DATA, "beir-scifact", "corpus.jsonl"), encoding="utf-8") as f:
        for line in f:
            doc = json.loads(line)
            text = (doc.get("title", "") + " " + doc.get("text", "")).lower()
            words.update(WORD.findall(text))
    return words


def narrative_words():
    words = set()
    for path in sorted(glob.glob(os.path.join(DATA, "wpa-narratives", "*.txt"))):
        with open(path, encoding="utf-8-sig") as f:
            words.update(WORD.findall(f.read().lower()))
    return words


def main():
    rng = random.Random(SEED)
    sci = sorted(scifact_words())
    wpa = sorted(narrative_words())
    chosen = set(HAND)
    chosen.update(rng.sample(sci, min(PER_SOURCE, len(sci))))
    chosen.update(rng.sample(wpa, min(PER_SOURCE, len(wpa))))
    stemmer = snowballstemmer.stemmer("english")
    lines = [f"{w}\t{stemmer.stemWord(w)}\n" for w in sorted(chosen)]
    data = "".join(lines).encode("utf-8")
    if len(data) > MAX_BYTES:
        sys.exit(f"fixture too large: {len(data)} bytes (limit {MAX_BYTES})")
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    with open(OUT, "wb") as f:
        f.write(data)
    print(f"wrote {len(lines)} words, {len(data)} bytes to {OUT}")


if __name__ == "__main__":
    main()
