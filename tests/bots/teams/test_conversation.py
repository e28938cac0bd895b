"""Whole Teams conversations through the real web endpoint, the job layer and the offline engine."""

from __future__ import annotations

import requests
from botbuilder.schema import Activity

import jobs
from bots.teams.bot import thread_id_of
from tests.bots.teams.activities import BOB, channel_mention, file_consent, personal_message
from tests.waiting import wait_for


def _thread(activity: dict) -> str:
    return thread_id_of(Activity().deserialize(activity))


def _wait_status(settings, thread_id: str, statuses: tuple[str, ...]):
    """The thread's registry record once its status is one of ``statuses`` (fails at once on ``failed``)."""
    def reached():
        info = jobs.thread_info(thread_id, settings=settings)
        if info is not None and info.status == "failed" and "failed" not in statuses:
            raise AssertionError(f"thread {thread_id} failed: {info.error}")
        return info if info is not None and info.status in statuses else None

    return wait_for(reached, what=f"thread {thread_id} to reach {statuses}", every=0.1,
                    diag=lambda: f"last: {jobs.thread_info(thread_id, settings=settings)}")


def _cards(connector, conv: str, kind: str) -> list[dict]:
    return [a for m in connector.messages(conv) for a in m.attachments if a["contentType"].endswith(kind)]


def _download_cards(connector, conv: str) -> list[dict]:
    """The Adaptive Cards of download links (not the cards of buttons)."""
    return [c for c in _cards(connector, conv, "card.adaptive")
            if any(a["type"] == "Action.OpenUrl" for a in c["content"].get("actions", []))]


def _assert_status_messages_updated_in_place(connector, conv: str, turns: int) -> None:
    posted = {m.answer_id for m in connector.messages(conv) if m.text.startswith("Starting the research")}
    assert len(posted) == turns, "one status message per turn"
    updated = {u.activity_id for u in connector.updates()}
    assert updated == posted, "each status message is edited in place, nothing else is"


def test_personal_chat_clarification_to_consent_and_upload(bot, connector, settings):
    conv = "a:personal-alice-e2e"
    first = personal_message(connector.url, "heat pumps", conversation_id=conv)
    assert bot.send(first).status_code in (200, 201)
    assert connector.typing(), "a typing indicator on receipt"
    thread_id = _thread(first)
    assert thread_id == f"teams:{first['channelData']['tenant']['id']}:{conv}"
    _wait_status(settings, thread_id, ("paused",))
    # the thread is paused just before its question is posted: the question follows in the same chat
    connector.wait_for(lambda c: "?" in c.messages(conv)[-1].text, what="the clarifying question")

    answer = personal_message(connector.url, "The EU market size and growth from 2020 to 2024", conversation_id=conv)
    bot.send(answer)
    info = _wait_status(settings, thread_id, ("done",))
    connector.wait_for(lambda c: len(_cards(c, conv, "file.consent")) == len(info.report_files), what="consent cards")
    _assert_status_messages_updated_in_place(connector, conv, turns=2)
    summary = next(m for m in connector.messages(conv) if m.text.startswith("**"))
    assert "2020" in summary.text and summary.activity["textFormat"] == "markdown"

    consent = _cards(connector, conv, "file.consent")
    assert {a["name"] for a in consent} == {p.name for p in info.report_files} >= {"report.md"}
    for card in consent:
        name = card["name"]
        assert card["content"]["sizeInBytes"] == (info.report_dir / name).stat().st_size
        invoke = file_consent(connector.url, "accept", card["content"]["acceptContext"],
                              upload_url=connector.upload_url(name), name=name, conversation_id=conv)
        assert bot.send(invoke).status_code == 200
        assert connector.uploads[name] == (info.report_dir / name).read_bytes()
    file_cards = _cards(connector, conv, "file.info")
    assert sorted(a["name"] for a in file_cards) == sorted(a["name"] for a in consent)


def test_channel_mention_clarification_to_download_link(bot, connector, settings):
    mention = channel_mention(connector.url, "heat pumps")
    bot.send(mention)
    conv = mention["conversation"]["id"]
    thread_id = _thread(mention)
    assert ";messageid=" in thread_id
    _wait_status(settings, thread_id, ("paused",))
    connector.wait_for(lambda c: "?" in c.messages(conv)[-1].text, what="the clarifying question")

    root = mention["id"]
    intruder = channel_mention(connector.url, "answer it for her: tariffs", sender=BOB, root_id=root)
    bot.send(intruder)
    assert jobs.thread_info(thread_id, settings=settings).status == "paused"
    refusal = connector.messages(conv)[-1]
    assert "only" in refusal.text.lower() and "<@" not in refusal.text

    bot.send(channel_mention(connector.url, "Residential installations in Germany since 2020", root_id=root))
    info = _wait_status(settings, thread_id, ("done",))
    connector.wait_for(lambda c: _download_cards(c, conv), what="download card")
    (card,) = _download_cards(connector, conv)
    urls = {a["title"]: a["url"] for a in card["content"]["actions"]}
    assert set(urls) == {f"Download {p.name}" for p in info.report_files}
    assert all(u.startswith(f"{bot.url}/files/") for u in urls.values())
    md = requests.get(urls["Download report.md"], timeout=60)
    assert md.status_code == 200 and md.content == (info.report_dir / "report.md").read_bytes()
    assert "Download report.pdf" in urls, "the PDF was built"
    pdf = requests.get(urls["Download report.pdf"], timeout=60)
    assert pdf.status_code == 200 and pdf.content.startswith(b"%PDF")
    assert pdf.headers["Content-Type"] == "application/pdf"
    # every message of the conversation went into the reply chain, none as a file consent card
    assert all(c.conversation_id == conv for c in connector.calls if c.conversation_id)
    assert not _cards(connector, conv, "file.consent")
    _assert_status_messages_updated_in_place(connector, conv, turns=2)


def test_how_a_message_addresses_the_bot():
    from bots.teams.mentions import address_of
    from jobs.conversation import Address

    url = "https://smba.trafficmanager.net/amer/"
    assert address_of(Activity().deserialize(personal_message(url, "and the UK?"))) is Address.DM
    assert address_of(Activity().deserialize(channel_mention(url, "and the UK?"))) is Address.MENTION
    for kind in ("channel", "groupChat"):
        plain = channel_mention(url, "thanks, looks good!", mention=False, conversation_type=kind)
        assert address_of(Activity().deserialize(plain)) is Address.NONE
    other = channel_mention(url, "ask <at>Bob</at>", mention=False)
    other["entities"] = [{"type": "mention", "text": "<at>Bob</at>", "mentioned": dict(BOB)}]
    assert address_of(Activity().deserialize(other)) is Address.NONE


def test_status_lists_the_askers_open_researches_and_starts_none(bot, connector, settings):
    conv = "a:personal-alice-status"
    empty = personal_message(connector.url, "status", conversation_id=conv)
    bot.send(empty)
    reply = connector.wait_for(lambda c: c.messages(conv), what="the status answer")[-1]
    assert reply.text.startswith("You have no research running") and "Send me your question" in reply.text
    assert jobs.thread_info(_thread(empty), settings=settings) is None  # "status" is not a question

    mention = channel_mention(connector.url, "heat pumps")  # short: the bot asks what to cover
    bot.send(mention)
    _wait_status(settings, _thread(mention), ("paused",))
    bot.send(personal_message(connector.url, "status", conversation_id=conv))
    listing = connector.wait_for(lambda c: len(c.messages(conv)) == 2 and c.messages(conv), what="the listing")[-1]
    assert listing.text.splitlines()[0] == "Your researches:"
    assert "waiting for your answer" in listing.text and " in a channel: heat pumps" in listing.text
    # Bob has none: the listing is the asker's own
    bot.send(personal_message(connector.url, "status", sender=BOB, conversation_id="a:personal-bob-status"))
    bob = connector.wait_for(lambda c: c.messages("a:personal-bob-status"), what="Bob's answer")[-1]
    assert bob.text.startswith("You have no research running")

    # in a channel everyone reads the listing: a question asked elsewhere is not repeated there
    private = personal_message(connector.url, "my medical leave", conversation_id=conv)  # short: it pauses
    bot.send(private)
    _wait_status(settings, _thread(private), ("paused",))  # and posts nothing more
    asked = channel_mention(connector.url, "status")
    bot.send(asked)
    public = connector.wait_for(lambda c: [m for m in c.messages(asked["conversation"]["id"])
                                           if (m.text or "").startswith("Your researches")], what="the channel listing")[-1]
    assert "medical leave" not in public.text and "heat pumps" not in public.text, public.text
    assert "in a personal chat" in public.text and "not shown here" in public.text
    in_thread = channel_mention(connector.url, "status", root_id=mention["conversation"]["id"].split("=")[-1])
    bot.send(in_thread)
    same = connector.wait_for(lambda c: [m for m in c.messages(in_thread["conversation"]["id"])
                                         if (m.text or "").startswith("Your researches")], what="the listing in the thread")[-1]
    assert " in a channel: heat pumps" in same.text and "medical leave" not in same.text, same.text


def test_a_french_locale_asking_help_gets_french_help(bot, connector):
    from bots.teams.bot import teams_usage
    from bots.teams.markdown import to_teams_markdown

    asked = personal_message(connector.url, "help", conversation_id="a:personal-alice-fr")
    asked["locale"] = "fr-FR"
    bot.send(asked)
    reply = connector.wait_for(lambda c: c.messages("a:personal-alice-fr"), what="the help text")[-1]
    assert reply.text == to_teams_markdown(teams_usage("fr"))
    assert reply.text.startswith("**Deep Research** rédige un rapport sourcé sur votre question")


def test_a_german_channel_thread_gets_german_status_and_german_report_files(bot, connector, settings):
    question = "Wie hat sich der Markt für Wärmepumpen in Deutschland seit 2020 entwickelt?"
    mention = channel_mention(connector.url, question)
    conv = mention["conversation"]["id"]
    thread_id = _thread(mention)
    bot.send(mention)
    if _wait_status(settings, thread_id, ("paused", "done")).status == "paused":
        connector.wait_for(lambda c: "?" in c.messages(conv)[-1].text, what="the clarifying question")
        bot.send(channel_mention(connector.url, "Wohngebäude, Absatzzahlen und Förderung von 2020 bis 2024",
                                 root_id=mention["id"]))
    info = _wait_status(settings, thread_id, ("done",))
    connector.wait_for(lambda c: _download_cards(c, conv), what="download card")
    (card,) = _download_cards(connector, conv)
    title, _, note = card["content"]["body"]
    assert title["text"] == "Der vollständige Bericht."
    assert note["text"] == "Mit diesen Links kann jede Person die Dateien 7 Tage lang herunterladen."
    assert {a["title"] for a in card["content"]["actions"]} == {f"{p.name} herunterladen" for p in info.report_files}
    # "status" in the thread is German too, though the activity's locale is en-US
    bot.send(channel_mention(connector.url, "status", root_id=mention["id"]))
    listing = connector.wait_for(lambda c: [m for m in c.messages(conv) if (m.text or "").startswith("Du hast")],
                                 what="the German status answer")[-1]
    assert listing.text.startswith("Du hast keine Recherche, die läuft oder auf eine Antwort wartet.")


def test_in_a_group_chat_someone_elses_question_during_a_research_is_not_told_to_cancel_it(bot, connector, settings,
                                                                                           research):
    """A group chat is one thread: while Alice's research runs, Bob's own @mention question is
    not queued, and Bob is not told "Still working on this — reply `cancel` to stop it.", a cancel
    that only Alice may give (Bob's ``cancel`` is refused), but whose research runs and what he can do."""
    research.gate.clear()
    alice = channel_mention(connector.url, "EU heat pump market size 2024", conversation_type="groupChat")
    bot.send(alice)
    wait_for(lambda: research.calls, what="Alice's research to run")
    conversation = alice["conversation"]["id"]
    said = len(connector.messages(conversation))
    bob = channel_mention(connector.url, "What did solar panels cost in Spain in 2024?", sender=BOB,
                          conversation_type="groupChat")
    bot.send(bob)
    [answer] = connector.wait_for(lambda c: c.messages(conversation)[said:], what="the answer to Bob")
    research.gate.set()
    _wait_status(settings, _thread(alice), ("done",))
    assert "cancel" not in answer.text, answer.text
    assert "still running" in answer.text and len(research.calls) == 1, answer.text


def test_a_question_cancelled_unanswered_leaves_no_status_waiting_for_its_answer(bot, connector, settings):
    """Alice cancelled while her clarifying question was open: the status message above it still said
    the research starts once she answers. It says the research is cancelled, before the reply."""
    conv = "a:personal-alice-cancel-paused"
    first = personal_message(connector.url, "heat pumps", conversation_id=conv)
    bot.send(first)
    thread_id = _thread(first)
    _wait_status(settings, thread_id, ("paused",))
    connector.wait_for(lambda c: "?" in c.messages(conv)[-1].text, what="the clarifying question")
    [status] = [m.answer_id for m in connector.messages(conv) if m.text.startswith("Starting the research")]
    bot.send(personal_message(connector.url, "cancel", conversation_id=conv))
    connector.wait_for(lambda c: c.messages(conv)[-1].text.startswith("Cancelled. Ask"), what="the reply")
    assert connector.updates(status)[-1].text == "Cancelled."
    assert _wait_status(settings, thread_id, ("cancelled",)).status == "cancelled"


def _mentions_then(connector, first: dict, second: dict, rest: str, *, root_id: str | None = None) -> dict:
    """A channel message as Teams sends ``@First @Second rest``: two ``<at>`` tags, each with its
    ``mention`` entity, in the order they stand."""
    activity = channel_mention(connector.url, "", sender=BOB, root_id=root_id, mention=False)
    tags = [f"<at>{first['name']}</at>", f"<at>{second['name']}</at>"]
    activity["text"] = f"{tags[0]} {tags[1]} {rest}"
    activity["entities"] = [{"type": "mention", "text": tag, "mentioned": dict(who)}
                            for tag, who in zip(tags, (first, second), strict=True)]
    return activity


def test_a_command_word_after_someone_elses_mention_and_the_bots_is_the_command(bot, connector, settings, research):
    """Bob wrote "@Alice @Deep Research status" in a channel: it started a research on "Alice Deep
    Research status". Other people's mentions before the command word do not keep it from being the
    command (help and status); a question after them is still a question."""
    from tests.bots.teams.activities import ALICE, BOT

    status = _mentions_then(connector, ALICE, BOT, "status")
    bot.send(status)
    conv = status["conversation"]["id"]
    [said] = connector.wait_for(lambda c: c.messages(conv), what="the status listing")
    assert said.text.startswith("You have no research running or waiting for an answer."), said.text
    helped = _mentions_then(connector, ALICE, BOT, "Help?")
    bot.send(helped)
    [said] = connector.wait_for(lambda c: c.messages(helped["conversation"]["id"]), what="the help text")
    assert "In a channel or group chat, @mention me with your question" in said.text, said.text
    first = _mentions_then(connector, BOT, ALICE, "status")  # the bot's mention first: the same
    bot.send(first)
    [said] = connector.wait_for(lambda c: c.messages(first["conversation"]["id"]), what="the second listing")
    assert said.text.startswith("You have no research running or waiting for an answer."), said.text
    assert jobs.threads_of(BOB["id"], settings=settings) == [] and research.calls == []
    # the rest is more than the command word: a question, with the names of other people it
    # starts with (the bot's mention goes: clean_text)
    question = _mentions_then(connector, ALICE, BOT, "status of heat pump subsidies in Denmark 2024")
    bot.send(question)
    _wait_status(settings, _thread(question), ("paused", "done"))
    assert research.calls[0]["question"] == "Alice status of heat pump subsidies in Denmark 2024"


def test_the_command_word_then_a_command_after_someone_elses_mention_and_the_bots_is_the_command(
        bot, connector, settings, research):
    """Bob wrote "@Alice @Deep Research research: status" (the app's ``research`` command, then
    ``status``): it started a research on "Alice status", while without Alice's mention it is the
    status listing. The command after the command word is the command whoever is mentioned first."""
    from tests.bots.teams.activities import ALICE, BOT

    status = _mentions_then(connector, ALICE, BOT, "Research: status")
    bot.send(status)
    [said] = connector.wait_for(lambda c: c.messages(status["conversation"]["id"]), what="the status listing")
    assert said.text.startswith("You have no research running or waiting for an answer."), said.text
    assert jobs.threads_of(BOB["id"], settings=settings) == [] and research.calls == []
