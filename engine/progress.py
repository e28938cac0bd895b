"""Progress of a research run: events the graph emits and the snapshot chat surfaces show."""

from __future__ import annotations

import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from engine.file_summary import Listed, files_status
from engine.phrasebook import Phrasebook
from engine.phrases import plural

#: The progress line's words in each language of the catalogue (``phase_*`` keys name :data:`PHASES`).
WORDS = Phrasebook(Path(__file__).with_name("progress_phrases.json"))

#: The phases in order, with their English labels (:data:`WORDS` holds each in every language).
PHASES = {
    "clarify": "Checking the question",
    "brief": "Writing the research brief",
    "research": "Researching",
    "report": "Writing the report",
    "review": "Reviewing the report",
    "finalize": "Writing the final report",
    "render": "Building the files",
    "done": "Done",
}


@dataclass
class Progress:
    """A snapshot of one run's progress, updated from the graph's custom stream events.

    Attributes:
        phase: a key of :data:`PHASES`.
        topics_started / topics_finished: research units begun and ended (failed ones too).
        topics: the topic titles in the order they started.
        sources_found: distinct sources found so far, each once: the run's registry and the pages
            the topics being researched found (not necessarily cited: the report lists only the
            sources it cites; once the research is done, ``sources.json``'s ``found``).
        errors: one short line per failed research unit or tool.
        review_iteration: 1-based review round being run, 0 before the review.
        started_at: ``time.monotonic()`` when the turn began.
        files: the thread's shared files (:class:`engine.files.FileEntry` rows, [] when none), shown
            as :func:`engine.file_summary.files_status` in the line's language, e.g. ``"2 files
            read, 1 skipped: encrypted PDF"``.
        waiting: what the run waits for before it goes on, e.g. ``"the database did not answer; trying
            again (2 of 4)"`` ("" when nothing; cleared by the next graph event).
        pending: topics counted as started by :meth:`restore` that have not started again since
            (their ``topic_started`` event is not counted twice).
    """

    phase: str = "clarify"
    topics_started: int = 0
    topics_finished: int = 0
    topics: list[str] = field(default_factory=list)
    sources_found: int = 0
    errors: list[str] = field(default_factory=list)
    review_iteration: int = 0
    started_at: float = field(default_factory=time.monotonic)
    source_ids: set[str] = field(default_factory=set, repr=False)
    files: list[Listed] = field(default_factory=list)
    waiting: str = ""
    pending: list[str] = field(default_factory=list, repr=False)

    @property
    def elapsed(self) -> float:
        """Seconds since the turn began."""
        return time.monotonic() - self.started_at

    def apply(self, event: dict) -> None:
        """Fold one graph event (``{"event": kind, ...}``) into the snapshot."""
        kind = event.get("event")
        self.waiting = ""
        if kind == "phase":
            self.phase = event["phase"]
            if "iteration" in event:
                self.review_iteration = int(event["iteration"])
        elif kind == "topic_started":
            topic = str(event.get("topic", ""))
            if topic in self.pending:  # counted by restore(), as the checkpoint held it
                self.pending.remove(topic)
            else:
                self.topics_started += 1
                self.topics.append(topic)
        elif kind == "topic_finished":
            self.topics_finished += 1
            if event.get("error"):
                self.errors.append(str(event["error"]))
        elif kind == "sources_found":
            self.source_ids.update(event.get("ids", []))
            self.sources_found = max(self.sources_found, len(self.source_ids))
        elif kind == "error":
            self.errors.append(str(event.get("message", "")))

    def restore(self, *, phase: str = "clarify", done: Sequence[str] = (), pending: Sequence[str] = (),
                source_ids: Iterable[str] = (), errors: Sequence[str] = (), review_round: int = 0) -> None:
        """Start again from where a run's checkpoint stands (:func:`engine.graph.standing.restore_progress`;
        nothing given: a research not begun), forgetting what this snapshot counted before.

        ``phase``: a key of :data:`PHASES`; ``done``: the topics finished (failed ones too);
        ``pending``: the topics asked for and not finished, counted as started now and not again when
        their research starts; ``source_ids``: the sources found (the run's registry and the pages of
        the topics being researched); ``errors``: one line per failed topic; ``review_round``: the
        1-based review round being run (0 outside the review). The time, the files and what the run
        waits for stay.
        """
        self.phase = phase
        self.review_iteration = review_round
        self.topics = [*done, *pending]
        self.pending = list(pending)
        self.topics_finished = len(done)
        self.topics_started = len(done) + len(pending)
        self.source_ids = set(source_ids)
        self.sources_found = len(self.source_ids)
        self.errors = list(errors)

    def render(self, elapsed: float | None = None, language: str = "en") -> str:
        """One to three plain-text lines, e.g. for a chat status message or a terminal: the stage,
        the topics and sources counted once there is a topic (or a source), the files read, the
        time, what the run waits for, and the last problem.

        ``elapsed``: the seconds shown, when the caller counts from an earlier start than the
        turn's (the terminal counts from the command's start); default :attr:`elapsed`.
        ``language``: an ISO 639-1 code; the words are :data:`WORDS`' in that language (English
        when the catalogue lacks it), the files' too (:func:`engine.file_summary.files_status`). The
        wait and the problems stay as given.
        """
        label = WORDS(f"phase_{self.phase}", language) if f"phase_{self.phase}" in WORDS.catalogue else self.phase
        if self.phase == "review" and self.review_iteration:
            label += WORDS("round", language, n=self.review_iteration)
        mins, secs = divmod(int(self.elapsed if elapsed is None else elapsed), 60)
        counts = [WORDS("topics", language, done=self.topics_finished, started=self.topics_started)
                  ] if self.topics_started else []
        if self.topics_started or self.sources_found:  # nothing is counted before the first topic
            counts.append(WORDS(plural("sources", self.sources_found, language), language, n=self.sources_found))
        files = files_status(self.files, language)
        line = (
            " · ".join([label, *counts])
            + (f" · {files}" if files else "")
            + " · " + WORDS("elapsed", language, minutes=mins, seconds=secs)
            + (f" · {self.waiting}" if self.waiting else "")
        )
        if self.errors:
            line += "\n" + WORDS(plural("problems", len(self.errors), language), language, n=len(self.errors),
                                 last=self.errors[-1][:200])
        return line

