"""The sources a prompt lists: only those its texts cite, by id, title and URL, bounded, with the count found."""

from __future__ import annotations

from engine.citations import cited_ids, source_id
from engine.prompt_sources import MAX_PROMPT_SOURCES, found_sources_block, prompt_sources, source_block

URLS = [("https://a.example/1", "Alpha"), ("https://b.example/2", "Beta"), ("https://c.example/3", "Gamma")]
REG = {source_id(u): {"id": source_id(u), "url": u, "title": t} for u, t in URLS}
A, B, _ = (f"[{sid}]" for sid in REG)


def test_prompts_list_only_cited_sources_and_at_most_the_limit():
    registry = {
        source_id(f"https://s.example/{i}"): {"url": f"https://s.example/{i}", "title": f"Source {i}"}
        for i in range(200)
    }
    ids = list(registry)
    findings = "\n".join(f"- fact [{sid}]" for sid in ids[:3])
    lines, left_out = prompt_sources(registry, [findings])
    assert lines.splitlines() == [
        f"[{sid}] Source {i} — https://s.example/{i}" for i, sid in enumerate(ids[:3])
    ]
    assert left_out == 0
    many = "\n".join(f"- fact [{sid}]" for sid in ids[:150]) + f"\n- again [{ids[149]}]"
    lines, left_out = prompt_sources(registry, [many])
    assert len(lines.splitlines()) == MAX_PROMPT_SOURCES and left_out == 150 - MAX_PROMPT_SOURCES
    assert f"[{ids[149]}]" in lines  # the most cited is kept
    assert "90 more cited sources" in source_block(registry, [many])
    assert source_block(registry, ["no citations [0, 1]"]) == "(none)"


def test_prompts_count_bare_ids_and_ids_in_link_text_and_show_titles_cleanly():
    ids = list(REG)
    long_title = "A   very\nlong title " + "x" * 200
    registry = {
        **REG,
        ids[0]: {"url": "https://a.example/1", "title": long_title},
        ids[1]: {"url": "https://b.example/2", "title": ""},
    }
    text = f"bare {ids[0]} then [see {B}](https://b.example/2) and {ids[0]} again; S000000 is not a source"
    lines, left_out = prompt_sources(registry, [text])
    first, second = lines.splitlines()
    title = first.removeprefix(f"[{ids[0]}] ").removesuffix(" — https://a.example/1")
    assert len(title) == 150 and title.endswith("…") and title.startswith("A very long title xxx")
    assert second == f"[{ids[1]}] https://b.example/2 — https://b.example/2"  # no title: the URL
    assert left_out == 0
    assert cited_ids(text, registry) == [ids[0], ids[1], ids[0]]
    assert cited_ids(text) == [ids[1]]  # without a registry only bracketed ids count
    one = source_block(registry, [text], limit=1)
    assert one.splitlines()[0].startswith(f"[{ids[0]}] A very") and "(1 more cited sources" in one


def test_the_found_sources_block_counts_names_and_lists_what_is_cited():
    ids = list(REG)
    assert found_sources_block({}, [f"x {A}"]) == "(none)"
    assert found_sources_block(REG, [f"claim {ids[0]} and [{ids[2]}]"]) == (
        "3 sources found; 2 cited so far.\n"
        f"[{ids[0]}] Alpha — https://a.example/1\n[{ids[2]}] Gamma — https://c.example/3\n"
        f"Found, not cited so far: “Beta” [{ids[1]}]"
    )
    many = {
        source_id(f"https://m.example/{i}"): {"url": f"https://m.example/{i}", "title": f"M{i}"}
        for i in range(8)
    }
    first = list(many)
    text = f"only [{first[0]}]"
    block = found_sources_block(many, [text], limit=0)
    assert block.splitlines()[0] == "8 sources found; 1 cited so far."
    assert (
        block.splitlines()[-1]
        == "Found, not cited so far: " + ", ".join(f"“M{i}” [{first[i]}]" for i in range(1, 6)) + " (+2)"
    )
    assert found_sources_block(dict(list(many.items())[:6]), [text]).endswith(f"“M5” [{first[5]}]")


def test_a_title_of_exactly_the_prompt_limit_is_kept_whole():
    sid = source_id("https://t.example/")
    title = "t" * 150
    lines, _ = prompt_sources({sid: {"url": "https://t.example/", "title": title}}, [f"[{sid}]"])
    assert lines == f"[{sid}] {title} — https://t.example/"
