"""The offline model's review outcome counts the sources the final report cites of those the research found."""

from __future__ import annotations

from engine.offline_review import critique
from engine.offline_synthesis import finalize
from engine.prompt_sources import found_sources_block

REGISTRY = {f"S00000{i}": {"title": f"Source {i}", "url": f"https://example.org/{i}"} for i in range(1, 7)}
REPORT = ("# Solar power\n\n## Findings\n\n"
          + "\n".join(f"- Finding {i} is supported by a measurement [S00000{i}]." for i in range(1, 6)) + "\n")


def _review(draft: str, language: str = "en") -> str:
    sources = found_sources_block(REGISTRY, [REPORT])
    points = critique(f"Question: solar power\n<Solution>\n{draft}\n</Solution>", sources, "", language)
    return f"### Solution 1\n\n{draft}\n\n### Critique 1\n\n{points}\n"


def _final(report: str, review: str, language: str = "en", notice: str = "Offline notice.") -> str:
    sources = found_sources_block(REGISTRY, [report, review])
    return finalize(f"<Research Report>\n{report}\n</Research Report>\n<Review>\n{review}\n</Review>\n"
                    f"<Sources>\n{sources}\n</Sources>", language, notice)


def test_the_critique_counts_the_sources_found_and_names_the_unused():
    review = _review("- Panels work [S000001].\n- Inverters convert [S000002].\n- Batteries store [S000003].")
    assert "The solution cites 3 of the 6 sources found; not used: “Source 4”, “Source 5”, “Source 6”." in review


def test_the_outcome_counts_the_final_report_not_the_draft():
    review = _review("- Panels work [S000001].\n- Inverters convert [S000002].\n- Batteries store [S000003].")
    outcome = _final(REPORT, review).split("## Review outcome", 1)[1]
    assert "The report cites 5 of the 6 sources found; not cited: “Source 6”." in outcome
    assert "3 of the 6" not in outcome and "available" not in outcome


def test_a_report_citing_every_source_found_says_so_in_its_language():
    report = REPORT + "- Finding 6 [S000006].\n"
    final = _final(report, _review("- Panels [S000001].\n- Inverters [S000002].", "de"), "de", "Hinweis.")
    assert "Der Bericht zitiert alle 6 gefundenen Quellen." in final


def test_the_progress_line_says_the_sources_were_found_not_cited():
    from engine.progress import Progress

    progress = Progress(phase="research")
    progress.apply({"event": "sources_found", "ids": ["S000001", "S000002", "S000003"]})
    assert "3 sources found" in progress.render()
    one = Progress(phase="research")
    one.apply({"event": "sources_found", "ids": ["S000001"]})
    one.apply({"event": "error", "message": "search failed"})
    assert "· 1 source found ·" in one.render() and "\n1 problem: search failed" in one.render()
