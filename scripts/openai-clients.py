#!/usr/bin/env python3
"""Drives Griot's OpenAI-compatible facade (/v1) with the official `openai` SDK and LangChain's
ChatOpenAI, through a JWT and through an API key, and prints one PASS or FAIL line a check.
Exit status 1 when any check failed.

Run by scripts/openai-clients.sh, which starts the services and passes, in the environment:
GRIOT_V1 (the main service's /v1, offline responder), GRIOT_V1_DOWN (a service whose provider
is unreachable, whose `read` budget is one request), GRIOT_CORPUS_DIR, the tokens GRIOT_TOKEN,
GRIOT_TOKEN_COACH (a client in course-7), GRIOT_TOKEN_LANGCHAIN, GRIOT_TOKEN_STRANGER (no family,
no course), GRIOT_TOKEN_FAMILY (every family), GRIOT_TOKEN_DOWN, GRIOT_TOKEN_LIMITED, and the API
keys GRIOT_KEY, GRIOT_KEY_PRIVACY (no family), GRIOT_KEY_COACH (in course-7), GRIOT_KEY_LIMITED
(one request a minute) and GRIOT_KEY_REVOKED, or GRIOT_KEYS_MISSING saying why there are none.

    scripts/openai-clients.py [-v]     # -v: print whole bodies of failed checks
"""
import json
import os
import socket
import sys
import time

# Fully offline: any connection that is not to this machine fails, and is reported as a FAIL.
LOOPBACK = {"127.0.0.1", "::1", "localhost"}
outside = []
_connect, _getaddrinfo = socket.socket.connect, socket.getaddrinfo


def _guarded_connect(self, address):
    host = address[0] if isinstance(address, tuple) else address
    if isinstance(host, str) and host not in LOOPBACK and not host.startswith("/"):
        outside.append(str(address))
        raise OSError(f"openai-clients.py: refused a connection to {address} (the run is offline)")
    return _connect(self, address)


def _guarded_getaddrinfo(host, *args, **kwargs):
    if host is not None and (host.decode() if isinstance(host, bytes) else host) not in LOOPBACK:
        outside.append(f"DNS {host}")
        raise socket.gaierror(f"openai-clients.py: refused to resolve {host} (the run is offline)")
    return _getaddrinfo(host, *args, **kwargs)


socket.socket.connect = _guarded_connect
socket.getaddrinfo = _guarded_getaddrinfo

import httpx  # noqa: E402
import openai  # noqa: E402
from openai import OpenAI  # noqa: E402

VERBOSE = "-v" in sys.argv[1:]
V1 = os.environ["GRIOT_V1"]
V1_DOWN = os.environ["GRIOT_V1_DOWN"]
ENV = os.environ.get

results = []  # (passed, name, reason)


class Fail(Exception):
    pass


def expect(condition, reason):
    if not condition:
        raise Fail(reason)


def short(value, limit=240):
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def check(name, body, *args):
    """Runs one check: body returns the PASS reason or raises Fail (or anything) for a FAIL."""
    started = time.monotonic()
    try:
        reason = body(*args) or "ok"
        passed = True
    except Fail as failure:
        reason, passed = str(failure), False
    except openai.APIStatusError as error:
        reason = f"unexpected {type(error).__name__} {error.status_code}: {short(error.response.text, 400 if VERBOSE else 240)}"
        passed = False
    except Exception as error:  # noqa: BLE001 - every surprise is a FAIL with its reason
        reason, passed = f"unexpected {type(error).__name__}: {short(str(error))}", False
    took = time.monotonic() - started
    results.append((passed, name, reason))
    print(f"{'PASS' if passed else 'FAIL'}  {name}: {reason} ({took:.1f} s)", flush=True)
    return passed


def client(key, base=V1):
    return OpenAI(base_url=base, api_key=key, max_retries=0, timeout=90)


def user(text):
    return {"role": "user", "content": text}


def extra(obj, field):
    return (obj.model_extra or {}).get(field)


# The corpus: which stories a reader outside the family may never see cited.
def corpus_privacy():
    privacy = {}
    for folder, _, files in os.walk(ENV("GRIOT_CORPUS_DIR", "corpus")):
        for name in files:
            if name.endswith(".json"):
                with open(os.path.join(folder, name), encoding="utf-8") as handle:
                    story = json.load(handle)
                privacy[story["artifact_id"]] = story.get("privacy", "private")
    return privacy


PRIVACY = corpus_privacy()
RESTRICTED = {story for story, level in PRIVACY.items() if level != "public"}

QUESTION = "What did Ida Mae Carter put in her sweet potato pie?"
CITATION_FIELDS = ["number", "title", "story_id", "passage_id", "quote", "quote_start", "quote_end", "timestamp_seconds", "source_type"]
GRIOT_FIELDS = ["thread_id", "message_id", "turn_id", "status", "flags", "groundedness", "prompt_version", "model", "token_ledger"]
MODERATION_CATEGORIES = {
    "harassment", "harassment/threatening", "hate", "hate/threatening", "illicit", "illicit/violent", "self-harm",
    "self-harm/intent", "self-harm/instructions", "sexual", "sexual/minors", "violence", "violence/graphic",
}
HARMFUL = "I am going to kill you and your whole family tonight, you worthless piece of garbage."
BENIGN = "What did Ida Mae Carter bake for Thanksgiving at her kitchen on King Drive?"

# Aimed at family_only and private stories (the story each is about, for the report).
PRIVATE_QUESTIONS = [
    ("batiste-loma-prieta-cypress-collapse-1989", "What happened when the Cypress freeway collapsed in the Loma Prieta earthquake during the World Series?"),
    ("batiste-octavia-sunday-gumbo-file", "How does Octavia Batiste make her Sunday gumbo, with the dark roux and the filé from Opelousas?"),
    ("batiste-letter-from-california-1942", "What did Jules Batiste's letter from California say, and how did Octavia ride the Sunset Limited to Oakland?"),
    ("batiste-bart-through-west-oakland", "How did BART and the post office construction force Lucien and Octavia to sell their Campbell Street house?"),
    ("carter-1966-open-housing-march", "What happened to Tad Carter in Marquette Park at the open housing march in 1966?"),
    ("carter-ruth-first-classroom", "What was Ruth Carter's first classroom, Room 114 at Hartwell Elementary, like, and who was Dwayne Tolliver?"),
    ("carter-first-winter-bronzeville", "How did Ida Mae and Amos survive their first winter in the kitchenette on South Parkway in 1929?"),
    ("odom-shoes-in-the-beauty-shop-1963", "Why did Bea Odom hide forty-three pairs of children's shoes in pomade boxes at her beauty shop?"),
    ("odom-1932-relief-line", "What did Hattie Odom get at the relief line in the winter of 1932 when the mines cut back?"),
    ("odom-sixteenth-street-sunday-1963", "Where was Gloria on the Sunday the Sixteenth Street Baptist Church was bombed in September 1963?"),
    ("whitfield-calvin-auto-layoffs", "How did Calvin Whitfield lose his drafting job at the axle supplier before Christmas 1980?"),
    ("whitfield-summer-of-1967", "What did Denise Whitfield see on Twelfth Street in July 1967 with the National Guard and the curfew?"),
]


# MARK: The main calls, made once with a JWT and once with an API key


def main_calls(label, key, coach_key, state):
    sdk = client(key)

    def models():
        listing = sdk.models.list()
        ids = [model.id for model in listing.data]
        raw = sdk.models.with_raw_response.list().http_response.json()
        expect(raw.get("object") == "list", f"object is {raw.get('object')!r}, not 'list'")
        expect("griot" in ids and "coach" in ids, f"ids {ids} lack griot or coach")
        expect(any("@" in model for model in ids), f"no labelled id (assistant@label) in {ids}")
        wrong = [m.id for m in listing.data if m.object != "model" or m.owned_by != "griot" or not isinstance(m.created, int)]
        expect(not wrong, f"models without object 'model', owned_by 'griot' and an integer created: {wrong}")
        return f"{len(ids)} models: {', '.join(ids)}"

    def griot_plain():
        reply = sdk.chat.completions.create(model="griot", messages=[user(QUESTION)])
        text = reply.choices[0].message.content or ""
        citations = extra(reply, "citations") or []
        meta = extra(reply, "griot") or {}
        expect(reply.object == "chat.completion", f"object {reply.object!r}")
        expect(text.strip(), "the answer is empty")
        expect(len(citations) >= 1, f"no citations (model_extra keys: {sorted((reply.model_extra or {}).keys())})")
        missing = sorted({field for c in citations for field in CITATION_FIELDS if field not in c})
        expect(not missing, f"citations lack {missing}: {short(citations[0])}")
        missing = [field for field in GRIOT_FIELDS if field not in meta]
        expect(not missing, f"the griot object lacks {missing}: {short(meta)}")
        expect(meta.get("status") == "complete", f"griot.status {meta.get('status')!r}")
        expect(reply.choices[0].finish_reason == "stop", f"finish_reason {reply.choices[0].finish_reason!r}")
        expect(reply.usage and reply.usage.completion_tokens > 0, f"usage {reply.usage}")
        state.update(text=text, thread=meta["thread_id"], tokens=reply.usage.completion_tokens)
        stories = sorted({c["story_id"] for c in citations})
        return f"{len(text)} chars, {len(citations)} citations of {', '.join(stories)}, thread {meta['thread_id'][:8]}"

    def griot_stream():
        chunks = list(sdk.chat.completions.create(model="griot", messages=[user(QUESTION)], stream=True))
        expect(chunks, "no chunks")
        wrong = {chunk.object for chunk in chunks} - {"chat.completion.chunk"}
        expect(not wrong, f"chunks of object {wrong}")
        text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
        finals = [c for c in chunks if c.choices and c.choices[0].finish_reason]
        expect(text.strip(), "the streamed answer is empty")
        expect(len(finals) == 1, f"{len(finals)} chunks with a finish_reason")
        final = finals[0]
        citations = extra(final, "citations") or []
        meta = extra(final, "griot") or {}
        expect(citations, f"the final chunk has no citations: {short(final.model_dump())}")
        expect(meta.get("thread_id") and meta.get("status") == "complete", f"the final chunk's griot: {short(meta)}")
        expect(all(not c.usage for c in chunks), "a usage chunk without stream_options.include_usage")
        same = "the same text as" if text == state.get("text") else "a different text from"
        return f"{len(chunks)} chunks, {len(text)} chars ({same} the non-streamed reply), {len(citations)} citations, finish_reason {final.choices[0].finish_reason}"

    def stream_usage():
        chunks = list(sdk.chat.completions.create(model="griot", messages=[user(QUESTION)], stream=True,
                                                  stream_options={"include_usage": True}))
        last = chunks[-1]
        expect(last.choices == [], f"the last chunk has choices: {short(last.model_dump())}")
        usage = last.usage
        expect(usage and usage.prompt_tokens > 0 and usage.completion_tokens > 0
               and usage.total_tokens == usage.prompt_tokens + usage.completion_tokens, f"usage {usage}")
        finals = [i for i, c in enumerate(chunks) if c.choices and c.choices[0].finish_reason]
        expect(finals and finals[0] == len(chunks) - 2, "the usage chunk does not follow the finish_reason chunk")
        return f"prompt {usage.prompt_tokens}, completion {usage.completion_tokens}, total {usage.total_tokens}"

    def coach(stream):
        course = {"course_id": "course-7"}

        def body():
            if stream:
                chunks = list(coach_sdk.chat.completions.create(model="coach", messages=[user("How can I plan my week of study better?")],
                                                                stream=True, extra_body=course))
                text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
                finals = [c for c in chunks if c.choices and c.choices[0].finish_reason]
                meta = extra(finals[-1], "griot") if finals else None
            else:
                reply = coach_sdk.chat.completions.create(model="coach", messages=[user("How can I plan my week of study better?")],
                                                          extra_body=course)
                text, meta = reply.choices[0].message.content or "", extra(reply, "griot")
            expect(text.strip(), "the coach's answer is empty")
            expect(meta and meta.get("status") == "complete", f"griot: {short(meta)}")
            return f"{len(text)} chars, status {meta['status']}, thread {meta['thread_id'][:8]}"
        coach_sdk = client(coach_key)
        return body()

    def max_tokens():
        expect("text" in state, "needs the non-streamed reply")
        reply = sdk.chat.completions.create(model="griot", messages=[user(QUESTION)], max_tokens=8)
        text, reason = reply.choices[0].message.content or "", reply.choices[0].finish_reason
        expect(reason == "length" or len(text) < len(state["text"]),
               f"not cut short: finish_reason {reason!r}, {len(text)} chars against {len(state['text'])}")
        expect(reply.usage.completion_tokens <= 8, f"{reply.usage.completion_tokens} completion tokens for max_tokens 8: {text!r}")
        return f"finish_reason {reason}, {reply.usage.completion_tokens} tokens ({len(text)} chars against {len(state['text'])}): {short(text, 80)!r}"

    def stop():
        expect("text" in state, "needs the non-streamed reply")
        words = [w.strip(".,;:“”\"'()[]") for w in state["text"].split()]
        middle = [w for w in words[len(words) // 3:] if len(w) >= 5 and w.isalpha()]
        expect(middle, "no word to stop at in the first reply")
        word = middle[0]
        reply = sdk.chat.completions.create(model="griot", messages=[user(QUESTION)], stop=[word])
        text = reply.choices[0].message.content or ""
        expect(word not in text, f"the reply holds the stop string {word!r}: {short(text)}")
        expect(len(text) < len(state["text"]), f"not shorter than the reply without stop ({len(text)} chars)")
        return f"stop {word!r}: {len(text)} chars against {len(state['text'])}, finish_reason {reply.choices[0].finish_reason}"

    def stateless_follow_up():
        expect("text" in state, "needs the non-streamed reply")
        messages = [{"role": "system", "content": "Answer in a few sentences."}, user(QUESTION),
                    {"role": "assistant", "content": state["text"]}, user("And how long did she bake the pie, and how hot was the oven?")]
        reply = sdk.chat.completions.create(model="griot", messages=messages)
        text, meta = reply.choices[0].message.content or "", extra(reply, "griot") or {}
        citations = extra(reply, "citations") or []
        expect(text.strip(), "the answer is empty")
        expect(meta.get("status") == "complete", f"griot.status {meta.get('status')!r}")
        expect(citations, "no citations")
        expect(meta.get("thread_id") != state["thread"], "answered in the first reply's thread without a thread_id")
        return f"{len(text)} chars, {len(citations)} citations of {', '.join(sorted({c['story_id'] for c in citations}))}"

    def thread():
        expect("thread" in state, "needs the first reply's griot.thread_id")
        reply = sdk.chat.completions.create(model="griot", messages=[user("Who taught her to make it?")],
                                            extra_body={"thread_id": state["thread"]})
        text, meta = reply.choices[0].message.content or "", extra(reply, "griot") or {}
        expect(text.strip(), "the answer is empty")
        expect(meta.get("thread_id") == state["thread"], f"answered in thread {meta.get('thread_id')}, not {state['thread']}")
        session = httpx.get(V1.removesuffix("/v1") + f"/api/griot/sessions/{state['thread']}",
                            headers={"Authorization": f"Bearer {key}"}, timeout=30)
        count = session.json().get("message_count") if session.status_code == 200 else None
        expect(count == 4, f"the thread holds {count} messages (GET /api/griot/sessions/… {session.status_code}), not 4")
        return f"thread {state['thread'][:8]} now holds 4 messages; {short(text, 80)!r}"

    def moderations():
        raw = sdk.moderations.with_raw_response.create(input=[HARMFUL, BENIGN])
        body, parsed = raw.http_response.json(), raw.parse()
        flags = [result.flagged for result in parsed.results]
        expect(flags == [True, False], f"flagged {flags}, not [True, False]: {short(body)}")
        for result in body["results"]:
            expect(set(result["categories"]) == MODERATION_CATEGORIES, f"categories {sorted(result['categories'])}")
            expect(set(result["category_scores"]) == MODERATION_CATEGORIES, f"category_scores {sorted(result['category_scores'])}")
        expect(body.get("id") and body.get("model"), f"id or model missing: {short(body)}")
        one = sdk.moderations.create(input=HARMFUL)
        expect(len(one.results) == 1 and one.results[0].flagged, f"a single harmful string: {short(one.model_dump())}")
        raised = sorted(name for name, flag in body["results"][0]["categories"].items() if flag)
        return f"harmful flagged ({', '.join(raised)}), benign not; model {body['model']}"

    tag = f"[{label}]"
    check(f"{tag} models.list", models)
    check(f"{tag} griot, not streamed: answer and citations", griot_plain)
    check(f"{tag} griot, streamed: chunks, citations and griot on the last", griot_stream)
    check(f"{tag} stream_options.include_usage gives a usage chunk", stream_usage)
    if coach_key:
        check(f"{tag} coach with course_id, not streamed", coach, False)
        check(f"{tag} coach with course_id, streamed", coach, True)
    else:
        results.append((False, f"{tag} coach with course_id", "no key naming a course (griot keys create has no --courses)"))
        print(f"FAIL  {tag} coach with course_id: no key naming a course (griot keys create has no --courses)")
    check(f"{tag} max_tokens honoured", max_tokens)
    check(f"{tag} stop honoured", stop)
    check(f"{tag} stateless follow-up with prior messages", stateless_follow_up)
    check(f"{tag} thread continued with thread_id", thread)
    check(f"{tag} moderations.create: harmful and benign", moderations)


# MARK: Errors, raised as the SDK's own exceptions


def expect_error(kind, status, call, code=None):
    try:
        value = call()
        if hasattr(value, "__iter__") and not isinstance(value, (str, bytes, dict)):
            value = list(value)
    except kind as error:
        expect(error.status_code == status, f"{type(error).__name__} with status {error.status_code}, not {status}")
        try:
            body = error.response.json()
        except ValueError:
            raise Fail(f"{status} without a JSON body: {short(error.response.text)}")
        inner = body.get("error") if isinstance(body, dict) else None
        expect(isinstance(inner, dict) and {"message", "type", "param", "code"} <= set(inner),
               f"not OpenAI's error shape {{error: {{message, type, param, code}}}}: {short(body)}")
        expect(code is None or inner["code"] == code, f"code {inner['code']!r}, not {code!r}: {short(inner['message'])}")
        return error, f"{type(error).__name__} {status} {inner['code']} (type {inner['type']}, param {inner['param']})"
    except openai.APIStatusError as error:
        raise Fail(f"{type(error).__name__} {error.status_code}, not {kind.__name__} {status}: {short(error.response.text)}")
    raise Fail(f"no error, not {kind.__name__} {status}: {short(str(value))}")


def errors(label, key, coach_key, stranger_key):
    sdk, tag = client(key), f"[{label}]"
    ask = [user(QUESTION)]
    image = [{"role": "user", "content": [{"type": "text", "text": "Who is in this picture?"},
                                          {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}}]}]
    tool = {"type": "function", "function": {"name": "lookup", "description": "Looks up a story.",
                                             "parameters": {"type": "object", "properties": {"q": {"type": "string"}}}}}
    cases = [
        ("n=2 → 400", openai.BadRequestError, 400, lambda: sdk.chat.completions.create(model="griot", messages=ask, n=2), None),
        ("tools → 400", openai.BadRequestError, 400, lambda: sdk.chat.completions.create(model="griot", messages=ask, tools=[tool]), None),
        ("image part to griot → 400", openai.BadRequestError, 400, lambda: sdk.chat.completions.create(model="griot", messages=image), None),
        ("empty messages → 400", openai.BadRequestError, 400, lambda: sdk.chat.completions.create(model="griot", messages=[]), None),
        ("coach without course_id → 400", openai.BadRequestError, 400,
         lambda: client(coach_key or key).chat.completions.create(model="coach", messages=ask), None),
        ("unknown model nope → 404", openai.NotFoundError, 404, lambda: sdk.chat.completions.create(model="nope", messages=ask), None),
        ("unknown label griot@nope → 404", openai.NotFoundError, 404,
         lambda: sdk.chat.completions.create(model="griot@nope", messages=ask), None),
        ("coach with a course the caller is not in → 403", openai.PermissionDeniedError, 403,
         lambda: client(coach_key or key).chat.completions.create(model="coach", messages=ask, extra_body={"course_id": "course-9"}), None),
        ("another user's thread_id → 404", openai.NotFoundError, 404,
         lambda: client(stranger_key).chat.completions.create(model="griot", messages=ask, extra_body={"thread_id": STATE[label]["thread"]}),
         None),
    ]
    for name, kind, status, call, code in cases:
        check(f"{tag} {name} as {kind.__name__}", lambda: expect_error(kind, status, call, code)[1])


def authentication():
    models = lambda sdk: lambda: sdk.models.list()  # noqa: E731
    completion = lambda sdk: lambda: sdk.chat.completions.create(model="griot", messages=[user(QUESTION)])  # noqa: E731
    bad = [
        ("a made-up API key", client("griot_" + "0" * 40)),
        ("a token that is no JWT", client("not-a-token")),
        ("a JWT signed with another secret",
         client("eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJ4Iiwicm9sZSI6ImNsaWVudCIsImV4cCI6NDEwMjQ0NDgwMH0."
                "3kL0vQ3n2xgk5gk1lKQn7o8bE6D0d1ZcQYyq1c1o7Zk")),
    ]
    for name, sdk in bad:
        check(f"[auth] {name} → 401 as AuthenticationError", lambda: expect_error(openai.AuthenticationError, 401, completion(sdk))[1])
    nobody = client("unused")
    check("[auth] no Authorization header → 401 as AuthenticationError",
          lambda: expect_error(openai.AuthenticationError, 401, lambda: nobody.models.list(extra_headers={"Authorization": openai.Omit()}))[1])
    check("[auth] a made-up API key on /v1/models → 401 as AuthenticationError",
          lambda: expect_error(openai.AuthenticationError, 401, models(bad[0][1]))[1])
    revoked = ENV("GRIOT_KEY_REVOKED")

    def revoked_key():
        expect(revoked, ENV("GRIOT_KEYS_MISSING") or "no revoked key was made")
        return expect_error(openai.AuthenticationError, 401, completion(client(revoked)))[1]
    check("[auth] a revoked API key → 401 as AuthenticationError", revoked_key)


def rate_limits():
    def route_limit():
        sdk = client(ENV("GRIOT_TOKEN_LIMITED"), V1_DOWN)
        sdk.models.list()
        error, reason = expect_error(openai.RateLimitError, 429, lambda: sdk.models.list())
        expect(error.response.headers.get("retry-after"), "no Retry-After header")
        return f"{reason}, Retry-After {error.response.headers['retry-after']}"
    check("[limits] a second GET /v1/models past a read budget of 1 → 429 as RateLimitError", route_limit)

    limited = ENV("GRIOT_KEY_LIMITED")

    def key_limit():
        expect(limited, ENV("GRIOT_KEYS_MISSING") or "no key with --requests-per-minute (griot keys create has no such option)")
        sdk = client(limited)
        sdk.chat.completions.create(model="griot", messages=[user(QUESTION)])
        error, reason = expect_error(openai.RateLimitError, 429, lambda: sdk.chat.completions.create(model="griot", messages=[user(QUESTION)]))
        expect(error.response.headers.get("retry-after"), "no Retry-After header")
        return f"{reason}, Retry-After {error.response.headers['retry-after']}"
    check("[limits] an API key of 1 request a minute, second completion → 429 as RateLimitError", key_limit)


def provider_down():
    sdk = client(ENV("GRIOT_TOKEN_DOWN"), V1_DOWN)
    seen = []

    def breaker():
        for _ in range(4):
            try:
                sdk.chat.completions.create(model="griot", messages=[user(QUESTION)])
                seen.append("200")
            except openai.APIStatusError as error:
                seen.append(f"{type(error).__name__} {error.status_code} {error.body.get('code') if isinstance(error.body, dict) else ''}")
                if error.status_code == 503:
                    error, reason = expect_error(openai.InternalServerError, 503,
                                                 lambda: sdk.chat.completions.create(model="griot", messages=[user(QUESTION)]), "ai_unavailable")
                    expect(error.response.headers.get("retry-after"), "503 without Retry-After")
                    return f"{' → '.join(seen)}; then {reason}, Retry-After {error.response.headers['retry-after']}"
        raise Fail(f"no 503 in four requests: {' → '.join(seen)}")
    check("[provider down] completions → 503 ai_unavailable as InternalServerError", breaker)
    check("[provider down] a streamed completion → 503 before the stream, as InternalServerError",
          lambda: expect_error(openai.InternalServerError, 503,
                               lambda: sdk.chat.completions.create(model="griot", messages=[user(QUESTION)], stream=True), "ai_unavailable")[1])


# MARK: LangChain


def langchain(label, key, coach_key):
    from langchain_core.messages import HumanMessage
    from langchain_openai import ChatOpenAI

    tag = f"[{label}] LangChain ChatOpenAI"

    def chat(**kwargs):
        return ChatOpenAI(model="griot", base_url=V1, api_key=key, max_retries=0, timeout=90, **kwargs)

    def invoke():
        message = chat().invoke([HumanMessage(QUESTION)])
        expect(isinstance(message.content, str) and message.content.strip(), f"empty content: {short(message.model_dump())}")
        finish = message.response_metadata.get("finish_reason")
        expect(finish == "stop", f"finish_reason {finish!r}")
        return f"{len(message.content)} chars, model {message.response_metadata.get('model_name')}, usage {message.usage_metadata}"

    def stream():
        chunks = list(chat(stream_usage=True).stream([HumanMessage(QUESTION)]))
        text = "".join(chunk.content for chunk in chunks if isinstance(chunk.content, str))
        expect(text.strip(), "the streamed text is empty")
        usage = [chunk.usage_metadata for chunk in chunks if chunk.usage_metadata]
        expect(usage and usage[-1]["total_tokens"] > 0, f"no usage_metadata with stream_usage=True ({len(chunks)} chunks)")
        return f"{len(chunks)} chunks, {len(text)} chars, usage {usage[-1]}"

    def coach():
        expect(coach_key, "no key naming a course")
        message = ChatOpenAI(model="coach", base_url=V1, api_key=coach_key, max_retries=0, timeout=90,
                             extra_body={"course_id": "course-7"}).invoke("How can I plan my week of study better?")
        expect(message.content.strip(), "empty content")
        return f"{len(message.content)} chars"

    def error():
        try:
            ChatOpenAI(model="nope", base_url=V1, api_key=key, max_retries=0).invoke("hello")
        except openai.NotFoundError as error:
            return f"NotFoundError {error.status_code} raised through LangChain"
        raise Fail("no error for model nope")

    check(f"{tag}.invoke", invoke)
    check(f"{tag}.stream (stream_usage=True)", stream)
    check(f"{tag}.invoke on coach with extra_body course_id", coach)
    check(f"{tag} unknown model → openai.NotFoundError", error)


# MARK: Privacy


def privacy(label, key):
    sdk = client(key)
    cited, answered, leaks = set(), 0, []

    def body():
        nonlocal answered
        for story, question in PRIVATE_QUESTIONS:
            reply = sdk.chat.completions.create(model="griot", messages=[user(question)])
            stories = {c["story_id"] for c in extra(reply, "citations") or []}
            cited.update(stories)
            answered += bool((reply.choices[0].message.content or "").strip())
            leaks.extend(f"{s} ({PRIVACY[s]}) for {story}" for s in stories & RESTRICTED)
        expect(not leaks, f"cited stories outside the reader's families: {'; '.join(leaks)}")
        return f"{len(PRIVATE_QUESTIONS)} questions, {answered} answered, cited only public stories ({len(cited)}: {', '.join(sorted(cited)) or 'none'})"
    check(f"[{label}] privacy: no family_only or private story cited without family groups", body)


def privacy_control():
    """The same questions from a member of every family: the family_only stories they aim at are
    found, so the check above is one that could fail."""
    sdk = client(ENV("GRIOT_TOKEN_FAMILY"))

    def body():
        aimed = [(story, q) for story, q in PRIVATE_QUESTIONS if PRIVACY.get(story) == "family_only"]
        found, private = [], []
        for story, question in aimed + [(s, q) for s, q in PRIVATE_QUESTIONS if PRIVACY.get(s) == "private"]:
            reply = sdk.chat.completions.create(model="griot", messages=[user(question)])
            stories = {c["story_id"] for c in extra(reply, "citations") or []}
            if PRIVACY.get(story) == "family_only" and story in stories:
                found.append(story)
            private += [s for s in stories if PRIVACY.get(s) == "private"]
        expect(len(found) * 2 >= len(aimed), f"only {len(found)} of {len(aimed)} family_only stories found by their questions: {found}")
        expect(not private, f"private stories of other owners cited to a family member: {private}")
        return f"{len(found)} of {len(aimed)} family_only stories cited to a family member; no one else's private story"
    check("[token] privacy control: a member of every family gets the family_only stories cited", body)


# MARK: Run

STATE = {"token": {}, "key": {}}


def main():
    started = time.monotonic()
    token, key = ENV("GRIOT_TOKEN"), ENV("GRIOT_KEY")
    main_calls("token", token, ENV("GRIOT_TOKEN_COACH"), STATE["token"])
    errors("token", token, ENV("GRIOT_TOKEN_COACH"), ENV("GRIOT_TOKEN_STRANGER"))
    langchain("token", ENV("GRIOT_TOKEN_LANGCHAIN"), ENV("GRIOT_TOKEN_COACH"))
    privacy("token", ENV("GRIOT_TOKEN_STRANGER"))
    privacy_control()
    if key:
        main_calls("key", key, ENV("GRIOT_KEY_COACH"), STATE["key"])
        errors("key", key, ENV("GRIOT_KEY_COACH"), ENV("GRIOT_KEY_PRIVACY") or ENV("GRIOT_TOKEN_STRANGER"))
        langchain("key", key, ENV("GRIOT_KEY_COACH"))
        privacy("key", ENV("GRIOT_KEY_PRIVACY") or key)
    else:
        reason = ENV("GRIOT_KEYS_MISSING") or "no API key was made"
        results.append((False, "[key] every API-key check", reason))
        print(f"FAIL  [key] every API-key check: {reason}")
    authentication()
    rate_limits()
    provider_down()
    check("offline: no connection left this machine",
          lambda: (expect(not outside, f"refused connections to {sorted(set(outside))}"), "only loopback connections")[1])

    failed = [name for passed, name, _ in results if not passed]
    print(f"\n{len(results) - len(failed)} passed, {len(failed)} failed in {time.monotonic() - started:.0f} s"
          f" (openai {openai.__version__}, langchain-openai {_version('langchain-openai')})")
    for name in failed:
        print(f"  FAILED {name}")
    return 1 if failed else 0


def _version(package):
    from importlib.metadata import version
    return version(package)


if __name__ == "__main__":
    sys.exit(main())
