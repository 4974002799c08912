#!/usr/bin/env bash
# Token throughput: our byte-pair encoder and OpenAI's tiktoken (Rust core, one thread) on
# the same WPA narrative passages and SciFact abstracts, cl100k_base and o200k_base, in one
# run; the token counts must agree. Fetches the rank files and sets up a venv with tiktoken
# once (both idempotent), builds the benchmark in release mode, runs it.
set -euo pipefail
cd "$(dirname "$0")/.."
data="${GRIOT_SHARED_DATA:-../shared/data}"
scripts/fetch-tokenizers.sh >/dev/null
python="$(scripts/token-venv.sh | tail -n 1)"
swift build -c release --product griot-bench >&2
.build/release/griot-bench tokens --data "$data" --peer-python "$python" "$@"
