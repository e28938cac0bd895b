"""Reading an HTML page as the corpus indexer does, for the HTML tests."""

from __future__ import annotations

from pathlib import Path

from engine.search.extract import extract_document


def read_page(tmp_path: Path, html: str) -> tuple[str, str]:
    """``(title, text)`` of a ``page.html`` holding ``html`` (UTF-8), read by :func:`extract_document`."""
    path = tmp_path / "page.html"
    path.write_text(html, encoding="utf-8")
    return extract_document(path, path.stat().st_size)
