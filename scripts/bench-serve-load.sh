#!/usr/bin/env bash
# The HTTP service under many concurrent streaming chats: a paced stub model (400 tokens, one
# every 50 ms, a hosted model's pace), `griot serve` on a fresh copy of the demo corpus in front
# of it, 1,000 chats opened over 10 s, each with its own user's token; the same chats straight
# to the stub are the peer (docs/BENCHMARKS.md).
# Options: --chats 100 250 500 1000 --tokens 400 --pace 0.05 --ramp 10 --sentence-words 12 (or a range, 2-80)
# Set GRIOT_BUILD_PATH to build elsewhere than .build (swift build --scratch-path).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
build="${GRIOT_BUILD_PATH:-.build}"
# One descriptor per client connection, per accepted connection and per upstream stream.
ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)"
swift build -c release --scratch-path "$build" --product griot >&2
swift build -c release --scratch-path "$build" --product griot-bench >&2
"$build/release/griot-bench" serve-load --griot "$build/release/griot" --corpus corpus --prompts prompts "$@"
