"""The bot answers in the thread's language: every reply of the conversation table, the turn's
status message and its notes, in each language of the catalogue."""

from __future__ import annotations

import re
import time

import pytest

from bots.chat_phrases import SAY
from engine.phrasebook import Phrasebook, template_fields
from engine.phrases import WORDS as ENGINE_WORDS
from engine.progress import WORDS as PROGRESS_WORDS
from engine.progress import Progress
from jobs.conversation import Action, Address, Message, decide, reply_for
from jobs.conversation.replies import REPLIES, reply_language
from jobs.phrases import WORDS, thread_language
from jobs.status import progress_text
from tests.bots.webhook.adapter import SAY as WEBHOOK_SAY
from tests.jobs.conversation.test_rules import KINDS, NOW, OTHER, REQUESTER, TABLE, VIEW, message, record

#: One research question per language of the catalogue, long enough for the language to be told.
QUESTIONS = {
    "en": "How do heat pumps work in very cold winters?",
    "de": "Wie funktionieren Wärmepumpen in sehr kalten Wintern?",
    "fr": "Comment fonctionnent les pompes à chaleur pendant les hivers très froids ?",
    "es": "¿Cómo funcionan las bombas de calor en los inviernos muy fríos?",
    "it": "Quali sono i vantaggi delle pompe di calore rispetto alle caldaie a gas?",
    "nl": "Hoe werken warmtepompen in zeer koude winters?",
    "pt": "Como funcionam as bombas de calor em invernos muito frios?",
    "sv": "Hur fungerar värmepumpar under mycket kalla vintrar?",
    "zh": "热泵在非常寒冷的冬天如何工作？",
    "ja": "ヒートポンプは非常に寒い冬にどのように機能しますか？",
    "zh-Hant": "熱泵在非常寒冷的冬天如何工作？",  # not in the files: the zh text in Traditional characters
}


#: Phrases written the same way in some languages as in English ("PDF", "30 min", "25 MB", ", ",
#: "- **{status}**{where}: ").
SAME_IN_SOME_LANGUAGES = {"kind_pdf", "span_minutes", "span_hours", "thousands_separator", "decimal_separator",
                          "list_separator", "size_mb", "size_kb", "files_read_and_skipped", "status_line",
                          "slack_where_channel", "names_separator", "file_and_reason", "file_page", "file_part"}


@pytest.mark.parametrize(("book", "languages"), [(WORDS, tuple(QUESTIONS)), (PROGRESS_WORDS, tuple(QUESTIONS)),
                                                 (ENGINE_WORDS, tuple(QUESTIONS)), (SAY, tuple(QUESTIONS)),
                                                 (WEBHOOK_SAY, tuple(QUESTIONS))],
                         ids=["chat", "progress", "engine", "adapters", "webhook"])
def test_every_phrase_is_in_every_language_with_the_same_fields(book: Phrasebook, languages: tuple[str, ...]):
    assert book.languages == languages
    for key, entry in book.catalogue.items():
        assert tuple(entry) == tuple(language for language in book.languages if language != "zh-Hant"), key
        fields = template_fields(entry["en"])
        for language, template in book.texts(key).items():
            assert template.strip() or key in ("and", "thousands_separator"), (key, language)
            assert template_fields(template) == fields, (key, language)
            if language != "en" and key not in SAME_IN_SOME_LANGUAGES:
                assert template != entry["en"], (key, language)  # translated, not copied


#: A French mark with a space before it (":", ";", "!", "?", "»") or after it ("«"): French sets a no-break
#: space there (U+00A0 before ":" and inside guillemets, the narrow U+202F before ";", "!" and "?"), so the
#: mark never starts a line of the PDF ("Lexique des règles typographiques en usage à l'Imprimerie
#: nationale": espace insécable).
BREAKABLE_FRENCH_SPACE = re.compile(r"[^\S\u00a0\u202f][:;!?»]|«[^\S\u00a0\u202f]")


def _french_texts() -> dict[str, str]:
    """Every French phrase the bot writes: the five catalogues, the report's phrases and the PDF's and
    Word document's labels, ``{where: template}``."""
    from engine.offline_phrases import PHRASES
    from engine.render.latex import LABELS

    texts = {f"{book.path.name}:{key}": entry["fr"]
             for book in (WORDS, PROGRESS_WORDS, ENGINE_WORDS, SAY, WEBHOOK_SAY)
             for key, entry in book.catalogue.items()}
    for key, entry in PHRASES.items():
        forms = entry["fr"] if isinstance(entry["fr"], tuple) else (entry["fr"],)
        texts |= {f"offline_phrases:{key}:{n}": form for n, form in enumerate(forms)}
    return texts | {f"labels.json:{key}": label for key, label in LABELS["fr"].items()}


def test_no_french_phrase_breaks_a_line_before_its_punctuation():
    texts = _french_texts()
    assert len(texts) > 200
    assert {where: text for where, text in texts.items() if BREAKABLE_FRENCH_SPACE.search(text)} == {}


def test_every_reply_of_the_table_has_its_phrase():
    from engine.phrases import WORDS as ENGINE_WORDS

    keys = {key for key, _, _ in REPLIES.values() if key is not None}
    assert keys <= set(WORDS.catalogue) | set(ENGINE_WORDS.catalogue)
    # a text the engine says too is kept once, in the engine's catalogue
    assert not {key for key, entry in WORDS.catalogue.items()
                if entry in ENGINE_WORDS.catalogue.values()}
    assert {a for a, (key, _, _) in REPLIES.items() if key is None} == {
        Action.START, Action.RESUME, Action.CANCEL, Action.DUPLICATE, Action.IGNORE}


@pytest.mark.parametrize("language", list(QUESTIONS))
def test_the_table_answers_in_the_language_of_the_threads_question(language):
    question = QUESTIONS[language]
    assert thread_language(question) == language
    seen = set()
    for (state, mine), actions in TABLE.items():
        old = record(state)
        if old is not None:
            old["question"] = question
        for kind, expected in zip(KINDS, actions, strict=True):
            msg = message(kind, REQUESTER if mine else OTHER)
            decision = decide(old, msg, NOW, VIEW)
            said = reply_for(decision, msg, VIEW, old)
            if said.text is None or old is None or expected in (Action.TOO_LONG, Action.EMPTY):
                continue
            key = REPLIES[expected][0]
            if expected in (Action.FILES_NOTED, Action.FILES_FOR_NEXT):  # the file named (files_text)
                mention = expected is Action.FILES_NOTED and msg.address is Address.MENTION
                assert said.text == WORDS(f"{key}_mention" if mention else key, language, names="notes.txt")
            else:
                assert said.text == WORDS(key, language, mention="{mention}", hours=1, limit=VIEW.max_chars,
                                          length=len(msg.body)), (state, mine, kind)
            seen.add(expected)
    assert seen >= {Action.BUSY, Action.BUSY_OTHER, Action.WAITS_OTHER, Action.ANSWER_IN_WORDS, Action.REFUSE_CANCEL,
                    Action.REFUSE_ANSWER, Action.EXPIRED, Action.CANCEL_PAUSED, Action.NOTHING_RUNNING, Action.ANSWER_TOO_LONG,
                    Action.ANSWER_FIRST, Action.FILES_NOTED, Action.FILES_FOR_NEXT}


def test_a_new_question_refused_is_answered_in_its_own_language():
    long_german = "Warum ist der Himmel über den Bergen am Abend so rot und nicht blau? " * 2
    msg = Message(thread_key="t", author=REQUESTER, text=long_german, event_id="e1", address=KINDS["ask@"][1])
    decision = decide(None, msg, NOW, VIEW)
    assert decision.action is Action.TOO_LONG
    assert reply_for(decision, msg, VIEW, None).text.startswith(
        f"Die Frage ist {len(long_german.strip())} Zeichen lang; erlaubt sind 50.")
    # in a Japanese thread, a German question over the limit is still answered in German
    old = {**record("done"), "question": QUESTIONS["ja"]}
    assert reply_language(old, msg, Action.TOO_LONG) == "de"
    # an empty question says nothing of its language: the thread's, else English
    empty = Message(thread_key="t", author=REQUESTER, text="  ", event_id="e2", address=KINDS["ask@"][1])
    assert reply_language(old, empty, Action.EMPTY) == "ja"
    assert reply_language(None, empty, Action.EMPTY) == "en"


def test_a_thread_in_a_language_the_catalogue_lacks_is_answered_in_english():
    old = {**record("running"), "question": "Как работают тепловые насосы зимой?"}
    said = reply_for(decide(old, message("ask@", REQUESTER), NOW, VIEW), message("ask@", REQUESTER), VIEW, old)
    assert said.text == "Still working on this — reply `cancel` to stop it."


def test_the_status_message_speaks_the_language_given():
    progress = Progress(phase="review", topics_started=3, topics_finished=2, sources_found=1, review_iteration=2,
                        errors=["x"])
    assert progress_text(progress, elapsed=75) == (
        "Research in progress\nReviewing the report (round 2) · topics 2/3 done · 1 source found · 1:15 elapsed"
        "\n1 problem: x")
    assert progress_text(progress, resumed=True, elapsed=75, language="de") == (
        "Recherche ab dem letzten Checkpoint fortgesetzt\nBericht wird geprüft (Runde 2) · Themen 2/3 fertig"
        " · 1 Quelle gefunden · 1:15 vergangen\n1 Problem: x")
    progress.sources_found = 4
    assert "4 sources trouvées" in progress_text(progress, elapsed=0, language="fr")
    assert progress_text(progress, elapsed=0, language="ko") == progress_text(progress, elapsed=0)


@pytest.mark.parametrize(("language", "working", "head", "line"), [
    ("it", "La ricerca è ancora in corso: rispondi `cancel` per fermarla.", "Ricerca in corso",
     "Ricerca delle fonti · argomenti 1/2 completati · 3 fonti trovate · 1:15 trascorsi"),
    ("nl", "Het onderzoek loopt nog: antwoord met `cancel` om het te stoppen.", "Onderzoek loopt",
     "Bronnen zoeken · onderwerpen 1/2 klaar · 3 bronnen gevonden · 1:15 verstreken"),
    ("pt", "A pesquisa ainda está em andamento: responda `cancel` para interrompê-la.", "Pesquisa em andamento",
     "Buscando fontes · temas 1/2 concluídos · 3 fontes encontradas · 1:15 decorridos"),
    ("sv", "Undersökningen pågår fortfarande – svara `cancel` för att avbryta den.", "Undersökningen pågår",
     "Söker källor · ämnen 1/2 klara · 3 källor hittade · förfluten tid 1:15"),
])
def test_a_question_in_a_language_of_the_offline_report_gets_its_chat_and_progress_lines(language, working, head,
                                                                                          line):
    question = QUESTIONS[language]
    old = {**record("running"), "question": question}
    busy = reply_for(decide(old, message("ask@", REQUESTER), NOW, VIEW), message("ask@", REQUESTER), VIEW, old)
    assert busy.text == working
    progress = Progress(phase="research", topics_started=2, topics_finished=1, sources_found=3)
    assert progress_text(progress, elapsed=75, language=thread_language(question)) == f"{head}\n{line}"


def test_a_failure_and_a_quota_refusal_are_said_in_the_language_given():
    from jobs.errors import ResearchTimeout, user_message
    from jobs.quotas import Verdict, refused_text

    assert user_message(ResearchTimeout("x"), job_timeout=3600, language="de") == (
        "Die Recherche wurde gestoppt: Sie lief länger als das Limit von 60 Minuten. "
        "Versuche es mit einer engeren Frage.")
    assert user_message(KeyError("k"), job_timeout=3600) == (
        "The research failed because of an internal error (KeyError). The details are in the bot's log.")
    running = Verdict(False, limit="running", who="workspace", maximum=2)
    assert refused_text(running, language="es").startswith("Este espacio de trabajo ya tiene 2 investigaciones")
    assert refused_text(Verdict(False, limit="running", who="user", maximum=1)).startswith(
        "You have 1 research running already")
    daily = Verdict(False, limit="daily", who="user", maximum=1000, retry_at=NOW + 3 * 3600 + 60)
    assert refused_text(daily, NOW, "ja") == (
        "24 時間に開始できるリサーチの上限（1,000 件）に達しました。"
        f"{time.strftime('%H:%M UTC', time.gmtime(NOW + 3 * 3600 + 60))} 以降（約 3 時間 1 分 後）にもう一度お試しください。")
    tokens = Verdict(False, limit="tokens", who="user", maximum=5, retry_at=None)
    assert refused_text(tokens, NOW, "zh") == "你已用完 24 小时内允许的模型额度（5）。请稍后再试。"


def test_numbers_are_grouped_as_each_language_writes_them():
    from jobs.conversation.replies import refused_question
    from jobs.phrases import number

    assert [number(10_225, lang) for lang in ("en", "de", "fr", "es", "ja", "it", "nl", "pt", "sv")] == [
        "10,225", "10.225", "10\u202f225", "10.225", "10,225", "10.225", "10.225", "10.225", "10\u00a0225"]
    long_german = "Warum ist der Himmel am Abend rot? " * 300
    said = refused_question(long_german, ValueError("too long"), "de")
    assert said.startswith("Die Frage ist 10.499 Zeichen lang; erlaubt sind 8.000.")
    assert refused_question("  ", ValueError("The question is empty"), "de") == "The question is empty"


def test_a_slash_command_refused_as_empty_or_without_words_is_told_in_its_language():
    from engine.runner import TurnRejected, validate_question
    from jobs.conversation.replies import refused_question

    def refusal(question: str) -> TurnRejected:
        with pytest.raises(TurnRejected) as refused:
            validate_question(question)
        return refused.value

    assert refused_question("  ", refusal("  "), "de") == "Die Frage ist leer: Gib an, was recherchiert werden soll."
    assert refused_question("🚀", refusal("🚀"), "fr") == (
        "La question ne contient aucun mot (seulement des symboles ou des emoji)\u00a0: formulez avec des mots ce "
        "qu'il faut rechercher.")
    assert refused_question("  ", refusal("  "), "en") == "The question is empty: ask something to research."
    long_japanese = "ヒートポンプは寒い冬にどのように機能しますか？" * 400
    assert refused_question(long_japanese, refusal(long_japanese), "ja").startswith(
        "質問が 9,200 文字あります。上限は 8,000 文字です。")

