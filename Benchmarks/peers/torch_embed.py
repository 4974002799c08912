"""The torch peer for `griot-bench embed`: sentence-transformers on the same documents,
threads and max length. Prints one JSON object with docs/s and the vectors' checksum."""
import argparse
import json
import os
import time

os.environ.setdefault("HF_HUB_OFFLINE", "1")
import torch
from sentence_transformers import SentenceTransformer


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", default="../shared/data/beir-scifact")
    parser.add_argument("--model", default=os.path.expanduser("~/.cache/griot/models/all-MiniLM-L6-v2"))
    parser.add_argument("--count", type=int, default=1000)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--batch-size", type=int, default=32)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    docs = []
    with open(f"{args.data}/corpus.jsonl", encoding="utf-8") as corpus:
        for line in corpus:
            doc = json.loads(line)
            docs.append(doc["title"] + " " + doc["text"])
            if len(docs) == args.count:
                break
    model = SentenceTransformer(args.model, device="cpu")
    model.max_seq_length = 256
    model.encode(docs[:32], batch_size=args.batch_size)  # warm-up
    start = time.perf_counter()
    vectors = model.encode(docs, batch_size=args.batch_size, normalize_embeddings=True)
    seconds = time.perf_counter() - start
    print(json.dumps({"torch": torch.__version__, "docs_per_second": len(docs) / seconds, "seconds": seconds,
                      "first": [float(x) for x in vectors[0][:4]]}))


if __name__ == "__main__":
    main()
