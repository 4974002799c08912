#!/usr/bin/env python3
"""What `griot eval --json` says about a real model's replies, and what reached the user (issue 36).

Two commands, standard library only:

    scripts/local-llm-eval.py subset evals/demo.yaml --every 3 > /tmp/demo-subset.yaml
        A fixed subset of an eval file: its header and gates, and one case in N in file order
        (from the first), so that a slow model runs the same cases each time.

    scripts/local-llm-eval.py report smollm2.json gemma3.json --label smollm2 --label gemma3-fold
        For each report griot eval wrote (--json), over the cases the model answered (route
        "answer"; a blocked message or a crisis reply never reaches it):
        - citation precision: citations whose quote was verified / all citations the pipeline
          judged. A reply's citations are the passage numbers its delivered text still cites
          (distinct, per reply), plus one per citation_dropped flag (the sentence was left out)
          and one per citation_out_of_range flag (its marker became [unverified]); those cited
          but unsupported by their passage (one citation_unsupported flag per number) are not
          verified. The report keeps no per-citation verdict, so this is counted per passage
          number and reply: a number cited twice, once supported and once not, counts once.
        - the groundedness flag rate: replies flagged low_groundedness / replies;
        - replies with a flag of each kind, and with sentences withheld (prompt_echo: the echo
          stage; citation_dropped: a quote not in its passage; output_moderation);
        - the echo audit, read from the delivered text itself rather than from the flags:
          * instructions: a line holding a run of 5 or more words of any prompt in prompts/
            (every section but no_content, cut at template variables) or of the headings and
            sources preamble Sources/GriotChat/ContextAssembler.swift writes (the echo stage
            withholds runs of 10, or lines mostly made of runs of 3), or a line that restates
            the prompt's own template lines ("Today is …", "You are the Griot …"); and, apart,
            a line that is a rule for the assistant in the prompt's manner but its own words
            ("- When you are asked to …", "Do not quote …"): a paraphrase no run finds;
          * scaffolding: a line that is a passage block's header ([2] "Title", told by …, at
            0:53), a quote fence, "# Sources", the <instructions> lines a folded prompt is
            wrapped in, or a chat template's own tokens ([INST], <<SYS>>, <|im_start|>);
          * copies: a line whose words outside quotation marks hold a run of 12 or more words
            of a corpus transcript; when such a line still carries a citation marker, the copy
            may have been counted as a verified citation, and it is listed as such.
        Each finding says whether the reply was flagged prompt_echo.

Exit status 0 (a measurement, not a gate); 2 when a file cannot be read.
"""

import argparse
import glob
import json
import os
import re
import sys
from collections import Counter

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

INSTRUCTION_RUN = 5
COPY_RUN = 12
WORD = re.compile(r"[\w’']+", re.UNICODE)
MARKER = re.compile(r"\[(\d+(?:\s*,\s*\d+)*)\]")
# A passage block's header as ContextAssembler writes it: [n] "Title", told by X, at 1:23
# (the marker may have become [unverified] when its number was not one of the passages).
HEADER = re.compile(r'^\s*(?:\[(?:[\d, ]+|unverified)\]\s*)?["“][^"”]{3,}["”]\s*,\s*(?:told by|with)\s+[^\n]*$')
TIMESTAMP_HEADER = re.compile(r'^\s*(?:\[(?:[\d, ]+|unverified)\]\s*)?["“][^"”]{3,}["”][^\n]*,\s*at\s+\d+:\d{2}(?::\d{2})?\s*$')
# The prompts' own template lines, which a model restates with values of its own.
TEMPLATE_LINE = re.compile(r"\b(?:Today is \d|You are speaking with|(?:You are|I am) the (?:Griot|SelfFull AI coach))", re.I)
# A rule addressed to the assistant in the prompt's manner, in words of its own: a paraphrase of
# the instructions no run of words finds ("- When you are asked to describe the story, say it in
# simple terms.").
RULE_LINE = re.compile(r"^(?:[-*•]|\d+[.)])?\s*(?:(?:If|When) you (?:are|have been|want|have) (?:asked|given|told)\b|Do not (?:quote|use|repeat|assume|give|guess|say|cite)\b)", re.I)
SCAFFOLD_TOKENS = ["```", "# Sources", "<instructions>", "</instructions>", "[INST]", "[/INST]", "<<SYS>>", "<</SYS>>",
                   "<|im_start|>", "<|im_end|>", "<start_of_turn>", "<end_of_turn>"]


def words(text):
    return [w.lower().replace("’", "'") for w in WORD.findall(text)]


def grams(tokens, n):
    return {tuple(tokens[i:i + n]) for i in range(len(tokens) - n + 1)}


def runs(tokens, index, n):
    """Lengths of the maximal spans of `tokens` covered by n-grams found in `index`."""
    covered = [False] * len(tokens)
    for i in range(len(tokens) - n + 1):
        if tuple(tokens[i:i + n]) in index:
            for j in range(i, i + n):
                covered[j] = True
    lengths, current = [], 0
    for flag in covered + [False]:
        if flag:
            current += 1
        elif current:
            lengths.append(current)
            current = 0
    return lengths


def outside_quotes(line):
    """The line without what it quotes (“…”, "…"): quoting a story is what an answer should do."""
    line = re.sub(r"“[^”]*”", " ", line)
    return re.sub(r'"[^"]*"', " ", line)


# --- what the model was given ----------------------------------------------------------------

def prompt_texts(folder):
    """Every section of every prompt file, front matter left out, cut at template variables; not
    the no_content section, which is the reply itself when the stories are silent."""
    pieces = []
    for path in sorted(glob.glob(os.path.join(folder, "*", "*.md"))):
        text = open(path, encoding="utf-8").read()
        if text.startswith("---"):
            text = text.split("---", 2)[2]
        for section in re.split(r"(?m)^(?=## )", text):
            if section.startswith("## no_content"):
                continue
            section = re.sub(r"(?m)^## .*$", " ", section)
            pieces.extend(part for part in re.split(r"\{\{[^}]*\}\}", section) if part.strip())
    return pieces


def scaffolding_texts(swift_file):
    """The headings and the sources preamble ContextAssembler writes around the prompt."""
    try:
        source = open(swift_file, encoding="utf-8").read()
    except OSError:
        return []
    found = []
    for literal in re.findall(r'"((?:[^"\\\n]|\\.)*)"', source):
        text = literal.replace("\\n", "\n").replace('\\"', '"')
        if "# " in text and len(words(text)) >= 3:
            found.append(re.sub(r"\\\(.*?\)", " ", text))
    return found


def transcripts(corpus):
    texts = []
    for path in sorted(glob.glob(os.path.join(corpus, "**", "*.json"), recursive=True)):
        try:
            story = json.load(open(path, encoding="utf-8"))
        except (OSError, ValueError):
            continue
        for story in story if isinstance(story, list) else [story]:
            transcript = story.get("transcript") if isinstance(story, dict) else None
            if isinstance(transcript, dict):
                texts.extend(s.get("text", "") for s in transcript.get("segments", []))
            elif isinstance(transcript, str):
                texts.append(transcript)
    return texts


class Sources:
    def __init__(self, prompts, assembler, corpus):
        self.instructions = set()
        for text in prompt_texts(prompts) + scaffolding_texts(assembler):
            self.instructions |= grams(words(text), INSTRUCTION_RUN)
        self.transcripts = set()
        for text in transcripts(corpus):
            self.transcripts |= grams(words(text), COPY_RUN)


# --- one report ------------------------------------------------------------------------------

def audit(result, sources):
    """What of the prompt a delivered reply shows: a list of (kind, detail, line)."""
    text = result.get("text") or ""
    findings = []
    for line in text.split("\n"):
        stripped = line.strip()
        if not stripped:
            continue
        lengths = runs(words(stripped), sources.instructions, INSTRUCTION_RUN)
        template = TEMPLATE_LINE.search(stripped)
        if lengths or template:
            detail = f"a run of {max(lengths)} words of the prompt" if lengths else f"the prompt's line {template.group(0)!r}"
            findings.append(("instructions", detail, stripped))
            continue
        if RULE_LINE.search(stripped):
            findings.append(("instructions, paraphrased", "a rule for the assistant", stripped))
            continue
        token = next((t for t in SCAFFOLD_TOKENS if t in stripped), None)
        if token or HEADER.match(stripped) or TIMESTAMP_HEADER.match(stripped):
            findings.append(("scaffolding", token or "a passage header", stripped))
            continue
        copied = runs(words(outside_quotes(stripped)), sources.transcripts, COPY_RUN)
        if copied:
            cited = any(m for m in MARKER.findall(stripped))
            findings.append(("copy, cited" if cited else "copy", f"{max(copied)} words of a transcript", stripped))
    return findings


def citations(result):
    """(verified, judged) for one reply, counted per passage number (see the module's doc)."""
    flags = Counter(result.get("flags") or [])
    numbers = set()
    for group in MARKER.findall(result.get("text") or ""):
        numbers |= {int(n) for n in re.split(r"\s*,\s*", group)}
    unsupported = min(flags["citation_unsupported"], len(numbers))
    verified = len(numbers) - unsupported
    judged = len(numbers) + flags["citation_dropped"] + flags["citation_out_of_range"]
    return verified, judged


def echoed_whole(result):
    """The reply was all echo: the echo stage replaced it with its note (TurnPipeline.echoedReply)."""
    return (result.get("text") or "").startswith("[The reply only repeated the assistant's instructions")


def summarize(report, sources):
    results = report["results"]
    replies = [r for r in results if r.get("route") == "answer"]
    verified = judged = 0
    for reply in replies:
        v, j = citations(reply)
        verified += v
        judged += j
    flagged = Counter()
    for reply in replies:
        for kind in set(reply.get("flags") or []):
            flagged[kind] += 1
    findings = {r["id"]: audit(r, sources) for r in replies}
    return {
        "cases": len(results),
        "replies": len(replies),
        "empty_replies": sum(1 for r in replies if not (r.get("text") or "").strip()),
        "statuses": dict(Counter(r.get("status") for r in replies)),
        "cases_passed": sum(1 for r in results if r.get("passed")),
        "citations_verified": verified,
        "citations_judged": judged,
        "citation_precision": verified / judged if judged else None,
        "story_citation_precision": report.get("metrics", {}).get("citation_precision"),
        "groundedness_mean": report.get("metrics", {}).get("groundedness_mean"),
        "low_groundedness_rate": flagged["low_groundedness"] / len(replies) if replies else None,
        "replies_flagged": dict(sorted(flagged.items())),
        "replies_withheld_whole": sum(1 for r in replies if echoed_whole(r)),
        "groundedness_mean_without_withheld": mean([r["groundedness"] for r in replies
                                                    if r.get("groundedness") is not None and not echoed_whole(r)]),
        "replies_with_withheld_sentences": sum(1 for r in replies if {"prompt_echo", "citation_dropped", "output_moderation"} & set(r.get("flags") or [])),
        "latency_p50_ms": report.get("metrics", {}).get("latency_p50_ms"),
        "completion_tokens_mean": report.get("metrics", {}).get("tokens_out_mean"),
        "echo_findings": [
            {"case": case, "kind": kind, "detail": detail, "line": line[:200],
             "flagged_prompt_echo": "prompt_echo" in (next(r for r in replies if r["id"] == case).get("flags") or [])}
            for case, found in findings.items() for kind, detail, line in found
        ],
    }


def mean(values):
    return sum(values) / len(values) if values else None


def number(value, digits=3):
    return "-" if value is None else (f"{value:.{digits}f}" if isinstance(value, float) else str(value))


def print_summary(label, s):
    print(f"== {label}: {s['cases']} cases, {s['replies']} answered by the model ({s['empty_replies']} empty), "
          f"{s['cases_passed']} passed; statuses {s['statuses']}")
    print(f"   citation precision (quote verified): {number(s['citation_precision'])} "
          f"({s['citations_verified']}/{s['citations_judged']}); the eval's story-level precision {number(s['story_citation_precision'])}")
    print(f"   low_groundedness flag rate: {number(s['low_groundedness_rate'])}; groundedness mean {number(s['groundedness_mean'])} "
          f"({number(s['groundedness_mean_without_withheld'])} leaving out replies withheld whole, whose note scores 1)")
    print(f"   replies flagged, by kind: {s['replies_flagged'] or 'none'}")
    print(f"   replies with sentences withheld (echo, dropped citation, moderation): {s['replies_with_withheld_sentences']}, "
          f"withheld whole by the echo stage: {s['replies_withheld_whole']}")
    print(f"   p50 {number(s['latency_p50_ms'], 0)} ms a case, {number(s['completion_tokens_mean'], 0)} reply tokens on average")
    findings = s["echo_findings"]
    kinds = sorted({f["kind"] for f in findings})
    print(f"   echo audit of the delivered text ({len(findings)} lines):")
    for kind in kinds or ["(nothing)"]:
        cases = {f["case"] for f in findings if f["kind"] == kind}
        unflagged = {f["case"] for f in findings if f["kind"] == kind and not f["flagged_prompt_echo"]}
        print(f"     {kind}: in {len(cases)} replies, {len(unflagged)} of them not flagged prompt_echo")
    shown = Counter()
    for finding in findings:
        key = (finding["case"], finding["kind"], finding["line"])
        shown[key] += 1
        if shown[key] > 1 or sum(1 for k in shown if k[0] == finding["case"]) > 3:
            continue
        mark = "flagged" if finding["flagged_prompt_echo"] else "UNFLAGGED"
        print(f"       {mark:9} {finding['case']}: {finding['kind']} ({finding['detail']}): {finding['line'][:120]!r}")


# --- subset ----------------------------------------------------------------------------------

def subset(path, every):
    text = open(path, encoding="utf-8").read()
    head, _, cases = text.partition("\ncases:\n")
    if not cases:
        sys.exit(f"{path}: no 'cases:' list")
    blocks = re.split(r"(?m)^(?=  - id: )", cases)
    kept = [b for b in blocks if b.startswith("  - id: ")]
    chosen = kept[::every]
    # Comments between cases belong to the case after them; they are dropped with the rest.
    body = "".join(re.sub(r"(?m)^\s*#.*\n", "", b).rstrip("\n") + "\n" for b in chosen)
    ids = [re.match(r"  - id: (\S+)", b).group(1) for b in chosen]
    print(f"# A fixed subset of {os.path.relpath(path, ROOT)}: one case in {every} in file order, from the first "
          f"({len(chosen)} of {len(kept)}), written by scripts/local-llm-eval.py subset.\n# {', '.join(ids)}")
    print(head.rstrip("\n") + "\ncases:\n" + body, end="")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    sub = commands.add_parser("subset", help="every Nth case of an eval file")
    sub.add_argument("file")
    sub.add_argument("--every", type=int, default=3)
    rep = commands.add_parser("report", help="figures and the echo audit of griot eval --json reports")
    rep.add_argument("reports", nargs="+")
    rep.add_argument("--label", action="append", default=[], help="a name for each report, in order")
    rep.add_argument("--prompts", default=os.path.join(ROOT, "prompts"))
    rep.add_argument("--assembler", default=os.path.join(ROOT, "Sources/GriotChat/ContextAssembler.swift"))
    rep.add_argument("--corpus", default=os.path.join(ROOT, "corpus"))
    rep.add_argument("--json", help="write the figures here")
    args = parser.parse_args()

    if args.command == "subset":
        subset(args.file, args.every)
        return
    sources = Sources(args.prompts, args.assembler, args.corpus)
    summaries = {}
    for index, path in enumerate(args.reports):
        try:
            reports = json.load(open(path, encoding="utf-8"))
        except (OSError, ValueError) as error:
            print(f"{path}: {error}", file=sys.stderr)
            sys.exit(2)
        label = args.label[index] if index < len(args.label) else os.path.basename(path)
        for report in reports if isinstance(reports, list) else [reports]:
            summaries[label] = summarize(report, sources)
            print_summary(label, summaries[label])
    if args.json:
        json.dump(summaries, open(args.json, "w", encoding="utf-8"), indent=2)


if __name__ == "__main__":
    main()
