"""Extractive composition used by the offline model: topics, reports, the claims review roles read.

Its fixed phrases per language are in :mod:`engine.offline_phrases`.
"""

from __future__ import annotations

import re

from engine.citations import SID
from engine.language import FUNCTION_WORDS, is_function_word, sentences, words
from engine.offline_phrases import PHRASES, phrase
from engine.text import markdown_literal

#: Words that carry no topic: function words, and the words of a request itself ("please explain").
STOPWORDS = FUNCTION_WORDS | frozenset(
    """please tell explain give show find research report vs versus bitte erkläre erklären zeige finde
    recherchiere bericht expliquer explique montre trouve rapport explica explicar muestra informe""".split()
)

def clarifying_question(question: str, language: str) -> str:
    """The offline model's clarifying question for a vague request."""
    q = " ".join(question.split())[:200]
    return phrase("clarify", language, q=q)


def content_words(text: str) -> list[str]:
    """Words of ``text`` that are not stop words (:data:`STOPWORDS`,
    :func:`engine.language.is_function_word`), in order, without repeats."""
    return list(dict.fromkeys(w for w in words(text) if w not in STOPWORDS and len(w) > 1 and not is_function_word(w)))


#: What joins the chat thread's discussion to the offline brief, as background of the question.
BACKGROUND = " — Background from the thread's discussion: "
#: Where a brief's list of items splits, never inside brackets or parentheses ("the interval [0, 1]").
_CLAUSE = re.compile(r"(?:;|\n|,| and | und | et | y | vs\.? | versus )(?![^\[\](){}]*[\])}])")


def plan_topics(brief: str, limit: int, language: str = "en") -> list[str]:
    """Split a brief into research topics: its clauses when it lists several items, else facets.

    A brief like "Compare A; B; C" or "A, B and C" gives one topic per item (a short later clause
    of a question continues its head: "How does asyncio cancel tasks and handle timeouts" gives
    "How does asyncio handle timeouts"); a single-subject brief gives itself plus two facets of its
    subject (:func:`facet_topics`).
    """
    text = " ".join(brief.split()).split(BACKGROUND.strip())[0].strip(" —")  # the thread's talk is no topic
    parts = [p.strip(" .?!") for p in _CLAUSE.split(text) if p.strip(" .?!")]
    parts = _qualifiers_joined([p for p in parts if len(content_words(p)) >= 1])
    if len(parts) >= 2:
        parts = _nouns_listed(parts) or parts
        head = _question_head(parts[0])

        def continued(p: str) -> str:  # "handle timeouts" -> "How does asyncio handle timeouts"
            return f"{head} {p}" if head and content_words(p.split()[0]) else p

        parts = [p if len(content_words(p)) >= 3 or i == 0 else continued(p) for i, p in enumerate(parts)]
        return list(dict.fromkeys(parts))[:limit]
    return [text, *facet_topics(text.split(" — ")[0], language)][: max(1, min(limit, 3))]


#: Verbs that make a question's rest a clause ("how much power does the turbine deliver"), not a
#: subject that facets can be composed with.
_AUXILIARIES = frozenset("""do does did is are was were be been can could should would will shall may might must
    has have had ist sind war waren wird werden wurde kann können soll muss hat haben est sont était peut
    peuvent a ont es son era puede pueden ha han""".split())


#: The facets a single subject is researched under, in order of preference, each with the word
#: stems (Snowball, :mod:`engine.offline_select`) that say a question already asks about it; a
#: question about history does not ask how its subject works.
FACETS = (
    ("facet_how", ("work", "funktion", "fonction", "funcion", "histori", "geschicht", "histoir")),
    ("facet_limits", ("limit", "problem", "grenz")),
    ("facet_examples", ("exampl", "beispiel", "exempl", "ejempl")),
    ("facet_history", ("histori", "geschicht", "histoir")),
)


def subject_phrase(question: str) -> str:
    """The subject of ``question`` as the user wrote it: without the leading question words and
    function words, the verbs that ask how ("work", "funktioniert") and the end punctuation;
    capitalised. "How does garbage collection work in Python?" -> "Garbage collection in Python"."""
    from engine.offline_select import QUESTION_VERBS

    tokens = question.strip(" ¿¡?!.").split()
    start = next((i for i, t in enumerate(tokens) if [w for w in words(t) if w not in STOPWORDS
                                                       and w not in QUESTION_VERBS]), len(tokens))
    kept = [t for t in tokens[start:] if not (words(t) and all(w in QUESTION_VERBS for w in words(t)))]
    subject = " ".join(kept) or question.strip()
    return subject[:1].upper() + subject[1:]


def facet_topics(question: str, language: str) -> list[str]:
    """Two sub-questions of a single-subject ``question``: its subject (:func:`subject_phrase`) and
    a facet it does not already ask about (:data:`FACETS`), as phrases in ``language``
    ("Garbage collection in Python — limitations and problems"); none when what follows the
    question words is a clause ("how much power does the turbine deliver")."""
    from engine.offline_select import terms

    stems = terms(question, language)
    subject = subject_phrase(question)
    if any(w in _AUXILIARIES for w in words(subject)):  # a clause: the question is its own one topic
        return []
    chosen = [key for key, asked in FACETS if not any(s.startswith(asked) for s in stems)]
    return [f"{subject} — {phrase(key, language)}" for key in chosen[:2]]


#: A phrase a list of nouns shares at its end: "(costs, risks and benefits) of solar panels".
_SHARED_TAIL = re.compile(r"^(\S+)\s+((?:of|for|in|on|about|with|von|für|bei|de|des|du|pour|sur|del|para|en)\s.+)$",
                          re.IGNORECASE)


#: Words that open a qualifier of the clause before ("…, for Python developers"), not a topic.
_QUALIFIER_OPENERS = frozenset("for from to with without within about regarding für mit ohne pour avec sans para con sin".split())


def _qualifiers_joined(parts: list[str]) -> list[str]:
    """``parts`` with each clause that opens with a preposition (:data:`_QUALIFIER_OPENERS`) joined to
    the one before: an answer like "task cancellation, for Python developers" names an audience."""
    out: list[str] = []
    for part in parts:
        if out and part.split()[0].lower() in _QUALIFIER_OPENERS:
            out[-1] = f"{out[-1]}, {part}"
        else:
            out.append(part)
    return out


def _nouns_listed(parts: list[str]) -> list[str] | None:
    """Whole questions for a question that lists single nouns ("What are the costs, risks and
    benefits of solar panels": each noun in the first clause's place, with the phrase the last one
    carries), or None when the later clauses are not single words (they are clauses of their own)."""
    first = parts[0].split()
    last = _SHARED_TAIL.match(parts[-1])
    nouns = [*parts[1:-1], last.group(1) if last else parts[-1]]

    def form(word: str) -> str:  # a participle lists with participles ("compressed and encrypted"), not nouns
        return next((end for end in ("ed", "ing") if word.lower().endswith(end)), "")

    if len(first) < 3 or not all(len(n.split()) == 1 and n.replace("-", "").isalpha() and form(n) == form(first[-1])
                                 for n in [first[-1], *nouns]):
        return None
    tail = f" {last.group(2)}" if last else ""
    return [" ".join([*first[:-1], noun]) + tail for noun in [first[-1], *nouns]]


def _question_head(clause: str) -> str:
    """The words of a question up to its subject ("How does asyncio" of "How does asyncio cancel
    tasks"), which a later clause of the same question ("handle timeouts") continues; "" when
    ``clause`` does not start with function words followed by its subject."""
    tokens = clause.split()
    if len(tokens) < 3 or tokens[0].lower() not in STOPWORDS:
        return ""
    for i, token in enumerate(tokens):
        if content_words(token):
            return " ".join(tokens[: i + 1]) if i else ""
    return ""


def _findings_blocks(findings: str) -> list[tuple[str, list[str]]]:
    blocks = []
    for chunk in re.split(r"^### ", findings, flags=re.MULTILINE):
        if not chunk.strip():
            continue
        head, _, body = chunk.partition("\n")
        lines = [re.sub(r"^[-*]\s+", "", ln).strip() for ln in body.splitlines()]
        blocks.append((head.strip(), [ln for ln in lines if ln and SID.search(ln)]))
    return blocks


def shown_blocks(findings: str) -> list[tuple[str, list[str]]]:
    """The findings' ``(topic, cited lines)`` as the report shows them: each sentence once, under
    the first topic that found it; a topic whose lines all came earlier keeps an empty list (the
    report names it as having nothing more to quote)."""
    seen: set[str] = set()
    out = []
    for topic, lines in _findings_blocks(findings):
        fresh = [ln for ln in lines if " ".join(words(SID.sub("", ln))) not in seen]
        seen.update(" ".join(words(SID.sub("", ln))) for ln in fresh)
        out.append((topic, fresh))
    return out


def _short(text: str, n: int = 90) -> str:
    text = " ".join(text.split())
    return text if len(text) <= n else text[: n - 1].rsplit(" ", 1)[0] + "…"


def extractive_report(*, brief: str, findings: str, language: str, notice: str, sources_found: int = 0) -> str:
    """A report of cited extracted sentences: title, notice, summary, a section per topic.

    With no cited finding it says so: no sources found, or ``sources_found`` sources found and
    none with a passage to quote. Topics with nothing of their own to quote are named in one
    italic line after the sections, so none vanishes without a word."""
    title = _short(brief.split("\n")[0], 110)
    out = [f"# {markdown_literal(title)}", "", f"*{notice}*", ""]
    blocks = _findings_blocks(findings)
    all_lines = [ln for _, lines in blocks for ln in lines]
    if not all_lines:
        none = phrase("no_passages", language, sources_found, n=str(sources_found)) if sources_found else phrase("no_findings", language)
        out += [none, ""]
    empty: list[str] = []
    for topic, fresh in shown_blocks(findings):
        if not fresh:
            empty.append(markdown_literal(_short(topic, 80)))
            continue
        out += [f"## {phrase('findings_on', language, t=markdown_literal(_short(topic, 80)))}", ""]
        out += [f"- {ln}" for ln in fresh] + [""]
    if all_lines and empty:  # named, not dropped: a note in italics, not a claim to cite
        out += [f"*{phrase('nothing_more_on', language, t='; '.join(empty))}*", ""]
    return "\n".join(out)


def first_statement(markdown: str) -> str:
    """The first paragraph of plain prose in ``markdown`` (no heading, list, quote or italic notice),
    "" when there is none: what a report with nothing to quote says instead."""
    for block in re.split(r"\n\s*\n", markdown):
        block = " ".join(block.split())
        if block and not block.startswith(("#", "-", "*", ">", "|")) and not re.match(r"^\d+\.", block):
            return block
    return ""


#: The headings of a solution's "Changes from the previous solution" and "Caveats" sections, in
#: every language of :data:`engine.offline_phrases.PHRASES`, and their first words as a model may
#: word them ("Changes since round 1").
_SET_ASIDE = "|".join(re.escape(text) for key in ("changes", "caveats") for text in PHRASES[key].values())


def _without_changes(text: str) -> str:
    """``text`` without its "Changes from the previous solution" and "Caveats" sections."""
    return re.sub(rf"^## (?:{_SET_ASIDE}|Changes|Änderungen|Changements|Cambios).*?(?=^## |\Z)", "", text,
                  flags=re.MULTILINE | re.DOTALL)


def _cited_sentences(text: str) -> list[str]:
    """Claims of a Markdown text: each list item whole (its citation stays with it), prose by sentence."""
    out: list[str] = []
    prose: list[str] = []
    for line in _without_changes(text).splitlines():
        stripped = line.strip()
        if stripped.startswith(("#", ">")) or (stripped.startswith("*") and stripped.endswith("*")):
            continue
        item = re.match(r"^\s*(?:[-*]|\d+\.)\s+(.*)$", line)
        if item:
            out.append(item.group(1).strip())
        elif stripped:
            prose.append(stripped)
    out += sentences(" ".join(prose))
    # a cited item is a claim however short ("The HX-9 has a COP of 4.7. [S1a2b3c]", a CSV row)
    return [s for s in out if len(s) > 30 or SID.search(s)]


def chat_reply(prompt: str) -> str:
    """A neutral answer for an untagged prompt: its first sentences."""
    return " ".join(sentences(prompt)[:2])
