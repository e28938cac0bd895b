"""Read one shared file into text sections, under limits, in a child process that can be killed.

Types: PDF (its text layer, one section a page), DOCX (one section a heading), Markdown (one a
heading), plain text, HTML (visible text) and CSV (one section per block of rows). Nothing inside
a file is executed or fetched: no remote image, no link, no external entity is followed (pypdf,
python-docx and the standard library's HTML and CSV parsers read only the bytes given).

Run as ``python -m engine.files.read PATH NAME MAX_PAGES MAX_CHARS``: it prints one JSON object
(see :func:`read_file`) and caps its own address space (:data:`MEMORY_LIMIT_BYTES`), so a hostile
file can cost at most one bounded, killable process.
"""

from __future__ import annotations

import csv
import html
import io
import json
import re
import sys
import zipfile
from dataclasses import asdict, dataclass, field
from pathlib import Path

from engine.file_summary import skip_reason

#: File name endings read, by kind.
KINDS = {".pdf": "pdf", ".docx": "docx", ".md": "markdown", ".markdown": "markdown", ".txt": "text",
         ".text": "text", ".log": "text", ".html": "html", ".htm": "html", ".csv": "csv"}
#: A DOCX is a zip: its parts may expand to at most this many bytes in all ...
DOCX_MAX_EXPANDED_BYTES = 200 * 1024 * 1024
#: ... no part may expand more than this many times its compressed size (XML compresses about
#: 5-20 times; a zip bomb thousands of times) ...
DOCX_MAX_RATIO = 100
#: ... and it may hold at most this many parts.
DOCX_MAX_PARTS = 2000
#: The reading process's address-space cap (``RLIMIT_AS``): a parser blowing up fails, not the host.
MEMORY_LIMIT_BYTES = 1536 * 1024 * 1024
CSV_ROWS_PER_SECTION = 200


class Unreadable(Exception):
    """The file is skipped; the message is the reason, one short line a user can read."""


@dataclass
class FileText:
    """What a readable file holds.

    Attributes:
        kind: ``pdf`` | ``docx`` | ``markdown`` | ``text`` | ``html`` | ``csv``.
        pages: the PDF's page count (all pages, read or not), else 0.
        sections: ``[label, text]`` pairs in document order, e.g. ``["page 3", "…"]`` or
            ``["section: Pricing", "…"]``; the label is what a citation names ("" for a file read
            whole: a text or HTML file, a Markdown or Word file without headings), stored in this
            English form in every language and shown in the report's language
            (:func:`engine.file_labels.label_text`).
        truncated: a page or character cap cut the file; ``note`` says which.
    """

    kind: str
    pages: int = 0
    sections: list[list[str]] = field(default_factory=list)
    truncated: bool = False
    note: str = ""


def kind_of(name: str) -> str | None:
    """The kind read for a file called ``name`` (by its ending), or None when it is not read."""
    return KINDS.get(Path(name).suffix.lower())


def unsupported_type(name: str) -> str:
    """The skip reason of a file called ``name`` whose ending is not read: ``unsupported type (.exe)``,
    or ``unsupported type (no extension)`` (:func:`engine.file_summary.skip_reason`)."""
    ending = Path(name).suffix.lower()
    return skip_reason("skip_unsupported_type", ending=ending) if ending else skip_reason("skip_no_extension")


def read_file(path: Path, name: str, max_pages: int, max_chars: int) -> FileText:
    """Read the file at ``path`` (shared as ``name``) into sections.

    At most ``max_pages`` PDF pages and ``max_chars`` characters in all are kept (the rest is cut
    and ``truncated`` set).

    Raises:
        Unreadable: an unsupported type, an encrypted, corrupt or scanned (no text) PDF, a DOCX
            that is not a zip or expands too far, a binary file posing as text, no text at all.
    """
    kind = kind_of(name)
    if kind is None:
        raise Unreadable(unsupported_type(name))
    data = path.read_bytes() if kind != "pdf" else b""
    out = FileText(kind=kind)
    if kind == "pdf":
        out.pages, sections, out.note = _pdf(path, max_pages)
    elif kind == "docx":
        sections = _docx(path)
    elif kind == "html":
        sections = [["", _html(data)]]  # read whole: no label, cited by its name alone
    elif kind == "csv":
        sections = _csv(_decode(data))
    elif kind == "markdown":
        sections = [[label, _markdown_text(text)]
                    for label, text in _by_heading(_decode(data), re.compile(r"^#{1,6}[ \t]+(.+?)[ \t#]*$", re.M))]
    else:
        sections = [["", _decode(data)]]
    if len(sections) == 1 and sections[0][0] == "beginning":
        sections[0][0] = ""  # no heading: the file is one part, cited by its name alone
    _cap(out, sections, max_chars)
    if not out.sections:
        raise Unreadable(skip_reason("skip_scanned_pdf" if kind == "pdf" else "skip_no_text"))
    return out


def _cap(out: FileText, sections: list[list[str]], max_chars: int) -> None:
    total = 0
    for label, text in sections:
        text = re.sub(r"\n{3,}", "\n\n", text.replace("\x00", "")).strip()
        if not text:
            continue
        if total + len(text) > max_chars:
            text = text[:max_chars - total]
            out.truncated = True
            out.note = (out.note + "; " if out.note else "") + f"cut at {max_chars:,} characters"
        if text:
            out.sections.append([label, text])
            total += len(text)
        if out.truncated:
            break
    out.truncated = out.truncated or bool(out.note)


def _html(data: bytes) -> str:
    from engine.search import extract

    try:
        return extract.html_text(data)[1]
    except extract.Unreadable as err:  # its reason, e.g. "unreadable HTML (ParserError)"
        raise Unreadable(str(err)) from None


def _decode(data: bytes) -> str:
    from engine.search.extract import Unreadable as NotText
    from engine.search.extract import decode_text

    try:
        return decode_text(data)
    except NotText:
        raise Unreadable(skip_reason("skip_binary")) from None


def _pdf(path: Path, max_pages: int) -> tuple[int, list[list[str]], str]:
    from engine.search import extract

    try:  # the corpus index's reasons too: one reason for one file wherever it is read
        with extract.pdf_reading(path) as reader:
            count = len(reader.pages)
            texts = extract.pdf_pages_text([reader.pages[n] for n in range(min(count, max_pages))])
    except extract.Unreadable as err:  # its reason, e.g. "corrupt PDF (PdfStreamError)"
        raise Unreadable(str(err)) from err.__cause__
    sections = [[f"page {n + 1}", text] for n, text in enumerate(texts)]
    note = f"only the first {max_pages} of {count} pages read" if count > max_pages else ""
    return count, sections, note


def _docx(path: Path) -> list[list[str]]:
    _check_zip(path)
    try:
        import docx

        document = docx.Document(str(path))
    except Exception as err:  # python-docx raises several types on a file that is not a DOCX
        raise Unreadable(skip_reason("skip_corrupt_docx", error=type(err).__name__)) from err
    sections: list[list[str]] = []
    label, lines = "beginning", []
    for para in document.paragraphs:
        style = (para.style.name if para.style is not None else "") or ""
        if style.startswith(("Heading", "Title")) and para.text.strip():
            if lines:
                sections.append([label, "\n\n".join(lines)])
            label, lines = f"section: {para.text.strip()[:80]}", []
        elif para.text.strip():
            lines.append(para.text.strip())
    if lines:
        sections.append([label, "\n\n".join(lines)])
    for n, table in enumerate(document.tables, start=1):
        rows = [" | ".join(cell.text.strip() for cell in row.cells) for row in table.rows]
        sections.append([f"table {n}", "\n".join(rows)])
    return sections


def _check_zip(path: Path) -> None:
    """Refuse a zip whose parts would expand past :data:`DOCX_MAX_EXPANDED_BYTES` or
    :data:`DOCX_MAX_RATIO`, or that has over :data:`DOCX_MAX_PARTS` parts (zipfile never reads
    past a part's declared size, so checking the declared sizes bounds what is decompressed)."""
    try:
        with zipfile.ZipFile(path) as archive:
            infos = archive.infolist()
    except (zipfile.BadZipFile, OSError) as err:
        raise Unreadable(skip_reason("skip_docx_not_zip")) from err
    if len(infos) > DOCX_MAX_PARTS:
        raise Unreadable(skip_reason("skip_docx_parts", parts=DOCX_MAX_PARTS))
    if sum(i.file_size for i in infos) > DOCX_MAX_EXPANDED_BYTES:
        raise Unreadable(skip_reason("skip_docx_expanding", megabytes=DOCX_MAX_EXPANDED_BYTES // 2**20))
    for info in infos:
        if info.file_size > 1024 * 1024 and info.file_size > DOCX_MAX_RATIO * max(info.compress_size, 1):
            raise Unreadable(skip_reason("skip_docx_ratio", ratio=DOCX_MAX_RATIO))
    if "word/document.xml" not in {i.filename for i in infos}:
        raise Unreadable(skip_reason("skip_docx_no_document"))


def _by_heading(text: str, heading: re.Pattern) -> list[list[str]]:
    sections, label, start = [], "beginning", 0
    for m in heading.finditer(text):
        sections.append([label, text[start:m.start()]])
        label, start = f"section: {m.group(1).strip()[:80]}", m.start()
    sections.append([label, text[start:]])
    return sections


def _markdown_text(markdown: str) -> str:
    """The text a reader of ``markdown`` sees: no ``**``, backticks or heading marks, a link as
    ``text (url)``, raw HTML as its visible text (mistletoe renders the HTML, the HTML reader of
    :mod:`engine.search.extract` takes its text), so a quoted sentence reads as in the file."""
    from mistletoe import Document, HtmlRenderer

    from engine.text import MISTLETOE_LOCK

    class Rendered(HtmlRenderer):
        def render_link(self, token) -> str:
            inner, target = self.render_inner(token), self.escape_url(token.target)
            return inner if not target or html.unescape(inner) == token.target else f"{inner} ({target})"

    with MISTLETOE_LOCK, Rendered() as renderer:
        page = renderer.render(Document(markdown))
    return _html(page.encode("utf-8"))


def _csv(text: str) -> list[list[str]]:
    try:
        rows = list(csv.reader(io.StringIO(text)))
    except csv.Error as err:
        raise Unreadable(skip_reason("skip_corrupt_csv", error=err)) from err
    if not rows:
        return []
    header, body = rows[0], rows[1:]
    sections = []
    for at in range(0, max(len(body), 1), CSV_ROWS_PER_SECTION):
        chunk = body[at:at + CSV_ROWS_PER_SECTION]
        lines = ["; ".join(f"{h}: {v}" for h, v in zip(header, row, strict=False)) for row in chunk]
        sections.append([f"rows {at + 1}-{at + len(chunk)}", "\n".join([", ".join(header), *lines])])
    return sections


def main(argv: list[str]) -> int:
    """The child process: read ``argv = [path, name, max_pages, max_chars]``, print JSON."""
    try:
        import resource

        resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT_BYTES, MEMORY_LIMIT_BYTES))
    except (ImportError, ValueError, OSError):
        pass
    path, name, max_pages, max_chars = Path(argv[0]), argv[1], int(argv[2]), int(argv[3])
    try:
        result: dict = {"ok": True, **asdict(read_file(path, name, max_pages, max_chars))}
    except Unreadable as err:
        result = {"ok": False, "reason": str(err)}
    except MemoryError:
        result = {"ok": False, "reason": skip_reason("skip_memory")}
    except OSError as err:
        result = {"ok": False, "reason": err.strerror or type(err).__name__}
    sys.stdout.write(json.dumps(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
