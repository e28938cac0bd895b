"""A real model's own Sources list, through langchain-openai on the fake servers: report.md, the PDF
and the Word document show one Sources section, the generated one, numbered by the body's citations."""

from __future__ import annotations

import asyncio
import json
import re

import pytest

from engine.headings import top_headings
from engine.runner import run_turn
from tests.fakes.scripted_research import _tag, ids_in

#: The body cites the second source, then the first; the model's list also names the third.
REPORT = (
    "# Heat pumps\n\n## Findings\n\nHeat pumps are common {S2}. They save energy {S1}.\n\n"
    "## Outlook\n\nPrices fall {S2}.\n\n{heading}\n\n- {S1} Alpha — https://invented.example/a\n"
    "- {S2} Beta\n- {S3} Gamma, the one source the body never cites\n"
)
SOURCE_WORDS = ("sources", "references", "quellen", "bibliography", "références")


def _captured_documents(monkeypatch) -> list:
    """The ReportDocuments the PDF and the Word document are built from, as the run passes them."""
    import engine.render.outputs as outputs

    seen, build = [], outputs.render_outputs

    def capture(doc, directory, **kwargs):
        seen.append(doc)
        return build(doc, directory, **kwargs)

    monkeypatch.setattr(outputs, "render_outputs", capture)
    return seen


@pytest.mark.parametrize(
    "heading, rounds",
    [
        ("## Sources", 0),
        ("### References", 0),
        ("Quellen\n=======", 0),
        ("## Bibliography", 1),
    ],
)
def test_the_model_list_is_dropped_and_the_generated_one_numbers_the_body(
    online_settings, script, monkeypatch, heading, rounds
):
    script.topics = ["only topic"]
    script.report = REPORT.replace("{heading}", heading)
    script.synthesis = script.report.replace("# Heat pumps", "# Heat pumps, reviewed")
    documents = _captured_documents(monkeypatch)
    settings = online_settings(max_review_iterations=rounds, search_max_results=3)
    out = asyncio.run(
        run_turn(f"t:own-list-{rounds}", question="Are heat pumps worth it?", settings=settings)
    )
    assert out.status == "done"
    ids = ids_in(_tag(script.calls("finalize" if rounds else "final_report")[0], "Sources"))  # {S1}, {S2}...
    found = {s["id"]: s["url"] for s in json.loads(out.artifacts.sources_json.read_text())["found"]}
    report = out.artifacts.report_md.read_text()
    named = [h.text for h in top_headings(report) if any(w in h.text.lower() for w in SOURCE_WORDS)]
    assert named == ["Sources"]  # one Sources section: the generated one, last
    body, _, listed = report.partition("\n## Sources\n")
    assert "Prices fall [1]." in body and "They save energy [2]." in body
    assert "Alpha" not in body and "Gamma" not in report and "invented.example" not in report
    assert re.findall(r"^(\d+)\. \[.*\]\(<(.*)>\)$", listed, re.MULTILINE) == [
        ("1", found[ids[1]]),
        ("2", found[ids[0]]),
    ]
    cited = json.loads(out.artifacts.sources_json.read_text())["cited"]
    assert [(c["number"], c["id"]) for c in cited] == [(1, ids[1]), (2, ids[0])]
    (doc,) = documents
    assert doc.body.rstrip().endswith("Prices fall [1].") and "Gamma" not in doc.body
    assert [(s.number, s.url) for s in doc.sources] == [(1, found[ids[1]]), (2, found[ids[0]])]
    tex = out.artifacts.report_tex.read_text()
    assert tex.count("\\section{Sources}") == 1 and "Gamma" not in tex
    assert "Do not write a list of sources" in script.calls("final_report")[0]
