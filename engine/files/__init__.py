"""Files shared in a thread, as a source of that thread's research.

Each thread's files are listed (name, size, pages, the link a citation gives, read or skipped and
why) and their text indexed in the thread's store (:mod:`engine.files.store`): its folder
``{DATA_DIR}/threadfiles/{thread}/`` (``files.json`` and an FTS5 ``index.sqlite`` built by the
local corpus's code), or with ``DATABASE_URL`` PostgreSQL (full-text ``tsvector`` passages), so
that every host sees them. The shared bytes themselves are not kept: only their text.
``deepresearch prune`` deletes both with the thread.

Limits (settings, documented in the README): ``DEEPRESEARCH_FILE_MAX_BYTES`` a file (25 MB),
``DEEPRESEARCH_THREAD_FILES_MAX_BYTES`` a thread (100 MB), ``DEEPRESEARCH_FILE_MAX_PAGES`` and
``DEEPRESEARCH_FILE_MAX_CHARS`` of one file, ``DEEPRESEARCH_FILE_PARSE_TIMEOUT`` seconds to read
one; DOCX decompression limits in :mod:`engine.files.read`.
"""

from __future__ import annotations

import json
import logging
import os
import re
import subprocess
import sys
from pathlib import Path

from engine.file_summary import files_status, skip_reason
from engine.files.entries import FileEntry, SharedFile
from engine.files.read import kind_of, unsupported_type
from engine.files.store import (
    INDEX,
    MANIFEST,
    LocalThreadFiles,
    PostgresThreadFileSearch,
    ThreadFileSearch,
    files_dir,
    thread_files,
)
from engine.phrasebook import BASE_LANGUAGE
from engine.phrases import plural
from engine.redact import quoted
from engine.search.corpus_layout import CorpusIndexError
from engine.settings import Settings
from engine.text import clean_text

__all__ = ["INDEX", "MANIFEST", "FileEntry", "PostgresThreadFileSearch", "SharedFile", "ThreadFileSearch",
           "delete_thread_files", "files_dir", "files_prompt", "files_status", "ingest", "load_manifest",
           "size_text", "thread_budget", "thread_search"]

log = logging.getLogger(__name__)


def load_manifest(settings: Settings, thread_id: str) -> list[FileEntry]:
    """The thread's shared files so far (read and skipped), oldest first; [] when none.

    Raises:
        engine.database.DatabaseError, engine.search.corpus_layout.CorpusIndexError: with ``DATABASE_URL``,
            PostgreSQL cannot be used.
    """
    return thread_files(settings, thread_id).entries()


def delete_thread_files(settings: Settings, thread_id: str) -> None:
    """Delete the thread's list and index (``deepresearch prune``): its folder on this host and, with
    ``DATABASE_URL``, its rows in PostgreSQL; nothing when there are none."""
    thread_files(settings, thread_id).delete()
    if settings.database_url:  # a folder this host wrote before DATABASE_URL was set
        LocalThreadFiles(settings, thread_id).delete()


def ingest(settings: Settings, thread_id: str, shared: list[SharedFile]) -> list[FileEntry]:
    """Read the ``shared`` files into the thread's index under the limits; returns the new entries.

    A file already in the thread's list (same name and link) is not read again. Every file ends as
    ``read`` or ``skipped`` with a reason: another channel, over the file or thread size limit,
    unsupported type, encrypted, corrupt, scanned without text, a zip bomb, too slow to parse. The
    whole step holds the thread's lock (:mod:`engine.files.store`), so concurrent calls for one
    thread (two events at once, on any host with ``DATABASE_URL``) run one after the other and
    every file they bring is listed once.

    Raises:
        engine.search.corpus_layout.CorpusIndexError: the thread's index or list cannot be written.
        engine.database.DatabaseError: with ``DATABASE_URL``, PostgreSQL cannot be reached.
    """
    if not shared:
        return []
    with thread_files(settings, thread_id).locked() as store:
        entries = store.entries()
        known = {(e.name, e.link) for e in entries}
        used = sum(e.size for e in entries if e.status == "read")
        new: list[FileEntry] = []
        for item in shared:
            if (item.name, item.link) in known:
                continue
            known.add((item.name, item.link))
            entry, documents = _read_one(item, settings, used, entries + new)
            if documents:
                store.index(documents)
                used += entry.size
            log.info("event=thread_file thread=%s name=%s status=%s reason=%s", thread_id, quoted(entry.name, 80),
                     entry.status, quoted(entry.reason or ""))
            new.append(entry)
        if new:
            try:
                store.append(new)
            except OSError as err:
                raise CorpusIndexError(f"cannot write the thread's list of files: {err.strerror or err}") from err
    return new


def _read_one(item: SharedFile, settings: Settings, used: int, listed: list[FileEntry]) -> tuple[FileEntry, list]:
    name = file_title(item.name)
    shown = shown_name(name, item.link, listed)
    entry = FileEntry(name=name, link=item.link, size=item.size, status="skipped", kind=kind_of(name) or "")
    if item.skipped:
        entry.reason = item.skipped
    elif not entry.kind:
        entry.reason = unsupported_type(name)
    elif item.size > settings.file_max_bytes or item.path is None:
        entry.reason = skip_reason("skip_file_limit", limit=size_text(settings.file_max_bytes))
    elif used + item.size > settings.thread_files_max_bytes:
        entry.reason = skip_reason("skip_thread_limit", limit=size_text(settings.thread_files_max_bytes))
    else:
        result = parse(item.path, name, settings)
        if not result.get("ok"):
            entry.reason = str(result.get("reason") or skip_reason("skip_unreadable"))
        else:
            entry.status, entry.pages, entry.note = "read", int(result["pages"]), str(result["note"])
            entry.sections = len(result["sections"])
            return entry, [(_anchor(item.link, entry.kind, n, label), f"{shown}, {label}" if label else shown, text)
                           for n, (label, text) in enumerate(result["sections"], start=1)]
    return entry, []


def file_title(name: str) -> str:
    """A shared file's name as one line of text: :func:`engine.text.clean_text`, then every control
    character left (newline, tab) a space; ``"file"`` when nothing is left."""
    return re.sub(r"[\x00-\x1f\x7f]", " ", clean_text(name)).strip() or "file"


def shown_name(name: str, link: str, listed: list[FileEntry]) -> str:
    """How a reader tells the file ``name`` at ``link`` from the thread's other files (``listed``,
    oldest first): ``name`` itself, or ``name (n)`` when ``n - 1`` files of that name with other
    links came before it (``notes.md (2)``: two folders' ``notes.md``, never their folders)."""
    others = {e.link for e in listed if e.name == name and e.link != link}
    return f"{name} ({len(others) + 1})" if others else name


def size_text(n: int) -> str:
    """``25 MB``, ``60 KB``, ``1,024 MB``: a size of ``n`` bytes as a person reads it (1 MB = 1024 KB =
    1,048,576 bytes; three significant digits, whole units from 1,000 up, never ``1.02e+03``)."""
    value, unit = (n / 1048576, "MB") if n >= 1048576 else (n / 1024, "KB")
    return f"{value:,.0f} {unit}" if value >= 999.5 else f"{value:.3g} {unit}"


def _anchor(link: str, kind: str, n: int, label: str) -> str:
    """The cited URL of one section: the file's link and the page (``#page=3``) or section number."""
    base = link.split("#", 1)[0]
    if kind == "pdf" and label.startswith("page "):
        return f"{base}#page={label[5:]}"
    return f"{base}#section={n}"


def parse(path: Path, name: str, settings: Settings) -> dict:
    """Read one file in a child process (:mod:`engine.files.read`), killed past
    ``DEEPRESEARCH_FILE_PARSE_TIMEOUT`` seconds; returns its JSON (``ok`` false with a ``reason``
    when the file is skipped)."""
    command = [sys.executable, "-m", "engine.files.read", str(path), name, str(settings.file_max_pages),
               str(settings.file_max_chars)]
    try:
        # no secret of this process's environment reaches the one reading an untrusted file
        env = {"PATH": os.environ.get("PATH", ""), "LANG": "C.UTF-8",
               "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
        done = subprocess.run(command, capture_output=True, timeout=settings.file_parse_timeout, check=False,
                              cwd=Path(__file__).resolve().parents[2], env=env)
    except subprocess.TimeoutExpired:
        return {"ok": False, "reason": skip_reason(plural("skip_parse_timeout", settings.file_parse_timeout, BASE_LANGUAGE),
                                                  seconds=settings.file_parse_timeout)}
    try:
        return json.loads(done.stdout)
    except ValueError:
        log.warning("event=file_parse_failed code=%s stderr=%s", done.returncode,
                    quoted(done.stderr.decode(errors="replace")[-300:], 300))
        return {"ok": False, "reason": skip_reason("skip_reader_failed")}


def thread_budget(settings: Settings, thread_id: str) -> tuple[set[tuple[str, str]], int]:
    """``(known, bytes_left)``: the ``(name, link)`` of every file the thread already has (not to
    fetch again) and the bytes its files may still take (``DEEPRESEARCH_THREAD_FILES_MAX_BYTES``)."""
    entries = load_manifest(settings, thread_id)
    used = sum(e.size for e in entries if e.status == "read")
    return {(e.name, e.link) for e in entries}, settings.thread_files_max_bytes - used


def files_prompt(entries: list[FileEntry]) -> str:
    """The files block of the supervisor's and researchers' prompts ("" when none was read): one
    line per file read, named as its passages are cited (:func:`shown_name`: ``notes.md (2)``)."""
    lines = []
    for i, e in enumerate(entries):
        if e.status != "read":
            continue
        count, unit = (e.pages, "page") if e.pages else (e.sections, "section")
        parts = f"{e.kind}, {size_text(e.size)}, {count} {unit}{'' if count == 1 else 's'}"
        lines.append(f"- {shown_name(e.name, e.link, entries[:i])} ({parts}{'; ' + e.note if e.note else ''})")
    if not lines:
        return ""
    return ("\nFiles shared in this conversation (search them with search_thread_files; they are sources "
            "like web pages, cite them the same way; when the web search reports no back-end, search these files alone):\n<Shared files>\n" + "\n".join(lines)
            + "\n</Shared files>\n")


def thread_search(settings: Settings, thread_id: str) -> tuple[ThreadFileSearch | PostgresThreadFileSearch | None,
                                                              list[FileEntry]]:
    """The thread's file search (None when no file was read) and its list of files."""
    store = thread_files(settings, thread_id)
    entries = store.entries()
    return store.search(entries), entries
