#!/usr/bin/env bash
# Claim-level citation checks on the perturbation sets (docs/benchmarks/groundedness.md#claim-level-citations-issue-14):
#   scripts/bench-claims.sh [--data ../shared/data] [griot-bench claims options]
# The demo-corpus sets are in evals/claims/ (made by scripts/make-claims-set.py, seed 14, which
# writes them again byte for byte); the WPA sets hold WPA text, so they go under .build/evals/.
# Held-out sets are reported first; --examples (items the check gets wrong) is for tuning sets only.
set -euo pipefail
cd "$(dirname "$0")/.."
data="${GRIOT_SHARED_DATA:-../shared/data}"
if [[ "${1:-}" == "--data" ]]; then data="$2"; shift 2; fi
python3 scripts/make-claims-set.py --data "$data" --out evals/claims --wpa-out .build/evals
swift build -c release --product griot-bench >&2
# The faithful-paraphrase sets (issue 35, scripts/make-paraphrase-set.py) are committed as written.
sets=(evals/claims/paraphrase-heldout.jsonl evals/claims/heldout.jsonl evals/claims/paraphrase-tune.jsonl evals/claims/tune.jsonl)
if [ -e .build/evals/claims-wpa-heldout.jsonl ]; then sets+=(.build/evals/claims-wpa-heldout.jsonl .build/evals/claims-wpa-tune.jsonl); fi
.build/release/griot-bench claims --set "${sets[@]}" "$@"
