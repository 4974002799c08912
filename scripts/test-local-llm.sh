#!/usr/bin/env bash
# Griot against real model servers (issue 36): the LocalModelTests suite, which starts llama.cpp's
# OpenAI-compatible server with SmolLM2 135M and Gemma 3 270M (scripts/local-llm.sh) and checks,
# through Griot's HTTP routes, a streamed reply stored as it was streamed with each model, a
# client's hang-up stopping the generation on the server, the server killed mid-stream (the
# partial reply stored as failed), and a restarted server closing the breaker through its probe.
#
#   scripts/test-local-llm.sh          # install (cached: seconds after the first time), then the suite
#
# The first install builds llama-cpp-python and downloads both models (minutes; see
# scripts/local-llm.sh); later runs find them under ~/.cache/griot. The suite uses ports
# 28181-28185 on 127.0.0.1 and a run folder of its own per server, so servers someone started
# with scripts/local-llm.sh are left alone. Prints how long each part took; exits with the
# tests' status.
set -euo pipefail
cd "$(dirname "$0")/.."

started=$SECONDS
report() {
    local status=$?
    echo "test-local-llm: install ${install_seconds:-?} s, tests ${test_seconds:-?} s, $((SECONDS - started)) s in all (exit $status)" >&2
}
trap report EXIT

scripts/local-llm.sh install
install_seconds=$((SECONDS - started))

tests_started=$SECONDS
status=0
GRIOT_LLM_TESTS=1 swift test --no-parallel --filter LocalModelTests || status=$?
test_seconds=$((SECONDS - tests_started))
exit "$status"
