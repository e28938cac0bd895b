"""Which encoding the bytes of an HTML page or a text file are read in: what the page declares
(byte-order mark, the transport's charset, ``<meta charset>``), else UTF-8 when they are UTF-8, else
windows-1252 unless they are plainly Russian, Japanese or Chinese in a legacy encoding
(https://html.spec.whatwg.org/multipage/parsing.html#encoding-sniffing-algorithm)."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.files.read import read_file
from engine.search.extract import decode_text, extract_document

#: One sentence a language, each with the characters windows-1252 has and Latin-1 has not (curly
#: quotes, dashes, the euro sign) and its language's accented letters.
WESTERN = {
    "en": "“Heat pumps aren’t new,” she said — they cost about €9,000 and save 30 % on bills.",
    "de": "„Die Wärmepumpe läuft seit März“, sagt Jürgen Müller – sie spart rund 400 € im Jahr.",
    "fr": "« L’été dernier, la pompe à chaleur a coûté 9 000 € », explique Hélène — c’est déjà amorti.",
    "es": "“El año pasado la bomba de calor costó 9.000 €”, explicó Iñigo — ¿ya está amortizada?",
    "it": "“L’anno scorso la pompa di calore è costata 9.000 €”, dice Niccolò — perché è già più efficiente.",
    "pt": "“No verão passado a bomba de calor custou 9.000 €”, explica João — a poupança já é visível.",
}
#: Short texts, where a detector's guess has least to go on.
SHORT_WESTERN = ["L’été à Noël — 5 €.", "Größe: 5 €", "Año “nuevo”", "Perché è così?", "Coração — 3 €",
                 "It’s “fine”.", "Preis: 5 € – 10 € – 20 € – 50 € – 100 € – 200 € – 500 €",
                 "x² + y² = z²; ½ + ¼ = ¾; 10 µm; 5 ‰; 3 × 4 ÷ 2; ±0,5 °; © 2024 ® ™"]
RUSSIAN = ("Тепловой насос отбирает тепло у воздуха или грунта и передаёт его в дом. "
           "Прошлой зимой такой насос сэкономил семье из Твери почти половину расходов на отопление.")
JAPANESE = ("ヒートポンプは空気や地中から熱を集めて家に運びます。"
            "昨年の冬、このポンプは暖房費をほぼ半分に減らしました。")
CHINESE = "热泵从空气或地下收集热量并送入室内。去年冬天，这台热泵让一家人的取暖费用减少了将近一半。"


def _page(body: str, head: str = "") -> str:
    return f"<html><head>{head}<title>Heat pumps</title></head><body><p>{body}</p></body></html>"


def _read(tmp_path: Path, name: str, data: bytes) -> str:
    """The text the corpus indexer reads from a file ``name`` holding ``data``."""
    path = tmp_path / name
    path.write_bytes(data)
    return extract_document(path, len(data))[1]


@pytest.mark.parametrize("language", WESTERN)
@pytest.mark.parametrize("paragraphs", [1, 8])
def test_an_undeclared_windows_1252_page_is_read_as_written(tmp_path, language, paragraphs):
    """No byte-order mark, no ``<meta charset>``: a Western page is windows-1252, the HTML standard's
    default for Western locales, however short; never Central European or Cyrillic."""
    sentence = WESTERN[language]
    data = _page("</p><p>".join([sentence] * paragraphs)).encode("cp1252")
    assert _read(tmp_path, "page.html", data) == "\n\n".join([sentence] * paragraphs)


@pytest.mark.parametrize("text", SHORT_WESTERN)
def test_a_short_undeclared_windows_1252_page_or_text_file_is_read_as_written(tmp_path, text):
    data = text.encode("cp1252")
    assert _read(tmp_path, "page.html", _page(text).encode("cp1252")) == text
    assert _read(tmp_path, "note.txt", data) == text
    assert decode_text(data) == text


@pytest.mark.parametrize("text, codec", [(RUSSIAN, "cp1251"), (RUSSIAN, "koi8_r"), (JAPANESE, "shift_jis"),
                                         (JAPANESE, "euc_jp"), (CHINESE, "gbk")])
def test_an_undeclared_russian_japanese_or_chinese_page_of_ordinary_length_is_read_as_written(tmp_path, text,
                                                                                              codec):
    assert _read(tmp_path, "page.html", _page(text).encode(codec)) == text


@pytest.mark.parametrize("text, codec", [(RUSSIAN, "cp1251"), (JAPANESE, "shift_jis"), (CHINESE, "gbk")])
def test_an_undeclared_russian_japanese_or_chinese_text_file_is_read_as_written(tmp_path, text, codec):
    assert _read(tmp_path, "notes.txt", text.encode(codec)) == text
    assert _read(tmp_path, "notes.md", f"# Heat pumps\n\n{text}\n".encode(codec)) == f"# Heat pumps\n\n{text}"


def test_a_shared_html_or_text_file_in_a_legacy_encoding_is_read_as_written(tmp_path):
    """Files shared in a thread are read by the same rules as the corpus's."""
    for name, data, text in (("a.html", _page(WESTERN["fr"]).encode("cp1252"), WESTERN["fr"]),
                             ("b.txt", WESTERN["it"].encode("cp1252"), WESTERN["it"]),
                             ("c.txt", RUSSIAN.encode("cp1251"), RUSSIAN),
                             ("d.html", _page(JAPANESE).encode("shift_jis"), JAPANESE)):
        (tmp_path / name).write_bytes(data)
        assert read_file(tmp_path / name, name, 10, 100_000).sections == [["", text]], name


@pytest.mark.parametrize("head", ['<meta charset="windows-1251">', "<meta charset=cp1251>",
                                  '<meta http-equiv="Content-Type" content="text/html; charset=windows-1251">',
                                  "<META HTTP-EQUIV='content-type' CONTENT='text/html;charset=Windows-1251'>"])
def test_a_declared_charset_wins_however_short_the_text(tmp_path, head):
    assert _read(tmp_path, "page.html", _page("Да, это так.", head).encode("cp1251")) == "Да, это так."


def test_a_page_declaring_latin_1_is_read_as_windows_1252(tmp_path):
    """ISO-8859-1 and ASCII are labels of windows-1252 (https://encoding.spec.whatwg.org/#names-and-labels):
    a page that says so and holds curly quotes and the euro sign shows them, not C1 control codes."""
    for label in ("iso-8859-1", "ISO-8859-1", "latin1", "us-ascii"):
        data = _page(WESTERN["en"], f'<meta charset="{label}">').encode("cp1252")
        assert _read(tmp_path, "page.html", data) == WESTERN["en"], label


def test_a_byte_order_mark_wins_over_a_meta_charset(tmp_path):
    page = _page(WESTERN["de"], '<meta charset="windows-1252">')
    assert _read(tmp_path, "a.html", b"\xef\xbb\xbf" + page.encode("utf-8")) == WESTERN["de"]
    assert _read(tmp_path, "b.html", b"\xff\xfe" + page.encode("utf-16-le")) == WESTERN["de"]
    assert _read(tmp_path, "c.html", b"\xfe\xff" + page.encode("utf-16-be")) == WESTERN["de"]


def test_undeclared_utf8_is_utf8_and_a_meta_declaring_utf16_means_utf8(tmp_path):
    """A ``<meta>`` read from bytes cannot be UTF-16 (the standard reads it as UTF-8)."""
    assert _read(tmp_path, "a.html", _page(RUSSIAN).encode("utf-8")) == RUSSIAN
    assert _read(tmp_path, "b.html", _page(WESTERN["es"], '<meta charset="utf-16">').encode("utf-8")) == WESTERN["es"]


def test_the_order_of_the_sniffing_steps():
    """Byte-order mark, then the transport's charset, then ``<meta>``, then UTF-8, then the fallback."""
    from engine.search.text_encoding import html_encoding

    meta = _page("Größe", '<meta charset="koi8-r">').encode("cp1252")
    assert html_encoding(meta) == "koi8_r"
    assert html_encoding(meta, transport="text/html; charset=ISO-8859-1") == "cp1252"
    assert html_encoding(meta, transport="text/html; charset=nonsense") == "koi8_r"
    assert html_encoding(meta, transport="text/html") == "koi8_r"
    assert html_encoding(b"\xef\xbb\xbf" + meta, transport="text/html; charset=koi8-r") == "utf_8"
    assert html_encoding(_page("Größe").encode("utf-8")) == "utf_8"
    assert html_encoding(_page("Größe").encode("cp1252")) == "cp1252"


def test_labels_are_read_as_the_encoding_standard_says():
    """https://encoding.spec.whatwg.org/#concept-encoding-get: whitespace around and case do not
    matter; each label names the decoder browsers use; an unknown label names nothing."""
    from engine.search.text_encoding import encoding_of_label

    assert encoding_of_label(" Windows-1252\t") == "cp1252"
    assert encoding_of_label("iso-8859-1") == encoding_of_label("ascii") == "cp1252"
    assert encoding_of_label("shift_jis") == encoding_of_label("x-sjis") == "cp932"
    assert encoding_of_label("gb2312") == encoding_of_label("gbk") == "gb18030"
    assert encoding_of_label("euc-kr") == "cp949"
    assert encoding_of_label("iso-8859-9") == "cp1254"
    assert encoding_of_label("big5") == "big5hkscs"
    assert encoding_of_label("utf-7") is None and encoding_of_label("rot13") is None
    assert encoding_of_label("nonsense") is None and encoding_of_label("") is None


def test_an_index_holding_what_the_earlier_reading_stored_is_built_again(tmp_path):
    """An index of the earlier layout may hold a windows-1252 page as mojibake (read as Central
    European): it is no index of this version, and indexing the folder reads the page again."""
    import sqlite3

    from engine.search.corpus_index import index_directory
    from engine.search.corpus_layout import index_root

    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "page.html").write_bytes(_page(WESTERN["fr"]).encode("cp1252"))
    index = tmp_path / "corpus.sqlite"
    index_directory(docs, index)
    with sqlite3.connect(index) as conn:
        conn.execute("UPDATE meta SET value = '2' WHERE key = 'schema'")
        conn.execute("UPDATE passages SET body = replace(body, 'à', 'ą')")
    assert index_root(index) is None
    assert index_directory(docs, index).added == 1
    with sqlite3.connect(index) as conn:
        assert conn.execute("SELECT group_concat(body) FROM passages").fetchone()[0] == WESTERN["fr"]


@pytest.mark.parametrize("text", ["ÀÉÎÕÜ ÇÑ ÆØÅ æøå œŒ ß àéîõü çñ " * 5, "«»" * 20, "ÉÉÉÉÉÉÉÉÉÉ ÀÀÀÀÀÀ " * 5,
                                  "€€€ ™®© °±×÷ ½¼¾ §¶ «» „“ ‚‘ … • †‡ ‰ " * 4])
def test_western_letters_and_symbols_that_are_no_prose_stay_windows_1252(tmp_path, text):
    """Read as windows-1252 they are a mess, as text with accented letters in a row is; read as
    Cyrillic they are no language, and read as Shift_JIS they are halfwidth katakana."""
    assert _read(tmp_path, "chars.txt", text.encode("cp1252")) == text.strip()


@pytest.mark.parametrize("codec", ["shift_jis", "euc_jp"])
def test_a_long_line_of_japanese_without_ascii_is_told_from_whole_characters(tmp_path, codec):
    """The sample a detector reads ends after a whole character even when the line it cuts has no
    space, punctuation or markup in its first 16 KiB."""
    line = "x" + JAPANESE * 600
    assert _read(tmp_path, "long.txt", line.encode(codec)) == line
