#!/usr/bin/env bash
# Latency of a whole hybrid query (query embedding, BM25 arm, vector arm, fusion, access filter)
# at 5k and 100k synthetic passages, one thread (docs/BENCHMARKS.md).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
python="$(scripts/reference-venv.sh | tail -n 1)"
swift build -c release --product griot-bench >&2
.build/release/griot-bench latency --wpa "${GRIOT_SHARED_DATA:-../shared/data}/wpa-narratives" --peer-python "$python" "$@"
