// The service's JSON routes and event streams, as the chat page and the console call them
// (openapi.yaml holds their shapes). The bearer token lives in sessionStorage only: it goes when the tab closes,
// and nothing else (no cookie, no localStorage) ever holds it.
//
//   import { api, session } from "/assets/api.js";
//   session.token = "eyJ…";
//   const { sessions } = await api.json("GET", "/api/griot/sessions");
//   await api.stream("/api/griot/chat/stream", { message: "Who kept bees?" }, { onEvent, signal });
//   await api.stream("/api/ops/dashboard/stream?range=1h", undefined, { onEvent, signal });   // GET

const TOKEN_KEY = "griot.token";

export const session = {
    get token() { return sessionStorage.getItem(TOKEN_KEY); },
    set token(value) {
        if (value) sessionStorage.setItem(TOKEN_KEY, value);
        else sessionStorage.removeItem(TOKEN_KEY);
    },
    /** The token's claims, read (not verified: the service verifies) to show who is signed in. */
    get claims() {
        const token = this.token;
        if (!token || token.startsWith("griot_")) return null;
        try {
            const part = token.split(".")[1].replace(/-/g, "+").replace(/_/g, "/");
            const json = new TextDecoder().decode(Uint8Array.from(atob(part.padEnd(part.length + (4 - part.length % 4) % 4, "=")), (c) => c.charCodeAt(0)));
            return JSON.parse(json);
        } catch {
            return null;
        }
    },
};

/** An error the service answered with: { error: { code, message, details } }. */
export class APIError extends Error {
    constructor(status, code, message, details = {}, headers = null) {
        super(message);
        this.status = status;
        this.code = code;
        this.details = details;
        this.retryAfter = headers?.get("Retry-After") ?? null;
    }
}

async function failure(response) {
    let body = null;
    try { body = await response.json(); } catch { /* not JSON */ }
    const error = body?.error ?? {};
    const message = error.message ?? `The service answered ${response.status}; try again in a moment.`;
    return new APIError(response.status, error.code ?? `http_${response.status}`, message, error.details ?? {}, response.headers);
}

function headers(extra = {}) {
    const fields = { Accept: "application/json", ...extra };
    if (session.token) fields.Authorization = `Bearer ${session.token}`;
    return fields;
}

export const api = {
    /** Calls a JSON route; resolves to its body (null for 204), throws APIError otherwise. */
    async json(method, path, body, extraHeaders = {}) {
        const init = { method, headers: headers(extraHeaders), cache: "no-store" };
        if (body !== undefined) {
            init.headers["Content-Type"] = "application/json";
            init.body = JSON.stringify(body);
        }
        const response = await fetch(path, init);
        if (!response.ok) throw await failure(response);
        if (response.status === 204) return null;
        const result = await response.json();
        const etag = response.headers.get("ETag");
        if (etag && result && typeof result === "object" && !result.etag) result.etag = etag;
        return result;
    },

    /**
     * POSTs `body` (or GETs, when `body` is undefined) and reads the Server-Sent Events of the
     * reply (EventSource cannot send a body or the Authorization header, so fetch and a stream
     * reader do). `onEvent(name, data, id)` is called for each event, `data` parsed from JSON.
     * Aborting `signal` hangs up; the promise then rejects with an AbortError.
     */
    async stream(path, body, { onEvent, signal }) {
        const init = { method: "GET", headers: headers({ Accept: "text/event-stream" }), signal, cache: "no-store" };
        if (body !== undefined) {
            init.method = "POST";
            init.headers["Content-Type"] = "application/json";
            init.body = JSON.stringify(body);
        }
        const response = await fetch(path, init);
        if (!response.ok) throw await failure(response);
        const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
        let buffer = "";
        for (;;) {
            const { value, done } = await reader.read();
            if (done) break;
            buffer += value.replace(/\r\n?/g, "\n");
            let end;
            while ((end = buffer.indexOf("\n\n")) >= 0) {
                const frame = buffer.slice(0, end);
                buffer = buffer.slice(end + 2);
                dispatch(frame, onEvent);
            }
        }
        if (buffer.trim()) dispatch(buffer, onEvent);
    },
};

/** One SSE frame: `id:`, `event:` and `data:` lines; a line starting with ":" is a heartbeat. */
function dispatch(frame, onEvent) {
    let name = "message";
    let id = null;
    const data = [];
    for (const line of frame.split("\n")) {
        if (!line || line.startsWith(":")) continue;
        const colon = line.indexOf(":");
        const field = colon < 0 ? line : line.slice(0, colon);
        let value = colon < 0 ? "" : line.slice(colon + 1);
        if (value.startsWith(" ")) value = value.slice(1);
        if (field === "event") name = value;
        else if (field === "data") data.push(value);
        else if (field === "id") id = value;
    }
    if (!data.length) return;
    let parsed;
    try { parsed = JSON.parse(data.join("\n")); } catch { parsed = { text: data.join("\n") }; }
    onEvent(name, parsed, id);
}
