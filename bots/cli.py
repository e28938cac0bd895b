"""The `deepresearch` command: ask, render, index, prune, status, audit, worker, slack, teams."""

from __future__ import annotations

if __name__ == "__main__":  # `python -m bots.cli`: started as the console script is, before the imports below
    from bots.entry import main as _entry

    raise SystemExit(_entry())

import gc
import os
import sqlite3
import sys
import time
from pathlib import Path
from typing import Annotated

import typer

from bots import cli_options
from bots.cli_group import Command, Group, end_with
from bots.cli_options import fail, listen_problem
from bots.terminal_signals import (
    command_ends_the_process,
    ctrl_c_deferred,
    ignore_further_interrupts,
    interrupted_exit_code,
    say_interrupted,
)
from bots.terminal_streams import guard_standard_streams
from engine.fsutil import StorageError
from engine.settings import SettingsError

app = typer.Typer(
    cls=Group,
    add_completion=False,
    no_args_is_help=True,
    rich_markup_mode=None,
    help="Deep Research in the terminal, in Slack and in Microsoft Teams.",
)


def _command():
    """``app.command()`` with the help wrapped at spaces only (:class:`bots.cli_group.HelpFormatter`)."""
    return app.command(cls=Command)


def _print_version() -> None:
    """``deepresearch VERSION`` on stdout, the installed package's version."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        typer.echo(f"deepresearch {version('deepresearch-bot')}")
    except PackageNotFoundError:  # run from a source tree that was never installed
        typer.echo("deepresearch (version unknown: the package is not installed)")


def _version(ctx: typer.Context, value: bool) -> None:
    """``--version``: the version printed once the line is read, alone on it (:func:`bots.cli_group.end_with`)."""
    if value:
        end_with(ctx, "--version", _print_version)


@app.callback()
def _main(
    show_version: Annotated[bool, typer.Option("--version", callback=_version, is_eager=True,
                                               help="Print the version and exit.")] = False,
) -> None:
    """Deep Research in the terminal, in Slack and in Microsoft Teams."""


def _stop_on_sigterm() -> None:
    """A SIGTERM (``kill``, a supervisor's stop) ends this command as Ctrl-C does, cleaned up and
    said in one line, with exit 143 (:func:`bots.terminal_signals.stop_on_sigterm_as_on_ctrl_c`);
    Python's default would end it at once, mid-write and without a word."""
    from bots.terminal_signals import stop_on_sigterm_as_on_ctrl_c

    stop_on_sigterm_as_on_ctrl_c()


@_command()
def ask(
    question: Annotated[str, typer.Argument(metavar="QUESTION", help="The research question (quote it).")] = "",
    corpus: Annotated[Path | None, typer.Option(metavar="DIR", parser=cli_options.path("--corpus", "a folder"), help="Search this folder's documents (indexed on the fly).")] = None,
    offline: Annotated[bool, typer.Option("--offline", help="Use the offline extractive model (no network).")] = False,
    answer: Annotated[str | None, typer.Option(metavar="TEXT", help="Answer to the clarifying question, if one is asked.")] = None,
    no_clarify: Annotated[bool, typer.Option("--no-clarify", help="Never ask a clarifying question.")] = False,
    resume: Annotated[str | None, typer.Option(metavar="THREAD_ID", help="Continue a paused or interrupted run: its thread id. The options it was started with are kept with the thread and used again: --offline, --corpus, --no-clarify and --out; one given again on the resume wins (--offline and --no-clarify, once given, stay on).")] = None,
    out: Annotated[Path | None, typer.Option(metavar="DIR", parser=cli_options.path("--out", "a folder"), help="Also copy the report files into this folder (created when missing); kept with the thread, so --resume copies them there (once).")] = None,
    queue: Annotated[bool, typer.Option("--queue", help="Run on the RQ workers (needs REDIS_URL).")] = False,
    file: Annotated[list[Path] | None, typer.Option("--file", metavar="PATH", parser=cli_options.path("--file", "a file"), help="A file to research with the question (PDF, DOCX, Markdown, text, HTML, CSV); repeatable.")] = None,
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="Show the log's warnings and errors as they happen (LOG_LEVEL=INFO shows more).")] = False,
) -> None:
    """Research QUESTION and write report.md, report.pdf, report.tex, report.docx, review.md,
    sources.json and usage.json; print their paths.

    \b
    Exit codes (each with one line saying why):
      0    done
      1    a setting missing or invalid; or failed (a server unreachable,
           the lock lost): resumable
      2    bad input, before any work starts
      3    waiting for an answer to the clarifying question
      4    the thread is running in another process
      5    the data folder or --out cannot be written
      6    over a quota (DEEPRESEARCH_MAX_*); nothing was started
      7    Redis (REDIS_URL) did not answer within its retry window
      130  interrupted (Ctrl-C)
      143  stopped by SIGTERM (as Ctrl-C: saved, resumable)
    """
    _stop_on_sigterm()
    try:
        from bots.console_output import EXIT_USAGE, say
        from bots.console_usage import ask_problem
        from engine.text import clean_text

        problem = ask_problem(clean_text(question), resume=resume, out=out, queue=queue, offline=offline,
                              corpus=corpus, no_clarify=no_clarify, files=list(file or []), answer=answer)
        if problem:  # refused before the research code is loaded: at once
            say(f"deepresearch: {problem}")
            raise typer.Exit(EXIT_USAGE)
        from engine.settings import load_settings

        load_settings()  # a setting missing or invalid is said before the research code is loaded too
        with ctrl_c_deferred():  # said once the imports are done: raised amid them, it could be lost
            from bots.console import run_ask
    except KeyboardInterrupt:  # while loading the research code: nothing of it ran
        raise typer.Exit(say_interrupted("deepresearch: interrupted before the research started; "
                                         "nothing was started.")) from None
    except SettingsError as err:
        fail(str(err))
    try:
        code = run_ask(
            question=question,
            corpus=corpus,
            offline=offline,
            answer=answer,
            no_clarify=no_clarify,
            resume=resume,
            out=out,
            queue=queue,
            files=list(file or []),
            verbose=verbose,
        )
    except SettingsError as err:
        fail(str(err))
    raise typer.Exit(interrupted_exit_code(code))


@_command()
def render(
    report: Annotated[Path, typer.Argument(metavar="REPORT", parser=cli_options.path("REPORT", "a report.md"), help="A report.md, as written by ask or edited since.")],
    out: Annotated[Path | None, typer.Option(metavar="DIR", parser=cli_options.path("--out", "a folder"), help="Write the files here (default: the report's folder).")] = None,
) -> None:
    """Turn REPORT back into report.tex, report.pdf and report.docx, citations and Sources as written."""
    _stop_on_sigterm()
    from engine.render.outputs import render_outputs
    from engine.render.reread import ReportFileError, read_report

    try:
        doc = read_report(report)
    except ReportFileError as err:
        fail(str(err), 2)
    if out is not None and out.exists() and not out.is_dir():  # as ask --out: the command line's mistake
        from engine.text import clean_path

        fail(f"--out {clean_path(out)} is a file; give a folder (it is created when missing).", 2)
    target = out if out is not None else report.parent
    try:
        paths = render_outputs(doc, target)
    except OSError as err:
        fail(f"cannot write to {target}: {err.strerror or err}")
    for key in ("report_tex", "pdf", "docx"):
        if key in paths:
            typer.echo(paths[key])
    warnings = paths.get("pdf_warnings", [])
    for warning in warnings[:3]:
        typer.echo(f"deepresearch: warning: {warning}", err=True)
    if len(warnings) > 3:
        typer.echo(f"deepresearch: warning: … and {len(warnings) - 3} more", err=True)
    if "pdf_error" in paths or "docx_error" in paths:
        fail("; ".join(f"{name} not written: {paths[key]}" for name, key in
                        (("report.pdf", "pdf_error"), ("report.docx", "docx_error")) if key in paths))


@_command()
def index(
    directory: Annotated[Path, typer.Argument(metavar="DIRECTORY", parser=cli_options.path("DIRECTORY", "a folder"), help="Folder of .md, .markdown, .txt, .text, .log, .rst, .html, .htm, .pdf, .csv and .docx files; others are skipped.")],
) -> None:
    """Index DIRECTORY into the local corpus (SQLite FTS5) for DEEPRESEARCH_SEARCH=corpus.

    \b
    Exit codes (each with one line saying why):
      0    indexed
      1    nothing to index, or the index file is unusable
      2    DIRECTORY does not exist or is not a folder
      5    the corpus index cannot be written
      130  interrupted (Ctrl-C); an earlier index is kept as it was, a new one is not left
      143  stopped by SIGTERM (as Ctrl-C)
    """
    _stop_on_sigterm()
    from engine.fsutil import folder_write_problem, storage_problem
    from engine.search.corpus_index import index_directory
    from engine.search.corpus_layout import CorpusIndexError
    from engine.settings import corpus_index_for, load_settings
    from engine.text import clean_path

    if not directory.expanduser().exists():
        fail(f"{clean_path(directory)}: no such folder", 2)
    if not directory.expanduser().is_dir():
        fail(f"{clean_path(directory)} is not a folder", 2)
    try:
        settings = load_settings()
        why = folder_write_problem(settings.data_dir)
        if why:
            fail(f"cannot write under the data folder {clean_path(settings.data_dir)}: {why}", 5)
        index_path = corpus_index_for(settings.data_dir, directory)
        stats = index_directory(directory, index_path, on_wait=lambda: typer.echo(
            "Another run is indexing into this data folder; waiting for it to finish …", err=True))
    except SettingsError as err:
        fail(str(err))
    except CorpusIndexError as err:
        fail(str(err), 5 if storage_problem(err.__cause__) else 1)
    typer.echo(
        f"indexed {stats.documents} document{'' if stats.documents == 1 else 's'} ({stats.skipped} skipped) "
        f"from {clean_path(directory)} "
        f"into {clean_path(index_path)}"
    )
    from bots.console_output import index_skips

    for line in index_skips(stats.skipped_files, directory):
        typer.echo(line, err=True)


@_command()
def prune(
    older_than: Annotated[float, typer.Option("--older-than", metavar="DAYS", parser=cli_options.days("--older-than"),
                                              help="Age in days of the newest checkpoint.")] = 30,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="List what would go, delete nothing.")] = False,
    keep_artifacts: Annotated[bool, typer.Option("--keep-artifacts", help="Keep the report files.")] = False,
) -> None:
    """Delete threads (checkpoints and report files) idle for more than --older-than days, and
    audit records older than that. A thread queued or running is kept, and listed."""
    _stop_on_sigterm()
    import asyncio

    from engine.fsutil import write_problem
    from engine.maintenance import prune_threads
    from engine.settings import load_settings
    from engine.text import clean_path
    from jobs import audit

    try:
        settings = load_settings()
    except SettingsError as err:
        fail(str(err))
    from redis.exceptions import RedisError

    from bots.console_output import EXIT_REDIS
    from engine.maintenance import PruneReport
    from jobs.prune_guard import PruneGuard

    # asked first, briefly: nothing is deleted without it, so no wait of 90 s
    cli_options.redis_answers_or_fail(settings, "nothing was pruned, no thread, report file or audit record "
                                                "deleted. Start Redis, then prune again.")
    report = PruneReport()
    try:
        guard = PruneGuard(settings)  # reads the open turns before anything is deleted
        asyncio.run(prune_threads(settings, older_than_days=older_than, dry_run=dry_run,
                                  keep_artifacts=keep_artifacts, guard=guard, report=report))
        audited = audit.prune(settings, older_than_days=older_than, dry_run=dry_run)
    except SettingsError as err:  # DATABASE_URL unusable (engine.database.DatabaseError)
        fail(str(err))
    except RedisError as err:  # without it no thread can be told to be in flight: none more is deleted
        from jobs.redisconn import unanswered_line

        done = ("nothing was pruned" if dry_run or not report.threads else
                f"{len(report.threads)} thread(s) were deleted before it stopped: {', '.join(report.threads)}")
        fail(f"{unanswered_line(settings.redis_url or '', err)}; prune stopped ({done}; no audit record "
             "deleted): it deletes no thread it cannot tell is not queued or running. Start Redis, "
             "then prune again.", EXIT_REDIS)
    except (OSError, sqlite3.Error) as err:
        why = write_problem(err, settings.data_dir)
        if why is None:
            raise
        fail(f"cannot change the data folder {clean_path(settings.data_dir)}: {why}", 5)
    for thread in report.threads:
        typer.echo(f"  {thread}")
    for thread, why in report.busy.items():
        typer.echo(f"  {thread}: {'would be kept' if dry_run else 'kept'}, in flight ({why})")
    what = "checkpoint file" if settings.database_url is None else "PostgreSQL checkpoint and report tables"
    busy = f" ({len(report.busy)} in flight, listed above)" if report.busy else ""
    if dry_run:
        typer.echo(f"would delete {len(report.threads)} thread(s), keep {report.kept}{busy}; {what} "
                   f"{report.bytes_before:,} bytes")
    else:
        typer.echo(f"deleted {len(report.threads)} thread(s), kept {report.kept}{busy}; {what} "
                   f"{report.bytes_before:,} -> {report.bytes_after:,} bytes")
    typer.echo(f"{'would delete' if dry_run else 'deleted'} {audited} audit record(s)")


@_command()
def status(
    thread: Annotated[str | None, typer.Argument(metavar="THREAD", help="A thread id (console:<uuid>, as ask printed it); without it, your open researches.")] = None,
) -> None:
    """Say what your researches are doing, as `status` does in Slack and Teams: each one queued,
    running, waiting for your answer (with the question it asked), posting its report or stopped
    (with the command that continues it), with its thread id and question, newest first; or THREAD's
    status, whatever it is (done with its report's path, failed and cancelled too). It reads the
    thread registry (Redis with REDIS_URL, else the data folder), which holds researches run with
    ask --queue and the chats', and the data folder's record of each ask run in a terminal. It takes
    no lock and writes nothing.

    \b
    Exit codes (each with one line saying why):
      0    said
      1    a setting missing or invalid
      2    THREAD is not known
      7    Redis (REDIS_URL) does not answer within 3 s
    """
    _stop_on_sigterm()
    from bots.console_queue import requester
    from bots.console_status import UnknownThread, status_lines
    from engine.settings import load_settings

    try:
        settings = load_settings()
    except SettingsError as err:
        fail(str(err))
    # a status is asked for now: said at once, not after the 90 s retry window
    cli_options.redis_answers_or_fail(settings, "no status to say. Start Redis, then ask again.")
    try:
        lines = status_lines(settings, requester(), thread)
    except UnknownThread as err:
        fail(str(err), 2)
    for line in lines:
        typer.echo(line)


@_command()
def audit(
    since: Annotated[float | None, typer.Option("--since", metavar="DAYS", parser=cli_options.days("--since"),
                                                help="Only researches with an attempt in the last DAYS days (each shown whole).")] = None,
    user: Annotated[str | None, typer.Option("--user", metavar="ID", help="Only this requester's researches.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="One JSON object per research per line instead of a table.")] = False,
) -> None:
    """Who asked what, what it cost and what was delivered: one row per research, oldest first (a
    research stopped and resumed is one row, its attempts combined; with --since, a research
    with an attempt in the window is shown whole, saying when it started before)."""
    _stop_on_sigterm()
    from bots.audit_table import print_audit
    from engine.settings import load_settings
    from jobs import audit as trail
    from jobs.audit_rows import researches, window_start

    now = time.time()
    try:
        settings = load_settings()
        trail.flush_pending_logged(settings)  # records a full disk kept out of the trail, if it has room now
        records, skipped = trail.read_checked(settings, since_days=since, user=user, now=now)
    except SettingsError as err:  # DATABASE_URL unusable (engine.database.DatabaseError)
        fail(str(err))
    except OSError as err:
        fail(f"cannot read the audit trail: {err.strerror or err}")
    if skipped:
        typer.echo(f"deepresearch: skipped {skipped} stored line(s) that are not audit records", err=True)
    from engine.text import terminal_line

    shown_user = terminal_line(user or "").replace("\n", " ")  # printed: no escapes, one line
    chosen = (f" of requester {shown_user}" if user is not None else "") + (
        f" in the last {since:g} day(s)" if since is not None else "")
    print_audit(researches(records, window=window_start(since, now)), as_json=as_json, filters=chosen)


@_command()
def worker(
    burst: Annotated[bool, typer.Option("--burst", help="Exit when nothing is queued and no retry is scheduled.")] = False,
    queue: Annotated[str, typer.Option(metavar="NAME", callback=cli_options.queue,
                                       help="The RQ queue to listen on: research, the one the bot sends to.")] = "research",
) -> None:
    """Run an RQ worker for research turns (needs REDIS_URL)."""
    from jobs.locks import holding_as
    from jobs.worker import main as worker_main

    try:
        with holding_as("worker"):  # its thread locks say so (and pid, host) to whoever they refuse
            worker_main(burst=burst, queue=queue)
    except SettingsError as err:
        fail(str(err))
    except StorageError as err:  # the corpus index its searches need cannot be read
        fail(str(err), 5)


@_command()
def slack(
    port: Annotated[int, typer.Option(metavar="PORT", parser=cli_options.port,
                                      help="HTTP port: /slack/events (HTTP mode) and /healthz (both modes).")] = 3000,
    host: Annotated[str, typer.Option(metavar="HOST", help="Address to listen on.")] = "0.0.0.0",
) -> None:
    """Run the Slack bot: Socket Mode with SLACK_APP_TOKEN, else HTTP on /slack/events."""
    from bots.slack.settings import check_settings
    from engine.settings import load_settings
    from jobs.locks import holding_as

    try:
        check_settings(load_settings())  # the server's first checks, made before its imports: a refusal at once
        from bots.slack.server import main as slack_main

        with holding_as("slack"):  # the thread locks of its in-process runner (no REDIS_URL) say so
            slack_main(port=port, host=host)
    except SettingsError as err:
        fail(str(err))
    except StorageError as err:  # the corpus index its searches need cannot be read
        fail(str(err), 5)
    except OSError as err:
        fail(f"cannot listen on {host}:{port}: {listen_problem(err)}")


@_command()
def teams(
    port: Annotated[int, typer.Option(metavar="PORT", parser=cli_options.port,
                                      help="HTTP port for /api/messages, /files and /healthz.")] = 3978,
    host: Annotated[str | None, typer.Option(
        metavar="HOST", help="Address to listen on (default 0.0.0.0; 127.0.0.1 when MICROSOFT_APP_ID is unset).")] = None,
) -> None:
    """Run the Microsoft Teams bot: HTTP on /api/messages and /files/{token}."""
    from bots.teams.settings import load_teams_settings
    from jobs.locks import holding_as
    from jobs.startup import check_local

    try:
        settings = load_teams_settings()
        check_local(settings, research=True)  # the server's first check, made before its imports: a refusal at once
        from bots.teams.server import main as teams_main

        if host is None:  # unauthenticated local mode stays on this machine unless asked otherwise
            host = "0.0.0.0" if settings.microsoft_app_id else "127.0.0.1"
        with holding_as("teams"):  # the thread locks of its in-process runner (no REDIS_URL) say so
            teams_main(port=port, host=host, settings=settings)
    except SettingsError as err:
        fail(str(err))
    except StorageError as err:  # the corpus index its searches need cannot be read
        fail(str(err), 5)
    except OSError as err:
        fail(f"cannot listen on {host}:{port}: {listen_problem(err)}")


#: The mode bits every file and folder the bot creates leaves out: group and others read nothing
#: (files 0600, folders 0700). The data folder holds questions, thread discussions, reports, the
#: audit trail and the checkpoints; a report copied with ``--out`` is as private.
PRIVATE_UMASK = 0o077


#: The cyclic garbage collector's first-generation threshold for every command (see :func:`main`).
GC_THRESHOLD = 10_000

def main() -> None:
    """Console-script entry point: private files (:data:`PRIVATE_UMASK`), logging, then the command;
    a Ctrl-C or SIGTERM (:mod:`bots.entry` takes it as a Ctrl-C from the start) that nothing else
    answered ends it with one line and exit 130 or 143, wherever it lands."""
    try:
        _set_up()
        command_ends_the_process()
        app()
    except KeyboardInterrupt:
        ignore_further_interrupts()
        sys.exit(say_interrupted())
    finally:  # the command has ended and said so: a signal now would end the process without a word
        ignore_further_interrupts()


def _set_up() -> None:
    """The process's settings for every command: the collector's threshold, the umask, the standard
    streams (never None; an output that fails is silenced: :func:`bots.terminal_streams.guard_standard_streams`),
    the log."""
    from bots.logs import configure_logging

    # The research code's imports (langchain-core, langgraph, pydantic models) allocate about a
    # million objects and free almost none: at CPython's default first threshold (700) the cyclic
    # collector walks them again and again. At 10,000 start-up takes about a quarter less CPU
    # (measured: 1.3-1.6 s down to 1.0-1.2 s on two cores); cycles are still collected.
    gc.set_threshold(GC_THRESHOLD, 20, 20)
    os.umask(PRIVATE_UMASK)
    for name, mode in (("stdin", "r"), ("stdout", "w"), ("stderr", "w")):
        if getattr(sys, name) is None:  # started with it closed (2>&-, <&-): as /dev/null, not an AttributeError mid-run
            setattr(sys, name, open(os.devnull, mode, encoding="utf-8"))  # noqa: SIM115 - for the process's life
    guard_standard_streams()  # an output that cannot take a line is silenced, as ask's is, in every command
    configure_logging()
    for stream in (sys.stdout, sys.stderr):  # a last guard: an unprintable character never ends a run
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="backslashreplace")
    if hasattr(sys.stdin, "reconfigure"):  # typed bytes that are not UTF-8 reach clean_text, not a crash
        sys.stdin.reconfigure(errors="surrogateescape")
