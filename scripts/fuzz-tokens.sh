#!/usr/bin/env bash
# Checks the byte-pair encoder against tiktoken on many fresh random texts, beyond the
# committed fixture: random strings of tricky scalars, random code points, and narrative
# passages with such scalars dropped in. A new seed each run unless one is given.
#
#   scripts/fuzz-tokens.sh              # 100,000 texts, random seed
#   scripts/fuzz-tokens.sh 300000 42    # count and seed
#
# A failure prints the seed; rerun with it to get the same texts.
set -euo pipefail
cd "$(dirname "$0")/.."
count="${1:-100000}"
seed="${2:-$RANDOM$RANDOM}"
scripts/fetch-tokenizers.sh >/dev/null
python="$(scripts/token-venv.sh | tail -n 1)"
texts="$(mktemp "${TMPDIR:-/tmp}/griot-token-fuzz.XXXXXX")"
trap 'rm -f "$texts"' EXIT
echo "fuzz-tokens: $count texts, seed $seed" >&2
"$python" scripts/make-token-fixture.py --fuzz "$count" --seed "$seed" --out "$texts"
GRIOT_TOKEN_FUZZ="$texts" swift test --filter TiktokenFuzzTests
