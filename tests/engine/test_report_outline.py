"""The outline of report.md and review.md: a model's own headings stay below the headings the bot writes around them."""

from __future__ import annotations

import asyncio

from markdown_it import MarkdownIt

from engine.artifacts import review_markdown, review_rounds
from engine.offline_phrases import phrase
from engine.render.reread import document_from_markdown, review_from_markdown, review_state_from_markdown
from engine.runner import run_turn

#: A solution as a model may write one: a title, sections, a sub-section, a setext heading, a line that
#: reads like the bot's own role heading, one in a code block.
SOLUTION = ("# My answer\n\n## Recommendation\n\nBuy one [Sabc123].\n\n### Costs\n\nLow.\n\n"
            "## Changes\n\n- Answered the critique.\n\n```\n### Critique\n## Round 3\n```")
CRITIQUE = "## Critique\n\n1. Thin evidence [Sabc123].\n\n## Round 2\n\n1. Another point."
PERSPECTIVE = "Regulator\n=========\n\n- Who pays?\n\n### Perspective\n\n- Noise."
STATE = {
    "question": "How do heat pumps work?", "language": "en",
    "solutions": [SOLUTION, "## Changes\n\n- Kept only cited claims.\n\n## Recommendation\n\nStill buy one."],
    "critiques": [CRITIQUE, "1. Still thin."],
    "perspectives": [PERSPECTIVE, "- User: noise at night."],
    "sources": {"Sabc123": {"title": "EHPA", "url": "https://example.org/ehpa.pdf"}},
    "numbering": {"Sabc123": 1},
}


def outline(markdown: str) -> list[tuple[int, str]]:
    """``(level, text)`` of every heading a CommonMark reader sees, in order."""
    tokens = MarkdownIt("commonmark").parse(markdown)
    return [(int(t.tag[1]), tokens[i + 1].content) for i, t in enumerate(tokens) if t.type == "heading_open"]


def test_review_md_keeps_a_roles_headings_below_the_role():
    review = review_markdown(STATE)
    ours = [(level, text) for level, text in outline(review) if level <= 3]
    roles = [(3, "Solution"), (3, "Critique"), (3, "Perspective")]
    assert ours == [(1, "Review of: How do heat pumps work?"), (2, "Round 1"), *roles, (2, "Round 2"), *roles,
                    (2, "Sources the review cites")], review
    theirs = [(level, text) for level, text in outline(review) if level > 3]
    assert theirs[:6] == [(4, "My answer"), (5, "Recommendation"), (6, "Costs"), (5, "Changes"),
                          (5, "Critique"), (5, "Round 2")], review  # each one level apart as written
    assert (4, "Regulator") in theirs and (6, "Perspective") in theirs


def test_review_md_reads_back_every_role_exactly():
    state = review_state_from_markdown(review_markdown(STATE))
    assert state["question"] == STATE["question"] and state["language"] == "en"
    assert state["solutions"] == STATE["solutions"] and state["critiques"] == STATE["critiques"]
    # the setext heading is read back as the same heading, written the other way
    assert state["perspectives"] == ["# Regulator\n\n- Who pays?\n\n### Perspective\n\n- Noise.", "- User: noise at night."]
    assert state["numbering"] == {"Sabc123": 1}
    question, rounds = review_from_markdown(review_markdown(STATE))
    assert question == STATE["question"] and rounds == review_rounds({**STATE, "perspectives": state["perspectives"]})
    assert rounds[1].what_changed == rounds[0].answers == "- Kept only cited claims."  # the solution's own section


def test_an_executive_summary_with_headings_stays_in_its_section(tmp_path, offline_settings):
    from engine.artifacts import write_artifacts

    summary = "# Gist\n\nCheap.\n\n## Caveat\n\nNoisy."
    state = {"question": "Q?", "title": "T", "language": "en", "executive_summary": summary,
             "final_report": "# T\n\n## Findings\n\nBody.\n"}
    paths = write_artifacts(state, [], tmp_path / "run", offline_settings(), "2026-01-02")
    report = (tmp_path / "run" / "report.md").read_text(encoding="utf-8")
    assert outline(report) == [(1, "T"), (2, phrase("executive_summary", "en")), (3, "Gist"), (4, "Caveat"),
                               (2, "Findings"), (2, "Sources")], report
    doc = document_from_markdown(report)
    assert doc.executive_summary == "### Gist\n\nCheap.\n\n#### Caveat\n\nNoisy." and doc.body == "## Findings\n\nBody."
    assert paths["report_md"]


def test_a_run_writes_every_models_heading_below_the_bots(online_settings, script):
    """A solution with ``##`` sections, a synthesis with ``#`` sections and a summary with a heading:
    report.md has one level-1 heading (its title) and review.md none of the roles' above theirs."""
    script.solution = "## Recommendation\n\nBuy one {S1}.\n\n### Why\n\nCheap."
    script.synthesis = "# Final synthesis\n\n# Answer\n\nIt works {S1}.\n\n## Detail\n\nMore {S2}.\n"
    script.summary = "## In short\n\nThe gist {S1}."
    settings = online_settings(max_review_iterations=1)
    done = asyncio.run(run_turn("t:outline", question="How do air source heat pumps work in winter?", settings=settings))
    report = done.artifacts.report_md.read_text(encoding="utf-8")
    assert outline(report) == [(1, "Scripted title"), (2, "Executive summary"), (3, "In short"), (2, "Answer"),
                               (3, "Detail"), (2, "Sources")], report
    review = (done.artifacts.report_md.parent / "review.md").read_text(encoding="utf-8")
    assert [h for h in outline(review) if h[1] in ("Recommendation", "Why")] == [(5, "Recommendation"), (6, "Why")]
    assert review_state_from_markdown(review)["solutions"][0].startswith("## Recommendation\n\nBuy one ")


def test_the_appendix_of_the_pdf_and_the_word_document_keeps_a_roles_headings_below_its_own(tmp_path):
    """A critique without a list is shown whole in the appendix: its ``#`` and ``###`` come under the
    round (level 2) and the field's label (level 3), one level apart as the critic wrote them."""
    import panflute as pf

    from engine.render.docx import docx_document
    from engine.render.latex import render_latex
    from engine.render.reread import read_report

    state = {**STATE, "critiques": ["# Verdict\n\nThin evidence.\n\n### Detail\n\nMore.", "1. Still thin."]}
    (tmp_path / "report.md").write_text("# Heat pumps\n\n## Findings\n\nBody.\n", encoding="utf-8")
    (tmp_path / "review.md").write_text(review_markdown(state), encoding="utf-8")
    doc = read_report(tmp_path / "report.md")
    assert doc.review[0].critiques == state["critiques"][0]
    headers = [(h.level, pf.stringify(h)) for h in docx_document(doc).content if isinstance(h, pf.Header)]
    appendix = headers[[text for _, text in headers].index("Appendix: review"):]
    assert appendix[:4] == [(1, "Appendix: review"), (2, "Round 1"), (3, "What changed"), (3, "Main critiques")]
    assert appendix[4:6] == [(4, "Verdict"), (6, "Detail")], appendix
    tex = render_latex(doc)
    critiques = tex[tex.index("\\subsubsection{Main critiques}"):tex.index("\\subsubsection{How they were answered}")]
    assert "\\paragraph{Verdict}" in critiques and "section{Detail}" not in critiques  # LaTeX sets level 6 as text
