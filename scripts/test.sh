#!/usr/bin/env bash
# The test command: set-up (idempotent), then the whole suite.
# Data-backed tests read ../shared/data (override with GRIOT_SHARED_DATA).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
swift test "$@"
