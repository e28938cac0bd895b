"""The checks of the ``deepresearch`` command line's values (days, port, queue name) and its one-line
refusals: bad input is said in one line, ``deepresearch: ...``, with its exit code."""

from __future__ import annotations

import math
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import NoReturn

import typer

from bots.terminal_streams import put

#: The most days ``--older-than`` and ``--since`` take: a century, past any thread or record the bot
#: wrote (its times count from 1970) and far inside the dates Python counts back to (year 1, about
#: 739,000 days ago), so that the cutoff ``now - days`` is always a date.
MAX_DAYS = 36_500

#: TCP's port numbers (RFC 793: 16 bits); 0 asks the system for any free port, the one bound is
#: what the server says it listens on.
PORTS = range(0, 65536)


def say(message: str) -> None:
    """Print ``deepresearch: MESSAGE`` on stderr as one line (bytes that are not UTF-8 shown as ``\\xNN``,
    control characters, terminal escapes and bidirectional overrides removed: :func:`engine.text.terminal_line`;
    line breaks made spaces); an output that cannot take it is silenced (:func:`bots.terminal_streams.put`)."""
    from engine.text import terminal_line

    put(sys.stderr, f"deepresearch: {' '.join(terminal_line(message).splitlines())}\n")


def redis_answers_or_fail(settings, then: str) -> None:
    """With ``REDIS_URL`` set, ask Redis for at most :data:`jobs.prune_guard.PRUNE_REDIS_WAIT` seconds
    (:func:`jobs.redisconn.answer_problem`) and, when it does not answer or answers with an error (a
    wrong password), end the command with exit 7 (:data:`bots.console_output.EXIT_REDIS`) in one line:
    where Redis is (its URL without the password), how long it was asked, the error's type, then ``then``
    (what that means for this command). Without ``REDIS_URL``: nothing.

    Raises:
        typer.Exit: Redis did not answer.
    """
    if not settings.redis_url:
        return
    from redis.exceptions import RedisError

    from bots.console_output import EXIT_REDIS
    from engine.database import shown_url
    from jobs.prune_guard import PRUNE_REDIS_WAIT
    from jobs.redisconn import answer_problem

    try:
        silent = answer_problem(settings.redis_url, PRUNE_REDIS_WAIT)
    except RedisError as err:  # it answered with an error: the same line, its type
        silent = err
    if silent is not None:
        fail(f"Redis at REDIS_URL ({shown_url(settings.redis_url)}) does not answer (asked for "
             f"{PRUNE_REDIS_WAIT:g} s; {type(silent).__name__}): {then}", EXIT_REDIS)


def fail(message: str, code: int = 1) -> None:
    """End the command with ``message`` said in one line (:func:`say`) and exit ``code``.

    Raises:
        typer.Exit: always, with ``code``; the exit code stands whatever stderr is.
    """
    say(message)
    raise typer.Exit(code)


def refuse(message: str) -> NoReturn:
    """Refuse a value as the command line is read: ``message`` said in one line with where the
    command's help is (:func:`usage_error_line`), exit 2 (bad input), as Click's own usage errors.

    Raises:
        UsageError: Click's (Typer's copy), always; with the command being read, when there is one.
    """
    from typer._click.exceptions import UsageError
    from typer._click.globals import get_current_context

    raise UsageError(message, ctx=get_current_context(silent=True))


def days(option: str) -> Callable[[str], float]:
    """The parser of the number-of-days option ``option`` (``--older-than``, ``--since``): a
    number of days, decimals taken (``0.5`` is twelve hours), from 0 to :data:`MAX_DAYS`. Anything
    else (a word, ``5d``, a NaN, an infinity, a negative number) is refused as it is read, with one
    line naming ``option`` and what it takes, and exit 2 (bad input)."""

    def parse(value: str | float) -> float:
        try:
            number = float(value)
        except (TypeError, ValueError):
            number = math.nan
        if not (math.isfinite(number) and 0 <= number <= MAX_DAYS):
            refuse(f"{option} must be a number of days from 0 to {MAX_DAYS} (such as 30 or 0.5)")
        return number

    return parse


def port(value: str | int) -> int:
    """The parser of ``--port``: a whole number in :data:`PORTS`; anything else (a word, ``3.5``,
    a number out of range) is refused as it is read, with one line and exit 2 (bad input), before
    the server starts."""
    try:
        number = int(value)
    except (TypeError, ValueError):
        number = -1
    if number not in PORTS:
        refuse(f"--port must be a whole number from {PORTS[0]} to {PORTS[-1]} (0: any free port)")
    return number


def path(name: str, what: str) -> Callable[[str], Path]:
    """The parser of the path option or argument ``name`` (``--corpus``, ``REPORT``), the path of
    ``what`` (``"a folder"``, ``"a report.md"``): an empty value, which the system would read as the
    current folder, is refused with one line and exit 2 (bad input)."""

    def parse(value: str | Path) -> Path:
        if not str(value):
            refuse(f"{name} must be {what}'s path, not empty")
        return Path(value)

    return parse


def queue(value: str) -> str:
    """The value of ``worker --queue``, checked as it is read: a name the bot never sends research
    turns to (:data:`jobs.queue.QUEUE_NAME`, empty included) is refused with one line and exit 2; a
    worker listening there would wait forever."""
    from jobs.queue import QUEUE_NAME

    if value != QUEUE_NAME:
        refuse(f"--queue {value!r} is not a queue the bot sends to: research turns go to {QUEUE_NAME!r}")
    return value


def listen_problem(err: OSError) -> str:
    """Why a server could not listen, as the system says it (``Address already in use``): asyncio
    wraps the errno's text in its own sentence, which repeats the address. A name that does not
    resolve (``socket.gaierror``, whose codes are not errnos) keeps its own text."""
    import errno

    return os.strerror(err.errno) if err.errno in errno.errorcode else (err.strerror or str(err))


def usage_error_line(err: typer.TyperException) -> str:
    """A command line Click could not read (an unknown option or command, a value that is not a
    number, a missing argument) as one line without ``deepresearch: ``, in the command's own words:
    Click's message, its first word in lower case, and where the command's help is. A value
    Click's types refuse (a ``BadParameter``, worded by Typer's pydantic) is said as what the option
    takes instead: ``--limit takes COUNT`` (the options and arguments this command line checks
    itself, :func:`days`, :func:`port`, :func:`path`, say more); a choice's by its values. An unknown
    option is followed by the command's options spelt like it, if any: ``no such option: --outt.
    Did you mean --out?`` (:data:`SUGGEST_CUTOFF`); Click's own suggestions
    ("Possible options: --corpus, --out, --verbose" for ``--bogus``) are not said. Every line that
    has a command says where its help is, an option given without its value included.

    ``"Invalid value for '--since': ..."`` from ``deepresearch audit --since x`` gives
    ``"invalid value for '--since': ... (see 'deepresearch audit --help')"``.
    """
    from typer._click.exceptions import NoSuchOption  # Typer carries its own copy of Click

    param = getattr(err, "param", None)
    ctx = getattr(err, "ctx", None)  # a usage error's command, when Click knows it
    if type(err) is typer.BadParameter and param is not None:  # a value of the wrong type, in the library's words
        message = f"{_param_name(param)} takes {_what_it_takes(param)}"
    elif isinstance(err, NoSuchOption):  # Click's own suggestions match the dashes: --bogus "is" --corpus
        close = _close_options(err.option_name, ctx)
        message = " ".join(err.message.split()).rstrip(".") + (f". Did you mean {' or '.join(close)}?" if close else "")
    else:
        message = " ".join(err.format_message().split()).rstrip(".")
    first = message.split(" ", 1)[0]
    if first[:1].isupper() and first[1:].islower():  # Click's sentence case; an option or a name stays
        message = first.lower() + message[len(first) :]
    return f"{message} (see '{ctx.command_path} --help')" if ctx is not None else message


#: How alike (:class:`difflib.SequenceMatcher`'s ratio, difflib's default cutoff) an option's name must
#: be to the one typed, both without their dashes, to be suggested: ``--resum`` is ``--resume`` (0.91),
#: ``--ans`` is ``--answer`` (0.67); ``--bogus`` is not ``--corpus`` (0.55). Click compares them with
#: their dashes, which every long option shares: ``--bogus`` and ``--corpus`` then score 0.67.
SUGGEST_CUTOFF = 0.6


def _close_options(typed: str, ctx) -> list[str]:
    """The long options of ``ctx``'s command spelt close to ``typed`` (at most two, closest first):
    their names compared without their dashes, which every option shares."""
    from difflib import get_close_matches

    if ctx is None:
        return []
    names = {name.lstrip("-"): name for param in ctx.command.get_params(ctx) if param.param_type_name == "option"
             for name in (*param.opts, *param.secondary_opts) if name.startswith("--")}
    return [names[close] for close in get_close_matches(typed.lstrip("-"), list(names), n=2, cutoff=SUGGEST_CUTOFF)]


def _what_it_takes(param) -> str:
    """What ``param`` takes, as its one-line refusal says it: a choice's values (``red or blue``), else its metavar."""
    described = getattr(param, "type_descriptor", None)  # Typer's description of the parameter's type
    choices = described.choices if getattr(described, "is_choice", False) else None
    if choices:
        values = [str(getattr(choice, "value", choice)) for choice in choices]
        return ", ".join(values[:-1]) + f" or {values[-1]}" if len(values) > 1 else values[0]
    return param.metavar or _param_name(param).lstrip("-").upper()


def _param_name(param) -> str:
    """How a command line names ``param``: an option by its first flag (``--port``), an argument by its metavar."""
    if getattr(param, "param_type_name", "") == "option":
        return param.opts[0]
    return param.metavar or param.opts[0].upper()
