#!/usr/bin/env bash
# Groundedness score and copyright check on the perturbation sets (docs/benchmarks/groundedness.md):
#   scripts/bench-groundedness.sh [--data ../shared/data] [griot-bench groundedness options]
# The sets hold WPA text, so they are written under .build/evals/, never into the repository.
set -euo pipefail
cd "$(dirname "$0")/.."
data="${GRIOT_SHARED_DATA:-../shared/data}"
if [[ "${1:-}" == "--data" ]]; then data="$2"; shift 2; fi
python3 scripts/make-groundedness-set.py --corpus corpus --data "$data" --out .build/evals/groundedness.jsonl
scripts/fetch-model.sh >&2
swift build -c release --product griot-bench >&2
.build/release/griot-bench groundedness --data "$data" "$@"
