"""A question that lists several things is researched as one sub-question per listed thing, in its
own words around each (never a head cut off mid-phrase or inside quoted text); each quoted sentence
is shown under the sub-question it answers, and only a sub-question with nothing quoted is named as
having nothing more to quote."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from engine.offline_text import extractive_report, plan_topics, shown_blocks
from tests.bots.console_helpers import ask


@pytest.mark.parametrize(("question", "language", "expected"), [
    # a frame that says only "compare": the listed things themselves
    ("How do threading, multiprocessing and asyncio compare?", "en", ["threading", "multiprocessing", "asyncio"]),
    ("Wie unterscheiden sich Threads, Prozesse und Koroutinen?", "de", ["Threads", "Prozesse", "Koroutinen"]),
    ("Comment se comparent les threads et les processus ?", "fr", ["les threads", "les processus"]),
    ("¿En qué se diferencian los hilos y los procesos?", "es", ["los hilos", "los procesos"]),
    ("スレッド、マルチプロセス、asyncioはどう違いますか？", "ja", ["スレッド", "マルチプロセス", "asyncio"]),
    ("线程、多进程和asyncio有什么区别？", "zh", ["线程", "多进程", "asyncio"]),
    # a frame that asks something of each: kept around each listed thing
    ("What are wind turbine blades and towers made of, and how loud is turbine noise?", "en",
     ["What are wind turbine blades made of", "What are wind turbine towers made of", "How loud is turbine noise"]),
    ("What are the costs of heat pumps, solar panels and wind turbines?", "en",
     ["What are the costs of heat pumps", "What are the costs of solar panels", "What are the costs of wind turbines"]),
    ("Was kosten Wärmepumpen und Gasheizungen, und wie laut sind Wärmepumpen?", "de",
     ["Was kosten Wärmepumpen", "Was kosten Gasheizungen", "Wie laut sind Wärmepumpen"]),
    ("Quel est le rendement des pompes à chaleur et des chaudières ?", "fr",
     ["Quel est le rendement des pompes à chaleur", "Quel est le rendement des chaudières"]),
    ("¿Qué eficiencia tienen las bombas de calor en invierno y cuánto cuesta su funcionamiento?", "es",
     ["Qué eficiencia tienen las bombas de calor en invierno", "Cuánto cuesta su funcionamiento"]),
    ("热泵和燃气锅炉的效率如何？", "zh", ["热泵的效率如何", "燃气锅炉的效率如何"]),
    ("ヒートポンプとガスボイラーの効率は？", "ja", ["ヒートポンプの効率は", "ガスボイラーの効率は"]),
    # the existing kinds stay as they were
    ("How does asyncio cancel tasks and handle timeouts?", "en",
     ["How does asyncio cancel tasks", "How does asyncio handle timeouts"]),
])
def test_a_coordinated_list_gives_one_readable_sub_question_per_item(question, language, expected):
    assert plan_topics(question, 5, language) == expected


@pytest.mark.parametrize(("question", "language", "expected"), [
    # each item already a whole "X の Y" / "X 的 Y" phrase: the last one's head noun is its own
    ("ヒートポンプの運転コストとメーカーの保証はどうなっていますか？", "ja",
     ["ヒートポンプの運転コストはどうなっていますか", "メーカーの保証はどうなっていますか"]),
    ("ヒートポンプの効率、ガスボイラーの騒音とメーカーの保証期間は？", "ja",
     ["ヒートポンプの効率は", "ガスボイラーの騒音は", "メーカーの保証期間は"]),
    ("热泵的运行成本和厂家的保修怎么样？", "zh", ["热泵的运行成本怎么样", "厂家的保修怎么样"]),
    ("热泵的运行成本和厂家的保修期限是多少？", "zh", ["热泵的运行成本是多少", "厂家的保修期限是多少"]),
    ("东京的房价和大阪的房价如何？", "zh", ["东京的房价如何", "大阪的房价如何"]),
    # whole phrases compared: the phrases alone
    ("热泵的效率和燃气锅炉的效率哪个更高？", "zh", ["热泵的效率", "燃气锅炉的效率"]),
    ("ヒートポンプの効率とガスボイラーの効率の違いは何ですか？", "ja", ["ヒートポンプの効率", "ガスボイラーの効率"]),
    # items that are bare nouns share the head noun after the last one
    ("ヒートポンプとガスボイラーの費用は？", "ja", ["ヒートポンプの費用は", "ガスボイラーの費用は"]),
    ("热泵和燃气锅炉的保修怎么样？", "zh", ["热泵的保修怎么样", "燃气锅炉的保修怎么样"]),
])
def test_items_that_are_whole_possessive_phrases_keep_their_own_head_noun(question, language, expected):
    assert plan_topics(question, 5, language) == expected


@pytest.mark.parametrize(("question", "expected"), [
    ('How do "double quotes", \'single quotes\', `backticks` and $HOME work in bash?',
     ['How do "double quotes" work in bash', "How do 'single quotes' work in bash",
      "How do `backticks` work in bash", "How does $HOME work in bash"]),
    ('Compare "a, b and c", `x, y` and «ceci et cela»',
     ['"a, b and c"', "`x, y`", "«ceci et cela»"]),
    ("What do `asyncio.wait_for(t, 1)` and “timeouts, retries and back-off” mean?",
     ["What do `asyncio.wait_for(t, 1)` mean", "What do “timeouts, retries and back-off” mean"]),
])
def test_quoted_and_backticked_text_is_never_split(question, expected):
    topics = plan_topics(question, 5)
    assert topics == expected
    for span in re.findall(r"\"[^\"]*\"|`[^`]*`|«[^»]*»|“[^”]*”", question):
        assert any(span in t for t in topics), (span, topics)


@pytest.mark.parametrize(("question", "language"), [
    ("¿Qué eficiencia tienen las bombas de calor en invierno?", "es"),
    ("¿Cuánto cuesta el funcionamiento de una bomba de calor?", "es"),
    ("How loud is turbine noise?", "en"),
    ("ヒートポンプの冬の効率はどのくらいですか？", "ja"),
    ("热泵在冬天的效率如何？", "zh"),
])
def test_a_question_whose_rest_is_a_clause_gets_no_facets_of_a_garbled_subject(question, language):
    assert plan_topics(question, 5, language) == [question]


def test_a_subject_phrase_in_chinese_still_gets_facets_without_question_marks():
    topics = plan_topics("太阳能电池的历史", 5, "zh")
    assert topics[0] == "太阳能电池的历史" and len(topics) == 3, topics
    assert all(t.startswith("太阳能电池的历史 — ") for t in topics[1:]), topics


NOISE = "Wind turbines produce noise of about 35 dB at a distance of 500 metres. [S000003]"
BLADES = "Wind turbine blades are made of glass fibre reinforced epoxy composites. [S000001]"
TOWERS = "Most wind turbine towers are made of rolled steel sections. [S000002]"
FINDINGS = (f"### What are wind turbine blades made of\n- {BLADES}\n- {NOISE}\n- {TOWERS}\n\n"
            f"### What are wind turbine towers made of\n- {TOWERS}\n\n"
            f"### How loud is turbine noise\n- {NOISE}\n")


def test_a_sentence_is_shown_under_the_sub_question_it_answers_best():
    shown = dict(shown_blocks(FINDINGS))
    assert shown == {"What are wind turbine blades made of": [BLADES],
                     "What are wind turbine towers made of": [TOWERS],
                     "How loud is turbine noise": [NOISE]}, shown
    report = extractive_report(brief="What are wind turbine blades and towers made of, and how loud is turbine noise?",
                               findings=FINDINGS, language="en", notice="offline", sources_found=3)
    assert "Nothing more" not in report, report


def test_only_a_sub_question_with_nothing_quoted_is_named_as_having_nothing_more():
    findings = FINDINGS + f"\n### Turbine maintenance — examples\n- {NOISE}\n"
    report = extractive_report(brief="wind", findings=findings, language="en", notice="offline", sources_found=3)
    assert "*Nothing more to quote was found on: Turbine maintenance — examples.*" in report, report
    assert report.count(NOISE.split(" [")[0]) == 1, report


CORPUS = {
    "blades.md": "# Blade materials\n\nWind turbine blades are made of glass fibre reinforced epoxy composites "
                 "with balsa wood cores.\n",
    "towers.md": "# Tower materials\n\nMost wind turbine towers are made of rolled steel sections bolted together "
                 "on site.\n",
    "noise.md": "# Noise levels\n\nWind turbines produce noise of about 35 dB at a distance of 500 metres.\n",
}


def _sections(report: str) -> dict[str, list[str]]:
    body = report.split("## Review outcome")[0]
    out: dict[str, list[str]] = {}
    for chunk in re.split(r"^## Findings: ", body, flags=re.MULTILINE)[1:]:
        head, _, rest = chunk.partition("\n")
        out[head.strip()] = [ln[2:] for ln in rest.splitlines() if ln.startswith("- ")]
    return out


def test_ask_files_each_quoted_sentence_under_the_sub_question_it_answers(tmp_path: Path):
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    for name, text in CORPUS.items():
        (corpus / name).write_text(text)
    question = "What are wind turbine blades and towers made of, and how loud is turbine noise?"
    out = ask(tmp_path, "--offline", "--no-clarify", "--corpus", str(corpus), "--out", str(tmp_path / "out"), question)
    assert out.returncode == 0, out.stderr[-2000:]
    report = (tmp_path / "out" / "report.md").read_text()
    sections = _sections(report)
    assert list(sections) == ["What are wind turbine blades made of", "What are wind turbine towers made of",
                              "How loud is turbine noise"], report
    where = {s: [h for h, lines in sections.items() if any(ln.startswith(s) for ln in lines)]
             for s in ("Wind turbine blades are made", "Most wind turbine towers", "Wind turbines produce noise")}
    assert where == {"Wind turbine blades are made": ["What are wind turbine blades made of"],
                     "Most wind turbine towers": ["What are wind turbine towers made of"],
                     "Wind turbines produce noise": ["How loud is turbine noise"]}, report
    nothing = re.search(r"^\*Nothing more to quote was found on: (.*)\.\*$", report, re.MULTILINE)
    assert not nothing or not set(nothing.group(1).split("; ")) & {h for h, lines in sections.items() if lines}, report


@pytest.mark.parametrize(("question", "expected"), [
    ("How do I use os.path.join(a, b, c) and shutil.copy?",
     ["How do I use os.path.join(a, b, c)", "How do I use shutil.copy"]),
    ("What do numpy.stack([a, b], axis=0) and list.sort mean?",
     ["What do numpy.stack([a, b], axis=0) mean", "What do list.sort mean"]),
    ("When should I use dict[str, int], set and frozenset?",
     ["When should I use dict[str, int]", "When should I use set", "When should I use frozenset"]),
    ("How do I call f(x, y) and g(z) from a script?",
     ["How do I call f(x, y) from a script", "How do I call g(z) from a script"]),
])
def test_code_and_bracketed_text_is_never_split(question, expected):
    assert plan_topics(question, 5) == expected


@pytest.mark.parametrize(("question", "language", "expected"), [
    ("¿Qué ventajas tienen la energía solar, la eólica, la hidráulica y la geotérmica?", "es",
     ["Qué ventajas tienen la energía solar", "Qué ventajas tienen la energía eólica",
      "Qué ventajas tienen la energía hidráulica", "Qué ventajas tienen la energía geotérmica"]),
    ("Quels sont les avantages de la voiture électrique et la hybride ?", "fr",
     ["Quels sont les avantages de la voiture électrique", "Quels sont les avantages de la voiture hybride"]),
    ("Que coûtent les voitures électriques, les hybrides et les thermiques ?", "fr",
     ["Que coûtent les voitures électriques", "Que coûtent les voitures hybrides", "Que coûtent les voitures thermiques"]),
    # no ellipsis: each item names its own noun, or the first item has no noun to lend
    ("¿Qué ventajas tienen la energía solar y la biomasa forestal?", "es",
     ["Qué ventajas tienen la energía solar", "Qué ventajas tienen la biomasa forestal"]),
    ("What are the benefits of the solar panels and the wind?", "en",
     ["What are the benefits of the solar panels", "What are the benefits of the wind"]),
])
def test_an_item_that_leaves_out_the_first_items_noun_gets_it_back(question, language, expected):
    assert plan_topics(question, 5, language) == expected


@pytest.mark.parametrize(("question", "language", "expected"), [
    ("Comment préparer l'espresso, le café filtre et le café infusé à froid ?", "fr",
     ["Comment préparer l'espresso", "Comment préparer le café filtre", "Comment préparer le café infusé à froid"]),
    ("¿Cómo se prepara el café filtrado y el té verde con leche?", "es",
     ["Cómo se prepara el café filtrado", "Cómo se prepara el té verde con leche"]),
    # a phrase the items share stays shared
    ("What are the blades and the towers made of?", "en",
     ["What are the blades made of", "What are the towers made of"]),
])
def test_the_last_items_own_qualifier_is_not_given_to_the_others(question, language, expected):
    assert plan_topics(question, 5, language) == expected
