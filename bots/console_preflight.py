"""The checks ``ask`` makes before it starts or counts a research in this process: its settings, the
services and search it needs, and the folder its report is copied into."""

from __future__ import annotations

from pathlib import Path

from bots.console_access import NotStarted
from bots.console_record import absolute, kept_out, load_record
from bots.console_usage import kept_out_problem
from engine.database import require_database
from engine.search import check_corpus
from engine.settings import Settings, load_settings


def settings_for(offline: bool, corpus: Path | None, no_clarify: bool) -> Settings:
    """The settings of an ``ask`` run: ``.env`` and the environment (:func:`engine.settings.load_settings`)
    with its options laid over them (``--offline``: the offline model; ``--corpus``: that folder searched;
    ``--no-clarify``: no clarifying question). Raises :class:`engine.settings.SettingsError`."""
    overrides: dict = {}
    if offline:
        overrides["llm"] = "offline"
    if corpus is not None:
        overrides.update(search="corpus", corpus_dir=corpus)
    if no_clarify:
        overrides["allow_clarification"] = False
    return load_settings(**overrides)


def require_indexable(corpus: Path) -> None:
    """Raises :class:`~bots.console_access.NotStarted` (one line, exit 1, nothing audited or
    counted) when ``corpus`` is missing or has no file to index
    (:func:`engine.search.corpus_files.indexable_files`)."""
    from engine.search.corpus_files import indexable_files
    from engine.search.corpus_layout import CorpusIndexError

    try:
        indexable_files(corpus)
    except CorpusIndexError as exc:
        raise NotStarted(str(exc)) from None


def require_services(settings: Settings, corpus: Path | None, resume: bool) -> None:
    """Check, before anything is started or counted, what the run needs: the model, the database, and
    the search (a configured corpus indexed; a new question's ``--corpus`` folder holding something to
    index). Raises the settings' and the services' own one-line errors (:class:`engine.settings.SettingsError`,
    :class:`engine.database.DatabaseError`, :class:`engine.search.corpus_layout.CorpusIndexError` and the like)."""
    settings.require_model()
    require_database(settings)
    if corpus is None:  # a configured corpus must be indexed before anything is started or counted
        settings.require_search()
        if settings.search_backend == "corpus":
            check_corpus(settings)
    elif not resume:  # a --corpus folder with nothing to index costs no quota slot (indexed later)
        require_indexable(corpus)


def out_folder(out: Path | None, resume: str | None, data_dir: Path) -> tuple[Path | None, str | None]:
    """The folder the report is copied into and what is wrong with it: ``--out`` made absolute (kept with
    the thread as such: its ``--resume`` may run in another folder), else for ``--resume`` the one the
    thread was started with, checked as the first run checked it (:func:`kept_out_problem`: a line, or None)."""
    if out is not None:
        return absolute(out), None
    if not resume:
        return None, None
    out = kept_out(load_record(data_dir, resume))
    return out, (kept_out_problem(out) if out is not None else None)
