// Audit: the search of GET /api/audit (admins only; an operator's token is refused by the route
// and told so here), newest first, a page at a time.

import { api } from "/assets/api.js";
import { $, el, table, when } from "/assets/dom.js";
import { reportFailure, hideError, queryOf } from "/assets/console-common.js";

let nextOffset = null;
let rows = [];

async function search(event, more = false) {
    event?.preventDefault();
    const error = $("audit-error");
    hideError(error);
    const query = queryOf($("audit-form"));
    query.set("limit", "100");
    if (more && nextOffset !== null) query.set("offset", String(nextOffset));
    $("audit-status").textContent = "Searching the audit log…";
    try {
        const page = await api.json("GET", `/api/audit?${query}`);
        rows = more ? rows.concat(page.entries) : page.entries;
        nextOffset = page.next_offset ?? null;
        $("audit-more").hidden = nextOffset === null;
        $("audit-results").replaceChildren(rows.length
            ? table("Audit entries, newest first", ["When", "Action", "User", "Actor", "Thread", "Message", "Moderation", "Details"],
                rows.map((e) => [when(e.at), el("code", {}, e.action), e.user_id, e.actor_id, e.thread_id, e.message_id, e.moderation,
                    e.details ? el("code", { className: "event-data" }, e.details) : "–"]), "audit")
            : el("p", { className: "hint" }, "No entries match."));
        $("audit-status").textContent = `${rows.length} entries${nextOffset === null ? "" : " (more below)"}.`;
    } catch (failure) {
        $("audit-status").textContent = "";
        if (!more) $("audit-results").replaceChildren();
        reportFailure(failure, error, "read the audit log (admins only)");
    }
}

export const audit = {
    start() {
        $("audit-form").addEventListener("submit", (event) => search(event));
        $("audit-more").addEventListener("click", () => search(null, true));
    },
    show() {},
    hide() {},
};
