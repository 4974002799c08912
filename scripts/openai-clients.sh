#!/usr/bin/env bash
# Acceptance of the OpenAI-compatible facade (/v1, issue 36) with real OpenAI clients: the
# official `openai` Python SDK and LangChain's `ChatOpenAI` (langchain-openai), each through a
# JWT and through an API key. scripts/openai-clients.py holds the checks; each prints PASS or
# FAIL with a reason.
#
#   scripts/openai-clients.sh            # exit status: the checks' (1 when any failed)
#   scripts/openai-clients.sh -v         # also print each request's reply when a check fails
#
# It builds griot (debug, like the tests) and starts two `griot serve`s on fresh temporary data
# folders with development tokens, each on a free loopback port:
#   - the main one answers with the offline responder (GRIOT_PROVIDER=extractive);
#   - the other's provider is an OpenAI-compatible server at a closed loopback port, with one
#     attempt and a breaker that opens on the first failure, for 503 `ai_unavailable`; its
#     `read` budget is 1 request an hour, so a second `GET /v1/models` is a 429.
# Tokens come from `griot token`, API keys from `griot keys create` (one with
# `--requests-per-minute 1` for a 429 on completions, one revoked at once by `griot keys revoke`
# for a 401). Both serves are stopped at the end.
#
# Why LangChain and not LiteLLM: langchain-openai with the SDK resolves to 38 packages
# (136 MB) and makes no connection at import; litellm resolves to 60 (381 MB, boto3,
# huggingface_hub, tokenizers, aiohttp) and fetches its model cost map from GitHub at import
# unless LITELLM_LOCAL_MODEL_COST_MAP=True. The Python script refuses any connection that is
# not to a loopback address, and a FAIL names it: the run is fully offline.
#
# Every package pip resolved is pinned (pip freeze after the first resolve), in a venv under
# ~/.cache/griot (GRIOT_OPENAI_CLIENTS_VENV to put it elsewhere), made by scripts/pinned-venv.sh.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
VENV="${GRIOT_OPENAI_CLIENTS_VENV:-$HOME/.cache/griot/openai-clients-venv}"
PINS=(
    openai==3.57.0 langchain-openai==1.7.4 langchain-core==1.8.3 langchain-protocol==0.0.20 langsmith==0.15.1
    annotated-types==0.8.0 anyio==4.16.0 certifi==2026.10.19.post1 charset-normalizer==3.5.3 distro==1.9.0 h11==0.16.0
    httpcore==1.0.9 httpcore2==2.16.2 httpx==0.28.1 httpx2==2.16.2 idna==3.20 jiter==0.19.0 jsonpatch==1.48
    jsonpointer==3.12 orjson==3.13.0 packaging==26.4 pydantic==2.14.4 pydantic_core==2.50.5 PyYAML==6.0.4
    regex==2026.11.19 requests==2.34.2 requests-toolbelt==1.0.0 sniffio==1.3.1 tenacity==9.2.1 tiktoken==0.14.0
    truststore==0.10.5 typing-inspection==0.4.5 typing_extensions==4.16.0 urllib3==2.8.0 uuid_utils==0.19.0
    websockets==17.4 xxhash==4.1.0 zstandard==0.25.0
)
log() { printf 'openai-clients.sh: %s\n' "$*" >&2; }
started=$SECONDS

python="$("$root/scripts/pinned-venv.sh" "$VENV" langchain_openai "${PINS[@]}" | tail -n 1)"
(cd "$root" && swift build --product griot >&2)
griot="$root/.build/debug/griot"

work="$(mktemp -d)"
pids=()
cleanup() {
    set +e
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; done
    rm -rf "$work"
}
trap cleanup EXIT

# Only what this script sets reaches the services and the clients.
unset GRIOT_DB GRIOT_DATABASE_URL GRIOT_CONFIG GRIOT_JWT_SECRET GRIOT_JWKS_FILE GRIOT_JWT_ISSUER GRIOT_JWT_AUDIENCE \
    GRIOT_ROUTE_LIMITS GRIOT_MODERATION_URL GRIOT_PROVIDER OPENAI_API_KEY OPENAI_BASE_URL OPENAI_API_STYLE OPENAI_MODEL \
    AZURE_OPENAI_ENDPOINT AZURE_OPENAI_API_KEY OPENAI_ORG_ID OPENAI_PROJECT_ID
export GRIOT_AUTH_MODE=development LANGSMITH_TRACING=false LANGCHAIN_TRACING_V2=false
unset LANGSMITH_API_KEY LANGCHAIN_API_KEY

# A loopback port nothing listens on (asked of the kernel, then closed).
free_port() { "$python" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'; }

# start NAME PORT [VAR=VALUE ...]: `griot serve` on its own data folder, log in $work/NAME.log.
start() {
    local name="$1" port="$2"; shift 2
    mkdir -p "$work/$name"
    env "$@" XDG_DATA_HOME="$work/$name/data" "$griot" serve --port "$port" >"$work/$name.log" 2>&1 &
    pids+=("$!")
}
# ready NAME PORT PID: waits for /readyz (up to 3 minutes; both index the corpus at once).
ready() {
    local name="$1" port="$2" pid="$3"
    for _ in $(seq 1 900); do
        curl -fs "http://127.0.0.1:$port/readyz" >/dev/null 2>&1 && return 0
        kill -0 "$pid" 2>/dev/null || { cat "$work/$name.log" >&2; log "griot serve ($name) exited"; exit 1; }
        sleep 0.2
    done
    cat "$work/$name.log" >&2; log "griot serve ($name) was not ready after 3 minutes"; exit 1
}

main_port="$(free_port)"
down_port="$(free_port)"
closed_port="$(free_port)"
start main "$main_port" GRIOT_PROVIDER=extractive
start down "$down_port" GRIOT_PROVIDER=openai OPENAI_BASE_URL="http://127.0.0.1:$closed_port/v1" OPENAI_CONNECT_TIMEOUT=2 \
    GRIOT_RETRY_ATTEMPTS=1 GRIOT_BREAKER_FAILURES=1 GRIOT_BREAKER_OPEN_SECONDS=600 GRIOT_ROUTE_LIMITS="read=1/3600"
ready main "$main_port" "${pids[0]}"
ready down "$down_port" "${pids[1]}"
log "main service on $main_port, provider-down service on $down_port (provider at closed port $closed_port)"

token() { "$griot" token --hours 2 "$@"; }
export GRIOT_V1="http://127.0.0.1:$main_port/v1" GRIOT_V1_DOWN="http://127.0.0.1:$down_port/v1" GRIOT_CORPUS_DIR="$root/corpus"
# The main client sees the Carters' stories; the coach's client is in course-7; the stranger
# belongs to no family and no course; the family reader is in every family (privacy control).
GRIOT_TOKEN="$(token --user oc-ruth --role client --families fam-carter)"
GRIOT_TOKEN_COACH="$(token --user oc-student --role client --courses course-7)"
GRIOT_TOKEN_LANGCHAIN="$(token --user oc-langchain --role client --families fam-carter)"
GRIOT_TOKEN_STRANGER="$(token --user oc-stranger --role client)"
GRIOT_TOKEN_FAMILY="$(token --user oc-relative --role client --families fam-batiste fam-carter fam-odom fam-whitfield)"
GRIOT_TOKEN_DOWN="$(token --user oc-down --role client)"
GRIOT_TOKEN_LIMITED="$(token --user oc-limited --role client)"
export GRIOT_TOKEN GRIOT_TOKEN_COACH GRIOT_TOKEN_LANGCHAIN GRIOT_TOKEN_STRANGER GRIOT_TOKEN_FAMILY GRIOT_TOKEN_DOWN GRIOT_TOKEN_LIMITED

# API keys, made in the main service's database; each is printed once, as griot_….
key_help="$("$griot" keys create --help 2>&1 || true)"
if [[ "$key_help" == *"--name"* ]]; then
    key() {
        local out
        out="$(XDG_DATA_HOME="$work/main/data" "$griot" keys create "$@" 2>"$work/keys.err")" \
            || { cat "$work/keys.err" >&2; log "griot keys create $* failed"; return 1; }
        grep -oE 'griot_[A-Za-z0-9_-]{16,}' <<<"$out" | head -n 1
    }
    GRIOT_KEY="$(key --name oc-key --role client)"
    GRIOT_KEY_PRIVACY="$(key --name oc-key-privacy --role client)"
    # A key revoked at once (its id is the part between griot_ and the secret).
    GRIOT_KEY_REVOKED="$(key --name oc-key-revoked --role client)"
    revoked_id="$(cut -d_ -f2 <<<"$GRIOT_KEY_REVOKED")"
    XDG_DATA_HOME="$work/main/data" "$griot" keys revoke "$revoked_id" >/dev/null 2>"$work/keys.err" \
        || { cat "$work/keys.err" >&2; log "griot keys revoke $revoked_id failed"; exit 1; }
    export GRIOT_KEY GRIOT_KEY_PRIVACY GRIOT_KEY_REVOKED
    if [[ "$key_help" == *"--courses"* ]]; then
        GRIOT_KEY_COACH="$(key --name oc-key-coach --role client --courses course-7)"
        export GRIOT_KEY_COACH
    fi
    if [[ "$key_help" == *"--requests-per-minute"* ]]; then
        GRIOT_KEY_LIMITED="$(key --name oc-key-limited --role client --requests-per-minute 1)"
        export GRIOT_KEY_LIMITED
    fi
else
    export GRIOT_KEYS_MISSING="\`griot keys create\` is not in this build: $(head -n 1 <<<"$key_help")"
fi

log "running scripts/openai-clients.py"
set +e
"$python" "$root/scripts/openai-clients.py" "$@"
status=$?
set -e
# (The provider-down service logs its provider's failures as errors: they are the point.)
if grep -q '"level":"error"' "$work/main.log"; then
    log "the main service logged errors:"; grep '"level":"error"' "$work/main.log" | head -20 >&2
fi
log "done in $((SECONDS - started)) s, exit status $status"
exit "$status"
