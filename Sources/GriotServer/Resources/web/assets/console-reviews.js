// The review queue (item 63): GET /api/ops/reviews with its filters; each ticket with its status,
// who acknowledged and resolved it and when, its delivery to the tracker, a link to its turn, and
// Acknowledge and Resolve (POST /api/ops/reviews/{id}/acknowledge, …/resolve). The buttons are
// shown to every role: the routes decide, and a refusal is said in words.

import { api } from "/assets/api.js";
import { $, el, details, when } from "/assets/dom.js";
import { reportFailure, hideError, queryOf } from "/assets/console-common.js";

let nextOffset = null;

async function load(event, append = false) {
    event?.preventDefault();
    const error = $("reviews-error");
    hideError(error);
    const query = queryOf($("reviews-form"));
    if (append && nextOffset !== null) query.set("offset", String(nextOffset));
    $("reviews-status-line").textContent = "Loading tickets…";
    try {
        const page = await api.json("GET", `/api/ops/reviews?${query}`);
        const cards = page.tickets.map(card);
        if (append) $("reviews-list").append(...cards);
        else $("reviews-list").replaceChildren(...cards);
        nextOffset = page.next_offset ?? null;
        $("reviews-more").hidden = nextOffset === null;
        const shown = $("reviews-list").children.length;
        $("reviews-status-line").textContent = shown === 1 ? "1 ticket." : `${shown} tickets, newest first.`;
    } catch (failure) {
        $("reviews-status-line").textContent = "";
        if (!append) $("reviews-list").replaceChildren();
        reportFailure(failure, error, "read the review queue");
    }
}

function delivery(d = {}) {
    const parts = [d.state ?? "pending", `${d.attempts ?? 0} attempts`];
    if (d.remote_key) parts.push(`issue ${d.remote_key}`);
    if (d.delivered_at) parts.push(`delivered ${when(d.delivered_at)}`);
    else if (d.next_attempt_at) parts.push(`next try ${when(d.next_attempt_at)}`);
    if (d.last_error) parts.push(`last error: ${d.last_error}`);
    return parts.join(" · ");
}

function card(ticket) {
    const id = ticket.id;
    const note = el("input", { id: `resolution-${id}`, name: "resolution", autocomplete: "off", maxLength: 1000 });
    const message = el("p", { className: "status", role: "status" });
    const failure = el("p", { className: "error", role: "alert", hidden: true });
    const acknowledge = el("button", { type: "button", className: "acknowledge", disabled: ticket.status !== "open" }, "Acknowledge");
    const resolve = el("button", { type: "button", className: "resolve", disabled: ticket.status === "resolved" }, "Resolve");
    acknowledge.setAttribute("aria-describedby", `ticket-${id}-title`);
    resolve.setAttribute("aria-describedby", `ticket-${id}-title`);
    const item = el("li", { className: `card ticket ${ticket.status}`, dataset: { id, status: ticket.status } },
        el("p", { className: "title", id: `ticket-${id}-title` },
            el("strong", {}, ticket.kind.replace(/_/g, " ")), " ", el("span", { className: `state ${ticket.status}` }, ticket.status)),
        el("p", { className: "summary" }, ticket.summary ?? ""),
        ticket.note ? el("p", {}, el("strong", {}, "Note: "), ticket.note) : null,
        details([
            ["Opened", when(ticket.created_at)],
            ["Assistant", ticket.assistant],
            ["Reason", ticket.reason ?? null],
            ["Score", ticket.score === undefined || ticket.score === null ? null : ticket.score.toFixed(2)],
            ["Acknowledged", ticket.acknowledged_by ? `${ticket.acknowledged_by}, ${when(ticket.acknowledged_at)}` : null],
            ["Resolved", ticket.resolved_by ? `${ticket.resolved_by}, ${when(ticket.resolved_at)}` : null],
            ["Resolution", ticket.resolution ?? null],
            ["Delivery", delivery(ticket.delivery)],
            ["Turn", ticket.turn_id ? el("a", { href: `#turns/${encodeURIComponent(ticket.turn_id)}` }, ticket.turn_id) : null],
            ["Ticket", id],
        ], "facts inline"),
        el("div", { className: "field" }, el("label", { for: note.id }, "Resolution note (optional)"), note),
        el("div", { className: "actions" }, acknowledge, resolve),
        message, failure);
    acknowledge.addEventListener("click", () => act(item, id, "acknowledge", undefined, message, failure));
    resolve.addEventListener("click", () => act(item, id, "resolve", note.value.trim() ? { resolution: note.value.trim() } : undefined, message, failure));
    return item;
}

async function act(item, id, step, body, message, failure) {
    hideError(failure);
    for (const button of item.querySelectorAll("button")) button.disabled = true;
    try {
        const ticket = await api.json("POST", `/api/ops/reviews/${encodeURIComponent(id)}/${step}`, body);
        const replacement = card(ticket);
        item.replaceWith(replacement);
        const status = replacement.querySelector("[role=status]");
        status.textContent = step === "acknowledge" ? `Acknowledged by ${ticket.acknowledged_by}.` : `Resolved by ${ticket.resolved_by}.`;
        replacement.querySelector(step === "acknowledge" ? "button.resolve" : "a, input")?.focus();
    } catch (error) {
        message.textContent = "";
        reportFailure(error, failure, `${step} review tickets`);
        item.querySelector("button.acknowledge").disabled = item.dataset.status !== "open";
        item.querySelector("button.resolve").disabled = item.dataset.status === "resolved";
    }
}

export const reviews = {
    start() {
        $("reviews-form").addEventListener("submit", (event) => load(event));
        $("reviews-more").addEventListener("click", () => load(null, true));
    },
    show() {
        load();
    },
    hide() {},
};
