"""`deepresearch ask --queue`: the research runs on an RQ worker; the terminal follows it through Redis."""

from __future__ import annotations

import shutil
import sys
import uuid
from collections.abc import Callable
from pathlib import Path

from rich.console import Console
from rich.markdown import Markdown

from engine.settings import Settings, SettingsError

err = Console(stderr=True, highlight=False, soft_wrap=True)
USER = "console"
#: The files of a finished run, in the order the local `deepresearch ask` prints them.
RUN_FILES = ("report.md", "report.pdf", "report.docx", "report.tex", "review.md", "sources.json", "usage.json")


class _Transcript:
    """Prints the worker's relayed messages; the last post is held back until the next event, so a
    clarifying question is shown once, by the prompt that asks for the answer."""

    def __init__(self) -> None:
        self.pending = ""
        self.files: list[str] = []
        self.comment = ""

    def __call__(self, event: dict) -> None:
        self.flush()
        if event["op"] == "post":
            self.pending = event["text"]
        elif event["op"] == "update":
            err.print(event["text"].replace("\n", " | "))
        elif event["op"] == "upload":
            self.files, self.comment = event["files"], event.get("comment", "")

    def flush(self) -> None:
        if self.pending:
            err.print(Markdown(self.pending))
            self.pending = ""

    def take_question(self, fallback: str) -> str:
        question, self.pending = self.pending or fallback, ""
        return question


def _say_outage(error: BaseException | None) -> None:
    if error is None:
        err.print("Redis is back; following the research again.")
    else:
        err.print(f"Redis does not answer ({type(error).__name__}); still waiting for it …")


def _open_in_journal(thread: str, settings: Settings) -> bool:
    from jobs.journal import open_turn_of
    from jobs.store import get_store

    return open_turn_of(get_store(settings), thread) is not None


def ask_via_queue(thread: str, question: str, answer: str | None, settings: Settings, out: Path | None,
                  ask_user: Callable[[str], str], resume: bool = False) -> int:
    """Queue the question (or, with ``resume``, continue ``thread``), follow the worker, print the files.

    With ``resume``, a thread waiting for an answer gets ``answer`` (or one asked on the terminal),
    a queued or running one is followed, and a finished one prints its files.
    Returns the exit code: 0 report delivered, 1 failed or cancelled, 2 refused, 3 waiting for an answer.
    A Redis outage while following is waited out with a one-line notice (no traceback); a thread
    Redis forgot (restarted without its data) is followed while a worker recovers it from the
    data dir's journal.

    Raises:
        SettingsError: ``REDIS_URL`` is not set.
        redis.exceptions.ConnectionError: Redis is unreachable when the question is queued.
    """
    if not settings.redis_url:
        raise SettingsError("--queue needs REDIS_URL (and a running `deepresearch worker`)")
    from jobs import handle_message, thread_info
    from jobs.relay import RelayPort, follow
    from jobs.run import UPLOAD_COMMENT
    from jobs.threads import ACTIVE, IN_PROGRESS

    port = RelayPort.for_thread(thread)
    shown = _Transcript()

    def send(text: str) -> bool:
        reply = handle_message(thread, USER, text, port.reference(), f"console-{uuid.uuid4().hex}",
                               settings=settings, explicit_start=True)
        if reply.text:
            err.print(reply.render(reply.text, lambda _user: "you"))
        return reply.action in ("started", "resumed")

    if resume:
        info = thread_info(thread, settings=settings)
        if info is None and _open_in_journal(thread, settings):
            err.print(f"thread: {thread}\nRedis lost this research's records; waiting for a worker to recover it …")
        elif info is None:
            err.print(f"deepresearch: there is no queued research with thread id {thread}.")
            return 2
        else:
            err.print(f"thread: {thread}")
        if answer is not None and info.status not in ("paused", *ACTIVE):
            err.print(f"--answer is ignored: the research is {info.status}, not waiting for an answer.")
            answer = None
    else:
        err.print(f"thread: {thread}")
        if not send(question):
            return 2
        info = None
        err.print("queued; waiting for a worker … (the workers' settings choose the model and search)")
    while True:
        if info is None or info.status in IN_PROGRESS:
            info = follow(thread, settings=settings, on_event=shown, timeout=settings.job_timeout + 600,
                          on_outage=_say_outage)
        if info is None:
            shown.flush()
            err.print(f"No worker finished the research in time. Follow it later: deepresearch ask --queue --resume {thread}")
            return 1
        if info.status == "paused":
            reply = answer if answer is not None else ask_user(shown.take_question(info.clarify_question))
            answer = None
            if not reply:
                err.print(f"No answer given. Answer later with: deepresearch ask --queue --resume {thread} --answer \"…\"")
                return 3
            if not send(reply):
                return 2
            info = None
            continue
        shown.flush()
        if info.status != "done":
            err.print(f"The research ended as {info.status}" + (f": {info.error}" if info.error else "."))
            return 1
        break
    files = [info.report_dir / name for name in RUN_FILES] if info.report_dir else []
    files = [f for f in files if f.exists()] or [Path(f) for f in shown.files]
    print(f"\n{info.title or 'Report'}\n")
    for f in files:
        print(f"  {f}")
    if shown.comment and shown.comment != UPLOAD_COMMENT:
        err.print(f"[yellow]{shown.comment}[/yellow]")
    if out is not None:
        out.mkdir(parents=True, exist_ok=True)
        for f in files:
            shutil.copy2(f, out / f.name)
        print(f"  copied to {out}")
    sys.stdout.flush()
    return 0
