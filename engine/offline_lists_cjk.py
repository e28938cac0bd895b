"""How the offline model finds the items of a Chinese, Japanese or Korean question that lists things
(:func:`cjk_items`, :func:`korean_clauses`), for :func:`engine.offline_lists.listed_topics`.

A list of things ("ヒートポンプとガスボイラーの効率", "线程、多进程和asyncio") is one sub-question per
item. Clauses joined by a continuative form ("タスクをキャンセルし、タイムアウトを処理しますか",
"작업을 취소하고, 타임아웃을 처리합니까") are no list: each becomes a whole question when its verb can
take the last one's ending, and the question stays whole otherwise; a clause is never spliced onto
another's ending.
"""

from __future__ import annotations

import re

from engine.language import FUNCTION_WORDS
from engine.offline_list_items import asks_only_to_compare
from engine.segments import word_tokens

#: Verbs that open a Chinese alternative and ask which to choose ("用A还是B", "选择A还是B": use, choose):
#: the words the items share before them.
CJK_CHOOSE_VERBS = frozenset("用 选 選 选择 選擇 选用 選用 使用 挑".split())

#: Words that open what a Chinese question asks right after its last item when it asks which of the
#: items is better ("A还是B比较好", "A和B哪个更好": better, more, which): the items are then
#: researched alone, as "A or B, which is better?" is.
CJK_WHICH_BETTER = frozenset("比较 比較 较 較 更 更好 更快 更高 较好 較好 好 哪个 哪個 哪种 哪種 哪 哪一个 哪一個".split())

#: A conjunction that joins the last item of a Chinese or Japanese list ("A、B和C", "AとB"), or of
#: an alternative ("A或B", "A还是B", "AまたはB"), as a word of its own
#: (:func:`engine.segments.word_tokens`; "和" in "和平", "或" in "或许" is none).
_CJK_AND = frozenset("和 与 與 及 以及 跟 同 或 或者 或是 还是 還是 と や および 及び または".split())
#: A word of hiragana alone: a Japanese particle or ending ("は", "の"), never a listed item.
_HIRAGANA = re.compile(r"[\u3040-\u309f]+")
#: Characters that end a listed item of a Chinese question and start what is asked of it ("…的效率").
_CJK_LINKS = frozenset("的 之 有 是 在 都".split())
#: Words that join a modifier to the noun it modifies ("ヒートポンプの|運転コスト", "热泵的|运行成本"):
#: a listed item that holds one between two words is a whole phrase with a head noun of its own.
_CJK_OF = frozenset("の 的 之".split())
#: Japanese particles that mark a verb's object or subject ("タスクを", "ファイルが"): a part of a list
#: that holds one is a clause with a verb of its own, not a listed thing.
_JA_CASE = frozenset("を が".split())
#: Japanese question words that follow a question's topic ("asyncioは|どのように"), shared by each of
#: its clauses.
_JA_ASKING = ("どのように", "どうやって", "どうして", "どう", "なぜ", "いかに", "いつ", "どこで")
#: Chinese question words ("asyncio如何|取消任务"): a part of a list that holds one with words after
#: it is a clause of its own ("如何取消任务和处理超时"), whose items cannot be told from verbs.
_ZH_ASKING = frozenset("如何 怎么 怎麼 怎样 怎樣 为什么 為什麼 是否 能否 为何 為何".split())
#: Korean continuative endings ("취소하고", "처리하며", "멈추고", "읽어서"): a part that ends with one
#: is a clause joined to the next.
_KO_CONTINUATIVE = re.compile(r"(?:고|며|면서|서|지만)$")
#: A Korean verb of "하다" that a continuative form ("취소하고") shares its ending with: the last
#: clause's "합니까", "하나요", "해요" from its "하" syllable.
_KO_HADA_ENDING = re.compile(r"[하합해할한][^\s]*$")
_HANGUL = re.compile(r"[\uac00-\ud7a3]")
#: A Japanese "which one" after the items' topic ("AとBは|どちらが安いですか", "どっちが", "どれが" of
#: three or more, "どちらの方が"), and what it asks.
_JA_WHICH = re.compile(r"^は(?:どちらの方|どっちの方|どちら|どっち|どれ)が(.+)$")
#: What a Japanese "which one" asks when it asks only which to take (better, recommended): the items
#: are then researched alone, as "Which is better, A or B?" is.
_JA_BETTER = ("良い", "よい", "いい", "良く", "よく", "おすすめ", "お勧め", "お薦め", "ベター", "好まし")


def _word_spans(text: str) -> list[tuple[str, int, int]]:
    """``(word, start, end)`` of each word of ``text`` (:func:`engine.segments.word_tokens`)."""
    out, at = [], 0
    for word in word_tokens(text):
        start = text.find(word, at)
        out.append((word, start, start + len(word)))
        at = start + len(word)
    return out


def _clause_chain(segments: list[str]) -> list[str] | None:
    """The whole questions of ``segments`` (a Chinese or Japanese text cut at "、" and conjunctions)
    when they are clauses, not listed things: a part before the last that holds a Japanese object or
    subject particle (:data:`_JA_CASE`) or ends with a kana ending ("キャンセルし", "止めて"), or holds
    a Chinese question word followed by more words (:data:`_ZH_ASKING`). Japanese clauses whose verbs
    end in "し" or "して" take the last clause's "-ます" ending, after the first one's topic and question
    word (:func:`_ja_head`): "asyncioはどのようにタスクをキャンセルし、タイムアウトを処理しますか" gives
    "asyncioはどのようにタスクをキャンセルしますか" and "asyncioはどのようにタイムアウトを処理しますか".
    [] (the question researched whole) for clauses that cannot be rebuilt so; None when ``segments``
    list things."""
    words = [word_tokens(s) for s in segments]
    clauses = [
        w
        for w in words[:-1]
        if _JA_CASE.intersection(w)
        or (w and _HIRAGANA.fullmatch(w[-1]))
        or any(x in _ZH_ASKING for x in w[:-1])
    ]
    if not clauses:
        return None
    last = segments[-1]
    masu = last.rfind("ます")
    if masu < 0 or not all(s.endswith(("し", "して")) for s in segments[:-1]):
        return []
    head = _ja_head(segments[0])
    out = []
    for seg in segments[:-1]:
        body = seg[len(head) :] if seg.startswith(head) else seg
        out.append(f"{head}{body.removesuffix('て')}{last[masu:]}")
    out.append(last if last.startswith(head) or "は" in word_tokens(last) else f"{head}{last}")
    return out


def _ja_head(clause: str) -> str:
    """The topic of a Japanese ``clause`` up to its "は", with the question word right after it
    ("asyncioは", "asyncioはどのように"); "" when it has no topic."""
    at = next((e for w, _, e in _word_spans(clause) if w == "は"), -1)
    if at < 0:
        return ""
    asking = next((a for a in _JA_ASKING if clause.startswith(a, at)), "")
    return clause[: at + len(asking)]


def _ends_item(word: str) -> bool:
    """True when ``word`` (of :func:`engine.segments.word_tokens`) ends the last item of a Chinese or
    Japanese list and starts what is asked of it: a link (:data:`_CJK_LINKS`: "的"), a word asking
    which is better (:data:`CJK_WHICH_BETTER`), a function word ("怎么") or a Japanese particle or
    ending in hiragana ("の", "は")."""
    return bool(
        word in _CJK_LINKS
        or word in CJK_WHICH_BETTER
        or word.lower() in FUNCTION_WORDS
        or _HIRAGANA.fullmatch(word)
    )


def _whole_phrase(item: str) -> bool:
    """True when ``item`` (one listed item of a Chinese or Japanese list) is a whole noun phrase with
    its own head noun: a modifier joined to it by "の", "的" or "之" (:data:`_CJK_OF`), with words on
    both sides ("ヒートポンプの運転コスト", "热泵的运行成本"); False for a bare noun ("ヒートポンプ")."""
    words = word_tokens(item)
    return any(w in _CJK_OF for w in words[1:-1])


def _own_head_end(spans: list[tuple[str, int, int]], tail_at: int, end: int) -> int:
    """Where the last item of a list whose other items are whole phrases (:func:`_whole_phrase`) ends,
    ``spans`` being the question's words (:func:`_word_spans`) and ``tail_at`` where the item would
    end before its "の", "的" or "之" (:data:`_CJK_OF`): past that link and the head noun after it,
    at the next word that ends an item (:func:`_ends_item`), or ``end``. The head noun is then the
    last item's own ("メーカーの保証" of "ヒートポンプの運転コストとメーカーの保証は"), not shared by
    items that have one each. ``tail_at`` when no link and head noun follow there."""
    at = next((k for k, (_, s, _) in enumerate(spans) if s == tail_at), None)
    if at is None or spans[at][0] not in _CJK_OF or at + 1 >= len(spans) or _ends_item(spans[at + 1][0]):
        return tail_at
    return next((s for w, s, _ in spans[at + 1 :] if _ends_item(w)), end)


def cjk_items(text: str) -> list[str] | None:
    """One topic per item of a Chinese or Japanese list ("线程、多进程和asyncio有什么区别" gives "线程",
    "多进程", "asyncio"; "热泵和燃气锅炉的效率如何" gives "热泵的效率如何", "燃气锅炉的效率如何"): items
    part at "、" and at a conjunction (:data:`_CJK_AND`); the last ends at its first particle or
    function word, and what follows it is asked of each; when every other item is a whole phrase
    with a head noun of its own (:func:`_whole_phrase`), the last keeps its own head noun too
    ("ヒートポンプの運転コストとメーカーの保証は" gives "ヒートポンプの運転コストは", "メーカーの保証は":
    :func:`_own_head_end`). A question that asks which item is better
    right after the last one ("用Postgres还是MySQL比较好", "A和B哪个更好": :data:`CJK_WHICH_BETTER`)
    gives the items alone, without the verb that opens it (:data:`CJK_CHOOSE_VERBS`), as
    "Postgres or MySQL, which is better?" does. A Japanese "which one" after the items' topic
    (:data:`_JA_WHICH`: "電気自動車とハイブリッド車はどちらが安いですか") asks what it asks of each item
    ("電気自動車は安いですか"), or gives the items alone when it asks which is better (:data:`_JA_BETTER`).
    Clauses joined so are whole questions or none
    (:func:`_clause_chain`). None when ``text`` lists nothing."""
    from engine.offline_terms import QUESTION_VERBS
    from engine.offline_text import _ENDS

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
    chain = _clause_chain(segments)
    if chain is not None:
        return chain
    last_start = cuts[-1][1] + len(text[cuts[-1][1] :]) - len(text[cuts[-1][1] :].lstrip())
    tail_at = next((s for w, s, _ in spans if s > last_start and _ends_item(w)), len(text))
    first_words = [w for w, s, _ in spans if s < cuts[0][0]]
    lead = next((i for i, w in enumerate(first_words) if w not in QUESTION_VERBS | CJK_CHOOSE_VERBS), 0)
    prefix = "".join(first_words[:lead])
    items = [segments[0][len(prefix) :].strip(), *segments[1:-1]]
    if items and all(_whole_phrase(item) for item in items):  # "ヒートポンプの運転コストとメーカーの|保証は"
        tail_at = _own_head_end(spans, tail_at, len(text))
    items.append(text[last_start:tail_at].strip())
    tail = text[tail_at:]
    if not all(items):
        return None
    if which := _JA_WHICH.match(tail):  # "電気自動車とハイブリッド車は|どちらが安いですか"
        asked = which.group(1)
        return items if asked.startswith(_JA_BETTER) else [f"{item}は{asked}" for item in items]
    which_better = next((w for w, s, _ in spans if s >= tail_at), "") in CJK_WHICH_BETTER
    if which_better or asks_only_to_compare(f"{prefix} {' '.join(word_tokens(tail))}"):
        return items
    return [f"{prefix}{item}{tail}" for item in items]


def korean_clauses(parts: list[str]) -> list[str] | None:
    """``parts`` (a Korean question's clauses, cut at commas and joins) with each clause that ends in
    a continuative form (:data:`_KO_CONTINUATIVE`) given the last clause's ending: a verb of "하다"
    ("취소하고") takes the last one's "합니까" ("취소합니까", :data:`_KO_HADA_ENDING`). ``parts`` as they
    are when none so ends or they are not Korean; None when a clause ends in a form whose stem cannot
    take the ending ("멈추고"): the question is then researched whole."""
    if not _HANGUL.search(" ".join(parts)):
        return parts
    ending = _KO_HADA_ENDING.search(parts[-1].split()[-1]) if parts[-1].split() else None
    out = []
    for part in parts[:-1]:
        last = part.split()[-1] if part.split() else ""
        if not _KO_CONTINUATIVE.search(last):
            out.append(part)
        elif ending and re.search(r"하(?:고|며|면서)$", last):
            out.append(re.sub(r"하(?:고|며|면서)$", ending.group(0), part))
        else:
            return None
    return [*out, parts[-1]]
