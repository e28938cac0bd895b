"""The Word document's properties (File > Info): when it was created and last modified."""

from __future__ import annotations

from datetime import UTC, datetime

import docx
import pytest

from engine.render.docx import render_docx
from tests.engine.render.test_latex import make_doc


def test_the_document_is_dated_by_its_report_and_the_same_report_gives_the_same_file(tmp_path):
    """pandoc's sandbox (no clock) dated every report.docx 1970-01-01."""
    first = render_docx(make_doc(date="2024-05-01"), tmp_path / "a.docx")
    properties = docx.Document(str(first)).core_properties
    assert properties.created == properties.modified == datetime(2024, 5, 1, tzinfo=UTC)
    again = render_docx(make_doc(date="2024-05-01"), tmp_path / "b.docx")
    assert again.read_bytes() == first.read_bytes()
    later = render_docx(make_doc(date="2025-02-28"), tmp_path / "c.docx")
    assert docx.Document(str(later)).core_properties.created == datetime(2025, 2, 28, tzinfo=UTC)


@pytest.mark.parametrize("written, day", [("2020-01-01 (revised)", "2020-01-01"), ("1 March 2021 (revised)", None)])
def test_a_date_written_in_other_words_still_dates_the_document(tmp_path, written, day):
    """report.md's date as written (``1 March 2021 (revised)``) is the text's; the properties take the
    ISO date it starts with, else today's (as before such a date was kept), never pandoc's 1970-01-01."""
    properties = docx.Document(str(render_docx(make_doc(date=written), tmp_path / "a.docx"))).core_properties
    today = datetime.now(UTC).date().isoformat()
    assert properties.created == properties.modified == datetime.fromisoformat(day or today).replace(tzinfo=UTC)
