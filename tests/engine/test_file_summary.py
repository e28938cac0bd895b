"""The files line of a status in the thread's language: counts in each language's plural forms, and
each skip reason by its code, read back from the English text a thread's list keeps (lists written
before the codes existed too)."""

from __future__ import annotations

import json
import string
import subprocess

import pytest

from engine.file_summary import PREFIX, files_status, reason_parts, reason_text, skip_reason
from engine.files import FileEntry, SharedFile, files_dir, ingest, load_manifest
from engine.phrases import WORDS, plural
from engine.progress import Progress

LANGUAGES = ("en", "de", "fr", "es", "it", "nl", "pt", "sv", "zh", "ja")


def _entry(status: str, reason: str = "", name: str = "f.pdf") -> FileEntry:
    return FileEntry(name=name, link=f"https://chat.example/{name}", size=10, status=status, reason=reason)


SHARED = [_entry("read"), _entry("read"), _entry("read"),
          _entry("skipped", "scanned PDF without a text layer"), _entry("skipped", "scanned PDF without a text layer"),
          _entry("skipped", "unsupported type (.exe)"), _entry("skipped", "larger than the 25 MB file limit"),
          _entry("skipped", "Slack refused the download (HTTP 403)")]


def test_the_files_line_in_german_names_the_reasons_in_german():
    assert files_status(SHARED, "de") == (
        "3 Dateien gelesen, 5 übersprungen: gescanntes PDF ohne Textebene, nicht unterstützter Dateityp (.exe), "
        "größer als die Grenze von 25 MB pro Datei, +1 weiterer")
    assert files_status(SHARED[:1] + SHARED[5:6], "de") == "1 Datei gelesen, 1 übersprungen: nicht unterstützter Dateityp (.exe)"
    assert files_status(SHARED[:2], "de") == "2 Dateien gelesen"


def test_the_files_line_in_japanese_names_the_reasons_in_japanese():
    assert files_status(SHARED, "ja") == (
        "ファイル 3 件を読み込み済み、5 件スキップ：テキストレイヤーのないスキャン PDF、未対応のファイル形式（.exe）、"
        "1 ファイルあたりの上限（25 MB）超過、ほか 1 件")
    assert files_status(SHARED[:1], "ja") == "ファイル 1 件を読み込み済み"


def test_the_files_line_takes_each_languages_plural_forms():
    one_skipped = [_entry("skipped", "encrypted PDF (password protected)")]
    assert files_status(one_skipped, "en") == "0 files read, 1 skipped: encrypted PDF (password protected)"
    assert files_status(one_skipped, "fr") == "0 fichier lu, 1 ignoré\u00a0: PDF chiffré (protégé par mot de passe)"
    assert files_status(SHARED[:2], "fr") == "2 fichiers lus"
    assert files_status(SHARED[:1], "es") == "1 archivo leído"
    assert files_status(SHARED[:3] + one_skipped * 2, "es") == (
        "3 archivos leídos, 2 omitidos: PDF cifrado (protegido con contraseña)")
    assert files_status(SHARED[:3] + one_skipped, "zh") == "已读取 3 个文件，跳过 1 个：加密的 PDF（受密码保护）"
    assert files_status([], "de") == ""


def test_the_files_line_in_italian_dutch_portuguese_and_swedish():
    one_skipped = [_entry("skipped", "encrypted PDF (password protected)")]
    assert [files_status(SHARED[:1], lang) for lang in ("it", "nl", "pt", "sv")] == [
        "1 file letto", "1 bestand gelezen", "1 arquivo lido", "1 fil läst"]
    assert files_status(SHARED, "it") == (
        "3 file letti, 5 saltati: PDF scansionato senza livello di testo, tipo non supportato (.exe), "
        "oltre il limite di 25 MB per file, +1 altro")
    assert files_status(SHARED[:3] + one_skipped, "nl") == (
        "3 bestanden gelezen, 1 overgeslagen: versleutelde PDF (beveiligd met wachtwoord)")
    # CLDR: Portuguese, like French, takes the singular for 0 as well; Swedish does not
    assert files_status(one_skipped, "pt") == "0 arquivo lido, 1 ignorado: PDF criptografado (protegido por senha)"
    assert files_status(one_skipped * 2, "sv") == (
        "0 filer lästa, 2 överhoppade: krypterad PDF (lösenordsskyddad)")
    assert reason_text("over the 1.5 MB limit of a thread's files", "sv") == (
        "över gränsen på 1,5 MB för en tråds filer")
    assert reason_text("DOCX with over 2000 parts (possible zip bomb)", "pt") == (
        "DOCX com mais de 2.000 partes (possível bomba zip)")


def test_english_stays_as_it_was_and_a_reason_without_a_code_is_shown_as_it_is():
    assert files_status(SHARED) == files_status(SHARED, "en") == (
        "3 files read, 5 skipped: scanned PDF without a text layer, unsupported type (.exe), "
        "larger than the 25 MB file limit, +1 more")
    odd = [_entry("skipped", "Permission denied")]
    assert files_status(odd, "de") == "0 Dateien gelesen, 1 übersprungen: Permission denied"
    assert reason_parts("Permission denied") is None


def test_numbers_and_sizes_in_a_reason_are_written_as_the_language_writes_them():
    assert reason_text("over the 1.5 MB limit of a thread's files", "fr") == (
        "au-delà de la limite de 1,5 Mo pour les fichiers d'un fil")
    assert reason_text("larger than the 60 KB file limit", "fr") == "dépasse la limite de 60 Ko par fichier"
    assert reason_text("DOCX with over 2000 parts (possible zip bomb)", "de") == (
        "DOCX-Datei mit über 2.000 Teilen (mögliche Zip-Bombe)")
    assert reason_text("reading took over 2.5 seconds", "es") == "la lectura tardó más de 2,5 segundos"


def test_a_count_in_a_reason_takes_the_plural_form_of_the_language_it_is_said_in():
    """"reading took over 1 seconds" (DEEPRESEARCH_FILE_PARSE_TIMEOUT=1): the count's form is the
    language's own (CLDR: French's singular is any count below 2), also for a reason stored before."""
    assert skip_reason(plural("skip_parse_timeout", 1, "en"), seconds=1.0) == "reading took over 1 second"
    assert reason_text("reading took over 1 second", "de") == "das Lesen dauerte länger als 1 Sekunde"
    assert reason_text("reading took over 1 seconds", "es") == "la lectura tardó más de 1 segundo"
    assert reason_text("reading took over 0.5 seconds", "fr") == "la lecture a pris plus de 0,5 seconde"
    assert reason_text("reading took over 1.5 seconds", "fr") == "la lecture a pris plus de 1,5 seconde"
    assert reason_text("reading took over 2 seconds", "fr") == "la lecture a pris plus de 2 secondes"
    assert reason_text("reading took over 1 second", "ja") == "読み込みが 1 秒を超過"


@pytest.mark.parametrize(("limit", "said"), [(1.0, "reading took over 1 second"), (0.5, "reading took over 0.5 seconds"),
                                             (30.0, "reading took over 30 seconds")])
def test_a_file_read_past_its_time_says_the_limit_in_words(offline_settings, tmp_path, monkeypatch, limit, said):
    from engine.files import parse

    class _Stuck:  # a reader that never answers, as a hostile file can make it
        def __call__(self, command, **kwargs):
            raise subprocess.TimeoutExpired(command, kwargs["timeout"])

    settings = offline_settings(file_parse_timeout=limit)
    path = tmp_path / "slow.md"
    path.write_text("# Slow\n")
    monkeypatch.setattr("engine.files.subprocess.run", _Stuck())
    assert parse(path, "slow.md", settings) == {"ok": False, "reason": said}


def _sample(template: str) -> dict[str, str]:
    samples = {"ending": ".xyz", "limit": "25 MB", "seconds": "1" if template.endswith(" second") else "30", "error": "PdfReadError", "parts": "2,000",
               "megabytes": "200", "ratio": "100", "platform": "Teams", "status": "404"}
    return {name: samples[name] for _, name, _, _ in string.Formatter().parse(template) if name}


@pytest.mark.parametrize("code", [key for key in WORDS.catalogue if key.startswith(PREFIX)])
def test_every_skip_reason_is_read_back_from_its_english_text_and_said_in_every_language(code):
    fields = _sample(WORDS.catalogue[code]["en"])
    english = skip_reason(code, **fields)
    assert reason_parts(english) == (code, fields)
    for language in LANGUAGES[1:]:
        said = reason_text(english, language)
        assert said != english and "{" not in said, (code, language, said)
        for value in ("Teams", "PdfReadError", ".xyz", "404"):  # free detail is kept as it is
            if value in fields.values():
                assert value in said, (code, language, said)


#: Reasons as the lists written before the codes existed hold them (and the chat surfaces still give).
STORED = {
    "unsupported type (no extension)": "nicht unterstützter Dateityp (keine Dateiendung)",
    "corrupt DOCX (not a zip archive)": "beschädigte DOCX-Datei (kein ZIP-Archiv)",
    "corrupt PDF (PdfReadError)": "beschädigtes PDF (PdfReadError)",
    "over the 100 MB limit of a thread's files": "über der Grenze von 100 MB für die Dateien eines Threads",
    "reading took over 30 seconds": "das Lesen dauerte länger als 30 Sekunden",
    "shared in another conversation, not in this thread": "in einer anderen Unterhaltung geteilt, nicht in diesem Thread",
    "a link to an external file, not fetched": "ein Link auf eine externe Datei, nicht abgerufen",
    "no download link from Slack": "kein Download-Link von Slack",
    "download failed (ConnectError)": "Download fehlgeschlagen (ConnectError)",
    "deleted": "gelöscht",
}


def test_a_list_written_before_the_codes_loads_and_shows_in_german(offline_settings):
    settings = offline_settings()
    folder = files_dir(settings, "console:old")
    folder.mkdir(parents=True)
    rows = [{"name": f"f{n}.pdf", "link": f"x{n}", "size": 1, "status": "skipped", "kind": "pdf", "pages": 0,
             "sections": 0, "reason": reason, "note": ""} for n, reason in enumerate(STORED)]
    (folder / "files.json").write_text(json.dumps(rows), encoding="utf-8")
    entries = load_manifest(settings, "console:old")
    assert [e.reason for e in entries] == list(STORED)
    assert [reason_text(e.reason, "de") for e in entries] == list(STORED.values())
    assert files_status(entries[:1], "de") == "0 Dateien gelesen, 1 übersprungen: " + STORED["unsupported type (no extension)"]


def test_files_read_into_a_thread_keep_english_reasons_and_show_in_the_progress_lines_language(offline_settings,
                                                                                                tmp_path):
    settings = offline_settings()
    shared = []
    for name, data in (("notes.txt", b"Heat pumps move heat. " * 20), ("scan.pdf", b"no PDF at all"),
                       ("tool.exe", b"MZ")):
        (tmp_path / name).write_bytes(data)
        shared.append(SharedFile(name=name, link=f"https://chat.example/{name}", path=tmp_path / name, size=len(data)))
    entries = ingest(settings, "console:de", shared)
    assert [e.reason for e in entries] == ["", "not a PDF (no %PDF header)", "unsupported type (.exe)"]
    progress = Progress(phase="research", files=entries)
    assert "· 1 file read, 2 skipped: not a PDF (no %PDF header), unsupported type (.exe) ·" in progress.render()
    assert ("· 1 Datei gelesen, 2 übersprungen: kein PDF (kein %PDF-Header), nicht unterstützter Dateityp (.exe) ·"
            in progress.render(language="de"))


@pytest.mark.parametrize(("limit", "english", "german"), [
    (1024**3, "over the 1,024 MB limit of a thread's files", "1.024 MB"),
    (5 * 1024**3, "over the 5,120 MB limit of a thread's files", "5.120 MB"),
    (25 * 1048576, "over the 25 MB limit of a thread's files", "25 MB"),
])
def test_a_limit_of_a_gigabyte_or_more_is_written_in_whole_megabytes(limit, english, german):
    """A limit of 1 GiB read "over the 1.02e+03 MB limit", in every language."""
    from engine.files import size_text

    reason = skip_reason("skip_thread_limit", limit=size_text(limit))
    assert reason == english
    assert german in reason_text(reason, "de") and "e+" not in reason_text(reason, "fr")
