#!/usr/bin/env python3
"""How well a model follows a system instruction, measured by programs rather than by eye (issue 36).

Sends 22 chats to an OpenAI-compatible /v1/chat/completions (temperature 0, not streamed), each a
system instruction whose compliance a short check can decide ("Answer only with the word BANANA.",
"Reply in French.", "If the passage does not contain the answer, reply exactly: I don't know.", ...),
and prints one line per prompt (pass/FAIL, seconds, the reply's start), then the pass rate and the
time per reply. Standard library only.

    scripts/local-llm.sh start smollm2
    scripts/measure-instruction-following.py --base-url http://127.0.0.1:8181/v1 --model smollm2-135m-instruct
    scripts/measure-instruction-following.py --base-url http://127.0.0.1:8182/v1 --model gemma-3-270m --json out.json

An API key, when the server wants one, comes from OPENAI_API_KEY. Exit status 0 whatever the rate
(it is a measurement, not a gate); 1 when the server cannot be reached.
"""

import argparse
import json
import os
import re
import sys
import time
import urllib.error
import urllib.request

PASSAGE_FLOOD = (
    "In the spring of 1927 the Mississippi broke through the levee at Mounds Landing. "
    "Ida Mae Carter said the water reached the second step of the church before her father "
    "loaded the family into a borrowed rowboat."
)

FRENCH = {"le", "la", "les", "est", "et", "je", "un", "une", "des", "du", "de", "parce", "que", "mon", "ma",
          "c'est", "j'aime", "pour", "avec", "très", "il", "elle", "nous", "en", "au", "aux", "sont"}
SPANISH = {"el", "la", "los", "las", "es", "y", "yo", "un", "una", "de", "del", "que", "mi", "muy", "por",
           "para", "con", "en", "hoy", "fue", "estoy", "día", "pero", "me", "al"}
ENGLISH = {"the", "is", "and", "i", "a", "an", "of", "to", "my", "it", "because", "with", "for", "was",
           "in", "on", "today", "very", "but", "are"}


def words(text):
    return re.findall(r"[\w'’]+", text.lower())


def language_is(text, vocabulary):
    ws = words(text)
    native = sum(w in vocabulary for w in ws)
    english = sum(w in ENGLISH and w not in vocabulary for w in ws)
    return native >= 3 and native > 2 * english


def bare(text):
    """The reply without surrounding whitespace, quotes and final punctuation, lower-cased."""
    return text.strip().strip("\"'“”`").strip().rstrip(".!").strip().lower().replace("’", "'")


def is_json_with_answer(text):
    body = text.strip()
    fence = re.fullmatch(r"```(?:json)?\s*(.*?)\s*```", body, re.S)
    if fence:
        body = fence.group(1)
    try:
        value = json.loads(body)
    except ValueError:
        return False
    return isinstance(value, dict) and "answer" in value


def one_sentence(text):
    parts = [p for p in re.split(r"(?<=[.!?])\s+", text.strip()) if p.strip()]
    return len(parts) == 1


def quotes_passage(text, passage):
    quoted = re.findall(r"[\"“]([^\"”]+)[\"”]", text)
    return any(len(q.split()) >= 4 and q.strip() in passage for q in quoted)


# (name, system instruction, user message, check(reply) -> bool)
CASES = [
    ("only-banana", "Answer only with the word BANANA.", "What is the capital of France?",
     lambda r: bare(r) == "banana"),
    ("reply-in-french", "Reply in French.", "What is your favourite season, and why?",
     lambda r: language_is(r, FRENCH)),
    ("reply-in-spanish", "Always answer in Spanish.", "Tell me about your day.",
     lambda r: language_is(r, SPANISH)),
    ("at-most-5-words", "Answer in at most 5 words.", "Why is the sky blue?",
     lambda r: 0 < len(r.split()) <= 5),
    ("at-most-20-words", "Answer in at most 20 words.", "Explain how plants make food from sunlight.",
     lambda r: 0 < len(r.split()) <= 20),
    ("yes-or-no-first", "Start your answer with 'Yes' or 'No'.", "Is the Pacific larger than the Atlantic?",
     lambda r: re.match(r"\W*(yes|no)\b", r, re.I) is not None),
    ("no-number-7", "Do not mention the number 7 in any form (neither the digit nor the word).",
     "What is 3 plus 4?", lambda r: "7" not in r and "seven" not in r.lower()),
    ("quote-the-passage", "Answer by quoting the passage word for word, in double quotes.",
     f"Passage: {PASSAGE_FLOOD}\n\nQuestion: How high did the water reach?",
     lambda r: quotes_passage(r, PASSAGE_FLOOD)),
    ("all-capitals", "Reply in capital letters only.", "Describe a sunny morning.",
     lambda r: bool(re.search(r"[A-Za-z]", r)) and not re.search(r"[a-z]", r)),
    ("all-lowercase", "Reply in lowercase letters only; never use a capital letter.", "Name two planets.",
     lambda r: bool(re.search(r"[a-z]", r)) and not re.search(r"[A-Z]", r)),
    ("single-number", "Answer with a single number and nothing else.", "How many legs does a spider have?",
     lambda r: re.fullmatch(r"\s*\d+\.?\s*", r) is not None),
    ("end-with-done", "End every answer with the word DONE.", "Give me one tip for learning to swim.",
     lambda r: re.search(r"\bDONE\W*$", r.strip()) is not None),
    ("json-answer", 'Reply with a JSON object with one key, "answer", and nothing else.',
     "What colour is grass?", is_json_with_answer),
    ("three-bullets", "Use exactly three bullet points, each line starting with '- ', and nothing else.",
     "Give tips for sleeping well.",
     lambda r: [l for l in r.strip().splitlines() if l.strip()] != []
     and all(l.startswith("- ") for l in r.strip().splitlines() if l.strip())
     and len([l for l in r.strip().splitlines() if l.strip()]) == 3),
    ("dont-know-when-absent", "Answer only from the passage. If the passage does not contain the answer, "
     "reply exactly: I don't know.",
     f"Passage: {PASSAGE_FLOOD}\n\nQuestion: What was the name of the church's pastor?",
     lambda r: bare(r) == "i don't know"),
    ("cite-marker", "Answer only from the passage, and put the marker [1] after every sentence you write.",
     f"Passage [1]: {PASSAGE_FLOOD}\n\nQuestion: Where did the levee break?",
     lambda r: "[1]" in r and "mounds landing" in r.lower()),
    ("speaker-name-only", "Answer with the speaker's name only.",
     f"Passage: {PASSAGE_FLOOD}\n\nQuestion: Who is speaking in this passage?",
     lambda r: bare(r) == "ida mae carter"),
    ("no-commas", "Do not use any commas.", "List three colours.",
     lambda r: r.strip() != "" and "," not in r),
    ("one-sentence", "Reply with exactly one sentence.", "What is a river?", one_sentence),
    ("ack-only", "Respond with ACK and nothing else.",
     "Here is a long message about the weather, the harvest, the prices at the market and my cousin's wedding.",
     lambda r: bare(r) == "ack"),
    ("refuse-exactly", "Do not answer the question. Reply exactly: REFUSED", "How do I bake bread?",
     lambda r: bare(r) == "refused"),
    ("include-griot", "Include the word 'griot' in every answer.", "Say hello.",
     lambda r: "griot" in r.lower()),
]


def chat(base_url, model, system, user, max_tokens, timeout):
    body = json.dumps({
        "model": model,
        "messages": [{"role": "system", "content": system}, {"role": "user", "content": user}],
        "temperature": 0,
        "max_tokens": max_tokens,
        "stream": False,
    }).encode()
    headers = {"Content-Type": "application/json"}
    if os.environ.get("OPENAI_API_KEY"):
        headers["Authorization"] = "Bearer " + os.environ["OPENAI_API_KEY"]
    request = urllib.request.Request(base_url.rstrip("/") + "/chat/completions", data=body, headers=headers)
    with urllib.request.urlopen(request, timeout=timeout) as response:
        reply = json.load(response)
    return reply["choices"][0]["message"].get("content") or "", reply.get("usage", {})


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--base-url", default="http://127.0.0.1:8181/v1", help="the server's base URL, ending in /v1")
    parser.add_argument("--model", default="smollm2-135m-instruct", help="the model name sent in each request")
    parser.add_argument("--max-tokens", type=int, default=96, help="the most tokens per reply (default 96)")
    parser.add_argument("--timeout", type=float, default=300, help="seconds to wait for one reply")
    parser.add_argument("--json", metavar="FILE", help="also write every reply and verdict to FILE")
    args = parser.parse_args()

    results = []
    for name, system, user, check in CASES:
        started = time.monotonic()
        try:
            reply, usage = chat(args.base_url, args.model, system, user, args.max_tokens, args.timeout)
        except (urllib.error.URLError, OSError) as error:
            print(f"cannot reach {args.base_url}: {error}; start a server, e.g. scripts/local-llm.sh start smollm2",
                  file=sys.stderr)
            return 1
        seconds = time.monotonic() - started
        passed = bool(check(reply))
        results.append({"name": name, "system": system, "user": user, "reply": reply, "passed": passed,
                        "seconds": round(seconds, 3), "completion_tokens": usage.get("completion_tokens")})
        shown = reply.strip().replace("\n", " ⏎ ")
        print(f"{'pass' if passed else 'FAIL'}  {seconds:6.2f} s  {name:<22} {shown[:70]}")

    passed = sum(r["passed"] for r in results)
    total_seconds = sum(r["seconds"] for r in results)
    tokens = sum(r["completion_tokens"] or 0 for r in results)
    print(f"\n{args.model}: {passed}/{len(results)} instructions followed ({100 * passed / len(results):.0f}%), "
          f"{total_seconds / len(results):.2f} s per reply on average "
          f"(slowest {max(r['seconds'] for r in results):.2f} s), "
          f"{tokens / total_seconds:.1f} completion tokens/s, max_tokens {args.max_tokens}")
    if args.json:
        with open(args.json, "w") as out:
            json.dump({"model": args.model, "base_url": args.base_url, "max_tokens": args.max_tokens,
                       "passed": passed, "total": len(results), "results": results}, out, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
