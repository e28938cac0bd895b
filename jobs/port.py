"""The chat port: what a research turn needs from a chat surface (post, update, upload)."""

from __future__ import annotations

import importlib
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, runtime_checkable

if TYPE_CHECKING:
    from engine.files import SharedFile

#: Packages whose modules may rebuild a chat port from its reference (the chat surfaces and the job layer).
PORT_PACKAGES: tuple[str, ...] = ("bots.", "jobs.")
#: Environment variable naming more packages that hold chat ports, comma-separated (e.g. ``myorg.chat``).
EXTRA_PORT_PACKAGES_ENV = "CHAT_PORT_PACKAGES"
#: Characters of a button's label: Slack's button ``text`` takes at most 75
#: (https://docs.slack.dev/reference/block-kit/block-elements/button-element).
BUTTON_LABEL_LIMIT = 75
#: Characters of a button's value: Slack's button ``value`` takes at most 2,000 (same page).
BUTTON_VALUE_LIMIT = 2000


class ButtonAction(StrEnum):
    """What pressing a button does: cancel the running research, or ask a follow-up question."""

    CANCEL = "cancel"
    FOLLOW_UP = "follow_up"


@dataclass(frozen=True)
class Button:
    """A button under a message, platform-neutral; each chat surface renders it its own way.

    Attributes:
        action: what a press does (:class:`ButtonAction`).
        label: the text on the button, at most :data:`BUTTON_LABEL_LIMIT` characters.
        value: what a press carries back: the full follow-up question (at most
            :data:`BUTTON_VALUE_LIMIT` characters), empty for cancel.
        index: the button's position among the message's buttons of the same action (0, 1, 2).
    """

    action: ButtonAction
    label: str
    value: str = ""
    index: int = 0


@dataclass
class ThreadMaterial:
    """What a port's optional ``thread_material(turn_id, dest, settings)`` finds in its thread: the
    files shared in it (read into ``dest``, or skipped with the reason) and the earlier discussion
    (``Name: text`` lines, oldest first; "" when the question is the thread's first message)."""

    files: list[SharedFile] = field(default_factory=list)
    discussion: str = ""


def short_label(text: str, limit: int = BUTTON_LABEL_LIMIT) -> str:
    """``text`` on one line, cut to ``limit`` characters at a word with an ellipsis when longer."""
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    cut = text[: limit - 1]
    if " " in cut[limit // 2:]:
        cut = cut.rsplit(" ", 1)[0]
    return cut.rstrip(" ,;:") + "…"


def cancel_button(label: str = "Cancel") -> Button:
    """The Cancel button of a running research's status message; ``label``: its text in the
    thread's language (``cancel_button`` of :data:`jobs.phrases.WORDS`)."""
    return Button(ButtonAction.CANCEL, label)


def distinct_labels(texts: Sequence[str], limit: int = BUTTON_LABEL_LIMIT) -> list[str]:
    """One label of at most ``limit`` characters per text (:func:`short_label`), distinct whenever
    the texts differ (once their whitespace is collapsed, as a label shows it).

    Texts that share their first ``limit`` characters or so would all read as the same cut opening
    (Slack shows at most 75 characters of a button, :data:`BUTTON_LABEL_LIMIT`): the label of
    each such text is instead "…" and its end, from the word where it departs from the most alike
    of the others (within a word longer than half the label, a few characters before the first one
    that differs), with as many words before that word as still fit. Labels still equal after that
    end with the text's number, " (2)".
    """
    lines = [" ".join(t.split()) for t in texts]
    cut = [short_label(line, limit) for line in lines]
    labels = list(cut)
    for i, line in enumerate(lines):
        others = [other for j, other in enumerate(lines) if cut[j] == cut[i] and other != line]
        if not others:
            continue
        shared = max(len(os.path.commonprefix([line, other])) for other in others)
        start = line.rfind(" ", 0, shared) + 1  # the word holding the first character that differs
        if shared - start > limit // 2:
            start = shared - limit // 2
        while start > 0 and len(line) - (before := line.rfind(" ", 0, start - 1) + 1) < limit - 1:
            start = before
        labels[i] = "…" + short_label(line[start:], limit - 1) if start else short_label(line, limit)
    if len(set(labels)) < len(set(lines)):
        labels = [short_label(label, limit - len(f" ({n})")) + f" ({n})" for n, label in enumerate(labels, 1)]
    return labels


def follow_up_buttons(questions: Sequence[str], limit: int = 3) -> tuple[Button, ...]:
    """One button per suggested follow-up question (at most ``limit``): a short label, distinct for
    distinct questions (:func:`distinct_labels`), and the full question (cut to
    :data:`BUTTON_VALUE_LIMIT` characters) as its value, which is what a press asks."""
    shown = [q for q in questions if q.strip()][:limit]
    return tuple(Button(ButtonAction.FOLLOW_UP, label, q[:BUTTON_VALUE_LIMIT], i)
                 for i, (q, label) in enumerate(zip(shown, distinct_labels(shown), strict=True)))


@runtime_checkable
class ChatPort(Protocol):
    """One chat thread, as the job layer sees it.

    Implementations live in ``bots/<platform>/`` and are rebuilt in the worker from
    :meth:`reference` (a plain, JSON-serialisable dict), so a job never carries SDK objects.
    Every method is synchronous and may be called from any thread; errors raised are the
    platform's own and are logged by the caller, except a failure on the platform's side that
    outlasted the port's own retries (a 5xx, a documented transient error, the network): that is
    raised as a ``ConnectionError``, which the job layer retries the turn for
    (:func:`jobs.errors.is_transient`).

    A port that shows buttons sets a class attribute ``supports_buttons = True`` and takes a
    ``buttons`` keyword (a sequence of :class:`Button`) in :meth:`post` and :meth:`update`; the
    job layer passes buttons only to such a port (see :func:`with_buttons`). A press comes back
    through the surface's own listener as a :class:`jobs.conversation.Message`.

    A port that can find a post it made by a key of the post's own sets a class attribute
    ``finds_posts = True`` and takes ``key`` and ``look_first`` keywords in :meth:`post` (see
    :func:`with_key`).

    A port that says words of its own when it delivers files (a card's title, a note, button
    titles) sets a class attribute ``speaks_language = True`` and takes a ``language`` keyword (an
    ISO 639-1 code, the thread's: :func:`jobs.phrases.thread_language`) in :meth:`upload`; the job
    layer passes it only to such a port (see :func:`with_language`).
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


def with_buttons(port: object, buttons: Sequence[Button]) -> dict:
    """The keyword arguments that give ``buttons`` to ``port.post``/``port.update``: ``{"buttons": ...}``
    when the port supports buttons (an empty sequence: an update removes the earlier ones), else ``{}``."""
    if not getattr(port, "supports_buttons", False):
        return {}
    return {"buttons": tuple(buttons)}


def with_key(port: object, key: str, *, look_first: bool) -> dict:
    """The keyword arguments that give a post its own ``key`` (the turn and the part:
    ``"{turn_id}/summary"``): ``{"key": ..., "look_first": ...}`` when the port can find a post by its
    key in the thread (``finds_posts``), else ``{}``. ``look_first`` (a re-run of the turn): the port
    posts nothing the thread has under that key already, so a post an earlier attempt made before it
    stopped (killed, or told of a failure that was not one) is not shown twice."""
    return {"key": key, "look_first": look_first} if getattr(port, "finds_posts", False) else {}


def with_language(port: object, language: str) -> dict:
    """The keyword arguments that give the thread's ``language`` to ``port.upload``: ``{"language": ...}``
    when the port says words of its own there (``speaks_language``), else ``{}``."""
    return {"language": language} if getattr(port, "speaks_language", False) else {}


#: The chat surfaces a worker may deliver to, by name, and the module of each one's port. A module may
#: define ``delivery_problem(settings) -> str | None``: why this process cannot speak there (the
#: missing settings' names, never their values), None when it can; without one it always can. It may
#: also define ``check_delivery(settings) -> str | None``, the same asked of the surface's service (its
#: credentials refused), which a worker calls once at start-up.
SURFACES: dict[str, str] = {"slack": "bots.slack.port", "teams": "bots.teams.port", "terminal": "jobs.relay"}


class Partly(str):
    """A surface's ``delivery_problem`` that holds for some of its turns only: the process delivers the
    others (a Teams worker without ``MICROSOFT_APP_ID`` still answers a bot that runs without one)."""

    __slots__ = ()


class PortUnavailable(Exception):  # noqa: N818 (a state of this process, not an error of the turn)
    """This process cannot speak in a turn's chat surface: a setting the surface needs is not set here.

    Raised by a port factory (:func:`port_from_reference`) before anything is sent. The turn is not
    failed: :func:`jobs.run.run_job` hands it back to the queue (:func:`jobs.surface_wait.wait_for_surface`)
    for a process that has the setting (another worker, or this one restarted with it), for as long as its
    quota slot lasts (:func:`jobs.quotas.hold_seconds`); after that it fails. ``surface``
    names the surface (a key of :data:`SURFACES`); ``reason`` names the missing settings, never their values.
    """

    def __init__(self, surface: str, reason: str) -> None:
        super().__init__(f"{surface}: {reason}")
        self.surface = surface
        self.reason = reason


def delivery_problems(settings, *, online: bool = False) -> dict[str, str | None]:
    """For each of :data:`SURFACES`: None when this process can deliver turns there with ``settings``
    (a :class:`engine.settings.Settings`), else why not (the module's ``delivery_problem``, and with
    ``online`` its ``check_delivery`` when that finds nothing missing; a surface whose module does not
    load: the import error's name)."""
    problems: dict[str, str | None] = {}
    for name, module_name in SURFACES.items():
        try:
            module = importlib.import_module(module_name)
        except ImportError as err:
            problems[name] = f"its module does not load ({type(err).__name__}: {err.name or module_name})"
            continue
        check = getattr(module, "delivery_problem", None)
        problems[name] = check(settings) if check is not None else None
        asked = getattr(module, "check_delivery", None) if online else None
        if problems[name] is None and asked is not None:
            problems[name] = asked(settings)
    return problems


def port_packages() -> tuple[str, ...]:
    """The packages a port factory may be imported from: :data:`PORT_PACKAGES`, plus those named
    (comma-separated) in the environment variable :data:`EXTRA_PORT_PACKAGES_ENV`, for a chat
    surface that lives outside ``bots/``; it must be set in every process that runs jobs."""
    extra = os.environ.get(EXTRA_PORT_PACKAGES_ENV, "")
    return PORT_PACKAGES + tuple(f"{name.strip().rstrip('.')}." for name in extra.split(",") if name.strip())


def port_from_reference(ref: dict) -> ChatPort:
    """Rebuild a chat port from :meth:`ChatPort.reference`.

    The factory must live in one of :func:`port_packages`, so a stored reference cannot make
    a worker import arbitrary code.

    Raises:
        ValueError: the reference has no importable ``factory``, or one outside those packages.
        PortUnavailable: this process lacks a setting the surface needs (the turn belongs to a
            process that has it).
    """
    target = ref.get("factory")
    if not isinstance(target, str) or ":" not in target:
        raise ValueError("chat port reference has no 'factory' of the form 'module:callable'")
    module_name, _, attr = target.partition(":")
    if not module_name.startswith(port_packages()):
        raise ValueError(f"chat port factory {module_name!r} is not a chat surface module")
    factory = getattr(importlib.import_module(module_name), attr)
    return factory(ref)
