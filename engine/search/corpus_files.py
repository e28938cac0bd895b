"""Finding the files of a folder that the corpus index reads (:func:`indexable_files`).

Only the names and ``stat`` of files are looked at here, never their contents: reading them is
:func:`engine.search.extract.extract_document`, indexing them
:func:`engine.search.corpus_index.index_directory`.
"""

from __future__ import annotations

import os
from pathlib import Path

from engine.search.corpus_layout import CorpusIndexError
from engine.search.extract import SUPPORTED_SUFFIXES
from engine.text import clean_path


def indexable_files(directory: Path) -> tuple[Path, list, list]:
    """``(folder as an absolute path, files to index, files skipped)`` of ``directory``: what
    :func:`engine.search.corpus_index.index_directory` reads, found without opening any file or index.
    A file to index is ``(path, os.stat_result)``, one path for each file (a second path to a file,
    by a symbolic or hard link, is left out); a skipped one ``(path as engine.text.clean_path gives
    it, reason)``: its ``stat`` failed, or it is a file of a type the corpus does not read
    (``unsupported type (.png)``, :func:`engine.files.read.unsupported_type`). Hidden files and
    folders and what is no regular file are passed over.

    Raises:
        CorpusIndexError: the folder is missing, is not a folder, or has no file of a supported type.
    """
    root = Path(directory).expanduser()
    if not root.exists():
        raise CorpusIndexError(f"{clean_path(root)}: no such folder")
    if not root.is_dir():
        raise CorpusIndexError(f"{clean_path(root)} is not a folder")
    root = Path(os.path.abspath(root))  # as the user spells it: cited paths stay under this folder
    files, skipped_files, unsupported = _find_files(root)
    if not files and len(skipped_files) == unsupported:
        raise CorpusIndexError(
            f"{clean_path(root)} has no {', '.join(sorted(SUPPORTED_SUFFIXES))} files to index"
        )
    return root, files, skipped_files


def _find_files(root: Path) -> tuple[list[tuple[Path, os.stat_result]], list[tuple[str, str]], int]:
    """``(files to index, files skipped, how many of those are of an unsupported type)`` under ``root``."""
    from engine.files.read import unsupported_type

    found: list[tuple[Path, os.stat_result]] = []
    skipped: list[tuple[str, str]] = []
    unsupported = 0
    for folder, dirs, names in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for name in sorted(names):
            if name.startswith("."):
                continue
            path = Path(folder, name)
            if Path(name).suffix.lower() not in SUPPORTED_SUFFIXES:
                if path.is_file():
                    skipped.append((clean_path(path), unsupported_type(name)))
                    unsupported += 1
                continue
            try:
                st = path.stat()
            except OSError as err:
                skipped.append((clean_path(path), err.strerror or type(err).__name__))
                continue
            if not path.is_file():
                continue
            found.append((path, st))
    return _one_path_a_file(found), skipped, unsupported


def _one_path_a_file(found: list[tuple[Path, os.stat_result]]) -> list[tuple[Path, os.stat_result]]:
    """``found`` with one path for each file (device and inode): a symbolic or hard link to a file
    the folder already holds would make it two documents, and two sources of one report. The
    file's own path wins over a symbolic link's, else the first path in walk order."""
    chosen: dict[tuple[int, int], tuple[Path, os.stat_result]] = {}
    for entry in found:
        path, st = entry
        key = (st.st_dev, st.st_ino)
        if key not in chosen or (chosen[key][0].is_symlink() and not path.is_symlink()):
            chosen[key] = entry
    kept = {id(entry) for entry in chosen.values()}
    return [entry for entry in found if id(entry) in kept]
