#!/usr/bin/env bash
# BEIR SciFact: Griot's BM25 and tantivy on the same data in one run, and with --dense the
# MiniLM arm and hybrid fusion (docs/BENCHMARKS.md). Sets up a venv with tantivy once
# (idempotent), builds the benchmark in release mode, runs it.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
data="${GRIOT_SHARED_DATA:-../shared/data}/beir-scifact"
venv="${GRIOT_BENCH_VENV:-$HOME/.cache/griot/bench-venv}"
if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c 'import tantivy' 2>/dev/null; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet 'tantivy==0.27.0'
fi
swift build -c release --product griot-bench >&2
.build/release/griot-bench scifact --data "$data" --peer-python "$venv/bin/python" "$@"
