// Replay: POST /api/ops/replay with a turn (or thread) id and the prompt version, model, provider
// and index to try; each result shows the stored and the replayed answer side by side with a word
// diff (worddiff.js), and their citations and flags side by side.

import { api } from "/assets/api.js";
import { $, el, details, table } from "/assets/dom.js";
import { diffWords, renderDiff } from "/assets/worddiff.js";
import { reportFailure, hideError, showError } from "/assets/console-common.js";

async function run(event) {
    event.preventDefault();
    const error = $("replay-error");
    hideError(error);
    const id = $("replay-id").value.trim();
    if (!id) {
        showError(error, "Name the turn to replay: paste its id, or open a turn and choose Replay this turn.");
        $("replay-id").focus();
        return;
    }
    const body = { id, provider: $("replay-provider").value, index: $("replay-index").value, cassette: $("replay-cassette").checked };
    const prompt = $("replay-prompt").value.trim();
    const model = $("replay-model").value.trim();
    if (prompt) body.prompt_version = prompt;
    if (model) body.model = model;
    $("replay-run").disabled = true;
    $("replay-status").textContent = "Replaying… (the model answers again; this can take a while)";
    $("replay-results").replaceChildren();
    try {
        const { results } = await api.json("POST", "/api/ops/replay", body);
        $("replay-results").replaceChildren(...results.map(render));
        $("replay-status").textContent = results.length === 1 ? "Replayed 1 turn." : `Replayed ${results.length} turns.`;
    } catch (failure) {
        $("replay-status").textContent = "";
        reportFailure(failure, error, "replay turns");
    } finally {
        $("replay-run").disabled = false;
    }
}

function side(title, snapshot) {
    return `${title}: prompt ${snapshot?.prompt_version ?? "?"} · ${snapshot?.provider ?? "?"} · ${snapshot?.model ?? "?"}`;
}

function citationList(snapshot) {
    const citations = snapshot?.citations ?? [];
    if (!citations.length) return el("p", { className: "hint" }, "No citations.");
    return el("ol", { className: "plain" }, ...citations.map((c) =>
        el("li", {}, `[${c.number}] ${c.title ?? c.story_id ?? ""}`, el("span", { className: "hint small" }, ` ${c.passage_id ?? ""}`), c.quote ? el("q", {}, c.quote) : null)));
}

function flagList(snapshot) {
    const flags = snapshot?.flags ?? [];
    if (!flags.length) return el("p", { className: "hint" }, "No flags.");
    return el("ul", { className: "plain" }, ...flags.map((f) =>
        typeof f === "string" ? el("li", {}, f) : el("li", {}, el("strong", {}, f.kind ?? "flag"), f.message ? `: ${f.message}` : "")));
}

function render(result) {
    const before = result.original?.text ?? "";
    const after = result.replayed?.text ?? "";
    const parts = diffWords(before, after);
    const removed = parts.filter((p) => p.kind === "removed").length;
    const added = parts.filter((p) => p.kind === "added").length;
    const changed = removed + added > 0;
    const diff = result.diff ?? {};
    const changes = [...(diff.settings ?? []), ...(diff.ledger ?? []), ...(diff.outcome ?? [])];
    return el("article", { className: "replay", dataset: { turn: result.turn_id, changed: String(changed) } },
        el("h3", {}, `Turn ${result.turn_id}`),
        el("p", { className: "question" }, el("strong", {}, "Question: "), result.question ?? ""),
        details([
            ["Model reply", result.provider_source === "played" ? "played from the recording" : result.provider_source === "live" ? "asked live" : "no model was called"],
            ["Cassette", result.cassette_note ?? null],
            ["Answer", changed ? `${removed} runs of words removed, ${added} added` : "the same"],
        ]),
        el("div", { className: "sides" },
            el("section", { className: "side old", "aria-label": "Stored answer" },
                el("h4", {}, side("Stored", result.original)),
                el("div", { className: "text diff" }, renderDiff(parts, "old")),
                el("h5", {}, "Citations"), citationList(result.original),
                el("h5", {}, "Flags"), flagList(result.original)),
            el("section", { className: "side new", "aria-label": "Replayed answer" },
                el("h4", {}, side("Replayed", result.replayed)),
                el("div", { className: "text diff" }, renderDiff(parts, "new")),
                el("h5", {}, "Citations"), citationList(result.replayed),
                el("h5", {}, "Flags"), flagList(result.replayed))),
        changes.length ? table("What else changed", ["Field", "Stored", "Replayed"], changes.map((c) => [c.field, c.before, c.after])) : null);
}

export const replay = {
    start() {
        $("replay-form").addEventListener("submit", run);
    },
    show(id) {
        if (id) {
            $("replay-id").value = id;
            hideError($("replay-error"));
        }
    },
    hide() {},
};
