"""The scrubadub peer for `griot-bench pii`: scrubadub 2.0.1 with its default detectors on the
same texts, one `iter_filth` call per text on one thread. The texts come from the JSON list
griot-bench writes. Filth types are mapped to ours (email, phone, credit_card,
social_security_number, address); others (url, postalcode, ...) are left out, as the set's
README does for "our 6 types". Prints one JSON object: version, best seconds, matches per text."""
import argparse
import json
import time
from importlib.metadata import version

import scrubadub

TYPES = {
    "email": "EMAIL",
    "phone": "PHONE",
    "credit_card": "CREDIT_CARD",
    "social_security_number": "SSN",
    "address": "ADDRESS",
}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--texts", required=True, help="the JSON file griot-bench wrote")
    parser.add_argument("--passes", type=int, default=2)
    args = parser.parse_args()
    with open(args.texts, encoding="utf-8") as f:
        texts = json.load(f)
    scrubber = scrubadub.Scrubber()
    list(scrubber.iter_filth("warm up: call 412-555-0187 or mail a@example.com"))
    best = float("inf")
    found = []
    for _ in range(args.passes):
        start = time.perf_counter()
        found = [list(scrubber.iter_filth(text)) for text in texts]
        best = min(best, time.perf_counter() - start)
    matches = [
        [{"start": f.beg, "end": f.end, "type": TYPES[f.type]} for f in filths if f.type in TYPES]
        for filths in found
    ]
    print(json.dumps({"version": version("scrubadub"), "seconds": best, "matches": matches}))


if __name__ == "__main__":
    main()
