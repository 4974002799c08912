#!/usr/bin/env python3
"""The pages' colour pairs and their WCAG 2 contrast ratios, read from their stylesheets.

    python3 scripts/contrast.py        # exit status 1 when a pair is under its minimum

Text needs 4.5:1 against its background (item 65); a focus outline, a control's border or a
chart's marks 3:1 against the page. The pairs are the ones chat.css and console.css use together.
"""
import re
import sys
from pathlib import Path

ASSETS = Path(__file__).resolve().parent.parent / "Sources/GriotServer/Resources/web/assets"

# (foreground variable, background variable, what, minimum)
PAIRS = [
    ("ink", "page", "body text", 4.5),
    ("muted", "page", "hints, status, quotes", 4.5),
    ("accent", "page", "links, quiet buttons, citation markers", 4.5),
    ("accent-ink", "accent", "button text", 4.5),
    ("error", "page", "error messages", 4.5),
    ("banner-ink", "banner", "'AI may be inaccurate' banner", 4.5),
    ("crisis-ink", "crisis", "crisis reply heading and links", 4.5),
    ("ink", "crisis", "crisis reply text", 4.5),
    ("ink", "soft", "your messages", 4.5),
    ("accent", "soft", "links in your messages", 4.5),
    ("muted", "soft", "hints in your messages", 4.5),
    ("ink", "note", "flag notes", 4.5),
    ("badge-ink", "badge", "'AI-generated' badge", 4.5),
    ("ink", "mark", "quoted passage", 4.5),
    ("ink", "code", "code", 4.5),
    ("state", "page", "message state (stopped, edited)", 4.5),
    ("state", "soft", "message state on your messages", 4.5),
    ("state", "crisis", "message state on the crisis reply", 4.5),
    ("muted", "crisis", "hints on the crisis reply", 4.5),
    ("accent", "crisis", "links and buttons on the crisis reply", 4.5),
    ("accent", "banner", "links in the banner", 4.5),
    ("disabled-ink", "disabled", "disabled button text", 4.5),
    ("focus", "page", "focus outline", 3.0),
    ("focus", "soft", "focus outline on your messages", 3.0),
    ("focus", "crisis", "focus outline on the crisis reply", 3.0),
    ("line", "page", "borders of fields and messages", 3.0),
]

# The operators' console (console.css).
CONSOLE_PAIRS = [
    ("ink", "page", "body text", 4.5),
    ("muted", "page", "hints, status, figure labels", 4.5),
    ("accent", "page", "links, section tabs, quiet buttons", 4.5),
    ("accent-ink", "accent", "button text", 4.5),
    ("ink", "soft", "the section shown, table headings, answers", 4.5),
    ("accent", "soft", "links in table headings and answers", 4.5),
    ("error", "page", "error and 'may not' messages", 4.5),
    ("disabled-ink", "disabled", "disabled button text", 4.5),
    ("ink", "code", "hashes, event data, JSON", 4.5),
    ("tag-ink", "tag", "flag tags", 4.5),
    ("ok", "page", "a closed breaker", 4.5),
    ("warn", "page", "an open breaker", 4.5),
    ("ins-ink", "ins", "words a replay added", 4.5),
    ("del-ink", "del", "words a replay removed", 4.5),
    ("bar", "page", "chart bars and first line", 3.0),
    ("series-2", "page", "chart second line", 3.0),
    ("focus", "page", "focus outline", 3.0),
    ("focus", "soft", "focus outline on the section shown", 3.0),
    ("line", "page", "borders of fields, cards and tables", 3.0),
]

STYLESHEETS = [("chat.css", PAIRS), ("console.css", CONSOLE_PAIRS)]


def luminance(hex_colour):
    value = hex_colour.lstrip("#")
    channels = [int(value[i:i + 2], 16) / 255 for i in (0, 2, 4)]
    linear = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def ratio(a, b):
    la, lb = sorted((luminance(a), luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


def main():
    failed = 0
    for name, pairs in STYLESHEETS:
        colours = dict(re.findall(r"--([\w-]+):\s*(#[0-9a-fA-F]{6})\s*;", (ASSETS / name).read_text()))
        print(name)
        for fg, bg, what, minimum in pairs:
            r = ratio(colours[fg], colours[bg])
            ok = r >= minimum
            failed += not ok
            print(f"  {'ok  ' if ok else 'FAIL'} {r:5.2f}:1 (min {minimum}:1)  {colours[fg]} on {colours[bg]}  {what}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
