"""The offline model's review outcome counts the sources the final report cites, not the reviewed draft's."""

from __future__ import annotations

from engine.offline_text import critique, finalize

SOURCES = "\n".join(f"[S00000{i}] Source {i}" for i in range(1, 6))
REPORT = ("# Solar power\n\n## Findings\n\n"
          + "\n".join(f"- Finding {i} is supported [S00000{i}]." for i in range(1, 6)) + "\n")


def _review(draft: str, language: str = "en") -> str:
    points = critique(f"<Solution>\n{draft}\n</Solution>\nToday's date is 2026-01-01.", SOURCES, language)
    return f"### Solution 1\n\n{draft}\n\n### Critique 1\n\n{points}\n"


def test_the_draft_count_is_redone_for_the_final_report():
    draft = "Panels work [S000001]. Inverters convert [S000002]. Batteries store [S000003]."
    review = _review(draft)
    assert "cites 3 of 5 available sources" in review  # the draft's count, as the critique saw it
    final = finalize(f"<Research Report>\n{REPORT}\n</Research Report>\n<Review>\n{review}\n</Review>",
                     "en", "Offline notice.")
    outcome = final.split("## Review outcome", 1)[1]
    assert "3 of 5" not in outcome and "the rest are unused" not in outcome
    assert "The report cites all 5 available sources." in outcome


def test_a_report_citing_fewer_sources_says_how_many():
    draft = "Panels work [S000001]. Inverters convert [S000002]."
    report = "# Solar power\n\n- Panels work [S000001].\n- Inverters convert [S000002].\n- Batteries [S000004].\n"
    final = finalize(f"<Research Report>\n{report}\n</Research Report>\n<Review>\n{_review(draft, 'de')}\n</Review>",
                     "de", "Hinweis.")
    assert "Die Lösung zitiert 3 von 5 verfügbaren Quellen" in final


def test_the_progress_line_says_the_sources_were_found_not_cited():
    from engine.progress import Progress

    progress = Progress(phase="research")
    progress.apply({"event": "sources_found", "ids": ["S000001", "S000002", "S000003"]})
    assert "3 sources found" in progress.render()
