"""How the offline review quotes: a claim, a finding, the question's words or a source's title in the
``quoted`` phrase of the review's language, the quotations inside them nested (:func:`_nested`), and how
a quote is read back (:data:`_QUOTED`, :func:`_unquoted`) whatever marks it was written with."""

from __future__ import annotations

import re
import unicodedata

from engine.offline_phrases import phrase
from engine.offline_text import _short
from engine.text import markdown_literal

#: A quotation as the ``quoted`` phrase of any language writes it: “…”, „…“, « … », «…», ”…”, 「…」.
_QUOTED = re.compile(r"[“„«”「]\s?(.+?)\s?[”“»」]")
#: A quotation mark :data:`_QUOTED` reads as a quote's start or end, inside a text the review quotes;
#: :func:`_nested` writes it as an inner quote.
_OUTER_MARK = re.compile(r"[“”„«»「」]")
#: Every quotation mark, outer and inner, of any language, and the straight ones: what
#: :func:`_unquoted` writes as one mark.
_ANY_MARK = str.maketrans(dict.fromkeys("“”„‟«»‹›「」『』‘’‚‛\"＂", '"'))


def _nested(text: str, language: str) -> str:
    """``text`` with the quotation marks a ``quoted`` phrase opens or closes with (“ ” „ « » 「 」, any
    language's: :data:`_OUTER_MARK`) written as ``language``'s inner quotes (the ``quoted_inner``
    phrase: ‘…’ in English, ‚…‘ in German, ‹…› in French, 『…』 in Japanese), as typography nests
    quotations: a quotation inside the text does not end the review's quote of it (:data:`_QUOTED`),
    and the words are unchanged. „ and 「 open and 」 closes. Any other mark opens where it stands
    before a word and after a space, an opening bracket, quote or dash (“…”, ”…”, »…«), and closes
    where it stands after a word and before a space or punctuation (the German „…“); where its
    spacing says neither, or both (« … »), « and “ open and » and ” close. Straight quotes ``"``
    and apostrophes stay: none ends the review's quote, and in a line of code they are the code's own."""
    opening, closing = phrase("quoted_inner", language, q="\0").split("\0")

    def mark(m: re.Match[str]) -> str:
        if m.group() in "„「」":
            return opening if m.group() != "」" else closing
        before = text[m.start() - 1] if m.start() else " "
        after = text[m.end()] if m.end() < len(text) else " "
        opens = not after.isspace() and (before.isspace() or unicodedata.category(before) in ("Ps", "Pi", "Pd"))
        closes = not before.isspace() and (after.isspace() or unicodedata.category(after).startswith("P"))
        if opens != closes:
            return opening if opens else closing
        return opening if m.group() in "“«" else closing

    return _OUTER_MARK.sub(mark, text)


def _unquoted(text: str) -> str:
    """``text`` with every quotation mark written as one (:data:`_ANY_MARK`): a quote the review
    wrote (:func:`_nested`) reads the same as the text it quotes, whatever its marks."""
    return text.translate(_ANY_MARK)


def _quoted(text: str, language: str, *, markdown: bool = False) -> str:
    """``text`` in the ``quoted`` phrase of ``language``, its own quotations nested (:func:`_nested`);
    plain text made Markdown that shows it as written (:func:`engine.text.markdown_literal`) with
    ``markdown=True``. Every quote the review writes is written here."""
    nested = _nested(text, language)
    return phrase("quoted", language, q=markdown_literal(nested) if markdown else nested)


def _quote(text: str, language: str, n: int = 120) -> str:
    """``text`` (Markdown: a claim or a finding, escaped where it was extracted) shortened and quoted."""
    return _quoted(_short(text, n), language)


def _quote_text(text: str, language: str, n: int = 120) -> str:
    """Plain ``text`` (the question, a topic, a source's title) shortened and quoted as Markdown
    that shows it as written (:func:`engine.text.markdown_literal`): its ``<b>`` or ``*`` is text."""
    return _quoted(_short(text, n), language, markdown=True)
