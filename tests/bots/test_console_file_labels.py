"""`deepresearch ask --file` in German: the Sources name a file's page, section and rows in German."""

from __future__ import annotations

import json
import re

from tests.bots.console_helpers import ask, report_of
from tests.shared_files import pdf_bytes


def test_a_german_report_names_the_pages_sections_and_rows_of_its_files_in_german(tmp_path):
    (tmp_path / "wp.pdf").write_bytes(
        pdf_bytes(
            ["Eine Waermepumpe kostet in der Anschaffung rund 30000 Euro, eine Gasheizung rund 12000 Euro."],
            "WP",
        )
    )
    (tmp_path / "gas.md").write_text(
        "# Kosten der Gasheizung\n\nEine Gasheizung kostet im Betrieb rund 2000 Euro "
        "im Jahr, eine Wärmepumpe rund 1200 Euro.\n",
        encoding="utf-8",
    )
    (tmp_path / "preise.csv").write_text(
        "Heizung,Kosten\nWärmepumpe,30000 Euro\nGasheizung,12000 Euro\n", encoding="utf-8"
    )
    out = ask(
        tmp_path,
        "--offline",
        "--no-clarify",
        "--file",
        "wp.pdf",
        "--file",
        "gas.md",
        "--file",
        "preise.csv",
        "Was kostet eine Wärmepumpe im Vergleich zu einer Gasheizung?",
    )
    assert out.returncode == 0, out.stderr[-2000:]
    report_md = report_of(tmp_path, out.stdout)
    report = report_md.read_text(encoding="utf-8")
    listed = re.findall(r"^\d+\. (.+)$", report.split("## Quellen", 1)[1], re.MULTILINE)
    # the offline model cites a sentence of each file (a CSV row counts "Wärmepumpe" and "Kosten" as the
    # question's "Wärmepumpe" and "kostet")
    assert set(listed) == {"wp.pdf, Seite 1", "gas.md, Abschnitt: Kosten der Gasheizung", "preise.csv, Zeilen 1–2"}, report
    assert not re.search(r", (page \d|section: |rows \d)", report), report
    sources = json.loads((report_md.parent / "sources.json").read_text(encoding="utf-8"))
    assert "wp.pdf, Seite 1" in {s["title"] for s in sources["cited"]}, sources
    review = (report_md.parent / "review.md").read_text(encoding="utf-8")
    assert not re.search(r", (page \d|section: |rows \d)", review), review
