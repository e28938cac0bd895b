"""How the offline model finds the items of a question that lists things, for one sub-question each.

"A, B and C" (also "A und B", "A et B", "A y B", "A、B和C") is one sub-question per item, in the words
around the list (:func:`listed_topics`). Quoted text, code and anything in brackets is masked first
and never split (:data:`_SPAN`, :data:`_CODE_SPAN`); a later item that leaves out the first one's noun
gets it back (:func:`_with_shared_noun`); a clause that opens with a preposition qualifies the one
before it (:data:`_QUALIFIER_OPENERS`).
"""

from __future__ import annotations

import re

from engine.language import _CODE, FUNCTION_WORDS, has_segmented_script, is_function_word, word_tokens
from engine.offline_text import _ENDS, _INTERROGATIVES, STOPWORDS, content_words

#: Where a brief's list of items splits, never inside brackets or parentheses ("the interval [0, 1]").
_CLAUSE = re.compile(r"(;|\n|,| and | und | et | y | vs\.? | versus )(?![^\[\](){}]*[\])}])")
#: Quoted text and code in a brief, each kept whole when it is split: "…", '…', `…`, “…”, „…“, «…»,
#: ‹…›, 「…」, 『…』 (an apostrophe inside a word, "doesn't", "l'énergie", opens none).
_SPAN = re.compile(
    r"(`+).+?\1|\"[^\"]*\"|“[^”]*”|„[^“”]*[“”]|«[^»]*»|‹[^›]*›|「[^」]*」|『[^』]*』|(?<!\w)'[^']+'(?!\w)"
)
#: A group in brackets or parentheses, one level of nesting inside ("(a, b)", "[0, 1]", "([a, b], axis=0)").
_GROUP = r"[(\[{][^()\[\]{}]*(?:[(\[{][^()\[\]{}]*[)\]}][^()\[\]{}]*)*[)\]}]"
#: Code in a brief, kept whole like quoted text: an identifier (:data:`engine.language._CODE`:
#: "os.path.join", "snake_case") with the group that follows it, and any name or nothing followed by a
#: group ("f(x, y)", "dict[str, int]", "(a, b)").
_CODE_SPAN = re.compile(rf"(?:{_CODE.pattern})(?:{_GROUP})?|\w*{_GROUP}", re.DOTALL)
#: What stands for the n-th span of :data:`_SPAN` while a brief is split: one word, no separator.
_HOLE = re.compile(r"qqspan(\d+)qq")


def listed_topics(text: str, language: str = "en") -> list[str]:
    """The sub-questions of ``text`` (one brief, the thread's talk already cut off) when it asks
    about several things: one per clause or listed item (:func:`_questions`, :func:`_group_topics`;
    :func:`_cjk_items` in Chinese or Japanese), quoted text and code restored whole, each once, in
    order; fewer than two when it asks about one thing."""
    spans: list[str] = []

    def hole(m: re.Match) -> str:
        spans.append(m.group(0))
        return f"qqspan{len(spans) - 1}qq"

    masked = _CODE_SPAN.sub(hole, _SPAN.sub(hole, text))
    found = _cjk_items(masked) if has_segmented_script(masked) else None
    topics = found or [t for group in _questions(masked) for t in _group_topics(group, language)]
    return list(dict.fromkeys(_HOLE.sub(lambda m: spans[int(m.group(1))], t) for t in topics))


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

    return not [
        w
        for w in content_words(frame)
        if (w not in QUESTION_VERBS or w in _ASKS_OF_EACH) and not _HOLE.fullmatch(w)
    ]


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
    cuts = sorted(
        [(m.start(), m.end()) for m in re.finditer("、", text)]
        + [(s, e) for w, s, e in spans if w in _CJK_AND]
    )
    if not cuts:
        return None
    bounds = [0, *[c for cut in cuts for c in cut], len(text)]
    segments = [text[bounds[i] : bounds[i + 1]].strip() for i in range(0, len(bounds), 2)]
    if not all(segments):
        return None
    last_start = cuts[-1][1] + len(text[cuts[-1][1] :]) - len(text[cuts[-1][1] :].lstrip())
    tail_at = next(
        (
            s
            for w, s, _ in spans
            if s > last_start and (w in _CJK_LINKS or w.lower() in FUNCTION_WORDS or _HIRAGANA.fullmatch(w))
        ),
        len(text),
    )
    tail = text[tail_at:]
    first_words = [w for w, s, _ in spans if s < cuts[0][0]]
    lead = next((i for i, w in enumerate(first_words) if w not in QUESTION_VERBS), 0)
    prefix = "".join(first_words[:lead])
    items = [segments[0][len(prefix) :].strip(), *segments[1:-1], text[last_start:tail_at].strip()]
    if not all(items):
        return None
    if _asks_only_to_compare(f"{prefix} {' '.join(word_tokens(tail))}"):
        return items
    return [f"{prefix}{item}{tail}" for item in items]


#: Words that open a qualifier of the clause before ("…, for Python developers"), not a topic.
_QUALIFIER_OPENERS = frozenset(
    "for from to with without within about regarding für mit ohne pour avec sans para con sin".split()
)
#: Prepositions that end a phrase a list's items share ("what are blades and towers made of").
_PREPOSITIONS = frozenset(
    """of for in on about with from to by as von für bei aus mit zu über de des du pour sur par avec
    à del para en con por""".split()
)


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
    if (
        language not in _NOUN_ELLIPSIS
        or len(first) != 3
        or not _opens_noun_phrase(items[0])
        or is_function_word(first[2])
    ):
        return items
    return [
        [i[0], items[0][1], i[1]]
        if len(i) == 2 and i[0].lower() == first[0] and not is_function_word(i[1].lower())
        else i
        for i in items
    ]


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
    start = next(
        (i for i in range(len(first) - 1, 0, -1) if first[i].lower() == opener),
        len(first) - 1
        if opener and elided and is_function_word(elided.group(1).lower())
        else len(first) - size,
    )
    if start < 0:
        return None
    prefix, item = first[:start], first[start:]
    own_phrase = any(w.lower() in _PREPOSITIONS for w in item[1:])
    last = later[-1] if own_phrase else later[-1][:size]
    tail = [] if own_phrase else later[-1][size:]
    items = [item, *later[:-1], last]
    if (
        tail
        and tail[-1].lower() not in _PREPOSITIONS
        and tail[0].lower() not in QUESTION_VERBS
        and all(_opens_noun_phrase(i) for i in items)
    ):
        items[-1], tail = later[-1], []  # "le café infusé à froid": the last item's own words
    items = _with_shared_noun(items, language)
    shared = (
        not tail
        or tail[0].lower() in _PREPOSITIONS
        or tail[-1].lower() in _PREPOSITIONS
        or tail[0].lower() in QUESTION_VERBS
    )
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
