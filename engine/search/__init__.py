"""Search back-ends: `tavily`, `corpus` (SQLite FTS5 over local files) and `none`."""

from __future__ import annotations

from engine.search.base import SearchBackend, SearchError, SearchResult
from engine.settings import Settings

__all__ = ["SearchBackend", "SearchError", "SearchResult", "check_corpus", "check_search", "get_search_backend"]
_BACKENDS: dict[tuple, SearchBackend] = {}


def get_search_backend(settings: Settings) -> SearchBackend:
    """The process-wide back-end for ``settings.search_backend`` (one client per process).

    Raises:
        engine.settings.SettingsError: the back-end's setting is missing (e.g. ``TAVILY_API_KEY``).
    """
    check_search(settings)
    kind = settings.search_backend
    if kind == "tavily":
        key = (kind, settings.tavily_url, settings.tavily_api_key.get_secret_value(), settings.model_timeout,
               settings.node_timeout)
    elif kind == "corpus":
        key = (kind, str(settings.corpus_index_path))
    else:
        key = (kind,)
    if key not in _BACKENDS:
        if kind == "tavily":
            from engine.search.tavily import TavilySearch

            _BACKENDS[key] = TavilySearch(settings.tavily_api_key.get_secret_value(), base_url=settings.tavily_url,
                                          timeout=min(settings.model_timeout, 120.0), total=settings.node_timeout)
        elif kind == "corpus":
            from engine.search.corpus import CorpusSearch

            _BACKENDS[key] = CorpusSearch(settings.corpus_index_path)
        else:
            from engine.search.none import NoSearch

            _BACKENDS[key] = NoSearch()
    return _BACKENDS[key]


def check_search(settings: Settings) -> None:
    """The search set-up a research needs, checked without searching: the back-end's setting
    (:meth:`engine.settings.Settings.require_search`) and, for ``corpus``, that
    ``DEEPRESEARCH_CORPUS_DIR`` is indexed (:func:`check_corpus`). Every research runs it
    (:func:`get_search_backend`), and so does every long-running command at start-up, so a bad
    setting stops the process with one line instead of failing each question.

    Raises:
        engine.settings.SettingsError: one line naming the setting and, for a corpus, the command to run.
        engine.fsutil.StorageError: the corpus index cannot be read from its disk (:func:`check_corpus`).
    """
    settings.require_search()
    if settings.search_backend == "corpus":
        check_corpus(settings)  # the index of DEEPRESEARCH_CORPUS_DIR (engine.settings.corpus_index_for)


def check_corpus(settings: Settings) -> None:
    """Refuse to search when ``DEEPRESEARCH_CORPUS_DIR`` has no index yet (or, a digest collision
    or a stale file, the index there was built from another folder).

    Raises:
        engine.settings.SettingsError: one line with the folder and the command that indexes it, or
            why it cannot be indexed (missing, not a folder, no supported file); for the operator:
            the chat surfaces show users a line without server paths.
        engine.fsutil.StorageError: the index is there but its disk cannot serve it (full, so
            SQLite cannot create its ``-shm``; read-only; permissions): not "not indexed yet".
    """
    import os

    from engine.search.corpus_files import indexable_files
    from engine.search.corpus_layout import CorpusIndexError, index_layout_problem, index_root
    from engine.settings import SettingsError
    from engine.text import clean_path

    wanted = clean_path(os.path.abspath(settings.corpus_dir.expanduser()))  # the index stores paths this way
    root = index_root(settings.corpus_index_path)
    if root is None:
        root = _adopt_legacy_index(settings, wanted)
    if root is None:
        try:  # a folder that is missing or has nothing to index: indexing it would fail too
            indexable_files(settings.corpus_dir)
        except CorpusIndexError as err:
            raise SettingsError(f"DEEPRESEARCH_CORPUS_DIR {err}") from None
        layout = index_layout_problem(settings.corpus_index_path)
        if layout:
            raise SettingsError(f"DEEPRESEARCH_CORPUS_DIR {wanted} {layout}, which stored its text otherwise: "
                                f"run `deepresearch index {wanted}` again")
        raise SettingsError(f"DEEPRESEARCH_CORPUS_DIR {wanted} is not indexed yet: run `deepresearch index {wanted}`")
    if os.path.realpath(root) != os.path.realpath(wanted):
        raise SettingsError(
            f"DEEPRESEARCH_CORPUS_DIR is {wanted} but its index holds {root}: run `deepresearch index {wanted}`"
        )


#: Where the one corpus index lived before each folder had its own (:func:`engine.settings.corpus_index_for`).
LEGACY_INDEX_NAME = "corpus.sqlite"


def _adopt_legacy_index(settings: Settings, wanted: str) -> str | None:
    """Move ``{data_dir}/corpus.sqlite`` (and its WAL files) to the folder's own index path when it
    was built from ``wanted``, so an upgraded deployment keeps searching without re-indexing;
    returns the folder it holds, or None when there is no such index."""
    import logging
    import os

    from engine.search.corpus_layout import index_root

    legacy = settings.data_dir / LEGACY_INDEX_NAME
    root = index_root(legacy)
    if root is None or os.path.realpath(root) != os.path.realpath(wanted):
        return None
    target = settings.corpus_index_path
    target.parent.mkdir(parents=True, exist_ok=True)
    for suffix in ("-wal", "-shm", ""):  # the main file last: its presence is what says "indexed"
        part = legacy.with_name(legacy.name + suffix)
        if part.exists():
            os.replace(part, target.with_name(target.name + suffix))
    logging.getLogger(__name__).info("event=corpus_index_moved to=%s", target.name)
    return root
