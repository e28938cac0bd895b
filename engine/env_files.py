"""The ``.env`` files pydantic-settings reads, checked before it reads them: which exist, that each is
a file it can read (not a folder, not a named pipe it would wait on), and the names each assigns."""

from __future__ import annotations

import errno
import io
import os
import stat
from pathlib import Path


class EnvFileError(Exception):
    """A ``.env`` file cannot be read; the message is one line naming the file and why."""


def env_file_paths(env_file: object) -> list[Path]:
    """The ``.env`` files pydantic-settings reads for ``env_file`` (a path, a sequence of them, or None),
    those that exist, as absolute paths (a link named as such, not as its target). A device
    (``.env`` linked to ``/dev/null``) is left out: pydantic-settings reads none.

    Raises:
        EnvFileError: one exists but is no file to read: a folder (pydantic-settings would pass it
            over in silence) or a named pipe or socket (it would open the pipe and wait for a
            writer for ever); checked without opening it.
    """
    if env_file is None:
        return []
    files = [env_file] if isinstance(env_file, (str, Path)) else list(env_file)  # type: ignore[call-overload]
    paths = []
    for name in files:
        path = Path(name).expanduser()
        try:
            mode = path.stat().st_mode
        except OSError:  # missing (a dangling link too) or out of reach: pydantic-settings reads none
            continue
        why = NOT_A_FILE.get(stat.S_IFMT(mode))
        if why:
            raise EnvFileError(f"cannot read the settings file {path.absolute()}: {why}")
        if stat.S_ISREG(mode):
            paths.append(path.absolute())
    return paths


#: What a ``.env`` that exists but is no file to read is, by its type (:func:`stat.S_IFMT`).
NOT_A_FILE = {
    stat.S_IFDIR: os.strerror(errno.EISDIR),
    stat.S_IFIFO: "a named pipe (FIFO), not a file",
    stat.S_IFSOCK: "a socket, not a file",
}


def env_file_names(path: Path, encoding: str) -> list[tuple[str, int]]:
    """``(name, line)`` of every assignment in the ``.env`` file ``path``, read with python-dotenv's
    parser (the one pydantic-settings reads the file with), ``line`` counted from 1.

    Raises:
        EnvFileError: the file cannot be read: not text in ``encoding`` (the line and byte named)
            or an OS error (no permission, say); pydantic-settings would read it next and raise
            the same error as a traceback.
    """
    from dotenv.parser import parse_stream

    try:
        with open(path, encoding=encoding) as stream:
            text = stream.read()
    except UnicodeDecodeError as err:
        line = err.object[: err.start].count(b"\n") + 1
        raise EnvFileError(
            f"cannot read the settings file {path}: line {line} is not {encoding.upper()} "
            f"text (byte 0x{err.object[err.start]:02x})"
        ) from None
    except OSError as err:
        raise EnvFileError(f"cannot read the settings file {path}: {err.strerror or err}") from None
    # a binding's text starts with the blank lines before it: its name is on the line after them
    return [
        (
            b.key,
            b.original.line
            + b.original.string[: len(b.original.string) - len(b.original.string.lstrip())].count("\n"),
        )
        for b in parse_stream(io.StringIO(text))
        if b.key
    ]


def env_or_dotenv(name: str, env_file: str = ".env") -> str:
    """The value of ``name`` as a setting is read (:mod:`engine.settings`): the environment's, else that
    of ``env_file`` (the settings' ``.env``, in the working folder); a blank value is as unset. "" when
    neither sets it, or when ``env_file`` cannot be read (a folder, a named pipe, not UTF-8): the
    command's settings then stop it with one line saying why (:func:`engine.settings.load_settings_as`).

    For a setting read outside :class:`engine.settings.Settings` (``LOG_LEVEL`` before the command's
    settings are loaded, ``HEALTHCHECK_URLS``).
    """
    value = os.environ.get(name, "")
    if value.strip():
        return value
    from dotenv import dotenv_values

    try:
        for path in env_file_paths(env_file):
            value = dotenv_values(path, encoding="utf-8").get(name) or ""
    except (EnvFileError, OSError, ValueError):
        return ""
    return value if value.strip() else ""
