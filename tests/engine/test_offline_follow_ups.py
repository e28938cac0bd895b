"""The offline model's suggested follow-up questions speak of sources only when the run read some:
without any (no search back end, or a search that found nothing) they help narrow the question or
name the evidence that would settle it, in the question's language."""

from __future__ import annotations

import asyncio
import re

import pytest

from engine import offline_follow_ups as F
from engine import offline_review as R
from engine.chinese import traditional
from engine.offline_phrases import PHRASES, phrase
from engine.offline_synthesis import read_sources
from engine.runner import run_turn
from engine.search.corpus_index import index_directory
from tests.engine.test_offline_and_process import corpus_settings

# the follow-ups and report.md are what these tests read, not the typeset files
pytestmark = pytest.mark.usefixtures("untypeset")

#: The follow-up phrases that presume sources were read: what the sources (or their evidence, or a
#: finding quoted from them) say.
SOURCE_KEYS = ("follow_up_finding", "follow_up_terms", "follow_up_other")
#: The word "source" in each language the phrase table has (French "quelle" is no German "Quelle").
SOURCE_WORD = {"en": r"\bsources?\b", "de": r"\bQuellen?\b", "fr": r"\bsources?\b", "es": r"\bfuentes?\b",
               "it": r"\bfont[ei]\b", "nl": r"\bbron(?:nen)?\b", "pt": r"\bfontes?\b", "sv": r"\bkäll(?:a|or|orna)\b",
               "ja": "出典", "zh": "来源", "zh-Hant": "來源"}


#: The follow-up phrases for a run that read no source.
UNREAD_KEYS = ("follow_up_narrow", "follow_up_evidence_terms", "follow_up_evidence_other")


def opens_as(question: str, key: str, language: str) -> bool:
    """True when ``question`` reads as the phrase ``key`` in ``language``, whatever fills its blanks
    (a Japanese phrase may open with one)."""
    pattern = re.sub(r"\\\{\w+\\\}", ".+", re.escape(PHRASES[key][language]))
    return re.fullmatch(pattern, question, re.DOTALL) is not None


def speaks_of_sources(question: str, language: str) -> bool:
    """True when ``question`` says "source" in ``language``, or opens like a follow-up phrase that
    presumes sources."""
    return (bool(re.search(SOURCE_WORD[language], question, re.IGNORECASE))
            or any(opens_as(question, key, language) for key in (*SOURCE_KEYS, *(f"{k}_no_topic" for k in SOURCE_KEYS))))


def _unrelated_corpus(tmp_path):
    folder = tmp_path / "garden"
    folder.mkdir()
    (folder / "tomatoes.md").write_text("# Tomatoes\n\nTomatoes grow best in warm sun with regular watering.\n")
    return folder


@pytest.mark.parametrize(("question", "language", "search"), [
    ("What are the limitations of heat pumps in cold climates?", "en", "none"),
    ("Welche Grenzen haben Wärmepumpen bei kaltem Klima?", "de", "none"),
    ("Quelles sont les limites des vélos électriques en hiver ?", "fr", "corpus"),  # nothing on it there
])
def test_without_sources_no_follow_up_speaks_of_sources(offline_settings, tmp_path, question, language, search):
    settings = offline_settings(allow_clarification=False, search=search,
                                **({"corpus_dir": _unrelated_corpus(tmp_path)} if search == "corpus" else {}))
    if search == "corpus":
        index_directory(settings.corpus_dir, settings.corpus_index_path)
    out = asyncio.run(run_turn("console:nosrc", question=question, settings=settings))
    assert phrase("no_findings", language) in out.artifacts.report_md.read_text()  # no source read
    assert out.follow_ups, "the review left the question's words open: something to suggest"
    assert not [q for q in out.follow_ups if speaks_of_sources(q, language)], out.follow_ups
    topic = question.rstrip(" ?")
    # each names the question, or every word of it ("heat pumps", "cold climates"), so it reads on its own
    assert all(topic in q or F._names_question(q, question, language) for q in out.follow_ups), out.follow_ups


def test_with_sources_read_the_follow_up_asks_what_they_say(offline_settings, tmp_path):
    settings = corpus_settings(offline_settings, tmp_path, allow_clarification=False)
    question = "What do heat pumps cost and how much noise and maintenance do they make?"
    out = asyncio.run(run_turn("console:src", question=question, settings=settings))
    assert out.follow_ups == [f"What do the sources say about “maintenance” for “{question.rstrip('?')}”?"]


#: One open objection of each kind, per language: a finding left out, words of the question left
#: unanswered, another role's objection.
OBJECTIONS = {
    "en": ("Reader", "the findings also say “Air pumps cost 9,000 euros.” [S000001], which the solution leaves out",
           "the question asks about “cheapest”, and the solution says nothing about it", "Investor"),
    "de": ("Leser", "die Ergebnisse sagen auch „Luft-Wärmepumpen kosten 9.000 Euro.“ [S000001], was die Lösung "
           "auslässt", "in der Frage geht es um „günstigsten“, und die Lösung sagt nichts dazu", "Investor"),
    "fr": ("Lecteur", "les résultats disent aussi « Les pompes coûtent 9 000 euros. » [S000001], que la solution "
           "omet", "la question porte sur « moins chères », et la solution n'en dit rien", "Investisseur"),
    "es": ("Lector", "los hallazgos también dicen «Las bombas cuestan 9.000 euros.» [S000001], que la solución "
           "omite", "la pregunta trata de «baratas», y la solución no dice nada al respecto", "Inversor"),
    "ja": ("読者", "調査結果には「空気熱源ヒートポンプは9,000ユーロかかる。」 [S000001]ともありますが、解決案はこれに触れていません",
           "質問は「最も安い」について尋ねていますが、解決案はそれについて何も述べていません", "投資家"),
    "zh": ("读者", "研究结果还提到“空气源热泵的价格为9000欧元。” [S000001]，而方案遗漏了这一点",
           "问题涉及“最便宜”，而方案对此只字未提", "投资者"),
    "it": ("Lettore", "i risultati dicono anche «Le pompe costano 9.000 euro.» [S000001], che la soluzione "
           "tralascia", "la domanda riguarda «più economiche», e la soluzione non ne dice nulla", "Investitore"),
    "nl": ("Lezer", "de bevindingen zeggen ook “Luchtwarmtepompen kosten 9.000 euro.” [S000001], wat de oplossing "
           "weglaat", "de vraag gaat over “goedkoopste”, en de oplossing zegt daar niets over", "Investeerder"),
    "pt": ("Leitor", "os resultados também dizem “As bombas custam 9.000 euros.” [S000001], o que a solução "
           "omite", "a pergunta trata de “mais baratas”, e a solução não diz nada a respeito", "Investidor"),
    "sv": ("Läsare", "resultaten säger också ”Luftvärmepumpar kostar 9 000 euro.” [S000001], vilket lösningen "
           "utelämnar", "frågan gäller ”billigast”, och lösningen säger ingenting om det", "Investerare"),
}
OBJECTIONS["zh-Hant"] = tuple(traditional(text) for text in OBJECTIONS["zh"])  # as the offline review writes them


@pytest.mark.parametrize("language", sorted(PHRASES["follow_up_terms"]))
def test_every_language_has_follow_ups_without_sources(language):
    reader, finding, words_, other = OBJECTIONS[language]
    objections = f"- {reader}: {finding}.\n- {reader}: {words_}.\n- {other}: the payback period is never computed.\n"
    read = F.follow_up_questions(objections, "heat pumps", language, limit=5)
    assert len(read) == 3 and all(opens_as(q, key, language) for q, key in zip(read, SOURCE_KEYS, strict=True)), read
    # without: a finding quotes a source, so none; the words left open narrow the question and name evidence
    unread = F.follow_up_questions(objections, "heat pumps", language, limit=5, sources_read=False)
    assert len(unread) == 3 and not [q for q in unread if speaks_of_sources(q, language)], unread
    assert all(opens_as(q, key, language) for q, key in zip(unread, UNREAD_KEYS, strict=True)), unread
    assert all(PHRASES[key].keys() == PHRASES["follow_up_terms"].keys() for key in UNREAD_KEYS)


def test_a_report_read_no_source_when_it_cites_none_and_says_none_was_found():
    assert not read_sources("# Bikes\n\nAucune source n'a été trouvée pour cette question ; le rapport ne peut "
                              "citer aucune preuve.\n", "fr")
    assert not read_sources(f"# Bikes\n\n{phrase('no_findings', 'fr')}\n", "fr")
    assert read_sources("# Bikes\n\n- Bikes have two wheels. [S00a1b2]\n", "en")
    assert read_sources("# Bikes\n\n1 source found; it had no passage on this question to quote.\n", "en")


def _objections(language: str, findings: list[str], terms: str, points: list[str]) -> str:
    """The review's open objections as the offline reader and another role write them: each of
    ``findings`` left out, the question's word ``terms`` unanswered, and each of ``points``."""
    reader = phrase("reader", language)
    lines = [phrase("role_says", language, role=reader, text=phrase(
        "left_out", language, q=phrase("quoted", language, q=f), sid=f"S00000{i}")) for i, f in enumerate(findings)]
    lines.append(phrase("role_says", language, role=reader, text=phrase(
        "not_addressed", language, terms=phrase("quoted", language, q=terms))))
    lines += [phrase("role_says", language, role="Investor", text=f"{p}.") for p in points]
    return "".join(f"- {line}\n" for line in lines)


#: A one-word question per language, and a finding and an objection that name it.
ONE_WORD = {
    "en": ("Geothermal", "Geothermal plants run all year.", "Geothermal drilling costs are never given"),
    "de": ("Wärmepumpen", "Wärmepumpen laufen auch im Winter.", "Wärmepumpen sind laut, sagt niemand"),
    "fr": ("Géothermie", "La Géothermie fonctionne toute l'année.", "la Géothermie coûte cher à forer"),
    "es": ("Geotermia", "La Geotermia funciona todo el año.", "la Geotermia es cara de perforar"),
    "ja": ("ヒートポンプ", "ヒートポンプは冬でも動く。", "ヒートポンプの騒音が示されていない"),
    "zh": ("热泵", "热泵在冬天也能运行。", "热泵的噪音没有给出"),
}


@pytest.mark.parametrize("language", sorted(ONE_WORD))
@pytest.mark.parametrize("read", [True, False])
def test_a_follow_up_names_the_question_once_when_its_other_part_names_it_already(language, read):
    """A one-word question is the word the review found unanswered, and the finding and objection
    quoted name it: the follow-up says it once, not "about “X” for “X”"."""
    question, finding, point = ONE_WORD[language]
    asked = F.follow_up_questions(_objections(language, [finding], question, [point]), question, language,
                                  limit=5, sources_read=read)
    # the word left unanswered is the whole question: it is narrowed and its evidence named, read or not
    assert len(asked) == (4 if read else 3), asked
    assert all(q.casefold().count(question.casefold()) == 1 for q in asked), asked


@pytest.mark.parametrize("language", sorted(ONE_WORD))
@pytest.mark.parametrize("read", [True, False])
def test_follow_ups_on_one_question_differ_in_their_first_75_characters(language, read):
    """What tells the follow-ups apart (the finding, the word, the objection) comes before the
    question they are about: a chat button shows 75 characters of each."""
    from jobs.port import short_label

    question = "How does asyncio cancel tasks and handle timeouts in long-running network services?"
    findings = ["asyncio.Future.cancel() accepts an optional msg argument.", "Using asyncio.Queue to distribute "
                "workload between several Tasks."]
    points = ["the cost of a cancelled request is never given", "nobody says which Python version is meant"]
    asked = F.follow_up_questions(_objections(language, findings, "timeouts", points), question, language,
                                  limit=5, sources_read=read)
    assert len(asked) == (5 if read else 4), asked
    assert len({short_label(q) for q in asked}) == len(asked), asked


#: Per language: a question and the words of it no claim answers (as it writes them).
PARTLY = {
    "en": ("Which heat pumps work best in cold climates?", ["best"]),
    "de": ("Welche Wärmepumpen sind in Deutschland am günstigsten?", ["günstigsten"]),
    "fr": ("Quelles pompes à chaleur sont les moins chères en hiver ?", ["moins", "chères"]),
    "en-two": ("What do heat pumps cost and how much noise and maintenance do they make?", ["noise", "maintenance"]),
    "en-symbols": ("Is C# faster than C++ for games?", ["C#", "faster"]),
}


def _reader_terms(language: str, words_: list[str]) -> str:
    reader = phrase("reader", language)
    terms = phrase("list_separator", language).join(phrase("quoted", language, q=w) for w in words_)
    return f"- {phrase('role_says', language, role=reader, text=phrase('not_addressed', language, terms=terms))}\n"


@pytest.mark.parametrize("case", sorted(PARTLY))
@pytest.mark.parametrize("read", [True, False])
def test_a_follow_up_on_words_of_the_question_names_them_first_then_the_whole_question(case, read):
    """The words left unanswered come first, the whole question after them, so the follow-up reads on
    its own as a new research question: "about “best” for “Which heat pumps work best in cold climates”"."""
    language = case.split("-")[0]
    question, words_ = PARTLY[case]
    asked = F.follow_up_questions(_reader_terms(language, words_), question, language, sources_read=read)
    [terms_q] = [q for q in asked if opens_as(q, "follow_up_terms" if read else "follow_up_evidence_terms", language)]
    whole = question.strip().rstrip("?？.!").strip()
    assert phrase("quoted", language, q=whole) in terms_q, terms_q
    for word in words_:
        assert terms_q.index(word) < terms_q.index(phrase("quoted", language, q=whole)), terms_q


@pytest.mark.parametrize(("language", "question", "words_"), [
    ("en", "Which inverters are cheapest?", ["inverters", "cheapest"]),
    ("en", "Geothermal", ["Geothermal"]),
    ("de", "Wärmepumpen", ["Wärmepumpen"]),
    ("de", "Welche Wechselrichter sind am günstigsten?", ["Wechselrichter", "günstigsten"]),
])
def test_no_follow_up_is_the_question_again(language, question, words_):
    """Every word of the question left unanswered after sources were read: asking what the sources say
    about those words is the question again, so the follow-ups narrow it and name the evidence that
    would settle it (none narrows a question the asker's answer to a clarifying question narrowed)."""
    asked = F.follow_up_questions(_reader_terms(language, words_), question, language)
    assert not [q for q in asked if opens_as(q, "follow_up_terms_no_topic", language)
                or opens_as(q, "follow_up_terms", language)], asked
    assert len(asked) == 2 and opens_as(asked[0], "follow_up_narrow", language), asked
    assert opens_as(asked[1], "follow_up_evidence_terms_no_topic", language), asked
    clarified = F.follow_up_questions(_reader_terms(language, words_), question, language, clarified=True)
    assert len(clarified) == 1 and opens_as(clarified[0], "follow_up_evidence_terms_no_topic", language), clarified


def _stems(text: str, language: str) -> list[str]:
    from engine.offline_terms import terms
    from engine.offline_text import content_words

    return terms(" ".join(content_words(text, names=True)), language, split=False)


#: A small corpus per language and questions over it: some answered in part, some not at all.
CORPORA = {
    "en": ({"pumps.md": "# Heat pumps\n\nAir-source heat pumps cost between 8000 and 12000 euros to install in a house.\n"
                        "Ground-source heat pumps reach a seasonal efficiency of 4.5 in cold climates.\n"
                        "Heat pumps in cold climates lose efficiency below minus 15 degrees.\n",
            "langs.md": "# Languages\n\nC++ compiles to native code and gives manual control over memory.\n"
                        "The C language has no classes and no exceptions at all.\n"},
           ["Which heat pumps work best in cold climates?", "How efficient are air-source heat pumps?",
            "Which inverters are cheapest?", "Does C++ suit embedded firmware?", "Geothermal"]),
    "de": ({"waerme.md": "# Wärmepumpen\n\nLuftwärmepumpen kosten in Deutschland zwischen 8000 und 12000 Euro.\n"
                         "Erdwärmepumpen erreichen eine Jahresarbeitszahl von 4,5 auch im kalten Winter.\n"
                         "Wärmepumpen verlieren bei strengem Frost deutlich an Effizienz.\n"},
           ["Welche Wärmepumpen sind in Deutschland am günstigsten?", "Wie laut sind Wärmepumpen im Winter?",
            "Welche Wechselrichter sind am günstigsten?", "Wärmepumpen"]),
}


@pytest.mark.parametrize("language", sorted(CORPORA))
def test_asked_over_a_corpus_no_follow_up_repeats_the_questions_words(offline_settings, tmp_path, language):
    documents, questions = CORPORA[language]
    settings = corpus_settings(offline_settings, tmp_path, documents, allow_clarification=False)
    suggested = 0
    for i, question in enumerate(questions):
        out = asyncio.run(run_turn(f"console:repeat{i}", question=question, settings=settings))
        asked = _stems(question, language)
        for follow_up in out.follow_ups:
            suggested += 1
            said = _stems(follow_up, language)
            assert all(said.count(stem) <= 1 for stem in asked), (question, follow_up)
            # "what do the sources say about" every word of the question is the question again
            alone = opens_as(follow_up, "follow_up_terms_no_topic", language) and not opens_as(
                follow_up, "follow_up_terms", language)
            words_ = _stems(" ".join(R._QUOTED.findall(follow_up)), language)
            assert not (alone and set(words_) == set(asked)), (question, follow_up)
    assert suggested >= len(questions), "the questions are made to leave words open"


def test_after_a_clarifying_answer_no_follow_up_asks_to_narrow_the_question(offline_settings, tmp_path):
    """The answer to the clarifying question narrowed the question: no follow-up asks for that again."""
    settings = offline_settings(search="corpus", corpus_dir=_unrelated_corpus(tmp_path), allow_clarification=True)
    index_directory(settings.corpus_dir, settings.corpus_index_path)
    asked = asyncio.run(run_turn("console:narrowed", question="wind", settings=settings))
    assert asked.status == "clarify", asked
    out = asyncio.run(run_turn("console:narrowed", answer="offshore wind turbines and their noise", settings=settings))
    assert out.status == "done", out
    assert out.follow_ups, "the review left the question open: something to suggest"
    assert not [q for q in out.follow_ups if opens_as(q, "follow_up_narrow", "en")], out.follow_ups
    # without the answer the same question is narrowed
    settings = offline_settings(search="corpus", corpus_dir=settings.corpus_dir, allow_clarification=False)
    out = asyncio.run(run_turn("console:unnarrowed", question="wind", settings=settings))
    assert [q for q in out.follow_ups if opens_as(q, "follow_up_narrow", "en")], out.follow_ups


#: A question ending with each script's question mark (Arabic, Armenian, Chinese and Japanese's
#: full-width one, Latin), asked in English: each follow-up quotes it without its mark, so none ends
#: in two question marks ("…المهلات؟”?").
MARKED = ["كيف يلغي asyncio المهام ويتعامل مع المهلات؟", "Ինչպե՞ս է asyncio-ն չեղարկում առաջադրանքները՞",
          "How does asyncio cancel tasks？", "How does asyncio cancel tasks?", "How does asyncio cancel tasks ?!"]


@pytest.mark.parametrize("question", MARKED)
@pytest.mark.parametrize("read", [True, False])
def test_a_follow_up_quotes_the_question_without_its_question_mark_in_any_script(question, read):
    objections = _objections("en", ["Tasks are cancelled with cancel()."], "cancel", ["timeouts are never given"])
    asked = F.follow_up_questions(objections, question, "en", limit=5, sources_read=read)
    assert asked
    for follow_up in asked:
        assert not re.search(r"[?？؟՞][”\"]", follow_up), follow_up
        assert follow_up.count("?") == 1 and follow_up.endswith("?"), follow_up


@pytest.mark.parametrize("point", ["The 1.5 kW figure for asyncio.run() is not backed by a source",
                                   "Costs of 0.35 € per kWh. Other prices are missing"])
def test_an_objections_first_clause_keeps_its_numbers_and_dotted_names_whole(point):
    # the clause ended at the first full stop, inside "1.5" or "asyncio.run()": "The 1 …"
    asked = F.follow_up_questions(f"- Competitor: {point}", "Which heat pumps are cheapest?", "en",
                                  limit=5, sources_read=True)
    first = point.split(". ")[0]
    assert asked and all(first in q for q in asked), asked


@pytest.mark.parametrize(("question", "language", "asked"), [
    ("Which heat pumps work best in cold climates?", "en", ["heat pumps", "best", "climates"]),
    ("How efficient are air-source heat pumps in winter?", "en", ["efficient", "air-source heat pumps"]),
    ("What is the best heat pump for cold climates?", "en", ["best heat pump", "climates"]),
    ("How does the event loop schedule callbacks?", "en", ["event loop", "schedule", "callbacks"]),
    # the subject's verb is no word of it: "asyncio cancel" names no thing
    ("How does asyncio cancel tasks and handle timeouts?", "en", ["asyncio", "cancel", "tasks", "timeouts"]),
    ("¿Cuánto cuesta una bomba de calor?", "es", ["cuesta", "bomba de calor"]),
    ("Combien coûte une pompe à chaleur par rapport à une chaudière à gaz ?", "fr",
     ["coûte", "pompe à chaleur", "chaudière à gaz"]),
    ("Come funzionano le pompe di calore?", "it", ["pompe di calore"]),
    ("Was kostet eine Gasheizung im Vergleich zu einer Wärmepumpe?", "de", ["kostet", "Gasheizung", "Wärmepumpe"]),
])
def test_the_review_names_the_questions_subject_as_a_phrase_not_its_single_words(question, language, asked):
    prompt = f"Question: {question}\n<Solution>\n## Recommendation\n\n- Winter is cold. [S000001]\n</Solution>"
    said = R.perspective(prompt, "", language)
    assert R._terms(asked, language) in said, said
    follow_ups = F.follow_up_questions(said, question, language)
    assert any(R._terms(asked, language, markdown=False) in q for q in follow_ups), follow_ups


def test_a_follow_up_on_the_subjects_phrase_names_the_phrase_then_the_question():
    objection = "- Reader: the question asks about “heat pumps”, and the solution says nothing about it.\n"
    question = "Which heat pumps work best in cold climates?"
    assert F.follow_up_questions(objection, question, "en") == [
        "What do the sources say about “heat pumps” for “Which heat pumps work best in cold climates”?"]
    # the phrase and the question's other words are the whole question: it is not named twice
    objection = "- Reader: the question asks about “heat pumps”, “best”, and the solution says nothing about it.\n"
    assert F.follow_up_questions(objection, "Which heat pumps are best?", "en")[-1] == (
        "Which data or documents would settle “heat pumps”, “best”?")


@pytest.mark.parametrize(("question", "language", "asked"), [
    ("How much does a gas boiler cost compared to a heat pump?", "en", ["gas boiler", "cost", "heat pump"]),
    ("¿Cuánto cuesta una bomba de calor frente a una caldera de gas?", "es",
     ["cuesta", "bomba de calor", "caldera de gas"]),
    ("Combien coûte une pompe à chaleur par rapport à une chaudière à gaz ?", "fr",
     ["coûte", "pompe à chaleur", "chaudière à gaz"]),
    ("What is the best way to store potatoes?", "en", ["best way", "store", "potatoes"]),  # "to" a verb's
])
def test_a_phrase_after_a_preposition_is_named_whole(question, language, asked):
    claims = ["Winter is cold. [S000001]"]
    assert R.phrases(R.unanswered(question, claims, language), question, language) == asked


@pytest.mark.parametrize(("question", "language", "verb"), [
    ("Comment asyncio gère-t-il les délais d'attente et l'annulation des tâches ?", "fr", "gère"),
    ("Comment asyncio annule-t-il les tâches ?", "fr", "annule"),
    ("¿Cómo gestiona asyncio los tiempos de espera?", "es", "gestiona"),
    ("Come gestisce la libreria asyncio i timeout?", "it", "gestisce"),
])
@pytest.mark.parametrize("read", [True, False])
def test_no_follow_up_names_the_questions_conjugated_verb_as_a_term(question, language, verb, read):
    prompt = f"Question: {question}\n<Solution>\n## Recommendation\n\n- Winter is cold. [S000001]\n</Solution>"
    said = R.perspective(prompt, "", language)
    follow_ups = F.follow_up_questions(said, question, language, sources_read=read)
    assert follow_ups, said
    """A conjugated verb ("gère" of "gère-t-il", "gestiona" after "Cómo") names no thing to ask the sources about."""
    assert R._quoted(verb, language) not in said, said
    assert not [q for q in follow_ups if R._quoted(verb, language, markdown=False) in q], follow_ups
