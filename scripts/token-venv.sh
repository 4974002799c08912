#!/usr/bin/env bash
# Creates (once) the Python venv with OpenAI's tiktoken (the Rust-backed reference
# tokenizer), every version pinned below.
#
#   scripts/token-venv.sh        # -> $HOME/.cache/griot/token-venv/bin/python
#   GRIOT_TOKEN_VENV=/some/dir scripts/token-venv.sh
#
# Used by scripts/make-token-fixture.py and scripts/bench-tokens.sh. When the venv
# already holds the pinned versions it installs nothing. The last line on stdout is
# the venv's python; diagnostics go to stderr.
set -euo pipefail

VENV="${GRIOT_TOKEN_VENV:-$HOME/.cache/griot/token-venv}"
PYTHON="${PYTHON:-python3}"

# tiktoken and what pip resolved for it on 2026-11 (Python 3.11, Debian 12).
PINS=(
    tiktoken==0.14.0
    regex==2026.11.15
    requests==2.34.2
    certifi==2026.10.18
    charset-normalizer==3.5.2
    idna==3.20
    urllib3==2.8.0
)

log() { printf 'token-venv: %s\n' "$*" >&2; }

venv_python="$VENV/bin/python"

# Succeeds when the venv's python runs and reports every pinned version.
venv_ok() {
    [ -x "$venv_python" ] || return 1
    "$venv_python" - "${PINS[@]}" <<'PY' >/dev/null 2>&1
import sys
from importlib.metadata import version
for pin in sys.argv[1:]:
    name, wanted = pin.split("==")
    assert version(name) == wanted, pin
import tiktoken
PY
}

if venv_ok; then
    log "venv already set up"
    echo "$venv_python"
    exit 0
fi

if [ -d "$VENV" ]; then
    log "rebuilding $VENV (missing, changed or incomplete)"
    rm -rf "$VENV"
fi
log "creating $VENV"
mkdir -p "$(dirname "$VENV")"
"$PYTHON" -m venv "$VENV"
"$venv_python" -m pip --disable-pip-version-check --quiet install --only-binary=:all: "${PINS[@]}" >&2

if ! venv_ok; then
    log "error: the venv does not report the pinned versions after installing"
    exit 1
fi
log "venv ready"
echo "$venv_python"
