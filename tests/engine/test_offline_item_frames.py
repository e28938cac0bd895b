"""Under a sub-question made from a listed item, the offline notes quote only sentences that name what
the question asks of every item (its frame: "noise" of "How much noise do heat pumps make"), not ones
that name the item alone; a question that only compares its items asks nothing besides them."""

from __future__ import annotations

import pytest

from engine.offline_lists import listed_frames

RESULTS = {
    "en": ("A typical air-source heat pump produces 45 to 55 dB(A) of noise at one metre. "
           "Some companies rent heat pumps for a monthly fee. "
           "Heat pumps are replaced by the landlord in rented flats.",
           "Wind turbines make about 40 dB(A) of noise at 300 metres. "
           "Modern wind turbines have a rated power of 5 MW.",
           "Solar panels make no noise; their inverters can hum. "
           "Solar panels lose about 0.5 percent efficiency per year."),
    "de": ("Eine typische Luft-Wasser-Wärmepumpe erzeugt 45 bis 55 dB(A) Lärm in einem Meter Abstand. "
           "Manche Firmen vermieten Wärmepumpen gegen eine monatliche Gebühr. "
           "Wärmepumpen machen Mieter in vielen Wohnungen glücklich.",
           "Windräder erzeugen in 300 Metern etwa 40 dB(A) Lärm. "
           "Moderne Windräder haben eine Nennleistung von 5 MW.",
           "Solaranlagen machen keinen Lärm, nur ihre Wechselrichter summen. "
           "Solaranlagen verlieren etwa 0,5 Prozent Wirkungsgrad pro Jahr."),
}


def notes(brief: str, topic: str, language: str) -> str:
    from engine.offline import OfflineChatModel
    from engine.prompts import COMPRESS

    results = "".join(f"--- SOURCE [S00000{i}]: {name} (example.org)\n{text}\n"
                      for i, (name, text) in enumerate(zip(("hp", "wind", "solar"), RESULTS[language], strict=True)))
    prompt = COMPRESS.format(date="2026-12-06", topic=topic, brief=brief, results=results,
                             language={"en": "English", "de": "German"}[language])
    return OfflineChatModel().invoke(prompt).content


@pytest.mark.parametrize(("brief", "topic", "language", "kept", "left"), [
    ("How much noise do heat pumps, wind turbines and solar panels make?", "How much noise do heat pumps make", "en",
     ["45 to 55 dB(A)"], ["monthly fee", "landlord"]),
    ("How much noise do heat pumps, wind turbines and solar panels make?", "How much noise do wind turbines make",
     "en", ["about 40 dB(A)"], ["rated power"]),
    ("How much noise do heat pumps, wind turbines and solar panels make?", "How much noise do solar panels make", "en",
     ["make no noise"], ["efficiency per year"]),
    # the frame's function verb ("machen", as "make") is no word it asks: "Wärmepumpen machen Mieter glücklich"
    ("Wie viel Lärm machen Wärmepumpen, Windräder und Solaranlagen?", "Wie viel Lärm machen Wärmepumpen", "de",
     ["45 bis 55 dB(A)"], ["monatliche Gebühr", "Mieter"]),
    ("Wie viel Lärm machen Wärmepumpen, Windräder und Solaranlagen?", "Wie viel Lärm machen Solaranlagen", "de",
     ["keinen Lärm"], ["Wirkungsgrad"]),
])
def test_a_listed_items_notes_quote_what_the_question_asks_of_every_item(brief, topic, language, kept, left):
    found = notes(brief, topic, language)
    assert all(k in found for k in kept), found
    assert not any(w in found for w in left), found


def test_a_question_that_only_compares_its_items_quotes_what_names_the_item():
    # "heat pumps" alone is the sub-question: the question asks nothing of the items besides them
    found = notes("How do heat pumps, wind turbines and solar panels compare?", "heat pumps", "en")
    assert "45 to 55 dB(A)" in found and "monthly fee" in found, found


@pytest.mark.parametrize(("question", "language", "frames"), [
    ("How much noise do heat pumps, wind turbines and solar panels make?", "en",
     {"How much noise do heat pumps make": "How much noise do … make",
      "How much noise do wind turbines make": "How much noise do … make",
      "How much noise do solar panels make": "How much noise do … make"}),
    ("What are the costs, risks and benefits of solar panels", "en",
     {"What are the costs of solar panels": "What are the … of solar panels",
      "What are the risks of solar panels": "What are the … of solar panels",
      "What are the benefits of solar panels": "What are the … of solar panels"}),
    # a question asked after the list is a clause of its own: no frame
    ("How loud are heat pumps and wind turbines, and how much do they cost?", "en",
     {"How loud are heat pumps": "How loud are …", "How loud are wind turbines": "How loud are …",
      "How much do they cost": ""}),
    ("Wie laut sind Wärmepumpen und Windräder?", "de",
     {"Wie laut sind Wärmepumpen": "Wie laut sind …", "Wie laut sind Windräder": "Wie laut sind …"}),
    # the items alone: a question that only compares them, or asks which to choose
    ("How do dataclasses, enums and typing protocols work together?", "en",
     {"dataclasses": "", "enums": "", "typing protocols": ""}),
    ("Which is better, Python or Java?", "en", {"Python": "", "Java": ""}),
    # one comparative that says what ("faster") is asked of each, as "Is Python or Java faster?" asks
    # it: a sentence names it in any degree ("fast", "fastest": engine.word_forms.degree_bases)
    ("Which is faster, Python or Java?", "en", {"Is Python faster": "Is … faster", "Is Java faster": "Is … faster"}),
    ('What does "pip install" do for Linux and macOS?', "en",
     {'What does "pip install" do for Linux': 'What does "pip install" do for …',
      'What does "pip install" do for macOS': 'What does "pip install" do for …'}),
])
def test_each_listed_item_has_the_frame_the_items_share(question, language, frames):
    assert listed_frames(question.rstrip("?"), language) == frames
