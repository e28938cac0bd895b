"""Extractive composition used by the offline model: topics, reports, the claims review roles read.

Its fixed phrases per language are in :mod:`engine.offline_phrases`.
"""

from __future__ import annotations

import functools
import re

from engine import offline_phrases_more as more
from engine.citations import SID
from engine.language import FUNCTION_WORDS, detect_language, is_function_word
from engine.offline_phrases import PHRASES, phrase
from engine.segments import has_segmented_script, latin_length, latin_prefix, sentences, word_tokens, words
from engine.text import END_MARKS, markdown_literal, squeeze

#: Words that carry no topic: function words, and the words of a request itself ("please explain").
STOPWORDS = FUNCTION_WORDS | frozenset(
    """please tell explain give show find research report vs versus bitte erkläre erklären zeige finde
    recherchiere bericht expliquer explique montre trouve rapport explica explicar muestra informe""".split()
) | frozenset(more.REQUEST_WORDS)


def clarifying_question(question: str, language: str) -> str:
    """The offline model's clarifying question for a vague request."""
    q = _short(question, 200)
    return phrase("clarify", language, q=q)


def content_words(text: str, *, names: bool = False) -> list[str]:
    """Words of ``text`` (lower-cased) that are not stop words (:data:`STOPWORDS`,
    :func:`engine.language.is_function_word`), in order, without repeats. With ``names`` a name written
    with its symbols ("C++", "C#", ".NET") is one word, as the selection reads a question
    (:func:`engine.offline_terms.named_tokens`), not "c" or "net"."""
    if names:
        from engine.offline_terms import named_tokens

        tokens = [w.lower() for w in named_tokens(text)]
    else:
        tokens = words(text)
    return list(
        dict.fromkeys(w for w in tokens if w not in STOPWORDS and len(w) > 1 and not is_function_word(w))
    )


#: What joins the chat thread's discussion to the offline brief, as background of the question.
BACKGROUND = " — Background from the thread's discussion: "
#: Words that open a question of its own after "and" or a comma ("…, and how loud is it?"), with
#: German's question adverbs ("wofür", "wozu") and French "est-ce", "qu'est-ce" that ask a question
#: of their own ("et est-ce qu'elle est rentable ?").
_INTERROGATIVES = frozenset(
    """how what which why when where who whom whose wie was welche welcher welches welchen welchem warum wann wo
    wer wen wem weshalb wieso wozu wofür woran worauf wodurch wovon womit worüber woher wohin comment quel
    quelle quels quelles pourquoi quand où est-ce qu'est-ce qué cómo cuánto cuánta cuántos cuántas cuál
    cuáles dónde cuándo quién quiénes""".split()) | frozenset(more.INTERROGATIVES)
#: The end and opening punctuation a sub-question is written without.
_ENDS = " ¿¡" + END_MARKS


def stripped(text: str) -> str:
    """``text`` without the marks and spaces at its ends (:data:`_ENDS`), but for a dot that opens a
    word, after a space or nothing (" .5 mm enough?": ".5 mm enough", " .NET": ".NET"), which a
    decimal without its zero or a name is written with; an ellipsis ("...") is no such dot."""
    bare = text.strip(_ENDS)
    opening = text[: len(text) - len(text.lstrip(_ENDS))]
    dot = opening.endswith(".") and opening[-2:-1] in ("", " ") and bare[:1].isalnum()
    return f".{bare}" if dot else bare


def listed_frame(brief: str, topic: str, language: str = "en") -> str:
    """The frame of ``topic`` when :func:`plan_topics` made it of ``brief`` from a listed item: the part
    of the question every item shares ("How much noise do … make" of "How much noise do heat pumps
    make": :func:`engine.offline_lists.listed_frames`), "" for any other topic (a clause of its own,
    an item alone of a question that only compares them, a facet, the brief itself)."""
    from engine.offline_lists import listed_frames

    return listed_frames(_brief_text(brief), language).get(topic, "")


def asked_of(brief: str, topic: str, language: str = "en") -> str:
    """What a sentence quoted for ``topic`` (a sub-question :func:`plan_topics` made of ``brief``) must
    name one word of: its frame when it is a listed item's (:func:`listed_frame`: "How much noise do …
    make"); when it is one of two English verb phrases of one subject
    (:func:`engine.offline_list_items._verb_phrases`: "How does asyncio | cancel tasks", "… | handle
    timeouts"), its verb ("cancel": the subject and the object are what every page found says, the verb
    what this one asks), or its verb phrase when the verb only asks how ("handle timeouts",
    :data:`engine.offline_terms.QUESTION_VERBS`); "" for any other topic."""
    from engine.language import is_function_word
    from engine.offline_list_items import _verb_phrases
    from engine.offline_lists import listed_topics
    from engine.offline_terms import QUESTION_VERBS

    if frame := listed_frame(brief, topic, language):
        return frame
    topics = listed_topics(_brief_text(brief), language)
    if language != "en" or len(topics) < 2 or topic not in topics:
        return ""
    split = [t.split() for t in topics]
    shared = 0
    while all(len(s) > shared + 1 for s in split) and len({s[shared].lower() for s in split}) == 1:
        shared += 1
    items = [s[shared:] for s in split]
    if not _verb_phrases(split[0][:shared], [], language, items):
        return ""
    item = items[topics.index(topic)]
    verb = item[0].lower()
    return " ".join(item) if verb in QUESTION_VERBS or is_function_word(verb) else item[0]


#: The label over a note or warning box, a paragraph of its own as a page's text writes it ("Note", "Warning",
#: "Hinweis", "Remarque", "Nota", "Advertencia", "Opmerking", "Obs", …).
BOX_LABELS = frozenset("""note notes warning caution important tip hint attention danger hinweis warnung
    achtung wichtig tipp remarque avertissement attention important astuce nota advertencia aviso importante
    consejo avvertenza attenzione suggerimento aviso dica opmerking waarschuwing let tip obs varning viktigt""".split())


def labelled(paragraphs_: list[str]) -> list[str]:
    """``paragraphs_`` with a note or warning box's label (a paragraph of :data:`BOX_LABELS` alone) put
    before the box's first sentence when that one opens with a reference ("Note: This will deadlock …",
    :func:`engine.offline_review.flaw`): what it refers to is the entry the box annotates, which no
    sentence before it carries, and with its label it reads as the note it is. A box whose first
    sentence names its own subject is as it was."""
    from engine import offline_review as R

    out: list[str] = []
    for paragraph in paragraphs_:
        label = out[-1].strip() if out else ""
        kind = R.flaw(paragraph.strip())
        if label.lower() in BOX_LABELS and kind and kind[0] == "reference":
            out[-1] = f"{label}: {paragraph.strip()}"
        else:
            out.append(paragraph)
    return out


def _brief_text(brief: str) -> str:
    """``brief`` as one line, without the thread's talk after :data:`BACKGROUND` (which is no topic)."""
    return " ".join(brief.split()).split(BACKGROUND.strip())[0].strip(" —")


def plan_topics(brief: str, limit: int, language: str = "en") -> list[str]:
    """Split a brief into research topics: its clauses when it lists several items, else facets.

    A brief like "Compare A; B; C" gives one topic per clause; "A, B and C" (also "A und
    B", "A et B", "A y B", "A、B和C", ...) one per listed item, in the words around the list
    (:func:`engine.offline_lists.listed_topics`: "What are the costs, risks and benefits of solar
    panels" gives "What are the risks of solar panels"), the item alone when those words only ask to
    compare them. Quoted text, code and anything in brackets are never split. A single-subject brief
    gives itself plus two facets of its subject (:func:`facet_topics`).
    """
    from engine.offline_lists import listed_topics

    text = _brief_text(brief)  # the thread's talk is no topic
    topics = listed_topics(text, language)
    if len(topics) >= 2:
        return topics[:limit]
    return [text, *facet_topics(text.split(" — ")[0], language)][: max(1, min(limit, 3))]


#: Verbs that make a question's rest a clause ("how much power does the turbine deliver"), not a
#: subject that facets can be composed with.
_AUXILIARIES = frozenset(
    """do does did is are was were be been can could should would will shall may might must
    has have had ist sind war waren wird werden wurde kann können soll muss hat haben est sont était peut
    peuvent a ont es son era puede pueden ha han""".split()) | frozenset(more.AUXILIARIES)


#: The facets a single subject is researched under, in order of preference, each with the word
#: stems (Snowball, :mod:`engine.offline_terms`) that say a question already asks about it; a
#: question about history does not ask how its subject works.
FACETS = tuple((key, stems + more.FACET_STEMS[key]) for key, stems in (
    ("facet_how", ("work", "funktion", "fonction", "funcion", "histori", "geschicht", "histoir")),
    ("facet_limits", ("limit", "problem", "grenz")),
    ("facet_examples", ("exampl", "beispiel", "exempl", "ejempl")),
    ("facet_history", ("histori", "geschicht", "histoir")),
))


def subject_phrase(question: str) -> str:
    """The subject of ``question`` as the user wrote it: without the leading question words and
    function words, the verbs that ask how ("work", "funktioniert") and the end punctuation;
    capitalised. "How does garbage collection work in Python?" -> "Garbage collection in Python".
    A word that shares the end of the next one's compound is no function word ("Vor-" of "Vor- und
    Nachteile", though "vor" is one). One verb asks how: a later word of those is the subject's noun
    ("What do experts say about the future of remote work?": "Experts about the future of remote work").
    A verb with an object of its own is kept ("How does asyncio cancel tasks and handle timeouts":
    "Asyncio cancel tasks and handle timeouts"): a heading never drops a verb of the question."""
    from engine.offline_terms import QUESTION_VERBS

    tokens = question.strip(_ENDS).split()
    start = next(
        (
            i
            for i, t in enumerate(tokens)
            if t.endswith("-") or [w for w in words(t) if w not in STOPWORDS and w not in QUESTION_VERBS]
        ),
        len(tokens),
    )

    def asks_how(k: int) -> bool:  # "work" in "… work in Python", not "handle" in "… handle timeouts"
        asking = bool(words(tokens[k])) and all(w in QUESTION_VERBS for w in words(tokens[k]))
        return asking and (k + 1 == len(tokens) or not content_words(tokens[k + 1]))

    # one verb asks how: a later such word is a noun of the subject ("say about … remote work")
    asking = next((k for k in range(len(tokens)) if asks_how(k)), -1)
    kept = [t for k, t in enumerate(tokens) if k >= start and k != asking]
    subject = " ".join(kept) or question.strip()
    return subject[:1].upper() + subject[1:]


#: Words that make a Chinese or Japanese text a question ("吗", "如何", "か", "どのくらい").
_CJK_QUESTION = frozenset(
    "吗 嗎 呢 如何 什么 什麼 怎么 怎麼 怎样 怎樣 哪些 哪个 哪個 多少 为什么 為什麼 か どう どの どのくらい "
    "どのように なぜ 何".split()
)


def _asks_of_a_clause(question: str) -> bool:
    """True when ``question`` asks of a clause rather than of a subject: its question word is followed
    by a word of its own that is no verb asking how ("What efficiency do…", "¿Cuánto cuesta…", but
    not "How does…" or "¿Cómo funciona…"), or it is a Chinese or Japanese question (:data:`_CJK_QUESTION`
    or a question mark)."""
    from engine.offline_terms import QUESTION_VERBS

    if has_segmented_script(question):
        return question.rstrip().endswith(("?", "？")) or any(
            w in _CJK_QUESTION for w in word_tokens(question)
        )
    tokens = question.strip(_ENDS).split()
    if len(tokens) < 2 or tokens[0].lower() not in _INTERROGATIVES:
        return False
    return bool([w for w in content_words(tokens[1]) if w not in QUESTION_VERBS])


def facet_topics(question: str, language: str) -> list[str]:
    """Two sub-questions of a single-subject ``question``: its subject (:func:`subject_phrase`) and
    a facet it does not already ask about (:data:`FACETS`), as phrases in ``language``
    ("Garbage collection in Python — limitations and problems"); none when what follows the
    question words is a clause: one with an auxiliary ("how much power does the turbine deliver"),
    one whose question word asks about a word of its own ("¿Qué eficiencia tienen…", "How loud
    is…": :func:`_asks_of_a_clause`), and a question in Chinese or Japanese, whose words
    :func:`subject_phrase` cannot part from the asking ("热泵在冬天的效率如何？")."""
    from engine.offline_terms import terms

    stems = terms(question, language)
    subject = subject_phrase(question)
    if any(w in _AUXILIARIES for w in words(subject)) or _asks_of_a_clause(question):
        return []  # a clause: the question is its own one topic
    chosen = [key for key, asked in FACETS if not any(s.startswith(asked) for s in stems)]
    return [f"{subject} — {phrase(key, language)}" for key in chosen[:2]]


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
    the topic whose listed thing it names first when it names those of several topics (its subject,
    :func:`engine.offline_select.named_first`: "Ground-source heat pumps beat air-source heat pumps"
    under ground-source), else under the topic it answers best (:func:`engine.offline_select.answers`,
    stemmed in the topics' language), of those that found it the first on a tie; a topic with no
    line of its own keeps an empty list (the report names it as having nothing more to quote)."""
    from engine.offline_select import answers, named_first

    blocks = _findings_blocks(findings)
    topics = [topic for topic, _ in blocks]
    language = detect_language(" ".join(topics)) if len(blocks) > 1 else "en"
    out: list[tuple[str, list[str]]] = [(topic, []) for topic in topics]
    seen: set[str] = set()
    for _, lines in blocks:
        for line in lines:
            key = " ".join(words(SID.sub("", line)))
            if key in seen:
                continue
            seen.add(key)
            scores = answers(SID.sub("", line), topics, language) if len(blocks) > 1 else [0.0]
            found = {
                j
                for j, (_, other) in enumerate(blocks)
                if any(" ".join(words(SID.sub("", ln))) == key for ln in other)
            }
            first = named_first(SID.sub("", line), topics, language) if len(blocks) > 1 else None
            best = (
                first
                if first is not None
                else max(range(len(topics)), key=lambda j: (scores[j], j in found, -j))
            )
            out[best][1].append(line)
    return out


#: What a shortened text does not end with before its "…": a separator, a dash, an opening bracket
#: or quote, a full stop (the sentence around it may add its own).
_DANGLING = " ,;:.—–-/([{“„«‘‚'\"、，。・"
#: What ends a sentence: a sentence that writes a text ending in one adds no full stop of its own.
_STOPPED = re.compile(r"([.?!…。？！])\s*[.。]$")


def _short(text: str, n: float = 90) -> str:
    """``text`` on one line, at most ``n`` long in Latin letters' worth (:func:`engine.segments.latin_length`:
    a Han character is 4, so a Japanese quote is as long to read as an English one of ``n`` letters):
    when longer, cut after its last whole word that fits and is no function word ("… — limitations…",
    not "… — limitations and…"), without a separator or dash before the "…"; a topic's facet after " — "
    is kept whole when its subject leaves room ("Asyncio cancel tasks and handle… — limitations and
    problems"). A first word longer than ``n`` is the one thing cut inside a word."""
    text = squeeze(text)  # no-break spaces kept: French "trouvées\u202f; aucune"
    if latin_length(text) <= n:
        return text
    head, sep, facet = text.rpartition(" — ")
    if sep and latin_length(sep + facet) + 20 <= n and latin_length(facet) < 60:
        return f"{_short(head, n - latin_length(sep + facet))}{sep}{facet}"
    room = len(latin_prefix(text, n - 1))  # the characters that fit, with the "…"
    at = 0
    ends = []
    for word in word_tokens(text):
        start = text.find(word, at)
        at = start + len(word)
        if at > room:
            break
        following = text[at : at + 1]
        bound = not (following.isalnum() or following == "_") or has_segmented_script(text[at - 1 : at + 1])
        if bound and not is_function_word(word.lower()):
            ends.append(at)
    for end in reversed(ends):
        kept = text[:end].rstrip(_DANGLING)
        if kept:
            return kept + "…"
    return text[:room].rstrip(_DANGLING) + "…"


def stopped(sentence: str) -> str:
    """``sentence`` without the full stop it adds after a text that ends one already: "…" or a
    question mark ("Nothing more to quote was found on: … — limitations…." is "… — limitations…")."""
    return _STOPPED.sub(r"\1", sentence.rstrip())


def extractive_report(
    *, brief: str, findings: str, language: str, notice: str, sources_found: int = 0
) -> str:
    """A report of cited extracted sentences: title, notice, summary, a section per topic.

    With no cited finding it says so: no sources found, or ``sources_found`` sources found and
    none with a passage to quote. Topics with nothing of their own to quote are named in one
    italic line after the sections, so none vanishes without a word."""
    title = _short(brief.split("\n")[0], 110)
    out = [f"# {markdown_literal(title)}", "", f"*{notice}*", ""]
    blocks = _findings_blocks(findings)
    all_lines = [ln for _, lines in blocks for ln in lines]
    if not all_lines:
        none = (
            phrase("no_passages", language, sources_found, n=str(sources_found))
            if sources_found
            else phrase("no_findings", language)
        )
        out += [none, ""]
    empty: list[str] = []
    for topic, fresh in shown_blocks(findings):
        if not fresh:
            empty.append(markdown_literal(_short(topic, 80)))
            continue
        out += [f"## {phrase('findings_on', language, t=markdown_literal(_short(topic, 80)))}", ""]
        out += [f"- {ln}" for ln in fresh] + [""]
    if all_lines and empty:  # named, not dropped: a note in italics, not a claim to cite
        out += [f"*{stopped(phrase('nothing_more_on', language, t='; '.join(empty)))}*", ""]
    return "\n".join(out)


def first_statement(markdown: str) -> str:
    """The first paragraph of plain prose in ``markdown`` (no heading, list, quote or italic notice),
    "" when there is none: what a report with nothing to quote says instead. On one line, its no-break
    spaces kept (:func:`engine.text.squeeze`: French "trouvées\u202f; aucune")."""
    for block in re.split(r"\n\s*\n", markdown):
        block = squeeze(block)
        if block and not block.startswith(("#", "-", "*", ">", "|")) and not re.match(r"^\d+\.", block):
            return block
    return ""


@functools.cache
def _set_aside() -> str:
    """The headings of a solution's "Changes from the previous solution" and "Caveats" sections, in
    every language of :data:`engine.offline_phrases.PHRASES`, as alternatives of a regular expression
    (read on first use: their Traditional Chinese entries load OpenCC)."""
    return "|".join(re.escape(text) for key in ("changes", "caveats") for text in PHRASES[key].values())


def _without_changes(text: str) -> str:
    """``text`` without its "Changes from the previous solution" and "Caveats" sections (:func:`_set_aside`,
    and their first words as a model may word them: "Changes since round 1")."""
    return re.sub(
        rf"^## (?:{_set_aside()}|Changes|Änderungen|Changements|Cambios).*?(?=^## |\Z)",
        "",
        text,
        flags=re.MULTILINE | re.DOTALL,
    )


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
    # a cited item is a claim however short ("The HX-9 has a COP of 4.7. [S1a2b3c]", a CSV row); an
    # uncited one from 30 Latin letters' worth on (a Japanese sentence of 12 characters)
    return [s for s in out if latin_length(s) > 30 or SID.search(s)]


def chat_reply(prompt: str) -> str:
    """A neutral answer for an untagged prompt: its first sentences."""
    return " ".join(sentences(prompt)[:2])
