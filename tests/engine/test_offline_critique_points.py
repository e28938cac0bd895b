"""The offline final report's review outcome: which points of the last critique it keeps."""

from __future__ import annotations

import pytest

from engine import offline_synthesis as S
from engine.offline_phrases import PHRASES, phrase


@pytest.mark.parametrize("language", sorted(PHRASES["nothing_to_check"]))
def test_only_the_critiques_points_counting_the_solutions_sources_are_left_out_of_its_outcome(language):
    # the outcome counts the sources itself; every other point of the last critique stays, in each language,
    # also that the solution rests on one source: an objection while the report cites one too
    assert not S._is_sources_count_point(phrase("nothing_to_check", language), language)
    for key in ("unused_sources", "all_sources_used"):
        for count in (1, 3):
            point = phrase(key, language, count, n=str(count), m=str(count + 2), titles="“Heat pumps”")
            assert S._is_sources_count_point(point, language), point
    assert not S._is_sources_count_point(phrase("one_source", language), language)
