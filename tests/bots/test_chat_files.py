"""Signs of a file the bot cannot read, on the activities Teams really sends from a channel."""

from __future__ import annotations

import pytest

from bots.chat_files import carries_file, speaks_of_file

#: The message's own HTML, as Teams sends it from a channel with a file attached: the mention and
#: the text, no trace of the file (MicrosoftDocs/msteams-docs#1470).
MENTION_ONLY = {"contentType": "text/html", "content": (
    '<div><div><span itemscope="" itemtype="http://schema.skype.com/Mention" itemid="0">Deep Research</span>'
    "&nbsp;What maintenance costs does the Zephyr turbine have?</div>\n</div>")}


@pytest.mark.parametrize("attachments", [
    [{"contentType": "text/html", "content": '<p>see below</p><attachment id="5f8a2c0e0d1b4f6a9e3b7c1d2e4f6a8b"></attachment>'}],
    [{"contentType": "text/html", "content": '<a href="https://contoso.sharepoint.com/sites/team/Shared%20Documents/z.pdf">z.pdf</a>'}],
    [{"contentType": "application/vnd.microsoft.teams.file.download.info", "name": "z.pdf",
      "contentUrl": "https://contoso.sharepoint.com/z.pdf", "content": {"downloadUrl": "https://x", "fileType": "pdf"}}],
    [{"contentType": "reference", "name": "z.pdf", "contentUrl": "https://contoso.sharepoint.com/z.pdf"}],
    [{"contentType": "image/*", "contentUrl": "https://smba.trafficmanager.net/amer/v3/attachments/0-eus-d1-1/views/original"}],
])
def test_an_activity_showing_a_file_is_recognised(attachments):
    assert carries_file([MENTION_ONLY, *attachments])


@pytest.mark.parametrize("attachments", [
    [MENTION_ONLY],
    [{"contentType": "text/html", "content": ""}],  # microsoft/botbuilder-dotnet#6710
    [{"contentType": "application/vnd.microsoft.card.adaptive", "content": {"type": "AdaptiveCard"}}],
    [],
])
def test_the_messages_own_html_or_a_card_is_no_file(attachments):
    assert not carries_file(attachments)


@pytest.mark.parametrize("text,expected", [
    ("<at>Deep Research</at> What does zephyr.pdf say about maintenance?", True),
    ("What maintenance costs are in the attached PDF?", True),
    ("Summarise this document for the board", True),
    ("Was steht in der angehängten Datei? Siehe Anhang.", True),
    ("Résume la pièce jointe", True),
    ("Resume el archivo adjunto", True),
    ("What maintenance costs does the Zephyr turbine have?", False),
    ("Compare https://example.org/report.pdf with last year's figures", False),  # a link: not a shared file
    ("How does Node.js handle a .pdf upload?", False),
    ("", False),
])
def test_a_message_speaking_of_a_file(text, expected):
    assert speaks_of_file(text) is expected
