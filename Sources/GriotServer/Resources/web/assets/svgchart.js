// The dashboard's charts, drawn as SVG elements built one by one (createElementNS; labels are
// text nodes), so no figure or name from the service is ever parsed as markup. Colours come from
// console.css through class names; the charts scale with their box (viewBox, width 100 %).
//
//   import { columns, lines, bars } from "/assets/svgchart.js";
//   box.replaceChildren(columns("Turns a minute", series.map((b) => ({ at: b.at, value: b.turns }))));
//   box.replaceChildren(lines("Latency", [{ name: "p95", className: "s1", points }], { unit: "ms" }));
//   box.replaceChildren(bars("Flags by category", [{ label: "crisis", value: 2 }]));

const NS = "http://www.w3.org/2000/svg";
const WIDTH = 600;
const HEIGHT = 180;
const PAD = { left: 44, right: 8, top: 10, bottom: 24 };

function node(tag, attributes = {}, ...children) {
    const element = document.createElementNS(NS, tag);
    for (const [name, value] of Object.entries(attributes)) element.setAttribute(name, String(value));
    for (const child of children) element.append(typeof child === "string" ? document.createTextNode(child) : child);
    return element;
}

/** An <svg> with role img, its accessible name and a <title> and <desc> saying what it shows. */
function frame(title, summary, height = HEIGHT) {
    const svg = node("svg", { viewBox: `0 0 ${WIDTH} ${height}`, role: "img", class: "chart", preserveAspectRatio: "xMidYMid meet" });
    svg.append(node("title", {}, title), node("desc", {}, summary));
    svg.setAttribute("aria-label", `${title}: ${summary}`);
    return svg;
}

/** A round top for the axis: 1, 2, 5 × 10ⁿ. */
function niceMax(value) {
    if (!(value > 0)) return 1;
    const power = 10 ** Math.floor(Math.log10(value));
    for (const step of [1, 2, 5, 10]) if (value <= step * power) return step * power;
    return 10 * power;
}

function format(value, unit = "") {
    if (unit === "ms" && value >= 1000) return `${Number((value / 1000).toFixed(1))} s`;
    const text = value >= 10_000 ? `${Math.round(value / 1000)}k` : Number.isInteger(value) ? String(value) : value.toFixed(1);
    return unit ? `${text} ${unit}` : text;
}

function clock(at) {
    const date = new Date(at);
    return Number.isNaN(date.getTime()) ? "" : date.toLocaleTimeString(undefined, { hour: "2-digit", minute: "2-digit" });
}

/** The value axis: three grid lines with their figures. */
function axis(svg, max, unit, height = HEIGHT) {
    const plot = height - PAD.top - PAD.bottom;
    for (const share of [0, 0.5, 1]) {
        const y = PAD.top + plot * (1 - share);
        svg.append(node("line", { x1: PAD.left, x2: WIDTH - PAD.right, y1: y, y2: y, class: "grid" }));
        svg.append(node("text", { x: PAD.left - 4, y: y + 4, "text-anchor": "end", class: "tick" }, format(max * share, unit)));
    }
}

/** Time labels under the first, middle and last of `times`. */
function timeLabels(svg, times, xOf, height = HEIGHT) {
    if (!times.length) return;
    const picks = [...new Set([0, Math.floor((times.length - 1) / 2), times.length - 1])];
    for (const index of picks) {
        const anchor = index === 0 ? "start" : index === times.length - 1 ? "end" : "middle";
        svg.append(node("text", { x: xOf(index), y: height - 6, "text-anchor": anchor, class: "tick" }, clock(times[index])));
    }
}

/** Columns over time: `points` [{ at, value }], oldest first (empty buckets as 0). */
export function columns(title, points, { unit = "" } = {}) {
    const values = points.map((p) => Number(p.value) || 0);
    const total = values.reduce((a, b) => a + b, 0);
    const peak = Math.max(0, ...values);
    const svg = frame(title, `${points.length} buckets, ${format(total)} in all, at most ${format(peak, unit)} in one`);
    // Counts: at least 0, 1, 2 on the axis, never a half.
    const max = niceMax(Math.max(peak, 2));
    axis(svg, max, unit);
    const plot = HEIGHT - PAD.top - PAD.bottom;
    const step = (WIDTH - PAD.left - PAD.right) / Math.max(points.length, 1);
    const xOf = (i) => PAD.left + step * i + step / 2;
    points.forEach((point, i) => {
        const value = values[i];
        const h = (value / max) * plot;
        const bar = node("rect", { x: PAD.left + step * i + step * 0.1, y: PAD.top + plot - h, width: Math.max(step * 0.8, 0.5), height: Math.max(h, 0), class: "bar" });
        bar.append(node("title", {}, `${clock(point.at)}: ${format(value, unit)}`));
        svg.append(bar);
    });
    timeLabels(svg, points.map((p) => p.at), xOf);
    return svg;
}

/**
 * Lines over time: `series` [{ name, className, points: [{ at, value|null }] }], all with the
 * same buckets; a null value breaks the line. A legend names each series.
 */
export function lines(title, series, { unit = "" } = {}) {
    const all = series.flatMap((s) => s.points.map((p) => p.value)).filter((v) => v !== null && v !== undefined);
    const peak = Math.max(0, ...all);
    const summary = series.map((s) => {
        const last = [...s.points].reverse().find((p) => p.value !== null && p.value !== undefined);
        return `${s.name} latest ${last ? format(last.value, unit) : "none"}`;
    }).join("; ");
    const svg = frame(title, summary || "no data");
    const max = niceMax(peak);
    axis(svg, max, unit);
    const plot = HEIGHT - PAD.top - PAD.bottom;
    const count = Math.max(...series.map((s) => s.points.length), 1);
    const step = (WIDTH - PAD.left - PAD.right) / Math.max(count - 1, 1);
    const xOf = (i) => PAD.left + step * i;
    series.forEach((s, index) => {
        let path = "";
        let pen = false;
        s.points.forEach((point, i) => {
            if (point.value === null || point.value === undefined) { pen = false; return; }
            const y = PAD.top + plot * (1 - point.value / max);
            path += `${pen ? "L" : "M"}${xOf(i).toFixed(1)} ${y.toFixed(1)} `;
            pen = true;
            const dot = node("circle", { cx: xOf(i), cy: y, r: 2.5, class: `dot ${s.className}` });
            dot.append(node("title", {}, `${s.name} ${clock(point.at)}: ${format(point.value, unit)}`));
            svg.append(dot);
        });
        if (path) svg.append(node("path", { d: path.trim(), class: `line ${s.className}` }));
        const x = PAD.left + 8 + index * 150;
        svg.append(node("rect", { x, y: PAD.top, width: 10, height: 10, class: `key ${s.className}` }));
        svg.append(node("text", { x: x + 14, y: PAD.top + 9, class: "tick" }, s.name));
    });
    timeLabels(svg, (series[0]?.points ?? []).map((p) => p.at), xOf);
    return svg;
}

/** Horizontal bars by category: `items` [{ label, value }], largest first. */
export function bars(title, items, { unit = "" } = {}) {
    const sorted = [...items].sort((a, b) => b.value - a.value);
    const row = 22;
    const height = Math.max(sorted.length, 1) * row + 8;
    const summary = sorted.length ? sorted.map((i) => `${i.label} ${format(i.value, unit)}`).join(", ") : "none";
    const svg = frame(title, summary, height);
    const max = niceMax(Math.max(0, ...sorted.map((i) => i.value)));
    const left = 190;
    const span = WIDTH - left - 60;
    sorted.forEach((item, i) => {
        const y = 4 + i * row;
        svg.append(node("text", { x: left - 6, y: y + 15, "text-anchor": "end", class: "label" }, item.label.length > 28 ? `${item.label.slice(0, 27)}…` : item.label));
        const w = (item.value / max) * span;
        const bar = node("rect", { x: left, y: y + 3, width: Math.max(w, 1), height: row - 8, class: "bar" });
        bar.append(node("title", {}, `${item.label}: ${format(item.value, unit)}`));
        svg.append(bar, node("text", { x: left + Math.max(w, 1) + 6, y: y + 15, class: "label" }, format(item.value, unit)));
    });
    if (!sorted.length) svg.append(node("text", { x: 8, y: 20, class: "label" }, "None in this range"));
    return svg;
}
