#!/usr/bin/env bash
# The test command: set-up (idempotent), then the whole suite.
# Data-backed tests read ../shared/data (override with GRIOT_SHARED_DATA).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
# One test at a time: several suites embed the demo corpus on the cooperative threads, and
# run in parallel on 2 cores they starved the timing checks of the streaming tests (a
# 1-second disconnect measured as 30 s). Serial, the suite takes about 2.5 minutes.
swift test --no-parallel "$@"
