"""Search back-ends: `tavily`, `corpus` (SQLite FTS5 over local files) and `none`."""

from __future__ import annotations

from engine.search.base import SearchBackend, SearchError, SearchResult
from engine.settings import Settings

__all__ = ["SearchBackend", "SearchError", "SearchResult", "get_search_backend"]
_BACKENDS: dict[tuple, SearchBackend] = {}


def get_search_backend(settings: Settings) -> SearchBackend:
    """The process-wide back-end for ``settings.search_backend`` (one client per process).

    Raises:
        engine.settings.SettingsError: the back-end's setting is missing (e.g. ``TAVILY_API_KEY``).
    """
    settings.require_search()
    kind = settings.search_backend
    if kind == "tavily":
        key = (kind, settings.tavily_url, settings.tavily_api_key.get_secret_value(), settings.model_timeout,
               settings.node_timeout)
    elif kind == "corpus":
        _check_corpus(settings)
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


def _check_corpus(settings: Settings) -> None:
    """Refuse to search an index built from another folder than ``DEEPRESEARCH_CORPUS_DIR``."""
    import os

    from engine.search.corpus import index_root
    from engine.settings import SettingsError
    from engine.text import clean_path

    if settings.corpus_dir is None:
        return
    wanted = clean_path(os.path.abspath(settings.corpus_dir))  # the index stores paths this way
    root = index_root(settings.corpus_index_path)
    if root is not None and root != wanted:
        raise SettingsError(
            f"DEEPRESEARCH_CORPUS_DIR is {wanted} but the index holds {root}: run `deepresearch index {wanted}`"
        )
