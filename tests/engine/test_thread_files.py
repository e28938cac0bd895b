"""Files shared in a thread: read under limits into the thread's own index, searched and cited."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path
from urllib.parse import quote

import pytest

from engine.files import SharedFile, files_dir, files_status, ingest, load_manifest, thread_search
from engine.files.read import DOCX_MAX_RATIO, Unreadable, read_file
from engine.maintenance import prune_threads
from engine.runner import run_turn
from tests.shared_files import docx_bytes, encrypted_pdf_bytes, pdf_bytes, zip_bomb_docx_bytes

LINK = "https://example.slack.com/archives/C1/p1700000000000100"
PAGES = ["The Zephyr turbine delivers fourteen megawatts of rated power at coastal sites.",
         "Maintenance costs of the Zephyr turbine fall by thirty percent thanks to its modular gearbox."]


def _shared(tmp_path: Path, name: str, data: bytes, link: str = LINK) -> SharedFile:
    path = tmp_path / "in" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return SharedFile(name=name, link=f"{link}?file={name}", path=path, size=len(data))


def _sources(settings, thread: str) -> list[dict]:
    found = sorted(settings.artifacts_dir.glob(f"{thread.replace(':', '_')}/*/sources.json"))
    return json.loads(found[-1].read_text())["cited"]


def test_a_pdf_and_a_docx_become_cited_sources_linking_to_their_message(offline_settings, tmp_path):
    settings = offline_settings(allow_clarification=False, max_review_iterations=0)
    entries = ingest(settings, "slack:T1:C1:1.1", [
        _shared(tmp_path, "zephyr.pdf", pdf_bytes(PAGES, "Zephyr")),
        _shared(tmp_path, "pricing.docx", docx_bytes([("Pricing", "The Zephyr turbine costs two million euros "
                                                                   "per unit before any subsidy is applied.")])),
    ])
    assert [(e.name, e.status, e.pages) for e in entries] == [("zephyr.pdf", "read", 2), ("pricing.docx", "read", 0)]
    out = asyncio.run(run_turn("slack:T1:C1:1.1", question="What maintenance costs does the Zephyr turbine "
                               "have, and what does one unit cost?", settings=settings))
    report = out.artifacts.report_md.read_text()
    assert "thirty percent" in report and "two million euros" in report, report
    cited = {s["title"]: s["url"] for s in _sources(settings, "slack:T1:C1:1.1")}
    assert cited["zephyr.pdf, page 2"] == f"{LINK}?file=zephyr.pdf#page=2", cited
    assert cited["pricing.docx, section: Pricing"].startswith(f"{LINK}?file=pricing.docx#section="), cited
    assert not any(str(tmp_path) in url for url in cited.values())  # never a local path


def test_each_limit_skips_its_file_with_a_reason_and_the_research_still_runs(offline_settings, tmp_path):
    settings = offline_settings(allow_clarification=False, max_review_iterations=0, file_max_bytes=60 * 1024,
                                thread_files_max_bytes=100 * 1024)
    shared = [
        _shared(tmp_path, "big.txt", b"word " * 14000),
        _shared(tmp_path, "locked.pdf", encrypted_pdf_bytes("Secret Zephyr pricing")),
        _shared(tmp_path, "scan.pdf", pdf_bytes(["", ""])),
        _shared(tmp_path, "bomb.docx", zip_bomb_docx_bytes(20)),
        _shared(tmp_path, "broken.pdf", b"%PDF-1.4\n garbage that is no PDF at all"),
        _shared(tmp_path, "tool.exe", b"MZ\x90\x00"),
        SharedFile(name="elsewhere.pdf", link="https://example.slack.com/archives/C9/p1", size=100,
                   skipped="shared in another channel, not in this thread"),
        _shared(tmp_path, "zephyr.pdf", pdf_bytes(PAGES)),
        _shared(tmp_path, "filler.txt", b"Filler words about nothing in particular. " * 1200),
        _shared(tmp_path, "notes.md", b"# Notes\n\n" + b"The Zephyr is quiet. " * 2500),
    ]
    reasons = {e.name: e.reason for e in ingest(settings, "console:limits", shared)}
    assert reasons["big.txt"] == "larger than the 60 KB file limit"
    assert reasons["locked.pdf"] == "encrypted PDF (password protected)"
    assert reasons["scan.pdf"] == "scanned PDF without a text layer"
    assert "zip bomb" in reasons["bomb.docx"]
    assert reasons["broken.pdf"].startswith("corrupt PDF")
    assert reasons["tool.exe"] == "unsupported type (.exe)"
    assert reasons["elsewhere.pdf"] == "shared in another channel, not in this thread"
    assert reasons["zephyr.pdf"] == ""
    assert reasons["notes.md"] == "over the 100 KB limit of a thread's files"  # on top of the filler's 49 KB
    status = files_status(load_manifest(settings, "console:limits"))
    assert status.startswith("2 files read, 8 skipped: "), status
    out = asyncio.run(run_turn("console:limits", question="What maintenance costs does the Zephyr turbine have?",
                               settings=settings))
    assert out.status == "done" and "thirty percent" in out.artifacts.report_md.read_text()


def test_a_file_is_read_once_per_thread_and_the_manifest_keeps_every_file(offline_settings, tmp_path):
    settings = offline_settings()
    item = _shared(tmp_path, "zephyr.pdf", pdf_bytes(PAGES))
    assert len(ingest(settings, "console:once", [item])) == 1
    assert ingest(settings, "console:once", [item]) == []
    assert [e.name for e in load_manifest(settings, "console:once")] == ["zephyr.pdf"]
    search, entries = thread_search(settings, "console:once")
    results = asyncio.run(search.search("modular gearbox"))
    assert results[0].title == "zephyr.pdf, page 2" and results[0].url.endswith("#page=2")


def test_a_parse_over_the_timeout_is_skipped(offline_settings, tmp_path):
    settings = offline_settings(file_parse_timeout=0.05)
    [entry] = ingest(settings, "console:slow", [_shared(tmp_path, "zephyr.pdf", pdf_bytes(PAGES))])
    assert entry.status == "skipped" and entry.reason == "reading took over 0.05 seconds"


def test_page_and_character_caps_cut_a_file_and_say_so(tmp_path):
    path = tmp_path / "long.pdf"
    path.write_bytes(pdf_bytes([f"Page number {n} text about turbines." for n in range(1, 6)]))
    text = read_file(path, "long.pdf", max_pages=2, max_chars=10_000)
    assert (text.pages, [s[0] for s in text.sections]) == (5, ["page 1", "page 2"])
    assert text.truncated and text.note == "only the first 2 of 5 pages read"
    notes = tmp_path / "notes.txt"
    notes.write_text("turbine " * 5000)
    cut = read_file(notes, "notes.txt", max_pages=10, max_chars=1000)
    assert len(cut.sections[0][1]) <= 1000 and cut.note == "cut at 1,000 characters"


def test_markdown_html_and_csv_are_read_by_section(tmp_path):
    """A file of several parts is cited by its part's label; one read whole (text, HTML, Markdown or
    Word without headings) has none, and its citation names the file alone."""
    md = tmp_path / "a.md"
    md.write_text("Intro line.\n\n# Pricing\n\nIt costs a lot.\n\n## Support\n\nCall us.\n")
    assert [s[0] for s in read_file(md, "a.md", 10, 10_000).sections] == [
        "beginning", "section: Pricing", "section: Support"]
    page = tmp_path / "p.html"
    page.write_text('<title>T</title><script>evil()</script><img src="https://remote.example/x.png">'
                    "<p>Visible text only.</p>")
    assert read_file(page, "p.html", 10, 10_000).sections == [["", "Visible text only."]]
    plain = tmp_path / "plain.md"  # no heading: read whole, cited by its name alone ("plain.md, beginning" was odd)
    plain.write_text("Just a note without headings.\n")
    assert read_file(plain, "plain.md", 10, 10_000).sections == [["", "Just a note without headings."]]
    table = tmp_path / "t.csv"
    table.write_text("model,power\nZephyr,14 MW\nBreeze,8 MW\n")
    [(label, body)] = read_file(table, "t.csv", 10, 10_000).sections
    assert label == "rows 1-2" and "model: Zephyr; power: 14 MW" in body


def test_an_html_page_the_html_reader_refuses_is_skipped_with_its_reason(tmp_path, monkeypatch):
    """The HTML reader's own refusal (a parser error) is the file's skip reason, not an exception the
    reading process dies of."""
    import engine.search.extract

    def refuse(data: bytes):
        raise engine.search.extract.Unreadable("unreadable HTML (ParserError)")

    monkeypatch.setattr(engine.search.extract, "html_text", refuse)
    page = tmp_path / "p.html"
    page.write_bytes(b"<p>x</p>")
    with pytest.raises(Unreadable, match=r"^unreadable HTML \(ParserError\)$"):
        read_file(page, "p.html", 10, 1000)


def test_a_binary_file_posing_as_text_and_a_zip_bomb_are_refused(tmp_path):
    fake = tmp_path / "fake.txt"
    fake.write_bytes(b"\x00\x01\x02binary")
    with pytest.raises(Unreadable, match="binary"):
        read_file(fake, "fake.txt", 10, 1000)
    bomb = tmp_path / "bomb.docx"
    bomb.write_bytes(zip_bomb_docx_bytes(20))
    with pytest.raises(Unreadable, match=f"over {DOCX_MAX_RATIO} times"):
        read_file(bomb, "bomb.docx", 10, 1000)


def test_prune_deletes_the_threads_files(offline_settings, tmp_path):
    settings = offline_settings(allow_clarification=False, max_review_iterations=0)
    ingest(settings, "console:old", [_shared(tmp_path, "zephyr.pdf", pdf_bytes(PAGES))])
    asyncio.run(run_turn("console:old", question="What maintenance costs does the Zephyr have?", settings=settings))
    assert (files_dir(settings, "console:old") / "index.sqlite").is_file()
    gone = asyncio.run(prune_threads(settings, older_than_days=-1))
    assert gone.threads == ["console:old"] and not files_dir(settings, "console:old").exists()


def test_web_and_files_are_searched_side_by_side_and_no_file_text_reaches_the_web(offline_settings, fake_tavily,
                                                                                  tmp_path):
    settings = offline_settings(allow_clarification=False, max_review_iterations=0, search="tavily",
                                tavily_api_key="tvly-test", tavily_url=fake_tavily.base_url)
    ingest(settings, "console:both", [_shared(tmp_path, "zephyr.pdf", pdf_bytes(PAGES))])
    out = asyncio.run(run_turn("console:both", question="What maintenance costs does the Zephyr turbine have?",
                               settings=settings))
    found = sorted(settings.artifacts_dir.glob("console_both/*/sources.json"))
    urls = [s["url"] for s in json.loads(found[-1].read_text())["found"]]
    assert any(u.startswith(LINK) for u in urls) and any(u.startswith("https://example.org/") for u in urls), urls
    assert fake_tavily.queries and not any("thirty" in q or "gearbox" in q for q in fake_tavily.queries)
    assert out.status == "done"


def test_the_status_line_says_how_many_skip_reasons_it_leaves_out():
    from engine.files import FileEntry

    entries = [FileEntry(name=f"f{n}.pdf", link="x", size=1, status="skipped", reason=f"reason {n}") for n in range(5)]
    assert files_status(entries) == "0 files read, 5 skipped: reason 0, reason 1, reason 2, +2 more"


def test_a_newline_in_a_file_name_does_not_reach_the_source_title(offline_settings, tmp_path):
    settings = offline_settings(allow_clarification=False, max_review_iterations=0)
    item = _shared(tmp_path, "zephyr.pdf", pdf_bytes(PAGES))
    item.name = "zephyr\nnotes\r\x1b.pdf"
    [entry] = ingest(settings, "console:nl", [item])
    assert entry.name == "zephyr notes .pdf", entry
    asyncio.run(run_turn("console:nl", question="What maintenance costs does the Zephyr turbine have?",
                         settings=settings))
    titles = [s["title"] for s in _sources(settings, "console:nl")]
    assert titles and all("\n" not in t and "\r" not in t for t in titles), titles


@pytest.mark.parametrize("name,data", [
    ("page.html", b"<html><body><p>The HX-9 has a COP of 4.7.</p></body></html>"),
    ("notes.md", b"# HX-9\n\nThe HX-9 has a COP of 4.7.\n"),
    ("pumps.csv", b"model,cop\nHX-9,4.7\nHX-3,3.1\n"),
])
def test_the_offline_report_quotes_a_short_file_passage_or_row(offline_settings, tmp_path, name, data):
    settings = offline_settings(allow_clarification=False, max_review_iterations=1)
    thread = f"console:short-{name.replace('.', '-')}"
    ingest(settings, thread, [_shared(tmp_path, name, data)])
    out = asyncio.run(run_turn(thread, question="What COP does it have?", settings=settings))
    report = out.artifacts.report_md.read_text()
    assert "No sources were found" not in report, report
    assert "4.7" in report, report
    assert "cites 0 of" not in out.artifacts.review_md.read_text()


NOTES_MD = (b"# Heat pump vendor notes\n\n## Warranty\n\nThe vendor Acme promises a **10-year warranty** on the "
            b"compressor and 5 years on all other parts.\nRead the [terms](https://example.org/terms) and "
            b"`acme.conf` first.\n\n## Noise\n\n- The outdoor unit is *quiet*: 48 dB(A) at 3 m.\n")


def test_a_markdown_file_is_read_as_the_text_its_reader_sees(tmp_path):
    md = tmp_path / "notes.md"
    md.write_bytes(NOTES_MD)
    sections = dict(read_file(md, "notes.md", 10, 10_000).sections)
    assert list(sections) == ["section: Heat pump vendor notes", "section: Warranty", "section: Noise"]
    assert "The vendor Acme promises a 10-year warranty on the compressor" in sections["section: Warranty"]
    assert "Read the terms (https://example.org/terms) and acme.conf first." in sections["section: Warranty"]
    assert "The outdoor unit is quiet: 48 dB(A) at 3 m." in sections["section: Noise"]
    assert not any(mark in text for text in sections.values() for mark in ("**", "##", "`", "](")), sections


def test_a_sentence_with_emphasis_in_a_markdown_file_is_quoted_as_read(offline_settings, tmp_path):
    settings = offline_settings(allow_clarification=False, max_review_iterations=1)
    ingest(settings, "console:md-emphasis", [_shared(tmp_path, "notes.md", NOTES_MD)])
    out = asyncio.run(run_turn("console:md-emphasis", question="What warranty does the vendor Acme promise on the "
                               "compressor?", settings=settings))
    report = out.artifacts.report_md.read_text()
    assert "The vendor Acme promises a 10-year warranty on the compressor" in report, report


def test_the_offline_report_counts_sources_when_none_has_a_passage_to_quote():
    from engine.offline_text import extractive_report

    report = extractive_report(brief="What COP does it have?", findings="### COP\n\n(nothing)\n", language="en",
                               notice="offline", sources_found=2)
    assert "No sources were found" not in report and "2 sources found; none had a passage on this question to quote" in report


def test_a_setting_named_in_a_prose_sentence_is_quoted_not_taken_for_code(offline_settings, tmp_path):
    guide = (b"# Turbine guide\n\nThe turbine warranty covers all blades for five years.\n\n"
             b"The turbine controller is configured with max_rpm = 18 in the file turbine.conf.\n\n"
             b"```\nrpm = read_setting(\"max_rpm\")\n```\n")
    settings = offline_settings(allow_clarification=False, max_review_iterations=1)
    ingest(settings, "console:setting", [_shared(tmp_path, "guide.md", guide)])
    out = asyncio.run(run_turn("console:setting", question="What does the turbine warranty cover and how is the "
                               "turbine controller configured?", settings=settings))
    report = out.artifacts.report_md.read_text()
    assert "The turbine controller is configured with max\\_rpm = 18 in the file turbine.conf." in report \
        or "The turbine controller is configured with max_rpm = 18 in the file turbine.conf." in report, report
    assert "read_setting" not in report and "read\\_setting" not in report  # the code line is still no finding


def test_a_file_given_on_this_host_is_keyed_by_its_name_and_a_digest_of_where_it_is(tmp_path: Path) -> None:
    import os

    from engine.files.entries import local_file_link
    from engine.source_links import source_text, web_link

    odd = os.fsdecode(b"caf\xe9 #1?.pdf")  # a name that is not UTF-8, with a fragment and query sign
    data = tmp_path / "data"
    links = [local_file_link(tmp_path / "a" / odd, data), local_file_link(tmp_path / "b" / odd, data),
             local_file_link(tmp_path / "a" / ".." / "a" / odd, data)]
    assert links[0] == links[2] != links[1]  # where it is, not how the path was spelled
    assert all(link.endswith("/caf%E9%20%231%3F.pdf") and str(tmp_path) not in link for link in links)
    assert web_link(links[0]) is None and source_text("café #1?.pdf, page 2", f"{links[0]}#page=2") == \
        "café #1?.pdf, page 2"


def _key_in_another_process(path: Path, data: Path) -> subprocess.Popen:
    code = "import sys; from engine.files.entries import local_file_link; print(local_file_link(sys.argv[1], sys.argv[2]))"
    return subprocess.Popen([sys.executable, "-c", code, str(path), str(data)], stdout=subprocess.PIPE, text=True,
                            cwd=Path(__file__).resolve().parents[2])


@pytest.mark.parametrize("where", ["/home/alice/Downloads/notes.md", "/tmp/bf/x y#1/notes [v2] Ü?.md", "/srv/a.pdf"])
def test_a_local_file_key_cannot_be_confirmed_from_a_guessed_path(tmp_path: Path, where: str) -> None:
    import hashlib
    import stat

    from engine.files.entries import local_file_link

    data = tmp_path / "data"
    key = local_file_link(Path(where), data)
    digest = key.split(":", 1)[1].split("/", 1)[0]
    spellings = [where.encode(), where.encode("utf-8", "surrogateescape"), os.fsencode(where)]
    for name in hashlib.algorithms_guaranteed:  # no hash of the path alone gives the key
        for raw in spellings:
            made = hashlib.new(name, raw)
            hexed = made.hexdigest(16) if name.startswith("shake") else made.hexdigest()
            assert digest not in hexed, name
    assert where.rsplit("/", 1)[0] not in key and key.endswith("/" + quote(Path(where).name, safe=""))
    secrets_made = [p for p in data.iterdir() if p.is_file()]
    assert secrets_made and all(stat.S_IMODE(p.stat().st_mode) == 0o600 for p in secrets_made)
    others = [_key_in_another_process(Path(where), data), _key_in_another_process(Path(where), tmp_path / "other")]
    again, elsewhere = (p.communicate(timeout=60)[0].strip() for p in others)
    assert again == key  # the same installation: the same key in the next run
    assert elsewhere != key and elsewhere.endswith(key.rsplit("/", 1)[1])  # another installation: another


def test_two_processes_making_the_first_key_of_an_installation_agree(tmp_path: Path) -> None:
    data = tmp_path / "data"
    racers = [_key_in_another_process(tmp_path / "notes.md", data) for _ in range(4)]
    keys = {p.communicate(timeout=60)[0].strip() for p in racers}
    assert len(keys) == 1 and all(p.returncode == 0 for p in racers), keys
    assert [p.name for p in data.iterdir()] == ["local-files.secret"]  # no temporary file left behind


def test_the_models_list_of_files_tells_two_files_of_one_name_apart_as_their_citations_do():
    """Two folders' ``notes.md``: the prompt lists the second as ``notes.md (2)``, the name its
    passages are cited by, so the model can tell which file a search result came from."""
    from engine.files import FileEntry, files_prompt

    entries = [FileEntry(name="notes.md", link="local-file:a", size=2048, status="read", kind="markdown", sections=2),
               FileEntry(name="scan.pdf", link="local-file:s", size=10, status="skipped", reason="no text layer"),
               FileEntry(name="notes.md", link="local-file:b", size=1024, status="read", kind="markdown", sections=1),
               FileEntry(name="report.pdf", link="local-file:r", size=4096, status="read", kind="pdf", pages=1)]
    listed = [line for line in files_prompt(entries).splitlines() if line.startswith("- ")]
    assert listed == ["- notes.md (markdown, 2 KB, 2 sections)", "- notes.md (2) (markdown, 1 KB, 1 section)",
                      "- report.pdf (pdf, 4 KB, 1 page)"]


SOLAR = ("Monocrystalline solar panels reach an efficiency of 22 % in 2026 tests. Solar panels on a south-facing "
         "roof in Munich produce about 1,000 kWh per kWp each year.")
BATTERY = "A home battery of 10 kWh raises the self-consumption of solar panels from 30 % to 70 %."


@pytest.mark.parametrize("name,data,cited", [
    ("solar.pdf", pdf_bytes([f"Solar panels. {SOLAR}", f"Batteries. {BATTERY}"]), "solar.pdf, page 2"),
    ("solar.md", f"# Solar panels\n\n{SOLAR}\n\n## Batteries\n\n{BATTERY}\n".encode(), "solar.md, section: Batteries"),
    ("solar.txt", f"Solar panels\n\n{SOLAR}\n\nBatteries\n\n{BATTERY}\n".encode(), "solar.txt"),  # read whole: its name alone
])
def test_a_shared_files_page_found_alone_is_quoted_as_the_whole_file_would_be(offline_settings, tmp_path, name,
                                                                                data, cited):
    """A file shared in a thread is searched page by page (section by section): the page that answers
    is found alone, and its sentence is quoted as it is from the same file in a corpus (it was left
    out: "1 source found; it had no passage on this question to quote")."""
    settings = offline_settings(allow_clarification=False, max_review_iterations=1)
    thread = f"slack:T1:C1:{name}"
    ingest(settings, thread, [_shared(tmp_path, name, data)])
    out = asyncio.run(run_turn(thread, question="How much does a home battery add?", settings=settings))
    report = out.artifacts.report_md.read_text()
    assert f"{BATTERY} [1]" in report and "no passage on this question" not in report, report
    assert [s["title"] for s in _sources(settings, thread)] == [cited], report
