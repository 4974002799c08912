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

exec "$(dirname "$0")/pinned-venv.sh" "$VENV" tiktoken "${PINS[@]}"
