#!/usr/bin/env bash
# Fuzzes the running service against its own OpenAPI document with schemathesis: every
# operation, with generated valid and invalid input, checked for 5xx responses, bodies that break
# the documented schema, undocumented status codes and content types.
#
#   scripts/schemathesis.sh                  # bounded run: 40 examples an operation
#   scripts/schemathesis.sh --max-examples 200
#
# It builds griot (debug, like the tests), starts `griot serve` on a fresh demo database in a
# temporary folder with development tokens, runs `st run` against /openapi.yaml as an admin
# (the role that may call every route), and stops the service. Exit status: schemathesis's.
# schemathesis and what pip resolved for it are pinned in a venv under ~/.cache/griot.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
VENV="${GRIOT_SCHEMATHESIS_VENV:-$HOME/.cache/griot/schemathesis-venv}"
PINS=(
    schemathesis==4.32.5 anyio==4.16.0 certifi==2026.10.18 charset-normalizer==3.5.2 click==8.5.1 graphql-core==3.3.2
    harfile==0.6.0 hypothesis==6.170.15 hypothesis-graphql==0.13.5 idna==3.20 iniconfig==2.3.1 jsonschema_rs==0.60.3
    markdown-it-py==4.3.0 MarkupSafe==3.0.4 mdurl==0.1.2 packaging==26.3 pluggy==1.7.0 Pygments==2.21.0
    pyrate-limiter==4.5.1 pytest==9.2.0 PyYAML==6.0.3 requests==2.34.2 rich==15.0.0 sortedcontainers==2.4.0
    typing_extensions==4.16.0 urllib3==2.8.0 Werkzeug==3.1.9
)
log() { printf 'schemathesis.sh: %s\n' "$*" >&2; }

if [[ "$("$VENV/bin/st" --version 2>/dev/null)" != *"4.32.5"* ]]; then
    log "creating $VENV with schemathesis 4.32.5"
    python3 -m venv "$VENV"
    "$VENV/bin/pip" install --quiet --disable-pip-version-check "${PINS[@]}"
fi

(cd "$root" && swift build --product griot >&2)
work="$(mktemp -d)"
port="${GRIOT_FUZZ_PORT:-$((20000 + RANDOM % 20000))}"
cleanup() {
    [[ -n "${pid:-}" ]] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
    rm -rf "$work"
}
trap cleanup EXIT
export GRIOT_AUTH_MODE=development XDG_DATA_HOME="$work/data" GRIOT_PROVIDER=extractive
# One admin sends thousands of requests: route budgets a real client never meets would turn
# most of them into 429s and fuzz nothing. (429 is documented on every operation, so a run with
# the default limits passes too; it only tests less.)
export GRIOT_ROUTE_LIMITS="probe=1000000/60 read=1000000/60 search=1000000/60 heavy=1000000/60 in_flight=1000"
unset GRIOT_DB OPENAI_API_KEY OPENAI_BASE_URL GRIOT_JWT_SECRET GRIOT_JWKS_FILE
# A promotion writes releases.yaml and promotions.jsonl into the prompts folder and runs the
# eval files beside it: the service gets a copy of both, so that the fuzzer's promotions leave
# the checkout alone, and one small eval file, so that each costs seconds rather than minutes.
cp -R "$root/prompts" "$work/prompts"
mkdir -p "$work/evals"
cat >"$work/evals/fuzz.yaml" <<'YAML'
name: fuzz
database: demo
gates: {hit_at_5: 1.0}
cases:
  - id: place-kelly-ingram-park
    kind: place
    question: What happened in Kelly Ingram Park?
    expect: {stories: [odom-childrens-crusade-kelly-ingram-park]}
YAML
export GRIOT_PROMPTS="$work/prompts"
"$root/.build/debug/griot" serve --port "$port" >"$work/serve.log" 2>&1 &
pid=$!
for _ in $(seq 1 600); do
    curl -fs "http://127.0.0.1:$port/readyz" >/dev/null 2>&1 && break
    kill -0 "$pid" 2>/dev/null || { cat "$work/serve.log" >&2; log "griot serve exited"; exit 1; }
    sleep 0.2
done
token="$("$root/.build/debug/griot" token --user fuzz-admin --role admin --hours 2)"

log "fuzzing http://127.0.0.1:$port/openapi.yaml"
# The dashboard's stream (text/event-stream) stays open while the client reads, sending the
# figures again as they change: schemathesis waits for a body's end, so it is left out; its
# tests read it as a page does.
set +e
"$VENV/bin/st" run "http://127.0.0.1:$port/openapi.yaml" \
    --header "Authorization: Bearer $token" \
    --checks not_a_server_error,response_schema_conformance,status_code_conformance,content_type_conformance,response_headers_conformance \
    --phases examples,coverage,fuzzing,stateful --max-examples "${MAX_EXAMPLES:-40}" --workers 1 \
    --seed 20261122 --no-color \
    --exclude-path /api/ops/dashboard/stream \
    "$@"
status=$?
set -e
if grep -q '"level":"error"' "$work/serve.log"; then
    log "the service logged errors:"; grep '"level":"error"' "$work/serve.log" | head -20 >&2
fi
exit "$status"
