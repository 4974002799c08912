#!/usr/bin/env bash
# The WPA golden questions (evals/wpa.yaml) with the offline extractive responder, on a database
# made by griot import-wpa from ../shared/data/wpa-narratives. The database is made once, at
# $GRIOT_WPA_DB (default .build/wpa.sqlite; a relative path is taken from the checkout), and
# reused while the file exists: delete it to re-import (importing embeds every passage: about
# 40 s with the debug build on 2 cores). Set-up (scripts/setup.sh) comes first because the import
# and the eval need the embedding model. Extra arguments go to griot eval, e.g.
# --json .build/eval-wpa.json --junit .build/eval-wpa.xml. Exits 1 when a gate fails.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
swift build --product griot >&2
db="${GRIOT_WPA_DB:-.build/wpa.sqlite}"
if [ ! -e "$db" ]; then
    data="${GRIOT_SHARED_DATA:-../shared/data}/wpa-narratives"
    echo "eval-wpa: importing $data into $db" >&2
    mkdir -p "$(dirname "$db")"
    # Into a temporary file first, so an interrupted import never leaves a half-made database behind.
    partial="$db.partial"
    rm -f "$partial" "$partial-wal" "$partial-shm"
    .build/debug/griot import-wpa "$data" --db "$partial"
    # The database is in WAL mode: a log left beside it moves with it (it belongs to the file's name).
    if [ -e "$partial-wal" ]; then mv "$partial-wal" "$db-wal"; fi
    rm -f "$partial-shm"
    mv "$partial" "$db"
fi
GRIOT_PROVIDER=extractive .build/debug/griot eval evals/wpa.yaml --db "$db" "$@"
