"""Make untrusted text safe at the edge: no lone surrogates, no invalid bytes, no control characters."""

from __future__ import annotations

import functools
import html.entities
import os
import re
import threading
import unicodedata
from urllib.parse import SplitResult, urlsplit

#: Terminal escape sequences (ECMA-48 / ISO 6429, as xterm and VT100 read them), each removed whole
#: so none leaves its printable tail behind ("\x1b[31m" must not become "[31m"): a control string
#: (OSC ``ESC ]``, DCS ``ESC P``, SOS ``ESC X``, PM ``ESC ^``, APC ``ESC _``, or their C1 forms)
#: up to its terminator (ST ``ESC \\`` or ``\x9c``, or BEL, which xterm takes for OSC); a CSI
#: (``ESC [`` or ``\x9b``) with its parameter, intermediate and final bytes; a character set
#: designation (``ESC ( B``, what ``tput sgr0`` prints) and an escape of one final byte (``ESC 7``,
#: ``ESC c``, ``ESC =``). A control string without its terminator on the same line loses its
#: introducer only, and so does a rarer escape ("\x1b.pdf" keeps ".pdf"): the rest is kept as text.
_ESCAPE_SEQUENCE = re.compile(
    r"(?:\x1b[\]PX^_]|[\x90\x98\x9d\x9e\x9f])[^\x07\x1b\x9c\n]*(?:\x07|\x1b\\|\x9c)"
    r"|(?:\x1b\[|\x9b)[\x30-\x3f]*[\x20-\x2f]*[\x40-\x7e]"
    r"|\x1b[()*+][\x20-\x2f]*[\x30-\x7e]|\x1b[\x30-\x7e]"
)
#: Control characters (Unicode category Cc) other than tab and newline: C0, DEL and C1.
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
#: Control characters that break lines (vertical tab, form feed, NEL): kept as a newline.
_BREAKS = re.compile(r"[\x0b\x0c\x85]")
#: Every control character (Cc), newline and tab included: none belongs in a file name shown on a line.
_PATH_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")
#: Lone UTF-16 surrogates: not characters, and no UTF-8 encoder takes them.
_SURROGATE = re.compile(r"[\ud800-\udfff]")
REPLACEMENT = "\ufffd"


def clean_text(text: str | bytes | None) -> str:
    """``text`` made safe to store, put in a prompt or a report, and print.

    Bytes are decoded as UTF-8 with invalid sequences replaced by U+FFFD. In a string, lone
    surrogates (what Python makes of invalid UTF-8 in ``argv``, file names and environment
    variables, or what a JSON ``"\\ud800"`` escape decodes to) become U+FFFD too; when they all
    carry ``surrogateescape`` bytes, those bytes are decoded as UTF-8 with ``errors="replace"``.
    Terminal escape sequences (colours ``ESC [31m``, titles ``ESC ]0;…BEL``: :data:`_ESCAPE_SEQUENCE`)
    are removed whole. CR LF, lone CR, vertical tab, form feed (a PDF's page break) and NEL become
    LF; every other control character except tab and newline (ESC, BEL, NUL, DEL, the C1 range) is
    dropped.
    None gives "".
    """
    if text is None:
        return ""
    if isinstance(text, bytes):
        text = text.decode("utf-8", "replace")
    elif _SURROGATE.search(text):
        if _only_escaped(text):  # invalid bytes carried by surrogateescape: decode them as UTF-8 would
            text = text.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
        text = _SURROGATE.sub(REPLACEMENT, text)
    text = _ESCAPE_SEQUENCE.sub("", text)
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    text = _BREAKS.sub("\n", text)
    return _CONTROL.sub("", text)


def _only_escaped(text: str) -> bool:
    """True when every surrogate in ``text`` is a ``surrogateescape`` byte (U+DC80..U+DCFF)."""
    return all("\udc80" <= ch <= "\udcff" for ch in _SURROGATE.findall(text))


def has_words(text: str) -> bool:
    """True when ``text`` holds a letter or a digit of any script (Unicode categories L and N): a
    question of emoji, punctuation or symbols alone asks nothing a search could look up."""
    return any(unicodedata.category(ch)[0] in "LN" for ch in text)


#: Bidirectional embeddings, overrides and isolates (U+202A-U+202E, U+2066-U+2069): a title that
#: opens one and never closes it reverses what follows ("evil" shown as "live"), on the page and in
#: every text shown after it on that line. The marks (U+200E, U+200F) change no order and stay.
_BIDI_CONTROLS = re.compile("[\u202a-\u202e\u2066-\u2069]")

#: Whitespace a line may break at: all of Unicode's but the no-break spaces (U+00A0 NO-BREAK SPACE,
#: U+2007 FIGURE SPACE, U+202F NARROW NO-BREAK SPACE), which pandoc's Markdown reader keeps in a word.
BREAKING_SPACE = re.compile(r"[^\S\u00a0\u2007\u202f]+")


def squeeze(text: str) -> str:
    """``text`` on one line: each run of breaking whitespace (:data:`BREAKING_SPACE`, line breaks
    included) one space, none at either end. No-break spaces stay as written: French puts one before
    ``?`` and ``:`` (``pompe\u202f?``) and in ``1\u00a0000\u00a0€``, and a line may not break there."""
    return BREAKING_SPACE.sub(" ", text).strip(" ")


#: The no-break spaces (NO-BREAK SPACE, FIGURE SPACE, NARROW NO-BREAK SPACE) as ordinary ones.
_ORDINARY_SPACES = str.maketrans(dict.fromkeys("\u00a0\u2007\u202f", " "))


def ordinary_spaces(text: str) -> str:
    """``text`` with each no-break space an ordinary one, character for character (so an index into one
    is an index into the other): for finding the bot's own phrases in a text written when they had
    ordinary spaces where they now have no-break ones (French before ``:``, ``;``, ``?``), or the
    other way round."""
    return text.translate(_ORDINARY_SPACES)


def any_space_pattern(text: str) -> str:
    """A regular expression matching ``text`` literally except that each space in it, ordinary or
    no-break, matches either kind (:func:`ordinary_spaces`)."""
    return r"[ \u00a0\u2007\u202f]".join(re.escape(part) for part in ordinary_spaces(text).split(" "))


#: The marks that end a question, by their Unicode names: QUESTION MARK, FULLWIDTH QUESTION MARK
#: (Chinese, Japanese), ARABIC QUESTION MARK (Arabic, Persian, Urdu), ARMENIAN QUESTION MARK, ETHIOPIC
#: QUESTION MARK, REVERSED QUESTION MARK, DOUBLE QUESTION MARK, QUESTION EXCLAMATION MARK and
#: EXCLAMATION QUESTION MARK. (GREEK QUESTION MARK is ";" once normalised: NFC maps U+037E to U+003B.)
QUESTION_MARKS = "?？؟՞፧⸮⁇⁈⁉"
#: The marks a question or a sentence may end with: :data:`QUESTION_MARKS`, the full stop and the
#: exclamation mark, their full-width forms (。！), ARABIC FULL STOP (U+06D4, Urdu) and DEVANAGARI
#: DANDA (U+0964). An ellipsis is not one: it says that something is left out.
END_MARKS = QUESTION_MARKS + ".!。！۔।"


def without_end_marks(text: str) -> str:
    """``text`` without its outer whitespace and the :data:`END_MARKS` it ends with: "How?" gives
    "How", "كيف؟" gives "كيف", "仕組みは？" gives "仕組みは"; "Why…?" keeps its "…"."""
    return text.strip().rstrip(END_MARKS).strip()


def ends_as_question(text: str) -> bool:
    """True when ``text``, without trailing spaces, closing quotation marks and exclamation marks,
    ends with one of :data:`QUESTION_MARKS` ("Why?", "لماذا؟", "Pourquoi ?", "«Why?»", "Really?!")."""
    return text.rstrip("\"'”’»« !！").endswith(tuple(QUESTION_MARKS))


def without_bidi_controls(text: str) -> str:
    """``text`` without bidirectional embeddings, overrides and isolates (:data:`_BIDI_CONTROLS`): for
    a line shown in a terminal, where one left open reorders the rest of the line and those after it."""
    return _BIDI_CONTROLS.sub("", text)


#: A byte that is not UTF-8 as Python carries it in text it decoded with ``surrogateescape`` (the
#: command line, file names, the environment): U+DC80 to U+DCFF, PEP 383.
_ESCAPED_BYTE = re.compile("[\udc80-\udcff]")
#: Such a byte as ``repr()`` writes it (``\\udcff``, as Click's "No such command 'ask\\udcff'" quotes a
#: name), after an even number of backslashes: after an odd one, the backslash is the value's own.
_ESCAPED_BYTE_REPR = re.compile(r"(?<!\\)((?:\\\\)*)\\udc([89a-f][0-9a-f])")


def terminal_line(text: str) -> str:
    """``text`` as a terminal shows it in a line of its own (a refusal, an error, a requester's
    name): bytes that are not UTF-8, whether carried as they are or as ``repr()`` wrote them, shown
    as ``\\xNN`` escapes, as ``ls`` and bash's ``$'…'`` quoting show them (``ask\\xff``, where Python
    prints ``ask\\udcff`` and :func:`clean_text` alone makes U+FFFD of it); then :func:`clean_text`
    and no bidirectional override (:func:`without_bidi_controls`). Line breaks are kept."""
    text = _ESCAPED_BYTE_REPR.sub(r"\1\\x\2", text)
    text = _ESCAPED_BYTE.sub(lambda m: f"\\x{ord(m.group(0)) - 0xDC00:02x}", text)
    return without_bidi_controls(clean_text(text))


def one_line(text: str, limit: int) -> str:
    """``text`` on one line (runs of breaking whitespace, line breaks included, become one space:
    :func:`squeeze`; no
    bidirectional override or isolate, see :data:`_BIDI_CONTROLS`) of at most ``limit`` characters.

    A longer one is cut after its last whole word in the limit's final fifth, else (a language
    written without spaces, one long word) between two grapheme clusters, the characters a reader
    sees (Unicode UAX #29 by ICU: an emoji of several code points or a letter with its accents is
    never cut in two), and ends with "…".
    """
    line = squeeze(_BIDI_CONTROLS.sub("", text))
    if len(line) <= limit:
        return line
    head = line[: limit - 1]
    space = head.rfind(" ")
    head = head[:space] if space >= (limit * 4) // 5 else head[:grapheme_cut(line, limit - 1)]
    return head.rstrip() + "…"


def grapheme_cut(text: str, limit: int) -> int:
    """The last place at or before ``limit`` where ``text`` may be cut between two grapheme clusters,
    the characters a reader sees (Unicode UAX #29 by ICU): never inside an emoji of several code
    points or between a letter and its accents. A cluster longer than 64 characters (a letter under
    hundreds of accents) may be cut inside; the result is at least 1 for a ``limit`` of 1 or more."""
    if limit >= len(text):
        return len(text)
    from icu4py.breakers import CharacterBreaker

    base = max(0, limit - 64)  # clusters are short: the window before the limit holds the last boundary
    kept = base
    for cluster in CharacterBreaker(text[base: limit + 64], "root"):
        if kept + len(cluster) > limit:
            break
        kept += len(cluster)
    return kept if kept > 0 else limit


def clean_path(path: str | os.PathLike[str] | bytes) -> str:
    """A file name or path as printable, storable text that still tells two names apart.

    Undecodable bytes (invalid UTF-8 in a file name) are shown as ``\\xNN`` escapes and control
    characters as ``\\xNN`` or ``\\uNNNN``, rather than replaced or dropped, so two files whose
    names differ only there keep different keys (an index's unique path column).
    """
    try:
        raw = os.fsencode(path)
    except UnicodeEncodeError:  # a lone surrogate that no byte escaped
        raw = os.fspath(path).encode("utf-8", "surrogatepass")  # type: ignore[union-attr]
    text = raw.decode("utf-8", "backslashreplace")
    return _PATH_CONTROL.sub(lambda m: m.group(0).encode("unicode_escape").decode("ascii"), text)


#: ASCII punctuation that can open or close Markdown markup in GFM (CommonMark 0.31 with GitHub's
#: tables and strikethrough): backslash escapes, code spans, emphasis, links and images, autolinks
#: and raw HTML, entity references (``&amp;``), table cells, strikethrough and a heading's closing
#: ``#`` sequence. CommonMark lets any ASCII punctuation be escaped with a backslash (spec §2.4).
_MARKUP = re.compile(r"([\\`*_\[\]<>&|~#!])")
_ESCAPE = re.compile(r"\\([!-/:-@\[-`{-~])")
_ASCII_PUNCTUATION = frozenset("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")
#: An entity or numeric character reference (CommonMark §2.5, the names of HTML5's list): the only
#: ``&`` that is markup.
_ENTITY = re.compile(r"&(?:#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]*);")
#: What a line starts a list or a thematic break with (CommonMark §4.1, §5.2, §5.3): ``-``, ``+``,
#: ``1.``/``1)`` before a space or the end, or three or more ``-``.
_BLOCK_START = re.compile(r"(?:[-+]|\d{1,9}[.)])(?=\s|$)|(?:-\s*){3,}$")
#: A heading's closing sequence: ``#`` characters after a space at the end (CommonMark §4.2).
_CLOSING_HASHES = re.compile(r"(?<=\s)#+$")
#: The places a literal goes (a list item before a citation, a heading, bold, italic, a link's
#: text, a quote in a sentence): a lighter escaping must show the same in each as the full one.
#: A list of quoted titles in one sentence (the review's sources not cited) is the line twice: an
#: unescaped ``_`` closing in one copy and opening in the next would be emphasis there.
_PLACES = ("- {0} [1]", "# {0}", "**{0}**", "*{0}*", "[{0}](<https://example.org/>)", "a \u201c{0}\u201d b",
           "a \u201c{0}\u201d, \u201c{0}\u201d b")
#: The characters whose escapes :func:`markdown_literal` drops when nothing they could pair with is
#: in the line: emphasis delimiters (CommonMark §6.2).
_EMPHASIS = "_*"
#: mistletoe keeps the document being parsed in a module global (link labels are looked up in it),
#: so two parses at once in one process can break each other: every parse should hold this lock.
MISTLETOE_LOCK = threading.Lock()


#: A bare URL in prose as GFM's autolink extension finds it: ``http://``, ``https://`` or ``www.``
#: up to whitespace or ``<`` (https://github.github.com/gfm/#autolinks-extension-); pandoc's
#: ``gfm`` reader links these, so the characters in one are never escaped (its link would keep
#: the backslashes) but written as an autolink ``<url>`` (CommonMark §6.5: no escapes inside).
_BARE_URL = re.compile(r"(?:https?://|www\.)[^\s<>\"'`]+", re.IGNORECASE)
#: What ends a bare URL's match but not the URL (GFM's trailing punctuation, quotes); any non-ASCII
#: punctuation at the end too (”, », 」, 。), which GFM would keep and so link to a wrong address.
_TRAILING = frozenset(".,:;!?*_~'\"")
#: Unicode categories of the punctuation that ends a URL (brackets, quotes, other stops, not dashes).
_STOPS = frozenset(("Ps", "Pe", "Pi", "Pf", "Po"))
#: An emoji shortcode such as ``:smile:``, which a GFM viewer of report.md (GitHub's, pandoc's ``gfm``
#: reader with its ``emoji`` extension) shows as the emoji: its first colon is escaped so the text
#: stays as written. The PDF and the Word document read Markdown without that extension.
_SHORTCODE = re.compile(r":[a-z0-9_+-]+:")
#: An autolink :func:`markdown_literal` wrote, resolved back by :func:`markdown_unescape`.
_AUTOLINK_OR_ESCAPE = re.compile(r"<((?:https?://)[^\s<>]+)>|\\([!-/:-@\[-`{-~])", re.IGNORECASE)


def parse_url(url: str) -> SplitResult:
    """``urllib.parse.urlsplit(url)``; an address urllib cannot parse (stray brackets around the
    host: ``ValueError: Invalid IPv6 URL``) is one with no scheme and no host, the whole text its path,
    so it is shown as text and never made a link or fetched."""
    try:
        return urlsplit(url)
    except ValueError:
        return SplitResult("", "", url, "", "")


def split_urls(text: str, *, www: bool = False) -> list[tuple[bool, str]]:
    """``text`` as ``(is_url, piece)`` pairs, bare http(s) URLs (and ``www.`` ones when ``www``)
    apart, as GFM's autolink extension finds them (:data:`_BARE_URL`, :data:`_TRAILING`; a final
    ``)`` only when it closes one in the URL); the pieces join back to ``text``."""
    out: list[tuple[bool, str]] = []
    last = 0
    for match in _BARE_URL.finditer(text):
        url = _trim(match.group(0))
        if url[:1] in "wW" and (not www or len(url) <= len("www.")) or len(url) <= len("https://"):
            continue
        start = match.start()
        if start > last:
            out.append((False, text[last:start]))
        out.append((True, url))
        last = start + len(url)
    if last < len(text):
        out.append((False, text[last:]))
    return out


def _trim(url: str) -> str:
    """The URL in a bare URL's match: up to the first non-ASCII quote, bracket or stop (never in a
    real address, but it ends one in text without spaces: ``東京「https://…/東京」を参照``), then
    without :data:`_TRAILING` characters at its end."""
    cut = next((i for i, ch in enumerate(url) if not ch.isascii() and unicodedata.category(ch) in _STOPS), len(url))
    url = url[:cut]
    while url:
        end = url[-1]
        if end in _TRAILING or (not end.isascii() and unicodedata.category(end).startswith("P")):
            url = url[:-1]
        elif end == ")" and url.count(")") > url.count("("):
            url = url[:-1]
        else:
            break
    return url


@functools.lru_cache(maxsize=4096)
def markdown_literal(text: str, *, links: bool = True) -> str:
    """Plain ``text`` (a question, a title, a topic) as one line of Markdown that renders to it.

    Runs of breaking whitespace, line breaks included, become one space (a heading or a title is
    one line; no-break spaces stay: :func:`squeeze`). Only the characters that would be markup where they stand are escaped, so the raw
    ``report.md`` reads as the text was written: ``R&D``, ``snake_case``, ``Title | Site`` and
    ``5 * 3`` stay as they are, while ``&amp;``, ``<b>``, ``[a](b)``, ``*word*``, a leading ``1.`` or
    ``-``, a closing `` #`` and an emoji shortcode's ``:`` are escaped. The lighter line is kept
    only when it shows the same as the line with every character of :data:`_MARKUP` escaped in
    each place a report puts text (:data:`_PLACES`, parsed with mistletoe as CommonMark);
    otherwise that fully escaped line is returned. :func:`markdown_unescape` reverses either.

    An emphasis character (:data:`_EMPHASIS`) at a word's edge can open or close emphasis
    (CommonMark §6.2's flanking rules) but does so only with a partner: the line's ``_`` are all
    written without backslashes when the line then still shows the same in every place, and so
    are its ``*`` (``_thread — Low-level threading API`` stays as it is; ``_a_``, ``__init__``
    and ``*stars*`` keep theirs, since unescaped they would be emphasis).

    A bare http(s) URL in ``text`` (:func:`split_urls`) is written ``<url>``, a link showing the
    URL as written, where pandoc's ``gfm`` reader would otherwise link it with any backslash in it
    (or a closing ``”`` after it). With ``links=False`` (the text goes inside a link's text, where
    links do not nest) a URL that holds markup or has text after it stays text, a backslash in its
    ``://`` keeping pandoc from linking it; so does such a ``www.`` URL (a backslash after ``www``).
    """
    line = squeeze(text)
    full = _escape_block_start(_escaped(line, lambda i: _MARKUP.fullmatch(line[i]), links), line)
    if full == line:
        return line
    marked = {i for i in range(len(line)) if _is_markup(line, i)}
    light = _escape_block_start(_escaped(line, marked.__contains__, links), line)
    if light != full and _html(_in_places(light)) != _html(_in_places(full)):
        return full
    shown = _html(_in_places(light))
    for delimiter in _EMPHASIS:  # every "_" of the line unescaped at once, then every "*"
        fewer = {i for i in marked if line[i] != delimiter}
        if fewer != marked:
            lighter = _escape_block_start(_escaped(line, fewer.__contains__, links), line)
            if _html(_in_places(lighter)) == shown:
                marked, light = fewer, lighter
    return light


def _escaped(line: str, markup, links: bool) -> str:
    """``line`` with each character at an index ``markup`` holds true for escaped (and an emoji
    shortcode's first colon), its bare URLs written as :func:`markdown_literal` says."""
    out, at = [], 0
    for is_url, piece in split_urls(line, www=True):
        escaped = "".join(f"\\{ch}" if markup(at + i) or _SHORTCODE.match(line, at + i) else ch
                          for i, ch in enumerate(piece))
        follows = line[at + len(piece):at + len(piece) + 1]  # whitespace is one space here
        if is_url and links and piece[:1] not in "wW":
            escaped = f"<{piece}>"
        elif is_url and (escaped != piece or follows not in ("", " ")):
            # pandoc would link it, with the backslashes or what follows: break its "://" or "www."
            cut = piece.index(":") if piece[:1] in "hH" else 3  # the letters before are never escaped
            escaped = f"{escaped[:cut]}\\{escaped[cut:]}"
        out.append(escaped)
        at += len(piece)
    return "".join(out)


def _escape_block_start(escaped: str, line: str) -> str:
    """``escaped`` (``line`` with some characters escaped) with the punctuation that would start a
    list item or a thematic break at the start of ``line`` escaped too."""
    if (match := _BLOCK_START.match(line)) is None:
        return escaped
    at = match.end() - 1 if line[0].isdigit() else 0  # "1." escapes its ".", "-" and "+" themselves
    return escaped[:at] + "\\" + escaped[at:]


def _in_places(line: str) -> str:
    """A document holding ``line`` once in each of :data:`_PLACES`, a paragraph apart."""
    return "\n\n".join(place.format(line) for place in _PLACES)


def _is_markup(line: str, i: int) -> bool:
    """Whether ``line[i]`` could be read as markup where it stands (CommonMark 0.31 and GFM)."""
    ch, before, after = line[i], line[i - 1:i], line[i + 1:i + 2]
    if ch == "\\":
        return after == "" or after in _ASCII_PUNCTUATION  # an escape; at the end it could escape what follows
    if ch == "&":
        entity = _ENTITY.match(line, i)
        return bool(entity) and (entity.group(0)[1] == "#" or entity.group(0)[1:] in html.entities.html5)
    if ch == "<":  # raw HTML or an autolink
        return after.isascii() and (after.isalpha() or after in "/!?")
    if ch == ">":  # a block quote
        return i == 0
    if ch == "#":  # an ATX heading, or its closing sequence
        return i == 0 or (bool(_CLOSING_HASHES.search(line)) and len(line.rstrip("#")) == i)
    if ch in "*_":  # emphasis needs a delimiter run that is not between two spaces (§6.2)
        if before.isspace() and after.isspace():
            return False
        return not (ch == "_" and before.isalnum() and after.isalnum())
    if ch == "~":  # strikethrough needs two
        return line.count("~") > 1
    return ch in "`[]"  # code spans, links; "!" is an image only before "[", "|" a cell only in a table


def _html(markdown: str) -> str:
    """``markdown`` as HTML (mistletoe, CommonMark with raw HTML)."""
    from mistletoe import Document, HtmlRenderer

    with MISTLETOE_LOCK, HtmlRenderer() as renderer:
        return renderer.render(Document(markdown))


def markdown_unescape(markdown: str) -> str:
    """``markdown`` with its backslash escapes of ASCII punctuation resolved (CommonMark §2.4) and
    its http(s) autolinks ``<url>`` written as the URL: the plain text of a line
    :func:`markdown_literal` wrote, or of a heading without other markup."""
    return _AUTOLINK_OR_ESCAPE.sub(lambda m: m.group(1) or m.group(2), markdown)
