#!/usr/bin/env bash
# The PII scrubber against an evasion fuzzer written by others: casefold-fuzz 0.1.0 (PyPI, a
# pinned venv) expands every labelled value of the first N pii-eval texts into its case,
# homoglyph, invisible-character, leetspeak and spacing variants; each variant is put back in
# its sentence and the whole-text scorer reports the full mask per type and technique
# (`format` = TYPE/technique). The generated set lives in a temporary folder, never in the repo.
#
#   scripts/fuzz-pii.sh            # first 300 texts
#   scripts/fuzz-pii.sh 2400       # all of them
set -euo pipefail
cd "$(dirname "$0")/.."
data="${GRIOT_SHARED_DATA:-../shared/data}"
count="${1:-300}"
python="$(scripts/pinned-venv.sh "${GRIOT_FUZZ_VENV:-$HOME/.cache/griot/fuzz-venv}" casefold_fuzz casefold-fuzz==0.1.0 | tail -n 1)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/pii-eval"
"$python" - "$data/pii-eval/pii_faker_seed905.jsonl" "$count" > "$work/pii-eval/fuzzed.jsonl" <<'PY'
import json, sys
from casefold_fuzz import mutate
source, count = sys.argv[1], int(sys.argv[2])
for line_number, line in enumerate(open(source, encoding="utf-8")):
    if line_number >= count:
        break
    record = json.loads(line)
    text = record["text"]
    for span_number, span in enumerate(record["spans"]):
        value = text[span["start"]:span["end"]]
        for variant_number, variant in enumerate(mutate(value, max_variants=40)):
            # Leetspeak turns digits' neighbours into digits and letters into digits: it is not a
            # way to write a number, and an email in leetspeak is another address. Kept anyway.
            fuzzed = text[:span["start"]] + variant.text + text[span["end"]:]
            end = span["start"] + len(variant.text)
            print(json.dumps({
                "id": f'{record["id"]}-{span_number}-{variant_number}', "text": fuzzed,
                "spans": [{"start": span["start"], "end": end, "type": span["type"], "value": variant.text,
                           "format": variant.technique}],
                "negatives": []}, ensure_ascii=False))
PY
echo "$(wc -l < "$work/pii-eval/fuzzed.jsonl") fuzzed texts from the first $count of pii-eval" >&2
swift build -c release --product griot-bench >&2
.build/release/griot-bench pii --data "$work" --file pii-eval/fuzzed.jsonl --passes 1 "${@:2}"
