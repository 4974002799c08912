#!/usr/bin/env bash
# The OpenAI-compatible facade against Griot's own streaming route (issue 36): one `griot serve`
# on a fresh copy of the demo corpus in front of a paced stub model (400 tokens, one every 50 ms),
# rounds of 1,000 concurrent streams over 10 s, each chat with its own user, alternating chat by
# chat between POST /v1/chat/completions and POST /api/griot/chat/stream; first content and
# end-of-stream p50/p95/p99 of each, and the facade's p95 minus the own route's against 5 ms
# (docs/BENCHMARKS.md).
# Options: --streams 1000 --rounds 2 --tokens 400 --pace 0.05 --ramp 10 --limit 5 --keep
# Set GRIOT_BUILD_PATH to build elsewhere than .build (swift build --scratch-path).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
build="${GRIOT_BUILD_PATH:-.build}"
# One descriptor per client connection, per accepted connection and per upstream stream.
ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)"
swift build -c release --scratch-path "$build" --product griot >&2
swift build -c release --scratch-path "$build" --product griot-bench >&2
"$build/release/griot-bench" v1-overhead --griot "$build/release/griot" --corpus corpus --prompts prompts "$@"
