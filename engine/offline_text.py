"""Extractive composition used by the offline model: topics, reports, the claims review roles read.

Its fixed phrases per language are in :mod:`engine.offline_phrases`.
"""

from __future__ import annotations

import re

from engine.citations import SID
from engine.language import (
    _CODE,
    FUNCTION_WORDS,
    detect_language,
    has_segmented_script,
    is_function_word,
    sentences,
    word_tokens,
    words,
)
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
_CLAUSE = re.compile(r"(;|\n|,| and | und | et | y | vs\.? | versus )(?![^\[\](){}]*[\])}])")
#: Quoted text and code in a brief, each kept whole when it is split: "…", '…', `…`, “…”, „…“, «…»,
#: ‹…›, 「…」, 『…』 (an apostrophe inside a word, "doesn't", "l'énergie", opens none).
_SPAN = re.compile(r"(`+).+?\1|\"[^\"]*\"|“[^”]*”|„[^“”]*[“”]|«[^»]*»|‹[^›]*›|「[^」]*」|『[^』]*』|(?<!\w)'[^']+'(?!\w)")
#: A group in brackets or parentheses, one level of nesting inside ("(a, b)", "[0, 1]", "([a, b], axis=0)").
_GROUP = r"[(\[{][^()\[\]{}]*(?:[(\[{][^()\[\]{}]*[)\]}][^()\[\]{}]*)*[)\]}]"
#: Code in a brief, kept whole like quoted text: an identifier (:data:`engine.language._CODE`:
#: "os.path.join", "snake_case") with the group that follows it, and any name or nothing followed by a
#: group ("f(x, y)", "dict[str, int]", "(a, b)").
_CODE_SPAN = re.compile(rf"(?:{_CODE.pattern})(?:{_GROUP})?|\w*{_GROUP}", re.DOTALL)
#: What stands for the n-th span of :data:`_SPAN` while a brief is split: one word, no separator.
_HOLE = re.compile(r"qqspan(\d+)qq")
#: Words that open a question of its own after "and" or a comma ("…, and how loud is it?").
_INTERROGATIVES = frozenset("""how what which why when where who wie was welche welcher welches welchen warum wann wo
    wer weshalb comment quel quelle quels quelles pourquoi quand où qué cómo cuánto cuánta cuántos cuántas cuál
    cuáles dónde cuándo quién""".split())
#: The end and opening punctuation a sub-question is written without.
_ENDS = " .?!¿¡？！。"


def plan_topics(brief: str, limit: int, language: str = "en") -> list[str]:
    """Split a brief into research topics: its clauses when it lists several items, else facets.

    A brief like "Compare A; B; C" gives one topic per clause; "A, B and C" (also "A und B", "A et
    B", "A y B", "A、B和C") one per listed item, in the words around the list
    (:func:`_items_listed`: "What are the costs, risks and benefits of solar panels" gives "What
    are the risks of solar panels"), the item alone when those words only ask to compare them; a
    short later clause of a question continues its head ("How does asyncio cancel tasks and handle
    timeouts" gives "How does asyncio handle timeouts"), and one that opens with a question word
    ("…, and how loud is it") is a question of its own. Quoted text (:data:`_SPAN`), code and
    anything in brackets or parentheses (:data:`_CODE_SPAN`) are never split. A single-subject brief gives itself plus two facets of its subject (:func:`facet_topics`).
    """
    text = " ".join(brief.split()).split(BACKGROUND.strip())[0].strip(" —")  # the thread's talk is no topic
    spans: list[str] = []

    def hole(m: re.Match) -> str:
        spans.append(m.group(0))
        return f"qqspan{len(spans) - 1}qq"

    masked = _CODE_SPAN.sub(hole, _SPAN.sub(hole, text))
    found = _cjk_items(masked) if has_segmented_script(masked) else None
    topics = found or [t for group in _questions(masked) for t in _group_topics(group, language)]
    if len(topics) >= 2:
        topics = [_HOLE.sub(lambda m: spans[int(m.group(1))], t) for t in topics]
        return list(dict.fromkeys(topics))[:limit]
    return [text, *facet_topics(text.split(" — ")[0], language)][: max(1, min(limit, 3))]


def _questions(text: str) -> list[list[str]]:
    """The clauses of ``text`` (:data:`_CLAUSE`), grouped into the questions it asks: a clause after a
    semicolon or a line break, or one that opens with a question word (:data:`_INTERROGATIVES`),
    starts a question; the others continue the one before (its list, or its head)."""
    pieces = _CLAUSE.split(text)
    groups: list[list[str]] = []
    new = True
    for i, piece in enumerate(pieces):
        if i % 2:  # a separator
            new = new or piece in (";", "\n")
            continue
        part = piece.strip(_ENDS)
        if not part or not content_words(part):
            continue
        if groups and part.split()[0].lower() in _QUALIFIER_OPENERS and not new:
            groups[-1][-1] = f"{groups[-1][-1]}, {part}"
            continue
        if new or not groups or part.split()[0].lower() in _INTERROGATIVES:
            groups.append([part])
        else:
            groups[-1].append(part)
        new = False
    return groups


def _group_topics(parts: list[str], language: str = "en") -> list[str]:
    """The topics of one question's clauses: one per listed item (:func:`_items_listed`), else each
    clause, a short later one continuing the first one's head (:func:`_question_head`)."""
    if len(parts) < 2:
        return parts
    listed = _items_listed(parts, language)
    if listed:
        return listed
    head = _question_head(parts[0])

    def continued(p: str) -> str:  # "handle timeouts" -> "How does asyncio handle timeouts"
        return f"{head} {p}" if head and content_words(p.split()[0]) else p

    return [p if len(content_words(p)) >= 3 or i == 0 else continued(p) for i, p in enumerate(parts)]


#: Verbs that ask how to do something with each listed item ("How do I use A and B"), which each
#: sub-question keeps.
_ASKS_OF_EACH = frozenset("use uses used".split())


def _asks_only_to_compare(frame: str) -> bool:
    """True when the words around a list (``frame``) name nothing but the asking ("How do … compare",
    "Wie unterscheiden sich …", "…有什么区别"; not "How do I use …", :data:`_ASKS_OF_EACH`): each
    listed item is then a topic on its own."""
    from engine.offline_select import QUESTION_VERBS

    return not [w for w in content_words(frame) if (w not in QUESTION_VERBS or w in _ASKS_OF_EACH)
                and not _HOLE.fullmatch(w)]


#: A conjunction that joins the last item of a Chinese or Japanese list ("A、B和C", "AとB"), as a word
#: of its own (:func:`engine.language.word_tokens`; "和" in "和平" is none).
_CJK_AND = frozenset("和 与 與 及 以及 跟 同 と や および 及び".split())
#: A word of hiragana alone: a Japanese particle or ending ("は", "の"), never a listed item.
_HIRAGANA = re.compile(r"[\u3040-\u309f]+")
#: Characters that end a listed item of a Chinese question and start what is asked of it ("…的效率").
_CJK_LINKS = frozenset("的 之 有 是 在 都".split())


def _word_spans(text: str) -> list[tuple[str, int, int]]:
    """``(word, start, end)`` of each word of ``text`` (:func:`engine.language.word_tokens`)."""
    out, at = [], 0
    for word in word_tokens(text):
        start = text.find(word, at)
        out.append((word, start, start + len(word)))
        at = start + len(word)
    return out


def _cjk_items(text: str) -> list[str] | None:
    """One topic per item of a Chinese or Japanese list ("线程、多进程和asyncio有什么区别" gives "线程",
    "多进程", "asyncio"; "热泵和燃气锅炉的效率如何" gives "热泵的效率如何", "燃气锅炉的效率如何"): items
    part at "、" and at a conjunction (:data:`_CJK_AND`); the last ends at its first particle or
    function word, and what follows it is asked of each. None when ``text`` lists nothing."""
    from engine.offline_select import QUESTION_VERBS

    text = text.strip(_ENDS)
    spans = _word_spans(text)
    cuts = sorted([(m.start(), m.end()) for m in re.finditer("、", text)]
                  + [(s, e) for w, s, e in spans if w in _CJK_AND])
    if not cuts:
        return None
    bounds = [0, *[c for cut in cuts for c in cut], len(text)]
    segments = [text[bounds[i]:bounds[i + 1]].strip() for i in range(0, len(bounds), 2)]
    if not all(segments):
        return None
    last_start = cuts[-1][1] + len(text[cuts[-1][1]:]) - len(text[cuts[-1][1]:].lstrip())
    tail_at = next((s for w, s, _ in spans if s > last_start and (w in _CJK_LINKS or w.lower() in FUNCTION_WORDS
                                                                   or _HIRAGANA.fullmatch(w))), len(text))
    tail = text[tail_at:]
    first_words = [w for w, s, _ in spans if s < cuts[0][0]]
    lead = next((i for i, w in enumerate(first_words) if w not in QUESTION_VERBS), 0)
    prefix = "".join(first_words[:lead])
    items = [segments[0][len(prefix):].strip(), *segments[1:-1], text[last_start:tail_at].strip()]
    if not all(items):
        return None
    if _asks_only_to_compare(f"{prefix} {' '.join(word_tokens(tail))}"):
        return items
    return [f"{prefix}{item}{tail}" for item in items]


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

    tokens = question.strip(_ENDS).split()
    start = next((i for i, t in enumerate(tokens) if [w for w in words(t) if w not in STOPWORDS
                                                       and w not in QUESTION_VERBS]), len(tokens))
    kept = [t for t in tokens[start:] if not (words(t) and all(w in QUESTION_VERBS for w in words(t)))]
    subject = " ".join(kept) or question.strip()
    return subject[:1].upper() + subject[1:]


#: Words that make a Chinese or Japanese text a question ("吗", "如何", "か", "どのくらい").
_CJK_QUESTION = frozenset("吗 嗎 呢 如何 什么 什麼 怎么 怎麼 怎样 怎樣 哪些 哪个 哪個 多少 为什么 為什麼 か どう どの どのくらい "
                          "どのように なぜ 何".split())


def _asks_of_a_clause(question: str) -> bool:
    """True when ``question`` asks of a clause rather than of a subject: its question word is followed
    by a word of its own that is no verb asking how ("What efficiency do…", "¿Cuánto cuesta…", but
    not "How does…" or "¿Cómo funciona…"), or it is a Chinese or Japanese question (:data:`_CJK_QUESTION`
    or a question mark)."""
    from engine.offline_select import QUESTION_VERBS

    if has_segmented_script(question):
        return question.rstrip().endswith(("?", "？")) or any(w in _CJK_QUESTION for w in word_tokens(question))
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
    from engine.offline_select import terms

    stems = terms(question, language)
    subject = subject_phrase(question)
    if any(w in _AUXILIARIES for w in words(subject)) or _asks_of_a_clause(question):
        return []  # a clause: the question is its own one topic
    chosen = [key for key, asked in FACETS if not any(s.startswith(asked) for s in stems)]
    return [f"{subject} — {phrase(key, language)}" for key in chosen[:2]]


#: Words that open a qualifier of the clause before ("…, for Python developers"), not a topic.
_QUALIFIER_OPENERS = frozenset("for from to with without within about regarding für mit ohne pour avec sans para con sin".split())
#: Prepositions that end a phrase a list's items share ("what are blades and towers made of").
_PREPOSITIONS = frozenset("""of for in on about with from to by as von für bei aus mit zu über de des du pour sur par avec
    à del para en con por""".split())


#: Languages whose lists leave out the noun an item shares with the first one ("la energía solar, la
#: eólica": "la energía eólica"), an adjective following its noun.
_NOUN_ELLIPSIS = frozenset("es fr it pt ca".split())
#: A word that opens with an elided article or preposition ("l'espresso", "d'eau", "dell'acqua").
_ELIDED = re.compile(r"(\w+)['’]\w")


def _opens_noun_phrase(item: list[str]) -> bool:
    """True when ``item`` (its words) is a noun phrase of its own: an article or other function word
    and then a word that is none ("le café filtre"), or a word with an elided article ("l'espresso")."""
    elided = _ELIDED.match(item[0])
    if elided:
        return is_function_word(elided.group(1).lower())
    return len(item) >= 2 and is_function_word(item[0].lower()) and not is_function_word(item[1].lower())


def _with_shared_noun(items: list[list[str]], language: str) -> list[list[str]]:
    """``items`` with the noun of the first item given back to a later one that leaves it out, in a
    language whose adjectives follow their noun (:data:`_NOUN_ELLIPSIS`): after "la energía solar"
    (article, noun, one word), "la eólica" (the same article, one word) is "la energía eólica"."""
    first = [w.lower() for w in items[0]]
    if language not in _NOUN_ELLIPSIS or len(first) != 3 or not _opens_noun_phrase(items[0]) \
            or is_function_word(first[2]):
        return items
    return [[i[0], items[0][1], i[1]] if len(i) == 2 and i[0].lower() == first[0] and not is_function_word(i[1].lower())
            else i for i in items]


def _items_listed(parts: list[str], language: str = "en") -> list[str] | None:
    """Whole questions for a question that lists items ("What are the costs, risks and benefits of
    solar panels": each item in the first clause's place, with the phrase the last one carries: one
    that opens with a preposition, ends with one ("… made of") or opens with a verb that asks how
    ("… compare", "… work in bash")); each item alone when the question only asks to compare them
    (:func:`_asks_only_to_compare`). An item is as long as the middle ones, or one word after the
    articles the second one opens with ("les threads et les processus"; "l'espresso" for "le"); a
    first item with a phrase of its own ("des pompes à chaleur") shares none, nor does a last one
    when every item is a noun phrase of its own (:func:`_opens_noun_phrase`: "le café infusé à
    froid") and its words do not end with a preposition or open with a verb that asks how. An item
    that leaves out the first one's noun gets it back (:func:`_with_shared_noun`). None when the
    later clauses are not items of a list (they are clauses of their own: "cancel tasks and handle
    timeouts")."""
    from engine.offline_select import QUESTION_VERBS

    first = parts[0].split()
    later = [p.split() for p in parts[1:]]
    lead = next((i for i, w in enumerate(later[0]) if not is_function_word(w.lower())), len(later[0]))
    sizes = {len(m) for m in later[:-1]}
    if len(sizes) > 1 or lead == len(later[0]):
        return None
    size = sizes.pop() if sizes else lead + 1
    opener = later[0][0].lower() if lead else ""
    elided = _ELIDED.match(first[-1])
    start = next((i for i in range(len(first) - 1, 0, -1) if first[i].lower() == opener),
                 len(first) - 1 if opener and elided and is_function_word(elided.group(1).lower())
                 else len(first) - size)
    if start < 0:
        return None
    prefix, item = first[:start], first[start:]
    own_phrase = any(w.lower() in _PREPOSITIONS for w in item[1:])
    last = later[-1] if own_phrase else later[-1][:size]
    tail = [] if own_phrase else later[-1][size:]
    items = [item, *later[:-1], last]
    if tail and tail[-1].lower() not in _PREPOSITIONS and tail[0].lower() not in QUESTION_VERBS \
            and all(_opens_noun_phrase(i) for i in items):
        items[-1], tail = later[-1], []  # "le café infusé à froid": the last item's own words
    items = _with_shared_noun(items, language)
    shared = (not tail or tail[0].lower() in _PREPOSITIONS or tail[-1].lower() in _PREPOSITIONS
              or tail[0].lower() in QUESTION_VERBS)
    if not shared or not all(any(ch.isalpha() for ch in " ".join(i)) for i in items):
        return None

    # a participle lists with participles ("compressed and encrypted"), not nouns
    if len({i[-1].lower().endswith("ed") for i in items}) > 1:
        return None
    if _asks_only_to_compare(" ".join(prefix + tail)):
        return [" ".join(i) for i in items]
    return [" ".join([*prefix, *i, *tail]) for i in items]


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
    the topic it answers best (:func:`engine.offline_select.answers`, stemmed in the topics'
    language), of those that found it the first on a tie; a topic with no line of its own keeps an
    empty list (the report names it as having nothing more to quote)."""
    from engine.offline_select import answers

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
            found = {j for j, (_, other) in enumerate(blocks)
                     if any(" ".join(words(SID.sub("", ln))) == key for ln in other)}
            best = max(range(len(topics)), key=lambda j: (scores[j], j in found, -j))
            out[best][1].append(line)
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
