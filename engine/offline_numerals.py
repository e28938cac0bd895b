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
    list or not), and "the" is every item's. As given when the last item's words after its number open
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
    article = items[0][0] if own else (prefix[-1] if language == "en" and prefix else "")
    if article.lower() not in ("a", "an"):
        return prefix, [[article, *s] for s in shared] if own else shared
    written = [["an" if _AN.match(s[0]) else "a", *s] for s in shared]
    if article[:1].isupper():  # "A 1-year or 2-year plan": the sentence's capital is the first item's
        written[0][0] = written[0][0].capitalize()
    return (prefix if own else prefix[:-1]), written
