// Prompts: GET /api/ops/prompts (each assistant's versions, labels and hashes, and its promotion
// attempts with their eval results and who judged them), and Promote, which POSTs
// /api/ops/prompts/{assistant}/promote: the same gates as `griot prompts promote`. A refusal
// (409 promotion_refused) is shown with the gates that failed.

import { api, APIError } from "/assets/api.js";
import { $, el, table, when } from "/assets/dom.js";
import { reportFailure, hideError, showError } from "/assets/console-common.js";

async function load() {
    const error = $("prompts-error");
    hideError(error);
    $("prompts-status").textContent = "Loading prompts…";
    try {
        const { assistants } = await api.json("GET", "/api/ops/prompts");
        $("prompts-list").replaceChildren(...assistants.map(render));
        $("prompts-status").textContent = "";
    } catch (failure) {
        $("prompts-status").textContent = "";
        $("prompts-list").replaceChildren();
        reportFailure(failure, error, "read prompt versions");
    }
}

function render(assistant) {
    const id = assistant.id;
    const versions = assistant.versions ?? [];
    const promotions = assistant.promotions ?? [];
    const select = el("select", { id: `promote-version-${id}`, name: "version" },
        ...versions.map((v) => el("option", { value: String(v.version), selected: v.version === assistant.latest }, `version ${v.version}`)));
    const offline = el("input", { type: "checkbox", id: `promote-offline-${id}`, name: "allow_offline" });
    const result = el("p", { className: "status", role: "status", id: `promote-result-${id}` });
    const failure = el("p", { className: "error", role: "alert", hidden: true, id: `promote-error-${id}` });
    const form = el("form", { className: "promote filters", noValidate: true },
        el("div", { className: "field" }, el("label", { for: select.id }, "Version to promote"), select),
        el("div", { className: "field check" }, offline, el("label", { for: offline.id }, "Allow the offline responder's evals")),
        el("div", { className: "actions" }, el("button", { type: "submit" }, `Promote ${id}`)));
    form.addEventListener("submit", (event) => promote(event, id, select, offline, result, failure));
    return el("article", { className: "assistant", dataset: { assistant: id } },
        el("h3", {}, `${id}`, el("span", { className: "hint small" }, ` latest version ${assistant.latest ?? "–"}`)),
        versions.length
            ? table(`${id}: versions`, ["Version", "State", "Labels", "Hash", "Created"],
                versions.map((v) => [String(v.version), v.state, (v.labels ?? []).join(", ") || "–", el("code", { className: "hash" }, v.hash ?? ""), when(v.created)]))
            : el("p", { className: "hint" }, "No versions."),
        el("h4", {}, "Promotions"),
        promotions.length
            ? table(`${id}: promotion attempts`, ["When", "By", "Version", "Outcome", "Judged by", "Failed gates", "Eval results"],
                promotions.map((p) => [when(p.at), p.by, `${p.previous ?? "–"} → ${p.version}`,
                    p.promoted ? "promoted" : `refused${p.refusal ? `: ${p.refusal}` : ""}`, p.judged_by,
                    (p.failed_gates ?? []).length ? el("ul", { className: "plain gates" }, ...p.failed_gates.map((gate) => el("li", {}, String(gate)))) : "none",
                    metrics(p.metrics)]))
            : el("p", { className: "hint" }, "No promotion has been tried."),
        form, result, failure);
}

/** Eval results: one line per eval file (or per figure when flat), figures to three decimals. */
function metrics(value) {
    if (!value || typeof value !== "object") return "–";
    const figure = (v) => typeof v === "number" && !Number.isInteger(v) ? String(Number(v.toFixed(3))) : String(v);
    const figures = (object) => Object.entries(object).filter(([, v]) => v === null || typeof v !== "object")
        .map(([k, v]) => `${k.replace(/_/g, " ")} ${figure(v)}`).join(" · ");
    const nested = Object.entries(value).filter(([, v]) => v && typeof v === "object" && !Array.isArray(v));
    const lines = [];
    const flat = figures(value);
    if (flat) lines.push(el("li", {}, flat));
    for (const [name, inner] of nested) lines.push(el("li", {}, el("strong", {}, name), ": ", figures(inner) || JSON.stringify(inner)));
    return el("ul", { className: "plain metrics" }, ...lines);
}

async function promote(event, id, select, offline, result, failure) {
    event.preventDefault();
    hideError(failure);
    const button = event.target.querySelector("button");
    button.disabled = true;
    result.textContent = `Running the gates for ${id} version ${select.value}; the evals can take a minute…`;
    let said;
    try {
        const record = await api.json("POST", `/api/ops/prompts/${encodeURIComponent(id)}/promote`,
            { version: Number(select.value), allow_offline: offline.checked });
        said = { outcome: "promoted", text: `Promoted: ${id} version ${record.version ?? select.value} is now in production (judged by ${record.judged_by ?? "the gates"}).` };
    } catch (error) {
        if (error instanceof APIError && error.status === 409) {
            const record = error.details?.record ?? error.details ?? {};
            const gates = (record.failed_gates ?? []).length;
            said = { outcome: "refused", text: `Refused: ${error.message}${gates ? ` (${gates} gates failed; the attempt is listed above.)` : ""}` };
        } else {
            result.textContent = "";
            button.disabled = false;
            return reportFailure(error, failure, "promote prompt versions");
        }
    }
    // The attempt is recorded either way: show the list with it, and say the outcome under it.
    await load();
    const where = said.outcome === "promoted" ? $(`promote-result-${id}`) : $(`promote-error-${id}`);
    if (!where) return;
    if (said.outcome === "promoted") where.textContent = said.text;
    else showError(where, said.text);
    where.dataset.outcome = said.outcome;
    where.closest("article")?.querySelector("form.promote button")?.focus();
}

export const prompts = {
    start() {
        $("prompts-reload").addEventListener("click", load);
    },
    show() {
        load();
    },
    hide() {},
};
