"""The progress line counts as each language counts: CLDR's plural categories, the same rule as the
rest of the engine's texts (:func:`engine.phrases.plural`)."""

from __future__ import annotations

import pytest

from engine.progress import Progress


@pytest.mark.parametrize(("language", "sources", "problems", "expected_sources", "expected_problems"), [
    ("en", 0, 2, "0 sources found", "2 problems: disk"),
    ("en", 1, 1, "1 source found", "1 problem: disk"),
    ("fr", 0, 1, "0 source trouvée", "1 problème\u00a0: disk"),  # French: 0 and 1 are singular (CLDR i = 0,1)
    ("fr", 1, 1, "1 source trouvée", "1 problème\u00a0: disk"),
    ("fr", 2, 2, "2 sources trouvées", "2 problèmes\u00a0: disk"),
    ("de", 0, 2, "0 Quellen gefunden", "2 Probleme: disk"),
    ("it", 0, 1, "0 fonti trovate", "1 problema: disk"),
    ("it", 1, 2, "1 fonte trovata", "2 problemi: disk"),
    ("nl", 0, 1, "0 bronnen gevonden", "1 probleem: disk"),
    ("nl", 1, 2, "1 bron gevonden", "2 problemen: disk"),
    ("pt", 0, 1, "0 fonte encontrada", "1 problema: disk"),  # Portuguese: 0 and 1 are singular (CLDR i = 0..1)
    ("pt", 2, 2, "2 fontes encontradas", "2 problemas: disk"),
    ("sv", 0, 1, "0 källor hittade", "1 fel: disk"),
    ("sv", 1, 2, "1 källa hittad", "2 fel: disk"),
])
def test_sources_and_problems_take_the_languages_plural(language, sources, problems, expected_sources,
                                                         expected_problems):
    progress = Progress(phase="research", topics_started=1, sources_found=sources, errors=["disk"] * problems)
    first, second = progress.render(elapsed=5, language=language).split("\n")
    assert expected_sources in first.split(" · "), first
    assert second == expected_problems
