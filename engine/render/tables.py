"""Tables that fit the page: column widths from their content, smaller type or a landscape page when wide."""

from __future__ import annotations

import functools
import json
import math
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import regex

from engine.render.markdown import Node, stringify

# Characters of body text across the text width (A4, 2.4 cm margins, 11 pt Noto Serif: ~160 mm
# ≈ 455 pt, ~5.6 pt a character); each smaller size fits proportionally more.
CHARS_PER_LINE = 80
CELL_PADDING = 2  # \tabcolsep on both sides, in characters
# (font size command, scale of CHARS_PER_LINE); the first size at which every column is at least
# MIN_COLUMN characters wide is used, the last one on a landscape page.
SIZES = (("", 1.0), ("\\small", 1.1), ("\\footnotesize", 1.22), ("\\scriptsize", 1.375))
LANDSCAPE = 1.41  # A4 turned: the text width grows by the page's aspect ratio
MIN_COLUMN = 8
NATURAL = 0.9  # a table whose one-line width is below this share of the line keeps natural widths
#: How wide a letter of each script is, in characters of Latin body text: the width nine in ten of
#: the script's letters are no wider than, in the font the PDF sets it in, over the mean width of the
#: main font's a-z, measured with XeTeX by ``scripts/measure_script_widths.py`` (Cherokee 1.66, Han 1.82).
SCRIPT_WIDTHS: dict[str, float] = json.loads(Path(__file__).with_name("script_widths.json").read_text(encoding="utf-8"))
_SCRIPTS = [(regex.compile(r"\p{Script=%s}" % name.replace(" ", "_")), width)  # noqa: UP031
            for name, width in SCRIPT_WIDTHS.items()]


@dataclass
class TableLayout:
    """How one table is set: relative column widths (or None: natural), type size, page turn."""

    widths: list[float] | None
    size: str
    landscape: bool
    column_chars: list[int]  # the longest unbroken run each column may hold, in characters


def _rows(table: list) -> list[list]:
    """Every row (head, bodies, foot) of a pandoc ``Table`` node's content, as lists of cells."""
    _attr, _caption, _specs, head, bodies, foot = table
    rows = list(head[1])
    for body in bodies:
        rows += body[2] + body[3]
    rows += foot[1]
    return [row[1] for row in rows]


def _cell_text(cell: list) -> str:
    """A cell's visible text, inline code included (it takes room on the line too)."""
    return stringify(_code_as_text(cell[4])) if cell[4] else ""


def _code_as_text(value: object) -> object:
    if isinstance(value, dict) and value.get("t") == "Code":
        return {"t": "Str", "c": value["c"][1]}
    if isinstance(value, dict):
        return {**value, "c": _code_as_text(value.get("c"))} if "c" in value else value
    if isinstance(value, list):
        return [_code_as_text(v) for v in value]
    return value


@functools.cache
def char_width(ch: str) -> float:
    """How wide ``ch`` is set, in characters of Latin body text (the unit of :data:`CHARS_PER_LINE`).

    A combining mark drawn over or under its letter (Unicode category Mn, Me) and an invisible
    format character (Cf) take no room; a letter of a script in :data:`SCRIPT_WIDTHS` takes its
    script's width (at least 1); another wide or fullwidth character (UAX #11: East Asian Width W
    or F: fullwidth punctuation, emoji) that of Han; anything else (Latin, Greek, Cyrillic, digits,
    punctuation, spaces) 1."""
    category = unicodedata.category(ch)
    if category in ("Mn", "Me", "Cf"):
        return 0.0
    if ord(ch) < 0x80:
        return 1.0
    width = next((w for pattern, w in _SCRIPTS if pattern.match(ch)), None)
    if width is None and unicodedata.east_asian_width(ch) in ("W", "F"):
        width = SCRIPT_WIDTHS.get("Han", 2.0)
    return max(1.0, width or 1.0)


def text_width(text: str) -> float:
    """How wide ``text`` is set on one line, in characters of Latin body text (:func:`char_width`)."""
    return sum(char_width(c) for c in text)


def layout(table: list) -> TableLayout:
    """Choose widths and size for a ``Table`` node's content (pandoc JSON ``c``).

    Column widths are proportional to each column's longest cell, damped (square root) so that a
    column of sentences does not starve its neighbours, and never below the column's longest
    word where the line allows it. A table too wide for the text width at the smallest size is
    set on a landscape page. Cells are measured by the width their text takes (:func:`text_width`:
    a Cherokee or Chinese letter is wider than a Latin one), not by their count of characters.
    """
    ncols = len(table[2])
    longest = [0] * ncols
    word = [0] * ncols
    for cells in _rows(table):
        col = 0
        for cell in cells:
            text = _cell_text(cell)
            span = max(1, cell[3])
            for k in range(col, min(ncols, col + span)):
                longest[k] = max(longest[k], math.ceil(text_width(text)) // span)
                word[k] = max(word[k], max((math.ceil(text_width(w)) for w in text.split()), default=0))
            col += span
    natural = sum(longest) + CELL_PADDING * ncols
    if natural <= CHARS_PER_LINE * NATURAL:
        return TableLayout(None, "", False, [CHARS_PER_LINE] * ncols)
    weights = [math.sqrt(max(1, n)) for n in longest]
    total = sum(weights)
    for k, (size, scale) in enumerate(SIZES + (("\\scriptsize", SIZES[-1][1] * LANDSCAPE),)):
        line = CHARS_PER_LINE * scale - CELL_PADDING * ncols
        chars = [line * w / total for w in weights]
        if min(chars) >= MIN_COLUMN or k == len(SIZES):
            # give columns whose longest word does not fit a share of the others' slack
            need = [max(0.0, min(word[i], 20) - chars[i]) for i in range(ncols)]
            slack = [max(0.0, chars[i] - max(MIN_COLUMN, min(word[i], 20))) for i in range(ncols)]
            if sum(need) and sum(slack):
                take = min(1.0, sum(slack) / sum(need))
                chars = [c + need[i] * take - slack[i] * take * sum(need) / sum(slack)
                         for i, c in enumerate(chars)]
            widths = [c / sum(chars) for c in chars]
            return TableLayout(widths, size, k == len(SIZES), [max(3, int(c) - 1) for c in chars])
    raise AssertionError("unreachable")


def fit_table(node: Node, typeset: Callable[[list, int], list]) -> list[Node]:
    """The ``Table`` node with widths set, its cells typeset, wrapped in size or landscape commands.

    ``typeset(blocks, max_run)`` typesets a cell's blocks so that no unbroken run exceeds
    ``max_run`` characters: the column's width over the width of the cell's widest character
    (:func:`char_width`), so a run of a wide script breaks within its column too.
    """
    attr, caption, specs, head, bodies, foot = node["c"]
    plan = layout(node["c"])
    if plan.widths is not None:
        specs = [[spec[0], {"t": "ColWidth", "c": w}] for spec, w in zip(specs, plan.widths, strict=True)]

    def rows(items: list) -> list:
        out = []
        for row_attr, cells in items:
            new_cells, col = [], 0
            for cell in cells:
                width = min(plan.column_chars[col:col + max(1, cell[3])] or [CHARS_PER_LINE])
                widest = max(1.0, *map(char_width, _cell_text(cell)))
                new_cells.append([*cell[:4], typeset(cell[4], max(3, int(width / widest)))])
                col += max(1, cell[3])
            out.append([row_attr, new_cells])
        return out

    table = {"t": "Table", "c": [attr, caption, specs, [head[0], rows(head[1])],
                                 [[b[0], b[1], rows(b[2]), rows(b[3])] for b in bodies], [foot[0], rows(foot[1])]]}
    before, after = [], []
    if plan.landscape:
        before.append("\\begin{landscape}")
        after.insert(0, "\\end{landscape}")
    if plan.size:
        before.append("{" + plan.size)
        after.insert(0, "}")
    if not before:
        return [table]
    return [{"t": "RawBlock", "c": ["latex", "\n".join(before)]}, table,
            {"t": "RawBlock", "c": ["latex", "\n".join(after)]}]
