"""`deepresearch ask --queue`: the research runs on an RQ worker; the terminal follows it through Redis."""

from __future__ import annotations

import shutil
import sys
import uuid
from collections.abc import Callable
from pathlib import Path

from rich.console import Console

from engine.settings import Settings, SettingsError

err = Console(stderr=True, highlight=False, soft_wrap=True)
USER = "console"


def ask_via_queue(thread: str, question: str, answer: str | None, settings: Settings, out: Path | None,
                  ask_user: Callable[[str], str], resume: bool = False) -> int:
    """Queue the question (or the answer, with ``resume``), follow the worker's messages, print the files.

    Returns the exit code: 0 report delivered, 1 failed or cancelled, 2 refused, 3 waiting for an answer.
    Raises:
        SettingsError: ``REDIS_URL`` is not set.
    """
    if not settings.redis_url:
        raise SettingsError("--queue needs REDIS_URL (and a running `deepresearch worker`)")
    from jobs import handle_message
    from jobs.relay import RelayPort, follow

    port = RelayPort.for_thread(thread)
    state = {"last_post": "", "files": [], "comment": ""}

    def send(text: str) -> bool:
        reply = handle_message(thread, USER, text, port.reference(), f"console-{uuid.uuid4().hex}",
                               settings=settings, explicit_start=True)
        if reply.text:
            err.print(reply.text)
        return reply.action in ("started", "resumed")

    def show(event: dict) -> None:
        if event["op"] == "post":
            state["last_post"] = event["text"]
            err.print(event["text"])
        elif event["op"] == "update":
            err.print(event["text"].replace("\n", " | "))
        elif event["op"] == "upload":
            state["files"], state["comment"] = event["files"], event.get("comment", "")

    first = answer if resume else question
    if not first or not send(first):
        return 2
    answer = None if resume else answer
    err.print("queued; waiting for a worker …")
    while True:
        info = follow(thread, settings=settings, on_event=show, timeout=settings.job_timeout + 600)
        if info is None:
            err.print(f"No worker finished the research in time. Follow it later: deepresearch ask --resume {thread} --queue")
            return 1
        if info.status == "paused":
            reply = answer if answer is not None else ask_user(state["last_post"])
            answer = None
            if not reply:
                err.print(f"No answer given. Answer later with: deepresearch ask --queue --resume {thread} --answer \"…\"")
                return 3
            if not send(reply):
                return 2
            continue
        if info.status != "done":
            err.print(f"The research ended as {info.status}.")
            return 1
        for f in state["files"]:
            print(f"  {f}")
        if state["comment"]:
            err.print(state["comment"])
        if out is not None:
            out.mkdir(parents=True, exist_ok=True)
            for f in state["files"]:
                shutil.copy2(f, out / Path(f).name)
            print(f"  copied to {out}")
        sys.stdout.flush()
        return 0
