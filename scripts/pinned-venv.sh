#!/usr/bin/env bash
# Creates (once) a Python venv holding exactly the pinned packages, for a reference tool or a
# benchmark's peer, and prints its python as the last line on stdout (diagnostics on stderr).
#
#   scripts/pinned-venv.sh [--allow-source] DIR MODULE NAME==VERSION ...
#
# MODULE must import in the venv. When the venv already reports every pinned version nothing
# is installed; a venv that is missing, changed or incomplete is made again. Wheels only,
# unless --allow-source.
set -euo pipefail
binary=(--only-binary=:all:)
if [ "${1:-}" = "--allow-source" ]; then binary=(); shift; fi
[ $# -ge 3 ] || { echo "usage: scripts/pinned-venv.sh [--allow-source] DIR MODULE NAME==VERSION ..." >&2; exit 2; }
venv="$1"; module="$2"; shift 2
pins=("$@")
name="$(basename "$venv")"
log() { printf '%s: %s\n' "$name" "$*" >&2; }
venv_python="$venv/bin/python"

# Succeeds when the venv's python runs, reports every pinned version and imports the module.
venv_ok() {
    [ -x "$venv_python" ] || return 1
    "$venv_python" - "$module" "${pins[@]}" <<'PY' >/dev/null 2>&1
import importlib, sys
from importlib.metadata import version
for pin in sys.argv[2:]:
    name, wanted = pin.split("==")
    assert version(name) == wanted, pin
importlib.import_module(sys.argv[1])
PY
}

if venv_ok; then
    log "venv already set up"
    echo "$venv_python"
    exit 0
fi
if [ -d "$venv" ]; then
    log "rebuilding $venv (missing, changed or incomplete)"
    rm -rf "$venv"
fi
log "creating $venv"
mkdir -p "$(dirname "$venv")"
"${PYTHON:-python3}" -m venv "$venv"
"$venv_python" -m pip --disable-pip-version-check --quiet install "${binary[@]}" "${pins[@]}" >&2
if ! venv_ok; then
    log "error: the venv does not report the pinned versions after installing"
    exit 1
fi
log "venv ready"
echo "$venv_python"
