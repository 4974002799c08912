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

if ! "$venv/bin/python" -c 'from importlib.metadata import version; assert version("better_profanity") == "0.7.0"' 2>/dev/null; then
    echo "bench-moderation: creating $venv" >&2
    rm -rf "$venv"
    mkdir -p "$(dirname "$venv")"
    "${PYTHON:-python3}" -m venv "$venv"
    "$venv/bin/python" -m pip --disable-pip-version-check --quiet install --only-binary=:all: "$pin" >&2
fi
swift build -c release --product griot-bench >&2
.build/release/griot-bench moderation --data "$data" --peer-python "$venv/bin/python" "$@"
