"""What a long-running process (``worker``, ``slack``, ``teams``) checks on this machine at start-up,
before it asks another host anything (Redis, PostgreSQL, the chat platform's API): an operator who
fixes the network must not then meet a local problem that was there all along."""

from __future__ import annotations

from engine.fsutil import StorageError, folder_write_problem
from engine.search import check_search
from engine.settings import Settings
from engine.text import clean_path


def check_local(settings: Settings, *, research: bool) -> None:
    """The start-up checks that need nothing but this machine: with ``research`` (a process that runs
    research turns itself: the worker, a bot without ``REDIS_URL``) the model and search settings
    first; then the data folder, which every process writes (thread records, the audit trail, the
    journal, checkpoints), created when missing (:func:`engine.fsutil.folder_write_problem`); then,
    with ``research``, the corpus folder and its index under the data folder
    (:func:`engine.search.check_search`). The caller checks the services on other hosts after it.

    Raises:
        engine.settings.SettingsError: a model or search setting missing or invalid, or a corpus
            folder missing, empty or not indexed yet (one line naming the setting).
        engine.fsutil.StorageError: the data folder cannot be written, or the corpus index cannot be
            read from its disk (one line).
    """
    if research:
        settings.require_model()
        settings.require_search()  # the settings alone, before the data folder is made
    why = folder_write_problem(settings.data_dir)
    if why:
        raise StorageError(f"cannot write under the data folder {clean_path(settings.data_dir)}: {why}")
    if research:
        check_search(settings)  # the research's own check: a corpus folder not indexed yet stops the start
