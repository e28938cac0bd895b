"""Phrases and extractive composition used by the offline model (topics, reports, review roles)."""

from __future__ import annotations

import re

from engine.citations import SID
from engine.language import FUNCTION_WORDS, sentences, words

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
    "kept_cited": {
        "en": "Kept only claims that carry a citation ({n} of {m} claims), {why}.",
        "de": "Nur belegte Aussagen behalten ({n} von {m} Aussagen), {why}.",
        "fr": "Seules les affirmations citées sont conservées ({n} affirmations sur {m}), {why}.",
        "es": "Solo se mantienen las afirmaciones con cita ({n} de {m} afirmaciones), {why}.",
    },
    "answers_uncited": {
        "en": "answering the critique's point about {n} uncited claim(s)",
        "de": "als Antwort auf den Einwand zu {n} unbelegten Aussage(n)",
        "fr": "en réponse à la critique sur {n} affirmation(s) sans citation",
        "es": "en respuesta a la crítica sobre {n} afirmación(es) sin cita",
    },
    "answers_evidence": {
        "en": "as the critique asked for evidence", "de": "wie die Kritik Belege verlangte",
        "fr": "comme la critique demandait des preuves", "es": "como la crítica pedía pruebas",
    },
    "added_caveats": {
        "en": "Added the stakeholder objections as explicit caveats below.",
        "de": "Die Einwände der Beteiligten stehen unten als ausdrückliche Vorbehalte.",
        "fr": "Les objections des parties prenantes figurent ci-dessous comme réserves explicites.",
        "es": "Las objeciones de las partes interesadas figuran abajo como salvedades explícitas.",
    },
    "uncited": {
        "en": "{n} claim(s) carry no citation, e.g. “{example}”.",
        "de": "{n} Aussage(n) ohne Beleg, z. B. „{example}“.",
        "fr": "{n} affirmation(s) sans citation, par ex. « {example} ».",
        "es": "{n} afirmación(es) sin cita, p. ej. «{example}».",
    },
    "one_source": {
        "en": "The solution rests on one source or none; no claim is corroborated by a second source.",
        "de": "Die Lösung stützt sich auf höchstens eine Quelle; keine Aussage wird von einer zweiten bestätigt.",
        "fr": "La solution repose sur une source au plus ; aucune affirmation n'est corroborée par une seconde.",
        "es": "La solución se apoya en una fuente o ninguna; ninguna afirmación está corroborada por otra.",
    },
    "unused_sources": {
        "en": "The solution cites {n} of {m} available sources; the rest are unused.",
        "de": "Die Lösung zitiert {n} von {m} verfügbaren Quellen; die übrigen bleiben ungenutzt.",
        "fr": "La solution cite {n} des {m} sources disponibles ; les autres ne sont pas utilisées.",
        "es": "La solución cita {n} de {m} fuentes disponibles; el resto no se usa.",
    },
    "all_sources_cited": {
        "en": "The report cites all {m} available sources.",
        "de": "Der Bericht zitiert alle {m} verfügbaren Quellen.",
        "fr": "Le rapport cite les {m} sources disponibles.",
        "es": "El informe cita las {m} fuentes disponibles.",
    },
    "assumption": {
        "en": "Unstated assumption: the sources are current as of {date} and apply to the asker's situation.",
        "de": "Unausgesprochene Annahme: Die Quellen sind zum {date} aktuell und passen zur Lage der Fragenden.",
        "fr": "Hypothèse implicite : les sources sont à jour au {date} et s'appliquent à la situation du demandeur.",
        "es": "Supuesto implícito: las fuentes están vigentes a {date} y se aplican a la situación de quien pregunta.",
    },
    "missing_evidence": {
        "en": "Missing evidence: no figures, dates or counter-examples are given for the main recommendation.",
        "de": "Fehlende Belege: Für die Hauptempfehlung fehlen Zahlen, Daten und Gegenbeispiele.",
        "fr": "Preuves manquantes : ni chiffres, ni dates, ni contre-exemples pour la recommandation principale.",
        "es": "Faltan pruebas: no hay cifras, fechas ni contraejemplos para la recomendación principal.",
    },
    "improvement": {
        "en": "Improvement: state the conditions under which the recommendation does not hold.",
        "de": "Verbesserung: Bedingungen nennen, unter denen die Empfehlung nicht gilt.",
        "fr": "Amélioration : indiquer les conditions dans lesquelles la recommandation ne tient pas.",
        "es": "Mejora: indicar en qué condiciones la recomendación no se sostiene.",
    },
    "perspective": {
        "en": "Speaking as a competitor, a regulator and an affected user:\n\n"
              "- Competitor: the answer to {subject} is built from the sources at hand; a rival would point to "
              "alternatives that the research did not examine, and has every incentive to.\n"
              "- Regulator: compliance, safety and accountability are not addressed; who answers if the "
              "recommendation fails?\n"
              "- Affected user: cost, effort of adoption and the risk of being locked in are left open.\n",
        "de": "Aus Sicht eines Wettbewerbers, einer Aufsichtsbehörde und einer betroffenen Person:\n\n"
              "- Wettbewerber: Die Antwort auf {subject} beruht nur auf den vorliegenden Quellen; ein Konkurrent "
              "würde auf nicht untersuchte Alternativen verweisen und hat allen Grund dazu.\n"
              "- Aufsicht: Regelkonformität, Sicherheit und Verantwortung bleiben offen; wer haftet, wenn die "
              "Empfehlung scheitert?\n"
              "- Betroffene: Kosten, Umstellungsaufwand und das Risiko einer Bindung an einen Anbieter bleiben offen.\n",
        "fr": "Du point de vue d'un concurrent, d'un régulateur et d'un utilisateur concerné :\n\n"
              "- Concurrent : la réponse à {subject} repose sur les seules sources disponibles ; un rival citerait "
              "des alternatives non examinées, et il y a intérêt.\n"
              "- Régulateur : conformité, sécurité et responsabilité ne sont pas traitées ; qui répond si la "
              "recommandation échoue ?\n"
              "- Utilisateur concerné : coût, effort d'adoption et risque de dépendance restent ouverts.\n",
        "es": "Desde el punto de vista de un competidor, un regulador y un usuario afectado:\n\n"
              "- Competidor: la respuesta a {subject} se basa solo en las fuentes disponibles; un rival señalaría "
              "alternativas no examinadas, y tiene todo el incentivo para hacerlo.\n"
              "- Regulador: no se abordan cumplimiento, seguridad ni responsabilidad; ¿quién responde si la "
              "recomendación falla?\n"
              "- Usuario afectado: quedan abiertos el coste, el esfuerzo de adopción y el riesgo de dependencia.\n",
    },
    "rounds": {
        "en": "The report went through {n} review round(s). The last critique of the solution said:",
        "de": "Der Bericht durchlief {n} Prüfrunde(n). Die letzte Kritik an der Lösung lautete:",
        "fr": "Le rapport a connu {n} tour(s) de revue. La dernière critique de la solution disait :",
        "es": "El informe pasó por {n} ronda(s) de revisión. La última crítica de la solución decía:",
    },
    # one follow-up question per role of "perspective" (same order), and one for any other objection
    "follow_up_0": {
        "en": "Which alternatives for {topic} did the research not examine, and how do they compare?",
        "de": "Welche Alternativen zu {topic} hat die Recherche nicht untersucht, und wie schneiden sie ab?",
        "fr": "Quelles alternatives pour {topic} la recherche n'a-t-elle pas examinées, et que valent-elles ?",
        "es": "¿Qué alternativas para {topic} no examinó la investigación y cómo se comparan?",
    },
    "follow_up_1": {
        "en": "Which compliance, safety and accountability rules apply to {topic}?",
        "de": "Welche Vorgaben zu Regelkonformität, Sicherheit und Haftung gelten für {topic}?",
        "fr": "Quelles règles de conformité, de sécurité et de responsabilité s'appliquent à {topic} ?",
        "es": "¿Qué normas de cumplimiento, seguridad y responsabilidad se aplican a {topic}?",
    },
    "follow_up_2": {
        "en": "What do cost, adoption effort and lock-in risk look like for {topic}?",
        "de": "Wie sehen Kosten, Umstellungsaufwand und Anbieterbindung bei {topic} aus?",
        "fr": "Que représentent le coût, l'effort d'adoption et le risque de dépendance pour {topic} ?",
        "es": "¿Cómo son el coste, el esfuerzo de adopción y el riesgo de dependencia en {topic}?",
    },
    "follow_up_other": {
        "en": "What does the evidence say about this objection to {topic}: {point}?",
        "de": "Was sagen die Belege zu diesem Einwand gegen {topic}: {point}?",
        "fr": "Que disent les preuves sur cette objection à {topic} : {point} ?",
        "es": "¿Qué dicen las pruebas sobre esta objeción a {topic}: {point}?",
    },
    "quoted": {"en": "“{q}”", "de": "„{q}“", "fr": "« {q} »", "es": "«{q}»"},
    "none": {"en": "(none)", "de": "(keine)", "fr": "(aucune)", "es": "(ninguna)"},
    "facet_how": {"en": "how it works examples", "de": "Funktionsweise Beispiele", "fr": "fonctionnement exemples",
                  "es": "funcionamiento ejemplos"},
    "facet_limits": {"en": "limitations problems", "de": "Grenzen Probleme", "fr": "limites problèmes",
                     "es": "límites problemas"},
}


def phrase(key: str, language: str, **fmt: str) -> str:
    """A fixed phrase in ``language`` (English when not translated)."""
    table = PHRASES[key]
    return table.get(language, table["en"]).format(**fmt)


def phrase_match(key: str, language: str, text: str) -> str | None:
    """The ``{n}`` of phrase ``key`` (in ``language``) where it occurs in ``text``, else None."""
    template = PHRASES[key].get(language, PHRASES[key]["en"])
    head = template.split("{n}", 1)[1].split("{", 1)[0]
    found = re.search(r"(\d+)" + re.escape(head), text)
    return found.group(1) if found else None


def clarifying_question(question: str, language: str) -> str:
    """The offline model's clarifying question for a vague request."""
    q = " ".join(question.split())[:200]
    return phrase("clarify", language, q=q)


def content_words(text: str) -> list[str]:
    """Words of ``text`` that are not stop words, in order, without repeats."""
    return list(dict.fromkeys(w for w in words(text) if w not in STOPWORDS and len(w) > 1))


#: Where a brief's list of items splits, never inside brackets or parentheses ("the interval [0, 1]").
_CLAUSE = re.compile(r"(?:;|\n|,| and | und | et | y | vs\.? | versus )(?![^\[\](){}]*[\])}])")


def plan_topics(brief: str, limit: int, language: str = "en") -> list[str]:
    """Split a brief into research topics: its clauses when it lists several items, else facets.

    A brief like "Compare A; B; C" or "A, B and C" gives one topic per item; a single-subject
    brief gives the subject plus two facets (how it works, its limitations).
    """
    text = " ".join(brief.split())
    parts = [p.strip(" .?!") for p in _CLAUSE.split(text) if p.strip(" .?!")]
    parts = [p for p in parts if len(content_words(p)) >= 1]
    if len(parts) >= 2:
        subject = content_words(parts[0])[:2]
        parts = [p if len(content_words(p)) >= 3 or i == 0 else " ".join([*subject, p]) for i, p in enumerate(parts)]
        return list(dict.fromkeys(parts))[:limit]
    keys = " ".join(content_words(text)[:8]) or text
    topics = [text, f"{keys} {phrase('facet_how', language)}", f"{keys} {phrase('facet_limits', language)}"]
    return topics[: max(1, min(limit, 3))]


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


def extractive_report(*, brief: str, findings: str, language: str, notice: str) -> str:
    """A report of cited extracted sentences: title, notice, summary, a section per topic."""
    title = _short(brief.split("\n")[0], 110)
    out = [f"# {title}", "", f"*{notice}*", ""]
    blocks = _findings_blocks(findings)
    all_lines = [ln for _, lines in blocks for ln in lines]
    if not all_lines:
        out += [phrase("no_findings", language), ""]
    for topic, lines in blocks:
        if not lines:
            continue
        out += [f"## {phrase('findings_on', language, t=_short(topic, 80))}", ""]
        out += [f"- {ln}" for ln in lines] + [""]
    return "\n".join(out)


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
    return [s for s in out if len(s) > 30]


def solution(prompt: str, language: str) -> str:
    """Round 1: a recommendation from the top report sentences; later rounds say what changed."""
    from engine.offline import _tag, rank

    question = re.search(r"^Question: (.*)$", prompt, re.MULTILINE)
    q = question.group(1) if question else ""
    cands = list(dict.fromkeys(_cited_sentences(_tag(prompt, "Research Report"))))
    top = rank(cands, q, 6)
    cited = [s for s in top if SID.search(s)]
    out = []
    previous = _tag(prompt, "Previous critique")
    if previous:
        flagged = phrase_match("uncited", language, previous)
        answered = (phrase("answers_uncited", language, n=flagged) if flagged
                    else phrase("answers_evidence", language))
        out += [f"## {phrase('changes', language)}", "",
                "- " + phrase("kept_cited", language, n=str(len(cited)), m=str(len(top)), why=answered),
                "- " + phrase("added_caveats", language), ""]
        objections = _tag(prompt, "Previous perspective")
        caveats = [ln.strip("-* ") for ln in objections.splitlines() if ln.strip().startswith(("-", "*"))][:3]
        top = cited or top
    else:
        caveats = []
    out += [f"## {phrase('recommendation', language)}", ""]
    out += [f"- {s}" for s in top[:3]] or [phrase("no_findings", language)]
    if top[3:]:
        out += ["", f"## {phrase('reasons', language)}", ""] + [f"- {s}" for s in top[3:]]
    if caveats:
        out += ["", f"## {phrase('caveats', language)}", ""] + [f"- {c}" for c in caveats]
    return "\n".join(out) + "\n"


def critique(prompt: str, source_list: str, language: str) -> str:
    """Numbered flaws: uncited claims, source concentration, unstated assumptions, missing evidence."""
    from engine.offline import _tag

    sol = _tag(prompt, "Solution")
    sents = _cited_sentences(sol)
    uncited = [s for s in sents if not SID.search(s)]
    cited_numbers = sorted(set(SID.findall(sol)))
    listed = len(re.findall(r"^\[S[0-9a-f]{6}\]", source_list, re.MULTILINE))
    date = re.search(r"Today's date is ([\d-]+)", prompt)
    points = []
    if uncited:
        points.append(phrase("uncited", language, n=str(len(uncited)), example=_short(uncited[0], 120)))
    if len(cited_numbers) <= 1:
        points.append(phrase("one_source", language))
    else:
        points.append(phrase("unused_sources", language, n=str(len(cited_numbers)),
                             m=str(listed or len(cited_numbers))))
    points.append(phrase("assumption", language, date=date.group(1) if date else "—"))
    points.append(phrase("missing_evidence", language))
    points.append(phrase("improvement", language))
    return "\n".join(f"{i}. {p}" for i, p in enumerate(points, 1)) + "\n"


def perspective(prompt: str, language: str) -> str:
    """Objections of a competitor, a regulator and an affected user, with their incentives."""

    question = re.search(r"^Question: (.*)$", prompt, re.MULTILINE)
    subject = f"“{_short(question.group(1), 80)}”" if question else "…"
    return phrase("perspective", language, subject=subject)


def _role_labels(language: str) -> list[str]:
    """The role labels of the offline perspective (``Competitor``, ``Regulator``, ``Affected user``)."""
    return re.findall(r"^- ([^:\n]+):", phrase("perspective", language, subject="…"), re.MULTILINE)


def follow_up_questions(objections: str, question: str, language: str, limit: int = 3) -> list[str]:
    """Follow-up research questions from the review's open objections (``- Role: text`` lines).

    An objection of one of the offline perspective's roles gives that role's question; any
    other gives "what does the evidence say about this objection", quoting its first clause.
    Each names the question's subject, so it reads on its own; none without objections.
    """
    topic = phrase("quoted", language, q=_short(question.strip().rstrip("?？.!"), 80)) if question.strip() else "…"
    labels = [label.strip().casefold() for label in _role_labels(language)]
    out: list[str] = []
    for line in objections.splitlines():
        item = re.match(r"^\s*[-*]\s+(?:(?:As an? |Als |En tant que |Como )?([^:]{1,40}):\s*)?(.+)$", line)
        if not item:
            continue
        label = (item.group(1) or "").strip().casefold()
        if label in labels:
            text = phrase(f"follow_up_{labels.index(label)}", language, topic=topic)
        else:
            point = _short(re.split(r"[;.?!]", item.group(2).strip())[0], 100)
            text = phrase("follow_up_other", language, topic=topic, point=point)
        if text not in out:
            out.append(text)
    return out[:limit]


def finalize(prompt: str, language: str, notice: str) -> str:
    """The final synthesis: the research report's findings, then the review's outcome and open objections."""
    from engine.offline import _tag

    report = _tag(prompt, "Research Report")
    review = _tag(prompt, "Review")
    lines = report.splitlines()
    title = next((ln for ln in lines if ln.startswith("# ")), "# Research report")
    body = [ln for ln in lines if not ln.startswith("# ") and notice not in ln and "offline extractive" not in ln]
    rounds = len(re.findall(r"^### Solution", review, re.MULTILINE))
    last_critique = review.rsplit("### Critique", 1)[-1] if "### Critique" in review else ""
    points = [ln for ln in last_critique.splitlines() if re.match(r"^\d+\.", ln.strip())]
    last_persp = review.rsplit("### Perspective", 1)[-1] if "### Perspective" in review else ""
    objections = [ln for ln in last_persp.splitlines() if ln.strip().startswith("- ")]
    out = [title, "", f"*{notice}*", ""] + body
    out += ["", f"## {phrase('review_outcome', language)}", "",
            phrase("rounds", language, n=str(rounds)), ""]
    cited = set(SID.findall("\n".join(body)))
    out += [_recount(ln.strip(), cited, language) for ln in points[:4]] or [phrase("none", language)]
    out += ["", f"## {phrase('open_objections', language)}", ""] + (objections[:4] or [f"- {phrase('none', language)}"])
    return "\n".join(out).replace("\n\n\n", "\n\n") + "\n"


def _recount(point: str, cited: set[str], language: str) -> str:
    """A critique ``point`` with its "cites n of m sources" count redone for the final report's ``cited`` ids.

    The critique counted the draft it reviewed; the final report may cite more of the sources.
    Other points are returned unchanged.
    """
    template = PHRASES["unused_sources"].get(language, PHRASES["unused_sources"]["en"])
    pattern = re.escape(template).replace(re.escape("{n}"), r"(\d+)").replace(re.escape("{m}"), r"(?P<m>\d+)")
    found = re.search(pattern, point)
    if not found:
        return point
    number = point[:found.start()]
    available = max(int(found.group("m")), len(cited))
    if len(cited) >= available:
        return number + phrase("all_sources_cited", language, m=str(available))
    return number + phrase("unused_sources", language, n=str(len(cited)), m=str(available))


def chat_reply(prompt: str) -> str:
    """A neutral answer for an untagged prompt: its first sentences."""
    return " ".join(sentences(prompt)[:2])
