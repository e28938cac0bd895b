"""Shared files made in tests with libraries (no binary fixtures): PDFs, DOCX, a zip bomb."""

from __future__ import annotations

import io
import zipfile


def pdf_bytes(pages: list[str], title: str = "") -> bytes:
    """A PDF with one page per item of ``pages`` (each its text in Helvetica; "" makes a page with
    no text layer, as a scan has), ``title`` in its metadata."""
    streams = []
    for text in pages:
        lines = [text[i:i + 80] for i in range(0, len(text), 80)] or [""]
        ops = " ".join(f"({line.replace('(', '').replace(')', '')}) Tj 0 -14 Td" for line in lines if line)
        streams.append((f"BT /F1 11 Tf 40 760 Td {ops} ET" if ops else "0 0 1 rg 40 40 200 200 re f").encode())
    return _pdf(streams, b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>", title)


def pdf_lines_bytes(pages: list[list[str]]) -> bytes:
    """A PDF with one page per item of ``pages``, each line of it set as a line of its own, as a
    typesetter breaks a paragraph (Helvetica in WinAnsiEncoding: a line may hold any character of
    Windows-1252, such as "•" and "–")."""
    def literal(line: str) -> str:
        raw = line.encode("cp1252").decode("latin-1")
        return "(" + raw.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)") + ")"

    streams = [("BT /F1 11 Tf 40 760 Td " + " ".join(f"{literal(line)} Tj 0 -14 Td" for line in lines)
                + " ET").encode("latin-1") for lines in pages]
    return _pdf(streams, b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>", "")


def _pdf(streams: list[bytes], font_object: bytes, title: str) -> bytes:
    """A PDF of one page per content stream of ``streams``, its font ``/F1`` the object ``font_object``."""
    objects: list[bytes] = [b"<< /Type /Catalog /Pages 2 0 R >>", b""]
    kids = []
    font = 3
    objects.append(font_object)
    for stream in streams:
        objects.append(b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream")
        content = len(objects)
        objects.append(b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents %d 0 R"
                       b" /Resources << /Font << /F1 %d 0 R >> >> >>" % (content, font))
        kids.append(len(objects))
    objects[1] = b"<< /Type /Pages /Kids [%s] /Count %d >>" % (
        b" ".join(b"%d 0 R" % k for k in kids), len(kids))
    objects.append(f"<< /Title ({title}) >>".encode())
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R /Info %d 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1, len(objects), xref)
    return bytes(out)


def encrypted_pdf_bytes(text: str, password: str = "s3cret-pw") -> bytes:
    """A one-page PDF encrypted with a user password (pypdf's writer, AES-256)."""
    from pypdf import PdfReader, PdfWriter

    writer = PdfWriter(clone_from=PdfReader(io.BytesIO(pdf_bytes([text]))))
    writer.encrypt(user_password=password, owner_password=password, algorithm="AES-256")
    buffer = io.BytesIO()
    writer.write(buffer)
    return buffer.getvalue()


def docx_bytes(sections: list[tuple[str, str]]) -> bytes:
    """A Word document with one ``Heading 1`` and paragraph per ``(heading, text)`` (python-docx)."""
    import docx

    document = docx.Document()
    for heading, text in sections:
        document.add_heading(heading, level=1)
        document.add_paragraph(text)
    buffer = io.BytesIO()
    document.save(buffer)
    return buffer.getvalue()


def zip_bomb_docx_bytes(expanded_mb: int = 40) -> bytes:
    """A zip posing as a DOCX whose ``word/document.xml`` expands ``expanded_mb`` MB of zeros
    from a few tens of kilobytes."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=9) as archive:
        archive.writestr("[Content_Types].xml", "<Types/>")
        with archive.open("word/document.xml", "w", force_zip64=True) as member:
            block = b"\0" * (1024 * 1024)
            for _ in range(expanded_mb):
                member.write(block)
    return buffer.getvalue()
