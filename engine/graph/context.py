"""The run context every node receives: settings, one model per role, the search back-end, the date."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path

from langchain_core.language_models import BaseChatModel

from engine.models import build_model
from engine.search.base import SearchBackend
from engine.settings import ROLES, Settings


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

    def model(self, role: str) -> BaseChatModel:
        """The model for ``role``, built once per context."""
        if role not in self.models:
            self.models[role] = build_model(role, self.settings)
        return self.models[role]

    @classmethod
    def create(cls, settings: Settings, search: SearchBackend, run_dir: Path) -> RunContext:
        """A context with every role's model built (so a missing key fails before any work)."""
        ctx = cls(settings=settings, search=search, run_dir=run_dir)
        for role in ROLES:
            ctx.model(role)
        return ctx
