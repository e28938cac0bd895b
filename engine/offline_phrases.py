"""The report's fixed phrases, per language, and the function that picks one for a language.

Each phrase is a :meth:`str.format` template in every language of :data:`LANGUAGES` (English,
German, French, Spanish here; Italian, Dutch, Portuguese and Swedish in
:mod:`engine.offline_phrases_more`; Japanese and Chinese in :mod:`engine.offline_phrases_cjk`, and
Traditional Chinese, ``zh-Hant``, written from the Chinese by OpenCC); a phrase
about a number of things is a pair (singular, plural). The offline model's writer
(:mod:`engine.offline_text`), review (:mod:`engine.offline_review`) and notice use them, and so do
the report's fixed parts whatever the model, in every format (report.md, the PDF and the Word
document): its Problems heading, executive-summary heading and the notes on sources found and not
cited. The PDF's and Word document's own labels (question, date, review appendix) are
``engine/render/templates/labels.json``; no phrase is in both.
"""

from __future__ import annotations

import logging

from engine.chinese import TRADITIONAL, with_traditional
from engine.offline_phrases_cjk import CJK
from engine.offline_phrases_more import MORE, MORE_LANGUAGES

log = logging.getLogger(__name__)

#: Phrase key -> {language code: template}, or {language code: (singular, plural)} for a phrase
#: about a number of things; English ("en") is always there.
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
        "fr": "«\u00a0{q}\u00a0» est assez large. Sur quel aspect la recherche doit-elle porter (un cas d'usage, une "
        "période, une région ou une comparaison), et à qui le rapport est-il destiné\u202f?",
        "es": "«{q}» es bastante amplio. ¿En qué aspecto debe centrarse la investigación (un caso de uso, "
        "un periodo, una región o una comparación) y para quién es el informe?",
    },
    "summary": {"en": "Summary", "de": "Zusammenfassung", "fr": "Résumé", "es": "Resumen"},
    "executive_summary": {"en": "Executive summary", "de": "Zusammenfassung", "fr": "Synthèse", "es": "Resumen ejecutivo"},
    "findings_on": {"en": "Findings: {t}", "de": "Ergebnisse: {t}", "fr": "Résultats\u00a0: {t}", "es": "Resultados: {t}"},
    "problems": {
        "en": "Problems during the research",
        "de": "Probleme bei der Recherche",
        "fr": "Problèmes pendant la recherche",
        "es": "Problemas durante la investigación",
    },
    "no_findings": {
        "en": "No sources were found for this question, so the report cannot quote any evidence.",
        "de": "Zu dieser Frage wurden keine Quellen gefunden; der Bericht kann keine Belege zitieren.",
        "fr": "Aucune source n'a été trouvée pour cette question\u202f; le rapport ne peut citer aucune preuve.",
        "es": "No se encontraron fuentes para esta pregunta; el informe no puede citar evidencias.",
    },
    # the review's solution when the report quotes nothing: whether or not sources were found
    "no_claims": {
        "en": "The report quotes no finding, so there is nothing to recommend from yet.",
        "de": "Der Bericht zitiert kein Ergebnis; es gibt noch nichts, woraus sich eine Empfehlung ableiten ließe.",
        "fr": "Le rapport ne cite aucun résultat\u202f; il n'y a encore rien dont tirer une recommandation.",
        "es": "El informe no cita ningún hallazgo; todavía no hay nada de lo que extraer una recomendación.",
    },
    "none_cited": {
        "en": ("One source found; the report does not cite it.", "Sources found: {n}; the report cites none of them."),
        "de": ("Eine Quelle gefunden; der Bericht zitiert sie nicht.", "Gefundene Quellen: {n}; der Bericht zitiert keine davon."),
        "fr": ("Une source trouvée\u202f; le rapport ne la cite pas.", "Sources trouvées\u00a0: {n}\u202f; le rapport n'en cite aucune."),
        "es": ("Una fuente encontrada; el informe no la cita.", "Fuentes encontradas: {n}; el informe no cita ninguna."),
    },
    "no_passages": {
        "en": ("{n} source found; it had no passage on this question to quote.",
               "{n} sources found; none had a passage on this question to quote."),
        "de": ("{n} Quelle gefunden; sie enthielt keine zitierbare Stelle zu dieser Frage.",
               "{n} Quellen gefunden; keine enthielt eine zitierbare Stelle zu dieser Frage."),
        "fr": ("{n} source trouvée\u202f; elle ne contenait aucun passage à citer sur cette question.",
               "{n} sources trouvées\u202f; aucune ne contenait de passage à citer sur cette question."),
        "es": ("{n} fuente encontrada; no tenía ningún pasaje sobre esta pregunta que citar.",
               "{n} fuentes encontradas; ninguna tenía un pasaje sobre esta pregunta que citar."),
    },
    "nothing_more_on": {
        "en": "Nothing more to quote was found on: {t}.",
        "de": "Zu diesen Teilfragen fand sich nichts weiter zu zitieren: {t}.",
        "fr": "Rien de plus à citer n'a été trouvé sur\u00a0: {t}.",
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
    "research_done": {"en": "Research on this topic is done.", "de": "Die Recherche zu diesem Thema ist abgeschlossen.",
                      "fr": "La recherche sur ce sujet est terminée.", "es": "La investigación sobre este tema ha terminado."},
    "caveats": {"en": "Caveats", "de": "Vorbehalte", "fr": "Réserves", "es": "Salvedades"},
    "uncited": {
        "en": ("{n} claim carries no citation: “{example}”.", "{n} claims carry no citation, e.g. “{example}”."),
        "de": ("{n} Aussage ohne Beleg: „{example}“.", "{n} Aussagen ohne Beleg, z. B. „{example}“."),
        "fr": ("{n} affirmation sans citation\u00a0: «\u00a0{example}\u00a0».", "{n} affirmations sans citation, par ex. «\u00a0{example}\u00a0»."),
        "es": ("{n} afirmación sin cita: «{example}».", "{n} afirmaciones sin cita, p. ej. «{example}»."),
    },
    "one_source": {
        "en": "The solution rests on one source or none; no claim is corroborated by a second source.",
        "de": "Die Lösung stützt sich auf höchstens eine Quelle; keine Aussage wird von einer zweiten bestätigt.",
        "fr": "La solution repose sur une source au plus\u202f; aucune affirmation n'est corroborée par une seconde.",
        "es": "La solución se apoya en una fuente o ninguna; ninguna afirmación está corroborada por otra.",
    },
    "unused_sources": {
        "en": ("The solution does not cite the one source found: {titles}.",
               "The solution cites {n} of the {m} sources found; not used: {titles}."),
        "de": ("Die Lösung zitiert die eine gefundene Quelle nicht: {titles}.",
               "Die Lösung zitiert {n} der {m} gefundenen Quellen; nicht genutzt: {titles}."),
        "fr": ("La solution ne cite pas la seule source trouvée\u00a0: {titles}.",
               "La solution cite {n} des {m} sources trouvées\u202f; non utilisées\u00a0: {titles}."),
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
        "fr": ("Le rapport ne cite pas la seule source trouvée\u00a0: {titles}.",
               "Le rapport cite {n} des {m} sources trouvées\u202f; non citées\u00a0: {titles}."),
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
        "fr": "{q} [{sid}] est une ligne de code, pas un résultat\u202f; la citer comme tel n'apprend rien.",
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
        "de": "Keine Aussage der Lösung erwähnt {terms}, worum es in der Frage geht.",
        "fr": "Aucune affirmation de la solution ne mentionne {terms}, ce sur quoi porte la question.",
        "es": "Ninguna afirmación de la solución menciona {terms}, de lo que trata la pregunta.",
    },
    "single_source_topic": {
        "en": "The findings on {topic} rest on one source only: {title} [{sid}].",
        "de": "Die Ergebnisse zu {topic} stützen sich auf nur eine Quelle: {title} [{sid}].",
        "fr": "Les résultats sur {topic} reposent sur une seule source\u00a0: {title} [{sid}].",
        "es": "Los hallazgos sobre {topic} se apoyan en una sola fuente: {title} [{sid}].",
    },
    "numbers_differ": {
        "en": "The sources give different figures: {a} [{sa}] and {b} [{sb}].",
        "de": "Die Quellen nennen unterschiedliche Zahlen: {a} [{sa}] und {b} [{sb}].",
        "fr": "Les sources donnent des chiffres différents\u00a0: {a} [{sa}] et {b} [{sb}].",
        "es": "Las fuentes dan cifras distintas: {a} [{sa}] y {b} [{sb}].",
    },
    "nothing_to_check": {
        "en": "The solution quotes no source, so there is no claim to check.",
        "de": "Die Lösung zitiert keine Quelle; es gibt keine Aussage zu prüfen.",
        "fr": "La solution ne cite aucune source\u202f; il n'y a aucune affirmation à vérifier.",
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
        "fr": "Du point de vue de la personne qui a posé la question\u00a0:",
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
        "de": "in der Frage geht es um {terms}, und die Lösung sagt nichts dazu.",
        "fr": "la question porte sur {terms}, et la solution n'en dit rien.",
        "es": "la pregunta trata de {terms}, y la solución no dice nada al respecto.",
    },
    "nothing_changed": {
        "en": "Nothing changed: the critique and the perspective named nothing the findings can add or remove.",
        "de": "Nichts geändert: Kritik und Perspektive nannten nichts, was die Ergebnisse ergänzen oder entfernen könnten.",
        "fr": "Rien n'a changé\u00a0: la critique et la perspective n'ont rien signalé que les résultats puissent ajouter "
              "ou retirer.",
        "es": "Nada cambió: la crítica y la perspectiva no señalaron nada que los hallazgos puedan añadir o quitar.",
    },
    # nothing changed although the previous critique or perspective raised something (how many each)
    "nothing_changed_raised": {
        "en": "Nothing changed, although objections were raised (critique: {c}, perspective: {p}): none named a claim "
              "to drop or a finding of the report to add.",
        "de": "Nichts geändert, obwohl Einwände erhoben wurden (Kritik: {c}, Perspektive: {p}): keiner nannte eine "
              "Aussage zum Entfernen oder ein Ergebnis des Berichts zum Ergänzen.",
        "fr": "Rien n'a changé, bien que des objections aient été soulevées (critique\u00a0: {c}, perspective\u00a0: {p})\u00a0: "
              "aucune ne désignait une affirmation à retirer ni un résultat du rapport à ajouter.",
        "es": "Nada cambió, aunque se plantearon objeciones (crítica: {c}, perspectiva: {p}): ninguna señalaba una "
              "afirmación que quitar ni un hallazgo del informe que añadir.",
    },
    "added_findings": {
        "en": ("Added {n} finding that the perspective named as left out: {quotes}.",
               "Added {n} findings that the perspective named as left out: {quotes}."),
        "de": ("{n} Ergebnis ergänzt, das laut Perspektive fehlte: {quotes}.",
               "{n} Ergebnisse ergänzt, die laut Perspektive fehlten: {quotes}."),
        "fr": ("Ajout de {n} résultat que la perspective disait omis\u00a0: {quotes}.",
               "Ajout de {n} résultats que la perspective disait omis\u00a0: {quotes}."),
        "es": ("Se añadió {n} hallazgo que la perspectiva señaló como omitido: {quotes}.",
               "Se añadieron {n} hallazgos que la perspectiva señaló como omitidos: {quotes}."),
    },
    "dropped_claims": {
        "en": ("Dropped {n} claim that the critique flagged: {quotes}.",
               "Dropped {n} claims that the critique flagged: {quotes}."),
        "de": ("{n} von der Kritik beanstandete Aussage entfernt: {quotes}.",
               "{n} von der Kritik beanstandete Aussagen entfernt: {quotes}."),
        "fr": ("Retrait de {n} affirmation signalée par la critique\u00a0: {quotes}.",
               "Retrait de {n} affirmations signalées par la critique\u00a0: {quotes}."),
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
        "fr": "La dernière critique de la solution disait\u00a0:",
        "es": "La última crítica de la solución decía:",
    },
    # after a point of the last critique the synthesis quotes that the final report no longer gives
    # cause for (engine.offline_synthesis.finalize): every other point is an open objection
    "settled_in_report": {
        "en": "(settled by the final report)",
        "de": "(im endgültigen Bericht behoben)",
        "fr": "(réglé dans le rapport final)",
        "es": "(resuelto en el informe final)",
    },
    # follow-up questions from the review's open objections (engine.offline_follow_ups.follow_up_questions)
    # when the run read sources: what they say on the question's words, a finding, another objection.
    # What tells one follow-up from another (the words, the finding, the objection) comes before the
    # question it is about: a chat button shows only the start of a follow-up (75 characters in Slack).
    # A "_no_topic" form leaves the question out, for when that part names the question already.
    "follow_up_terms": {
        "en": "What do the sources say about {terms} for {topic}?",
        "de": "Was sagen die Quellen zu {terms} bei {topic}?",
        "fr": "Que disent les sources sur {terms} pour {topic}\u202f?",
        "es": "¿Qué dicen las fuentes sobre {terms} para {topic}?",
    },
    "follow_up_terms_no_topic": {
        "en": "What do the sources say about {terms}?",
        "de": "Was sagen die Quellen zu {terms}?",
        "fr": "Que disent les sources sur {terms}\u202f?",
        "es": "¿Qué dicen las fuentes sobre {terms}?",
    },
    "follow_up_finding": {
        "en": "How does the finding {q} bear on {topic}?",
        "de": "Was bedeutet das Ergebnis {q} für {topic}?",
        "fr": "Que change le résultat {q} pour {topic}\u202f?",
        "es": "¿Qué implica el hallazgo {q} para {topic}?",
    },
    "follow_up_finding_no_topic": {
        "en": "What follows from the finding {q}?",
        "de": "Was folgt aus dem Ergebnis {q}?",
        "fr": "Que déduire du résultat {q}\u202f?",
        "es": "¿Qué se deduce del hallazgo {q}?",
    },
    "follow_up_other": {
        "en": "What does the evidence say about {point}, an objection to {topic}?",
        "de": "Was sagen die Belege zu {point}, einem Einwand gegen {topic}?",
        "fr": "Que disent les preuves sur {point}, une objection à {topic}\u202f?",
        "es": "¿Qué dicen las pruebas sobre {point}, una objeción a {topic}?",
    },
    "follow_up_other_no_topic": {
        "en": "What does the evidence say about the objection {point}?",
        "de": "Was sagen die Belege zum Einwand {point}?",
        "fr": "Que disent les preuves sur l'objection {point}\u202f?",
        "es": "¿Qué dicen las pruebas sobre la objeción {point}?",
    },
    # without any source read (no search back end, or a search that found nothing) a follow-up
    # asking what the sources or their evidence say would find none again: these ask instead how to
    # narrow the question, and which evidence would settle what the review left open
    "follow_up_narrow": {
        "en": "Which use case, period or region should {topic} be narrowed to?",
        "de": "Auf welchen Anwendungsfall, Zeitraum oder welche Region lässt sich {topic} eingrenzen?",
        "fr": "À quel cas d'usage, quelle période ou quelle région restreindre {topic}\u202f?",
        "es": "¿A qué caso de uso, periodo o región se puede acotar {topic}?",
    },
    "follow_up_evidence_terms": {
        "en": "Which data or documents would settle {terms} for {topic}?",
        "de": "Welche Daten oder Dokumente würden {terms} bei {topic} klären?",
        "fr": "Quelles données ou quels documents trancheraient {terms} pour {topic}\u202f?",
        "es": "¿Qué datos o documentos aclararían {terms} para {topic}?",
    },
    "follow_up_evidence_terms_no_topic": {
        "en": "Which data or documents would settle {terms}?",
        "de": "Welche Daten oder Dokumente würden {terms} klären?",
        "fr": "Quelles données ou quels documents trancheraient {terms}\u202f?",
        "es": "¿Qué datos o documentos aclararían {terms}?",
    },
    "follow_up_evidence_other": {
        "en": "Which data or documents would settle {point}, an objection to {topic}?",
        "de": "Welche Daten oder Dokumente würden {point} klären, einen Einwand gegen {topic}?",
        "fr": "Quelles données ou quels documents trancheraient {point}, une objection à {topic}\u202f?",
        "es": "¿Qué datos o documentos resolverían {point}, una objeción a {topic}?",
    },
    "follow_up_evidence_other_no_topic": {
        "en": "Which data or documents would settle the objection {point}?",
        "de": "Welche Daten oder Dokumente würden den Einwand {point} klären?",
        "fr": "Quelles données ou quels documents trancheraient l'objection {point}\u202f?",
        "es": "¿Qué datos o documentos resolverían la objeción {point}?",
    },
    "quoted": {"en": "“{q}”", "de": "„{q}“", "fr": "«\u00a0{q}\u00a0»", "es": "«{q}»"},
    # the marks a quotation inside a quoted text takes (engine.offline_quotes._nested: the text keeps its
    # spacing), none of them one the review reads as a quote's end: English ‘…’, German ‚…‘, Swiss French ‹…›
    "quoted_inner": {"en": "‘{q}’", "de": "‚{q}‘", "fr": "‹{q}›", "es": "‘{q}’"},
    "none": {"en": "(none)", "de": "(keine)", "fr": "(aucune)", "es": "(ninguna)"},
    # between quoted items of a list ("“a”, “b”"), and a review role's line ("Reader: ...")
    "list_separator": {"en": ", ", "de": ", ", "fr": ", ", "es": ", "},
    "role_says": {"en": "{role}: {text}", "de": "{role}: {text}", "fr": "{role}\u00a0: {text}", "es": "{role}: {text}"},
    "none_cited_short": {"en": "(none cited)", "de": "(keine zitiert)", "fr": "(aucune citée)",
                         "es": "(ninguna citada)"},
    # the Sources section of a report that cites nothing, when the run left no note of its own
    "no_sources": {"en": "No sources were cited.", "de": "Es wurden keine Quellen zitiert.",
                   "fr": "Aucune source n’a été citée.", "es": "No se citó ninguna fuente."},
    # review.md's own words (engine.artifacts.review_markdown; engine.render.reread reads them back)
    "review_of": {"en": "Review of: {q}", "de": "Prüfung von: {q}", "fr": "Relecture de\u00a0: {q}", "es": "Revisión de: {q}"},
    "review_round": {"en": "Round {n}", "de": "Runde {n}", "fr": "Tour {n}", "es": "Ronda {n}"},
    "role_solution": {"en": "Solution", "de": "Lösung", "fr": "Solution", "es": "Solución"},
    "role_critique": {"en": "Critique", "de": "Kritik", "fr": "Critique", "es": "Crítica"},
    "role_perspective": {"en": "Perspective", "de": "Perspektive", "fr": "Perspective", "es": "Perspectiva"},
    "no_review_rounds": {
        "en": "No review rounds were run (DEEPRESEARCH_MAX_REVIEW_ITERATIONS=0).",
        "de": "Es liefen keine Prüfrunden (DEEPRESEARCH_MAX_REVIEW_ITERATIONS=0).",
        "fr": "Aucun tour de revue n’a eu lieu (DEEPRESEARCH_MAX_REVIEW_ITERATIONS=0).",
        "es": "No se hizo ninguna ronda de revisión (DEEPRESEARCH_MAX_REVIEW_ITERATIONS=0).",
    },
    "review_legend": {"en": "Sources the review cites", "de": "Von der Prüfung zitierte Quellen",
                      "fr": "Sources citées par la relecture", "es": "Fuentes que cita la revisión"},
    "review_legend_note": {"en": "(The roles cite sources by id.)", "de": "(Die Rollen zitieren Quellen mit ihrer Kennung.)",
                           "fr": "(Les rôles citent les sources par leur identifiant.)",
                           "es": "(Los roles citan las fuentes por su identificador.)"},
    "source_of_report": {"en": "(source {n} of the report)", "de": "(Quelle {n} des Berichts)",
                         "fr": "(source {n} du rapport)", "es": "(fuente {n} del informe)"},
    # the offline model's notice under the report's title (engine.offline.notice)
    "offline_notice": {
        "en": "This report was made in offline extractive mode without a language model: it quotes "
              "sentences from the sources, ranked against the question, and does not interpret them.",
        "de": "Dieser Bericht wurde im Offline-Extraktionsmodus ohne Sprachmodell erstellt: Er zitiert "
              "Sätze aus den Quellen, nach Relevanz für die Frage geordnet, ohne sie zu deuten.",
        "fr": "Ce rapport a été produit en mode extractif hors ligne, sans modèle de langage\u00a0: il cite "
              "des phrases des sources, classées selon la question, sans les interpréter.",
        "es": "Este informe se generó en modo extractivo sin conexión, sin un modelo de lenguaje: cita "
              "frases de las fuentes, ordenadas según la pregunta, sin interpretarlas.",
    },
    # the chat summary's closing line (engine.graph.run.summary_markdown), whatever the model
    "chat_cited": {
        "en": ("{n} source cited", "{n} sources cited"),
        "de": ("{n} Quelle zitiert", "{n} Quellen zitiert"),
        "fr": ("{n} source citée", "{n} sources citées"),
        "es": ("{n} fuente citada", "{n} fuentes citadas"),
    },
    "chat_failed": {
        "en": ("{n} research topic failed", "{n} research topics failed"),
        "de": ("{n} Recherchethema fehlgeschlagen", "{n} Recherchethemen fehlgeschlagen"),
        "fr": ("{n} thème de recherche en échec", "{n} thèmes de recherche en échec"),
        "es": ("{n} tema de investigación fallido", "{n} temas de investigación fallidos"),
    },
    "chat_offline": {
        "en": "made in offline extractive mode, without a language model",
        "de": "im Offline-Extraktionsmodus ohne Sprachmodell erstellt",
        "fr": "produit en mode extractif hors ligne, sans modèle de langage",
        "es": "generado en modo extractivo sin conexión, sin un modelo de lenguaje",
    },
    "facet_how": {"en": "how it works", "de": "Funktionsweise", "fr": "fonctionnement", "es": "funcionamiento"},
    "facet_limits": {"en": "limitations and problems", "de": "Grenzen und Probleme", "fr": "limites et problèmes",
                     "es": "límites y problemas"},
    "facet_examples": {"en": "examples", "de": "Beispiele", "fr": "exemples", "es": "ejemplos"},
    "facet_history": {"en": "history", "de": "Geschichte", "fr": "histoire", "es": "historia"},
}

for _key, _texts in MORE.items():
    PHRASES[_key].update(zip(MORE_LANGUAGES, _texts, strict=True))

for _key, (_ja, _zh) in CJK.items():
    # Traditional Chinese is the Chinese template in Traditional characters (OpenCC, :mod:`engine.chinese`),
    # written here once, as the template is, never its filled fields (a quoted passage stays as written)
    PHRASES[_key] = with_traditional({**PHRASES[_key], "ja": _ja, "zh": _zh})

#: The languages every phrase is written in; a phrase asked for in another language is English.
LANGUAGES = ("en", "de", "fr", "es", *MORE_LANGUAGES, "ja", "zh", TRADITIONAL)


def plural_form(count: int, language: str) -> int:
    """0 for the singular ("one") form of ``count`` things in ``language``, 1 for the plural: CLDR's
    cardinal rule for integers, where French (and Portuguese) take the singular for 0 too. (A
    language with one form, Japanese or Chinese, gives one template; its pairs word "the one" apart.)"""
    return 0 if count == 1 or (count == 0 and language in ("fr", "pt")) else 1


def phrase(key: str, language: str, count: int | None = None, **fmt: str) -> str:
    """A fixed phrase in ``language`` (English outside :data:`LANGUAGES`), filled with ``fmt``.

    A phrase about a number of things has a singular and a plural form (a pair in
    :data:`PHRASES`); ``count`` picks one (:func:`plural_form`), so no phrase says "1 sources" or
    "claim(s)". A phrase missing in one of :data:`LANGUAGES` is English too, and logged
    (``event=phrase_missing``, a warning), so a table with a gap is seen.

    Raises:
        TypeError: ``count`` is missing for a phrase with two forms.
        KeyError: ``key`` is no phrase.
    """
    table = PHRASES[key]
    lang = language if language in table else "en"
    if lang != language and language in LANGUAGES:
        log.warning("event=phrase_missing key=%s language=%s", key, language)
    text = table[lang]
    if isinstance(text, tuple):
        if count is None:
            raise TypeError(f"phrase {key!r} has a singular and a plural form: pass count=")
        text = text[plural_form(count, lang)]
    return text.format(**fmt)
