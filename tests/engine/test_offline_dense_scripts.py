"""Text in Chinese, Japanese or Korean is measured by what it says, not by its characters: a Han, kana or
Hangul character carries several Latin letters' worth (:func:`engine.segments.latin_length`), so a short
Japanese sentence that answers the question is quoted, a page summary keeps to its word budget, and a
shortened quote is as long to read as an English one."""

from __future__ import annotations

import re

import pytest

from engine.offline import SUMMARY_WORDS, OfflineChatModel, _good_sentence, passages
from engine.offline_phrases import PHRASES
from engine.offline_text import _short
from engine.segments import latin_length, word_count
from tests.bots.console_helpers import ask_offline

#: A document of the kind a Japanese user indexes: short sentences, one long one.
JAPANESE = ("# ヒートポンプ\n\nヒートポンプは外気温が低下すると効率が下がる。寒冷地では補助ヒーターが必要になることが多い。"
            "ヒートポンプの設置費用は機種によって大きく異なる。\n\nヒートポンプは空気中の熱を集めて室内に運ぶ装置であり、"
            "燃料を燃やさずに暖房や給湯を行うことができるため、近年多くの家庭で採用されている。\n")
CHINESE = ("# 热泵\n\n热泵在室外温度降低时效率会下降。寒冷地区的热泵通常需要辅助加热。热泵的安装费用因机型而异。\n\n"
           "热泵是一种把空气中的热量搬运到室内的设备，它不需要燃烧燃料就能供暖和提供热水，因此近年来被越来越多的家庭采用。\n")
KOREAN = ("# 히트펌프\n\n히트펌프는 외부 기온이 낮아지면 효율이 떨어진다. 추운 지역에서는 보조 히터가 필요한 경우가 많다. "
          "히트펌프의 설치 비용은 기종에 따라 크게 다르다.\n\n히트펌프는 공기 중의 열을 모아 실내로 옮기는 장치로, 연료를 "
          "태우지 않고 난방과 급탕을 할 수 있어 최근 많은 가정에서 사용되고 있다.\n")


@pytest.mark.parametrize("language", ["ja", "zh"])
def test_the_phrase_tables_measure_alike_in_every_script(language):
    """The same phrases in English and in Japanese or Chinese (the offline phrase tables) measure within a
    fifth of each other, where their characters differ two- and threefold."""
    english = other = 0.0
    chars = 0
    for forms in PHRASES.values():
        if language in forms:
            en, text = forms["en"], forms[language]
            en, text = (en[-1], text[-1]) if isinstance(en, tuple) else (en, text)
            english += latin_length(re.sub(r"\{\w+\}", "", en))
            other += latin_length(re.sub(r"\{\w+\}", "", text))
            chars += len(re.sub(r"\{\w+\}", "", text))
    assert english > 1.8 * chars
    assert 0.8 < other / english < 1.2, (english, other)


def test_latin_text_measures_its_characters():
    assert latin_length("Heat pumps lose efficiency.") == len("Heat pumps lose efficiency.")
    assert latin_length("") == 0


@pytest.mark.parametrize("sentence", [
    "ヒートポンプは外気温が低下すると効率が下がる。",
    "热泵在室外温度降低时效率会下降。",
    "熱泵的效率會隨著室外溫度下降而降低。",
    "히트펌프는 외부 기온이 낮아지면 효율이 떨어진다.",
])
def test_a_short_sentence_of_a_dense_script_is_prose_worth_quoting(sentence):
    assert _good_sentence(sentence)


@pytest.mark.parametrize("fragment", ["効率が下がる。", "效率下降。", "효율이 떨어진다.", "Efficiency drops."])
def test_a_fragment_is_too_short_in_every_script(fragment):
    assert not _good_sentence(fragment)


@pytest.mark.parametrize(("document", "sentence"), [
    (JAPANESE, "ヒートポンプは外気温が低下すると効率が下がる。"),
    (CHINESE, "热泵在室外温度降低时效率会下降。"),
    (KOREAN, "히트펌프는 외부 기온이 낮아지면 효율이 떨어진다."),
])
def test_a_document_with_a_long_sentence_keeps_its_short_ones(document, sentence):
    assert sentence in passages(document, "")


def test_a_long_chinese_sentence_is_too_long_as_a_long_english_one_is():
    assert not _good_sentence("热泵" * 80 + "。")  # 161 characters: 500 Latin letters' worth and more


@pytest.mark.parametrize("text", [
    "寒冷地でのヒートポンプの効率と設置費用について、メーカーごとの違いと補助金の条件を詳しく比較する",
    "寒冷地区热泵的效率与安装费用，以及各制造商之间的差异和补贴条件的详细比较",
])
def test_a_shortened_dense_text_is_as_long_to_read_as_an_english_one(text):
    short = _short(text, 60)
    assert short.endswith("…") and latin_length(short) <= 60, short
    assert latin_length(short) > 40, short  # not cut to a stub either


def test_a_page_summary_keeps_to_its_word_budget_in_japanese():
    sentence = "ヒートポンプは外気温が低下すると効率が下がるため、寒冷地では補助ヒーターを併用することが多い。"
    document = "\n\n".join(f"{sentence[:-1]}（第{i}例）。" for i in range(200))
    prompt = f"Task: summarize_webpage\nYou are working on: ヒートポンプの効率\n<Document>\n{document}\n</Document>"
    _, [(_, args)] = OfflineChatModel()._task_summarize_webpage(prompt, [], [])
    assert 0 < word_count(args["summary"]) <= SUMMARY_WORDS
    assert word_count(args["summary"]) > SUMMARY_WORDS - 2 * word_count(sentence)  # the budget is used


@pytest.mark.slow
@pytest.mark.parametrize(("document", "question", "sentences"), [
    (JAPANESE, "ヒートポンプの効率は？", ["ヒートポンプは外気温が低下すると効率が下がる。"]),
    (JAPANESE, "寒冷地でのヒートポンプの効率と設置費用は？",
     ["ヒートポンプは外気温が低下すると効率が下がる。", "ヒートポンプの設置費用は機種によって大きく異なる。"]),
    (CHINESE, "热泵的效率如何？", ["热泵在室外温度降低时效率会下降。"]),
    (KOREAN, "히트펌프의 효율은?", ["히트펌프는 외부 기온이 낮아지면 효율이 떨어진다."]),
], ids=["ja", "ja-list", "zh", "ko"])
def test_ask_quotes_the_short_sentences_that_answer(tmp_path, document, question, sentences):
    _, report = ask_offline(tmp_path, document, question)
    findings = re.findall(r"^- (.*) \[\d+\]$", report, re.MULTILINE)
    assert all(any(s in f for f in findings) for s in sentences), report
