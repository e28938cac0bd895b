"""The run context every node receives: settings, one model per role, the search back-end, the date."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path

from langchain_core.language_models import BaseChatModel
from langchain_core.runnables import Runnable
from langgraph.store.base import BaseStore
from pydantic import BaseModel

from engine.graph.summaries import SummaryCache
from engine.models import build_model
from engine.search.base import SearchBackend
from engine.settings import Settings


@dataclass
class RunContext:
    """Passed as LangGraph's runtime context (``graph.astream(..., context=ctx)``); never checkpointed."""

    settings: Settings
    search: SearchBackend
    run_dir: Path
    today: str = field(default_factory=lambda: date.today().isoformat())
    models: dict[str, BaseChatModel] = field(default_factory=dict)
    #: The thread's shared files (:mod:`engine.files`): their search, None when none was read,
    #: and the prompt block naming them ("" when none).
    thread_files: SearchBackend | None = None
    files_prompt: str = ""
    #: Set when the turn is cancelled, so work running in threads (the PDF build) stops too.
    cancelled: threading.Event = field(default_factory=threading.Event)
    #: Page summaries of this run, shared by every researcher and review role.
    summaries: SummaryCache = field(default_factory=SummaryCache)
    #: LangGraph's store for large write-once data (:mod:`engine.graph.sources`), and this run's namespace in it.
    store: BaseStore | None = None
    store_namespace: tuple[str, ...] = ()
    #: Tokens (prompt and answer) the run's model calls used so far, earlier turns included
    #: (:class:`engine.graph.budget.TokenCounter` adds to it).
    tokens_used: int = 0
    _structured: dict[tuple, Runnable] = field(default_factory=dict)

    def model(self, role: str) -> BaseChatModel:
        """The model for ``role``, built on first use, once per context."""
        if role not in self.models:
            self.models[role] = build_model(role, self.settings)
        return self.models[role]

    def structured(self, role: str, schema: type[BaseModel], default: BaseModel | None = None) -> Runnable:
        """``role``'s model answering with ``schema`` (:func:`engine.graph.llm.structured`), built
        once per role, schema and default."""
        from engine.graph.llm import structured

        key = (role, schema, None if default is None else default.model_dump_json())
        if key not in self._structured:
            self._structured[key] = structured(self.model(role), schema, self.settings, default=default)
        return self._structured[key]

    @classmethod
    def create(cls, settings: Settings, search: SearchBackend, run_dir: Path) -> RunContext:
        """A context whose role models are built on first use.

        The settings a model needs (``OPENAI_API_KEY`` and kin) are checked here, so a missing
        one fails before any work.

        Raises:
            engine.settings.SettingsError: a model setting is missing.
        """
        settings.require_model()
        return cls(settings=settings, search=search, run_dir=run_dir)
