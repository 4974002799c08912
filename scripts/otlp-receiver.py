"""A loopback OTLP/HTTP trace receiver for the trace tests: decodes each export request with the
OpenTelemetry protocol's own Python classes (opentelemetry-proto) and appends its spans, one JSON
object a line, to a file the test reads.

    python otlp-receiver.py --port-file PORT_FILE --spans SPANS.jsonl

Binds 127.0.0.1 on a port the system picks and writes the number to PORT_FILE once it listens.
Answers POST /v1/traces (protobuf, gzip or not) with an empty ExportTraceServiceResponse; a body
it cannot decode gets 400 and a line on stderr.
"""
import argparse
import gzip
import json
import os
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from google.protobuf.json_format import MessageToDict
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)


def value(any_value):
    """An AnyValue as plain JSON: strings, numbers, booleans and arrays of them."""
    kind = any_value.WhichOneof("value")
    if kind == "array_value":
        return [value(item) for item in any_value.array_value.values]
    if kind == "kvlist_value":
        return {kv.key: value(kv.value) for kv in any_value.kvlist_value.values}
    if kind == "bytes_value":
        return any_value.bytes_value.hex()
    if kind is None:
        return None
    return getattr(any_value, kind)


def attributes(pairs):
    return {pair.key: value(pair.value) for pair in pairs}


def spans(request):
    for resource_spans in request.resource_spans:
        resource = attributes(resource_spans.resource.attributes)
        for scope_spans in resource_spans.scope_spans:
            for span in scope_spans.spans:
                yield {
                    "trace_id": span.trace_id.hex(),
                    "span_id": span.span_id.hex(),
                    "parent_span_id": span.parent_span_id.hex(),
                    "name": span.name,
                    "kind": MessageToDict(span).get("kind", "SPAN_KIND_UNSPECIFIED"),
                    "start_unix_nano": span.start_time_unix_nano,
                    "end_unix_nano": span.end_time_unix_nano,
                    "attributes": attributes(span.attributes),
                    "events": [{"name": event.name, "attributes": attributes(event.attributes)} for event in span.events],
                    "status": {"code": span.status.code, "message": span.status.message},
                    "resource": resource,
                }


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--port-file", required=True)
    parser.add_argument("--spans", required=True)
    options = parser.parse_args()
    output = open(options.spans, "a", encoding="utf-8")

    class Receiver(BaseHTTPRequestHandler):
        def do_POST(self):
            body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            if self.headers.get("Content-Encoding", "") == "gzip":
                body = gzip.decompress(body)
            request = ExportTraceServiceRequest()
            try:
                if self.path != "/v1/traces":
                    raise ValueError(f"unexpected path {self.path}")
                request.ParseFromString(body)
            except Exception as error:  # noqa: BLE001 - any failure is the client's bad body
                print(f"otlp-receiver: {error}", file=sys.stderr, flush=True)
                self.send_response(400)
                self.end_headers()
                return
            for span in spans(request):
                output.write(json.dumps(span, ensure_ascii=False) + "\n")
            output.flush()
            reply = ExportTraceServiceResponse().SerializeToString()
            self.send_response(200)
            self.send_header("Content-Type", "application/x-protobuf")
            self.send_header("Content-Length", str(len(reply)))
            self.end_headers()
            self.wfile.write(reply)

        def log_message(self, format, *args):  # noqa: A002 - the base class's name
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Receiver)
    with open(options.port_file + ".partial", "w") as port_file:
        port_file.write(str(server.server_address[1]))
    os.replace(options.port_file + ".partial", options.port_file)
    server.serve_forever()


if __name__ == "__main__":
    main()
