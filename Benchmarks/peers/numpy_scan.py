"""The numpy peer for `griot-bench latency`: an exact scan of N random unit vectors (384 wide)
per query, `vectors @ query` then argpartition for the top 100, one thread. Prints JSON with the
mean, p50 and p95 milliseconds."""
import argparse
import json
import os
import time

os.environ["OPENBLAS_NUM_THREADS"] = "1"
os.environ["OMP_NUM_THREADS"] = "1"
os.environ["MKL_NUM_THREADS"] = "1"
import numpy as np


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--passages", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=300)
    args = parser.parse_args()
    rng = np.random.default_rng(42)
    vectors = rng.uniform(-1, 1, size=(args.passages, 384)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    queries = rng.uniform(-1, 1, size=(args.queries, 384)).astype(np.float32)
    queries /= np.linalg.norm(queries, axis=1, keepdims=True)
    times = []
    for number, query in enumerate(queries):
        start = time.perf_counter()
        scores = vectors @ query
        top = np.argpartition(-scores, 100)[:100]
        top = top[np.argsort(-scores[top])]
        if number >= 10:
            times.append((time.perf_counter() - start) * 1000)
    times.sort()
    print(json.dumps({"numpy": np.__version__, "mean_ms": sum(times) / len(times),
                      "p50_ms": times[len(times) // 2], "p95_ms": times[len(times) * 95 // 100]}))


if __name__ == "__main__":
    main()
