"""The encoding in which an HTML page's or a text file's bytes are read: what they declare, else
UTF-8 when they are UTF-8, else windows-1252 unless they are plainly Russian, Japanese or Chinese in
a legacy encoding (the HTML standard's encoding sniffing, with the Encoding Standard's labels)."""

from __future__ import annotations

import re

#: The Encoding Standard's encodings and their labels (https://encoding.spec.whatwg.org/#names-and-labels),
#: each under the Python codec that decodes it as browsers do: windows-1252 is also what ISO-8859-1
#: and ASCII name (so a page that says "iso-8859-1" shows its curly quotes), ISO-8859-9 is
#: windows-1254, ISO-8859-11 windows-874, GBK the GB18030 decoder, Big5 with HKSCS, Shift_JIS with
#: Microsoft's extensions (cp932), EUC-KR windows-949. ``x-user-defined`` is read as windows-1252, as
#: the standard's ``<meta>`` prescan does. The labels of the "replacement" encoding (ISO-2022-KR,
#: HZ-GB-2312, ISO-2022-CN) name none here: they declare nothing. Python's cp1252 has no character for
#: five bytes to which the standard gives C1 control codes (0x81, 0x8D, 0x8F, 0x90, 0x9D): they are read
#: as U+FFFD.
_ENCODINGS = {
    "utf_8": "unicode-1-1-utf-8 utf-8 utf8",
    "cp866": "866 cp866 csibm866 ibm866",
    "iso8859_2": "csisolatin2 iso-8859-2 iso-ir-101 iso8859-2 iso88592 iso_8859-2 iso_8859-2:1987 l2 latin2",
    "iso8859_3": "csisolatin3 iso-8859-3 iso-ir-109 iso8859-3 iso88593 iso_8859-3 iso_8859-3:1988 l3 latin3",
    "iso8859_4": "csisolatin4 iso-8859-4 iso-ir-110 iso8859-4 iso88594 iso_8859-4 iso_8859-4:1988 l4 latin4",
    "iso8859_5": "csisolatincyrillic cyrillic iso-8859-5 iso-ir-144 iso8859-5 iso88595 iso_8859-5 iso_8859-5:1988",
    "iso8859_6": "arabic asmo-708 csiso88596e csiso88596i csisolatinarabic ecma-114 iso-8859-6 iso-8859-6-e "
                 "iso-8859-6-i iso-ir-127 iso8859-6 iso88596 iso_8859-6 iso_8859-6:1987",
    "iso8859_7": "csisolatingreek ecma-118 elot_928 greek greek8 iso-8859-7 iso-ir-126 iso8859-7 iso88597 "
                 "iso_8859-7 iso_8859-7:1987 sun_eu_greek",
    "iso8859_8": "csiso88598e csisolatinhebrew hebrew iso-8859-8 iso-8859-8-e iso-ir-138 iso8859-8 iso88598 "
                 "iso_8859-8 iso_8859-8:1988 visual csiso88598i iso-8859-8-i logical",
    "iso8859_10": "csisolatin6 iso-8859-10 iso-ir-157 iso8859-10 iso885910 l6 latin6",
    "iso8859_13": "iso-8859-13 iso8859-13 iso885913",
    "iso8859_14": "iso-8859-14 iso8859-14 iso885914",
    "iso8859_15": "csisolatin9 iso-8859-15 iso8859-15 iso885915 iso_8859-15 l9",
    "iso8859_16": "iso-8859-16",
    "koi8_r": "cskoi8r koi koi8 koi8-r koi8_r",
    "koi8_u": "koi8-u",
    "mac_roman": "csmacintosh mac macintosh x-mac-roman",
    "cp874": "dos-874 iso-8859-11 iso8859-11 iso885911 tis-620 windows-874",
    "cp1250": "cp1250 windows-1250 x-cp1250",
    "cp1251": "cp1251 windows-1251 x-cp1251",
    "cp1252": "ansi_x3.4-1968 ascii cp1252 cp819 csisolatin1 ibm819 iso-8859-1 iso-ir-100 iso8859-1 iso88591 "
              "iso_8859-1 iso_8859-1:1987 l1 latin1 us-ascii windows-1252 x-cp1252 x-user-defined",
    "cp1253": "cp1253 windows-1253 x-cp1253",
    "cp1254": "cp1254 csisolatin5 iso-8859-9 iso-ir-148 iso8859-9 iso88599 iso_8859-9 iso_8859-9:1989 l5 latin5 "
              "windows-1254 x-cp1254",
    "cp1255": "cp1255 windows-1255 x-cp1255",
    "cp1256": "cp1256 windows-1256 x-cp1256",
    "cp1257": "cp1257 windows-1257 x-cp1257",
    "cp1258": "cp1258 windows-1258 x-cp1258",
    "mac_cyrillic": "x-mac-cyrillic x-mac-ukrainian",
    "gb18030": "chinese csgb2312 csiso58gb231280 gb2312 gb_2312 gb_2312-80 gbk iso-ir-58 x-gbk gb18030",
    "big5hkscs": "big5 big5-hkscs cn-big5 csbig5 x-x-big5",
    "euc_jp": "cseucpkdfmtjapanese euc-jp x-euc-jp",
    "iso2022_jp": "csiso2022jp iso-2022-jp",
    "cp932": "csshiftjis ms932 ms_kanji shift-jis shift_jis sjis windows-31j x-sjis",
    "cp949": "cseuckr csksc56011987 euc-kr iso-ir-149 korean ks_c_5601-1987 ks_c_5601-1989 ksc5601 ksc_5601 "
             "windows-949",
    "utf_16_be": "utf-16be",
    "utf_16_le": "utf-16 utf-16le",
}
_CODEC_OF_LABEL = {label: codec for codec, labels in _ENCODINGS.items() for label in labels.split()}
#: Byte-order marks, each with the codec it names (https://encoding.spec.whatwg.org/#bom-sniff).
_BOMS = ((b"\xef\xbb\xbf", "utf_8"), (b"\xfe\xff", "utf_16_be"), (b"\xff\xfe", "utf_16_le"))
#: What undeclared bytes that are not UTF-8 are read in, unless the text is plainly in one of
#: :data:`_LEGACY`: the HTML standard's default for Western locales (English, German, French, Spanish,
#: Italian, Portuguese...; https://html.spec.whatwg.org/multipage/parsing.html#determining-the-character-encoding).
FALLBACK = "cp1252"
#: The other legacy encodings undeclared bytes may be in: those the HTML standard suggests as the
#: default for the other languages this project serves (Russian: windows-1251; Japanese: Shift_JIS;
#: Chinese: GB18030, Big5), with KOI8-R and EUC-JP, their languages' other common ones. Korean,
#: Greek or Central European encodings are left out: on short text each of them is a likely wrong
#: guess for Chinese (EUC-KR) or Western text (windows-1250, which a detector prefers for German).
_LEGACY = ("cp1251", "koi8_r", "cp932", "euc_jp", "gb18030", "big5hkscs")
#: Those of :data:`_LEGACY` that give every byte a character: any bytes read in them, so their
#: reading must be a language's (:data:`_LANGUAGE`).
_SINGLE_BYTE = frozenset({"cp1251", "koi8_r"})
#: The coherence (charset-normalizer's measure of how much a reading's letters are those of a language,
#: by their frequencies) a single-byte legacy reading needs: Russian of 32 letters and more scores 0.37
#: and over (0.41 for 95 % of 900 texts of 32-200 letters, made of the Russian words wordfreq lists),
#: a list of Western accented letters read as Cyrillic 0.17.
_LANGUAGE = 0.3
#: Halfwidth katakana (U+FF61-U+FF9F): what Shift_JIS makes of single bytes 0xA1-0xDF, the bytes of
#: windows-1252's accented capitals, guillemets and symbols; Japanese prose holds few of them.
_HALFWIDTH_KANA = re.compile("[\uff61-\uff9f]")
#: The mess ratio (charset-normalizer's measure of how unlike text a decoding reads: accented letters
#: in a row, symbols inside words...) under which windows-1252 is right: charset-normalizer's own
#: default bound for a plausible decoding. Measured on the sentences of the project's phrase catalogues
#: (630 in eight Western languages, each a paragraph of its own), windows-1252 reads at 0.17 at most;
#: Russian, Chinese and Japanese texts made of them (1,050 with 24 bytes outside ASCII or more) read in
#: it at 0.6 and more, bar one Japanese at 0.19.
_PLAUSIBLE = 0.2
#: The mess ratio under which a legacy encoding's reading may replace windows-1252's (which must be
#: messier still). Higher than :data:`_PLAUSIBLE`: Chinese text with English words in it (names of
#: commands, products) reads as 0.2-0.3 in its own encoding.
_LEGACY_PLAUSIBLE = 0.5
#: Bytes outside ASCII that a text needs before a legacy encoding is considered: a short Chinese or
#: Japanese text is as valid in GB18030 as in Big5 or Shift_JIS. Of the catalogues' Chinese and
#: Japanese texts, 17 of 73 with fewer than 16 such bytes were given a wrong one, none of 491 with 24
#: and more.
_MIN_EVIDENCE = 24
#: How much of a text's lines with bytes outside ASCII its encoding is told from, in bytes ...
SAMPLE_BYTES = 16 * 1024
#: ... and how far the last line may run past that to end after a whole character (:func:`_sample`).
_RUN_BYTES = 1024 * 1024
#: A byte outside ASCII; the marks that end a run of text (:func:`_sample`), a tag's brackets and a
#: line's end; and the bytes (controls, space, punctuation under "0") that are a character of their own
#: in every encoding of :data:`_LEGACY`, never part of another: Shift_JIS, GBK and Big5 bytes after the
#: first are 0x40 and above, EUC-JP's 0xA1 and above, GB18030's four-byte forms' 0x30-0x39 and above.
_HIGH = re.compile(rb"[\x80-\xff]")
_RUN_END = re.compile(rb"[<>\n]")
_BOUNDARY = re.compile(rb"[\x00-\x2f]")
_NOT_BOUNDARY = bytes(range(0x30, 0x100))


def encoding_of_label(label: str) -> str | None:
    """The Python codec of the encoding that ``label`` names (a ``charset`` value, e.g. ``"Shift_JIS"``),
    as the Encoding Standard gets an encoding (https://encoding.spec.whatwg.org/#concept-encoding-get:
    ASCII whitespace around it and letter case do not matter); None for a label it does not know
    ("utf-7", "nonsense")."""
    return _CODEC_OF_LABEL.get(label.strip("\t\n\f\r ").lower())


def html_encoding(data: bytes, transport: str | None = None) -> str:
    """The Python codec in which an HTML page's bytes ``data`` are read, by the HTML standard's encoding
    sniffing (https://html.spec.whatwg.org/multipage/parsing.html#encoding-sniffing-algorithm): a
    byte-order mark; else the charset of ``transport``, the page's ``Content-Type`` as its transport
    gave it (``"text/html; charset=koi8-r"``), when it names an encoding; else an XML declaration's
    ``encoding`` or a ``<meta charset>`` / ``<meta http-equiv="Content-Type">`` found by Beautiful
    Soup's prescan (a ``<meta>`` naming UTF-16 means UTF-8: bytes that hold it are no UTF-16); else
    :func:`undeclared_encoding`.

    Beautiful Soup looks for the ``<meta>`` in the first 2 KiB or 5 % of the page, not only the first
    1,024 bytes the standard's prescan reads: a browser that meets the ``<meta>`` later while parsing
    reads the page again in it (the standard's "change the encoding").
    """
    codec = bom_encoding(data)
    if codec:
        return codec
    if transport:
        from email.message import Message  # the standard library's reading of a header's parameters

        message = Message()
        message["content-type"] = transport
        codec = encoding_of_label(message.get_param("charset") or "")
        if codec:
            return codec
    from bs4.dammit import EncodingDetector  # Beautiful Soup: imported when a page is read

    declared = EncodingDetector.find_declared_encoding(data, is_html=True)
    codec = encoding_of_label(declared) if declared else None
    if codec:
        return "utf_8" if codec.startswith("utf_16") else codec
    return undeclared_encoding(data)


def bom_encoding(data: bytes) -> str | None:
    """The Python codec that the byte-order mark opening ``data`` names (UTF-8, UTF-16BE or UTF-16LE:
    https://encoding.spec.whatwg.org/#bom-sniff), or None when there is none."""
    return next((codec for bom, codec in _BOMS if data.startswith(bom)), None)


def undeclared_encoding(data: bytes) -> str:
    """The Python codec of bytes that declare none: UTF-8 when they are UTF-8 (ASCII included); else
    one of the legacy encodings of Russian, Japanese and Chinese (:data:`_LEGACY`) when the text is
    plainly in it; else windows-1252 (:data:`FALLBACK`). This is the standard's step that lets a
    browser tell the encoding from the bytes themselves; its default for Western locales is kept
    unless the text says otherwise, so a short Western text is never read as Cyrillic or Chinese.

    The text says otherwise when, in the lines holding bytes outside ASCII (:func:`_sample`): read as
    windows-1252 it is a mess (:data:`_PLAUSIBLE`, by charset-normalizer's mess detector), it has at
    least :data:`_MIN_EVIDENCE` such bytes, and charset-normalizer finds a legacy encoding in which it
    reads as less of a mess (:data:`_LEGACY_PLAUSIBLE`); for a single-byte one, in which it
    recognises a language (:data:`_LANGUAGE`: Cyrillic letters in any order are no Russian); and not
    mostly in halfwidth katakana (:data:`_HALFWIDTH_KANA`).
    """
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        pass
    else:
        return "utf_8"
    from charset_normalizer import from_bytes
    from charset_normalizer.md import mess_ratio

    sample = _sample(data)
    head = sample[:SAMPLE_BYTES]  # windows-1252 reads any cut: one byte, one character
    if len(_HIGH.findall(head)) < _MIN_EVIDENCE:
        return FALLBACK
    western = mess_ratio(head.decode(FALLBACK, errors="replace"), maximum_threshold=1.0)
    if western < _PLAUSIBLE:
        return FALLBACK
    best = from_bytes(sample, cp_isolation=list(_LEGACY), threshold=_LEGACY_PLAUSIBLE,
                      preemptive_behaviour=False, enable_fallback=False).best()
    if best is None or best.encoding not in _LEGACY or best.chaos >= western \
            or best.encoding in _SINGLE_BYTE and best.coherence < _LANGUAGE:
        return FALLBACK
    reading = str(best)
    if len(_HALFWIDTH_KANA.findall(reading)) * 2 > sum(not char.isascii() for char in reading):
        return FALLBACK
    return best.encoding


def decode(data: bytes, codec: str) -> str:
    """``data`` read in ``codec`` (a Python codec, as :func:`html_encoding` names one), a byte-order mark
    of it dropped; bytes that are no character in it are U+FFFD, as the standard's decoders read them."""
    for bom, named in _BOMS:
        if named == codec and data.startswith(bom):
            return str(memoryview(data)[len(bom):], codec, "replace")
    return str(data, codec, "replace")


def _sample(data: bytes) -> bytes:
    """The runs of ``data`` between tag marks and line ends that hold bytes outside ASCII, one a line,
    about :data:`SAMPLE_BYTES` of them: what tells encodings apart, without the markup and the ASCII
    text that read alike in all. The last run is cut after a byte of :data:`_BOUNDARY`, never inside a
    character (past the size when the run has none before it, up to :data:`_RUN_BYTES`; at the size
    when it has none there either). Time is linear in the bytes read."""
    runs: list[bytes] = []
    size = pos = 0
    while size < SAMPLE_BYTES and (high := _HIGH.search(data, pos)):
        start = max(pos, *(data.rfind(mark, pos, high.start()) + 1 for mark in (b"<", b">", b"\n")))
        found = _RUN_END.search(data, high.end())
        end = found.start() if found else len(data)
        if size + end - start > SAMPLE_BYTES:
            window = data[start:start + SAMPLE_BYTES - size]
            kept = window.rstrip(_NOT_BOUNDARY)
            if len(kept) < len(window) // 2:
                limit = min(end, start + _RUN_BYTES)
                after = _BOUNDARY.search(data, start + len(window), limit)
                kept = data[start:after.end() if after else end] if after or end == limit else window
            runs.append(kept)
            break
        runs.append(data[start:end])
        size += end - start + 1
        pos = end
    return b"\n".join(runs)
