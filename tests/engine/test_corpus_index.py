"""The corpus index as an operator sees it: re-indexing, skipped files, write failures, logs, passages."""

from __future__ import annotations

import asyncio
import logging
import os
import resource
import sqlite3
import textwrap
from collections.abc import Iterator
from contextlib import closing, contextmanager
from pathlib import Path

import pytest

from engine.fsutil import StorageError
from engine.search import corpus_index
from engine.search.base import SearchError
from engine.search.corpus import CorpusSearch, query_words
from engine.search.corpus_index import add_documents, index_directory
from engine.search.corpus_layout import CorpusIndexError, index_root
from engine.search.passages import split_passages

FILES = {
    "a_solar.md": "# Solar\n\nPhotovoltaic cells turn sunlight into current.\n",
    "b_wind.txt": "Wind\n\nA turbine spins a generator with its blades.\n",
    "c_geo.md": "# Geothermal\n\nMagma warms the aquifers.\n",
    "d_tides.md": "# Tides\n\nLagoons hold seawater behind a wall.\n",
}


@pytest.fixture
def docs(tmp_path: Path) -> Path:
    folder = tmp_path / "docs"
    folder.mkdir()
    for name, text in FILES.items():
        (folder / name).write_text(text)
    return folder


async def _titles(index: Path, query: str) -> list[str]:
    return [r.title for r in await CorpusSearch(index).search(query)]


_REFUSED = r"the disk refused a write \(full, or an input/output error\)"


@contextmanager
def _file_size_limit(nbytes: int) -> Iterator[None]:
    """Files may not grow past ``nbytes`` (a full disk as SQLite meets it: EFBIG on write)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    resource.setrlimit(resource.RLIMIT_FSIZE, (nbytes, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))


async def test_changing_one_file_leaves_every_other_file_searchable(docs: Path, tmp_path: Path) -> None:
    index = tmp_path / "corpus.sqlite"
    index_directory(docs, index)
    (docs / "d_tides.md").write_text("# Tides\n\nBarrages span estuaries.\n")
    stats = index_directory(docs, index)
    assert (stats.documents, stats.added, stats.unchanged, stats.removed) == (4, 1, 3, 0)
    for word, title in (("photovoltaic", "Solar"), ("turbine", "Wind"), ("magma", "Geothermal"),
                        ("estuaries", "Tides")):
        assert await _titles(index, word) == [title]
    assert await _titles(index, "lagoons") == []


async def test_a_file_that_became_unreadable_is_dropped_and_counted(docs: Path, tmp_path: Path) -> None:
    index = tmp_path / "corpus.sqlite"
    index_directory(docs, index)
    (docs / "c_geo.md").write_text("  \n")
    (docs / "d_tides.md").write_text("\n")
    stats = index_directory(docs, index)
    assert (stats.documents, stats.added, stats.unchanged, stats.removed, stats.skipped) == (2, 0, 2, 2, 2)
    assert stats.skipped_files == [(str(docs / "c_geo.md"), "no text"), (str(docs / "d_tides.md"), "no text")]
    assert await _titles(index, "magma") == []
    (docs / "c_geo.md").unlink()
    (docs / "d_tides.md").unlink()
    (docs / "a_solar.md").unlink()
    assert index_directory(docs, index).removed == 1
    assert await _titles(index, "turbine") == ["Wind"]


def test_indexing_another_folder_starts_afresh_and_says_so(docs: Path, tmp_path: Path,
                                                           caplog: pytest.LogCaptureFixture) -> None:
    index = tmp_path / "corpus.sqlite"
    index_directory(docs, index)
    inner = docs / "inner"
    inner.mkdir()
    (inner / "moon.md").write_text("# Moon\n\nLunar regolith.\n")
    parent = tmp_path
    with caplog.at_level(logging.INFO, logger="engine.search.corpus_index"):
        stats = index_directory(parent, index)  # the old folder's files are under the new one
    assert (stats.documents, stats.added, stats.unchanged, stats.removed) == (5, 5, 0, 0)
    assert f'corpus_replace old_root="{docs}" new_root="{parent}"' in caplog.messages
    assert index_root(index) == str(parent)


def test_each_run_logs_what_it_did(docs: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    (docs / "e_empty.md").write_text("\n")
    index = tmp_path / "corpus.sqlite"
    with caplog.at_level(logging.INFO, logger="engine.search.corpus_index"):
        stats = index_directory(docs, index)
    assert f'corpus_skip path="{docs}/e_empty.md" reason="no text"' in caplog.messages
    (line,) = [m for m in caplog.messages if m.startswith("corpus_indexed ")]
    assert line.startswith(f'corpus_indexed root="{docs}"'
                           f" documents=4 added=4 unchanged=0 removed=0 skipped=1 "
                           f"passages=4 seconds=")
    assert 0 < stats.seconds < 60 and float(line.rsplit("=", 1)[1]) == round(stats.seconds, 2)


def test_hidden_files_and_files_that_cannot_be_read_are_left_out(docs: Path, tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    (docs / ".draft.md").write_text("# Draft\n\nunicornword\n")
    (docs / "a_locked.md").write_text("# Locked\n")
    (docs / "a_odd.md").write_text("# Odd\n")
    stat = Path.stat

    def refuse(self: Path, **kwargs):
        if self.name == "a_locked.md":
            raise PermissionError(13, "Permission denied")
        if self.name == "a_odd.md":
            raise OSError("no reason given")
        return stat(self, **kwargs)

    monkeypatch.setattr(Path, "stat", refuse)
    stats = index_directory(docs, tmp_path / "corpus.sqlite")
    assert stats.skipped_files == [(str(docs / "a_locked.md"), "Permission denied"),
                                   (str(docs / "a_odd.md"), "OSError")]
    assert stats.documents == 4  # the files after the unreadable ones are all there


def test_a_pipe_named_like_a_document_is_passed_over(docs: Path, tmp_path: Path) -> None:
    os.mkfifo(docs / "a_pipe.md")
    stats = index_directory(docs, tmp_path / "corpus.sqlite")
    assert (stats.documents, stats.skipped) == (4, 0)


FAILURES = ["disk full", "a file that breaks its reader", "Ctrl-C"]


def _add_notes(folder: Path, count: int) -> None:
    """``count`` notes of 60 words each, no word in two notes, read after the files of :data:`FILES`."""
    for n in range(count):
        words = " ".join(f"note{n}word{w}" for w in range(60))
        (folder / f"e_note{n:03}.md").write_text(f"# Note {n}\n\n{words}\n")


@contextmanager
def _failing_at_file(monkeypatch: pytest.MonkeyPatch, index: Path, nth: int, failure: str) -> Iterator[None]:
    """While the block runs, the ``nth`` file a run indexing into ``index`` reads ends the run with one
    of :data:`FAILURES`: "disk full" (from then on no file may grow past the size ``index`` has then: not
    the write-ahead log, nor the index when SQLite copies the log's committed pages back into it), "a file
    that breaks its reader" (reading it raises ``RuntimeError``) or "Ctrl-C" (``KeyboardInterrupt``)."""
    calls: list[Path] = []
    extract = corpus_index.extract_document
    soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)

    def reading(path: Path, size: int) -> tuple[str, str]:
        calls.append(path)
        if len(calls) == nth:
            if failure == "disk full":
                resource.setrlimit(resource.RLIMIT_FSIZE, (index.stat().st_size, hard))
            elif failure == "Ctrl-C":
                raise KeyboardInterrupt
            else:
                raise RuntimeError("the reader broke")
        return extract(path, size)

    monkeypatch.setattr(corpus_index, "extract_document", reading)
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))
        monkeypatch.undo()


def _expect(failure: str, index: Path):
    """What a run ended by ``failure`` raises: the one-line index error for a full disk, else the
    exception itself."""
    if failure == "disk full":
        return pytest.raises(CorpusIndexError, match=f"^cannot write the corpus index {index}: {_REFUSED}$")
    return pytest.raises(KeyboardInterrupt if failure == "Ctrl-C" else RuntimeError)


@pytest.mark.parametrize("failure", FAILURES)
def test_a_first_index_run_that_fails_leaves_no_index_file_behind(docs: Path, tmp_path: Path, monkeypatch,
                                                                  failure: str) -> None:
    _add_notes(docs, 100)
    index = tmp_path / "corpus.sqlite"
    with _failing_at_file(monkeypatch, index, 90, failure), _expect(failure, index):  # 64 files committed
        index_directory(docs, index)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["docs"]  # no index, no -wal, no -shm
    assert index_directory(docs, index).added == 104


@pytest.mark.parametrize("failure", FAILURES)
async def test_an_index_run_that_fails_leaves_the_earlier_index_as_it_was(docs: Path, tmp_path: Path,
                                                                         monkeypatch, failure: str) -> None:
    index = tmp_path / "corpus.sqlite"
    index_directory(docs, index)
    size = index.stat().st_size
    (docs / "d_tides.md").write_text("# Tides\n\nBarrages span estuaries.\n")  # the first file read again
    _add_notes(docs, 100)
    with _failing_at_file(monkeypatch, index, 90, failure), _expect(failure, index):  # none committed
        index_directory(docs, index)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["corpus.sqlite", "docs"]  # no -wal, no -shm
    assert index.stat().st_size == size
    assert await _titles(index, "lagoons") == ["Tides"]
    assert await _titles(index, "estuaries note0word1") == []
    again = index_directory(docs, index)
    assert (again.added, again.unchanged, again.documents) == (101, 3, 104)
    assert await _titles(index, "estuaries") == ["Tides"]


async def test_shared_files_that_cannot_be_added_leave_the_index_as_it_was(tmp_path: Path) -> None:
    index = tmp_path / "files.sqlite"
    text = " ".join(f"word{n}" for n in range(20_000))
    with pytest.raises(CorpusIndexError, match=f"^cannot write the index {index}: {_REFUSED}$"), \
            _file_size_limit(150_000):
        add_documents(index, [("/shared/b.txt", "B", text)])
    assert list(tmp_path.iterdir()) == []  # the index this first file would have started
    add_documents(index, [("/shared/a.txt", "A", "Lagoons hold seawater.")])
    size = index.stat().st_size
    with pytest.raises(CorpusIndexError, match=f"^cannot write the index {index}: {_REFUSED}$"), \
            _file_size_limit(size):
        add_documents(index, [("/shared/a.txt", "A", text)])
    assert [p.name for p in tmp_path.iterdir()] == ["files.sqlite"] and index.stat().st_size == size
    assert [r.url for r in await CorpusSearch(index).search("lagoons")] == ["a.txt"]  # no folder: its name


def test_a_database_that_is_not_an_index_is_left_as_it_was(docs: Path, tmp_path: Path) -> None:
    other = tmp_path / "other.sqlite"
    with closing(sqlite3.connect(other)) as conn:
        conn.execute("CREATE TABLE t (x)")
        conn.commit()
    before = other.read_bytes()
    with pytest.raises(CorpusIndexError, match="not a corpus index"):
        index_directory(docs, other)
    assert other.read_bytes() == before  # still in its own journal mode
    assert sorted(p.name for p in tmp_path.iterdir()) == ["docs", "other.sqlite"]


def test_no_supported_files_names_every_supported_kind(tmp_path: Path) -> None:
    (tmp_path / "photo.png").write_bytes(b"\x89PNG")
    with pytest.raises(CorpusIndexError) as err:
        index_directory(tmp_path, tmp_path / "corpus.sqlite")
    assert str(err.value) == f"{tmp_path} has no .csv, .docx, .htm, .html, .log, .markdown, .md, .pdf, .rst, .text, .txt files to index"


async def test_the_index_may_go_in_a_folder_that_does_not_exist_yet(docs: Path, tmp_path: Path) -> None:
    index = tmp_path / "state" / "search" / "corpus.sqlite"
    assert index_directory(docs, index).documents == 4
    assert await _titles(index, "magma") == ["Geothermal"]


def test_an_index_path_that_cannot_be_created_says_why(docs: Path, tmp_path: Path) -> None:
    index = tmp_path / ("x" * 300) / "corpus.sqlite"
    with pytest.raises(CorpusIndexError) as err:
        index_directory(docs, index)
    assert str(err.value).startswith(f"cannot create the corpus index {index}: [Errno 36] File name too long")
    with pytest.raises(CorpusIndexError) as err:
        index_directory(docs, docs)
    assert str(err.value).startswith(f"cannot create the corpus index {docs}: the database file cannot be opened")


@pytest.mark.parametrize("limit", [0, 100_000])  # creating the index, then filling it
def test_a_full_disk_while_indexing_is_named(docs: Path, tmp_path: Path, limit: int) -> None:
    (docs / "e_more.md").write_text("# More\n\n" + "Geothermal energy keeps the ground warm all year round. " * 400)
    index = tmp_path / "corpus.sqlite"
    with pytest.raises(CorpusIndexError) as err, _file_size_limit(limit):
        index_directory(docs, index)
    assert str(err.value) == f"cannot write the corpus index {index}: the disk refused a write (full, or an input/output error)"
    assert not list(tmp_path.glob("corpus.sqlite*"))  # neither a half-written index nor its log


def test_a_full_disk_while_adding_shared_files_is_named(tmp_path: Path) -> None:
    index = tmp_path / "files.sqlite"
    add_documents(index, [("/shared/a.txt", "A", "Lagoons hold seawater.")])
    text = "Geothermal energy keeps the ground warm all year round. " * 2000
    with pytest.raises(CorpusIndexError) as err, _file_size_limit(index.stat().st_size + 4096):
        add_documents(index, [("/shared/b.txt", "B", text)])
    assert str(err.value) == f"cannot write the index {index}: the disk refused a write (full, or an input/output error)"


async def test_an_index_of_an_older_layout_is_rebuilt(docs: Path, tmp_path: Path) -> None:
    index = tmp_path / "corpus.sqlite"
    index_directory(docs, index)
    with sqlite3.connect(index) as conn:
        conn.execute("UPDATE meta SET value = '0' WHERE key = 'schema'")
    stats = index_directory(docs, index)
    assert (stats.documents, stats.added, stats.unchanged) == (4, 4, 0)
    assert await _titles(index, "magma") == ["Geothermal"]


async def test_an_index_under_a_folder_with_url_characters_is_found(docs: Path, tmp_path: Path) -> None:
    index = tmp_path / "state #2 50%" / "corpus.sqlite"
    index_directory(docs, index)
    assert index_root(index) == str(docs)
    assert await _titles(index, "magma") == ["Geothermal"]


def test_a_query_repeating_a_word_still_looks_for_the_others() -> None:
    assert query_words("heat " * 40 + "pump") == ["heat", "pump"]


def test_shared_files_count_every_passage_written_and_have_no_folder(tmp_path: Path) -> None:
    index = tmp_path / "files.sqlite"
    assert add_documents(index, [("/shared/a.txt", "A", "Lagoons."), ("/shared/b.txt", "B", "Barrages.")]) == 2
    assert index_root(index) is None


async def test_an_unreadable_index_file_is_a_search_error_that_says_so(tmp_path: Path) -> None:
    junk = tmp_path / "corpus.sqlite"
    junk.write_bytes(b"not a database at all" * 100)
    with pytest.raises(SearchError, match=r"is unreadable \(file is not a database\): run `deepresearch index"):
        await CorpusSearch(junk).search("anything")
    assert await CorpusSearch(tmp_path / "absent.sqlite").search("anything", max_results=0) == []


async def test_a_cjk_snippet_starts_at_the_first_word_found(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "ja.txt").write_text("大阪の長い話\n\n" + "あ" * 600 + "京都大阪" + "い" * 600 + "\n")
    (docs / "exact.txt").write_text("ちょうど\n\n" + "名古屋" + "う" * 291 + "\n")  # 300 characters: no " …"
    index = tmp_path / "corpus.sqlite"
    index_directory(docs, index)
    (result,) = await CorpusSearch(index).search("京都 大阪")
    assert result.content == "大阪の長い話 " + "あ" * 292 + " …"
    (result,) = await CorpusSearch(index).search("名古屋")
    assert result.content == "ちょうど 名古屋" + "う" * 291


async def test_only_the_first_eight_cjk_words_of_a_query_are_looked_for(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "ja.txt").write_text("関西\n\n大阪と京都。\n")
    index = tmp_path / "corpus.sqlite"
    index_directory(docs, index)
    # words of two characters: a single one ("一") is no word to search for (engine.language.is_function_word)
    assert await _titles(index, "東京 名古屋 札幌 福岡 神戸 横浜 仙台 広島 大阪") == []
    assert await _titles(index, "東京 名古屋 札幌 福岡 神戸 横浜 仙台 大阪") == ["関西"]


@pytest.mark.parametrize(("text", "target", "limit", "passages"), [
    # lines packed up to the limit exactly, and not one character past it
    ("a" * 9 + "\n" + "b" * 10 + "\n" + "c" * 5, 100, 20, ["a" * 9 + "\n" + "b" * 10, "c" * 5]),
    ("a" * 10 + "\n" + "b" * 10 + "\n" + "c" * 5, 100, 20, ["a" * 10, "b" * 10 + "\n" + "c" * 5]),
    # two lines are enough to cut at lines
    ("alpha beta gamma\ndelta epsilon zeta", 100, 20, ["alpha beta gamma", "delta epsilon zeta"]),
    # sentences packed with one space; a cut at sentence ends, not at the last space
    ("Alpha beta. Gamma delta. Epsilon zeta eta theta.", 100, 34, ["Alpha beta. Gamma delta.", "Epsilon zeta eta theta."]),
    # a long line inside a paragraph of lines is cut too
    ("short line\n" + "word " * 10, 100, 20, ["short line", "word word word word", "word word word word",
                                               "word word"]),
    # a hard cut at a space only in the second half of the limit, and never past the limit
    ("ab " + "x" * 200, 1000, 120, [("ab " + "x" * 200)[:120], "x" * 83]),
    ("x" * 50 + " " + "y" * 150, 1000, 120, [("x" * 50 + " " + "y" * 150)[:120], "y" * 81]),
    ("x" * 100 + " " + "y" * 30 + " " + "z" * 50, 1000, 120, ["x" * 100, "y" * 30 + " " + "z" * 50]),
    # what is left after a hard cut and fits is kept whole
    ("x" * 10 + "aaaaaa bbb", 100, 10, ["x" * 10, "aaaaaa bbb"]),
    # passages: closed before passing the limit, counted afresh after each close
    ("a" * 8 + "\n\n" + "b" * 10, 30, 19, ["a" * 8, "b" * 10]),
    ("a" * 15 + "\n\n" + "b" * 10 + "\n\n" + "c" * 8, 32, 20, ["a" * 15, "b" * 10 + "\n\n" + "c" * 8]),
    ("a" * 10 + "\n\n" + "b" * 4 + "\n\n" + "c" * 3 + "\n\n" + "d" * 5, 10, 30,
     ["a" * 10, "b" * 4 + "\n\n" + "c" * 3 + "\n\n" + "d" * 5]),
    ("a" * 4 + "\n\n" + "b" * 4 + "\n\n" + "c" * 4, 14, 30, ["a" * 4 + "\n\n" + "b" * 4 + "\n\n" + "c" * 4]),
])
def test_passages_are_cut_where_a_reader_would_cut(text, target, limit, passages) -> None:
    assert split_passages(text, target, limit) == passages
    assert all(len(p) <= limit for p in passages)


def test_a_paragraph_that_fits_is_kept_as_written() -> None:
    line = "Short line one.  Two spaces after it, and more words to fill"  # 60 characters
    assert split_passages(f"{line}\n" + "word " * 20, 1000, 60) == [line, ("word " * 12).strip(), ("word " * 8).strip()]
    assert split_passages(line, 1000, 60) == [line]


async def test_long_files_matching_well_do_not_crowd_out_another_match(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    strong = "\n\n".join(f"Part {n}: " + "heat pump " * 30 + "filler text " * 100 for n in range(13))
    for n in range(4):  # 52 passages that match better than any other
        (docs / f"strong{n}.md").write_text(f"# Strong {n}\n\n{strong}\n")
    (docs / "weak.md").write_text("# Weak\n\nA pump is mentioned once. " + "other words " * 150 + "\n")
    index = tmp_path / "corpus.sqlite"
    index_directory(docs, index)
    assert await _titles(index, "heat pump") == ["Strong 0", "Strong 1", "Strong 2", "Strong 3", "Weak"]
    assert len(await _titles(index, "filler")) == 4  # every match found: fewer files than asked


def test_a_file_reached_by_two_paths_is_one_document(docs: Path, tmp_path: Path) -> None:
    """A symbolic link (sorted before its target) or a hard link to a file of the folder is the same
    file: indexed once, under its own path, so a report never lists it as two sources."""
    (docs / "0-link.md").symlink_to(docs / "a_solar.md")
    os.link(docs / "b_wind.txt", docs / "z-hard.txt")
    outside = tmp_path / "outside.md"
    outside.write_text("# Tidal\n\nTidal power follows the moon.\n")
    (docs / "tidal.md").symlink_to(outside)  # a link out of the folder is a file of its own
    index = tmp_path / "corpus.sqlite"
    stats = index_directory(docs, index)
    assert stats.documents == len(FILES) + 1
    with closing(sqlite3.connect(index)) as conn:
        paths = sorted(Path(p).name for (p,) in conn.execute("SELECT path FROM documents"))
    assert paths == sorted([*FILES, "tidal.md"])


#: What SQLite raises when the storage refuses to serve a database, with what the line says.
_STORAGE_FAULTS = [
    ("disk I/O error", "SQLITE_IOERR_SHMSIZE", "the disk is full"),  # a full tmpfs: the -shm cannot grow
    ("database or disk is full", "SQLITE_FULL", "the disk is full"),
    ("unable to open database file", "SQLITE_CANTOPEN", "cannot be opened or created"),  # EACCES, no -shm
    ("attempt to write a readonly database", "SQLITE_READONLY_CANTINIT", "read-only"),  # EROFS
]


@pytest.mark.parametrize(("message", "code", "said"), _STORAGE_FAULTS)
@pytest.mark.parametrize("at", ["open", "read"])
def test_an_index_its_disk_cannot_serve_is_a_storage_error_not_a_missing_or_bad_index(
        docs: Path, tmp_path: Path, monkeypatch, message: str, code: str, said: str, at: str) -> None:
    index = tmp_path / "corpus.sqlite"
    index_directory(docs, index)
    real = sqlite3.connect

    def fault() -> sqlite3.OperationalError:
        err = sqlite3.OperationalError(message)
        err.sqlite_errorname = code
        return err

    class Refusing(sqlite3.Connection):
        def execute(self, *args, **kwargs):
            raise fault()

    def connect(*args, **kwargs):
        if at == "open":
            raise fault()
        return real(*args, **{**kwargs, "factory": Refusing})

    monkeypatch.setattr(sqlite3, "connect", connect)
    with pytest.raises(StorageError, match=f"cannot read the corpus index .*: .*{said}") as raised:
        index_root(index)  # not None: the folder is indexed, only its disk is full
    assert raised.value.__cause__.sqlite_errorname == code
    with pytest.raises(StorageError, match=f"cannot read the corpus index .*: .*{said}"):
        asyncio.run(CorpusSearch(index).search("turbine"))
    monkeypatch.setattr(sqlite3, "connect", real)
    assert index_root(index) == str(docs)  # with room again it is the index it was


def test_a_file_that_is_no_index_is_still_no_index(tmp_path: Path) -> None:
    broken = tmp_path / "corpus.sqlite"
    broken.write_bytes(b"not a database at all, " * 100)
    assert index_root(broken) is None
    with pytest.raises(SearchError, match="unreadable"):
        asyncio.run(CorpusSearch(broken).search("turbine"))


def test_two_runs_indexing_one_folder_at_once_take_turns(tmp_path, monkeypatch):
    """Two `ask --corpus` (or `deepresearch index`) started together on a folder not indexed yet: the
    second waits for the first and finds its documents unchanged; it neither inserts them again
    (``UNIQUE constraint failed: documents.path``) nor deletes the index the first one wrote."""
    import threading

    from engine.search import corpus_index

    docs = tmp_path / "docs"
    docs.mkdir()
    for name in ("a", "b", "c"):
        (docs / f"{name}.md").write_text(f"# {name}\n\nHeat pumps move heat; note {name} says so in full.\n")
    index = tmp_path / "data" / "corpus" / "x.sqlite"
    reading, release = threading.Event(), threading.Event()
    read = corpus_index.extract_document

    def slow(path, size):
        if threading.current_thread().name == "first" and path.name == "a.md":
            reading.set()
            assert release.wait(60)
        return read(path, size)

    monkeypatch.setattr(corpus_index, "extract_document", slow)
    results: dict[str, object] = {}
    waiting = {"first": threading.Event(), "second": threading.Event()}

    def run(name: str) -> None:
        try:
            results[name] = corpus_index.index_directory(docs, index, on_wait=waiting[name].set)
        except Exception as err:  # the assertion below names it
            results[name] = err

    first = threading.Thread(target=run, args=("first",), name="first")
    first.start()
    assert reading.wait(60)
    second = threading.Thread(target=run, args=("second",), name="second")
    second.start()
    assert waiting["second"].wait(60), "the second run did not say it waits for the first"
    assert "second" not in results  # it waits; it neither failed nor went on
    release.set()
    first.join(60)
    second.join(60)
    assert not isinstance(results["first"], Exception), results["first"]
    assert not isinstance(results["second"], Exception), results["second"]
    assert (results["first"].added, results["second"].added, results["second"].unchanged) == (3, 0, 3)
    assert not waiting["first"].is_set()  # nobody was indexing when the first began
    assert index_root(index) == str(docs.resolve())


#: A sentence with an abbreviation inside it ("e.g. in Norway"), repeated into a paragraph longer than a passage.
_ABBREVIATED = "Heat pumps save energy in cold places, e.g. in Norway they heat most of the homes built since 2010. "


@pytest.mark.parametrize("pad", range(0, 100, 7))
@pytest.mark.parametrize("wrapped", [False, True], ids=["one-line", "hard-wrapped"])
def test_a_long_paragraph_is_cut_between_sentences_never_inside_one(pad, wrapped) -> None:
    """A paragraph longer than a passage is cut where a sentence ends (:func:`engine.segments.sentences`),
    not after "e.g." nor at a line break inside a sentence: each passage opens with a whole sentence,
    so the offline model never quotes one from its middle ("in Norway they heat …")."""
    from engine.offline import passages
    from engine.segments import sentences

    text = "Intro " + "x" * pad + ". " + (_ABBREVIATED * 40).strip()
    if wrapped:
        text = textwrap.fill(text, 72)
    whole = set(sentences(text))
    chunks = split_passages(text)
    assert len(chunks) > 1 and all(len(c) <= 2500 for c in chunks)
    for chunk in chunks:
        assert set(sentences(chunk)) <= whole, chunk[:80]
        assert not [q for q in passages(chunk, "Do heat pumps save energy in Norway?") if q[:1].islower()]
