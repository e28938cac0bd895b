"""A question in Traditional Chinese is answered in Traditional characters: its language is "zh-Hant",
every catalogue speaks it (the Chinese text through OpenCC), the model is told "Traditional Chinese",
and the offline model's own sentences and the report's labels hold no Simplified-only character,
while a question in Simplified Chinese is answered in Simplified characters as before."""

from __future__ import annotations

import asyncio
import re

import opencc
import pytest

from engine.chinese import chinese_variant, is_chinese, traditional
from engine.citations import SOURCES_TITLE
from engine.language import detect_language, language_name
from engine.offline import _language
from engine.offline_phrases import LANGUAGES, PHRASES, phrase
from engine.phrases import plural, say
from engine.progress import WORDS as PROGRESS
from engine.render.latex import labels_for
from engine.runner import run_turn
from engine.search.corpus_index import index_directory
from jobs.phrases import WORDS as JOB_WORDS
from jobs.phrases import thread_language

_TO_SIMPLIFIED = opencc.OpenCC("t2s")
_TO_TRADITIONAL = [opencc.OpenCC(config) for config in ("s2t", "s2tw", "s2hk")]


def simplified_only(text: str) -> set[str]:
    """The characters of ``text`` that only Simplified Chinese writes: OpenCC's t2s leaves each as it is
    and each of s2t, s2tw and s2hk writes it otherwise (Taiwan's 台 and 才, which s2t alone changes, do
    not count)."""
    return {c for c in set(text) if _TO_SIMPLIFIED.convert(c) == c and all(t.convert(c) != c for t in _TO_TRADITIONAL)}


def traditional_only(text: str) -> set[str]:
    """The characters of ``text`` that only Traditional Chinese writes (OpenCC's t2s changes them)."""
    return {a for a in text if _TO_SIMPLIFIED.convert(a) != a}


@pytest.mark.parametrize(("question", "code"), [
    ("電動車電池回收的經濟效益如何？", "zh-Hant"),
    ("熱泵在寒冷氣候下的效率如何？", "zh-Hant"),
    ("台灣的半導體產業發展如何？", "zh-Hant"),  # Taiwan's 台 (s2t writes 臺): Traditional still
    ("香港的樓價為何這麼高？", "zh-Hant"),
    ("asyncio如何取消Task並處理逾時？", "zh-Hant"),
    ("电动车电池回收的经济效益如何？", "zh"),
    ("热泵在寒冷气候下的效率如何？", "zh"),
    ("asyncio如何取消Task并处理超时？", "zh"),
    ("电动车電池回收的经济效益如何？", "zh"),  # mostly Simplified, one Traditional character
    ("山水之间", "zh"),  # characters both scripts share: nothing says Traditional
    ("asyncioはタスクをどのようにキャンセルしますか？", "ja"),
])
def test_the_script_of_a_chinese_question_settles_its_language(question, code):
    assert detect_language(question) == code


def test_the_model_is_told_traditional_chinese_and_the_offline_model_reads_it_back():
    assert language_name("zh-Hant") == "Traditional Chinese"
    assert language_name("zh") == "Chinese"
    assert _language("Write the report in Traditional Chinese, the language of the user's question.") == "zh-Hant"
    assert _language("Write in Traditional Chinese.") == "zh-Hant"
    assert _language("Write in Chinese.") == "zh"


@pytest.mark.parametrize(("tag", "language"), [
    ("zh-TW", "zh-Hant"), ("zh-Hant-HK", "zh-Hant"), ("zh_HK", "zh-Hant"), ("zh-Hant", "zh-Hant"),
    ("zh", "zh"), ("zh-CN", "zh"), ("zh-Hans-SG", "zh"), ("de-DE", "de-DE"),
])
def test_a_locale_tag_names_its_chinese_script(tag, language):
    assert chinese_variant(tag) == language
    assert is_chinese(tag) == tag.startswith("zh")


def test_every_catalogue_speaks_traditional_chinese_from_its_chinese_text():
    for book in (JOB_WORDS, PROGRESS):
        assert "zh-Hant" in book.languages
        for key, entry in book.catalogue.items():
            if "zh" in entry:
                assert book.template(key, "zh-Hant") == traditional(entry["zh"])
                assert not simplified_only(book.template(key, "zh-Hant")), key
    assert say("rejected_question_too_long", "zh-Hant", length=10225, limit=8000) == traditional(
        say("rejected_question_too_long", "zh", length=10225, limit=8000))
    assert thread_language("電動車電池回收的經濟效益如何？") == "zh-Hant"
    assert thread_language("电动车电池回收的经济效益如何？") == "zh"


def test_the_report_labels_and_offline_phrases_are_traditional():
    assert "zh-Hant" in LANGUAGES
    assert SOURCES_TITLE["zh-Hant"] == "來源" and SOURCES_TITLE["zh"] == "来源"
    for tag in ("zh-Hant", "zh-TW", "zh-HK"):
        labels = labels_for(tag)
        assert labels["sources"] == "來源" and labels["summary"] == "執行摘要", tag
        assert not simplified_only("".join(labels.values())), tag
    assert labels_for("zh-CN")["sources"] == "来源"
    for key, entry in PHRASES.items():
        texts = entry["zh-Hant"] if isinstance(entry["zh-Hant"], tuple) else (entry["zh-Hant"],)
        assert not simplified_only("".join(texts)), key


def test_a_phrase_converts_its_template_not_the_text_it_quotes():
    """The offline model's sentences are Traditional; a passage or question it quotes stays as written."""
    quoted = phrase("uncited", "zh-Hant", count=2, n=2, example="这个说法没有来源")
    assert "这个说法没有来源" in quoted
    assert not simplified_only(quoted.replace("这个说法没有来源", ""))
    assert simplified_only(phrase("uncited", "zh", count=2, n=2, example="x"))  # the check sees Simplified text


def test_a_count_in_traditional_chinese_has_one_form():
    assert plural("sources", 1, "zh-Hant") == plural("sources", 2, "zh-Hant") == "sources_other"


HEAT_PUMPS = {
    "zh-Hant": ("熱泵在寒冷氣候下的效率如何？", "# 熱泵\n\n熱泵在寒冷氣候下的效率會下降，但現代空氣源熱泵在攝氏零下十五度仍能"
                "運作。\n\n熱泵的效率以性能係數衡量，寒冷時性能係數約為二。\n"),
    "zh": ("热泵在寒冷气候下的效率如何？", "# 热泵\n\n热泵在寒冷气候下的效率会下降，但现代空气源热泵在摄氏零下十五度仍能"
           "运作。\n\n热泵的效率以性能系数衡量，寒冷时性能系数约为二。\n"),
}


@pytest.mark.slow
@pytest.mark.parametrize("language", ["zh-Hant", "zh"])
def test_the_offline_report_speaks_the_script_of_the_question(offline_settings, tmp_path, language):
    question, document = HEAT_PUMPS[language]
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "heat.md").write_text(document, encoding="utf-8")
    settings = offline_settings(search="corpus", corpus_dir=folder, allow_clarification=False)
    index_directory(settings.corpus_dir, settings.corpus_index_path)
    out = asyncio.run(run_turn(f"console:{language}", question=question, settings=settings))
    report = out.artifacts.report_md.read_text(encoding="utf-8")
    review = out.artifacts.review_md.read_text(encoding="utf-8")
    assert "熱泵在寒冷氣候下的效率會下降" in report if language == "zh-Hant" else "热泵在寒冷气候下的效率会下降" in report
    own = re.sub(r"[“「].*?[”」]", "", report + review)  # the bot's own words: quotes aside
    if language == "zh-Hant":
        assert "## 執行摘要" in report and "## 來源" in report and "**問題：**" in report
        assert not simplified_only(own), (simplified_only(own), report, review)
    else:
        assert "## 执行摘要" in report and "## 来源" in report and "**问题：**" in report
        assert not traditional_only(own), (traditional_only(own), report, review)
