#!/usr/bin/env bash
# The moderation stage against HateCheck, our own cases, the held-out and crafted-spelling
# files (figures only) and the tuning file, with per-message p50/p95/p99 on one thread and
# better_profanity (Python) as the peer in the same run. Makes the peer's venv once (~/.cache/griot/moderation-venv,
# better_profanity pinned, no other dependencies), builds griot-bench in release mode, runs it.
#
#   scripts/bench-moderation.sh             # extra options go to griot-bench moderation
set -euo pipefail
cd "$(dirname "$0")/.."
data="${GRIOT_SHARED_DATA:-../shared/data}"
venv="${GRIOT_MODERATION_VENV:-$HOME/.cache/griot/moderation-venv}"
pin="better_profanity==0.7.0"

python="$(scripts/pinned-venv.sh "$venv" better_profanity "$pin" | tail -n 1)"
swift build -c release --product griot-bench >&2
.build/release/griot-bench moderation --data "$data" --peer-python "$python" "$@"
