"""Numbers listed as items, for :func:`engine.offline_lists.listed_topics`: how a list writes one
(:data:`NUMERAL`: "12,000", "1.000", ".5", "5%", "1-year", "seven"), and the unit or noun written
once after the last of them, which is every number's (:func:`sharing_the_unit`: "2.5 or 3.5 inch":
"2.5 inch" and "3.5 inch"; "a 1-year or 2-year plan": "a 1-year plan" and "a 2-year plan").
"""

from __future__ import annotations

import re

from engine.offline_list_words import ARTICLES, NUMBER, NUMBERS
from engine.offline_list_words import function_word as _function

#: A number in digits as a list writes it: with a thousands separator or a decimal mark
#: (:data:`engine.offline_list_words.NUMBER`: "12,000", "0,35", "1.5"), or a decimal without its zero
#: (".5", ",5"), a currency sign before it ("$5"), then a percent or euro sign ("5%", "5€"), the letters
#: of a unit or a name ("16GB", "4K", "5G") or a word joined by a hyphen ("1-year", "24-hour").
NUMERAL = re.compile(rf"[$€£¥]?(?:{NUMBER.pattern}|[.,]\d+)(?:[%€]|[^\W\d_]+|-[^\W\d_]+)?")
#: A group of three digits after a number, which French writes its thousands with ("1 000", "2 000").
_THOUSANDS = re.compile(r"\d{3}")
#: Numbers that open with a vowel's sound in English, which take "an" ("an 8-year", "an 11-month").
_AN = re.compile(r"8|1[18](?!\d)")


def numeral(word: str, language: str = "en") -> bool:
    """True when ``word`` (as written) is a number: in digits (:data:`NUMERAL`: "1,000", ".5", "5%",
    "1-year") or in words (:data:`engine.offline_list_words.NUMBERS`: "seven", "sieben")."""
    return bool(NUMERAL.fullmatch(word)) or word.lower() in NUMBERS


def _number_size(item: list[str], language: str) -> int:
    """How many of ``item``'s first words are one number (:func:`numeral`, with the groups of three
    digits French writes its thousands with: "1 000"); 0 when it opens with none."""
    if not item or not numeral(item[0], language):
        return 0
    k = 1
    while k < len(item) and _THOUSANDS.fullmatch(item[k]) and item[0].isdigit():
        k += 1
    return k


def sharing_the_unit(
    prefix: list[str], items: list[list[str]], language: str
) -> tuple[list[str], list[list[str]]]:
    """``prefix`` (the words before a list) and ``items`` (each a list of words), the words after the
    number the last item opens with given to the earlier ones when each of those is a number alone
    (:func:`numeral`): a unit or a noun written once after the last number is every number's ("2.5 or
    3.5 inch": "2.5 inch" and "3.5 inch"; "1,000 or 2,000 watts", "1,5 oder 2,5 kW", "1 000 ou 2 000
    watts"). An English "a" or "an" before the first number, in ``prefix`` or the first item, is then
    each item's, as its number is read ("Is a 1-year or 2-year plan cheaper": "a 1-year plan", "a
    2-year plan"; "an 8-hour or 12-hour shift": "an 8-hour shift", "a 12-hour shift", the unit after the
    list or not), and "the" is every item's. A plural noun after "1" or "one" is then singular in that
    item (:func:`_one_in_the_singular`: "Is 1 or 2 cats enough": "Is 1 cat enough"). As given when the last item's words after its number open
    with a function word ("2 of them")."""
    articles = ARTICLES["en"]
    own = language == "en" and len(items[0]) == 2 and items[0][0].lower() in articles
    bare = [i[1:] if own and len(i) > 1 and i[0].lower() in articles else i for i in items]
    *before, end = bare
    size = _number_size(end, language)
    if not size or any(not i or _number_size(i, language) != len(i) for i in before):
        return prefix, items
    if size < len(end) and not _function(end[size].lower(), language):
        shared = [[*i, *end[size:]] for i in before] + [end]
    elif size == len(end):  # "an 8-hour or 12-hour | shift": numbers alone, which may each take an article
        shared = bare
    else:
        return prefix, items
    shared = [_one_in_the_singular(s, language) for s in shared]  # "1 or 2 cats": "1 cat"
    article = items[0][0] if own else (prefix[-1] if language == "en" and prefix else "")
    if article.lower() not in ("a", "an"):
        return prefix, [[article, *s] for s in shared] if own else shared
    written = [["an" if _AN.match(s[0]) else "a", *s] for s in shared]
    if article[:1].isupper():  # "A 1-year or 2-year plan": the sentence's capital is the first item's
        written[0][0] = written[0][0].capitalize()
    return (prefix if own else prefix[:-1]), written


#: English numbers that take a noun in the singular ("1 cat", "one monitor").
_ONE = frozenset({"1", "one"})


def _one_in_the_singular(item: list[str], language: str) -> list[str]:
    """``item`` (a number and the words after it) with the English noun right after "1" or "one"
    (:data:`_ONE`) in the singular when English writes it as a plural
    (:func:`engine.word_forms.known_plural`): its most frequent singular form (wordfreq) of
    :func:`engine.word_forms.plural_noun` ("cats": "cat", "boxes": "box", "batteries": "battery"); as
    given otherwise ("mm", "kubernetes")."""
    if language != "en" or len(item) < 2 or item[0].lower() not in _ONE or not item[1].islower():
        return item
    from wordfreq import zipf_frequency

    from engine.word_forms import known_plural, plural_noun

    forms = plural_noun(item[1]) if known_plural(item[1]) else ()
    if not forms:
        return item
    return [item[0], max(forms, key=lambda f: zipf_frequency(f, "en")), *item[2:]]


def one_with_its_noun(
    items: list[list[str]], tail: list[str], language: str
) -> tuple[list[list[str]], list[str]]:
    """``items`` and ``tail`` (the words after a list) of an English list of numbers alone, one of them
    "1" or "one", whose plural noun opens ``tail``: the noun is then each item's, in the singular
    after "1" (:func:`_one_in_the_singular`: "Is 1 or 2 | cats enough": "1 cat", "2 cats"), so that an
    auxiliary agrees with each (:func:`engine.offline_item_words.agreeing`: "Does 1 box fit"). As given
    otherwise."""
    from engine.word_forms import known_plural

    if (
        language != "en"
        or not tail
        or not tail[0].islower()
        or not tail[0].isalpha()
        or any(len(i) != 1 or not numeral(i[0], language) for i in items)
        or not any(i[0].lower() in _ONE for i in items)
        or not known_plural(tail[0])
    ):
        return items, tail
    return [_one_in_the_singular([*i, tail[0]], language) for i in items], tail[1:]
