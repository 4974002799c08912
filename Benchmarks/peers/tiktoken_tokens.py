"""The tiktoken peer for `griot-bench tokens`: OpenAI's tiktoken (Rust core) on the same
documents, one `encode_ordinary` call per document on one thread. The documents come from
the JSON file griot-bench writes (a list of corpora, each a name and a list of texts), so
both sides tokenize exactly the same strings. Rank files are read from the local folder
(scripts/fetch-tokenizers.sh), not downloaded. Prints one JSON object."""
import argparse
import json
import os
import time

import tiktoken
import tiktoken.load
from tiktoken_ext import openai_public


def load_encoding(name, folder):
    def local(url, expected_hash=None):
        return tiktoken.load.load_tiktoken_bpe(os.path.join(folder, url.rsplit("/", 1)[-1]), expected_hash=expected_hash)

    openai_public.load_tiktoken_bpe = local
    return tiktoken.Encoding(**openai_public.ENCODING_CONSTRUCTORS[name]())


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--documents", required=True, help="the JSON file griot-bench wrote")
    parser.add_argument("--ranks", default=os.path.expanduser("~/.cache/griot/tokenizers"))
    parser.add_argument("--passes", type=int, default=3)
    args = parser.parse_args()
    with open(args.documents, encoding="utf-8") as f:
        corpora = json.load(f)
    results = {}
    for name in ["cl100k_base", "o200k_base"]:
        start = time.perf_counter()
        encoding = load_encoding(name, args.ranks)
        encoding.encode_ordinary("warm up the regex and the rank map")
        load_seconds = time.perf_counter() - start
        results[name] = {"load_seconds": load_seconds, "corpora": {}}
        for corpus in corpora:
            texts = corpus["texts"]
            best = float("inf")
            tokens = 0
            for _ in range(args.passes):
                start = time.perf_counter()
                tokens = sum(len(encoding.encode_ordinary(text)) for text in texts)
                best = min(best, time.perf_counter() - start)
            results[name]["corpora"][corpus["name"]] = {"tokens": tokens, "seconds": best}
    from importlib.metadata import version
    print(json.dumps({"tiktoken": version("tiktoken"), "results": results}))


if __name__ == "__main__":
    main()
