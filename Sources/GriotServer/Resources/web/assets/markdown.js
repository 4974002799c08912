// Markdown to DOM nodes, for text a model wrote (issue 37, item 23). Every piece of text becomes
// a text node (textContent), every element is made with createElement, and a link keeps its
// address only when it is http or https: whatever the text holds (<script>, onerror=,
// javascript:), it is shown, never run. There is deliberately no raw-HTML pass-through.
//
//   import { renderMarkdown } from "/assets/markdown.js";
//   target.replaceChildren(renderMarkdown(text, { citation: (n) => button }));
//
// Supported: paragraphs, line breaks, headings (#), bullet and numbered lists (one level of
// nesting by indentation), block quotes, fenced and indented code, inline code, **strong**,
// *emphasis* / _emphasis_, [links](https://…), bare http(s) addresses, and citation markers
// [1] (handed to options.citation, which returns a node, or left as text).

const SAFE_PROTOCOLS = new Set(["http:", "https:"]);

/** The address when it is an absolute http(s) URL, else null. */
export function safeHref(raw) {
    if (typeof raw !== "string") return null;
    const trimmed = raw.trim();
    // Control characters and spaces are how "java\tscript:" slips past naive checks.
    if (/[\u0000-\u0020\u007f]/.test(trimmed)) return null;
    let url;
    try {
        url = new URL(trimmed);
    } catch {
        return null;
    }
    return SAFE_PROTOCOLS.has(url.protocol) ? url.href : null;
}

/** A DocumentFragment holding the rendered text. */
export function renderMarkdown(text, options = {}) {
    const fragment = document.createDocumentFragment();
    const lines = String(text ?? "").replace(/\r\n?/g, "\n").split("\n");
    renderBlocks(lines, fragment, options);
    return fragment;
}

function renderBlocks(lines, parent, options) {
    let i = 0;
    while (i < lines.length) {
        const line = lines[i];
        if (/^\s*$/.test(line)) { i += 1; continue; }

        const fence = line.match(/^\s{0,3}(`{3,}|~{3,})\s*([\w+-]*)\s*$/);
        if (fence) {
            const body = [];
            i += 1;
            while (i < lines.length && !lines[i].trimStart().startsWith(fence[1])) { body.push(lines[i]); i += 1; }
            i += 1; // the closing fence (or the end)
            parent.append(codeBlock(body.join("\n"), fence[2]));
            continue;
        }

        if (/^( {4}|\t)/.test(line)) {
            const body = [];
            while (i < lines.length && (/^( {4}|\t)/.test(lines[i]) || /^\s*$/.test(lines[i]))) {
                body.push(lines[i].replace(/^( {4}|\t)/, ""));
                i += 1;
            }
            parent.append(codeBlock(body.join("\n").replace(/\n+$/, ""), ""));
            continue;
        }

        const heading = line.match(/^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$/);
        if (heading) {
            // Inside a message, a model's "# Title" is a small heading, never the page's.
            const level = Math.min(6, heading[1].length + 2);
            const element = document.createElement(`h${level}`);
            appendInline(element, heading[2], options);
            parent.append(element);
            i += 1;
            continue;
        }

        if (/^\s{0,3}>/.test(line)) {
            const body = [];
            while (i < lines.length && /^\s{0,3}>/.test(lines[i])) { body.push(lines[i].replace(/^\s{0,3}>\s?/, "")); i += 1; }
            const quote = document.createElement("blockquote");
            renderBlocks(body, quote, options);
            parent.append(quote);
            continue;
        }

        if (listMarker(line)) {
            i = renderList(lines, i, parent, options);
            continue;
        }

        // The first line is this paragraph's whatever it looks like (a "```js x" that is no fence).
        const paragraph = [line.trim()];
        i += 1;
        while (i < lines.length && !/^\s*$/.test(lines[i]) && !startsBlock(lines[i])) { paragraph.push(lines[i].trim()); i += 1; }
        const element = document.createElement("p");
        paragraph.forEach((part, index) => {
            if (index > 0) element.append(document.createElement("br"));
            appendInline(element, part, options);
        });
        parent.append(element);
    }
}

function startsBlock(line) {
    return /^\s{0,3}(`{3,}|~{3,})/.test(line) || /^\s{0,3}#{1,6}\s/.test(line) || /^\s{0,3}>/.test(line) || listMarker(line) !== null;
}

/** { indent, ordered, start, rest } for a list item's first line, else null. */
function listMarker(line) {
    const match = line.match(/^(\s*)([-*+]|(\d{1,9})[.)])\s+(.*)$/);
    if (!match) return null;
    return { indent: match[1].replace(/\t/g, "    ").length, ordered: match[3] !== undefined, start: Number(match[3] ?? 1), rest: match[4] };
}

function renderList(lines, start, parent, options) {
    const first = listMarker(lines[start]);
    const list = document.createElement(first.ordered ? "ol" : "ul");
    if (first.ordered && first.start !== 1) list.start = first.start;
    const sibling = (marker) => marker && marker.indent <= first.indent + 1;
    let i = start;
    while (i < lines.length) {
        const marker = listMarker(lines[i]);
        if (!sibling(marker) || marker.ordered !== first.ordered) break;
        const item = document.createElement("li");
        appendInline(item, marker.rest, options);
        i += 1;
        // Continuation lines and a nested list, indented under the item.
        const nested = [];
        while (i < lines.length && !/^\s*$/.test(lines[i])) {
            const next = listMarker(lines[i]);
            if (sibling(next)) break;
            if (!next && !/^\s{2,}/.test(lines[i]) && startsBlock(lines[i])) break;
            nested.push(lines[i]);
            i += 1;
        }
        const nestedMarker = nested.length ? listMarker(nested[0]) : null;
        if (nestedMarker) {
            const strip = (l) => l.slice(Math.min(nestedMarker.indent, l.length - l.trimStart().length));
            renderBlocks(nested.map(strip), item, options);
        } else {
            nested.forEach((part) => { item.append(" "); appendInline(item, part.trim(), options); });
        }
        list.append(item);
        // A blank line between two items keeps the list going.
        if (i + 1 < lines.length && /^\s*$/.test(lines[i]) && sibling(listMarker(lines[i + 1]))) i += 1;
    }
    parent.append(list);
    return i;
}

function codeBlock(text, language) {
    const pre = document.createElement("pre");
    const code = document.createElement("code");
    if (/^[\w+-]{1,20}$/.test(language)) code.dataset.language = language;
    code.textContent = text;
    pre.append(code);
    // A code block may be wider than a phone: it scrolls, the page does not.
    pre.tabIndex = 0;
    return pre;
}

// Inline spans, in order of precedence. Each pattern's first group is what it holds.
const INLINE = [
    { kind: "code", pattern: /`([^`\n]+)`/y },
    { kind: "link", pattern: /\[([^\]\n]+)\]\(\s*<?([^)\s>]*)>?(?:\s+"[^"\n]*")?\s*\)/y },
    { kind: "citation", pattern: /\[(\d{1,3})\]/y },
    { kind: "strong", pattern: /\*\*(?=\S)([^\n]*?\S)\*\*/y },
    { kind: "strong", pattern: /__(?=\S)([^\n]*?\S)__(?!\w)/y },
    { kind: "em", pattern: /\*(?=[^\s*])([^*\n]*?[^\s*])\*/y },
    { kind: "em", pattern: /(?<!\w)_(?=[^\s_])([^_\n]*?[^\s_])_(?!\w)/y },
    { kind: "url", pattern: /(https?:\/\/[^\s<>"')\]]+[^\s<>"')\].,;:!?])/y },
];

/** Appends `text`'s inline Markdown to `parent` as nodes. */
export function appendInline(parent, text, options = {}) {
    let plain = "";
    const flush = () => { if (plain) { parent.append(document.createTextNode(plain)); plain = ""; } };
    let i = 0;
    outer: while (i < text.length) {
        const char = text[i];
        if (char === "\\" && i + 1 < text.length && /[\\`*_[\]()#+\-.!>]/.test(text[i + 1])) {
            plain += text[i + 1];
            i += 2;
            continue;
        }
        if ("`[*_h".includes(char)) {
            for (const { kind, pattern } of INLINE) {
                pattern.lastIndex = i;
                const match = pattern.exec(text);
                if (!match) continue;
                // Read before inlineNode: its recursion moves the same pattern's lastIndex.
                const end = pattern.lastIndex;
                const node = inlineNode(kind, match, options);
                if (!node) continue;
                flush();
                parent.append(node);
                i = end;
                continue outer;
            }
        }
        plain += char;
        i += 1;
    }
    flush();
}

function inlineNode(kind, match, options) {
    switch (kind) {
    case "code": {
        const code = document.createElement("code");
        code.textContent = match[1];
        return code;
    }
    case "link": {
        const href = safeHref(match[2]);
        if (!href) {
            // Not an address we open: the words stay, the target is dropped.
            const span = document.createElement("span");
            span.className = "md-unsafe-link";
            span.textContent = match[1];
            span.title = "Link removed: only http and https addresses are opened";
            return span;
        }
        return link(href, match[1], options);
    }
    case "url": {
        const href = safeHref(match[1]);
        return href ? link(href, null, options) : null;
    }
    case "citation":
        return options.citation ? options.citation(Number(match[1])) : null;
    case "strong":
    case "em": {
        const element = document.createElement(kind);
        appendInline(element, match[1], options);
        return element;
    }
    default:
        return null;
    }
}

function link(href, label, options) {
    const a = document.createElement("a");
    a.href = href;
    a.rel = "noopener noreferrer nofollow";
    a.target = "_blank";
    if (label === null) a.textContent = href;
    else appendInline(a, label, { ...options, citation: null });
    return a;
}
