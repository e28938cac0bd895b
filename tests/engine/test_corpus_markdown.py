"""A Markdown file of the corpus is indexed and quoted as a reader of it sees it, not as its markup."""

from __future__ import annotations

from pathlib import Path

from engine.search.corpus import CorpusSearch
from engine.search.corpus_index import index_directory
from engine.search.extract import extract_document

NOTES = """---
title: Pump notes
---
# Heat *pumps* today

They are *really* efficient, says [the agency's report](<https://example.org/a b>) and **Ofgem**;
the flag `--cop *x*` and `<b>` stay as written, \\*escaped\\* too &amp; more.

- first _item_ ![a chart](chart.png)
- second ~~item~~ <span>text</span> <script>tracker()</script>

| Model | COP |
|---|---|
| *Air* | [3.5](https://example.org/c) |

> A quoted **claim**.

```sh
pump --mode *eco*
```
"""

SEEN = """# Heat pumps today

They are really efficient, says the agency's report and Ofgem;
the flag --cop *x* and <b> stay as written, *escaped* too & more.

first item a chart
second item text [script]

Model\tCOP
Air\t3.5

A quoted claim.

pump --mode *eco*"""


def test_a_markdown_file_is_read_as_a_reader_sees_it(tmp_path: Path) -> None:
    path = tmp_path / "notes.md"
    path.write_text(NOTES, encoding="utf-8")
    assert extract_document(path, path.stat().st_size) == ("Pump notes", SEEN)
    (tmp_path / "untitled.md").write_text("Really *fast* [pumps](https://example.org/)\n\nThey work.\n", encoding="utf-8")
    assert extract_document(tmp_path / "untitled.md", 60) == ("Really fast pumps", "Really fast pumps\n\nThey work.")


async def test_a_passage_of_a_markdown_file_is_quoted_without_its_markup(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "notes.md").write_text(NOTES, encoding="utf-8")
    index_directory(docs, tmp_path / "corpus.sqlite")
    (result,) = await CorpusSearch(tmp_path / "corpus.sqlite").search("efficient agency")
    assert "They are really efficient, says the agency's report and Ofgem;" in result.content
    for markup in ("*really*", "](", "**", "~~", "<span>", "tracker()"):
        assert markup not in result.raw_content, markup
