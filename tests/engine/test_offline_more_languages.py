"""A question in Italian, Dutch, Portuguese or Swedish gets an offline report, review and follow-up
questions in its own language: none of the English phrases' fixed words, and the language's own
headings, notice and labels (the PDF's and Word document's too)."""

from __future__ import annotations

import asyncio
import re

import pytest

from engine.citations import SOURCES_TITLE
from engine.offline_phrases import LANGUAGES, PHRASES, phrase
from engine.render.latex import LABELS
from engine.runner import run_turn
from engine.search.corpus_index import index_directory

#: Per language: a question, and a small corpus in that language that answers it.
CASES = {
    "it": ("Quanto costano le pompe di calore e quanto rumore fanno?", {
        "pompe.md": "# Pompe di calore\n\nUna pompa di calore trasferisce il calore dall'aria esterna alla casa "
        "con un ciclo frigorifero. Le pompe di calore ad aria sono le più economiche da installare nella maggior "
        "parte delle case europee. Nel 2025 una pompa di calore ad aria costava tra 8.000 e 14.000 euro installata.\n",
        "rumore.md": "# Rumore delle pompe di calore\n\nLe unità esterne delle pompe di calore producono un rumore "
        "di circa 40-60 decibel a un metro di distanza. In alcuni paesi le norme locali limitano il rumore delle "
        "pompe di calore durante la notte.\n"}),
    "nl": ("Wat kosten warmtepompen en hoeveel geluid maken ze?", {
        "pompen.md": "# Warmtepompen\n\nEen warmtepomp haalt warmte uit de buitenlucht en brengt die met een "
        "koelkringloop naar het huis. Luchtwarmtepompen zijn in de meeste Europese woningen het goedkoopst om te "
        "installeren. In 2025 kostte een luchtwarmtepomp geïnstalleerd tussen 8.000 en 14.000 euro.\n",
        "geluid.md": "# Geluid van warmtepompen\n\nDe buitenunits van warmtepompen maken op een meter afstand "
        "ongeveer 40 tot 60 decibel geluid. In sommige landen beperken lokale regels het geluid van warmtepompen "
        "'s nachts.\n"}),
    "pt": ("Quanto custam as bombas de calor e quanto ruído fazem?", {
        "bombas.md": "# Bombas de calor\n\nUma bomba de calor transfere o calor do ar exterior para a casa por meio "
        "de um ciclo de refrigeração. As bombas de calor a ar são as mais baratas de instalar na maioria das casas "
        "europeias. Em 2025, uma bomba de calor a ar custava entre 8.000 e 14.000 euros instalada.\n",
        "ruido.md": "# Ruído das bombas de calor\n\nAs unidades externas das bombas de calor produzem um ruído de "
        "cerca de 40 a 60 decibéis a um metro de distância. Em alguns países, as regras locais limitam o ruído das "
        "bombas de calor à noite.\n"}),
    "sv": ("Vad kostar värmepumpar och hur mycket buller ger de?", {
        "pumpar.md": "# Värmepumpar\n\nEn värmepump flyttar värme från uteluften in i huset med hjälp av en "
        "kylkrets. Luftvärmepumpar är billigast att installera i de flesta europeiska hem. År 2025 kostade "
        "luftvärmepumpar mellan 8 000 och 14 000 euro installerade.\n",
        "buller.md": "# Buller från värmepumpar\n\nUtedelarna till värmepumpar ger ett buller på cirka 40 till 60 "
        "decibel på en meters avstånd. I vissa länder begränsar lokala regler bullret från värmepumpar på natten.\n"}),
}
NEW = sorted(CASES)


def english_fixed_words(language: str) -> set[str]:
    """The fixed text of every English phrase template (the parts between its fields, of at least
    two words or one word of five letters or more), less what the language's own template says too
    (a setting's name)."""
    out: set[str] = set()
    for table in PHRASES.values():
        english = table["en"] if isinstance(table["en"], tuple) else (table["en"],)
        own = table[language] if isinstance(table.get(language), tuple) else (table.get(language, ""),)
        for template in english:
            for part in re.split(r"\{\w+\}", template):
                part = part.strip(" .,:;()“”\"'")
                if (" " in part or len(part) >= 5) and not any(part in o for o in own):
                    out.add(part)
    return out


@pytest.mark.parametrize("language", NEW)
def test_an_offline_run_writes_report_review_and_follow_ups_in_the_questions_language(
        offline_settings, tmp_path, language):
    question, docs = CASES[language]
    folder = tmp_path / "docs"
    folder.mkdir()
    for name, text in docs.items():
        (folder / name).write_text(text, encoding="utf-8")
    settings = offline_settings(search="corpus", corpus_dir=folder, allow_clarification=False,
                                max_review_iterations=2)
    index_directory(settings.corpus_dir, settings.corpus_index_path)
    out = asyncio.run(run_turn(f"console:{language}", question=question, settings=settings))
    assert out.status == "done"
    report = out.artifacts.report_md.read_text(encoding="utf-8")
    review = out.artifacts.review_md.read_text(encoding="utf-8")
    texts = {"report.md": report, "review.md": review, "follow-ups": "\n".join(out.follow_ups)}
    english = english_fixed_words(language)
    left = {(name, part) for name, text in texts.items() for part in english if part in text}
    assert not left, left
    assert phrase("offline_notice", language) in report
    # the question's own function words are no terms a passage must name: both documents are quoted
    assert len(re.findall(r"^\d+\. ", report.split(f"## {SOURCES_TITLE[language]}\n")[1], re.MULTILINE)) == 2, report
    assert f"## {SOURCES_TITLE[language]}\n" in report and f"## {phrase('open_objections', language)}\n" in report
    assert phrase("review_of", language, q=question) in review
    assert f"## {phrase('review_round', language, n='1')}\n" in review
    assert f"### {phrase('role_critique', language)}" in review
    # without any source the open objections give follow-up questions, in the language too
    bare = asyncio.run(run_turn(f"console:{language}2", question=question,
                                settings=offline_settings(allow_clarification=False, max_review_iterations=1)))
    assert bare.follow_ups and not {(q, part) for q in bare.follow_ups for part in english if part in q}, bare.follow_ups
    assert phrase("no_findings", language) in bare.artifacts.report_md.read_text(encoding="utf-8")


def test_every_phrase_and_label_is_written_in_italian_dutch_portuguese_and_swedish():
    """Each phrase of the offline model, each PDF/Word label and the Sources heading, in each new
    language, with the English template's fields and, for a count, a singular and a plural."""
    assert set(NEW) <= set(LANGUAGES)
    for key, table in PHRASES.items():
        for language in NEW:
            assert language in table, (key, language)
            english, own = table["en"], table[language]
            assert isinstance(own, tuple) == isinstance(english, tuple), (key, language)
            for e, o in zip(english, own, strict=True) if isinstance(english, tuple) else [(english, own)]:
                assert set(re.findall(r"\{\w+\}", e)) == set(re.findall(r"\{\w+\}", o)), (key, language, o)
    for language in NEW:
        assert set(LABELS[language]) == set(LABELS["en"]), language
        assert language in SOURCES_TITLE


@pytest.mark.parametrize("text", [
    "Le pompe di calore, ad es. Daikin, ecc. Sono diffuse.",
    "Sommige merken, bijv. Daikin, zijn duur. Andere o.a. Nibe niet.",
    "Várias marcas, p. ex. Daikin, são caras.",
    "Vissa märken, t.ex. Nibe, är dyra. Andra, bl.a. Thermia, är billigare.",
])
def test_a_sentence_keeps_its_abbreviations_before_a_capital(text):
    from engine.segments import sentences

    assert [s for s in sentences(text) if s.split()[-1].lower() in ("ecc.", "bijv.", "o.a.", "ex.", "t.ex.", "bl.a.")] == []


@pytest.mark.parametrize(("language", "heading"), [
    ("it", "Modifiche rispetto alla bozza"), ("nl", "Wijzigingen"), ("pt", "Mudanças feitas"), ("sv", "Ändringar"),
])
def test_the_review_appendix_finds_a_models_changes_heading_in_the_language(language, heading):
    """A language model's revised solution heads what changed in its own words; the appendix shows
    that section as what changed, not the whole solution."""
    from engine.artifacts import review_rounds

    state = {"language": language, "critiques": ["1. a", "1. b"], "perspectives": ["", ""],
             "solutions": ["## X\n\nfirst", f"## {heading}\n\n- dropped one claim\n\n## X\n\nsecond"]}
    assert review_rounds(state)[1].what_changed == "- dropped one claim"
