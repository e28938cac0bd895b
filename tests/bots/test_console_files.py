"""`deepresearch ask --file PATH`: the files given are read, cited by page, and their fate is said."""

from __future__ import annotations

import json
import re

from tests.bots.console_helpers import ask, report_of
from tests.shared_files import encrypted_pdf_bytes, pdf_bytes

PAGES = ["The Zephyr turbine delivers fourteen megawatts of rated power at coastal sites.",
         "Maintenance costs of the Zephyr turbine fall by thirty percent thanks to its modular gearbox."]


def test_ask_file_cites_the_pdf_pages_and_the_status_counts_read_and_skipped(tmp_path):
    (tmp_path / "report.pdf").write_bytes(pdf_bytes(PAGES, "Zephyr"))
    (tmp_path / "locked.pdf").write_bytes(encrypted_pdf_bytes("hidden"))
    out = ask(tmp_path, "--offline", "--no-clarify", "--file", "report.pdf", "--file", "locked.pdf",
              "What maintenance costs does the Zephyr turbine have?")
    assert out.returncode == 0, out.stderr
    assert "skipped locked.pdf: encrypted PDF (password protected)" in out.stderr
    assert "1 file read, 1 skipped: encrypted PDF (password protected)" in out.stderr
    assert "search: none configured" not in out.stderr  # the files are the sources
    report_md = next(line.strip() for line in out.stdout.splitlines() if line.strip().endswith("report.md"))
    report = open(report_md).read()
    assert "thirty percent" in report, report
    assert re.search(r"^\d+\. report\.pdf, page 2$", report, re.MULTILINE), report  # its name, no dead link
    folder = report_md.rsplit("/", 1)[0]
    for name in ("report.md", "review.md", "sources.json"):  # this host's folders appear nowhere
        text = open(f"{folder}/{name}").read()
        assert str(tmp_path) not in text.replace(folder, "") and "file://" not in text, name


def test_ask_two_files_of_one_name_from_two_folders_are_two_sources(tmp_path):
    for folder, cop in (("a", "4.7"), ("b", "3.1")):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "notes.md").write_text(f"# HX-{folder}\n\nThe HX heat pump has a COP of {cop} at seven "
                                                    f"degrees, measured by lab {folder}.\n")
    out = ask(tmp_path, "--offline", "--no-clarify", "--file", "a/notes.md", "--file", "b/notes.md",
              "What COP does the HX heat pump have?")
    assert out.returncode == 0, out.stderr
    assert "files: 2 files read" in out.stderr, out.stderr
    report_md = next(line.strip() for line in out.stdout.splitlines() if line.strip().endswith("report.md"))
    sources = json.loads(open(report_md.rsplit("/", 1)[0] + "/sources.json").read())
    assert len({s["id"] for s in sources["found"]}) == 2 and str(tmp_path) not in json.dumps(sources)
    # the reader tells them apart by name alone; no digest of where they are is published
    assert {s["title"].split(",")[0] for s in sources["found"]} == {"notes.md", "notes.md (2)"}, sources
    assert all(s["url"].startswith("notes.md#") for s in sources["found"] + sources["cited"]), sources
    listed = re.findall(r"^\d+\. (notes\.md(?: \(2\))?), ", open(report_md).read(), re.MULTILINE)
    assert sorted(listed) == ["notes.md", "notes.md (2)"], listed


def test_ask_file_that_does_not_exist_is_bad_input_before_any_work(tmp_path):
    out = ask(tmp_path, "--offline", "--file", "missing.pdf", "What is in the file?")
    assert out.returncode == 2 and "--file missing.pdf: no such file." in out.stderr, out.stderr
    assert not (tmp_path / "data" / "threadfiles").exists()


def test_ask_file_that_is_a_directory_fifo_or_device_is_bad_input_saying_what_it_is(tmp_path):
    import os

    (tmp_path / "adir").mkdir()
    os.mkfifo(tmp_path / "fifo")
    for path, said in (("adir", "is a directory"), ("fifo", "is not a regular file"),
                       ("/dev/zero", "is not a regular file")):
        out = ask(tmp_path, "--offline", "--file", path, "What is in the file?")
        assert out.returncode == 2 and f"--file {path}: {said}." in out.stderr, out.stderr
    assert not (tmp_path / "data" / "threadfiles").exists()


def test_ask_the_same_file_twice_reads_it_once_and_counts_it_once(tmp_path):
    """A file given again (by any path) is one file, read once: said so, never counted as skipped; the
    files line and the progress lines count the same files (the line counted the repeat as skipped,
    "2 skipped", where the progress said "1 skipped")."""
    (tmp_path / "notes.md").write_text("# HX-9\n\nThe HX-9 heat pump has a COP of 4.7 at seven degrees.\n")
    (tmp_path / "data.bin").write_bytes(b"\x00\x01 not a document")
    out = ask(tmp_path, "--offline", "--no-clarify", "--file", "notes.md", "--file", "./notes.md", "--file", "data.bin",
              "What COP does the HX-9 have?")
    assert out.returncode == 0, out.stderr
    assert "Reading 2 files …" in out.stderr and "notes.md: given twice, read once" in out.stderr, out.stderr
    status = "1 file read, 1 skipped: unsupported type (.bin)"
    assert f"files: {status}\n" in out.stderr, out.stderr
    progress = [ln for ln in out.stderr.splitlines() if " · " in ln]
    assert progress and all(f" · {status} · " in ln for ln in progress), out.stderr
    assert "twice" not in out.stderr.replace("notes.md: given twice, read once", ""), out.stderr


def test_ask_short_files_are_quoted_in_the_offline_report(tmp_path):
    (tmp_path / "page.html").write_text("<html><body><p>The HX-9 has a COP of 4.7.</p></body></html>")
    (tmp_path / "pumps.csv").write_text("model,cop\nHX-9,4.7\nHX-3,3.1\n")
    out = ask(tmp_path, "--offline", "--no-clarify", "--file", "page.html", "--file", "pumps.csv",
              "What COP does the HX-9 have?")
    assert out.returncode == 0, out.stderr
    report = open(next(line.strip() for line in out.stdout.splitlines() if line.strip().endswith("report.md"))).read()
    assert "No sources were found" not in report, report
    assert "COP of 4.7" in report and "cop: 4.7" in report, report


def test_a_resumed_file_thread_is_not_said_to_have_no_sources(tmp_path):
    """The files given at the start are the thread's sources on --resume too (it said "search: none
    configured … the report will have no sources", then cited them)."""
    (tmp_path / "notes.md").write_text("# Heat pumps\n\nRunning a heat pump costs about 900 euros a year in "
                                       "Germany.\n", encoding="utf-8")
    first = ask(tmp_path, "--offline", "--file", "notes.md", "heat pumps")
    assert first.returncode == 3, first.stderr  # a clarifying question, answered with --resume
    assert "search: none configured" not in first.stderr
    thread = re.search(r"thread: (console:\S+)", first.stderr).group(1)
    again = ask(tmp_path, "--offline", "--resume", thread, "--answer", "running costs in Germany")
    assert again.returncode == 0, again.stderr
    assert "search: none configured" not in again.stderr, again.stderr


def test_the_same_file_by_any_path_is_read_once_and_said_once(tmp_path):
    """The same file by a symlink, ``./`` or a hard link (same device and inode) is one file: one
    note, saying how many times it was given, and one file read."""
    (tmp_path / "notes.md").write_text("# HX-9\n\nThe HX-9 heat pump has a COP of 4.7 at seven degrees.\n")
    (tmp_path / "hard.md").hardlink_to(tmp_path / "notes.md")
    (tmp_path / "sym.md").symlink_to("notes.md")
    out = ask(tmp_path, "--offline", "--no-clarify", "--file", "notes.md", "--file", "./notes.md", "--file", "notes.md",
              "--file", "sym.md", "--file", "hard.md", "What COP does the HX-9 have?")
    assert out.returncode == 0, out.stderr
    assert "Reading 1 file …" in out.stderr and "files: 1 file read\n" in out.stderr, out.stderr
    notes = [ln for ln in out.stderr.splitlines() if "read once" in ln]
    assert notes == ["notes.md: given 5 times, read once"], out.stderr


def test_ask_offline_never_quotes_a_pronoun_sentence_with_the_paragraph_before_it(tmp_path):
    """A file's sentence, then after a blank line one that starts with a pronoun: the claim quoted
    both as one passage across the paragraph break."""
    (tmp_path / "notes.md").write_text(
        "# Zephyr notes\n\nThe Zephyr-9 is a compact wind turbine designed for rooftops in windy coastal towns.\n\n"
        "It was released in 2024 by Nordwind GmbH.\n\n"
        "The Zephyr-9 blades are made of recycled carbon fibre. They turn even at low wind speeds on roofs.\n")
    out = ask(tmp_path, "--offline", "--no-clarify", "--file", "notes.md",
              "Who released the Zephyr-9 wind turbine and when?")
    assert out.returncode == 0, out.stderr
    report = report_of(tmp_path, out.stdout).read_text()
    assert "coastal towns. It was released" not in report, report
    assert "It was released in 2024" not in report, report  # on its own it says nothing of the Zephyr-9
    assert "The Zephyr-9 is a compact wind turbine" in report, report


SOLAR_PAGES = ["Solar panels. Monocrystalline solar panels reach an efficiency of 22 % in 2026 tests. Solar panels on "
               "a south-facing roof in Munich produce about 1,000 kWh per kWp each year.",
               "Batteries. A home battery of 10 kWh raises the self-consumption of solar panels from 30 % to 70 %."]
BATTERY = "A home battery of 10 kWh raises the self-consumption of solar panels from 30 % to 70 %."


def test_a_file_given_with_the_question_is_quoted_as_the_same_file_in_a_corpus(tmp_path):
    """A PDF given with --file and the same PDF in a corpus both quote the page that answers; the file,
    indexed page by page, found its page 2 alone and quoted nothing ("it had no passage on this
    question to quote"). A Markdown file's section is quoted the same way."""
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "solar.pdf").write_bytes(pdf_bytes(SOLAR_PAGES, "Solar"))
    (tmp_path / "solar.md").write_text(f"# Solar panels\n\n{SOLAR_PAGES[0][14:]}\n\n## Batteries\n\n{BATTERY}\n")
    question = "How much does a home battery add?"
    for args, cited in ((("--file", "docs/solar.pdf"), "solar.pdf, page 2"),
                        (("--file", "solar.md"), "solar.md, section: Batteries"),
                        (("--corpus", "docs"), "solar.pdf")):
        out = ask(tmp_path, "--offline", "--no-clarify", *args, question)
        assert out.returncode == 0, out.stderr
        report = report_of(tmp_path, out.stdout).read_text()
        assert f"{BATTERY} [1]" in report and "no passage on this question" not in report, (args, report)
        assert re.search(rf"^1\. .*{re.escape(cited)}", report, re.MULTILINE), (args, report)


HEAT_PUMP_COST = "Air-source heat pumps cost about 1,200 € per year to run in Germany in 2026."


def _heat_pump_corpus(tmp_path):
    """A few files: the page that answers, a page of command lines naming every word of the question
    as options and paths, and pages on other things."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "costs.md").write_text(f"# Heating costs\n\n{HEAT_PUMP_COST}\n", encoding="utf-8")
    (docs / "tools.md").write_text(
        "# hpctl\n\nTo read the heat pump's log, run `hpctl --log /var/log/heat-pumps/cheapest-run.log --since 2026-01-01`.\n\n"
        "```sh\n$ hp-tool --country germany --year 2026 --sort cheapest --run heat-pumps\n```\n", encoding="utf-8")
    (docs / "garden.txt").write_text("Tomatoes need six hours of sun a day and water in the morning.\n")
    (docs / "travel.txt").write_text("Trains in Germany run every hour between the larger cities.\n")
    return docs


def test_a_command_line_naming_the_questions_words_is_not_quoted_over_the_answer(tmp_path):
    """The command lines name every word of the question ("--cheapest", "--run", "heat-pumps", "2026")
    and were quoted first, before the sentence that answers; a command line is no finding."""
    docs = _heat_pump_corpus(tmp_path)
    out = ask(tmp_path, "--offline", "--no-clarify", "--corpus", str(docs), "--out", str(tmp_path / "out"),
              "Which heat pumps are cheapest to run in Germany in 2026?")
    assert out.returncode == 0, out.stderr[-2000:]
    report = (tmp_path / "out" / "report.md").read_text(encoding="utf-8")
    findings = report.split("## Findings", 1)[1].split("## Review outcome", 1)[0]
    assert f"- {HEAT_PUMP_COST} [1]" in findings, report
    assert "hp-tool" not in report and "hpctl --" not in report and "--cheapest" not in report, report


def test_a_later_question_nothing_answers_is_named_under_the_findings(tmp_path):
    """"…? How loud are they?" was one sub-question with the first, headed by both: the report quoted
    the cost sentence under it and never said that nothing was found on loudness."""
    docs = _heat_pump_corpus(tmp_path)
    for n, (question, later) in enumerate((
            ("Which heat pumps are cheapest to run in Germany? How loud are they?", "How loud are heat pumps"),
            ("Which heat pumps are cheapest to run in Germany, and how loud are they?", "How loud are heat pumps"))):
        out = ask(tmp_path, "--offline", "--no-clarify", "--corpus", str(docs), "--out", str(tmp_path / f"out{n}"),
                  question)
        assert out.returncode == 0, out.stderr[-2000:]
        report = (tmp_path / f"out{n}" / "report.md").read_text(encoding="utf-8")
        assert "## Findings: Which heat pumps are cheapest to run in Germany\n" in report, report
        assert f"*Nothing more to quote was found on: {later}.*" in report, report
        assert HEAT_PUMP_COST in report, report


def test_a_listed_item_quotes_only_what_the_question_asks_of_it(tmp_path):
    """Under "How much noise do heat pumps make" a sentence must name the noise, not the heat pumps
    alone: renting one, its landlord, a wind turbine's rated power or a panel's ageing are not quoted."""
    docs = tmp_path / "corpus"
    docs.mkdir()
    (docs / "hp.md").write_text("A typical air-source heat pump produces 45 to 55 dB(A) of noise at one metre.\n"
                                "Some companies rent heat pumps for a monthly fee.\n"
                                "Heat pumps are replaced by the landlord in rented flats.\n")
    (docs / "wind.md").write_text("Wind turbines make about 40 dB(A) of noise at 300 metres.\n"
                                  "Modern wind turbines have a rated power of 5 MW.\n")
    (docs / "solar.md").write_text("Solar panels make no noise; their inverters can hum.\n"
                                   "Solar panels lose about 0.5 percent efficiency per year.\n")
    out = ask(tmp_path, "--offline", "--no-clarify", "--corpus", str(docs), "--out", str(tmp_path / "out"),
              "How much noise do heat pumps, wind turbines and solar panels make?")
    assert out.returncode == 0, out.stderr
    report = (tmp_path / "out" / "report.md").read_text()
    for said in ("45 to 55 dB(A)", "about 40 dB(A)", "make no noise"):
        assert said in report, report
    for beside in ("monthly fee", "landlord", "rated power", "efficiency per year"):
        assert beside not in report, report
    summary = report.split("## Executive summary", 1)[1].split("\n## ", 1)[0]
    assert summary.strip().startswith("A typical air-source heat pump"), summary


def test_a_later_german_question_is_named_with_the_first_one_s_subject(tmp_path):
    """"Wie laut sind Wärmepumpen und was kosten sie?" named its second question "was kosten sie"
    under the findings: a pronoun without the thing it stands for, in small letters."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "laerm.md").write_text(
        "# Lärm\n\nWärmepumpen sind im Betrieb etwa so laut wie ein Kühlschrank, rund 35 dB in fünf Metern.\n",
        encoding="utf-8")
    out = ask(tmp_path, "--offline", "--no-clarify", "--corpus", str(docs), "--out", str(tmp_path / "out"),
              "Wie laut sind Wärmepumpen und was kosten sie?")
    assert out.returncode == 0, out.stderr[-2000:]
    report = (tmp_path / "out" / "report.md").read_text(encoding="utf-8")
    assert "## Ergebnisse: Wie laut sind Wärmepumpen\n" in report, report
    assert "*Zu diesen Teilfragen fand sich nichts weiter zu zitieren: Was kosten Wärmepumpen.*" in report, report
    assert report.count("kosten sie") == 2, report  # the question as asked, at the top and in the title
