"""Make untrusted text safe at the edge: no lone surrogates, no invalid bytes, no control characters."""

from __future__ import annotations

import functools
import html.entities
import os
import re
import threading

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
_PLACES = ("- {} [1]", "# {}", "**{}**", "*{}*", "[{}](<https://example.org/>)", "a \u201c{}\u201d b")
#: mistletoe keeps the document being parsed in a module global (link labels are looked up in it),
#: so two parses at once in one process can break each other: every parse should hold this lock.
MISTLETOE_LOCK = threading.Lock()


@functools.lru_cache(maxsize=4096)
def markdown_literal(text: str) -> str:
    """Plain ``text`` (a question, a title, a topic) as one line of Markdown that renders to it.

    Runs of whitespace, line breaks included, become one space (a heading or a title is one
    line). Only the characters that would be markup where they stand are escaped, so the raw
    ``report.md`` reads as the text was written: ``R&D``, ``snake_case``, ``Title | Site`` and
    ``5 * 3`` stay as they are, while ``&amp;``, ``<b>``, ``[a](b)``, ``*word*``, a leading ``1.`` or
    ``-`` and a closing `` #`` are escaped. The lighter line is kept only when it shows the same
    as the line with every character of :data:`_MARKUP` escaped in each place a report puts text
    (:data:`_PLACES`, parsed with mistletoe as CommonMark); otherwise that fully escaped line is
    returned. :func:`markdown_unescape` reverses either.
    """
    line = " ".join(text.split())
    full = _escape_block_start(_MARKUP.sub(r"\\\1", line), line)
    if full == line:
        return line
    light = _escape_block_start("".join(f"\\{ch}" if _is_markup(line, i) else ch for i, ch in enumerate(line)), line)
    if light == full or _html(_in_places(light)) == _html(_in_places(full)):
        return light
    return full


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
    """``markdown`` with its backslash escapes of ASCII punctuation resolved (CommonMark §2.4): the
    plain text of a line :func:`markdown_literal` wrote, or of a heading without other markup."""
    return _ESCAPE.sub(r"\1", markdown)
