"""The chat port: what a research turn needs from a chat surface (post, update, upload)."""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Protocol, runtime_checkable


@runtime_checkable
class ChatPort(Protocol):
    """One chat thread, as the job layer sees it.

    Implementations live in ``bots/<platform>/`` and are rebuilt in the worker from
    :meth:`reference` (a plain, JSON-serialisable dict), so a job never carries SDK objects.
    Every method is synchronous and may be called from any thread; errors raised are the
    platform's own and are logged by the caller.
    """

    def reference(self) -> dict:
        """A JSON-serialisable dict from which :func:`port_from_reference` rebuilds this port.

        It must hold ``"factory": "package.module:Callable"`` (the callable takes the dict and
        returns the port) and whatever identifies the thread (channel and ``thread_ts``, a
        Teams ``ConversationReference``...). It never holds a secret.
        """
        ...

    def post(self, text: str) -> str:
        """Post Markdown ``text`` into the thread; return the new message's id."""
        ...

    def update(self, message_id: str, text: str) -> None:
        """Replace the text of a message this port posted (the status message)."""
        ...

    def upload(self, files: list[Path], *, comment: str = "") -> None:
        """Deliver report files into the thread (upload, consent card or download links)."""
        ...


def port_from_reference(ref: dict) -> ChatPort:
    """Rebuild a chat port from :meth:`ChatPort.reference`.

    Raises:
        ValueError: the reference has no importable ``factory``.
    """
    target = ref.get("factory")
    if not isinstance(target, str) or ":" not in target:
        raise ValueError("chat port reference has no 'factory' of the form 'module:callable'")
    module_name, _, attr = target.partition(":")
    if not module_name.startswith(("bots.", "tests.", "jobs.")):
        raise ValueError(f"chat port factory {module_name!r} is not a chat surface module")
    factory = getattr(importlib.import_module(module_name), attr)
    return factory(ref)
