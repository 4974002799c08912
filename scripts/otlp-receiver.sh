#!/usr/bin/env bash
# The loopback OTLP/HTTP trace receiver of the trace tests (scripts/otlp-receiver.py), in a venv
# of its own with opentelemetry-proto pinned: made once under ~/.cache/griot (wheels from PyPI,
# or pip's cache and /opt/wheels), reused after that in about a second.
#
#   scripts/otlp-receiver.sh --install                             # the venv only (scripts/test.sh)
#   scripts/otlp-receiver.sh --port-file FILE --spans SPANS.jsonl  # run the receiver
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
venv="${GRIOT_OTLP_VENV:-$HOME/.cache/griot/otlp-venv}"
python="$("$here/pinned-venv.sh" "$venv" opentelemetry.proto.collector.trace.v1.trace_service_pb2 \
    opentelemetry-proto==1.45.2 protobuf==7.36.2 | tail -n 1)"
if [ "${1:-}" = "--install" ]; then exit 0; fi
exec "$python" "$here/otlp-receiver.py" "$@"
