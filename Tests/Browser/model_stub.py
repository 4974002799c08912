#!/usr/bin/env python3
"""A scripted OpenAI-compatible chat-completions server on loopback, for the chat page's tests.

    python3 Tests/Browser/model_stub.py PORT

POST /v1/chat/completions (streaming or not) answers by what the last user message asks:
  - it holds "trick": a reply holding a <script> element, an <img> with onerror and a
    javascript: link, which the page must show as text and never run;
  - it holds "slowly": a long reply, three words every 0.15 s (30 s in all), to be stopped mid-stream;
  - anything else: one sentence quoting the first source the service sent, cited [1], so the
    citation check keeps it and the page has a citation to open.
Standard library only; one thread per connection; stops on SIGTERM.
"""
import json
import re
import signal
import sys
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

MODEL = "stub-model-1"

XSS_REPLY = (
    "Here is the trick you asked about.\n\n"
    "<script>window.__griotXSS = 'script'; alert('script ran')</script>\n\n"
    "<img src=x onerror=\"window.__griotXSS='onerror'; alert('onerror ran')\">\n\n"
    "[Open the archive](javascript:window.__griotXSS='link') or "
    "[the real one](https://example.org/archive), and **nothing else**."
)


def first_source(messages):
    """(title, text) of the source numbered [1] in the service's sources block, or None."""
    for message in messages:
        content = message.get("content")
        if isinstance(content, list):
            content = "".join(part.get("text", "") for part in content if isinstance(part, dict))
        if not isinstance(content, str):
            continue
        match = re.search(r'\[1\] "([^"\n]*)"[^\n]*\n(`{3,}|~{3,})quote\n(.*?)\n\2', content, re.S)
        if match:
            return match.group(1), match.group(3)
    return None


def grounded_reply(messages):
    source = first_source(messages)
    if not source:
        return "The stories I can see do not cover this yet."
    title, text = source
    sentences = re.split(r"(?<=[.!?])\s+", text.strip())
    quote = next((s for s in sentences if 6 <= len(s.split()) <= 30 and '"' not in s), sentences[0])
    return f'In "{title}", the storyteller says: "{quote}" [1]\n\nThat is what the recording remembers.'


def reply_for(messages):
    question = ""
    for message in messages:
        if message.get("role") == "user":
            content = message.get("content")
            question = content if isinstance(content, str) else json.dumps(content)
    lowered = question.lower()
    if "trick" in lowered:
        return XSS_REPLY, 0.02
    if "slowly" in lowered:
        words = " ".join(f"word{n}" for n in range(1, 601))
        return f"This answer takes its time. {words}.", 0.15
    return grounded_reply(messages), 0.03


def chunks(text, size=3):
    """The text in pieces of a few words, each with the white space before it."""
    parts = re.findall(r"\s*\S+", text)
    for start in range(0, len(parts), size):
        yield "".join(parts[start:start + size])


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def do_GET(self):
        if self.path.rstrip("/").endswith("/models"):
            return self.send_json({"object": "list", "data": [{"id": MODEL, "object": "model", "owned_by": "stub"}]})
        self.send_json({"error": {"message": "not found"}}, 404)

    def do_POST(self):
        length = int(self.headers.get("Content-Length") or 0)
        body = json.loads(self.rfile.read(length) or b"{}")
        text, pace = reply_for(body.get("messages", []))
        if not body.get("stream"):
            return self.send_json({
                "id": "chatcmpl-stub", "object": "chat.completion", "created": int(time.time()), "model": MODEL,
                "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
                "usage": {"prompt_tokens": 10, "completion_tokens": len(text.split()), "total_tokens": 10 + len(text.split())},
            })
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        try:
            for piece in chunks(text):
                self.event({"choices": [{"index": 0, "delta": {"content": piece}, "finish_reason": None}]})
                time.sleep(pace)
            self.event({"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})
            self.event({"choices": [], "usage": {"prompt_tokens": 10, "completion_tokens": len(text.split()),
                                                 "total_tokens": 10 + len(text.split())}})
            self.write_chunk(b"data: [DONE]\n\n")
            self.write_chunk(b"")
        except (BrokenPipeError, ConnectionResetError):
            pass  # the service hung up: a stopped reply

    def event(self, payload):
        payload = {"id": "chatcmpl-stub", "object": "chat.completion.chunk", "created": int(time.time()), "model": MODEL, **payload}
        self.write_chunk(f"data: {json.dumps(payload)}\n\n".encode())

    def write_chunk(self, data):
        self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
        self.wfile.flush()

    def send_json(self, payload, status=200):
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


def main():
    server = ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), Handler)
    server.daemon_threads = True
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    print(f"model stub on 127.0.0.1:{server.server_port}", file=sys.stderr, flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
