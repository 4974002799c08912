#!/usr/bin/env bash
# Embedding throughput: our embedder and sentence-transformers (torch CPU) on the same 1,000
# SciFact documents, same thread count and max length, in one run (docs/BENCHMARKS.md).
set -euo pipefail
cd "$(dirname "$0")/.."
data="${GRIOT_SHARED_DATA:-../shared/data}/beir-scifact"
scripts/setup.sh
python="$(scripts/reference-venv.sh | tail -n 1)"
swift build -c release --product griot-bench >&2
.build/release/griot-bench embed --data "$data" --peer-python "$python" "$@"
