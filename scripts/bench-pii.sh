#!/usr/bin/env bash
# The PII scrubber, measured in three runs:
#  1. whole texts: accuracy on pii-eval/pii_faker_seed905.jsonl (exact, overlap, full mask per
#     type and format, over-masking per hard-negative kind), MB/s on one thread and µs per
#     sentence, against the same patterns run by NSRegularExpression and against scrubadub 2.0.1
#     (default detectors), all in one run;
#  2. the crafted formats (evals/pii/crafted-tuning.txt and crafted-heldout.txt) and addresses as
#     people write them with IPs in unusual forms (addresses-tuning.txt, addresses-heldout.txt);
#  3. end to end, the scorer of record: every text of 1 and 2 streamed by a stub model through
#     `griot serve` and scored on what the client receives.
#
#   scripts/bench-pii.sh                 # sets up the scrubadub venv once, builds, runs all three
#   scripts/bench-pii.sh --verbose       # run 1 also lists every miss and every masked negative
#   GRIOT_PII_VENV=/some/dir scripts/bench-pii.sh
#   GRIOT_PII_NO_PEER=1 scripts/bench-pii.sh   # without scrubadub (no venv, no pip)
#   GRIOT_PII_NO_E2E=1 scripts/bench-pii.sh    # without run 3 (no griot release build)
#
# The venv holds scrubadub and what pip resolved for it on 2026-11-22 (Python 3.11,
# Debian 12), every version pinned; when it already holds them nothing is installed.
set -euo pipefail
cd "$(dirname "$0")/.."
data="${GRIOT_SHARED_DATA:-../shared/data}"
VENV="${GRIOT_PII_VENV:-$HOME/.cache/griot/pii-venv}"

PINS=(
    scrubadub==2.0.1
    catalogue==2.0.10
    click==8.5.1
    cloudpickle==3.1.2
    dateparser==1.5.0
    defusedxml==0.7.1
    Faker==40.54.0
    joblib==1.6.0
    narwhals==2.29.0
    nltk==3.10.4
    numpy==2.4.6
    phonenumbers==9.0.43
    python-dateutil==4.0.0
    python-stdnum==2.2
    pytz==2026.6
    regex==2026.11.15
    scikit-learn==1.9.1
    scipy==1.17.1
    textblob==0.15.3
    threadpoolctl==3.8.0
    tqdm==4.70.1
    typing_extensions==4.16.0
    tzdata==2026.6
    tzlocal==5.4.5
)

peer=()
if [ -z "${GRIOT_PII_NO_PEER:-}" ]; then
    peer=(--peer-python "$(scripts/pinned-venv.sh --allow-source "$VENV" scrubadub "${PINS[@]}" | tail -n 1)")
fi

swift build -c release --product griot-bench >&2
.build/release/griot-bench pii --data "$data" "${peer[@]}" "$@"
.build/release/griot-bench pii crafted
if [ -z "${GRIOT_PII_NO_E2E:-}" ]; then
    swift build -c release --product griot >&2
    .build/release/griot-bench pii end-to-end --shared-data "$data" --griot .build/release/griot
fi
