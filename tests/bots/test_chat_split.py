"""Cutting chat text to a platform's limits (bots.chat_split): where a cut falls, how full each piece
is, and that nothing is lost or changed on the way (entities, links, code spans and blocks whole)."""

from __future__ import annotations

import re

import pytest
from hypothesis import assume, example, given, settings
from hypothesis import strategies as st

from bots.chat_code import layout, span_around, tick_spans
from bots.chat_split import (
    _flips_fence,
    _lines,
    _paragraphs,
    _split_line,
    clip,
    cut_point,
    pack,
    safe_cut,
    shorten_to_fit,
    split_text,
)


@pytest.mark.parametrize(("text", "limit", "cut"), [
    ("abcdef ghi", 10, 10),  # fits exactly: nothing to cut
    ("aaaaa " + "b" * 20, 10, 5),  # a space at half the limit is near enough
    ("aaaaa " + "b" * 20, 11, 5),
    ("aaaa " + "b" * 20, 12, 12),  # one before half is not: cut at the limit
    ("x <ab> cccc dddddddddd", 12, 11),  # a closed <...> before the space does not move the cut
    ("<a> <b> cc dddddddddddd", 11, 10),
    ("<" + "x" * 50, 10, 10),  # a <...> longer than the limit from the start: cut inside it all the same
    ("a<" + "x" * 50, 10, 1),  # else the cut moves before its "<"
    ("aaaa&amp;bbbbbbbbbb", 6, 4),  # never inside an &...; reference
    ("a&amp;b&amp;ccccccccc", 10, 7),  # the last one, not the first
    ("ab&lt;cdefghijklmnop", 7, 7),  # a whole reference before the cut stays
    ("ab&quot;cdefghijklmnop", 7, 2),  # five characters of one: still a reference
    ("ab&hellip;cdefghijklm", 8, 8),  # six: taken for a lone "&" (Slack escapes only &amp; &lt; &gt;)
    ("&amp;xxxxxxx", 3, 3),  # at the very start: cut inside rather than not at all
    ("a&amp;xxxxxxx", 3, 1),
])
def test_safe_cut(text, limit, cut):
    assert safe_cut(text, limit) == cut


@pytest.mark.parametrize(("text", "limit", "clipped"), [
    ("abcdef ghi", 10, "abcdef ghi"),
    ("  abcdef ghi  ", 10, "abcdef ghi"),
    ("abcdef  ghijkl", 9, "abcdef…"),  # no space before the ellipsis
    ("abcdefghijkl", 5, "abcd…"),  # the ellipsis counts: five characters in all
])
def test_clip(text, limit, clipped):
    assert clip(text, limit) == clipped


def test_pack_fills_each_group_up_to_both_limits():
    assert pack(["ab", "cd"], most=5, chars=4) == [["ab", "cd"]]
    assert pack(["abcde", "ab", "cd"], most=5, chars=4) == [["abcde"], ["ab", "cd"]]
    assert pack(["a"] * 5, most=2, chars=100) == [["a", "a"], ["a", "a"], ["a"]]
    assert pack([], most=2, chars=10) == []


@pytest.mark.parametrize(("text", "limit", "cut"), [
    ("a" * 8 + "\n\n" + "b" * 10, 11, 8),  # a paragraph end first, before the blank line
    ("a" * 9 + "\n" + "b" * 10, 11, 9),
    ("あ" * 9 + "。" + "い" * 10, 11, 10),  # after a CJK full stop
    ("あ" * 9 + "！" + "い" * 10, 11, 10),
    ("あ" * 9 + "？" + "い" * 10, 11, 10),
    ("a" * 8 + "; " + "b" * 10, 11, 10),
    ("a" * 10 + ". " + "b" * 10, 13, 12),  # a sentence end before a later word end
    ("a" * 9 + " " + "b" * 10, 11, 9),
    ("a" * 7 + " " + "b" * 10, 11, 11),  # before the last fifth: at the limit
])
def test_cut_point(text, limit, cut):
    assert cut_point(text, limit) == cut


@pytest.mark.parametrize("room", [6, 12, 20, 27, 33, 40, 58])
def test_shorten_to_fit_keeps_the_longest_head_that_fits_cut_at_a_word(room):
    text = "one two three four five six seven eight nine ten eleven"
    note = "[cut]"
    fits = lambda s: len(s) <= room  # noqa: E731
    got = shorten_to_fit(text, fits, note=note)
    assert fits(got)
    if fits(text):
        assert got == text
        return
    heads = [text[:k] for k in range(len(text) + 1) if fits(f"{text[:k]}\n\n{note}")]
    longest = heads[-1] if heads and heads[-1] else ""
    if not longest:
        assert got == note
        return
    head, sep, tail = got.rpartition("\n\n")
    assert (sep, tail) == ("\n\n", note) and text.startswith(head) and head
    assert len(head) >= len(longest) * 0.8  # the cut is in the last fifth of what fits
    assert head == longest or text[len(head)] == " "  # at a word end


def test_code_spans_are_found_as_commonmark_reads_them():
    line = "ab `cd` ef ``g`h`` i"
    spans = tick_spans(line)
    assert span_around(spans, 3) is None  # before the opening backtick
    assert span_around(spans, 4)[:3] == (4, 6, "`")
    assert span_around(spans, 7) is None  # just after the closing one
    assert span_around(spans, 14)[:3] == (13, 16, "``")  # a run of two closes only at two
    assert span_around(tick_spans("a `lone backtick"), 5) is None  # never closed: a literal


def test_a_line_with_an_odd_number_of_fences_opens_or_closes_a_block():
    assert _flips_fence("```") and _flips_fence("``` a ``` b ```") and not _flips_fence("``` a ```")


@pytest.mark.parametrize("commonmark", [True, False])
def test_a_code_block_is_one_paragraph_blank_lines_and_all(commonmark):
    paragraphs = _paragraphs(_lines("a\n\n```\nx\n\ny\n```\n\nb", commonmark=commonmark))
    assert ["\n".join(line.text for line in p) for p in paragraphs] == ["a", "```\nx\n\ny\n```", "b"]


def test_what_fits_is_not_cut():
    assert split_text("a" * 10, 10) == ["a" * 10]
    assert split_text("aaaa\n\nbbbb", 10) == ["aaaa\n\nbbbb"]
    assert split_text("aaaa\n\nbbbbb", 10) == ["aaaa", "bbbbb"]


def test_a_long_paragraph_is_cut_at_lines_each_piece_as_full_as_a_closing_fence_allows():
    """Lines of 9: two make 19 characters, a third 29, and 4 are kept back to close a fence. Its
    pieces are never joined again with a blank line between them (the last two, 19 + 2 + 9, would
    fit the limit: the paragraph then showed a gap in the middle)."""
    paragraph = "\n".join(f"line{i:05d}" for i in range(9))
    chunks = split_text(paragraph, 30)
    assert [c.count("\n") + 1 for c in chunks] == [2, 2, 2, 2, 1]
    assert "\n".join(chunks) == paragraph


def test_a_code_block_cut_in_two_is_closed_and_reopened_and_no_line_is_lost():
    code = "```\n" + "\n".join(f"x = {i:03d}" for i in range(12)) + "\n```"
    chunks = split_text(code, 40)
    assert all(len(c) <= 40 and c.startswith("```") and c.endswith("```") for c in chunks), chunks
    rows = [ln for c in chunks for ln in c.split("\n") if ln.startswith("x =")]
    assert rows == [f"x = {i:03d}" for i in range(12)]
    assert all(len(c) + 1 + len("x = 000") + 4 > 40 for c in chunks[:-1])  # none could take one more row


def test_a_line_inside_a_code_block_keeps_its_backticks_as_they_are():
    line = "print('`' + " + "'x' + " * 30 + "'`')"
    chunks = split_text(f"```\n{line}\n```", 80)
    inner = "".join(c.removeprefix("```\n").removesuffix("\n```") for c in chunks)
    assert inner.replace("\n", "").replace(" ", "") == line.replace(" ", "")


def test_a_cut_line_loses_only_the_spaces_at_the_cut():
    line = " ".join(f"w{i}" for i in range(200))
    chunks = split_text(line, 50)
    assert all(c == c.strip() and len(c) <= 50 for c in chunks)
    assert " ".join(chunks) == line


words = st.text(alphabet="abcxyz&;<>|`*_~ 。\n", min_size=0, max_size=12)
#: Words nearly all backticks and spaces: runs of every length, spans of one space, spans of backticks.
tick_words = st.text(alphabet="````` a\n", min_size=0, max_size=12)


@settings(max_examples=400, deadline=2000)
@given(st.lists(st.one_of(words, tick_words), min_size=1, max_size=80),
       st.one_of(st.integers(min_value=5, max_value=40), st.integers(min_value=40, max_value=200)))
@example(["`a\n", ">b`"], 5)  # a span over lines whose second line starts with a quote marker
@example([">`\n", ">`"], 5)  # ... inside a quote: written on one line, the quote's marker goes with its line
def test_no_piece_is_over_the_limit_and_no_word_is_lost(parts, limit):
    text = " ".join(parts)
    chunks = split_text(text, limit)
    assert all(0 < len(c) <= limit for c in chunks)
    if "`" not in text:  # (code spans and fences get backticks added at a cut)
        assert "".join("".join(chunks).split()) == "".join(text.split())  # only spaces go, at cuts
    # else every other character is kept, in order (a reopened fence adds its language), but for the
    # info string of a fence's line longer than a piece (written as its fence and language), and the
    # quote markers that start a line a code span continues on: the span is written on one line (the
    # same code, in the same quote), so its second line's markers go with the line break
    kept = re.sub(r"(?m)^([\s>*+\-\d.)]*(?:`{3,}|~{3,})).*$", r"\1", text)
    kept = _without_markers_inside_spans(kept)
    shown = iter("".join(chunks))
    assert all(ch in shown for ch in kept if ch not in "` \n")


def _without_markers_inside_spans(text: str) -> str:
    """``text`` without the quote markers (``>``) at the start of each line that a code span over
    lines continues on (CommonMark reads them as the quote's, not the span's)."""
    _, spans = layout(text)
    drop: set[int] = set()
    for span in spans:
        if span.ticks:
            for m in re.finditer(r"\n([ >]*)", text[span.start:span.end]):
                drop.update(range(span.start + m.start(1), span.start + m.end(1)))
    return "".join(ch for i, ch in enumerate(text) if i not in drop)


@pytest.mark.parametrize("limit", range(5, 41))
def test_text_of_backticks_and_spaces_is_cut_within_any_small_limit(limit):
    """Spans of one space between runs of four, a span of backticks: a span that cannot be written
    within the limit is cut as text; every piece is within it and no backtick is lost."""
    text = "```` ```` `` `` ```` ` `` ```` ```` ````"
    chunks = split_text(text, limit)
    assert all(0 < len(c) <= limit for c in chunks), chunks
    assert "".join(chunks).count("`") >= text.count("`")  # (a span cut in parts has backticks added)
    assert len(chunks) <= len(text.split()), chunks  # never a backtick a piece
    if limit >= 28:  # room for its longest span, written whole or in parts: all its code shown as code
        _assert_pieces_show_the_code_of(text, limit)


def _spans_closed(chunk: str) -> bool:
    """True when every run of backticks in ``chunk`` is closed by a later run of its length (CommonMark)."""
    opener = None
    for run in re.finditer(r"`+", chunk):
        if opener is None:
            opener = run.group()
        elif run.group() == opener:
            opener = None
    return opener is None


@pytest.mark.parametrize(("line", "limit"), [
    ("Use the form `` `x` `` to show a backtick quoted word in running text here", 30),
    ("winter " * 3 + " ".join(f"`code{i}`" for i in range(12)), 30),
    ("`a &amp; b` `<https://example.com/1|l>` and text after the code span", 37),
    ("pre ``" + "y" * 300 + "`" + "z" * 300 + "`` post", 163),
    ("heat " * 40 + "`" + "code with spaces " * 30 + "` tail", 120),
])
def test_a_cut_never_merges_backticks_or_splits_a_link_and_every_span_stays_code(line, limit):
    chunks = split_text(line, limit)
    assert all(len(c) <= limit for c in chunks), [len(c) for c in chunks]
    for chunk in chunks:
        assert _spans_closed(chunk), chunk
        assert chunk.count("<") == chunk.count(">"), chunk
    code = "".join(re.findall(r"(`+)(.+?)\1", line)[i][1] for i in range(len(re.findall(r"(`+)(.+?)\1", line))))
    shown = "".join(m[1] for c in chunks for m in re.findall(r"(`+)(.+?)\1", c))
    assert shown.replace(" ", "") == code.replace(" ", "")  # the code, all of it, and only it, shown as code


spans = st.builds(lambda ticks, body: f"{ticks}{body}{ticks}", st.sampled_from(["`", "``"]),
                  st.text(alphabet="abc &;<>|", min_size=1, max_size=60).filter(lambda b: b.strip()))


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(spans, st.text(alphabet="abcxyz ", min_size=1, max_size=30)), min_size=1, max_size=60),
       st.integers(min_value=40, max_value=300))
def test_every_code_span_of_a_long_line_stays_code_in_its_piece(parts, limit):
    line = " ".join(parts)
    chunks = split_text(line, limit)
    assert all(0 < len(c) <= limit for c in chunks)
    assert all(_spans_closed(c) for c in chunks), chunks
    assert not [c for c in chunks if "\n" in c]  # one line: its pieces are never joined by a line break


def test_pieces_of_a_line_keep_every_character_but_the_spaces_at_their_cuts():
    assert _split_line("aaa bbb ccc", 7) == ["aaa", "bbb ccc"]  # what fits is not cut again
    assert _split_line("aaa   bbbbbbbb", 8) == ["aaa", "bbbbbbbb"]
    assert _split_line("aaaa \tbbbbbbbbbb", 8)[1].startswith("\t")  # a tab is text (code's indent): kept


def test_a_code_span_goes_whole_to_the_next_piece_or_stays_whole_in_this_one():
    assert _split_line("x`" + "c" * 20 + "` tail", 10)[0] == "x"
    assert _split_line("`abc def` rest", 9) == ["`abc def`", "rest"]


@pytest.mark.parametrize(("ticks", "as_code"), [(9, True), (10, False)])
def test_a_span_longer_than_a_piece_is_closed_and_reopened_unless_its_backticks_would_fill_half_of_it(ticks, as_code):
    fence = "`" * ticks
    pieces = _split_line(fence + "x " * 60 + fence, 40)
    assert all(len(p) <= 40 for p in pieces)
    assert all(p.startswith(fence) and p.endswith(fence) for p in pieces) is as_code


def test_a_span_cut_inside_is_never_cut_beside_one_of_its_own_backticks():
    body = "a`b " * 100
    pieces = _split_line(f"``{body}``", 50)
    assert len(pieces) > 2 and all(len(p) <= 50 for p in pieces)
    for piece in pieces:
        assert piece.startswith("``") and piece.endswith("``") and piece[2] != "`" and piece[-3] != "`", piece
    assert "".join(p[2:-2] for p in pieces) == body  # its spaces too


@pytest.mark.parametrize("text", ["\U0001f469\u200d\U0001f469\u200d\U0001f467\u200d\U0001f466" * 1000,
                                  "การสังเคราะห์ด้วยแสง" * 300, "e\u0301" * 4000])
def test_a_cut_without_a_space_near_falls_between_two_characters_as_readers_see_them(text):
    import unicodedata

    chunks = split_text(text, 3000)
    assert len(chunks) > 1 and "".join(chunks) == text
    for chunk in chunks:
        assert chunk[0] != "\u200d" and chunk[-1] != "\u200d" and not unicodedata.combining(chunk[0]), chunk[:3]
        assert unicodedata.category(chunk[0]) not in ("Mn", "Mc"), chunk[:3]


@pytest.mark.parametrize("line", ["type `` ``` `` then press enter", "use `` ```js `` to open a block",
                                  "use ``` ```js ``` ``` to open a block", "> quote `` ``` `` here"])
def test_a_code_span_holding_three_backticks_opens_no_code_block(line):
    """A fence opens a block only at a line's start (up to three spaces in, CommonMark 4.5): the
    paragraphs after a span holding ``` are still paragraphs, cut at their blank lines as written."""
    text = f"{line}\n\n{'b' * 50}\n\n{'c' * 50}"
    assert split_text(text, 60) == [line, "b" * 50, "c" * 50]


@pytest.mark.parametrize(("opener", "closer", "inner"), [("~~~", "~~~", "```"), ("````md", "````", "```"),
                                                       ("  ```py", "  ```", "~~~")])
def test_a_fenced_block_of_any_kind_cut_in_two_is_closed_and_reopened_with_its_own_fence(opener, closer, inner):
    rows = [f"row {i:02d}" for i in range(40)] + [inner, "not the end"]  # another kind of fence is code text
    chunks = split_text("\n".join([opener, *rows, closer]), 80)
    assert len(chunks) > 2 and all(len(c) <= 80 for c in chunks)
    assert all(c.startswith(opener) and c.endswith(closer) for c in chunks), chunks
    assert [ln for c in chunks for ln in c.split("\n")[1:-1]] == rows


def test_a_fence_indented_four_spaces_is_code_text_not_a_fence():
    text = "    ```\n    x\n\nafter the code " + "y " * 20
    assert split_text(text, 40)[0] == "    ```\n    x"


def _shown(markdown: str) -> tuple[str, int, str]:
    """What ``markdown`` shows as code, read as CommonMark by markdown-it-py: the text of its code
    spans one after another, how many backticks it shows as text (a span's backticks left open), and
    its code blocks' text without whitespace (a cut drops the spaces where it falls)."""
    from markdown_it import MarkdownIt

    spans, ticks, blocks = [], 0, []
    for token in MarkdownIt("commonmark").parse(markdown):
        if token.type in ("fence", "code_block"):
            blocks.append("".join(token.content.split()))
        for child in token.children or ():
            if child.type == "code_inline":
                spans.append(child.content)
            elif child.type == "text":
                ticks += child.content.count("`")
    return "".join(spans), ticks, "".join(blocks)


@pytest.mark.parametrize(("text", "limit"), [
    ("`" + "a`" * 2000 + "`", 3000),
    ("``" + "a`" * 2000 + "``", 3000),  # one span between `` holding single backticks
    ("`` " + "`a" * 2000 + " ``", 3000),
    ("``" + "a`b " * 1000 + "``", 1000),
    ("x ``" + "``` " * 800 + "`` y", 500),  # a span holding runs of three
    ("x `` " + "`" * 80 + " `` y", 60),  # a run longer than a piece
    ("`` " + "`" * 5 + " ``", 16),
    ("`a " + "b " * 40 + "c `", 30),  # both ends a space: one stripped from each, not from each part
    ("see `" + "ab\ncd " * 20 + "` there", 50),  # a span over lines
    ("a \\`" + "b " * 30 + "c` d", 20),  # an escaped backtick opens no span
])
def test_a_code_span_cut_in_pieces_shows_the_same_code_and_leaves_no_backtick_open(text, limit):
    _assert_pieces_show_the_code_of(text, limit)


def _assert_pieces_show_the_code_of(text: str, limit: int) -> None:
    """Each piece of ``text`` cut to ``limit`` is within it and, read on its own, shows a part of
    ``text``'s code (:func:`_shown`): all the pieces' code spans, one after another, show its code
    character for character; they show no more backticks as text (an unpaired run, a span cut open);
    its code blocks keep their text."""
    chunks = split_text(text, limit)
    assert all(0 < len(c) <= limit for c in chunks), [len(c) for c in chunks]
    code, ticks, blocks = _shown(text)
    shown = [_shown(c) for c in chunks]
    assert "".join(s[0] for s in shown) == code
    assert sum(s[1] for s in shown) == ticks
    assert "".join(s[2] for s in shown) == blocks


#: The quote and list markers a line opens with: how deep its blocks nest.
_CONTAINER_MARKERS = re.compile(r"[ >*+-]*")
markdown_words = st.text(alphabet="ab`\\~*_#>-", min_size=1, max_size=12)
markdown_lines = st.lists(st.one_of(markdown_words, st.sampled_from(["```", "~~~", "\n", "\n\n", "```py\n"])),
                          min_size=1, max_size=120)


@settings(max_examples=400, deadline=None)
@given(markdown_lines, st.integers(min_value=60, max_value=300))
def test_every_piece_shows_the_code_of_the_text_and_leaves_no_code_span_open(parts, limit):
    """Any text of words, backticks, escapes, fences and block markers, cut to any limit: see
    :func:`_assert_pieces_show_the_code_of`. (Links are left out: in rare texts a cut inside a
    link's brackets or address still changes which backticks pair. So are quotes and lists nested
    deeper than markdown-it-py reads them, ``maxNesting`` 20: past that depth the rest of a line is
    read differently in a piece that starts deeper in.)"""
    text = " ".join(parts)
    assume(max(len(_CONTAINER_MARKERS.match(line).group().replace(" ", "")) for line in text.split("\n")) < 16)
    _assert_pieces_show_the_code_of(text, limit)


@pytest.mark.parametrize(("text", "opener"), [
    ("- ```python and a long info string that runs on\n  x = 1\n  ```", "- ```python"),
    ("> 1. ~~~ yaml with more words than fit\n>    a: 1\n>    ~~~", "> 1. ~~~yaml"),
    ("* ```` sh -e and more words here\n  ls\n  ````", "* ````sh"),
])
def test_a_long_fence_line_written_short_keeps_its_list_item(text, opener):
    """A block's opening line longer than a piece is written as its fence and language: in a list
    item, after the item's own marker, so the block stays in its item."""
    chunks = split_text(text, 30)
    assert chunks[0].startswith(opener + "\n"), chunks


@pytest.mark.parametrize("limit", [31, 60, 80, 100])
@pytest.mark.parametrize("opening", ["- a\n  - ```python\n", "- a\n\n  - nested item\n\n    ```python\n",
                                     "1. a\n   1. b\n      ```\n"])
def test_a_code_block_in_a_nested_list_item_is_code_in_every_piece(opening, limit):
    """A piece that reopened a block of a nested item kept the item's indent (four spaces or more):
    read on its own, it was an indented code block showing the fences as text."""
    indent = " " * (len(opening.rstrip("\n").split("\n")[-1]) - len(opening.rstrip("\n").split("\n")[-1].lstrip()))
    text = opening + "\n".join(f"{indent}line{i} = compute({i})" for i in range(12)) + f"\n{indent}```\n"
    _assert_pieces_show_the_code_of(text, limit)
