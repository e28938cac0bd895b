"""Phrases and extractive composition used by the offline model (topics, reports, review roles)."""

from __future__ import annotations

import re

from engine.citations import SID
from engine.language import FUNCTION_WORDS, sentences, words
from engine.text import markdown_literal

#: Words that carry no topic: function words, and the words of a request itself ("please explain").
STOPWORDS = FUNCTION_WORDS | frozenset(
    """please tell explain give show find research report vs versus bitte erkläre erklären zeige finde
    recherchiere bericht expliquer explique montre trouve rapport explica explicar muestra informe""".split()
)

PHRASES = {
    "starting": {
        "en": "Thanks, starting the research now.",
        "de": "Danke, die Recherche beginnt jetzt.",
        "fr": "Merci, la recherche commence.",
        "es": "Gracias, empiezo la investigación.",
    },
    "clarify": {
        "en": "“{q}” is quite broad. Which aspect should the research focus on (for example a use case, "
        "a time frame, a region or a comparison), and who is the report for?",
        "de": "„{q}“ ist recht allgemein. Auf welchen Aspekt soll sich die Recherche konzentrieren "
        "(z. B. ein Anwendungsfall, ein Zeitraum, eine Region oder ein Vergleich), und für wen ist der Bericht?",
        "fr": "« {q} » est assez large. Sur quel aspect la recherche doit-elle porter (un cas d'usage, une "
        "période, une région ou une comparaison), et à qui le rapport est-il destiné ?",
        "es": "«{q}» es bastante amplio. ¿En qué aspecto debe centrarse la investigación (un caso de uso, "
        "un periodo, una región o una comparación) y para quién es el informe?",
    },
    "summary": {"en": "Summary", "de": "Zusammenfassung", "fr": "Résumé", "es": "Resumen"},
    "executive_summary": {"en": "Executive summary", "de": "Zusammenfassung", "fr": "Synthèse", "es": "Resumen ejecutivo",
                          "zh": "执行摘要", "ja": "要旨"},
    "findings_on": {"en": "Findings: {t}", "de": "Ergebnisse: {t}", "fr": "Résultats : {t}", "es": "Resultados: {t}"},
    "problems": {
        "en": "Problems during the research",
        "de": "Probleme bei der Recherche",
        "fr": "Problèmes pendant la recherche",
        "es": "Problemas durante la investigación",
    },
    "no_findings": {
        "en": "No sources were found for this question, so the report cannot quote any evidence.",
        "de": "Zu dieser Frage wurden keine Quellen gefunden; der Bericht kann keine Belege zitieren.",
        "fr": "Aucune source n'a été trouvée pour cette question ; le rapport ne peut citer aucune preuve.",
        "es": "No se encontraron fuentes para esta pregunta; el informe no puede citar evidencias.",
    },
    "none_cited": {
        "en": ("One source found; the report does not cite it.", "Sources found: {n}; the report cites none of them."),
        "de": ("Eine Quelle gefunden; der Bericht zitiert sie nicht.", "Gefundene Quellen: {n}; der Bericht zitiert keine davon."),
        "fr": ("Une source trouvée ; le rapport ne la cite pas.", "Sources trouvées : {n} ; le rapport n'en cite aucune."),
        "es": ("Una fuente encontrada; el informe no la cita.", "Fuentes encontradas: {n}; el informe no cita ninguna."),
    },
    "no_passages": {
        "en": ("{n} source found; it had no passage on this question to quote.",
               "{n} sources found; none had a passage on this question to quote."),
        "de": ("{n} Quelle gefunden; sie enthielt keine zitierbare Stelle zu dieser Frage.",
               "{n} Quellen gefunden; keine enthielt eine zitierbare Stelle zu dieser Frage."),
        "fr": ("{n} source trouvée ; elle ne contenait aucun passage à citer sur cette question.",
               "{n} sources trouvées ; aucune ne contenait de passage à citer sur cette question."),
        "es": ("{n} fuente encontrada; no tenía ningún pasaje sobre esta pregunta que citar.",
               "{n} fuentes encontradas; ninguna tenía un pasaje sobre esta pregunta que citar."),
    },
    "nothing_more_on": {
        "en": "Nothing more to quote was found on: {t}.",
        "de": "Zu diesen Teilfragen fand sich nichts weiter zu zitieren: {t}.",
        "fr": "Rien de plus à citer n'a été trouvé sur : {t}.",
        "es": "No se encontró nada más que citar sobre: {t}.",
    },
    "recommendation": {"en": "Recommendation", "de": "Empfehlung", "fr": "Recommandation", "es": "Recomendación"},
    "reasons": {"en": "Supporting evidence", "de": "Belege", "fr": "Éléments à l'appui", "es": "Evidencia"},
    "changes": {
        "en": "Changes from the previous solution",
        "de": "Änderungen gegenüber der vorherigen Lösung",
        "fr": "Changements par rapport à la solution précédente",
        "es": "Cambios respecto a la solución anterior",
    },
    "review_outcome": {"en": "Review outcome", "de": "Ergebnis der Prüfung", "fr": "Résultat de la revue", "es": "Resultado de la revisión"},
    "open_objections": {"en": "Open objections", "de": "Offene Einwände", "fr": "Objections ouvertes", "es": "Objeciones abiertas"},
    "research_done": {"en": "Research on this topic is done."},
    "caveats": {"en": "Caveats", "de": "Vorbehalte", "fr": "Réserves", "es": "Salvedades"},
    "uncited": {
        "en": ("{n} claim carries no citation: “{example}”.", "{n} claims carry no citation, e.g. “{example}”."),
        "de": ("{n} Aussage ohne Beleg: „{example}“.", "{n} Aussagen ohne Beleg, z. B. „{example}“."),
        "fr": ("{n} affirmation sans citation : « {example} ».", "{n} affirmations sans citation, par ex. « {example} »."),
        "es": ("{n} afirmación sin cita: «{example}».", "{n} afirmaciones sin cita, p. ej. «{example}»."),
    },
    "one_source": {
        "en": "The solution rests on one source or none; no claim is corroborated by a second source.",
        "de": "Die Lösung stützt sich auf höchstens eine Quelle; keine Aussage wird von einer zweiten bestätigt.",
        "fr": "La solution repose sur une source au plus ; aucune affirmation n'est corroborée par une seconde.",
        "es": "La solución se apoya en una fuente o ninguna; ninguna afirmación está corroborada por otra.",
    },
    "unused_sources": {
        "en": ("The solution does not cite the one source found: {titles}.",
               "The solution cites {n} of the {m} sources found; not used: {titles}."),
        "de": ("Die Lösung zitiert die eine gefundene Quelle nicht: {titles}.",
               "Die Lösung zitiert {n} der {m} gefundenen Quellen; nicht genutzt: {titles}."),
        "fr": ("La solution ne cite pas la seule source trouvée : {titles}.",
               "La solution cite {n} des {m} sources trouvées ; non utilisées : {titles}."),
        "es": ("La solución no cita la única fuente encontrada: {titles}.",
               "La solución cita {n} de las {m} fuentes encontradas; sin usar: {titles}."),
    },
    "all_sources_used": {
        "en": ("The solution cites the one source found.", "The solution cites all {m} sources found."),
        "de": ("Die Lösung zitiert die eine gefundene Quelle.", "Die Lösung zitiert alle {m} gefundenen Quellen."),
        "fr": ("La solution cite la seule source trouvée.", "La solution cite les {m} sources trouvées."),
        "es": ("La solución cita la única fuente encontrada.", "La solución cita las {m} fuentes encontradas."),
    },
    "report_sources": {
        "en": ("The report does not cite the one source found: {titles}.",
               "The report cites {n} of the {m} sources found; not cited: {titles}."),
        "de": ("Der Bericht zitiert die eine gefundene Quelle nicht: {titles}.",
               "Der Bericht zitiert {n} der {m} gefundenen Quellen; nicht zitiert: {titles}."),
        "fr": ("Le rapport ne cite pas la seule source trouvée : {titles}.",
               "Le rapport cite {n} des {m} sources trouvées ; non citées : {titles}."),
        "es": ("El informe no cita la única fuente encontrada: {titles}.",
               "El informe cita {n} de las {m} fuentes encontradas; sin citar: {titles}."),
    },
    "all_sources_cited": {
        "en": ("The report cites the one source found.", "The report cites all {m} sources found."),
        "de": ("Der Bericht zitiert die eine gefundene Quelle.", "Der Bericht zitiert alle {m} gefundenen Quellen."),
        "fr": ("Le rapport cite la seule source trouvée.", "Le rapport cite les {m} sources trouvées."),
        "es": ("El informe cita la única fuente encontrada.", "El informe cita las {m} fuentes encontradas."),
    },
    "code_line": {
        "en": "{q} [{sid}] is a line of code, not a finding; quoting it as one tells the reader nothing.",
        "de": "{q} [{sid}] ist eine Codezeile, kein Ergebnis; als Aussage zitiert sagt sie nichts.",
        "fr": "{q} [{sid}] est une ligne de code, pas un résultat ; la citer comme tel n'apprend rien.",
        "es": "{q} [{sid}] es una línea de código, no un hallazgo; citarla como tal no aporta nada.",
    },
    "dangling": {
        "en": "{q} [{sid}] starts with {word}, which refers to text the report does not quote.",
        "de": "{q} [{sid}] beginnt mit {word} und verweist auf Text, den der Bericht nicht zitiert.",
        "fr": "{q} [{sid}] commence par {word}, qui renvoie à un texte que le rapport ne cite pas.",
        "es": "{q} [{sid}] empieza con {word}, que remite a un texto que el informe no cita.",
    },
    "unanswered": {
        "en": "No claim of the solution mentions {terms}, which the question asks about.",
        "de": "Keine Aussage der Lösung erwähnt {terms}, wonach die Frage fragt.",
        "fr": "Aucune affirmation de la solution ne mentionne {terms}, sur quoi porte la question.",
        "es": "Ninguna afirmación de la solución menciona {terms}, por lo que pregunta la pregunta.",
    },
    "single_source_topic": {
        "en": "The findings on {topic} rest on one source only: {title} [{sid}].",
        "de": "Die Ergebnisse zu {topic} stützen sich auf nur eine Quelle: {title} [{sid}].",
        "fr": "Les résultats sur {topic} reposent sur une seule source : {title} [{sid}].",
        "es": "Los hallazgos sobre {topic} se apoyan en una sola fuente: {title} [{sid}].",
    },
    "numbers_differ": {
        "en": "The sources give different figures: {a} [{sa}] and {b} [{sb}].",
        "de": "Die Quellen nennen unterschiedliche Zahlen: {a} [{sa}] und {b} [{sb}].",
        "fr": "Les sources donnent des chiffres différents : {a} [{sa}] et {b} [{sb}].",
        "es": "Las fuentes dan cifras distintas: {a} [{sa}] y {b} [{sb}].",
    },
    "nothing_to_check": {
        "en": "The solution quotes no source, so there is no claim to check.",
        "de": "Die Lösung zitiert keine Quelle; es gibt keine Aussage zu prüfen.",
        "fr": "La solution ne cite aucune source ; il n'y a aucune affirmation à vérifier.",
        "es": "La solución no cita ninguna fuente; no hay ninguna afirmación que comprobar.",
    },
    "no_flaw": {
        "en": "Every claim of the solution carries a citation and reads as a sentence, and each part of the "
              "question is addressed.",
        "de": "Jede Aussage der Lösung ist belegt und ein ganzer Satz, und jeder Teil der Frage wird behandelt.",
        "fr": "Chaque affirmation de la solution est citée et forme une phrase, et chaque partie de la question "
              "est traitée.",
        "es": "Cada afirmación de la solución tiene cita y es una oración, y cada parte de la pregunta se trata.",
    },
    "reader_intro": {
        "en": "Speaking as the reader who asked the question:",
        "de": "Aus Sicht der Person, die die Frage gestellt hat:",
        "fr": "Du point de vue de la personne qui a posé la question :",
        "es": "Desde el punto de vista de quien hizo la pregunta:",
    },
    "reader": {"en": "Reader", "de": "Leser", "fr": "Lecteur", "es": "Lector"},
    "left_out": {
        "en": "the findings also say {q} [{sid}], which the solution leaves out.",
        "de": "die Ergebnisse sagen auch {q} [{sid}], was die Lösung auslässt.",
        "fr": "les résultats disent aussi {q} [{sid}], que la solution omet.",
        "es": "los hallazgos también dicen {q} [{sid}], que la solución omite.",
    },
    "not_addressed": {
        "en": "the question asks about {terms}, and the solution says nothing about it.",
        "de": "die Frage fragt nach {terms}, und die Lösung sagt nichts dazu.",
        "fr": "la question porte sur {terms}, et la solution n'en dit rien.",
        "es": "la pregunta trata de {terms}, y la solución no dice nada al respecto.",
    },
    "nothing_changed": {
        "en": "Nothing changed: the critique and the perspective named nothing the findings can add or remove.",
        "de": "Nichts geändert: Kritik und Perspektive nannten nichts, was die Ergebnisse ergänzen oder entfernen könnten.",
        "fr": "Rien n'a changé : la critique et la perspective n'ont rien signalé que les résultats puissent ajouter "
              "ou retirer.",
        "es": "Nada cambió: la crítica y la perspectiva no señalaron nada que los hallazgos puedan añadir o quitar.",
    },
    "added_findings": {
        "en": ("Added {n} finding that the perspective named as left out: {quotes}.",
               "Added {n} findings that the perspective named as left out: {quotes}."),
        "de": ("{n} Ergebnis ergänzt, das laut Perspektive fehlte: {quotes}.",
               "{n} Ergebnisse ergänzt, die laut Perspektive fehlten: {quotes}."),
        "fr": ("Ajout de {n} résultat que la perspective disait omis : {quotes}.",
               "Ajout de {n} résultats que la perspective disait omis : {quotes}."),
        "es": ("Se añadió {n} hallazgo que la perspectiva señaló como omitido: {quotes}.",
               "Se añadieron {n} hallazgos que la perspectiva señaló como omitidos: {quotes}."),
    },
    "dropped_claims": {
        "en": ("Dropped {n} claim that the critique flagged: {quotes}.",
               "Dropped {n} claims that the critique flagged: {quotes}."),
        "de": ("{n} von der Kritik beanstandete Aussage entfernt: {quotes}.",
               "{n} von der Kritik beanstandete Aussagen entfernt: {quotes}."),
        "fr": ("Retrait de {n} affirmation signalée par la critique : {quotes}.",
               "Retrait de {n} affirmations signalées par la critique : {quotes}."),
        "es": ("Se quitó {n} afirmación señalada por la crítica: {quotes}.",
               "Se quitaron {n} afirmaciones señaladas por la crítica: {quotes}."),
    },
    "sources_outcome": {
        "en": ("The report went through {n} review round. {sources}", "The report went through {n} review rounds. {sources}"),
        "de": ("Der Bericht durchlief {n} Prüfrunde. {sources}", "Der Bericht durchlief {n} Prüfrunden. {sources}"),
        "fr": ("Le rapport a connu {n} tour de revue. {sources}", "Le rapport a connu {n} tours de revue. {sources}"),
        "es": ("El informe pasó por {n} ronda de revisión. {sources}", "El informe pasó por {n} rondas de revisión. {sources}"),
    },
    "last_critique": {
        "en": "The last critique of the solution said:",
        "de": "Die letzte Kritik an der Lösung lautete:",
        "fr": "La dernière critique de la solution disait :",
        "es": "La última crítica de la solución decía:",
    },
    # follow-up questions from the review's open objections (engine.offline_review.follow_up_questions)
    # when the run read sources: what they say on the question's words, a finding, another objection
    "follow_up_terms": {
        "en": "What do the sources say about {terms} for {topic}?",
        "de": "Was sagen die Quellen zu {terms} bei {topic}?",
        "fr": "Que disent les sources sur {terms} pour {topic} ?",
        "es": "¿Qué dicen las fuentes sobre {terms} para {topic}?",
    },
    "follow_up_finding": {
        "en": "How does this finding bear on {topic}: {q}?",
        "de": "Was bedeutet dieses Ergebnis für {topic}: {q}?",
        "fr": "Que change ce résultat pour {topic} : {q} ?",
        "es": "¿Qué implica este hallazgo para {topic}: {q}?",
    },
    "follow_up_other": {
        "en": "What does the evidence say about this objection to {topic}: {point}?",
        "de": "Was sagen die Belege zu diesem Einwand gegen {topic}: {point}?",
        "fr": "Que disent les preuves sur cette objection à {topic} : {point} ?",
        "es": "¿Qué dicen las pruebas sobre esta objeción a {topic}: {point}?",
    },
    # without any source read (no search back end, or a search that found nothing) a follow-up
    # asking what the sources or their evidence say would find none again: these ask instead how to
    # narrow the question, and which evidence would settle what the review left open
    "follow_up_narrow": {
        "en": "Which use case, period or region should {topic} be narrowed to?",
        "de": "Auf welchen Anwendungsfall, Zeitraum oder welche Region lässt sich {topic} eingrenzen?",
        "fr": "À quel cas d'usage, quelle période ou quelle région restreindre {topic} ?",
        "es": "¿A qué caso de uso, periodo o región se puede acotar {topic}?",
    },
    "follow_up_evidence_terms": {
        "en": "Which data or documents would settle {terms} for {topic}?",
        "de": "Welche Daten oder Dokumente würden {terms} bei {topic} klären?",
        "fr": "Quelles données ou quels documents trancheraient {terms} pour {topic} ?",
        "es": "¿Qué datos o documentos aclararían {terms} para {topic}?",
    },
    "follow_up_evidence_other": {
        "en": "Which data or documents would settle this objection to {topic}: {point}?",
        "de": "Welche Daten oder Dokumente würden diesen Einwand gegen {topic} klären: {point}?",
        "fr": "Quelles données ou quels documents trancheraient cette objection à {topic} : {point} ?",
        "es": "¿Qué datos o documentos resolverían esta objeción a {topic}: {point}?",
    },
    "quoted": {"en": "“{q}”", "de": "„{q}“", "fr": "« {q} »", "es": "«{q}»"},
    "none": {"en": "(none)", "de": "(keine)", "fr": "(aucune)", "es": "(ninguna)"},
    "none_cited_short": {"en": "(none cited)", "de": "(keine zitiert)", "fr": "(aucune citée)",
                         "es": "(ninguna citada)"},
    "facet_how": {"en": "how it works", "de": "Funktionsweise", "fr": "fonctionnement", "es": "funcionamiento"},
    "facet_limits": {"en": "limitations and problems", "de": "Grenzen und Probleme", "fr": "limites et problèmes",
                     "es": "límites y problemas"},
    "facet_examples": {"en": "examples", "de": "Beispiele", "fr": "exemples", "es": "ejemplos"},
    "facet_history": {"en": "history", "de": "Geschichte", "fr": "histoire", "es": "historia"},
}


def plural_form(count: int, language: str) -> int:
    """0 for the singular ("one") form of ``count`` things in ``language``, 1 for the plural: CLDR's
    cardinal rule for integers, where French (and Portuguese) take the singular for 0 too."""
    return 0 if count == 1 or (count == 0 and language in ("fr", "pt")) else 1


def phrase(key: str, language: str, count: int | None = None, **fmt: str) -> str:
    """A fixed phrase in ``language`` (English when not translated), filled with ``fmt``.

    A phrase about a number of things has a singular and a plural form (a pair in
    :data:`PHRASES`); ``count`` picks one (:func:`plural_form`), so no phrase says "1 sources" or
    "claim(s)".

    Raises:
        TypeError: ``count`` is missing for a phrase with two forms.
    """
    table = PHRASES[key]
    lang = language if language in table else "en"
    text = table[lang]
    if isinstance(text, tuple):
        if count is None:
            raise TypeError(f"phrase {key!r} has a singular and a plural form: pass count=")
        text = text[plural_form(count, lang)]
    return text.format(**fmt)


def clarifying_question(question: str, language: str) -> str:
    """The offline model's clarifying question for a vague request."""
    q = " ".join(question.split())[:200]
    return phrase("clarify", language, q=q)


def content_words(text: str) -> list[str]:
    """Words of ``text`` that are not stop words, in order, without repeats."""
    return list(dict.fromkeys(w for w in words(text) if w not in STOPWORDS and len(w) > 1))


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
    parts = [p for p in parts if len(content_words(p)) >= 1]
    if len(parts) >= 2:
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
    seen: set[str] = set()  # each sentence once per report, under the first topic that found it
    empty: list[str] = []
    for topic, lines in blocks:
        fresh = [ln for ln in lines if " ".join(words(SID.sub("", ln))) not in seen]
        seen.update(" ".join(words(SID.sub("", ln))) for ln in fresh)
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


def _without_changes(text: str) -> str:
    """``text`` without its "Changes from the previous solution" and "Caveats" sections."""
    return re.sub(r"^## (Changes|Änderungen|Changements|Cambios|Caveats|Vorbehalte|Réserves|Salvedades).*?(?=^## |\Z)", "", text,
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
