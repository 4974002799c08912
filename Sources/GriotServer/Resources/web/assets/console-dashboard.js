// The live dashboard: GET /api/ops/dashboard/stream?range=… read with fetch (EventSource cannot
// send the bearer token); each `dashboard` event is the whole picture and replaces the last.
// When the stream ends the page reconnects; when the service has no stream route it polls
// GET /api/ops/dashboard once a second instead.

import { api, APIError } from "/assets/api.js";
import { $, el, details, table, when, count, percent, duration } from "/assets/dom.js";
import { columns, lines, bars } from "/assets/svgchart.js";
import { reportFailure, hideError } from "/assets/console-common.js";

const ACTION = "read the live dashboard";
let range = "1h";
let controller = null;
let timer = null;

function stop() {
    controller?.abort();
    controller = null;
    clearTimeout(timer);
    timer = null;
}

function setStatus(text) {
    $("dashboard-status").textContent = text;
}

/** One connection, for as long as the section is shown; a new range or a hide aborts it. */
async function connect() {
    stop();
    const mine = new AbortController();
    controller = mine;
    setStatus("Connecting…");
    try {
        await api.stream(`/api/ops/dashboard/stream?range=${range}`, undefined, {
            signal: mine.signal,
            onEvent(name, data) {
                if (name === "dashboard") render(data, "Live");
            },
        });
    } catch (failure) {
        if (mine.signal.aborted) return;
        if (failure instanceof APIError && failure.status === 404) return poll(mine);
        reportFailure(failure, $("dashboard-error"), ACTION);
        if (failure instanceof APIError && [401, 403].includes(failure.status)) {
            setStatus("");
            return;
        }
    }
    if (mine.signal.aborted) return;
    setStatus("The live connection closed; reconnecting…");
    timer = setTimeout(connect, 1000);
}

/** The fallback: the figures once a second from the JSON route. */
async function poll(mine) {
    try {
        render(await api.json("GET", `/api/ops/dashboard?range=${range}`), "Polled");
    } catch (failure) {
        if (mine.signal.aborted) return;
        reportFailure(failure, $("dashboard-error"), ACTION);
        if (failure instanceof APIError && [401, 403, 404].includes(failure.status)) return setStatus("");
    }
    if (!mine.signal.aborted) timer = setTimeout(() => poll(mine), 1000);
}

function figure(id, term, value, note) {
    return el("div", { className: "figure", id: `fig-${id}` },
        el("dt", {}, term),
        el("dd", {}, el("span", { className: "value" }, value), note ? el("span", { className: "note" }, note) : null));
}

function render(data, how) {
    hideError($("dashboard-error"));
    $("dashboard-body").hidden = false;
    const totals = data.totals ?? {};
    const latency = data.latency ?? {};
    const first = latency.first_token_ms ?? {};
    const turn = latency.turn_ms ?? {};
    const crisis = totals.crisis ?? 0;
    const figures = [
        figure("turns", "Turns", count(totals.turns)),
        figure("turns-per-minute", "Turns a minute", count(totals.turns_per_minute, 2)),
        figure("tokens-in", "Tokens in", count(totals.tokens_in)),
        figure("tokens-out", "Tokens out", count(totals.tokens_out)),
        figure("first-token", "Time to first token", duration(first.p50), `p50 · p95 ${duration(first.p95)}`),
        figure("latency", "Turn latency", duration(turn.p50), `p50 · p95 ${duration(turn.p95)}`),
        figure("error-rate", "Error rate", percent(totals.error_rate), `${count(totals.errors)} errors`),
        figure("flags", "Moderation flags", count(totals.flags)),
        figure("crisis", "Crisis escalations", count(crisis)),
        figure("rate-limited", "Rate-limit refusals", count(totals.rate_limited)),
    ];
    $("figures").replaceChildren(...figures);
    $("figures").dataset.turns = String(totals.turns ?? 0);

    const series = Array.isArray(data.series) ? data.series : [];
    const minutes = (data.bucket_seconds ?? 60) / 60;
    $("chart-turns").replaceChildren(columns(minutes === 1 ? "Turns a minute" : `Turns per ${minutes} minutes`,
        series.map((b) => ({ at: b.at, value: b.turns }))));
    $("chart-latency").replaceChildren(lines("Latency", [
        { name: "first token p50", className: "s1", points: series.map((b) => ({ at: b.at, value: b.first_token_p50_ms })) },
        { name: "turn p95", className: "s2", points: series.map((b) => ({ at: b.at, value: b.latency_p95_ms })) },
    ], { unit: "ms" }));
    $("chart-tokens").replaceChildren(lines("Tokens", [
        { name: "in", className: "s1", points: series.map((b) => ({ at: b.at, value: b.tokens_in })) },
        { name: "out", className: "s2", points: series.map((b) => ({ at: b.at, value: b.tokens_out })) },
    ]));
    $("chart-flags").replaceChildren(bars("Moderation flags by category",
        (data.flags ?? []).map((f) => ({ label: String(f.category), value: Number(f.count) || 0 }))));
    $("chart-errors").replaceChildren(bars("Errors by code",
        (data.errors ?? []).map((e) => ({ label: `${e.code} (${percent(e.rate)})`, value: Number(e.count) || 0 }))));

    const usage = data.tokens ?? [];
    $("usage").replaceChildren(usage.length
        ? table("Tokens by assistant and model", ["Assistant", "Model", "Turns", "Tokens in", "Tokens out"],
            usage.map((u) => [u.assistant, u.model, count(u.turns), count(u.tokens_in), count(u.tokens_out)]), "", { hiddenCaption: true })
        : el("p", { className: "hint" }, "No turns in this range."));

    const breakers = data.breakers ?? [];
    $("breakers").replaceChildren(...(breakers.length
        ? breakers.map((b) => el("li", { className: `breaker ${b.state === "closed" ? "ok" : "warn"}` },
            el("span", { className: "name" }, b.name), ": ", el("strong", {}, b.state === "half_open" ? "half open" : String(b.state))))
        : [el("li", { className: "hint" }, "No breaker has been used yet.")]));

    const index = data.index ?? {};
    $("index").replaceChildren(details([
        ["Stories", count(index.stories)],
        ["Passages", count(index.passages)],
        ["Change-log position", index.change_position === null || index.change_position === undefined ? "not on a cluster" : count(index.change_position)],
        ["Scope", data.scope === "fleet" ? `the fleet (${(data.nodes ?? []).length} nodes)` : "this node"],
        ["Nodes", (data.nodes ?? []).join(", ")],
        ["From", when(data.from)],
        ["To", when(data.to)],
    ]));
    setStatus(`${how}: updated ${new Date().toLocaleTimeString()}, range ${data.range ?? range}.`);
}

function choose(event) {
    const button = event.target.closest("button[data-range]");
    if (!button) return;
    range = button.dataset.range;
    for (const other of document.querySelectorAll("#view-dashboard button[data-range]")) {
        other.setAttribute("aria-pressed", String(other === button));
    }
    connect();
}

export const dashboard = {
    start() {
        $("view-dashboard").querySelector(".ranges").addEventListener("click", choose);
    },
    show() {
        hideError($("dashboard-error"));
        connect();
    },
    hide() {
        stop();
        setStatus("");
    },
};
