"""French phrases with no-break spaces before ":", ";", "?" (and inside « »), and the files that
earlier versions wrote with ordinary spaces there: both are read as the bot's own phrases. Each
language's field labels are written with its own colon (French "\u00a0:", Chinese and Japanese "：")."""

from __future__ import annotations

import re

import pytest

from engine.artifacts import front_matter, split_notice
from engine.offline_phrases import phrase
from engine.render import ReportDocument
from engine.render.latex import render_latex
from engine.render.reread import document_from_markdown, report_language, review_state_from_markdown
from engine.text import any_space_pattern, ordinary_spaces

OLD_NOTICE = ("Ce rapport a été produit en mode extractif hors ligne, sans modèle de langage : il cite des "
              "phrases des sources, classées selon la question, sans les interpréter.")


def test_the_french_phrases_have_no_break_spaces_where_earlier_versions_had_ordinary_ones():
    assert phrase("offline_notice", "fr") != OLD_NOTICE
    assert ordinary_spaces(phrase("offline_notice", "fr")) == OLD_NOTICE
    assert "de\u00a0: Q" in phrase("review_of", "fr", q="Q")


@pytest.mark.parametrize("notice", [OLD_NOTICE, phrase("offline_notice", "fr")], ids=["earlier", "now"])
def test_the_offline_notice_is_found_with_either_space(notice):
    body, found = split_notice(f"# Pompes\n\n*{notice}*\n\nLes pompes chauffent.\n")
    assert found == notice
    assert body == "# Pompes\n\nLes pompes chauffent.\n"
    assert report_language({}, found, "The pumps heat.") == "fr"


@pytest.mark.parametrize("title", ["# Relecture de : Pompes ?", "# " + phrase("review_of", "fr", q="Pompes\u202f?")],
                         ids=["earlier", "now"])
def test_a_french_review_title_is_read_with_either_space(title):
    state = review_state_from_markdown(f"{title}\n\n## {phrase('review_round', 'fr', n='1')}\n\n"
                                       f"### {phrase('role_solution', 'fr')}\n\nUne solution.\n")
    assert state["language"] == "fr"
    assert ordinary_spaces(state["question"]) == "Pompes ?"
    assert state["solutions"] == ["Une solution."]


@pytest.mark.parametrize(("pattern_of", "text", "matches"), [
    ("a : b", "a : b", True), ("a : b", "a\u00a0: b", True), ("a\u202f? b", "a ? b", True),
    ("a : b", "a  : b", False), ("a.b", "axb", False), ("(a) : [b]", "(a)\u00a0: [b]", True)])
def test_any_space_pattern_matches_the_text_with_either_space_and_nothing_else(pattern_of, text, matches):
    assert bool(re.fullmatch(any_space_pattern(pattern_of), text)) is matches


def test_a_french_report_writes_its_field_labels_with_a_no_break_space_before_the_colon():
    head = front_matter("Pompes ?", "2026-01-02", "fr", ["Où ? — En France"])
    assert head[::2] == ["**Date\u00a0:** 2026-01-02", "**Question\u00a0:** Pompes ?", "**Précision\u00a0:** Où ? — En France"]
    assert front_matter("Pumps?", "2026-01-02", "en")[::2] == ["**Date:** 2026-01-02", "**Question:** Pumps?"]
    doc = document_from_markdown("# Pompes\n\n" + "\n".join(head) + "\n## Résultats\n\nCorps.\n", language="fr")
    assert (doc.date, doc.question, doc.body) == ("2026-01-02", "Pompes ?", "## Résultats\n\nCorps.")
    assert "\\textbf{Date~:}" in render_latex(doc)


@pytest.mark.parametrize(("language", "label"), [("fr", "\\textbf{Date~:}"), ("en", "\\textbf{Date:}")])
def test_a_label_report_md_does_not_write_takes_its_languages_colon(language, label):
    doc = ReportDocument(title="T", question="Q", date="2026-01-02", executive_summary="", body="Corps.", language=language)
    assert label in render_latex(doc)


def test_a_label_written_without_a_space_before_its_colon_keeps_it_so():
    doc = document_from_markdown("# Pompes\n\n**Date:** 2026-01-02\n\nCorps.\n", language="fr")
    assert "\\textbf{Date:}" in render_latex(doc)


def _cjk_unwrapped(tex: str) -> str:
    """``tex`` with each run of text set in a fallback font (CJK) unwrapped: its text alone."""
    return re.sub(r"\\drbfallback[A-Z]+\{([^{}]*)\}", r"\1", tex)


@pytest.mark.parametrize(("language", "labels"), [("zh", ("日期", "问题", "澄清")), ("zh-Hant", ("日期", "問題", "澄清")),
                                                  ("ja", ("日付", "質問", "確認事項"))])
def test_a_chinese_or_japanese_report_writes_its_field_labels_with_a_full_width_colon(language, labels):
    """Chinese and Japanese write a full-width colon after a label, with no space (``**日期：**``);
    report.md wrote ``**日期:**``. Traditional Chinese's labels are the Chinese ones in OpenCC's
    characters, the colon as it is."""
    from engine.render.latex import labels_for

    assert labels_for(language)["colon"] == "："
    head = front_matter("水泵？", "2026-01-02", language, ["哪种？ — 空气源"])
    date, question, clarification = labels
    assert head[::2] == [f"**{date}：** 2026-01-02", f"**{question}：** 水泵？", f"**{clarification}：** 哪种？ — 空气源"]
    doc = document_from_markdown("# 水泵\n\n" + "\n".join(head) + "\n## 结果\n\n正文。\n", language=language)
    assert (doc.date, doc.question, doc.clarification, doc.body) == ("2026-01-02", "水泵？", "哪种？ — 空气源",
                                                                     "## 结果\n\n正文。")
    assert f"\\textbf{{{date}：}} 2026-01-02" in _cjk_unwrapped(render_latex(doc))


@pytest.mark.parametrize(("language", "label"), [("zh", "日期"), ("zh-Hant", "日期"), ("ja", "日付")])
def test_a_chinese_or_japanese_label_report_md_does_not_write_takes_the_full_width_colon(language, label):
    doc = ReportDocument(title="T", question="Q", date="2026-01-02", executive_summary="", body="正文。", language=language)
    assert f"\\textbf{{{label}：}}" in _cjk_unwrapped(render_latex(doc))


@pytest.mark.parametrize("space", ["\u202f", " "], ids=["no-break", "ordinary"])
def test_a_french_report_that_says_no_source_is_cited_is_not_told_so_again_under_sources(space):
    """The summary took the report's first statement on one line with str.split, which turned the
    phrase's "trouvées\u202f; aucune" into an ordinary space; the Sources section then no longer found
    the note above it and said it a second time."""
    from engine.artifacts import _no_sources_note
    from engine.offline_text import _short, first_statement

    said = phrase("no_passages", "fr", 10, n="10")
    assert first_statement(f"# Pompes\n\n{said}\n") == said
    assert _short(said, 1500) == said  # the executive summary, as the offline model writes it
    above = f"# Pompes\n\n{said.replace(chr(0x202f), space)}\n"
    assert _no_sources_note(10, "fr", above) == phrase("none_cited_short", "fr")
