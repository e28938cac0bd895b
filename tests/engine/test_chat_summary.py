"""The chat summary's closing line (sources cited, failed topics, offline mode) is in the question's language."""

from __future__ import annotations

import pytest

from engine.graph.run import summary_markdown
from engine.offline_phrases import LANGUAGES


def _values(language: str, cited: int, failed: int) -> dict:
    return {"title": "T", "executive_summary": "S [1].", "language": language,
            "cited": [{"number": n, "url": f"https://example.com/{n}"} for n in range(1, cited + 1)],
            "research_errors": ["search failed"] * failed}


@pytest.mark.parametrize(("language", "expected"), [
    ("en", "_2 sources cited · 1 research topic failed · made in offline extractive mode, without a language model_"),
    ("de", "_2 Quellen zitiert · 1 Recherchethema fehlgeschlagen · im Offline-Extraktionsmodus ohne Sprachmodell erstellt_"),
    ("fr", "_2 sources citées · 1 thème de recherche en échec · produit en mode extractif hors ligne, sans modèle de langage_"),
    ("ja", "_引用した出典：2件 · 失敗した調査トピック：1件 · 言語モデルを使わないオフライン抽出モードで作成_"),
])
def test_the_closing_line_is_in_the_questions_language(language, expected):
    assert summary_markdown(_values(language, 2, 1), offline=True).splitlines()[-1] == expected


@pytest.mark.parametrize("language", LANGUAGES)
def test_one_and_none_read_right_in_every_language(language):
    one = summary_markdown(_values(language, 1, 0)).splitlines()[-1]
    none = summary_markdown(_values(language, 0, 2)).splitlines()[-1]
    assert one != none and "{" not in one + none and "offline" not in one.lower()
    if language == "en":
        assert one == "_1 source cited_" and none == "_0 sources cited · 2 research topics failed_"


def test_a_language_outside_the_table_is_english():
    assert summary_markdown(_values("ko", 3, 0)).splitlines()[-1] == "_3 sources cited_"
