"""Citations built in code: minted ids become [n], every other bracket stays, Sources generated."""

from __future__ import annotations

import pytest

from engine.citations import (
    Numbering,
    cited_ids,
    finalize_citations,
    id_legend,
    ids_to_numbers,
    keep_known_ids,
    source_id,
    sources_section,
)
from engine.text import markdown_unescape

URLS = [("https://a.example/1", "Alpha"), ("https://b.example/2", "Beta"), ("https://c.example/3", "Gamma")]
REG = {source_id(u): {"id": source_id(u), "url": u, "title": t} for u, t in URLS}
A, B, C = (f"[{sid}]" for sid in REG)


def test_ids_become_numbers_by_first_use_and_unknown_ids_are_removed():
    body, cited, removed = finalize_citations(f"Claim {C}. Other [Sdeadbe]. Again {C} and {A}.", REG)
    assert body.strip() == "Claim [1]. Other. Again [1] and [2]."
    assert removed == ["Sdeadbe"]
    assert [(c.number, c.title) for c in cited] == [(1, "Gamma"), (2, "Alpha")]
    section = sources_section(cited)
    assert "1. [Gamma](<https://c.example/3>)" in section and "2. [Alpha](<https://a.example/1>)" in section
    assert "Beta" not in section  # uncited sources are not listed


def test_bracketed_prose_is_not_a_citation():
    text = (f"# Scores on the interval [0, 1] {A}\n\n"
            f"Scores are normalised to the interval [0, 1] {A} and rated on a scale [1-5] {B}. "
            "The first element is index [0]; the quote says \"teh [sic] result\" and cites [3], [1, 2] and [2-4].\n")
    body, cited, removed = finalize_citations(text, REG)
    assert body == (
        "# Scores on the interval [0, 1] [1]\n\n"
        "Scores are normalised to the interval [0, 1] [1] and rated on a scale [1-5] [2]. "
        "The first element is index [0]; the quote says \"teh [sic] result\" and cites [3], [1, 2] and [2-4].\n")
    assert [c.title for c in cited] == ["Alpha", "Beta"] and removed == []


def test_code_spans_and_code_blocks_are_left_alone():
    text = (f"Use `a[7]` and `{A}` and ``b ` [1]``.\n\n```\nx = y[9] {B}\n```\n\n    indented {C}\n\n"
            f"- item\n\n  ~~~py\n  nested {A}\n  ~~~\n\n| code | text |\n|---|---|\n| `{B}` | {C} |\n")
    body, cited, removed = finalize_citations(text, REG)
    assert f"`a[7]` and `{A}` and ``b ` [1]``" in body
    assert f"x = y[9] {B}\n" in body and f"indented {C}" in body and f"nested {A}" in body
    assert f"| `{B}` | [1] |" in body
    assert [c.title for c in cited] == ["Gamma"] and removed == []


def test_a_references_heading_in_the_body_is_kept_with_everything_after_it():
    text = (f"# Report\n\n## Findings\n\nA fact {A}.\n\n## References\n\nThe reference design [2] is cited by {B}.\n\n"
            "## Sources and bibliography\n\nKept too.\n\n## Conclusion\n\nThe conclusion stays.\n")
    body, cited, _ = finalize_citations(text, REG)
    assert body == text.replace(A, "[1]").replace(B, "[2]")
    assert len(cited) == 2


def test_grouped_and_bare_ids():
    body, cited, removed = finalize_citations(f"See [{list(REG)[0]}, {list(REG)[2]}] and [{list(REG)[1]}; Sbad000] "
                                              f"and {list(REG)[0]} and {A}{A}; S123456 is a part number.", REG)
    assert body.strip() == "See [1][2] and [3] and [1] and [1]; S123456 is a part number."
    assert removed == ["Sbad000"] and len(cited) == 3


def test_model_written_urls_are_dropped_unless_a_tool_returned_them():
    text = "Read [this](https://evil.example/x) and [that](https://a.example/1) or https://nowhere.example/y.\n"
    body, _, _ = finalize_citations(text, REG)
    assert body == "Read this and [that](https://a.example/1) or.\n"


def test_urls_the_user_wrote_are_kept_but_not_listed():
    question = "What does https://user.example/page?a=1&b=2 say?"
    text = f"# What does https://user.example/page?a=1&b=2 say?\n\nIt agrees {A}; https://nowhere.example/y does not."
    body, cited, _ = finalize_citations(text, REG, user_text=question)
    assert body.startswith("# What does https://user.example/page?a=1&b=2 say?")
    assert "nowhere.example" not in body and [c.url for c in cited] == ["https://a.example/1"]


def test_one_numbering_for_the_body_and_the_summary():
    numbering = Numbering(REG)
    body = numbering.apply(f"First {B}, then {A}.")
    summary = numbering.apply(f"In short {A} and {C}, on a scale [1-5].")
    title = numbering.strip(f"Results on [0, 1] {A}")
    assert (body, summary, title) == ("First [1], then [2].", "In short [2] and [3], on a scale [1-5].",
                                      "Results on [0, 1]")
    assert [c.number for c in numbering.cited] == [1, 2, 3] and numbering.numbers[list(REG)[1]] == 1


def test_compressed_notes_keep_only_known_ids():
    notes = f"- fact {A} and [Sdeadbe]\n- more [{list(REG)[1]}, Sdeadbe] on [0, 1]\n- `code [Sdeadbe]`"
    kept = keep_known_ids(notes, REG)
    assert kept == f"- fact {A}\n- more {B} on [0, 1]\n- `code [Sdeadbe]`"
    assert cited_ids(kept) == [list(REG)[0], list(REG)[1]]


def test_review_legend_names_the_ids_the_roles_cite():
    legend = id_legend([f"uses {A}", f"and {C} [Sdeadbe]"], REG, {list(REG)[2]: 1})
    assert legend == [f"- {A} [Alpha](<https://a.example/1>)",
                      f"- {C} [Gamma](<https://c.example/3>) (source 1 of the report)"]


def test_no_sources_note():
    assert "No sources were found" in sources_section([], "en", "No sources were found here.")


def test_review_text_reads_the_report_numbers():
    numbers = {list(REG)[2]: 1}
    assert ids_to_numbers(f"weak {C}, see {A} and [0, 1] and `{C}`", numbers) == f"weak [1], see {A} and [0, 1] and `{C}`"


def test_an_upper_cased_id_is_the_same_source():
    sid = list(REG)[1]
    body, cited, removed = finalize_citations(f"Claim [S{sid[1:].upper()}] and {B}.", REG)
    assert body.strip() == "Claim [1] and [1]." and [c.title for c in cited] == ["Beta"] and removed == []


UNTOUCHED = [
    "Scores lie in [0, 1], ratings in [1-5], [1–5] or [1; 5], and [3] is a footnote copied from a page.",
    "Footnote[^1] and another[^note].\n\n[^1]: The note [2].\n[^note]: More [sic].\n",
    "- [ ] open task [1]\n- [x] done task [2, 3]\n",
    "A reference-style [link][1] and [another] [2].\n\n[1]: https://a.example/1\n",
    "Math $x \\in [0, 1]$ and \\(y \\in [a, b]\\) and $$[1]$$.",
    "> A quote [sic] with [...] elided\n>> nested [1]\n",
    "| range | value |\n|---|---|\n| [0, 1] | [1] |\n| [1-5] | `[2]` |\n",
    "Array `a[0]`, ``b[`1`]``, and\n\n```\nc = d[1][2]\n```\n\n~~~\n[S0000zz] [1]\n~~~\n",
    "Wiki [[Page]] and [[1]] and [] and [ ] and [1,] and [,1].",
    "Units: 5 [kg], 10 [m/s], an interval ]0, 1[ and (0, 1].",
    "# Heading [1]\n\n## References\n\n[1] A list the writer wrote.\n\n### Bibliography [2-3]\n\nText.\n",
    "Part numbers S123456 and SXYZ123, and [S12345] and [S1234567] are not ids.",
]


def test_text_without_minted_ids_passes_unchanged():
    for text in UNTOUCHED:
        numbering = Numbering(REG)
        assert numbering.apply(text) == text, text
        assert numbering.cited == [] and numbering.removed == []
        assert keep_known_ids(text, REG) == text


def test_sources_found_by_parallel_researchers_all_reach_the_report():
    from engine.citations import merge_sources

    ids = list(REG)
    first = {ids[0]: REG[ids[0]]}
    second = {ids[1]: REG[ids[1]], ids[0]: {**REG[ids[0]], "title": "a later copy"}}
    registry = merge_sources(merge_sources(None, first), second)
    assert registry == {ids[0]: REG[ids[0]], ids[1]: REG[ids[1]]}  # both batches; the first record of an id wins
    assert merge_sources(registry, None) == registry and merge_sources(None, None) == {}
    _, cited, _ = finalize_citations(f"One {A}. Two {B}.", registry)
    assert [(c.number, c.title) for c in cited] == [(1, "Alpha"), (2, "Beta")]
    fresh = merge_sources(registry, {"type": "override", "value": {ids[2]: REG[ids[2]]}})
    assert fresh == {ids[2]: REG[ids[2]]}  # a new research in the thread starts from its own sources


def test_a_group_citing_an_earlier_source_after_a_new_one_keeps_both():
    ids = list(REG)
    # the report reads "[2, 1]" style groups: a new source then one numbered before
    body, cited, removed = finalize_citations(f"First {A}. Then [{ids[1]}, Sdeadbe, {ids[0]}] and [{ids[2]}; {ids[0]}].", REG)
    assert body.strip() == "First [1]. Then [2][1] and [3][1]."
    assert removed == ["Sdeadbe"] and [c.number for c in cited] == [1, 2, 3]


def test_a_link_to_an_invented_url_keeps_its_words_and_loses_the_url():
    body, cited, _ = finalize_citations(
        f"See [the EU study {B}](https://invented.example/eu) and [Alpha's page](https://a.example/1).", REG)
    assert body.strip() == "See the EU study [1] and [Alpha's page](https://a.example/1)."
    assert [c.title for c in cited] == ["Beta"]


def test_the_sources_section_is_a_level_two_heading_in_the_report_language():
    _, cited, _ = finalize_citations(f"Claim {A}.", REG)
    assert sources_section(cited) == "## Sources\n\n1. [Alpha](<https://a.example/1>)\n"
    assert sources_section(cited, "de").startswith("## Quellen\n\n1. [Alpha]")
    assert sources_section(cited, "xx").startswith("## Sources\n\n")
    assert sources_section([], "fr") == "## Sources\n\nAucune source n’a été citée.\n"  # the report's language
    assert sources_section([], "ja") == "## 出典\n\n出典は引用されていません。\n"
    assert sources_section([], "es", "Sin fuentes.") == "## Fuentes\n\nSin fuentes.\n"


def test_the_review_legend_reads_bare_ids_and_escapes_titles():
    ids = list(REG)
    registry = {ids[0]: {"url": "https://a.example/1", "title": "Heat *pumps* [2024] _draft_"},
                ids[1]: {"url": "https://b.example/2"}}
    assert id_legend([f"as {ids[0]} says, and {B}"], registry) == [
        f"- [{ids[0]}] [Heat \\*pumps\\* \\[2024\\] \\_draft\\_](<https://a.example/1>)",
        f"- [{ids[1]}] [https://b.example/2](<https://b.example/2>)",
    ]


def test_a_url_the_user_wrote_at_the_end_of_a_sentence_is_theirs():
    body, cited, _ = finalize_citations("As you said, https://user.example/page is a start.", REG,
                                        user_text="Start from https://user.example/page.")
    assert body.strip() == "As you said, https://user.example/page is a start." and cited == []


def test_citations_after_a_cited_link_and_inside_tilde_fences():
    body, _, _ = finalize_citations(f"[Alpha {A}](https://a.example/1) then {B}.\n\n~~~\nquoted {C}\n~~~\n", REG)
    assert body == f"[Alpha [1]](https://a.example/1) then [2].\n\n~~~\nquoted {C}\n~~~\n"


def test_a_source_url_ending_in_a_capital_x_is_kept_whole():
    url = "https://x.example/ABX"
    registry = {source_id(url): {"url": url, "title": "X"}}
    assert finalize_citations(f"See {url}.", registry)[0].strip() == f"See {url}."


def test_groups_of_known_ids_stay_adjacent_markers():
    ids = list(REG)
    assert keep_known_ids(f"claim [{ids[0]}, Sdeadbe, {ids[1]}].", REG) == f"claim {A}{B}."
    assert ids_to_numbers(f"claim [{ids[0]}; {ids[1]}]", {ids[0]: 1, ids[1]: 2}) == "claim [1][2]"


def test_a_title_loses_its_ids_but_keeps_its_links_and_urls():
    numbering = Numbering(REG)
    assert numbering.strip(f"Heat pumps {A} per [Beta](https://b.example/2) https://c.example/3") == (
        "Heat pumps per [Beta](https://b.example/2) https://c.example/3")
    assert numbering.numbers == {}


def test_an_indented_code_block_keeps_its_ids():
    body, _, _ = finalize_citations(f"Claim {A}.\n\n    quoted {B}\n\nMore {C}.", REG)
    assert body == f"Claim [1].\n\n    quoted {B}\n\nMore [2].\n"


@pytest.mark.parametrize("language, found, shown", [
    ("de", 5, "(keine zitiert)"), ("en", 3, "(none cited)"), ("fr", 2, "(aucune citée)"), ("es", 1, "(ninguna citada)"),
    ("en", 0, "(none)"),
])
def test_a_sources_section_under_a_report_that_said_why_it_cites_nothing_never_reads_as_none_found(
        language, found, shown):
    from engine.artifacts import _no_sources_note
    from engine.offline_phrases import phrase

    above = (phrase("no_passages", language, found, n=str(found)) if found else phrase("no_findings", language))
    assert _no_sources_note(found, language, f"# Report\n\n{above}\n") == shown
    # said nowhere above: the section says it in full
    full = phrase("none_cited", language, found, n=str(found)) if found else phrase("no_findings", language)
    assert _no_sources_note(found, language, "# Report\n") == full


# Sources without a web address: a corpus document (its path in the folder, a relative URL), a file
# URI (a record made before corpus sources were named so), a thread file shared in the terminal or
# Teams (an opaque key; the title names the file and its page).
LOCAL = [("sub/tides%20%26%20waves.html", "Tidal Energy Primer"), ("file:///home/alice/corpus/notes%20v2.md", "Notes"),
         ("local-file:0f1e2d3c4b5a/report.pdf#page=2", "report.pdf, page 2"), ("sub/wind.txt", "wind.txt"),
         ("teams-file:9a8b-7c6d#section=1", "deck.docx, section 1"), ("https://a.example/1", "Alpha"),
         ("file:///home/alice/report.pdf#page=3", "report.pdf, page 3")]
LOCAL_REG = {source_id(u): {"id": source_id(u), "url": u, "title": t} for u, t in LOCAL}


def test_sources_without_a_web_address_are_named_as_text_by_their_place_never_by_a_server_path():
    text = " ".join(f"[{sid}]" for sid in LOCAL_REG)
    _, cited, _ = finalize_citations(f"Claims {text}.", LOCAL_REG)
    assert sources_section(cited).splitlines()[2:] == [
        "1. Tidal Energy Primer (sub/tides & waves.html)",
        "2. Notes (notes v2.md)",
        "3. report.pdf, page 2",
        "4. sub/wind.txt",
        "5. deck.docx, section 1",
        "6. [Alpha](<https://a.example/1>)",
        "7. report.pdf, page 3",
    ]
    legend = id_legend([text], LOCAL_REG, {sid: n for n, sid in enumerate(LOCAL_REG, start=1)})
    assert legend[:2] == [f"- [{source_id(LOCAL[0][0])}] Tidal Energy Primer (sub/tides & waves.html) (source 1 of the report)",
                          f"- [{source_id(LOCAL[1][0])}] Notes (notes v2.md) (source 2 of the report)"]
    assert legend[5] == f"- [{source_id(LOCAL[5][0])}] [Alpha](<https://a.example/1>) (source 6 of the report)"
    shown = sources_section(cited) + "\n".join(legend)
    assert "file:" not in shown and "/home/alice" not in shown and "local-file" not in shown and "teams-file" not in shown


def test_a_place_with_markdown_characters_reads_as_written():
    registry = {"S000001": {"url": "a_b/%2A%5Bx%5D.md", "title": "Draft"}}
    _, cited, _ = finalize_citations("Claim [S000001].", registry)
    line = sources_section(cited).splitlines()[2]
    assert line.startswith("1. Draft (") and markdown_unescape(line[3:]) == "Draft (a_b/*[x].md)", line


# Removing a citation that matched no source: the marker, a joiner that only joined it to other
# markers, a bracket or parenthesis group it leaves empty and the space it leaves before closing
# punctuation go; every other character stays. X and Y are ids the research never found.
X, Y = "[Sdeadbe]", "[Sbad000]"
NOWHERE = "https://nowhere.example/y"
REMOVED = [
    # joined by "and" or a comma: the unknown one first, in the middle, last, or all unknown
    (f"as {A} and {X} show.", "as [1] show."),
    (f"as {X} and {A} show.", "as [1] show."),
    (f"as {A}, {X} and {B} show.", "as [1] and [2] show."),
    (f"as {A}, {B} and {X} show.", "as [1], [2] show."),
    (f"as {X}, {A} and {B} show.", "as [1] and [2] show."),
    (f"as {A}, {B}, and {X} show.", "as [1], [2] show."),
    (f"as {X} and {Y} show.", "as show."),
    (f"as {X}, {Y}; {X} show.", "as show."),
    (f"{X}, {A}", "[1]"),
    (f"as {A} {X} show.", "as [1] show."),
    # other joiners and languages
    (f"Fakten {A} und {X}.", "Fakten [1]."),
    (f"des faits {X} et {A}.", "des faits [1]."),
    (f"datos {A} y {X}.", "datos [1]."),
    (f"claim {A}; {X}; {B}.", "claim [1]; [2]."),
    (f"claim {A} & {X}.", "claim [1]."),
    (f"事实{A}和{X}。", "事实[1]。"),
    (f"事实{X}、{A}。", "事实[1]。"),
    (f"事実{A}、{X}、{B}。", "事実[1]、[2]。"),
    # at the end of a sentence
    (f"growth {X}.", "growth."),
    (f"growth {X}!", "growth!"),
    (f"growth {X}?", "growth?"),
    (f"增长{X}。", "增长。"),
    (f"growth {X} .", "growth."),
    (f"growth {A} {X} .", "growth [1]."),
    (f"growth {X} , then more", "growth, then more"),
    # in parentheses and brackets
    (f"claim ({X}).", "claim."),
    (f"claim ({X}, {Y}) and more.", "claim and more."),
    (f"claim ({A}, {X}).", "claim ([1])."),
    (f"claim [{X}].", "claim."),
    (f"增长（{X}）。", "增长。"),
    # alone on its line, or first on it
    (f"one paragraph\n{X}\nwrapped.", "one paragraph\nwrapped."),
    (f"- item {A}\n  {X} continued.", "- item [1]\n  continued."),
    # grouped and upper-cased ids
    (f"as {A} and [Sdeadbe; Sbad000] show.", "as [1] show."),
    (f"as [SDEADBE], [{list(REG)[0]}, Sbad000] show.", "as [1] show."),
    # URLs no tool returned
    (f"as {A} and {NOWHERE} show.", "as [1] show."),
    (f"as {NOWHERE}, {A} show.", "as [1] show."),
    (f"see https://a.example/1 and {NOWHERE}.", "see https://a.example/1."),
    (f"see {NOWHERE}!", "see!"),
    (f"see {NOWHERE}?", "see?"),
    (f"见 {NOWHERE}。", "见。"),
    (f"见（{NOWHERE}）。", "见。"),
]


@pytest.mark.parametrize("text, expected", REMOVED, ids=[text for text, _ in REMOVED])
def test_a_removed_citation_leaves_no_joiner_empty_group_or_space_before_punctuation(text, expected):
    assert finalize_citations(text, REG)[0] == expected + "\n"


def test_a_removed_id_in_compressed_notes_and_titles_leaves_nothing_behind():
    ids = list(REG)
    assert keep_known_ids(f"- fact {A} and {X}\n- more ({X}; {Y}) here\n- also {X}, {B}.", REG) == (
        f"- fact {A}\n- more here\n- also {B}.")
    assert keep_known_ids(f"claim [{ids[0]}, Sdeadbe] and {X}.", REG) == f"claim {A}."
    assert Numbering(REG).strip(f"Heat pumps {A} and {B}") == "Heat pumps"


@pytest.mark.parametrize("text, expected", [
    (f"Korea {X} and Japan agree.", "Korea and Japan agree."),
    (f"{X} and Japan agree.", "and Japan agree."),
    (f"{A} {X} and Japan agree.", "[1] and Japan agree."),
    (f"as {A} and Sdeadbe show.", "as [1] and Sdeadbe show."),  # an unknown bare id is the writer's text
    (f"scores [0, 1] and {X}.", "scores [0, 1] and."),  # [0, 1] is prose, not a citation
    (f"cites [3] and {X}.", "cites [3] and."),  # a [3] quoted from a page is prose too
    (f"claim (see {X}).", "claim (see)."),
    (f"croissance {X} !", "croissance !"),  # a space the writer put before "!" stays (French)
    (f"claim {X}, and more", "claim, and more"),
    (f"[the EU study {X}](https://invented.example/eu) or {NOWHERE}.", "the EU study or."),
    (f"Use `{A} and {X}` and {X}.", f"Use `{A} and {X}` and."),  # code is not a citation
])
def test_words_and_punctuation_not_between_citations_are_kept(text, expected):
    assert finalize_citations(text, REG)[0] == expected + "\n"


def test_a_url_with_sentence_punctuation_after_it_keeps_both_when_known():
    for text in ("See https://a.example/1!", "See **https://a.example/1**.", "见 https://a.example/1。",
                 "Is it https://a.example/1?", "（https://a.example/1）"):
        assert finalize_citations(text, REG)[0] == text + "\n", text
    body, cited, _ = finalize_citations("As you said, https://user.example/page is a start.", REG,
                                        user_text="Is https://user.example/page?")
    assert body == "As you said, https://user.example/page is a start.\n" and cited == []


KNOWN_ONLY = [
    f"as {A} and {B} show; {C}, {A} & {B} too ({C}; {A}).",
    f"事实{A}和{B}、{C}。 Fakten {A} und {B}; faits {A} et {B}; datos {A} y {B}.",
    f"see https://a.example/1 and {A} , then {B} .\n\n- {A}\n- and {B}\n",
    "Korea and Japan; Germany & France, 和、と. (see) () [] growth . end !",
]


def test_text_with_no_unknown_citations_is_unchanged():
    for text in KNOWN_ONLY:
        assert keep_known_ids(text, REG) == text
        numbering = Numbering(REG)
        assert numbering.apply(text) == _numbered(text, numbering.numbers), text
        assert numbering.removed == []


def _numbered(text: str, numbers: dict[str, int]) -> str:
    for sid, n in numbers.items():
        text = text.replace(f"[{sid}]", f"[{n}]")
    return text
