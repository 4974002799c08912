// A word diff of two answers: the longest common subsequence of their words (white space kept
// with the word before it), so a replay shows what it removed and what it added.
//
//   import { diffWords, renderDiff } from "/assets/worddiff.js";
//   const parts = diffWords(oldAnswer, newAnswer);      // [{ kind: "same"|"removed"|"added", text }]
//   left.append(renderDiff(parts, "old"));             // same text, and <del> for what went
//   right.append(renderDiff(parts, "new"));            // same text, and <ins> for what came

/** Cells in the LCS table above which the diff gives up on alignment (two 1,500-word answers). */
const MAX_CELLS = 2_250_000;

/** Words with their trailing white space: "a  b\nc" → ["a  ", "b\n", "c"]; leading white space is its own token. */
export function words(text) {
    return String(text ?? "").match(/\s+|\S+\s*/g) ?? [];
}

/** The parts of the diff from `before` to `after`, neighbours of one kind merged. */
export function diffWords(before, after) {
    const a = words(before);
    const b = words(after);
    const key = (token) => token.trimEnd();
    // Common head and tail need no table.
    let head = 0;
    while (head < a.length && head < b.length && key(a[head]) === key(b[head])) head++;
    let tail = 0;
    while (tail < a.length - head && tail < b.length - head && key(a[a.length - 1 - tail]) === key(b[b.length - 1 - tail])) tail++;
    const parts = [];
    const push = (kind, text) => {
        if (!text) return;
        const last = parts[parts.length - 1];
        if (last && last.kind === kind) last.text += text;
        else parts.push({ kind, text });
    };
    for (let i = 0; i < head; i++) push("same", b[i]);
    const x = a.slice(head, a.length - tail);
    const y = b.slice(head, b.length - tail);
    const n = x.length;
    const m = y.length;
    if (n * m > MAX_CELLS) {
        push("removed", x.join(""));
        push("added", y.join(""));
    } else {
        // lengths[i][j]: the LCS of x[i…] and y[j…], in one flat array.
        const width = m + 1;
        const lengths = new Uint32Array((n + 1) * width);
        for (let i = n - 1; i >= 0; i--) {
            for (let j = m - 1; j >= 0; j--) {
                lengths[i * width + j] = key(x[i]) === key(y[j])
                    ? lengths[(i + 1) * width + j + 1] + 1
                    : Math.max(lengths[(i + 1) * width + j], lengths[i * width + j + 1]);
            }
        }
        let i = 0;
        let j = 0;
        while (i < n && j < m) {
            if (key(x[i]) === key(y[j])) { push("same", y[j]); i++; j++; }
            else if (lengths[(i + 1) * width + j] >= lengths[i * width + j + 1]) push("removed", x[i++]);
            else push("added", y[j++]);
        }
        while (i < n) push("removed", x[i++]);
        while (j < m) push("added", y[j++]);
    }
    for (let i = b.length - tail; i < b.length; i++) push("same", b[i]);
    return parts;
}

/**
 * One side of the diff as a fragment of text nodes: "old" shows what is the same and what was
 * removed (<del>), "new" what is the same and what was added (<ins>). Each mark carries a
 * visually hidden word for screen readers, since strike-through alone says nothing to them.
 */
export function renderDiff(parts, side) {
    const fragment = document.createDocumentFragment();
    for (const part of parts) {
        if (part.kind === "same") {
            fragment.append(document.createTextNode(part.text));
        } else if (part.kind === "removed" && side === "old") {
            fragment.append(mark("del", "removed: ", part.text));
        } else if (part.kind === "added" && side === "new") {
            fragment.append(mark("ins", "added: ", part.text));
        }
    }
    return fragment;
}

function mark(tag, label, text) {
    const element = document.createElement(tag);
    const hidden = document.createElement("span");
    hidden.className = "visually-hidden";
    hidden.textContent = label;
    element.append(hidden, document.createTextNode(text));
    return element;
}
