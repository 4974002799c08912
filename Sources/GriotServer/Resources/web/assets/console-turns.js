// Turns: the filters of GET /api/ops/turns and the list, and one turn (GET /api/ops/turns/{id})
// with its question, answer, passages ranked in each arm, token ledger, prompt, model, events and
// every stage's verdict. The question and answer are model and user text: text nodes only.

import { api } from "/assets/api.js";
import { $, el, details, table, when, count } from "/assets/dom.js";
import { reportFailure, hideError, queryOf } from "/assets/console-common.js";

let loaded = false;

async function load(event) {
    event?.preventDefault();
    const error = $("turns-error");
    hideError(error);
    $("turns-status-line").textContent = "Loading turns…";
    try {
        const { turns } = await api.json("GET", `/api/ops/turns?${queryOf($("turns-form"))}`);
        loaded = true;
        $("turns-list").replaceChildren(...turns.map(card));
        $("turns-status-line").textContent = turns.length === 1 ? "1 turn." : `${turns.length} turns, newest first.`;
    } catch (failure) {
        $("turns-status-line").textContent = "";
        $("turns-list").replaceChildren();
        reportFailure(failure, error, "list turns");
    }
}

function flagList(flags) {
    const names = (flags ?? []).map((f) => typeof f === "string" ? f : f.kind ?? JSON.stringify(f));
    return names.length ? el("span", { className: "flags" }, ...names.map((name) => el("span", { className: "tag" }, name))) : "none";
}

function card(turn) {
    const id = turn.turn_id;
    return el("li", { className: "card turn", dataset: { id } },
        el("p", { className: "title" },
            el("a", { href: `#turns/${encodeURIComponent(id)}` }, turn.question ? shorten(turn.question, 120) : "(question not kept)"),
            el("span", { className: `state ${turn.status}` }, turn.status)),
        details([
            ["Started", when(turn.started_at)],
            ["Assistant", turn.assistant],
            ["Model", `${turn.provider} · ${turn.model}`],
            ["Prompt", `version ${turn.prompt_version}`],
            ["Groundedness", turn.groundedness === null || turn.groundedness === undefined ? null : count(turn.groundedness, 2)],
            ["Flags", flagList(turn.flags)],
        ], "facts inline"),
        el("p", { className: "links" },
            el("a", { href: `#turns/${encodeURIComponent(id)}` }, "Open turn", el("span", { className: "visually-hidden" }, ` ${id}`)),
            " · ",
            el("a", { href: `#replay/${encodeURIComponent(id)}` }, "Replay", el("span", { className: "visually-hidden" }, ` turn ${id}`))));
}

function shorten(text, length) {
    const value = String(text);
    return value.length > length ? `${value.slice(0, length - 1)}…` : value;
}

function rank(value) {
    return value === null || value === undefined ? "–" : String(value);
}

async function open(id) {
    $("turns-form").hidden = true;
    $("turns-list").hidden = true;
    $("turns-status-line").hidden = true;
    $("turn-detail").hidden = false;
    $("turn-title").textContent = `Turn ${id}`;
    const error = $("turn-error");
    hideError(error);
    $("turn-body").replaceChildren(el("p", { className: "status" }, "Loading the turn…"));
    try {
        const turn = await api.json("GET", `/api/ops/turns/${encodeURIComponent(id)}`);
        $("turn-body").replaceChildren(...render(turn));
        $("turn-detail").dataset.id = id;
    } catch (failure) {
        $("turn-body").replaceChildren();
        reportFailure(failure, error, "read turns");
    }
}

function render(turn) {
    const parts = [];
    parts.push(el("h4", {}, "Question"), el("div", { className: "text", id: "turn-question" }, turn.question ?? "(not kept)"));
    parts.push(el("h4", {}, "Answer"), el("div", { className: "text", id: "turn-answer" }, turn.answer ?? "(not kept)"));
    parts.push(details([
        ["Status", turn.status],
        ["Assistant", turn.assistant],
        ["Thread", turn.thread_id],
        ["Started", when(turn.started_at)],
        ["Finished", when(turn.finished_at)],
        ["Prompt version", turn.prompt_version === undefined ? null : `${turn.prompt_version}${turn.prompt_label ? ` (asked as ${turn.prompt_label})` : ""}`],
        ["Prompt hash", turn.prompt_hash ? el("code", { className: "hash" }, turn.prompt_hash) : null],
        ["Model", [turn.provider, turn.model, turn.upstream_model && turn.upstream_model !== turn.model ? `upstream ${turn.upstream_model}` : null].filter(Boolean).join(" · ")],
        ["Retrieval", [turn.retrieval, turn.index_version ? `index ${turn.index_version}` : null].filter(Boolean).join(" · ")],
        ["First token", turn.first_token_seconds === null || turn.first_token_seconds === undefined ? null : `${count(turn.first_token_seconds, 2)} s`],
        ["Usage", turn.usage ? Object.entries(turn.usage).map(([k, v]) => `${k.replace(/_/g, " ")} ${v}`).join(", ") : null],
        ["Groundedness", turn.groundedness === null || turn.groundedness === undefined ? null : count(turn.groundedness, 2)],
        ["Flags", flagList(turn.flags)],
    ]));
    parts.push(el("p", {}, el("a", { href: `#replay/${encodeURIComponent(turn.turn_id ?? "")}` }, "Replay this turn")));

    const passages = turn.passages ?? [];
    parts.push(el("h4", {}, "Passages"));
    parts.push(passages.length
        ? table("Passages and their rank in each arm", ["Fused", "BM25", "Vector", "Story", "Text"],
            passages.map((p) => [rank(p.ranks?.fused), rank(p.ranks?.bm25), rank(p.ranks?.vector),
                el("span", {}, p.title ?? "", el("br"), el("span", { className: "hint small" }, p.story_id ?? "")),
                el("span", { className: "passage" }, shorten(p.text ?? "", 400))]), "passages", { hiddenCaption: true })
        : el("p", { className: "hint" }, "No passages were retrieved."));

    const citations = turn.citations ?? [];
    parts.push(el("h4", {}, "Citations"));
    parts.push(citations.length
        ? el("ol", { className: "plain" }, ...citations.map((c) => el("li", {}, `[${c.number ?? "?"}] ${c.title ?? c.story_id ?? ""}`,
            c.quote ? el("q", {}, c.quote) : null)))
        : el("p", { className: "hint" }, "None."));

    parts.push(el("h4", {}, "Token ledger"));
    parts.push(ledger(turn.ledger));

    const verdicts = turn.verdicts ?? [];
    parts.push(el("h4", {}, "Verdicts"));
    parts.push(verdicts.length
        ? table("Each stage's verdict, in order", ["Stage", "Decision", "Score", "Reason"],
            verdicts.map((v) => [v.stage, v.decision, v.score === undefined ? "–" : count(v.score, 2), v.reason ?? "–"]), "", { hiddenCaption: true })
        : el("p", { className: "hint" }, "None recorded."));

    const events = turn.events ?? [];
    parts.push(el("h4", {}, "Events"));
    parts.push(events.length
        ? el("ol", { className: "events" }, ...events.map((e) => {
            const { type, event, data, ...rest } = e;
            const body = data === undefined ? rest : data;
            return el("li", {}, el("strong", {}, String(type ?? event ?? "event")), " ",
                el("code", { className: "event-data" }, typeof body === "string" ? body : JSON.stringify(body)));
        }))
        : el("p", { className: "hint" }, "None recorded."));
    return parts;
}

/** The token ledger: its budget, each part of the prompt with its tokens, and what was dropped to fit. */
function ledger(value) {
    if (!value || typeof value !== "object") return el("p", { className: "hint" }, "Not recorded.");
    const entries = Array.isArray(value.entries) ? value.entries : [];
    const dropped = Array.isArray(value.dropped) ? value.dropped : [];
    const used = entries.reduce((sum, e) => sum + (Number(e.tokens) || 0), 0);
    const parts = el("div", { className: "ledger" },
        details([
            ["Encoding", value.encoding ?? null],
            ["Budget", value.budget === undefined ? null : `${count(value.budget)} tokens`],
            ["Prompt", `${count(used)} tokens`],
            ["Reply reserve", value.reply_reserve === undefined ? null : `${count(value.reply_reserve)} tokens`],
        ], "facts inline"));
    if (entries.length) parts.append(table("Token ledger: the prompt's parts", ["Part", "Tokens", "Detail"], entries.map((e) => [e.part, count(e.tokens), e.detail ?? "–"])));
    if (dropped.length) parts.append(table("Dropped to fit the budget", ["Part", "Tokens", "Why"], dropped.map((d) => [d.part, count(d.tokens), d.reason])));
    return parts;
}

function showList() {
    $("turn-detail").hidden = true;
    $("turns-form").hidden = false;
    $("turns-list").hidden = false;
    $("turns-status-line").hidden = false;
    if (!loaded) load();
}

export const turns = {
    start() {
        $("turns-form").addEventListener("submit", (event) => load(event));
    },
    show(id) {
        if (id) open(id);
        else showList();
    },
    hide() {},
};
