"""The tantivy peer for `griot-bench scifact`: the same data, queries and metrics, one thread.

Prints one JSON object: version, nDCG@10, Recall@100, build seconds and queries per second
(top 100 with their stored ids, and top 100 addresses only).
"""
import argparse
import json
import math
import re
import tempfile
import time
from importlib.metadata import version

import tantivy


def load(folder):
    docs = [json.loads(line) for line in open(f"{folder}/corpus.jsonl", encoding="utf-8")]
    queries = {q["_id"]: q["text"] for q in map(json.loads, open(f"{folder}/queries.jsonl", encoding="utf-8"))}
    qrels = {}
    for line in list(open(f"{folder}/qrels/test.tsv", encoding="utf-8"))[1:]:
        qid, did, score = line.strip().split("\t")
        qrels.setdefault(qid, {})[did] = int(score)
    return docs, queries, qrels


def evaluate(rankings, qrels):
    """BEIR's nDCG@10 and Recall@100 (linear gain; a hit whose id equals the query id is ignored)."""
    ndcg = recall = 0.0
    for qid, rel in qrels.items():
        ranking = [d for d in rankings.get(qid, []) if d != qid]
        dcg = sum(rel.get(d, 0) / math.log2(i + 2) for i, d in enumerate(ranking[:10]))
        ideal = sum(r / math.log2(i + 2) for i, r in enumerate(sorted(rel.values(), reverse=True)[:10]))
        ndcg += dcg / ideal if ideal else 0
        positives = {d for d, r in rel.items() if r > 0}
        recall += len(positives & set(ranking[:100])) / len(positives) if positives else 0
    return ndcg / len(qrels), recall / len(qrels)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", default="../shared/data/beir-scifact")
    parser.add_argument("--rounds", type=int, default=30)
    args = parser.parse_args()
    docs, queries, qrels = load(args.data)

    builder = tantivy.SchemaBuilder()
    builder.add_text_field("id", stored=True, tokenizer_name="raw")
    builder.add_text_field("body", stored=False, tokenizer_name="en_stem")
    schema = builder.build()
    start = time.perf_counter()
    directory = tempfile.mkdtemp(prefix="tantivy-scifact-")
    index = tantivy.Index(schema, path=directory)
    writer = index.writer(heap_size=200_000_000, num_threads=1)
    for doc in docs:
        writer.add_document(tantivy.Document(id=doc["_id"], body=doc["title"] + " " + doc["text"]))
    writer.commit()
    writer.wait_merging_threads()
    index.reload()
    build_seconds = time.perf_counter() - start
    searcher = index.searcher()

    test = [(qid, queries[qid]) for qid in sorted(qrels, key=int)]
    # Free text as an OR of its words: the query parser's syntax characters are removed.
    parsed = [(qid, re.sub(r"[^\w\s]", " ", text)) for qid, text in test]

    def run(with_ids):
        out = {}
        for qid, text in parsed:
            hits = searcher.search(index.parse_query(text, ["body"]), 100).hits
            out[qid] = [searcher.doc(address)["id"][0] for _, address in hits] if with_ids else hits
        return out

    rankings = run(True)
    ndcg, recall = evaluate(rankings, qrels)
    speeds = {}
    for with_ids in (True, False):
        start = time.perf_counter()
        for _ in range(args.rounds):
            run(with_ids)
        speeds[with_ids] = args.rounds * len(parsed) / (time.perf_counter() - start)
    print(json.dumps({
        "version": version("tantivy"), "ndcg@10": ndcg, "recall@100": recall, "build_seconds": build_seconds,
        "queries_per_second": speeds[True], "queries_per_second_addresses_only": speeds[False],
    }))


if __name__ == "__main__":
    main()
