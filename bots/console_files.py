"""``deepresearch ask --file``: checking the paths given and reading them into the thread's index."""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from pathlib import Path

from engine.fsutil import StorageError
from engine.settings import Settings
from engine.text import clean_path


def files_problem(files: list[Path], queue: bool) -> str | None:
    """Why the ``--file`` paths cannot be used, or None."""
    if files and queue:
        return "--file: with --queue the research runs on the workers, which cannot read this host's files."
    for path in files:
        try:
            mode = path.expanduser().stat().st_mode
        except OSError:
            return f"--file {clean_path(path)}: no such file."
        if stat.S_ISDIR(mode):
            return f"--file {clean_path(path)}: is a directory."
        if not stat.S_ISREG(mode):
            return f"--file {clean_path(path)}: is not a regular file."
    return None


def read_files(thread: str, files: list[Path], settings: Settings, say: Callable[..., None]) -> None:
    """Read ``--file`` paths into the thread's index (:func:`engine.files.ingest`) and ``say``
    what was read and skipped (nothing when there are none). A file given again, by any path (a
    symlink, ``./``, a hard link: the same device and inode), is one file: read once, said once ("given
    twice, read once", "given 3 times, read once"), and not a skipped file, so the files
    line counts what the progress line counts (:func:`engine.files.files_status` of the files read
    into the thread).

    Raises:
        engine.fsutil.StorageError: the thread's index cannot be written.
    """
    if not files:
        return
    from engine.files import SharedFile, files_status, ingest
    from engine.files.entries import local_file_link
    from engine.search.corpus_layout import CorpusIndexError

    shared, first, times = [], {}, {}
    for given in files:
        path = Path(os.path.abspath(given.expanduser()))
        info = path.stat()
        same = (info.st_dev, info.st_ino)  # the file itself, by a symlink, ./ or a hard link
        times[same] = times.get(same, 0) + 1
        if same in first:
            continue
        first[same] = given
        link = local_file_link(path, settings.data_dir)
        shared.append(SharedFile(name=path.name, link=link, path=path, size=info.st_size))
    for same, count in times.items():
        if count > 1:
            say(f"{clean_path(first[same])}: given {'twice' if count == 2 else f'{count} times'}, read once")
    say(f"Reading {len(shared)} file{'' if len(shared) == 1 else 's'} …")
    try:
        entries = ingest(settings, thread, shared)
    except CorpusIndexError as exc:
        raise StorageError(str(exc)) from exc
    for entry in entries:
        if entry.status != "read":
            say(f"skipped {entry.name}: {entry.reason}", style="yellow")
        elif entry.note:
            say(f"{entry.name}: {entry.note}", style="yellow")
    if entries:
        say(f"files: {files_status(entries)}")
