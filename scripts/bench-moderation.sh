#!/usr/bin/env bash
# The moderation stage against HateCheck and our own cases, with better_profanity (Python)
# as the peer in the same run. Makes the peer's venv once (~/.cache/griot/moderation-venv,
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
