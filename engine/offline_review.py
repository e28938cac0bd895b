"""The offline model's review: solution, critique and perspective, computed from the run.

Each role says only what its inputs show: the report's claims, the research findings
(``read_findings``), the sources found (``list_sources``, and the synthesis prompt's
``<Sources>`` block, both :func:`engine.prompt_sources.found_sources_block`) and the question.
Counts are counted there; every objection quotes the claim, names the source or the words of the
question it is about. Round 2 revises the solution by what round 1 found and says what changed,
or that nothing did. The final synthesis that reads them is :mod:`engine.offline_synthesis`.
"""

from __future__ import annotations

import functools
import re

from engine.citations import SID
from engine.file_labels import source_title
from engine.language import is_function_word
from engine.offline_asked import unmarked
from engine.offline_list_words import COMPARING, RANKING, RELATING, TOGETHER, measure_words
from engine.offline_phrases import PHRASES, phrase
from engine.offline_phrases_more import REFERENCES
from engine.offline_quotes import _QUOTED, _quote, _quote_text, _quoted, _unquoted
from engine.offline_terms import (
    QUESTION_VERBS,
    SYMBOL_NAME,
    comparison_frames,
    named_tokens,
    query_terms,
    terms,
    word_spans,
)
from engine.offline_text import _INTERROGATIVES as INTERROGATIVES
from engine.offline_text import _cited_sentences, _findings_blocks, _short, content_words, shown_blocks
from engine.prompt_sources import NOT_CITED_HEAD
from engine.segments import latin_length, word_tokens
from engine.word_forms import mentioned

#: A line of code quoted as if it were prose: a loop header, an assignment, a call before a
#: comment, a statement ending in a brace or semicolon, a definition, one after the interactive
#: interpreter's prompt (">>> ", "... ": a doctest), a decorated definition ("@dataclass_transform()
#: class ModelBase: ...").
_CODE = re.compile(r"\bfor \w+ in [\w.()]+\s*:|\w\)\s*#|\s#\s|[{};]\s*$"
                   r"|^(?:def|class|import|return|async def)\s|^\s*(?:>>>|\.\.\.)\s"
                   r"|^@[\w.]+(?:\([^)]*\))?\s+(?:async\s+)?(?:def|class)\s")
#: A command line, as written alone or inside a sentence: after a shell prompt ("$ hp-tool …", "% …"),
#: a lower-case command and at most one more word before its first option ("hpctl list
#: --heat-pumps", "pip install -U pip"), or two long options in a row, a value between them at most
#: ("run hpctl --log /var/log/… --since …", "--cheapest --run"); not options a sentence names with
#: "or" or "and" between ("Use --verbose or --quiet"). Its options and paths name words ("--cheapest",
#: "/var/log/heat-pumps/") without saying anything of them.
_COMMAND = re.compile(
    r"^\s*[$%]\s+[A-Za-z./~]"
    r"|^[a-z][\w.-]*(?:\s+[a-z][\w.-]*)?\s+--?[A-Za-z]"
    r"|(?<!\S)--[A-Za-z][\w-]*(?:=\S*)?\s+(?:(?!(?:or|and|nor|oder|und|ou|et|o|y|e|of|en|och|eller)\s)\S+\s+)?--[A-Za-z]"
)
#: An assignment, code unless it is a setting named in a prose sentence (:data:`_SETTING`, :data:`_PROSE`).
_ASSIGNMENT = re.compile(r"\b\w+\s*=\s*[\w\"'\[({]")
#: A name and a plain value, as prose names a setting: "configured with max_rpm = 18 in", "timeout=None.".
_SETTING = re.compile(r"\w+\s*=\s*[\w\"'-]+(?=[\s,;:)]|[.!?](?:\s|$)|$)")
#: How a prose sentence starts: two words of letters ("The turbine", "Der Regler", a box's "Note: This"), not
#: ``task = ...``.
_PROSE = re.compile(r"[^\W\d_]+:?\s+[^\W\d_]+\s")
#: A sentence whose subject is a reference to text before it ("This ...", "However this ...").
_REFERENCE = re.compile(r"^(?:(?:however|but|and|so|also|yet|dennoch|aber)[,]?\s+)?"
                        # a pronoun, or a comparison whose other side is in the text before
                        r"(this|that|these|those|it|they|such|dies|diese|dieser|dieses|cela|ceci|esto|eso"
                        r"|similar|similarly|likewise|below|ähnlich|similaire|semblable|igualmente|"
                        + "|".join(REFERENCES) + r")\b",
                        re.IGNORECASE)
#: A FAQ's answer label ("A: Yes, …", "Antwort: …", "Réponse : …"): the answer refers to the question
#: before it as a pronoun does.
_ANSWER = re.compile(r"^(A|Answer|Antwort|R|Réponse|Respuesta|Risposta|Resposta|Antwoord|Svar)\s?:\s")
_SOURCE_LINE = re.compile(r"^\[(S[0-9a-f]{6})\] (.*?) — \S+$")
_FIGURE = re.compile(r"(?<![\w.,])(\d[\d,.]*)\s+([^\W\d_]{3,})")
#: Objections and flagged claims quoted at most per point, and question words named at most.
MAX_QUOTED = 3
#: The particles of German separable verbs that end a question whose verb they belong to ("Wie bricht
#: asyncio Tasks ab?", "Wie richte ich es ein?"), as German grammars list them (Duden: trennbare Verben).
SEPARABLE_PARTICLES = frozenset("ab an auf aus bei ein fest her hin los mit nach vor weg zu zurück um durch".split())
#: The shortest word of a question the review asks the claims for, in Latin letters' worth
#: (:func:`engine.segments.latin_length`): four letters, two Han characters, three kana, two Hangul syllables.
MIN_WORD = 4
#: A name written with its symbols, lower-cased ("c++", ".net"): a word of a question however short.
_SYMBOL_WORD = re.compile(SYMBOL_NAME, re.IGNORECASE)


def tag_content(text: str, name: str) -> str:
    """The text inside ``<name>…</name>`` of a prompt, stripped; "" when it has no such tag."""
    m = re.search(rf"<{name}>\s*(.*?)\s*</{name}>", text, re.DOTALL)
    return m.group(1).strip() if m else ""


def _question(prompt: str) -> str:
    m = re.search(r"^Question: (.*)$", prompt, re.MULTILINE)
    return m.group(1).strip() if m else ""


def _split(claim: str) -> tuple[str, str]:
    """``(text without its ids, first id or "")`` of a claim line."""
    ids = SID.findall(claim)
    return " ".join(SID.sub("", claim).split()), (ids[0] if ids else "")


def flaw(text: str) -> tuple[str, str] | None:
    """``("code", "")`` for a code line (a command line too: :data:`_COMMAND`), ``("reference",
    word)`` for a sentence starting with a reference to text it does not carry (a FAQ's answer label
    too, :data:`_ANSWER`); None for a claim that reads on its own."""
    assignments = [m for m in _ASSIGNMENT.finditer(text) if not (_PROSE.match(text) and _SETTING.match(text, m.start()))]
    if _CODE.search(text) or assignments or _COMMAND.search(text):
        return "code", ""
    m = _REFERENCE.match(text) or _ANSWER.match(text)
    return ("reference", m.group(1)) if m else None


def unanswered(question: str, claims: list[str], language: str = "en") -> list[str]:
    """The question's content words (:data:`MIN_WORD` Latin letters' worth or more,
    :func:`engine.segments.latin_length`: "heat", "タスク", "熱泵", not "熱"; not a verb that asks how or a
    light verb, :data:`engine.offline_terms.QUESTION_VERBS`, nor the verb of a split German verb,
    :func:`_split_verb`; nor a word that says how its things relate, :data:`_RELATING`: "together", nor
    beside one that compares them a word that ranks the differences,
    :data:`engine.offline_list_words.RANKING`: "main" of "the main differences"; nor a measure word after
    "how" or its like, :func:`engine.offline_list_words.measure_words`: "hoch" of "Wie hoch ist …";
    as the question writes them) that no claim mentions in any form
    (:func:`engine.word_forms.mentioned`, in ``language``: "timeouts" is met by "timeout" and by
    "TimeoutError", "Wärmepumpen" by "Erdwärmepumpen", "المضخات" by "والمضخات", "熱泵" by "空气源热泵").
    A name written with its symbols ("C++", "C#", "g++", ".NET": :data:`engine.offline_terms.SYMBOL_NAME`)
    is one word whatever its length, split as the selection splits it: a claim naming "C" or "net"
    does not mention it."""
    question = unmarked(question, claims)  # "$HOME_DIR", "\\section", "<b>": no words unless a claim writes them
    split = _split_verb(question, language) | finite_verbs(question, language)
    found = content_words(question, names=True)
    # "the main differences": a word that ranks differences (RANKING) asks no more than they do
    framing = _RELATING | RANKING if COMPARING.intersection(t.lower() for t in found) else _RELATING
    # "Wie hoch", "how high", "combien de temps": a measure word after "how" is part of the question word
    tokens = word_tokens(question)
    framing = framing | {tokens[i].lower() for i in measure_words(tokens) | comparison_frames(tokens)}
    asked = [term for term in found
             if (latin_length(term) >= MIN_WORD or _SYMBOL_WORD.fullmatch(term))
             and term not in QUESTION_VERBS and term not in split and term.lower() not in framing]
    written = [_as_written(term, question) for term in asked]  # ".NET" is a name, ".net" is "net"
    met = {term for claim in claims for term in mentioned(written, claim, language)}
    return [term for term in written if term not in met]


#: Words that only say how a question's things relate or are weighed ("together", "interact",
#: "compare", "compared with", "versus": :data:`engine.offline_list_words.TOGETHER`, :data:`~engine.offline_list_words.RELATING`,
#: :data:`~engine.offline_list_words.COMPARING`): no topic a claim must name.
_RELATING = TOGETHER | RELATING | COMPARING | frozenset(
    "compared comparing verglichen comparé comparée comparés comparado comparada confrontato vergeleken".split())


def _split_verb(question: str, language: str) -> set[str]:
    """The finite verb of a German question whose verb is split, lower-cased: the question ends in its
    particle (:data:`SEPARABLE_PARTICLES`), and the verb stands first or right after a question word
    (German's verb-first and verb-second order: "Wie bricht asyncio Tasks ab?" asks about "abbrechen",
    not "bricht", which no text that cancels writes). After the question word it is written in lower
    case, as no German noun is ("Welche Kosten fallen an?" names its "Kosten"). Empty in other languages."""
    tokens = word_tokens(question)
    if language != "de" or len(tokens) < 3 or tokens[-1].lower() not in SEPARABLE_PARTICLES:
        return set()
    if tokens[0].lower() in INTERROGATIVES:
        return {tokens[1].lower()} if tokens[1].islower() else set()
    return {tokens[0].lower()}


#: The question words that ask how, which a finite verb follows in Spanish, Italian and Portuguese
#: ("¿Cómo gestiona …", "Come gestisce …", "Como gerencia …"). Not German, Dutch nor Swedish: there an
#: adverb or adjective the question is about often stands between "how" and the verb ("Wie gut schützt
#: …", "Hoe veilig versleutelt …", "Hur snabbt kompilerar …").
_HOW = frozenset("cómo como come".split())
#: The forms of "be" after which the word between them and "how" is an adjective, not a verb ("¿Cómo
#: de eficientes son …", "Come efficienti sono …").
_BE_AFTER_HOW = frozenset("es son era eran está están è sono era erano é são eram".split())
#: A French verb with its subject pronoun after it, as a question writes it ("gère-t-il", "gère-il",
#: "planifient-elles", "annule-t-on"): ``group(1)`` is the verb (:data:`engine.offline_lists._INVERTED`).
_INVERTED_VERB = re.compile(r"(?<![\w-])([^\W\d_]+)-(?:t-)?(?:ils|elles|il|elle|on)(?![\w-])", re.IGNORECASE)


def finite_verbs(question: str, language: str) -> set[str]:
    """The finite verbs of ``question`` known by where they stand, lower-cased: in French each word
    before a subject pronoun joined to it by a hyphen ("gère-t-il", "gère-il", "planifient-elles",
    "annule-t-on": French writes a subject pronoun after its verb joined to it by a hyphen, with a "-t-"
    between them after a vowel, and only after a verb); in Spanish, Italian and Portuguese the word
    right after a question word that asks how (:data:`_HOW`) opening the question, written in small
    letters, when no form of "be" follows it (:data:`_BE_AFTER_HOW`) and it is no word of grammar nor
    a measure word. A conjugated verb names no thing a source is about ("Que disent
    les sources sur « gère »"), and a text on it seldom writes that form. Empty in other languages."""
    from engine.offline_list_words import measure_words

    if language == "fr":
        return {m.group(1).lower() for m in _INVERTED_VERB.finditer(question)}
    tokens = word_tokens(question)
    if language not in ("es", "it", "pt") or len(tokens) < 3 or tokens[0].lower() not in _HOW:
        return set()
    verb, after = tokens[1], tokens[2].lower()
    if (not verb.isalpha() or not verb.islower() or after in _BE_AFTER_HOW or is_function_word(verb)
            or 1 in measure_words(tokens)):
        return set()
    return {verb}


def _as_written(word: str, text: str) -> str:
    """``word`` (lower-cased, as :func:`engine.segments.words` gives it) as ``text`` first writes it:
    a German noun keeps its capital letter, a name its spelling (also inside Japanese: "Task")."""
    return next((w for w in named_tokens(text) if w.lower() == word), word)


def phrases(words: list[str], question: str, language: str = "en") -> list[str]:
    """``words`` (of ``question``, as it writes them: :func:`unanswered`) with those of a noun phrase of
    the question (:func:`_noun_phrases`: its subject, a phrase after a preposition) as that phrase, as
    the question writes it, when every word of it :func:`unanswered` would ask for is among ``words``:
    "heat pumps", "air-source heat pumps", "gas boiler", "bomba de calor", "pompes à chaleur" rather
    than "heat", "pumps", "boiler", which name no thing alone. In the order of ``words``; a claim that
    mentions every word of a phrase answers it as it answers the words (:func:`unanswered` reads a
    phrase's words)."""
    wanted = {w.casefold() for w in words}
    inside: dict[str, str] = {}  # each word of a phrase -> the phrase
    for spans in _noun_phrases(question, language):
        own = [question[a:b] for a, b in spans]
        asked = [w for w in own if content_words(w) and latin_length(w) >= MIN_WORD]
        if asked and all(w.casefold() in wanted for w in asked):
            for w in own:
                inside.setdefault(w.casefold(), question[spans[0][0]:spans[-1][1]])
    return list(dict.fromkeys(inside.get(w.casefold(), w) for w in words))


def _noun_phrases(question: str, language: str) -> list[list[tuple[int, int]]]:
    """The noun phrases of ``question`` of two words or more, each as the spans of its words
    (:func:`engine.offline_terms.word_spans`), without an article: its subject
    (:func:`engine.offline_list_pronouns.subject_as_written`; an English subject's last word that reads
    as a verb, :func:`engine.offline_subject_items._verb`, with a word of the question's after it is that
    verb: "How does asyncio | cancel tasks", "How much does a gas boiler | cost compared to …"), and
    the words after a preposition (:data:`engine.offline_list_words.PREPOSITIONS`) and its article, up
    to a word of grammar or a mark ("compared to a | gas boiler", "in | cold climates"; outside English
    with a linking "à", "de", "di" and the word after it: "à une | chaudière à gaz"). English "to" needs
    its article ("to store potatoes" is a verb's)."""
    from engine.offline_list_pronouns import _LINKERS, subject_as_written
    from engine.offline_list_words import ARTICLES, PREPOSITIONS
    from engine.offline_subject_items import _verb

    spans = word_spans(question)
    tokens = [question[a:b] for a, b in spans]
    low = [t.lower() for t in tokens]

    def content(i: int) -> bool:
        return bool(content_words(tokens[i])) and not is_function_word(low[i])

    def joined(i: int) -> bool:  # the word i follows the word before it in the same phrase
        return question[spans[i - 1][1]:spans[i][0]] in (" ", "-")

    found = []
    subject = subject_as_written(question, language)
    at = question.find(subject) if subject else -1
    if at >= 0:
        own = [i for i, (a, b) in enumerate(spans) if at <= a and b <= at + len(subject)]
        while own and not content(own[0]):
            own = own[1:]  # "a", "the", "una", "l'"
        if (language == "en" and len(own) > 1 and own[-1] + 1 < len(tokens) and content(own[-1] + 1)
                and _verb(tokens[own[-1]])):
            own = own[:-1]  # "asyncio cancel | tasks": the verb after the subject
        while own and not content(own[-1]):
            own = own[:-1]  # "the limitations of"
        found.append(own)
    articles = ARTICLES.get(language, ARTICLES["en"])
    for i, word in enumerate(low[:-1]):
        if word not in PREPOSITIONS and not (word == "a" and language in ("es", "it", "pt")):
            continue  # Spanish, Italian and Portuguese "a" is a preposition ("frente a una caldera de gas")
        k = i + 1
        if low[k] in articles and joined(k):
            k += 1
        elif language == "en" and word == "to":
            continue  # "to store potatoes": an infinitive
        own = []
        while k < len(tokens) and joined(k) and (content(k) or language != "en" and low[k] in _LINKERS
                                                  and k + 1 < len(tokens) and content(k + 1) and own):
            own.append(k)
            k += 1
        found.append(own)
    return [[spans[i] for i in own] for own in found if len(own) > 1]


def _terms(terms: list[str], language: str, markdown: bool = True) -> str:
    """Up to :data:`MAX_QUOTED` words of the question, quoted: as Markdown that shows them as
    written, or as plain text (``markdown=False``)."""
    return phrase("list_separator", language).join(_quoted(t, language, markdown=markdown) for t in terms[:MAX_QUOTED])


def listed_titles(titles: list[str], total: int, language: str) -> str:
    """Up to :data:`MAX_QUOTED` of ``titles`` (plain text; a shared file's page or section in
    ``language``: :func:`engine.file_labels.source_title`), quoted as Markdown, and ``(+k)`` for the
    rest of ``total``."""
    shown = phrase("list_separator", language).join(_quote_text(source_title(t, None, language), language, 60)
                                                    for t in titles[:MAX_QUOTED])
    rest = total - min(len(titles), MAX_QUOTED)
    return (shown + (f" (+{rest})" if rest > 0 else "")) if shown else "…"


def found_sources(text: str) -> tuple[int, dict[str, str], list[str]]:
    """``(found, {id: title}, ids named as not cited)`` read from a
    :func:`~engine.prompt_sources.found_sources_block`."""
    head = re.search(r"(\d+) sources found", text)
    titles: dict[str, str] = {}
    not_cited: list[str] = []
    for line in text.splitlines():
        line = line.strip()
        m = _SOURCE_LINE.match(line)
        if m:
            titles[m.group(1)] = m.group(2)
        elif line.startswith(NOT_CITED_HEAD):
            for title, sid in re.findall(r"“(.*?)” \[(S[0-9a-f]{6})\]", line):
                titles[sid] = title
                not_cited.append(sid)
    return (int(head.group(1)) if head else len(titles)), titles, not_cited


def _flagged_points(claims: list[str], language: str) -> list[str]:
    points = []
    for claim in claims:
        text, sid = _split(claim)
        kind = flaw(text)
        if kind and sid:
            key = "code_line" if kind[0] == "code" else "dangling"
            points.append(phrase(key, language, q=_quote(text, language), sid=sid,
                                 word=_quoted(kind[1], language, markdown=True)))
    return points[:MAX_QUOTED]


def _source_point(solution: str, sources: str, language: str) -> str | None:
    found, titles, _ = found_sources(sources)
    used = set(SID.findall(solution))
    if not found:
        return None
    if len(used) <= 1:
        return phrase("one_source", language)
    unused = [title for sid, title in titles.items() if sid not in used]
    if len(used) >= found:
        return phrase("all_sources_used", language, found, m=str(found))
    return phrase("unused_sources", language, found, n=str(len(used)), m=str(found),
                  titles=listed_titles(unused, found - len(used), language))


def _topic_points(findings: str, titles: dict[str, str], language: str) -> list[str]:
    """Topics whose findings, as the report shows them (:func:`engine.offline_text.shown_blocks`),
    cite one source only: at most two."""
    points = []
    for topic, lines in shown_blocks(findings):
        ids = {sid for line in lines for sid in SID.findall(line)}
        if len(ids) == 1:
            sid = ids.pop()
            points.append(phrase("single_source_topic", language, topic=_quote_text(topic, language, 80),
                                 title=_quote_text(source_title(titles.get(sid, sid), None, language), language, 60),
                                 sid=sid))
    return points[:2]


def _figure_point(claims: list[str], language: str) -> str | None:
    """Two claims from different sources that give different figures with the same unit and
    share three content words or more (they speak of the same thing)."""
    seen: list[tuple[str, str, str, str, set[str]]] = []
    for claim in claims:
        text, sid = _split(claim)
        topic = set(content_words(text, names=True))
        for number, unit in _FIGURE.findall(text):
            for other_text, other_sid, other_number, other_unit, other_topic in seen:
                if (other_sid != sid and other_unit == unit.lower() and other_number != number
                        and len(topic & other_topic) >= 3):
                    return phrase("numbers_differ", language, a=_quote(other_text, language, 100), sa=other_sid,
                                  b=_quote(text, language, 100), sb=sid)
            seen.append((text, sid, number, unit.lower(), topic))
    return None


def critique(prompt: str, sources: str, findings: str, language: str) -> str:
    """Numbered flaws of the solution, most important first: claims without a citation, code
    lines and sentences whose subject is lost (in the solution or the findings it draws on), the
    question's words no claim answers, the sources found and not used (counted, named), topics
    with one source, figures that disagree; one line saying so when there is none, and one that
    there is nothing to check when neither the solution nor the findings cite a source."""
    solution = tag_content(prompt, "Solution")
    claims = _cited_sentences(solution)
    finding_lines = [line for _, lines in _findings_blocks(findings) for line in lines]
    if not finding_lines and not any(SID.search(c) for c in claims):  # the report says so; no more to say
        return f"1. {phrase('nothing_to_check', language)}\n"
    points = []
    uncited = [c for c in claims if not SID.search(c)]
    if uncited:
        points.append(phrase("uncited", language, len(uncited), n=str(len(uncited)), example=_short(uncited[0], 120)))
    points += _flagged_points(list(dict.fromkeys([*claims, *finding_lines])), language)
    missing = unanswered(_question(prompt), claims, language)
    if missing:
        points.append(phrase("unanswered", language, terms=_terms(phrases(missing, _question(prompt), language), language)))
    points += [p for p in [_source_point(solution, sources, language)] if p]
    points += _topic_points(findings, found_sources(sources)[1], language)
    points += [p for p in [_figure_point([*claims, *finding_lines], language)] if p]
    points = points or [phrase("no_flaw", language)]
    return "\n".join(f"{i}. {p}" for i, p in enumerate(points, 1)) + "\n"


def perspective(prompt: str, findings: str, language: str) -> str:
    """The asker's objections: findings ranked high for the question that the solution leaves
    out (quoted, with their source), each about the topic it was found for (:func:`about_topic`),
    and the question's words it does not answer."""
    from engine.offline import rank

    question = _question(prompt)
    claims = _cited_sentences(tag_content(prompt, "Solution"))
    have = {_split(c)[0] for c in claims}
    candidates = [line for topic, lines in _findings_blocks(findings) for line in lines
                  if _split(line)[0] not in have and _split(line)[1] and not flaw(_split(line)[0])
                  and about_topic(line, topic, lines, language)]
    label = phrase("reader", language)
    lines = ["- " + phrase("role_says", language, role=label, text=phrase(
                 "left_out", language, q=_quote(_split(c)[0], language, 160), sid=_split(c)[1]))
             for c in rank(list(dict.fromkeys(candidates)), question, 2, language)]
    missing = unanswered(question, claims, language)
    if missing:
        lines.append("- " + phrase("role_says", language, role=label,
                                   text=phrase("not_addressed", language,
                                               terms=_terms(phrases(missing, question, language), language))))
    return phrase("reader_intro", language) + "\n\n" + ("\n".join(lines) or phrase("none", language)) + "\n"


def about_topic(line: str, topic: str, block: list[str], language: str) -> bool:
    """True when the finding ``line`` (cited) is about ``topic``, the topic whose findings ``block`` (cited
    lines) hold it: it names a word of the topic (stemmed, :func:`engine.offline_terms.query_terms`)
    that some source of the block names and another does not. A word every source of the block names
    ("asyncio", "Tasks" in a corpus of asyncio pages) tells nothing of what a line is about: "Using
    asyncio.Queue to distribute workload between several Tasks." is not about "How does asyncio cancel
    tasks". True when no word of the topic tells the block's sources apart (one source, or each names
    the same words)."""
    carried: dict[str, set[str]] = {}
    for other in block:
        for sid in SID.findall(other) or [""]:
            carried.setdefault(sid, set()).update(terms(SID.sub("", other), language))
    telling = {t for t in query_terms(topic, language)
               if any(t in seen for seen in carried.values()) and not all(t in seen for seen in carried.values())}
    return not telling or bool(telling & set(terms(SID.sub("", line), language)))


def _revise(prompt: str, report_claims: list[str], language: str) -> tuple[list[str], list[str]]:
    """Round 2 and later: the previous solution's claims without the flagged ones, plus the findings
    the previous perspective named as left out; and the "Changes" lines saying so."""
    previous = [c for c in _cited_sentences(tag_content(prompt, "Previous solution")) if SID.search(c)]
    dropped = [c for c in previous if flaw(_split(c)[0])]
    kept = [c for c in previous if c not in dropped]
    added = []
    for quoted in _QUOTED.findall(tag_content(prompt, "Previous perspective")):
        start = _unquoted(quoted.rstrip("…").strip())  # quoted as written, its quotations nested
        match = next((c for c in report_claims if _unquoted(_split(c)[0]).startswith(start) and c not in kept), None)
        if match and match not in added:
            added.append(match)
    changes = []
    if dropped:
        changes.append(phrase("dropped_claims", language, len(dropped), n=str(len(dropped)),
                              quotes=phrase("list_separator", language).join(_quote(_split(c)[0], language, 80)
                                                                             for c in dropped)))
    if added:
        changes.append(phrase("added_findings", language, len(added), n=str(len(added)),
                              quotes=phrase("list_separator", language).join(_quote(_split(c)[0], language, 80)
                                                                             for c in added)))
    if not changes:  # the previous round raised something, or nothing at all: said as it was
        raised = _raised(prompt, language)
        changes = [phrase("nothing_changed_raised", language, c=str(raised[0]), p=str(raised[1])) if any(raised)
                   else phrase("nothing_changed", language)]
    return kept + added, changes


def _first_claims(report: str, readable: list[str], question: str, language: str) -> list[str]:
    """Round 1's claims, at most :data:`SOLUTION_CLAIMS`: the best of each of the report's sections
    (its "## " headings: one a sub-question, so every listed thing of the question is answered
    however much the claims on another outrank it for the whole question: "How do dataclasses, enums
    and typing protocols work together?" once quoted protocols alone), then the rest of ``readable``
    by rank (:func:`engine.offline_select.rank`), each once, in rank order."""
    from engine.offline import rank

    picked: list[str] = []
    for section in re.split(r"^## ", report, flags=re.MULTILINE)[1:]:
        own = [c for c in _cited_sentences(section) if c in readable and c not in picked]
        picked += rank(own, question, 1, language)
    picked = rank(picked[:SOLUTION_CLAIMS], question, SOLUTION_CLAIMS, language)
    rest = [c for c in rank(readable, question, SOLUTION_CLAIMS, language) if c not in picked]
    return picked + rest[: SOLUTION_CLAIMS - len(picked)]


#: Claims of a round-1 solution: three as its recommendation, the rest as its reasons.
SOLUTION_CLAIMS = 6


def _raised(prompt: str, language: str) -> tuple[int, int]:
    """``(points, objections)`` the previous round raised: its critique's numbered points (not the one
    saying it found no flaw, nor that the solution uses every source found) and its perspective's
    objection lines."""
    points = [re.sub(r"^\d+\.\s*", "", ln.strip()) for ln in tag_content(prompt, "Previous critique").splitlines()
              if re.match(r"^\d+\.\s", ln.strip())]
    objections = [ln for ln in tag_content(prompt, "Previous perspective").splitlines() if ln.strip().startswith("- ")]
    return len([p for p in points if not reads_as(p, ("no_flaw", "all_sources_used"), language)]), len(objections)


def solution(prompt: str, language: str) -> str:
    """Round 1: a recommendation from the report's cited claims (:func:`_first_claims`; code lines and
    sentences whose subject is lost left out); later rounds revise it (:func:`_revise`) and say how."""
    report_claims = list(dict.fromkeys(_cited_sentences(tag_content(prompt, "Research Report"))))
    # a finding cites its source; the report's own notes ("5 sources found; none had ...") are not findings
    readable = [c for c in report_claims if SID.search(c) and not flaw(_split(c)[0])]
    out = []
    if tag_content(prompt, "Previous solution"):
        top, changes = _revise(prompt, readable, language)
        out += [f"## {phrase('changes', language)}", "", *[f"- {c}" for c in changes], ""]
    else:
        top = _first_claims(tag_content(prompt, "Research Report"), readable, _question(prompt), language)
    out += [f"## {phrase('recommendation', language)}", ""]
    out += [f"- {s}" for s in top[:3]] or [phrase("no_claims", language)]  # found or not, none is quoted
    if top[3:]:
        out += ["", f"## {phrase('reasons', language)}", ""] + [f"- {s}" for s in top[3:]]
    return "\n".join(out) + "\n"


def reads_as(point: str, keys: tuple[str, ...], language: str) -> bool:
    """True when ``point`` reads as one of the phrases ``keys`` of ``language`` whole, whatever fills
    its blanks."""
    return any(phrase_fields(point, key, language) is not None for key in keys)




def phrase_fields(point: str, key: str, language: str) -> dict[str, str] | None:
    """The blanks of the phrase ``key`` of ``language`` as ``point`` fills them (``{"q": "“…”", ...}``),
    None when ``point`` does not read as that phrase (in either form of a pair)."""
    lang = language if language in PHRASES[key] else "en"
    forms = PHRASES[key][lang]
    for template in forms if isinstance(forms, tuple) else (forms,):
        m = _template_pattern(template).fullmatch(point.strip())
        if m:
            return m.groupdict()
    return None




@functools.cache
def _template_pattern(template: str) -> re.Pattern:
    """The pattern a phrase template (:meth:`str.format`) reads its filled text with: each blank a named
    group, a blank written twice the same text both times."""
    seen: set[str] = set()

    def blank(m: re.Match) -> str:
        name = m.group(1)
        if name in seen:
            return f"(?P={name})"
        seen.add(name)
        return f"(?P<{name}>.+?)"

    return re.compile(re.sub(r"\\\{(\w+)\\\}", blank, re.escape(template)), re.DOTALL)
