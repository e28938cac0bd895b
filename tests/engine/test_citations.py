"""Citations built in code: markers checked against the registry, renumbered, Sources generated."""

from __future__ import annotations

from engine.citations import finalize_citations, ids_to_numbers, number_sources, source_id, sources_section

REG = {source_id(u): {"id": source_id(u), "url": u, "title": t} for u, t in [
    ("https://a.example/1", "Alpha"), ("https://b.example/2", "Beta"), ("https://c.example/3", "Gamma")]}


def numbering():
    ids = list(REG)
    return {ids[0]: 1, ids[1]: 2, ids[2]: 3}


def test_unknown_marker_removed_and_sources_numbered_without_gaps():
    body, cited, removed = finalize_citations("Claim [3]. Other [7]. Again [3] and [1].", REG, numbering())
    assert body.strip() == "Claim [1]. Other . Again [1] and [2]."
    assert removed == [7]
    assert [(c.number, c.title) for c in cited] == [(1, "Gamma"), (2, "Alpha")]
    section = sources_section(cited)
    assert "1. [Gamma](<https://c.example/3>)" in section and "2. [Alpha](<https://a.example/1>)" in section
    assert "Beta" not in section  # uncited sources are not listed


def test_grouped_and_ranged_markers():
    body, cited, _ = finalize_citations("See [1, 3] and [2-3] and [1][2].", REG, numbering())
    assert body.strip() == "See [1][2] and [3][2] and [1][3]."
    assert len(cited) == 3


def test_model_written_sources_and_unknown_urls_are_dropped():
    text = ("Read [this](https://evil.example/x) and [that](https://a.example/1) or https://nowhere.example/y.\n\n"
            "## References\n\n[1] https://evil.example/x\n")
    body, _, _ = finalize_citations(text, REG, numbering())
    assert "evil.example" not in body and "nowhere.example" not in body
    assert "[that](https://a.example/1)" in body and "References" not in body


def test_urls_the_user_wrote_are_kept_but_not_listed():
    question = "What does https://user.example/page?a=1&b=2 say?"
    text = "# What does https://user.example/page?a=1&b=2 say?\n\nIt agrees [1]; https://nowhere.example/y does not."
    body, cited, _ = finalize_citations(text, REG, numbering(), user_text=question)
    assert body.startswith("# What does https://user.example/page?a=1&b=2 say?")
    assert "nowhere.example" not in body and [c.url for c in cited] == ["https://a.example/1"]


def test_code_is_left_alone():
    body, _, removed = finalize_citations("Use `a[7]` and\n```\nx = y[9]\n```\n", REG, numbering())
    assert "a[7]" in body and "y[9]" in body and removed == []


def test_short_ids_map_to_numbers_by_first_use():
    ids = list(REG)
    notes = [f"fact [{ids[2]}] and [{ids[0]}]", f"more [{ids[2]}] and bogus [Sdeadbe]"]
    num = number_sources(REG, notes)
    assert num[ids[2]] == 1 and num[ids[0]] == 2 and num[ids[1]] == 3
    assert ids_to_numbers(notes[1], num) == "more [1] and bogus "


def test_no_sources_note():
    assert "No sources were found" in sources_section([], "en", "No sources were found here.")
