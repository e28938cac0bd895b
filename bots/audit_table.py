"""`deepresearch audit`'s output: one row per research (:func:`jobs.audit_rows.researches`) as a table or as JSON lines."""

from __future__ import annotations

import json
import sys

from rich.console import Console, RenderableType
from rich.segment import Segment, Segments
from rich.table import Table

from engine.settings import OFFLINE_MODEL_NAME as OFFLINE_MODEL

#: Columns of the table: (header, how to show a record's value).
_COLUMNS = (
    ("when (UTC)", lambda r: str(r.get("at", ""))[:16].replace("T", " ")),
    ("where", lambda r: ":".join(p for p in (r.get("platform"), r.get("workspace"), r.get("channel")) if p)),
    ("requester", lambda r: str(r.get("requester") or "")),
    ("question", lambda r: str(r.get("question") or "")),
    ("clarified", lambda r: "yes" if r.get("clarification") else ""),
    ("status", lambda r: _status(r)),
    ("time", lambda r: _duration(float(r.get("duration_seconds") or 0))),
    ("calls", lambda r: OFFLINE if _offline_only(r) else f"{_model_use(r)[0]:,}"),
    ("tokens", lambda r: OFFLINE if _offline_only(r) else f"{_model_use(r)[1]:,}"),
    ("sources", lambda r: str(r.get("sources", 0))),
    ("files", lambda r: ", ".join(r.get("files") or [])),
    ("error", lambda r: str(r.get("error") or "")),
)


#: What the calls and tokens of a research answered by the offline model alone show: it calls no
#: language model, so it has none to count (its record keeps what the offline model counted).
OFFLINE = "offline"

#: Columns from which the records are a table; narrower terminals get one block a record.
WIDE = 160


def _status(row: dict) -> str:
    """The row's status, with how many attempts it took (when more than one) and, for a research
    shown by ``--since`` that started before its window, that it did: ``done (2 attempts, started
    before --since)``."""
    notes = [f"{row['attempts']} attempts"] if row.get("attempts", 1) > 1 else []
    if row.get("before_window"):
        notes.append("started before --since")
    return str(row.get("status") or "") + (f" ({', '.join(notes)})" if notes else "")


def _model_use(row: dict) -> tuple[int, int]:
    """``(calls, tokens)`` of the language models in ``row``: its ``model_calls`` and ``tokens``
    without those of the offline model (:data:`engine.settings.OFFLINE_MODEL_NAME`, named in the row's
    ``models``; a record written before ``models`` was kept counts every call)."""
    offline = (row.get("models") or {}).get(OFFLINE_MODEL) or {}
    return (max(0, int(row.get("model_calls") or 0) - int(offline.get("calls") or 0)),
            max(0, int(row.get("tokens") or 0) - int(offline.get("tokens") or 0)))


def _offline_only(row: dict) -> bool:
    """True when every call ``row`` counts was the offline model's (at least one)."""
    offline = (row.get("models") or {}).get(OFFLINE_MODEL) or {}
    return int(offline.get("calls") or 0) > 0 and _model_use(row)[0] == 0


def _duration(seconds: float) -> str:
    minutes, secs = divmod(int(round(seconds)), 60)
    return f"{minutes}m{secs:02d}s" if minutes else f"{secs}s"


def print_audit(records: list[dict], *, as_json: bool = False, console: Console | None = None,
                filters: str = "") -> None:
    """Print ``records`` (rows of :func:`jobs.audit_rows.researches`: one a research, its attempts
    combined): one JSON object per line with ``as_json``, else a rich table (a block of ``field:
    value`` lines a record when the terminal is narrower than :data:`WIDE` columns; a status says
    how many attempts a research took when more than one, and whether it started before the
    window of ``--since``) with a total line (researches, language-model calls, tokens, and how
    many researches the offline model alone answered: their calls and tokens show as
    :data:`OFFLINE`) on stdout; without records, one line naming ``filters`` (" of requester U1",
    " in the last 7 days": the options that chose none). No line ends in spaces."""
    if as_json:
        for record in records:
            sys.stdout.write(json.dumps(record, ensure_ascii=False) + "\n")
        return
    console = console or Console()
    if not records:
        console.print(f"No audit records{filters}.", markup=False, highlight=False)
        return
    if console.width < WIDE:
        _print_blocks(records, console)
    else:
        _print_table(records, console)
    calls = sum(_model_use(r)[0] for r in records)
    tokens = sum(_model_use(r)[1] for r in records)
    offline = sum(1 for r in records if _offline_only(r))
    console.print(f"{len(records)} research(es), {calls:,} model call(s), {tokens:,} token(s)"
                  + (f"; {offline} offline (no language model)" if offline else ""))


def _print_trimmed(renderable: RenderableType, console: Console) -> None:
    """Print ``renderable`` line by line without the spaces that pad each line's last cell."""
    for line in console.render_lines(renderable, pad=False):
        while line and not line[-1].control and not line[-1].text.rstrip():
            line.pop()
        if line and not line[-1].control:
            last = line[-1]
            line[-1] = Segment(last.text.rstrip(), last.style)
        console.print(Segments([*line, Segment.line()]), end="", soft_wrap=True)


def _print_blocks(records: list[dict], console: Console) -> None:
    """One block a record, one ``field: value`` line a column (long values wrap under their value)."""
    for record in records:
        grid = Table.grid(padding=(0, 1))
        grid.add_column(style="bold", no_wrap=True)
        grid.add_column(overflow="fold")
        for header, show in _COLUMNS:
            value = show(record)
            if value or header in ("status", "question"):
                grid.add_row(header, value)
        _print_trimmed(grid, console)
        console.print()


def _print_table(records: list[dict], console: Console) -> None:
    table = Table(show_lines=False, expand=False)
    for header, _show in _COLUMNS:
        table.add_column(header, overflow="fold", max_width=48 if header in ("question", "error") else None)
    for record in records:
        table.add_row(*(show(record) for _header, show in _COLUMNS))
    _print_trimmed(table, console)
