// Small builders for the console's elements. Text always goes in as a text node, so nothing a
// model, a user or the service wrote can become markup.
//
//   import { el, $ } from "/assets/dom.js";
//   list.append(el("li", { className: "card" }, el("strong", {}, ticket.kind), " ", ticket.summary));

export const $ = (id) => document.getElementById(id);

/** el("p", { className: "hint", dataset: { id } }, "text", child…); null, undefined and false children are skipped. */
export function el(tag, properties = {}, ...children) {
    const element = document.createElement(tag);
    for (const [key, value] of Object.entries(properties)) {
        if (value === undefined || value === null) continue;
        if (key === "dataset") Object.assign(element.dataset, value);
        else if (key.startsWith("aria-") || key === "role" || key === "for") element.setAttribute(key, value);
        else element[key] = value;
    }
    append(element, children);
    return element;
}

function append(element, children) {
    for (const child of children.flat()) {
        if (child === null || child === undefined || child === false) continue;
        element.append(typeof child === "string" || typeof child === "number" ? document.createTextNode(String(child)) : child);
    }
}

/** A definition list of [term, value] pairs, values shown as text ("–" when missing). */
export function details(pairs, className = "facts") {
    const list = el("dl", { className });
    for (const [term, value] of pairs) {
        list.append(el("dt", {}, term), el("dd", {}, value === null || value === undefined || value === "" ? "–" : value));
    }
    return list;
}

/**
 * A table with a caption, its header row and rows of cells (text or elements), in a scroll box
 * for narrow screens. `hiddenCaption` keeps the caption for screen readers only, where a heading
 * just above already says it.
 */
export function table(caption, headings, rows, className = "", { hiddenCaption = false } = {}) {
    const body = el("tbody", {}, rows.map((cells) => el("tr", {}, cells.map((cell) => el("td", {}, cell ?? "–")))));
    const head = el("thead", {}, el("tr", {}, headings.map((heading) => el("th", { scope: "col" }, heading))));
    return el("div", { className: "scroll", role: "region", "aria-label": caption, tabIndex: 0 },
        el("table", { className }, el("caption", { className: hiddenCaption ? "visually-hidden" : "" }, caption), head, body));
}

/** A date as the reader's locale writes it, to the second; "–" when absent. */
export function when(value) {
    if (!value) return "–";
    const date = new Date(value);
    return Number.isNaN(date.getTime()) ? String(value) : date.toLocaleString(undefined, { dateStyle: "medium", timeStyle: "medium" });
}

/** A number with thousands separators; "–" when absent. */
export function count(value, digits = 0) {
    if (value === null || value === undefined || Number.isNaN(value)) return "–";
    return Number(value).toLocaleString(undefined, { maximumFractionDigits: digits, minimumFractionDigits: digits });
}

/** A share (0…1) as a percentage. */
export function percent(value) {
    return value === null || value === undefined ? "–" : `${count(value * 100, 1)} %`;
}

/** Milliseconds as "840 ms" or "2.3 s". */
export function duration(ms) {
    if (ms === null || ms === undefined) return "–";
    return ms >= 1000 ? `${count(ms / 1000, 1)} s` : `${count(ms)} ms`;
}

/** Any JSON value as indented text, for fields whose shape the page does not know. */
export function jsonText(value) {
    return el("pre", { className: "json" }, JSON.stringify(value, null, 2));
}
