"""`deepresearch audit`'s output: one row per research (:func:`jobs.audit_rows.researches`) as a table or as JSON lines."""

from __future__ import annotations

import json
import sys

from rich.console import Console
from rich.table import Table

#: Columns of the table: (header, how to show a record's value).
_COLUMNS = (
    ("when (UTC)", lambda r: str(r.get("at", ""))[:16].replace("T", " ")),
    ("where", lambda r: ":".join(p for p in (r.get("platform"), r.get("workspace"), r.get("channel")) if p)),
    ("requester", lambda r: str(r.get("requester") or "")),
    ("question", lambda r: str(r.get("question") or "")),
    ("clarified", lambda r: "yes" if r.get("clarification") else ""),
    ("status", lambda r: _status(r)),
    ("time", lambda r: _duration(float(r.get("duration_seconds") or 0))),
    ("calls", lambda r: str(r.get("model_calls", 0))),
    ("tokens", lambda r: f"{int(r.get('tokens') or 0):,}"),
    ("sources", lambda r: str(r.get("sources", 0))),
    ("files", lambda r: ", ".join(r.get("files") or [])),
    ("error", lambda r: str(r.get("error") or "")),
)


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


def _duration(seconds: float) -> str:
    minutes, secs = divmod(int(round(seconds)), 60)
    return f"{minutes}m{secs:02d}s" if minutes else f"{secs}s"


def print_audit(records: list[dict], *, as_json: bool = False, console: Console | None = None) -> None:
    """Print ``records`` (rows of :func:`jobs.audit_rows.researches`: one a research, its attempts
    combined): one JSON object per line with ``as_json``, else a rich table (a block of ``field:
    value`` lines a record when the terminal is narrower than :data:`WIDE` columns; a status says
    how many attempts a research took when more than one, and whether it started before the
    window of ``--since``) with a total line (researches, model
    calls, tokens) on stdout."""
    if as_json:
        for record in records:
            sys.stdout.write(json.dumps(record, ensure_ascii=False) + "\n")
        return
    console = console or Console()
    if not records:
        console.print("No audit records.")
        return
    if console.width < WIDE:
        _print_blocks(records, console)
    else:
        _print_table(records, console)
    tokens = sum(int(r.get("tokens") or 0) for r in records)
    calls = sum(int(r.get("model_calls") or 0) for r in records)
    console.print(f"{len(records)} research(es), {calls:,} model call(s), {tokens:,} token(s)")


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
        console.print(grid)
        console.print()


def _print_table(records: list[dict], console: Console) -> None:
    table = Table(show_lines=False, expand=False)
    for header, _show in _COLUMNS:
        table.add_column(header, overflow="fold", max_width=48 if header in ("question", "error") else None)
    for record in records:
        table.add_row(*(show(record) for _header, show in _COLUMNS))
    console.print(table)
