"""Make untrusted text safe at the edge: no lone surrogates, no invalid bytes, no control characters."""

from __future__ import annotations

import os
import re

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


def markdown_literal(text: str) -> str:
    """Plain ``text`` (a question, a title, a topic) as one line of Markdown that renders to it.

    Runs of whitespace, line breaks included, become one space (a heading or a title is one
    line), and every character of :data:`_MARKUP` is escaped, so ``$\\&`` stays ``$\\&``,
    ``[a](b)`` stays text and ``<b>`` is not read as HTML. :func:`markdown_unescape` reverses it.
    """
    return _MARKUP.sub(r"\\\1", " ".join(text.split()))


def markdown_unescape(markdown: str) -> str:
    """``markdown`` with its backslash escapes of ASCII punctuation resolved (CommonMark §2.4): the
    plain text of a line :func:`markdown_literal` wrote, or of a heading without other markup."""
    return _ESCAPE.sub(r"\1", markdown)
