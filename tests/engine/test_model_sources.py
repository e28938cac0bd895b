"""A Sources list the model wrote at the end of its report is dropped: the report gets one, generated."""

from __future__ import annotations

import pytest

from engine.citations import finalize_citations, source_id
from engine.model_sources import drop_model_sources

URLS = [("https://a.example/1", "Alpha"), ("https://b.example/2", "Beta"), ("https://c.example/3", "Gamma")]
REG = {source_id(u): {"id": source_id(u), "url": u, "title": t} for u, t in URLS}
IDS = list(REG)
A, B, C = (f"[{sid}]" for sid in IDS)
BODY = f"# Heat pumps\n\n## Findings\n\nHeat pumps are common {B}. They save energy {A}.\n"

LISTS = {
    "links": "- [Alpha](https://a.example/1)\n- [Beta](https://b.example/2)\n",
    "bare urls": "* https://a.example/1\n* https://b.example/2\n",
    "ids with titles": f"- {A} Alpha — https://a.example/1\n- {C} Gamma — https://c.example/3\n",
    "bare ids": f"1. {IDS[0]}: Alpha\n2. {IDS[2]}: Gamma\n",
    "numbered refs": "[1] Alpha, https://a.example/1\n[2] Beta, https://b.example/2\n",
    "numbered refs without urls": "[1] Alpha (2024). Heat pump costs.\n[2] Beta (2023). Grants.\n",
    "ordered titles": "1. Alpha: heat pump costs (2024)\n2. Beta: grants in the EU\n",
    "autolinks": "- Alpha <https://a.example/1>\n- Beta <https://b.example/2>\n",
    "reference definitions": '[1]: https://a.example/1\n[2]: https://b.example/2 "Beta"\n',
    "lead-in and nested list": "The sources consulted:\n\n- Web\n  - [Alpha](https://a.example/1)\n"
    "  - [Beta](https://b.example/2)\n",
    "table": "| # | Source |\n|---|---|\n| 1 | [Alpha](https://a.example/1) |\n| 2 | https://b.example/2 |\n",
    "doi": "- Alpha et al. (2020), doi:10.1000/xyz123\n- Beta (2021), https://doi.org/10.1000/abc\n",
    "footnotes": "[^1]: Alpha (2024). Heat pump costs.\n[^2]: Beta (2023). Grants.\n",
}

HEADINGS = [
    "## Sources",
    "### References",
    "# Bibliography",
    "## Quellen",
    "## Références",
    "## Fuentes",
    "## 参考文献",
    "## Works cited",
    "#### Literatur",
    "## Referencias",
    "## Fonti",
    "## 参考資料",
    "## 出典",
    "## 来源",
    "## 來源",
    "## Источники",
    "## Bronnen",
    "## Fontes",
    "## Sources and references",
    "## Quellen und Literatur",
    "## **Sources:**",
    "## 7. References",
    "## References ##",
    "Sources\n-------",
    "Références\n==========",
    "## Références bibliographiques",
    "## Sources cited",
    "## 📚 SOURCES",
    "## Source",
    "**Sources:**",
    "References:",
    "*Quellen*",
    "参考资料：",
]


@pytest.mark.parametrize("kind", LISTS)
def test_a_list_of_sources_at_the_end_is_dropped_whatever_its_entries(kind):
    assert drop_model_sources(f"{BODY}\n## Sources\n\n{LISTS[kind]}") == BODY


@pytest.mark.parametrize("heading", HEADINGS)
def test_a_list_of_sources_is_dropped_under_any_sources_heading_at_any_level(heading):
    assert drop_model_sources(f"{BODY}\n{heading}\n\n{LISTS['links']}") == BODY


def test_a_title_line_with_its_entries_in_one_paragraph_goes_under_a_heading_or_without_one():
    lines = "[1] Alpha, https://a.example/1\n[2] Beta, https://b.example/2\n"
    assert drop_model_sources(f"{BODY}\nSources:\n{lines}") == BODY
    assert drop_model_sources(f"{BODY}\n**References**\n{lines}") == BODY
    assert drop_model_sources(f"{BODY}\n## Sources\n{lines}") == BODY


def test_subsections_of_entries_a_separating_rule_and_a_second_list_go_too():
    text = (
        f"{BODY}\n---\n\n## References\n\n- [Alpha](https://a.example/1)\n\n"
        "## Sources\n\n### Web pages\n\n- https://b.example/2\n\n### Studies\n\n1. Beta (2023). Grants.\n"
    )
    assert drop_model_sources(text) == BODY
    assert drop_model_sources(f"{BODY}\n## Sources\n") == BODY  # the heading alone


@pytest.mark.parametrize(
    "tail",
    [
        "## Sources\n\nThe studies disagree on costs: the EU survey [1] counts installation, the others do not.\n",
        "## Sources\n\n- [Alpha](https://a.example/1)\n\nAlpha is the only survey that counts installation, "
        "and its sample is small, so its figures should be read as an upper bound for the region.\n",
        "## References\n\n- [Alpha](https://a.example/1)\n\n## Conclusion\n\nThe conclusion stays.\n",
        "## Sources of uncertainty\n\n- https://a.example/1\n",
        "## Sources\n\n```\nhttps://a.example/1\n```\n",
        "## Sources\n\n> - [Alpha](https://a.example/1)\n",
        "## Sources\n\n- Interviews with installers in three regions, who said costs fell over the year.\n",
        "**Sources:** the EU survey [1] and national statistics, which disagree on installation costs.\n",
        "Sources:\n\n- [Alpha](https://a.example/1)\n\n## Appendix\n\n- [Beta](https://b.example/2)\n",
    ],
)
def test_prose_a_section_in_the_middle_or_another_title_is_kept_as_written(tail):
    text = f"{BODY}\n{tail}"
    assert drop_model_sources(text) == text


def test_headings_in_code_and_a_report_that_is_only_a_list_are_kept():
    fenced = f"{BODY}\n```markdown\n## Sources\n\n- https://a.example/1\n```\n"
    assert drop_model_sources(fenced) == fenced
    only = "## Sources\n\n- https://a.example/1\n"
    assert drop_model_sources(only) == only


def test_an_id_cited_only_in_the_model_list_is_not_cited_and_numbering_follows_the_body():
    text = f"{BODY}\n## Références\n\n- {A} Alpha\n- {B} Beta\n- {C} Gamma — https://c.example/3\n"
    body, cited, removed = finalize_citations(text, REG)
    assert [(c.number, c.id) for c in cited] == [(1, IDS[1]), (2, IDS[0])]
    assert body == "# Heat pumps\n\n## Findings\n\nHeat pumps are common [1]. They save energy [2].\n"
    assert removed == []
