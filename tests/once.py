"""Work a test module needs done once per test run (an index of the Python docs, a whole offline
run), shared by every pytest-xdist worker instead of repeated by each.

Every worker's base temp folder sits in the run's one base folder; the first worker to need a
piece of work does it there under a lock (``fcntl.flock``), the others wait and read the result:
the pattern pytest-xdist documents for a session fixture run once
(https://pytest-xdist.readthedocs.io/en/stable/how-to.html#making-session-scoped-fixtures-execute-only-once).
"""

from __future__ import annotations

import fcntl
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest


def done_once(tmp_path_factory: pytest.TempPathFactory, worker_id: str, name: str,
              build: Callable[[Path], None]) -> Path:
    """The folder ``name`` of this test run, ``build(folder)`` run on it first by whichever worker
    asks first (``worker_id`` is pytest-xdist's fixture: ``master`` without workers).

    A build that raised is not marked done: the next worker to ask builds again from an empty
    folder, and fails the same way if the fault is real.
    """
    root = tmp_path_factory.getbasetemp()
    root = root if worker_id == "master" else root.parent
    folder, done = root / name, root / f"{name}.done"
    with (root / f"{name}.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not done.exists():
            shutil.rmtree(folder, ignore_errors=True)
            folder.mkdir()
            build(folder)
            done.touch()
    return folder
