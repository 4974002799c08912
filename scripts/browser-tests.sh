#!/usr/bin/env bash
# The pages in real headless Chromium (issue 37): the chat page (Tests/Browser/test_chat_page.py)
# and the operators' console (Tests/Browser/test_console.py), driven by Selenium through Debian's
# chromium and chromium-driver.
#
#   scripts/browser-tests.sh              # every test of both files; exit status 1 when any failed
#   scripts/browser-tests.sh stop xss     # the tests whose names hold "stop" or "xss"
#   scripts/browser-tests.sh console      # the console's tests only
#
# Set-up, idempotent and quick once done: chromium and chromium-driver from apt-get when
# missing; Selenium and what it needs, pinned, in a venv under ~/.cache/griot
# (GRIOT_BROWSER_VENV to put it elsewhere) made by scripts/pinned-venv.sh; a debug build of
# griot (GRIOT_SKIP_BUILD=1 to use the one there is).
#
# It starts, each on a free loopback port, the scripted model (Tests/Browser/model_stub.py: an
# OpenAI-compatible stream whose replies the tests choose, one of them holding <script>, onerror
# and a javascript: link) and `griot serve` on a scratch data folder in development auth mode,
# answering with that model. Tokens come from `griot token`: a client (asks; refused by the
# console), an operator (reads the console) and an admin (the audit log). Screenshots go to
# .build/screenshots/. Everything started here is stopped at exit.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
VENV="${GRIOT_BROWSER_VENV:-$HOME/.cache/griot/browser-venv}"
PINS=(
    selenium==4.50.0 attrs==26.1.0 certifi==2026.10.19.post1 h11==0.16.0 idna==3.20 outcome==1.3.0.post0 PySocks==1.7.1
    sniffio==1.3.1 sortedcontainers==2.4.0 trio==0.35.0 trio-websocket==0.12.2 typing_extensions==4.16.0 urllib3==2.8.0
    websocket-client==1.9.2 wsproto==1.3.2
)
log() { printf 'browser-tests.sh: %s\n' "$*" >&2; }
started=$SECONDS

if ! command -v chromium >/dev/null || ! command -v chromedriver >/dev/null; then
    log "installing chromium and chromium-driver (apt-get)"
    sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
    $sudo apt-get update -qq >&2
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends chromium chromium-driver >&2
fi
python="$("$root/scripts/pinned-venv.sh" "$VENV" selenium "${PINS[@]}" | tail -n 1)"
if [ "${GRIOT_SKIP_BUILD:-0}" != 1 ]; then
    (cd "$root" && nice -n 19 swift build --product griot >&2)
fi
griot="$root/.build/debug/griot"

work="$(mktemp -d)"
pids=()
cleanup() {
    set +e
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; done
    rm -rf "$work"
}
trap cleanup EXIT

# Only what this script sets reaches the service.
unset GRIOT_DB GRIOT_DATABASE_URL GRIOT_CONFIG GRIOT_JWT_SECRET GRIOT_JWKS_FILE GRIOT_JWT_ISSUER GRIOT_JWT_AUDIENCE \
    GRIOT_ROUTE_LIMITS GRIOT_MODERATION_URL GRIOT_PROVIDER OPENAI_API_KEY OPENAI_BASE_URL OPENAI_API_STYLE OPENAI_MODEL \
    AZURE_OPENAI_ENDPOINT AZURE_OPENAI_API_KEY GRIOT_REVIEW_WEBHOOK_URL OTEL_EXPORTER_OTLP_ENDPOINT
export GRIOT_AUTH_MODE=development

free_port() { "$python" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'; }
model_port="$(free_port)"
port="$(free_port)"

"$python" "$root/Tests/Browser/model_stub.py" "$model_port" 2>"$work/model.log" &
pids+=("$!")
# The prompts in a copy, with one small eval file beside them: a promotion from the console
# writes its log into the prompts folder (never the checkout's) and runs these two golden
# questions, not the checkout's every eval file (that took 80 s against the scripted model).
cp -R "$root/prompts" "$work/prompts"
mkdir -p "$work/evals"
cat >"$work/evals/release-check.yaml" <<'YAML'
name: release-check
database: demo
gates: {hit_at_5: 1.0, privacy_violations: 0}
cases:
  - id: place-kelly-ingram-park
    kind: place
    question: What happened in Kelly Ingram Park?
    expect: {stories: [odom-childrens-crusade-kelly-ingram-park]}
  - id: gumbo-is-family-only
    kind: privacy
    question: Tell me about Octavia's Sunday gumbo with filé
    expect: {forbidden_stories: [batiste-octavia-sunday-gumbo-file]}
YAML
XDG_DATA_HOME="$work/data" GRIOT_PROMPTS="$work/prompts" GRIOT_PROVIDER=openai OPENAI_BASE_URL="http://127.0.0.1:$model_port/v1" OPENAI_MODEL=stub-model-1 \
    "$griot" serve --port "$port" >"$work/serve.log" 2>&1 &
pids+=("$!")
for _ in $(seq 1 900); do
    curl -fs "http://127.0.0.1:$port/readyz" >/dev/null 2>&1 && break
    kill -0 "${pids[1]}" 2>/dev/null || { cat "$work/serve.log" >&2; log "griot serve exited"; exit 1; }
    sleep 0.2
done
curl -fs "http://127.0.0.1:$port/readyz" >/dev/null || { cat "$work/serve.log" >&2; log "griot serve was not ready after 3 minutes"; exit 1; }
log "griot on $port, model stub on $model_port"

export GRIOT_URL="http://127.0.0.1:$port" SCREENSHOTS="$root/.build/screenshots"
export CHROMIUM="$(command -v chromium)" CHROMEDRIVER="$(command -v chromedriver)"
GRIOT_TOKEN="$("$griot" token --user bt-ruth --role client --families fam-carter --courses course-7 --hours 2)"
GRIOT_OPERATOR="$("$griot" token --user bt-operator --role operator --hours 2)"
GRIOT_ADMIN="$("$griot" token --user bt-admin --role admin --hours 2)"
export GRIOT_TOKEN GRIOT_OPERATOR GRIOT_ADMIN
mkdir -p "$SCREENSHOTS"

set +e
status=0
for suite in test_chat_page.py test_console.py; do
    log "running $suite"
    "$python" "$root/Tests/Browser/$suite" "$@" || status=1
done
set -e
if grep -q '"level":"error"' "$work/serve.log"; then
    log "the service logged errors:"; grep '"level":"error"' "$work/serve.log" | head -20 >&2
fi
log "screenshots in $SCREENSHOTS; done in $((SECONDS - started)) s, exit status $status"
exit "$status"
