#!/usr/bin/env bash
# Creates (once) the Python venv that runs the reference implementation of the
# all-MiniLM-L6-v2 embedder: the CPU build of torch from /opt/wheels and
# sentence-transformers from PyPI, every version pinned below.
#
#   scripts/reference-venv.sh        # -> $HOME/.cache/griot/reference-venv/bin/python
#   GRIOT_REFERENCE_VENV=/some/dir scripts/reference-venv.sh
#
# Used by scripts/make-embedding-fixture.py. When the venv already holds the
# pinned versions it installs nothing. The last line on stdout is the venv's
# python; diagnostics go to stderr.
set -euo pipefail

VENV="${GRIOT_REFERENCE_VENV:-$HOME/.cache/griot/reference-venv}"
TORCH_WHEEL="${GRIOT_TORCH_WHEEL:-/opt/wheels/torch-2.13.0+cpu-cp311-cp311-manylinux_2_28_x86_64.whl}"
TORCH_VERSION="2.13.0+cpu"
PYTHON="${PYTHON:-python3}"

# The versions resolved on 2026-11 for sentence-transformers 6.2.0 beside
# torch 2.13.0+cpu (Python 3.11, Debian 12), all pinned so the fixture is
# made by the same code every time.
PINS=(
    sentence-transformers==6.2.0
    transformers==5.23.0
    tokenizers==0.23.3
    huggingface_hub==2.4.0
    safetensors==0.8.0
    numpy==2.4.6
    scipy==1.17.1
    scikit-learn==1.9.1
    regex==2026.11.15
    tqdm==4.70.1
    packaging==26.3
    PyYAML==6.0.3
    filelock==4.2.11
    fsspec==2026.9.0
    typing_extensions==4.16.0
    sympy==1.14.0
    mpmath==1.3.0
    networkx==3.6.1
    Jinja2==3.1.6
    MarkupSafe==3.0.4
    joblib==1.6.0
    threadpoolctl==3.8.0
    hf-xet==1.8.0
    httpx2==2.16.2
    httpcore2==2.16.2
    h11==0.16.0
    anyio==4.16.0
    idna==3.20
    truststore==0.10.5
    typer==0.29.2
    click==8.5.1
    shellingham==1.5.4
    rich==15.0.0
    markdown-it-py==4.3.0
    mdurl==0.1.2
    Pygments==2.21.0
    annotated-doc==0.0.7
    annotated-types==0.8.0
    pydantic==2.14.3
    pydantic_core==2.50.4
    typing-inspection==0.4.5
    narwhals==2.29.0
    cloudpickle==3.1.2
)

log() { printf 'reference-venv: %s\n' "$*" >&2; }

# What was installed, so that a change of any pin (or of the wheel) rebuilds.
stamp_text() {
    printf '%s\n' "torch==$TORCH_VERSION $(basename "$TORCH_WHEEL")" "${PINS[@]}"
}
stamp_file="$VENV/.griot-reference-stamp"
venv_python="$VENV/bin/python"

# Succeeds when the venv's python runs and reports the pinned versions of the
# packages the fixture depends on (without importing torch, which is slow).
venv_ok() {
    [ -x "$venv_python" ] && [ -f "$stamp_file" ] || return 1
    [ "$(cat "$stamp_file")" = "$(stamp_text)" ] || return 1
    "$venv_python" - "$TORCH_VERSION" "${PINS[@]}" <<'EOF' >/dev/null 2>&1
import sys
from importlib.metadata import version
torch_version, *pins = sys.argv[1:]
assert version("torch") == torch_version
for pin in pins:
    name, wanted = pin.split("==")
    assert version(name) == wanted, pin
EOF
}

if venv_ok; then
    log "venv already set up"
    echo "$venv_python"
    exit 0
fi

if [ ! -f "$TORCH_WHEEL" ]; then
    log "error: the CPU torch wheel is not at $TORCH_WHEEL (set GRIOT_TORCH_WHEEL)"
    exit 1
fi
if ! "$PYTHON" -c 'import sys; sys.exit(sys.version_info[:2] != (3, 11))'; then
    log "error: $PYTHON is not Python 3.11, which the cp311 torch wheel needs"
    exit 1
fi

if [ -d "$VENV" ]; then
    log "rebuilding $VENV (missing, changed or incomplete)"
    rm -rf "$VENV"
fi
log "creating $VENV"
mkdir -p "$(dirname "$VENV")"
"$PYTHON" -m venv "$VENV"

pip=("$venv_python" -m pip --disable-pip-version-check --quiet)
log "installing torch from $TORCH_WHEEL"
"${pip[@]}" install "$TORCH_WHEEL" >&2
log "installing sentence-transformers and its dependencies from PyPI"
constraints="$VENV/griot-constraints.txt"
printf '%s\n' "torch==$TORCH_VERSION" "${PINS[@]}" >"$constraints"
"${pip[@]}" install --constraint "$constraints" "${PINS[@]}" >&2

stamp_text >"$stamp_file"
if ! venv_ok; then
    log "error: the venv does not report the pinned versions after installing"
    exit 1
fi
log "venv ready"
echo "$venv_python"
