// The chat page (issue 37, item 2): sign in with a token, ask the Griot or a course's coach,
// watch the answer stream, stop it, open its citations, report a reply, and manage sessions and
// coaching threads. Every text that came from the service or a model is put in the page as text
// nodes (markdown.js builds elements itself); nothing here assigns HTML.

import { api, session, APIError } from "/assets/api.js";
import { renderMarkdown } from "/assets/markdown.js";

const $ = (id) => document.getElementById(id);

/** Makes an element: el("p", { className: "hint" }, "text", child…). Text is always a text node. */
function el(tag, properties = {}, ...children) {
    const element = document.createElement(tag);
    for (const [key, value] of Object.entries(properties)) {
        if (key === "dataset") Object.assign(element.dataset, value);
        else if (key.startsWith("aria-") || key === "role") element.setAttribute(key, value);
        else element[key] = value;
    }
    for (const child of children) {
        if (child === null || child === undefined || child === false) continue;
        element.append(typeof child === "string" ? document.createTextNode(child) : child);
    }
    return element;
}

const REPORT_REASONS = [
    ["inaccurate", "It is inaccurate"],
    ["harmful", "It is harmful"],
    ["offensive", "It is offensive"],
    ["privacy", "It reveals private details"],
    ["copyright", "It copies someone's work"],
    ["other", "Something else"],
];

/** What a flag means to a reader, in words; the service's own message follows. */
const FLAG_TITLES = {
    low_groundedness: "AI may be inaccurate",
    crisis: "Help is available now",
    pii_masked: "Personal details hidden",
    citation_dropped: "A citation was left out",
    citation_out_of_range: "A citation was left out",
    citation_unsupported: "A claim its source does not support",
    copyright_review: "Held for copyright review",
    output_moderation: "A sentence was removed",
    truncated: "The answer was cut short",
    prompt_echo: "Part of the answer was left out",
};

const state = {
    mode: "griot",            // "griot" or "coach"
    sessionID: null,          // the Griot session shown
    thread: null,             // the coaching thread shown: { id, course_id, title }
    oldestID: null,           // the oldest coaching message shown (for scrollback)
    controller: null,         // the running stream's AbortController
    streaming: null,          // the message being streamed
};

// MARK: Sign in

function showSignedIn() {
    const signedIn = Boolean(session.token);
    $("sign-in").hidden = signedIn;
    $("app").hidden = !signedIn;
    $("sign-out").hidden = !signedIn;
    $("who").hidden = !signedIn;
    if (!signedIn) return;
    const claims = session.claims;
    $("who").textContent = claims?.sub ? `Signed in as ${claims.sub}${claims.role ? ` (${claims.role})` : ""}` : "Signed in";
    renderCourses(Array.isArray(claims?.course_ids) ? claims.course_ids : []);
}

async function signIn(event) {
    event.preventDefault();
    const error = $("sign-in-error");
    error.hidden = true;
    const token = $("token").value.trim().replace(/^Bearer\s+/i, "");
    if (!token) return showError(error, "Paste your token first.");
    session.token = token;
    try {
        await loadSessions();
    } catch (failure) {
        session.token = null;
        return showError(error, failure instanceof APIError
            ? `That token was not accepted: ${failure.message}`
            : "The service could not be reached; check your connection and try again.");
    }
    $("token").value = "";
    showSignedIn();
    setMode("griot");
    $("question").focus();
}

function signOut() {
    state.controller?.abort();
    session.token = null;
    $("messages").replaceChildren();
    $("sessions").replaceChildren();
    showSignedIn();
    $("token").focus();
}

function showError(element, message) {
    element.textContent = message;
    element.hidden = false;
}

/** A failed call, said in the service's words; a lapsed token sends the visitor back to sign in. */
function reportFailure(failure, element = $("ask-error")) {
    if (failure instanceof APIError && failure.status === 401) {
        signOut();
        showError($("sign-in-error"), `Please sign in again: ${failure.message}`);
        return;
    }
    let message = failure instanceof APIError ? failure.message : "The service could not be reached; try again in a moment.";
    if (failure instanceof APIError && failure.retryAfter) message += ` (try again in ${failure.retryAfter} s)`;
    showError(element, message);
}

// MARK: Modes

function setMode(mode) {
    state.controller?.abort();
    state.mode = mode;
    $("mode-griot").setAttribute("aria-pressed", String(mode === "griot"));
    $("mode-coach").setAttribute("aria-pressed", String(mode === "coach"));
    $("griot-side").hidden = mode !== "griot";
    $("coach-side").hidden = mode !== "coach";
    $("question-label").textContent = mode === "griot" ? "Your question" : "Your message to the coach";
    $("send").textContent = mode === "griot" ? "Ask" : "Send";
    clearConversation(mode === "griot" ? "New conversation" : "Choose a course");
    $("empty").textContent = mode === "griot"
        ? "Ask about the stories your family has recorded: who, where, when, what happened."
        : "Choose a course to open your coaching thread.";
    state.sessionID = null;
    state.thread = null;
    if (mode === "griot") loadSessions().catch((failure) => reportFailure(failure));
}

function clearConversation(title) {
    $("conversation-title").textContent = title;
    $("messages").replaceChildren();
    $("empty").hidden = false;
    $("load-earlier").hidden = true;
    $("ask-error").hidden = true;
    $("status").textContent = "";
    $("chips").hidden = true;
    state.oldestID = null;
}

// MARK: Griot sessions

async function loadSessions() {
    const { sessions } = await api.json("GET", "/api/griot/sessions");
    const list = $("sessions");
    list.replaceChildren(...sessions.map((item) => {
        const open = el("button", { type: "button", className: "link", onclick: () => openSession(item.id) },
            item.title || "Untitled conversation");
        if (item.id === state.sessionID) open.setAttribute("aria-current", "true");
        const remove = el("button", { type: "button", className: "quiet small", onclick: () => deleteSession(item) },
            "Delete", el("span", { className: "visually-hidden" }, ` “${item.title || "Untitled conversation"}”`));
        return el("li", { dataset: { session: item.id } }, open,
            el("span", { className: "hint small" }, ` ${item.message_count} messages`), remove);
    }));
    $("sessions-empty").hidden = sessions.length > 0;
}

async function openSession(id) {
    state.controller?.abort();
    try {
        const detail = await api.json("GET", `/api/griot/sessions/${encodeURIComponent(id)}`);
        state.sessionID = detail.id;
        clearConversation(detail.title || "Conversation");
        for (const message of detail.messages) appendMessage(messageFromStore(message, "griot"));
        $("empty").hidden = detail.messages.length > 0;
        await loadSessions();
        $("question").focus();
    } catch (failure) {
        reportFailure(failure);
    }
}

async function deleteSession(item) {
    if (!window.confirm(`Delete the conversation “${item.title || "Untitled conversation"}”? This cannot be undone.`)) return;
    try {
        await api.json("DELETE", `/api/griot/sessions/${encodeURIComponent(item.id)}`);
        if (state.sessionID === item.id) {
            state.sessionID = null;
            clearConversation("New conversation");
        }
        await loadSessions();
        $("status").textContent = "Conversation deleted.";
        $("new-session").focus();
    } catch (failure) {
        reportFailure(failure);
    }
}

function newSession() {
    state.controller?.abort();
    state.sessionID = null;
    clearConversation("New conversation");
    loadSessions().catch((failure) => reportFailure(failure));
    $("question").focus();
}

// MARK: Coaching threads

function renderCourses(courses) {
    $("courses").replaceChildren(...courses.map((course) => el("li", {},
        el("button", { type: "button", className: "link", onclick: () => openThread(course) }, `Course ${course}`))));
}

async function openThread(courseID) {
    state.controller?.abort();
    try {
        const thread = await api.json("POST", "/api/coach/threads", { course_id: courseID });
        state.thread = thread;
        clearConversation(thread.title && thread.title !== courseID ? `${thread.title} (course ${courseID})` : `Coaching: course ${courseID}`);
        $("empty").textContent = "No messages yet: say what you would like to work on.";
        await loadThreadPage();
        for (const button of $("courses").querySelectorAll("button")) {
            button.toggleAttribute("aria-current", button.textContent === `Course ${courseID}`);
        }
        $("question").focus();
    } catch (failure) {
        reportFailure(failure);
    }
}

/** The newest page, or with `earlier` the page before the oldest message shown (scrollback). */
async function loadThreadPage(earlier = false) {
    const query = new URLSearchParams({ limit: "20" });
    if (earlier && state.oldestID) query.set("before", state.oldestID);
    const page = await api.json("GET", `/api/coach/threads/${encodeURIComponent(state.thread.id)}/messages?${query}`);
    const messages = page.messages.map((message) => messageFromStore(message, "coach"));
    if (earlier) {
        const first = $("messages").firstChild;
        for (const message of messages) $("messages").insertBefore(renderMessage(message), first);
    } else {
        $("messages").replaceChildren(...messages.map(renderMessage));
    }
    if (page.messages.length) state.oldestID = page.messages[0].id;
    $("load-earlier").hidden = !page.has_more;
    $("empty").hidden = $("messages").children.length > 0;
    if (!earlier && page.unread_count > 0) $("status").textContent = `${page.unread_count} new ${page.unread_count === 1 ? "reply" : "replies"}.`;
}

async function editMessage(message, node) {
    const box = el("textarea", { rows: 3, value: message.content, id: `edit-${message.id}` });
    const error = el("p", { className: "error", role: "alert", hidden: true });
    const form = el("form", { className: "edit", noValidate: true },
        el("label", { htmlFor: box.id }, "Edit your message"), box,
        el("div", { className: "actions" },
            el("button", { type: "submit" }, "Save"),
            el("button", { type: "button", className: "quiet", onclick: () => { form.replaceWith(contentNode(message)); node.querySelector(".tools button")?.focus(); } }, "Cancel")),
        error);
    form.addEventListener("submit", async (event) => {
        event.preventDefault();
        try {
            const edited = await api.json("PATCH", `/api/coach/messages/${encodeURIComponent(message.id)}`, { content: box.value },
                { "If-Match": message.etag });
            Object.assign(message, { content: edited.content, etag: edited.etag, edited: true });
            const fresh = renderMessage(message);
            node.replaceWith(fresh);
            if (edited.flags?.some((flag) => flag.kind === "crisis") && edited.crisis_reply) {
                fresh.after(renderMessage({ role: "assistant", assistant: "coach", content: edited.crisis_reply, status: "complete",
                    flags: edited.flags, citations: [], crisis: true }));
            }
            $("status").textContent = "Message edited.";
            fresh.querySelector(".tools button")?.focus();
        } catch (failure) {
            if (failure instanceof APIError && failure.status === 409) {
                showError(error, "This message was changed elsewhere since you loaded it. Reload the thread to see the newest version.");
            } else {
                reportFailure(failure, error);
            }
        }
    });
    node.querySelector(".content").replaceWith(form);
    box.focus();
}

async function deleteMessage(message, node) {
    if (!window.confirm("Delete this message? It is hidden at once and erased after 30 days.")) return;
    try {
        await api.json("DELETE", `/api/coach/messages/${encodeURIComponent(message.id)}`, undefined, message.etag ? { "If-Match": message.etag } : {});
        node.remove();
        $("status").textContent = "Message deleted.";
        $("question").focus();
    } catch (failure) {
        reportFailure(failure);
    }
}

// MARK: Messages

/** A stored message (session detail or thread page) in the page's own shape. */
function messageFromStore(stored, assistant) {
    return { id: stored.id, role: stored.role, content: stored.content, status: stored.status, etag: stored.etag,
        assistant, citations: [], flags: [], model: null };
}

function appendMessage(message) {
    const node = renderMessage(message);
    $("messages").append(node);
    $("empty").hidden = true;
    return node;
}

function statusWords(status) {
    return { stopped: "Stopped", failed: "Not finished", interrupted: "Interrupted", blocked: "Blocked", streaming: "Writing…" }[status] ?? null;
}

/** One message as a list item; the same function re-renders it as its stream goes on. */
function renderMessage(message) {
    const mine = message.role === "user";
    const crisis = message.crisis || message.flags.some((flag) => flag.kind === "crisis");
    const node = el("li", { className: `message ${mine ? "mine" : "reply"}${crisis ? " crisis" : ""}`, dataset: { role: message.role } });
    if (message.id) node.dataset.id = message.id;
    if (message.status) node.dataset.status = message.status;
    message.node = node;

    const author = mine ? "You" : message.assistant === "coach" ? "Coach" : "The Griot";
    const meta = el("p", { className: "meta" }, el("span", { className: "author" }, author));
    if (!mine) {
        // Item 64: every reply says it was written by AI, and by which model when the stream said.
        // A template's reply (the crisis reply, "template:crisis@1") was written by people, not a model.
        const prepared = typeof message.model === "string" && message.model.startsWith("template:");
        meta.append(" ", el("span", { className: "badge" },
            prepared ? "Prepared reply, not AI-generated" : message.model ? `AI-generated · ${message.model}` : "AI-generated"));
    }
    const words = statusWords(message.status);
    if (words) meta.append(" ", el("span", { className: `state state-${message.status}` }, words));
    if (message.edited) meta.append(" ", el("span", { className: "state" }, "Edited"));
    node.append(meta);

    if (crisis) {
        node.setAttribute("role", "alert");
        node.append(el("p", { className: "crisis-title" }, el("strong", {}, "You are not alone. Help is available now.")));
    }
    for (const flag of message.flags) {
        if (flag.kind === "crisis") continue;
        const title = FLAG_TITLES[flag.kind] ?? "Note";
        // The service's words follow the title, unless they only repeat it.
        const words = (flag.message ?? "").trim();
        const same = words.replace(/[.!]$/, "").toLowerCase() === title.toLowerCase();
        node.append(el("p", { className: `flag flag-${flag.kind}`, role: "note", dataset: { flag: flag.kind } },
            el("strong", {}, same || !words ? `${title}.` : `${title}. `), same ? "" : words));
    }
    node.append(contentNode(message));
    if (crisis) {
        // Our own links, not the model's: the services the crisis reply names.
        node.append(el("p", { className: "crisis-links" },
            el("a", { href: "https://988lifeline.org/", rel: "noopener noreferrer", target: "_blank" }, "988 Suicide & Crisis Lifeline"),
            " · ",
            el("a", { href: "https://findahelpline.com/", rel: "noopener noreferrer", target: "_blank" }, "Find a helpline in your country")));
    }
    if (message.error) node.append(el("p", { className: "error", role: "alert" }, message.error));
    if (message.citations.length) node.append(citationList(message));

    const tools = el("div", { className: "tools" });
    if (!mine && message.id && message.status !== "streaming") {
        tools.append(el("button", { type: "button", className: "quiet small", onclick: () => openReport(message, node) }, "Report this reply"));
    }
    if (mine && message.assistant === "coach" && message.id && message.etag) {
        tools.append(el("button", { type: "button", className: "quiet small", onclick: () => editMessage(message, node) }, "Edit"),
            el("button", { type: "button", className: "quiet small", onclick: () => deleteMessage(message, node) }, "Delete"));
    }
    if (tools.childElementCount) node.append(tools);
    return node;
}

function contentNode(message) {
    const content = el("div", { className: "content" });
    if (message.role === "user") {
        // What the visitor typed is shown as typed.
        for (const [index, line] of message.content.split("\n").entries()) {
            if (index) content.append(el("br"));
            content.append(document.createTextNode(line));
        }
    } else {
        content.append(renderMarkdown(message.content, { citation: (number) => citationMarker(message, number) }));
    }
    return content;
}

/** "[2]" in a reply: a button that opens the story, once the citation has arrived. */
function citationMarker(message, number) {
    const citation = message.citations.find((item) => item.number === number);
    if (!citation) return null;
    return el("button", { type: "button", className: "cite", onclick: () => openStory(citation),
        "aria-label": `Source ${number}: ${citation.title}` }, `[${number}]`);
}

function citationList(message) {
    const list = el("ol", { className: "citations", "aria-label": "Sources" });
    for (const citation of [...message.citations].sort((a, b) => a.number - b.number)) {
        const time = formatTime(citation.start_seconds ?? citation.timestamp_seconds);
        const label = `[${citation.number}] ${citation.title}${citation.interviewee ? `, told by ${citation.interviewee}` : ""}${time ? `, at ${time}` : ""}`;
        const item = el("li", { dataset: { story: citation.story_id, passage: citation.passage_id } },
            el("button", { type: "button", className: "link source", onclick: () => openStory(citation) }, label));
        if (citation.unsupported) item.append(" ", el("span", { className: "state" }, "(the source does not say this)"));
        else if (citation.quote || citation.relevant_excerpt) item.append(" ", el("q", {}, citation.quote ?? citation.relevant_excerpt));
        list.append(item);
    }
    return list;
}

function formatTime(seconds) {
    if (typeof seconds !== "number" || !Number.isFinite(seconds) || seconds < 0) return null;
    const whole = Math.floor(seconds);
    const h = Math.floor(whole / 3600), m = Math.floor((whole % 3600) / 60), s = whole % 60;
    const pad = (n) => String(n).padStart(2, "0");
    return h ? `${h}:${pad(m)}:${pad(s)}` : `${m}:${pad(s)}`;
}

// MARK: Stories

/** Opens the cited story at the quoted passage, with the moment its recording plays it. */
function openStory(citation) {
    const dialog = $("story");
    const seconds = citation.start_seconds ?? citation.timestamp_seconds;
    const time = formatTime(seconds);
    $("story-title").textContent = citation.title || "Story";
    $("story-meta").textContent = citation.interviewee ? `Told by ${citation.interviewee}` : "";
    $("story-time").textContent = time ? `The passage starts at ${time} in the recording.` : "This story has no timings.";
    dialog.dataset.story = citation.story_id ?? "";
    dialog.dataset.passage = citation.passage_id ?? "";
    dialog.dataset.startSeconds = typeof seconds === "number" ? String(seconds) : "";
    const quote = citation.quote ?? citation.relevant_excerpt ?? "";
    $("story-quote").replaceChildren(quote ? el("mark", {}, quote) : el("span", { className: "hint" }, "The reply's claim is not in this passage."));
    $("story-caption").textContent = `Passage ${citation.passage_id ?? ""}${typeof citation.quote_start === "number" ? `, characters ${citation.quote_start}–${citation.quote_end} of the transcript` : ""}`;
    history.replaceState(null, "", `#story=${encodeURIComponent(citation.story_id ?? "")}&passage=${encodeURIComponent(citation.passage_id ?? "")}${typeof seconds === "number" ? `&t=${seconds}` : ""}`);
    dialog.showModal();
    $("story-close").focus();
}

// MARK: Reports

function openReport(message, node) {
    if (node.querySelector("form.report")) return node.querySelector("form.report select").focus();
    const id = `report-${message.id}`;
    const reason = el("select", { id: `${id}-reason`, name: "reason" },
        ...REPORT_REASONS.map(([value, words]) => el("option", { value }, words)));
    const note = el("textarea", { id: `${id}-note`, rows: 2, maxLength: 1000 });
    const error = el("p", { className: "error", role: "alert", hidden: true });
    const form = el("form", { className: "report", noValidate: true },
        el("fieldset", {}, el("legend", {}, "Report this reply"),
            el("label", { htmlFor: reason.id }, "What is wrong with it?"), reason,
            el("label", { htmlFor: note.id }, "Anything else (optional)"), note,
            el("div", { className: "actions" },
                el("button", { type: "submit" }, "Send report"),
                el("button", { type: "button", className: "quiet", onclick: () => form.remove() }, "Cancel")),
            error));
    form.addEventListener("submit", async (event) => {
        event.preventDefault();
        const body = { reason: reason.value };
        if (note.value.trim()) body.note = note.value.trim();
        try {
            await api.json("POST", `/api/messages/${encodeURIComponent(message.id)}/report`, body);
            const done = el("p", { className: "status", role: "status" }, "Thank you. A person will review this reply.");
            form.replaceWith(done);
        } catch (failure) {
            reportFailure(failure, error);
        }
    });
    node.append(form);
    reason.focus();
}

// MARK: Asking

async function ask(event) {
    event?.preventDefault();
    const text = $("question").value;
    $("ask-error").hidden = true;
    if (!text.trim()) return showError($("ask-error"), "Type a question first.");
    if (state.controller) return;
    if (state.mode === "coach" && !state.thread) return showError($("ask-error"), "Choose a course first.");

    const assistant = state.mode;
    const mine = { role: "user", content: text, assistant, citations: [], flags: [] };
    appendMessage(mine);
    const reply = { role: "assistant", content: "", status: "streaming", assistant, citations: [], flags: [], model: null };
    appendMessage(reply);
    $("question").value = "";
    state.streaming = reply;
    state.controller = new AbortController();
    $("stop").disabled = false;
    $("send").disabled = true;
    $("messages").setAttribute("aria-busy", "true");
    $("status").textContent = "The answer is being written…";

    const path = assistant === "griot" ? "/api/griot/chat/stream" : `/api/coach/threads/${encodeURIComponent(state.thread.id)}/messages`;
    const body = assistant === "griot" ? { message: text, ...(state.sessionID ? { session_id: state.sessionID } : {}) } : { content: text };
    let frame = 0;
    const redraw = () => {
        if (frame) return;
        frame = requestAnimationFrame(() => { frame = 0; reply.node.replaceWith(renderMessage(reply)); });
    };
    try {
        await api.stream(path, body, {
            signal: state.controller.signal,
            onEvent: (name, data) => {
                switch (name) {
                case "meta":
                    reply.id = data.assistant_message_id;
                    mine.id = data.user_message_id;
                    if (mine.id) mine.node.dataset.id = mine.id;
                    reply.model = data.model;
                    if (assistant === "griot" && !state.sessionID) state.sessionID = data.thread_id;
                    break;
                case "delta": reply.content += data.text ?? ""; break;
                case "citation": reply.citations.push(data); break;
                case "flag": reply.flags.push(data); break;
                case "chips": showChips(data); break;
                case "error": reply.error = data.message ?? "The answer could not be finished."; break;
                case "done":
                    reply.status = data.status ?? "complete";
                    if (typeof data.text === "string") reply.content = data.text;
                    if (Array.isArray(data.citations) && data.citations.length) reply.citations = data.citations;
                    if (data.message_id) reply.id = data.message_id;
                    if (data.model) reply.model = data.model;
                    break;
                default: break; // budget and events this page does not show
                }
                redraw();
            },
        });
        if (reply.status === "streaming") reply.status = "interrupted";
        $("status").textContent = reply.status === "complete" ? "The answer is complete." : `The answer ended: ${statusWords(reply.status) ?? reply.status}.`;
    } catch (failure) {
        if (failure.name === "AbortError") {
            reply.status = "stopped";
            $("status").textContent = "Stopped. What was written so far is kept.";
        } else {
            reply.status = reply.content ? "interrupted" : "failed";
            reportFailure(failure);
            if (!reply.content) reply.node.remove();
        }
    } finally {
        cancelAnimationFrame(frame);
        frame = 0;
        if (reply.node.isConnected) reply.node.replaceWith(renderMessage(reply));
        state.controller = null;
        state.streaming = null;
        $("messages").setAttribute("aria-busy", "false");
        $("stop").disabled = true;
        $("send").disabled = false;
        if (document.activeElement === document.body || document.activeElement === $("stop")) $("question").focus();
        if (assistant === "griot" && state.mode === "griot") loadSessions().catch(() => {});
        if (assistant === "coach" && reply.id && state.thread) refreshEtags().catch(() => {});
    }
}

/** After a coaching turn, the newest page again, for the ETags that edit and delete need. */
async function refreshEtags() {
    const page = await api.json("GET", `/api/coach/threads/${encodeURIComponent(state.thread.id)}/messages?limit=20`);
    for (const stored of page.messages) {
        const node = $("messages").querySelector(`li[data-id="${CSS.escape(stored.id)}"]`);
        if (node && stored.role === "user" && !node.querySelector(".tools")) {
            node.replaceWith(renderMessage(messageFromStore(stored, "coach")));
        }
    }
}

async function stop() {
    const controller = state.controller;
    if (!controller) return;
    controller.abort();
    // The coach has a stop route (the reply is stored as stopped at once); a Griot stream is
    // stopped by hanging up, which the service turns into a stop after its resume grace period.
    if (state.mode === "coach" && state.thread) {
        api.json("POST", `/api/coach/threads/${encodeURIComponent(state.thread.id)}/stop`).catch(() => {});
    }
    $("question").focus();
}

function showChips(chips) {
    const box = $("chips");
    const available = Array.isArray(chips.available) ? chips.available : [];
    box.replaceChildren(el("span", { className: "hint small" }, "Try: "), ...available.map((command) => {
        const name = String(command).startsWith("/") ? String(command) : `/${command}`;
        return el("button", { type: "button", className: "chip", onclick: () => {
            const box = $("question");
            box.value = `${name} ${box.value.replace(/^\/\w+\s*/, "")}`;
            box.focus();
        } }, name);
    }));
    box.hidden = available.length === 0;
}

// MARK: Start

function start() {
    $("sign-in-form").addEventListener("submit", signIn);
    $("sign-out").addEventListener("click", signOut);
    $("mode-griot").addEventListener("click", () => setMode("griot"));
    $("mode-coach").addEventListener("click", () => setMode("coach"));
    $("new-session").addEventListener("click", newSession);
    $("ask-form").addEventListener("submit", ask);
    $("stop").addEventListener("click", stop);
    $("load-earlier").addEventListener("click", () => loadThreadPage(true).catch((failure) => reportFailure(failure)));
    $("course-form").addEventListener("submit", (event) => {
        event.preventDefault();
        const course = $("course-id").value.trim();
        if (course) openThread(course);
    });
    $("question").addEventListener("keydown", (event) => {
        if (event.key === "Enter" && !event.shiftKey && !event.isComposing) ask(event);
        if (event.key === "Escape" && state.controller) stop();
    });
    $("story").addEventListener("close", () => history.replaceState(null, "", location.pathname));
    showSignedIn();
    if (session.token) setMode("griot");
    document.body.dataset.ready = "true";
}

start();
