"""How the offline model reads a choice between two verb phrases after a modal verb outside English,
for :func:`engine.offline_item_words.verb_items`: "¿Debería la ciudad construir un estadio nuevo o
renovar el viejo?" asks "Debería la ciudad construir un estadio nuevo" and "Debería la ciudad renovar
el viejo" (an infinitive after the modal and its subject, Spanish, Portuguese, Italian and French),
"Sollte ich einen Designer einstellen oder es selbst machen?" asks "Sollte ich einen Designer
einstellen" and "Sollte ich es selbst machen" (German, whose infinitive ends its phrase)."""

from __future__ import annotations

import re

from engine.offline_list_words import ARTICLES
from engine.offline_list_words import function_word as _function

#: Modal verbs that an infinitive follows, by language ("debería", "doit-elle": the part before a
#: hyphen), in small letters.
MODALS_IN = {
    "de": frozenset(
        """soll sollte sollten sollen sollst kann kannst könnte könnten können muss müssen
        müsste müssten darf dürfen will wollen möchte möchten""".split()
    ),
    "es": frozenset(
        """debo debes debe debemos deben debería deberías deberíamos deberían puedo puede
        podemos pueden podría podríamos podrían conviene""".split()
    ),
    "pt": frozenset(
        """devo deve devemos devem deveria deveríamos deveriam posso pode podemos podem
        poderia poderíamos""".split()
    ),
    "it": frozenset(
        """devo deve dobbiamo devono dovrei dovrebbe dovremmo dovrebbero posso può possiamo
        potrei potrebbe potremmo conviene""".split()
    ),
    "fr": frozenset(
        """dois doit devons doivent devrais devrait devrions devraient peux peut pouvons
        peuvent pourrait pourrions faut""".split()
    ),
}
#: Infinitive endings, with the object pronouns a Romance infinitive may take ("hacerlo", "farlo").
_INFINITIVE = {
    "es": re.compile(r"[^\W\d_]{2,}(?:ar|er|ir)(?:lo|la|los|las|le|les|se|me|nos)?"),
    "pt": re.compile(r"[^\W\d_]{2,}(?:ar|er|ir|or)(?:-(?:o|a|os|as|lo|la|se))?"),
    "it": re.compile(r"[^\W\d_]{2,}(?:ar|er|ir|rr)(?:e|lo|la|li|le|si|ci|ne)"),
    "fr": re.compile(r"[^\W\d_]{2,}(?:er|ir|re|oir)"),
    "de": re.compile(r"[^\W\d_]{2,}(?:en|ern|eln)"),
}
#: German subject pronouns after a modal ("Sollte ich", "Können wir").
_PRONOUNS_DE = frozenset("ich du er sie es wir ihr man".split())
#: How many words after its modal a Romance infinitive may come (its subject: "la ciudad").
MAX_SUBJECT_WORDS = 3


def infinitive_items(
    first: list[str], second: list[str], language: str
) -> tuple[list[str], list[list[str]], list[str]] | None:
    """``(prefix, items, [])`` of a choice between two verb phrases after a modal and its subject
    (:data:`MODALS_IN`), in a language other than English; None for any other list. In Spanish,
    Portuguese, Italian and French the first phrase opens with an infinitive (:data:`_INFINITIVE`) at
    most :data:`MAX_SUBJECT_WORDS` words after the modal and not after an article ("la ciudad |
    construir"; not "el | mar"), with words after it, and the second opens with one and has words after
    it or an object pronoun ("renovar el viejo", "hacerlo"): the words before the first infinitive are
    every item's ("¿Debería la ciudad | construir un estadio nuevo o renovar el viejo?"). In German
    both phrases end with an infinitive, the first after the modal and its subject (a pronoun, or an
    article and a noun) and an object: "Sollte ich | einen Designer einstellen oder es selbst machen"."""
    pattern = _INFINITIVE.get(language)
    if pattern is None or not first or not second:
        return None
    modals = MODALS_IN[language]
    low = [w.lower() for w in first]
    at = next((k for k, w in enumerate(low[: MAX_SUBJECT_WORDS + 1]) if w.split("-")[0] in modals), None)
    if at is None:
        return None
    if language == "de":
        return _german(first, second, at, pattern)
    articles = ARTICLES.get(language, frozenset())
    verb = next(
        (
            k
            for k in range(at + 1, min(len(first) - 1, at + MAX_SUBJECT_WORDS + 2))
            if pattern.fullmatch(low[k])
            and first[k][:1].islower()
            and low[k - 1] not in articles
            and not _function(low[k], language)
        ),
        None,
    )
    opens = bool(second[0][:1].islower() and pattern.fullmatch(second[0].lower()))
    if verb is None or not opens or _function(second[0].lower(), language):
        return None
    if (
        len(second) == 1
        and language in ("es", "it")
        and not re.search(r"(?:lo|la|li|le|los|las|se|si)$", second[0])
    ):
        return None  # "… o azúcar": a noun, where "hacerlo" is a verb and its object
    return first[:verb], [first[verb:], second], []


def _german(
    first: list[str], second: list[str], at: int, pattern: re.Pattern[str]
) -> tuple[list[str], list[list[str]], list[str]] | None:
    """:func:`infinitive_items` in German: the modal at ``at``, the subject after it, each phrase ending
    with its infinitive (``pattern``)."""
    low = [w.lower() for w in first]
    if at + 1 >= len(low):
        return None
    if low[at + 1] in _PRONOUNS_DE:
        start = at + 2  # "Sollte ich |"
    elif low[at + 1] in ARTICLES["de"] and at + 2 < len(first) and first[at + 2][:1].isupper():
        start = at + 3  # "Soll die Stadt |"
    else:
        return None
    ends = [first[-1], second[-1]]
    if (
        len(first) - start < 2
        or len(second) < 2
        or not all(w[:1].islower() and pattern.fullmatch(w) for w in ends)
    ):
        return None
    return first[:start], [first[start:], second], []
