"""The terminal surface: `deepresearch ask`, with a live progress line and the clarifying question on the terminal."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import sys
import time
import uuid
from pathlib import Path

import openai
from rich.console import Console

from engine.bounds import ServiceTimeout
from engine.progress import Progress
from engine.runner import RunCancelled, TurnOutcome, TurnRejected, run_turn, thread_status, validate_question
from engine.search.base import SearchError
from engine.settings import Settings, SettingsError, load_settings

err = Console(stderr=True, highlight=False, soft_wrap=True)
EXIT_USAGE = 2


class ConsoleProgress:
    """Shows :class:`Progress` on stderr: one rewritten line on a terminal, changed lines otherwise."""

    def __init__(self) -> None:
        self.tty = sys.stderr.isatty()
        self.last = ""
        self.last_time = 0.0

    def __call__(self, progress: Progress) -> None:
        line = progress.render().replace("\n", " | ")
        if line == self.last:
            return
        now = time.monotonic()
        if self.tty:
            err.print(f"\r\x1b[2K{line}", end="", soft_wrap=True)
        elif line.split(" · ")[0] != self.last.split(" · ")[0] or now - self.last_time > 2:
            err.print(line, soft_wrap=True)
            self.last_time = now
        self.last = line

    def done(self) -> None:
        if self.tty and self.last:
            err.print()


def _settings(offline: bool, corpus: Path | None, no_clarify: bool) -> Settings:
    overrides: dict = {}
    if offline:
        overrides["llm"] = "offline"
    if corpus is not None:
        overrides.update(search="corpus", corpus_dir=corpus)
    if no_clarify:
        overrides["allow_clarification"] = False
    return load_settings(**overrides)


def _options_file(data_dir: Path, thread: str) -> Path:
    from engine.artifacts import safe_name

    return data_dir / "console" / f"{safe_name(thread)}.json"


def _remember(settings: Settings, thread: str, *, offline: bool, corpus: Path | None, no_clarify: bool) -> None:
    """Keep a terminal thread's options so ``--resume`` runs it the same way."""
    path = _options_file(settings.data_dir, thread)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"offline": offline, "corpus": str(corpus) if corpus else None,
                                "no_clarify": no_clarify}), encoding="utf-8")


def _remembered(thread: str, offline: bool, corpus: Path | None, no_clarify: bool) -> tuple[bool, Path | None, bool]:
    """The options a thread was started with, unless given again on the command line."""
    path = _options_file(load_settings().data_dir, thread)
    if not path.exists():
        return offline, corpus, no_clarify
    saved = json.loads(path.read_text(encoding="utf-8"))
    return (offline or bool(saved.get("offline")),
            corpus or (Path(saved["corpus"]) if saved.get("corpus") else None),
            no_clarify or bool(saved.get("no_clarify")))


def _index(corpus: Path, settings: Settings) -> None:
    from engine.search.corpus import CorpusIndexError, index_directory

    err.print(f"Indexing {corpus} …")
    try:
        stats = index_directory(corpus, settings.corpus_index_path)
    except CorpusIndexError as exc:
        raise SettingsError(str(exc)) from None
    err.print(f"Indexed {stats.documents} document{'' if stats.documents == 1 else 's'} ({stats.skipped} skipped).")


def _ask_user(question: str) -> str:
    err.print(f"\n[bold]Clarifying question:[/bold] {question}")
    if not sys.stdin.isatty():
        line = sys.stdin.readline()
        return line.strip()
    return err.input("[bold]Your answer:[/bold] ").strip()


def _print_result(outcome: TurnOutcome, out: Path | None) -> None:
    arts = outcome.artifacts
    if arts is None:
        return
    print(f"\n{outcome.title or 'Report'}\n")
    if outcome.errors:
        err.print(f"[yellow]{len(outcome.errors)} research topic(s) failed; the report says which.[/yellow]")
    files = [arts.report_md, arts.pdf, arts.docx, arts.report_tex, arts.review_md, arts.sources_json, arts.usage_json]
    for f in files:
        if f is not None:
            print(f"  {f}")
    if arts.pdf is None:
        err.print(f"[yellow]The PDF could not be built: {arts.pdf_error}. The Markdown report is complete.[/yellow]")
    if out is not None:
        out.mkdir(parents=True, exist_ok=True)
        for f in files:
            if f is not None:
                shutil.copy2(f, out / f.name)
        print(f"  copied to {out}")


async def _direct(thread: str, question: str | None, answer: str | None, resume: bool, settings: Settings) -> TurnOutcome:
    shown = ConsoleProgress()
    try:
        if resume and answer is None:
            outcome = await run_turn(thread, resume_only=True, settings=settings, on_progress=shown)
        elif resume:
            outcome = await run_turn(thread, answer=answer, settings=settings, on_progress=shown)
            answer = None
        else:
            outcome = await run_turn(thread, question=question, settings=settings, on_progress=shown)
        while outcome.status == "clarify":
            shown.done()
            reply = answer if answer is not None else _ask_user(outcome.question or "")
            answer = None
            if not reply:
                err.print(f"No answer given. Answer later with: deepresearch ask --resume {thread} --answer \"…\"")
                return outcome
            outcome = await run_turn(thread, answer=reply, settings=settings, on_progress=shown)
    finally:
        shown.done()
    return outcome


def run_ask(
    *, question: str, corpus: Path | None, offline: bool, answer: str | None, no_clarify: bool,
    resume: str | None, out: Path | None, queue: bool,
) -> int:
    """Run ``deepresearch ask``; returns the exit code (0 done, 1 failed, 2 usage, 3 waiting for an answer).

    Raises:
        SettingsError: a setting is missing or invalid (the CLI prints it as one line).
    """
    if not resume and not question.strip():
        err.print("usage: deepresearch ask \"QUESTION\" — the question is empty.")
        return EXIT_USAGE
    problem = _usage_problem(question, resume, out, queue, offline=offline, corpus=corpus, no_clarify=no_clarify)
    if problem:
        err.print(f"deepresearch: {problem}")
        return EXIT_USAGE
    if corpus is not None:
        corpus = Path(os.path.abspath(corpus.expanduser()))  # as spelt, so a resumed run cites the same paths
    if queue:
        from bots.console_queue import ask_via_queue

        settings = load_settings()
        if resume and question.strip():
            err.print("--resume continues that thread's research; the question given is ignored.")
        return ask_via_queue(resume or f"console:{uuid.uuid4()}", question, answer, settings, out, _ask_user,
                             resume=bool(resume))
    if resume:
        offline, corpus, no_clarify = _remembered(resume, offline, corpus, no_clarify)
        if question.strip():
            err.print("--resume continues that thread's research; the question given is ignored.")
    settings = _settings(offline, corpus, no_clarify)
    settings.require_model()
    if resume and asyncio.run(thread_status(resume, settings=settings)) == "none":
        err.print(f"deepresearch: there is no research with thread id {resume} under {settings.data_dir}.")
        return EXIT_USAGE
    if corpus is not None:
        _index(corpus, settings)
    settings.require_search()
    thread = resume or f"console:{uuid.uuid4()}"
    err.print(f"thread: {thread}")
    _remember(settings, thread, offline=offline, corpus=corpus, no_clarify=no_clarify)
    if settings.llm_backend == "offline":
        err.print("model: offline extractive mode (no language model; the report says so)")
    if settings.search_backend == "none":
        err.print("[yellow]search: none configured (set TAVILY_API_KEY or use --corpus DIR); "
                  "the report will have no sources[/yellow]")
    try:
        outcome = asyncio.run(_direct(thread, None if resume else question, answer, bool(resume), settings))
    except TurnRejected as exc:
        err.print(f"deepresearch: {exc}")
        return EXIT_USAGE
    except (SearchError, ServiceTimeout, openai.APIError, RunCancelled) as exc:
        err.print(f"deepresearch: {_short_error(exc)}")
        err.print(f"The run is saved; continue it with: deepresearch ask --resume {thread}")
        return 1
    except KeyboardInterrupt:
        err.print(f"\nInterrupted. Continue with: deepresearch ask --resume {thread}")
        return 130
    if outcome.status == "clarify":
        return 3
    _print_result(outcome, out)
    return 0


def _usage_problem(question: str, resume: str | None, out: Path | None, queue: bool, *, offline: bool,
                   corpus: Path | None, no_clarify: bool) -> str | None:
    """What is wrong with the command line before any work starts, or None."""
    if not resume:
        try:
            validate_question(question)
        except TurnRejected as exc:
            return str(exc)
    if out is not None and out.exists() and not out.is_dir():
        return f"--out {out} is a file; give a folder (it is created when missing)."
    if queue and (offline or corpus is not None or no_clarify):
        given = ", ".join(name for name, on in (("--offline", offline), ("--corpus", corpus is not None),
                                                ("--no-clarify", no_clarify)) if on)
        return (f"{given}: with --queue the research runs on the workers with their own settings. Set "
                "DEEPRESEARCH_LLM, DEEPRESEARCH_SEARCH and DEEPRESEARCH_CORPUS_DIR (after `deepresearch index DIR`) "
                "or DEEPRESEARCH_ALLOW_CLARIFICATION where the workers run, or drop --queue.")
    return None


def _short_error(exc: BaseException) -> str:
    from bots.logs import redact

    if isinstance(exc, openai.APIConnectionError):
        return f"the model server could not be reached ({type(exc).__name__}) after retries"
    if isinstance(exc, openai.AuthenticationError):
        return "the model server rejected the API key (OPENAI_API_KEY)"
    if isinstance(exc, openai.APIStatusError):
        return f"the model server answered {exc.status_code}: {redact(str(exc.message))[:300]}"
    return redact(str(exc))[:400]

