"""Files written whole or not at all, and one-line names for the ways a disk refuses a write."""

from __future__ import annotations

import contextlib
import errno
import os
import pwd
import re
import secrets
import shutil
import sqlite3
import tempfile
from pathlib import Path

from engine.text import clean_path

#: errno values that mean "this storage cannot take the write", with how to say so.
_ERRNO_PROBLEMS = {
    errno.ENOSPC: "the disk is full",
    errno.EDQUOT: "the disk quota is used up",
    errno.EFBIG: "the file size limit is reached (the disk or ulimit -f is full)",
    errno.EROFS: "the file system is read-only",
    errno.EACCES: "permission denied",
    errno.EPERM: "operation not permitted",
    errno.ENOTDIR: "a part of the path is a file, not a folder",
    errno.EEXIST: "a file is in the way of a folder",
    errno.EISDIR: "a folder is in the way of a file",
    errno.EIO: "an input/output error on the disk",
}
#: SQLite primary result codes that mean the database file could not be written (not that it is bad).
_SQLITE_PROBLEMS = {
    "SQLITE_FULL": "the disk is full",
    # the -shm file a write-ahead log is read through could not be grown: the file system has no room
    "SQLITE_IOERR_SHMSIZE": "the disk is full",
    "SQLITE_IOERR": "the disk refused a write (full, or an input/output error)",
    "SQLITE_READONLY": "the database is read-only (read-only file system or permissions)",
    "SQLITE_CANTOPEN": "the database file cannot be opened or created (permissions, or the folder is missing)",
    "SQLITE_PERM": "permission denied",
}


class StorageError(Exception):
    """A file or database under the data folder (or an output folder) could not be written.

    The message is one line for a user: what was written where, and why (disk full, read-only,
    permission). The original ``OSError`` or ``sqlite3.Error`` is the ``__cause__``.
    """


def storage_problem(exc: BaseException | None) -> str | None:
    """Why ``exc`` means the storage refused a write, in a few words; None for any other error.

    Recognises ``OSError`` by errno (full, quota, size limit, read-only, permission, a file in a
    folder's place) and ``sqlite3.Error`` by its result code (``SQLITE_FULL``, ``SQLITE_IOERR_*``,
    ``SQLITE_READONLY_*``, ``SQLITE_CANTOPEN``, ``SQLITE_PERM``). A corrupt database
    (``SQLITE_CORRUPT``, ``SQLITE_NOTADB``) is not a storage problem: the file itself is bad.
    Follows ``__cause__`` and ``__context__`` so a wrapped fault is still recognised.
    """
    for err in _causes(exc):
        if isinstance(err, OSError) and err.errno in _ERRNO_PROBLEMS:
            return _ERRNO_PROBLEMS[err.errno]
        if isinstance(err, sqlite3.Error):
            name = getattr(err, "sqlite_errorname", "") or ""
            for prefix, problem in _SQLITE_PROBLEMS.items():
                if name == prefix or name.startswith(prefix + "_"):
                    return problem
            text = str(err).lower()
            if "disk is full" in text or "disk i/o error" in text:
                return "the disk is full or refused a write"
            if "readonly database" in text or "unable to open database file" in text:
                return "the database cannot be written (read-only file system or permissions)"
    return None


#: errno values of a write refused for want of room or of a writable disk: full, over quota, read-only.
#: Such a fault passes once an admin frees space or remounts the disk (a permission or a file in a folder's
#: place does not: someone must change the setup).
_ROOM_ERRNOS = (errno.ENOSPC, errno.EDQUOT, errno.EROFS)
#: SQLite result codes of the same faults (``SQLITE_IOERR_SHMSIZE``: the write-ahead log's index could not grow).
_ROOM_SQLITE = ("SQLITE_FULL", "SQLITE_READONLY", "SQLITE_IOERR_SHMSIZE")


def disk_refused(exc: BaseException | None) -> bool:
    """Whether ``exc`` is a write the disk refused because it is full, over quota or read-only
    (``ENOSPC``, ``EDQUOT``, ``EROFS``; SQLite's ``SQLITE_FULL``, ``SQLITE_READONLY*``, or their texts
    "database or disk is full", "attempt to write a readonly database"): a fault that passes once the
    disk has room (or is writable) again, so the write is worth trying again later. Follows
    ``__cause__`` and ``__context__`` as :func:`storage_problem` does."""
    for err in _causes(exc):
        if isinstance(err, OSError) and err.errno in _ROOM_ERRNOS:
            return True
        if isinstance(err, sqlite3.Error):
            name = getattr(err, "sqlite_errorname", "") or ""
            text = str(err).lower()
            if name.startswith(_ROOM_SQLITE) or "disk is full" in text or "readonly database" in text:
                return True
    return False


def _causes(exc: BaseException | None):
    """``exc`` and the errors it was raised from or while handling (``__cause__``, else ``__context__``),
    at most 8."""
    seen = 0
    while exc is not None and seen < 8:
        yield exc
        exc = exc.__cause__ or exc.__context__
        seen += 1


def raise_storage_error(exc: BaseException, doing: str) -> None:
    """Raise :class:`StorageError` ``"{doing}: {why}"`` from ``exc`` when ``exc`` is a storage fault
    (:func:`storage_problem`); return otherwise, so a caller keeps its own answer for other errors.

    Raises:
        StorageError: ``exc`` means the storage refused the write or open; ``exc`` is its cause.
    """
    why = storage_problem(exc)
    if why is not None:
        raise StorageError(f"{doing}: {why}") from exc


def write_problem(exc: BaseException, folder: Path) -> str | None:
    """Why writing under ``folder`` failed with ``exc``, as precisely as the file system tells; None
    when ``exc`` is no storage fault (see :func:`storage_problem`).

    SQLite reports a read-only or missing folder only as "cannot open"; the folder itself then
    says which (read-only file system, no permission, a file in the way).
    """
    why = storage_problem(exc)
    if why is None:
        return None
    return writable_folder_problem(folder) or why


def write_atomic(path: Path, data: str | bytes, *, encoding: str = "utf-8") -> None:
    """Write ``data`` to ``path`` so readers see the old file or the whole new one, never a part.

    Writes a temporary file in the same folder, flushes it to disk (``fsync``), then renames it
    over ``path`` (atomic on POSIX). Creates missing parent folders. On any failure the temporary
    file is removed and ``path`` is unchanged.

    Raises:
        OSError: the folder or file cannot be written (see :func:`storage_problem`).
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    payload = data.encode(encoding) if isinstance(data, str) else data
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(payload)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def secret_file(path: Path, nbytes: int = 32) -> bytes:
    """The random secret of ``nbytes`` bytes kept at ``path`` (hex text, mode 0600), made on first use.

    The first process to ask writes a new secret (:mod:`secrets`) to a private temporary file
    (``mkstemp`` creates it 0600) and hard-links it to ``path``: the link either appears whole or
    fails because another process's secret is already there, which is then the one used, so every
    process of an installation agrees and none reads a half-written secret.

    Raises:
        OSError: the folder cannot be written (see :func:`storage_problem`), or the file at ``path``
            is no secret of ``nbytes`` bytes (``EINVAL``; it was changed by hand: remove it).
    """
    path = Path(path)
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
        try:
            with os.fdopen(fd, "w", encoding="ascii") as fh:
                fh.write(secrets.token_hex(nbytes))
                fh.flush()
                os.fsync(fh.fileno())
            with contextlib.suppress(FileExistsError):  # another process made it first: its secret counts
                os.link(tmp, path)
        finally:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
    text = path.read_text(encoding="ascii", errors="replace").strip()
    if not re.fullmatch(f"[0-9a-f]{{{2 * nbytes}}}", text):
        raise OSError(errno.EINVAL, f"not a secret of {nbytes} bytes in hex (remove it to make a new one)", str(path))
    return bytes.fromhex(text)


def copy_atomic(src: Path, dst: Path) -> None:
    """Copy ``src`` to ``dst`` (contents and times) through a temporary file and a rename.

    A copy onto the same file (``dst`` is ``src``, or a link to it) does nothing.

    Raises:
        OSError: ``src`` cannot be read or ``dst``'s folder cannot be written.
    """
    src, dst = Path(src), Path(dst)
    with contextlib.suppress(OSError):
        if dst.exists() and os.path.samefile(src, dst):
            return
    fd, tmp = tempfile.mkstemp(prefix=f".{dst.name}.", suffix=".tmp", dir=dst.parent)
    try:
        with os.fdopen(fd, "wb") as out, open(src, "rb") as inp:
            shutil.copyfileobj(inp, out, length=1 << 20)
            out.flush()
            os.fsync(out.fileno())
        shutil.copystat(src, tmp)
        os.replace(tmp, dst)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def writable_folder_problem(folder: Path) -> str | None:
    """Why files could not be written into ``folder`` (created when missing), or None when they can.

    Checks without creating anything: the nearest existing ancestor must be a folder that this
    process may write to (``os.access``, which also reports a read-only file system to root).
    """
    folder = Path(os.path.abspath(folder))
    probe = folder
    while not probe.exists():
        if probe.parent == probe:
            break
        probe = probe.parent
    if not probe.is_dir():
        return f"{clean_path(probe)} is a file, not a folder"
    if not os.access(probe, os.W_OK | os.X_OK):
        with contextlib.suppress(OSError):
            if os.statvfs(probe).f_flag & os.ST_RDONLY:
                return f"{clean_path(probe)} is on a read-only file system"
        return f"{clean_path(probe)} is not writable (permission denied)"
    return None


def folder_write_problem(folder: Path, *, keep: bool = True) -> str | None:
    """Why files cannot be written into ``folder``, or None when they can.

    Creates ``folder`` when missing (as the write would) and writes and removes a probe file in
    it, so what ``os.access`` cannot see (``/proc``, ``/sys``, a full or read-only mount) is found
    before any work starts; with ``keep=False`` the folders it created are removed again. Any
    ``OSError`` on the way is the answer, never raised.
    """
    import tempfile

    why = writable_folder_problem(folder)
    if why:
        return why
    folder = Path(os.path.abspath(folder))
    made = [p for p in (folder, *folder.parents) if not p.exists()]
    step = "the folder cannot be created"
    try:
        folder.mkdir(parents=True, exist_ok=True)
        step = "a file cannot be written in it"
        fd, probe = tempfile.mkstemp(prefix=".deepresearch-probe.", suffix=".tmp", dir=folder)
        os.close(fd)
        os.unlink(probe)
    except OSError as exc:
        return f"{step} ({storage_problem(exc) or (exc.strerror or type(exc).__name__).lower()})"
    finally:
        for path in [] if keep else made:  # deepest first
            with contextlib.suppress(OSError):
                path.rmdir()
    return None


def owner_alive(pid: int) -> bool:
    """True when process ``pid`` exists (signal 0, see kill(2)), under any user: for temporary folders
    named after the process that makes them, which may be removed once it is gone. Raises nothing."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError, ValueError):  # another user's process; a number no pid is
        return True
    return True


def xdg_base(variable: str, default: str) -> Path:
    """The XDG base folder ``variable`` names (``"XDG_CACHE_HOME"``, ``"XDG_STATE_HOME"``...), or
    ``$HOME/default`` (``default`` relative, e.g. ``".cache"``). XDG Base Directory Specification: a
    relative or empty value is ignored. A relative or empty ``HOME`` is ignored too (it would put the
    folder at ``/.cache`` or below the working folder): the home folder is then the user's entry in
    the password database.

    Raises:
        KeyError: ``HOME`` is unusable and the user has no password database entry.
    """
    base = os.environ.get(variable, "")
    if os.path.isabs(base):
        return Path(base)
    home = os.environ.get("HOME", "")
    if not os.path.isabs(home):
        home = pwd.getpwuid(os.getuid()).pw_dir
    return Path(home) / default
