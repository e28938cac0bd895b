"""A chat port for tests that appends every post, update and upload to a JSON-lines file."""

from __future__ import annotations

import fcntl
import json
import os
import time
import uuid
from pathlib import Path

FACTORY = "tests.fakes.recording_port:RecordingPort"


class RecordingPort:
    """Records what a job says in one thread; rebuilt in any process from :meth:`reference`.

    The reference is ``{"factory", "path", "thread", "fail"}``: ``path`` is the shared JSON-lines
    log, ``thread`` a label, ``fail`` an optional ``{"op": "post"|"update"|"upload", "times": n}``
    making the first ``n`` calls of that operation (counted across processes in ``path.fail``)
    raise ``ConnectionError``, like a chat API answering 503 (with ``"text": s``, only calls whose
    text or comment contains ``s`` count), and ``hold`` an optional
    ``{"op": ..., "until": path}`` making every call of that operation wait until the file
    ``path`` exists (a slow upload the test ends by creating it; at most 240 s; with ``"text"``, only
    calls whose text or comment contains it wait). Buttons are
    recorded as ``{"action", "label", "value"}`` dicts.
    """

    supports_buttons = True

    def __init__(self, ref: dict) -> None:
        """Build from a reference dict (see the class docstring)."""
        self.ref = dict(ref)
        self.path = Path(ref["path"])
        self.thread = str(ref.get("thread", ""))

    @classmethod
    def create(cls, path: Path, thread: str, fail: dict | None = None, hold: dict | None = None) -> RecordingPort:
        """A port writing to ``path`` for the thread labelled ``thread``."""
        ref = {"factory": FACTORY, "path": str(path), "thread": thread}
        if fail:
            ref["fail"] = fail
        if hold:
            ref["hold"] = hold
        return cls(ref)

    def reference(self) -> dict:
        """The plain dict a worker rebuilds this port from."""
        return dict(self.ref)

    def _locked_append(self, event: dict) -> None:
        with open(self.path, "a", encoding="utf-8") as fh:
            fcntl.flock(fh, fcntl.LOCK_EX)
            fh.write(json.dumps(event) + "\n")
            fh.flush()
            fcntl.flock(fh, fcntl.LOCK_UN)

    def _maybe_hold(self, op: str, text: str = "") -> None:
        hold = self.ref.get("hold")
        if not hold or hold.get("op") != op or hold.get("text", "") not in text:
            return
        self._event("held", held=op)
        gate, deadline = Path(hold["until"]), time.monotonic() + 240
        while not gate.exists() and time.monotonic() < deadline:  # another process may open it
            time.sleep(0.02)

    def _maybe_fail(self, op: str, text: str = "") -> None:
        self._maybe_hold(op, text)
        fail = self.ref.get("fail")
        if not fail or fail.get("op") != op or fail.get("text", "") not in text:
            return
        counter = Path(str(self.path) + ".fail")
        with open(counter, "a+", encoding="utf-8") as fh:
            fcntl.flock(fh, fcntl.LOCK_EX)
            fh.seek(0)
            done = fh.read().count(f"{self.thread}:{op}\n")
            if done < int(fail.get("times", 1)):
                fh.write(f"{self.thread}:{op}\n")
                fh.flush()
                raise ConnectionError(f"fake chat API: 503 on {op}")

    def _event(self, op: str, **fields: object) -> None:
        self._locked_append({"op": op, "thread": self.thread, "t": time.time(), "pid": os.getpid(), **fields})

    def post(self, text: str, *, buttons=()) -> str:
        """Record a new message (with its buttons); returns its id."""
        self._maybe_fail("post", text)
        message_id = uuid.uuid4().hex[:12]
        self._event("post", id=message_id, text=text, buttons=_buttons(buttons))
        return message_id

    def update(self, message_id: str, text: str, *, buttons=()) -> None:
        """Record an edit of ``message_id`` (with its buttons)."""
        self._maybe_fail("update", text)
        self._event("update", id=message_id, text=text, buttons=_buttons(buttons))

    def upload(self, files: list[Path], *, comment: str = "") -> None:
        """Record an upload (file names and sizes; the files must exist)."""
        self._maybe_fail("upload", comment)
        self._event("upload", files=[Path(f).name for f in files], sizes=[Path(f).stat().st_size for f in files],
                    comment=comment)


class SharingPort(RecordingPort):
    """A :class:`RecordingPort` whose thread has files and an earlier discussion, as a Slack or Teams
    thread can (the optional ``thread_material`` of a chat port).

    The reference's ``material`` is ``{"files": {name: text}, "discussion": str, "fail": bool}``:
    each file is written into the folder the job hands over, and every call is recorded as a
    ``material`` event (turn id, the folder's name, the settings' data dir). ``fail`` makes the call
    raise ``ConnectionError`` (the chat API could not list the files).
    """

    def thread_material(self, turn_id: str, dest: Path, settings):
        """The thread's files (written into ``dest``) and discussion; see the class docstring."""
        from engine.files.entries import SharedFile
        from jobs.port import ThreadMaterial

        material = self.ref.get("material") or {}
        self._event("material", turn_id=turn_id, folder=Path(dest).name, data_dir=str(settings.data_dir))
        if material.get("fail"):
            raise ConnectionError("fake chat API: 503 on files.list")
        shared = []
        for name, text in (material.get("files") or {}).items():
            path = Path(dest) / name
            path.write_text(text, encoding="utf-8")
            shared.append(SharedFile(name=name, link=f"https://chat.example/files/{name}", path=path,
                                     size=path.stat().st_size))
        return ThreadMaterial(files=shared, discussion=material.get("discussion", ""))

    @classmethod
    def sharing(cls, path: Path, thread: str, material: dict) -> SharingPort:
        """A port writing to ``path`` whose thread holds ``material`` (see the class docstring)."""
        port = cls.create(path, thread)
        port.ref.update(factory=f"{__name__}:{cls.__name__}", material=material)
        return port


def _buttons(buttons) -> list[dict]:
    return [{"action": str(b.action), "label": b.label, "value": b.value} for b in buttons]


def read_events(path: Path, thread: str | None = None) -> list[dict]:
    """Every recorded event (of ``thread`` when given), in write order."""
    if not Path(path).exists():
        return []
    with open(path, encoding="utf-8") as fh:
        fcntl.flock(fh, fcntl.LOCK_SH)  # never a half-written line of a writer in another process
        text = fh.read()
    events = [json.loads(line) for line in text.splitlines() if line.strip()]
    return [e for e in events if thread is None or e["thread"] == thread]
