"""A shared file's page, section, rows and table, as a citation names them, in the report's language."""

from __future__ import annotations

import pytest

from engine.citations import Cited, id_legend
from engine.file_labels import label_text, source_title
from engine.phrases import WORDS

#: (language, page 3, section: Kosten, rows 1-2, table 2, "wp.pdf, page 3")
LABELS = [
    ("en", "page 3", "section: Kosten", "rows 1-2", "table 2", "wp.pdf, page 3"),
    ("de", "Seite 3", "Abschnitt: Kosten", "Zeilen 1–2", "Tabelle 2", "wp.pdf, Seite 3"),
    ("fr", "page 3", "section\u00a0: Kosten", "lignes 1-2", "tableau 2", "wp.pdf, page 3"),
    ("es", "página 3", "sección: Kosten", "filas 1-2", "tabla 2", "wp.pdf, página 3"),
    ("it", "pagina 3", "sezione: Kosten", "righe 1-2", "tabella 2", "wp.pdf, pagina 3"),
    ("nl", "pagina 3", "sectie: Kosten", "rijen 1-2", "tabel 2", "wp.pdf, pagina 3"),
    ("pt", "página 3", "seção: Kosten", "linhas 1-2", "tabela 2", "wp.pdf, página 3"),
    ("sv", "sida 3", "avsnitt: Kosten", "rader 1–2", "tabell 2", "wp.pdf, sida 3"),
    ("zh", "第 3 页", "章节：Kosten", "第 1–2 行", "表 2", "wp.pdf，第 3 页"),
    ("ja", "3ページ", "セクション：Kosten", "1～2行目", "表2", "wp.pdf、3ページ"),
]


@pytest.mark.parametrize(("language", "page", "section", "rows", "table", "title"), LABELS)
def test_a_stored_label_reads_in_each_language(language, page, section, rows, table, title):
    assert label_text("page 3", language) == page
    assert label_text("section: Kosten", language) == section
    assert label_text("rows 1-2", language) == rows
    assert label_text("table 2", language) == table
    assert source_title("wp.pdf, page 3", "local-file:0123456789abcdef/wp.pdf#page=3", language) == title


def test_every_catalogue_language_has_the_labels():
    for key in ("file_page", "file_section", "file_rows", "file_table", "file_part", "file_beginning"):
        assert set(WORDS.catalogue[key]) == set(WORDS.catalogue["list_separator"]), key


def test_a_page_number_is_never_grouped_and_a_heading_keeps_its_words():
    assert label_text("page 1234", "de") == "Seite 1234"
    assert label_text("rows 1001-1200", "de") == "Zeilen 1001–1200"
    assert label_text("section: Preise, page 2: rows 1-2", "de") == "Abschnitt: Preise, page 2: rows 1-2"
    assert label_text("", "de") == "" and label_text("Kapitel 1", "de") == "Kapitel 1"


def test_a_section_title_is_rendered_by_its_key_and_other_titles_are_kept():
    key = "local-file:0123456789abcdef/gas.md#section=2"
    assert source_title("gas.md, section: Kosten, laufend", key, "de") == "gas.md, Abschnitt: Kosten, laufend"
    assert (
        source_title("preise.csv, rows 1-2", "local-file:ab/preise.csv#section=1", "de")
        == "preise.csv, Zeilen 1–2"
    )
    assert (
        source_title("a, b.docx, table 1", "https://x.slack.com/files/U1/F1/a.docx#section=4", "fr")
        == "a, b.docx, tableau 1"
    )
    # a web page's title, a file read whole (no label), a page that is not the key's page: as stored
    assert source_title("Heat pumps, page 2", "https://example.org/heat", "de") == "Heat pumps, page 2"
    assert source_title("notes.txt", "local-file:ab/notes.txt#section=1", "de") == "notes.txt"
    assert source_title("wp.pdf, page 2", "local-file:ab/wp.pdf#page=3", "de") == "wp.pdf, page 2"
    assert source_title("wp.pdf, page 2", "local-file:ab/wp.pdf#page=2", "en") == "wp.pdf, page 2"


def test_the_review_legend_names_a_file_page_in_the_report_language():
    registry = {"S0a1b2c": {"url": "local-file:0123456789abcdef/wp.pdf#page=1", "title": "wp.pdf, page 1"}}
    legend = id_legend(["Laut [S0a1b2c] kostet sie mehr."], registry, {"S0a1b2c": 1}, "de")
    assert legend and "wp.pdf, Seite 1" in legend[0] and "page 1" not in legend[0], legend


def test_the_artifacts_name_a_file_page_in_the_report_language(tmp_path, monkeypatch):
    import engine.render.outputs as outputs
    from engine.artifacts import sources_record, write_artifacts
    from engine.settings import Settings

    registry = {
        "S0a1b2c": {"url": "local-file:0123456789abcdef/wp.pdf#page=1", "title": "wp.pdf, page 1"},
        "S0d1e2f": {
            "url": "local-file:0123456789abcdef/preise.csv#section=1",
            "title": "preise.csv, rows 1-2",
        },
    }
    cited = [Cited(number=1, id="S0a1b2c", url=registry["S0a1b2c"]["url"], title="wp.pdf, page 1")]
    state = {
        "language": "de",
        "question": "Was kostet eine Wärmepumpe?",
        "title": "Wärmepumpe",
        "final_report": "# Wärmepumpe\n\nSie kostet mehr [1].\n",
        "executive_summary": "Mehr [1].",
        "sources": registry,
    }
    record = sources_record(state, cited)
    assert record["cited"][0]["title"] == "wp.pdf, Seite 1", record
    assert {s["title"] for s in record["found"]} == {"wp.pdf, Seite 1", "preise.csv, Zeilen 1–2"}, record
    rendered = []
    monkeypatch.setattr(outputs, "render_outputs", lambda doc, directory, **kw: rendered.append(doc) or {})
    write_artifacts(state, cited, tmp_path / "run", Settings(data_dir=tmp_path / "data"), "2026-12-07")
    report = (tmp_path / "run" / "report.md").read_text(encoding="utf-8")
    assert "1. wp.pdf, Seite 1" in report and "page 1" not in report, report
    assert [s.title for s in rendered[0].sources] == ["wp.pdf, Seite 1"]  # the PDF's and the Word file's list


def test_a_title_quoted_without_its_key_reads_by_its_form():
    assert source_title("preise.csv, rows 1-2", None, "de") == "preise.csv, Zeilen 1–2"
    assert source_title("wp.pdf, page 4", None, "it") == "wp.pdf, pagina 4"
    assert source_title("Heizkosten im Vergleich", None, "de") == "Heizkosten im Vergleich"


def test_the_text_before_a_file_s_first_heading_is_its_beginning_in_each_language():
    assert label_text("beginning", "de") == "Anfang" and label_text("beginning", "ja") == "冒頭"
    assert source_title("notes.md, beginning", "local-file:ab/notes.md#section=1", "fr") == "notes.md, début"
    assert source_title("beginning", "local-file:ab/notes.md#section=1", "de") == "beginning"  # no file name
