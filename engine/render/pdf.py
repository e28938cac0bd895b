"""Build report.pdf from report.tex with latexmk and XeLaTeX in a throw-away folder, under a time limit.

The build never outlives the process that asked for it: latexmk runs under a small guard process
(:mod:`engine.render.texguard`) that kills latexmk's whole process group, xelatex included, on
timeout, on cancel, when this process exits, and when this process dies, even by SIGKILL (then
the guard also removes the build folder). Build folders are ``{tmp}/report-tex-{pid}-*``; the
first build of each process removes those whose owner process is gone
(:func:`clean_stale_builds`).
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from engine.fsutil import owner_alive
from engine.render import PdfBuild, ReportDocument, ReviewRound, SourceEntry

LOG_TAIL_LINES = 40
# latexmk's own rc files are ignored so that a stray latexmkrc cannot change the command.
LATEXMK_ARGS = ("-xelatex", "-norc", "-halt-on-error", "-interaction=nonstopmode", "-file-line-error",
                "-latexoption=-no-shell-escape")
# A report that refers to no label (no \ref, \pageref, \footref or \hyperref[...]: citations are
# named destinations, the outline comes from the bookmark package) shows nothing that depends on TeX's
# .aux file but longtable's column widths (its \LT@ entries). Its labels are dropped and latexmk
# told to compare only those lines, so it stops after one XeLaTeX pass unless a table's widths
# changed; a report with references is built as latexmk decides.
_REFERENCES = re.compile(r"\\(?:hyperref\[|ref\b|pageref\b|nameref\b|autoref\b|eqref\b|footref\b)")
ONE_PASS_ARGS = ("-e", r"$hash_calc_ignore_pattern{aux} = '^(?!.*\\\\LT@|\s+[{]\d)';")  # \LT@i {\LT@entry, {3}{18pt}
_NO_LABELS = "\\makeatletter\\let\\label\\@gobble\\makeatother"  # no line added: TeX's line numbers stay
MISSING = "{} not found: install the TeX packages (see README)"
_ERROR = re.compile(r"^(?:\./)?report\.tex:(\d+): (.+)$|^! (.+)$", re.MULTILINE)
_WARNING = re.compile(r"^(Missing character: .*|Overfull \\[hv]box .*)$", re.MULTILINE)
MAX_WARNINGS = 50
BUILD_PREFIX = "report-tex-"
GUARD = Path(__file__).with_name("texguard.py")
STOP_GRACE = 10.0  # seconds the guard gets to kill the build before it is killed itself
LEGACY_STALE_AFTER = 3600.0  # seconds after which a build folder without an owner pid is stale
_POLL = 0.25
_stale_cleaned = False
_stale_lock = threading.Lock()


def build_pdf(tex: str, out_dir: Path, *, timeout: float = 120.0,
              cancel: threading.Event | None = None) -> PdfBuild:
    """Compile ``tex`` to ``out_dir/report.pdf`` with latexmk (XeLaTeX, no shell escape).

    The build runs in a fresh temporary folder; ``timeout`` (seconds) bounds the whole latexmk
    run, whose process group is killed when it expires, as soon as ``cancel`` is set, before a
    ``KeyboardInterrupt`` raised while waiting leaves this call, when the interpreter exits and when
    this process dies (see the module docstring). TeX may read files
    only below the build folder and the TeX trees (``openin_any=p``).

    Returns:
        ``PdfBuild(pdf=out_dir/"report.pdf")`` on success; otherwise ``pdf=None``, ``error`` one
        line (the first TeX error, the timeout, or the missing program) and ``log_tail`` the last
        ~40 lines of the TeX log. ``warnings`` lists TeX's missing-glyph and overfull-box lines;
        ``seconds`` is the wall time. LaTeX errors never raise.

    Raises:
        OSError: ``out_dir`` cannot be created or written.
        KeyboardInterrupt: Ctrl-C while waiting for the build, once the build is stopped.
    """
    started = time.monotonic()
    for program in ("latexmk", "xelatex"):
        if shutil.which(program) is None:
            return PdfBuild(pdf=None, error=MISSING.format(program))
    out_dir = Path(out_dir)
    _clean_stale_once()
    with tempfile.TemporaryDirectory(prefix=f"{BUILD_PREFIX}{os.getpid()}-", ignore_cleanup_errors=True) as tmp:
        build = Path(tmp)
        one_pass = _REFERENCES.search(tex) is None and "\\begin{document}" in tex
        if one_pass:
            tex = tex.replace("\\begin{document}", _NO_LABELS + "\\begin{document}", 1)
            (build / "report.aux").write_text("", encoding="utf-8")  # read from the first pass on
        (build / "report.tex").write_text(tex, encoding="utf-8")
        env = {**os.environ, "openin_any": "p", "openout_any": "p", "shell_escape": "f"}
        args = (*LATEXMK_ARGS, *ONE_PASS_ARGS) if one_pass else LATEXMK_ARGS
        proc = subprocess.Popen([sys.executable, "-I", str(GUARD), str(os.getpid()), str(build),
                                 "latexmk", *args, "report.tex"], cwd=build, env=env,
                                stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                start_new_session=True)
        deadline = started + timeout
        while True:
            try:
                output, _ = proc.communicate(timeout=min(_POLL, max(0.0, deadline - time.monotonic())))
                break
            except subprocess.TimeoutExpired:
                cancelled = cancel is not None and cancel.is_set()
                exiting = not threading.main_thread().is_alive()  # the interpreter is shutting down
                if cancelled or exiting or time.monotonic() >= deadline:
                    _stop(proc)
                    error = ("LaTeX build cancelled" if cancelled or exiting
                             else f"LaTeX build timed out after {timeout:g} s")
                    return PdfBuild(pdf=None, error=error, log_tail=_log_tail(build, b""),
                                    seconds=time.monotonic() - started)
            except BaseException:  # Ctrl-C (or SIGTERM taken as one) in this thread: stop it before we go
                _stop(proc)
                raise
        pdf = build / "report.pdf"
        if proc.returncode == 0 and pdf.is_file():
            out_dir.mkdir(parents=True, exist_ok=True)
            target = out_dir / "report.pdf"
            _install(pdf, target)
            return PdfBuild(pdf=target, seconds=time.monotonic() - started, warnings=_warnings(build))
        tail = _log_tail(build, output)
        return PdfBuild(pdf=None, error=_first_error(build, proc.returncode, output), log_tail=tail,
                        seconds=time.monotonic() - started, warnings=_warnings(build))


def _install(source: Path, target: Path) -> None:
    """Copy ``source`` to ``target`` atomically: a reader sees the old file or the whole new one."""
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}-", dir=target.parent)
    os.close(fd)
    try:
        shutil.copyfile(source, tmp)
        os.replace(tmp, target)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


OVERFULL_LIMIT_PT = 5.0  # wider than this and text visibly leaves the text block or the page
_OVERFULL = re.compile(r"^Overfull \\hbox \(([\d.]+)pt too wide\)")


def overfull_boxes(warnings: list[str], limit: float = OVERFULL_LIMIT_PT) -> list[str]:
    """The lines of ``warnings`` (as in :attr:`PdfBuild.warnings`) for boxes over ``limit`` points too wide."""
    return [w for w in warnings if (m := _OVERFULL.match(w)) and float(m.group(1)) > limit]


def _stop(guard: subprocess.Popen) -> None:
    """Have the guard kill the build's process group; kill the guard itself if it does not exit."""
    try:
        guard.send_signal(signal.SIGTERM)
        guard.communicate(timeout=STOP_GRACE)
    except subprocess.TimeoutExpired:
        guard.kill()
        guard.communicate()
    except ProcessLookupError:
        pass


def clean_stale_builds(tmp_dir: Path | None = None, *, now: float | None = None) -> list[Path]:
    """Remove the build folders (``report-tex-{pid}-*``) in ``tmp_dir`` whose owner process is gone.

    A folder without an owner pid in its name (made by an older version) is removed once it is
    older than :data:`LEGACY_STALE_AFTER` seconds. A folder whose pid was reused by a live
    process stays. ``tmp_dir`` defaults to :func:`tempfile.gettempdir`. Returns what was removed.
    """
    folder = Path(tmp_dir or tempfile.gettempdir())
    now = time.time() if now is None else now
    removed = []
    try:
        entries = list(folder.glob(f"{BUILD_PREFIX}*"))
    except OSError:
        return removed
    for entry in entries:
        owner = entry.name[len(BUILD_PREFIX):].split("-", 1)[0]
        try:
            if not entry.is_dir() or entry.owner() != _current_user():
                continue
            stale = (not owner_alive(int(owner)) if owner.isdigit() and "-" in entry.name[len(BUILD_PREFIX):]
                     else now - entry.stat().st_mtime > LEGACY_STALE_AFTER)
        except (OSError, KeyError):
            continue
        if stale:
            shutil.rmtree(entry, ignore_errors=True)
            removed.append(entry)
    return removed


def _current_user() -> str:
    import pwd

    return pwd.getpwuid(os.getuid()).pw_name


def _clean_stale_once() -> None:
    global _stale_cleaned
    with _stale_lock:
        if _stale_cleaned:
            return
        _stale_cleaned = True
    clean_stale_builds()


def _read_log(build: Path) -> str:
    log = build / "report.log"
    return log.read_text(encoding="utf-8", errors="replace") if log.is_file() else ""


def _warnings(build: Path) -> list[str]:
    """Distinct missing-glyph and overfull-box lines of the last TeX run, at most 50: the missing
    glyphs first (text a reader does not see; no number of overfull boxes crowds them out), each
    kind in log order."""
    found = list(dict.fromkeys(m.group(1).strip() for m in _WARNING.finditer(_read_log(build))))
    return sorted(found, key=lambda line: not line.startswith("Missing character"))[:MAX_WARNINGS]


def _log_tail(build: Path, output: bytes) -> str:
    text = _read_log(build) or output.decode("utf-8", errors="replace")
    return "\n".join(text.splitlines()[-LOG_TAIL_LINES:])


def _first_error(build: Path, returncode: int, output: bytes) -> str:
    match = _ERROR.search(_read_log(build))
    if match and match.group(1):
        return f"LaTeX error at report.tex line {match.group(1)}: {match.group(2).strip()}"
    if match:
        return f"LaTeX error: {match.group(3).strip()}"
    lines = [line for line in output.decode("utf-8", errors="replace").splitlines() if line.strip()]
    last = lines[-1].strip() if lines else "no output"
    return f"latexmk failed with exit code {returncode}: {last}"


def sample_document() -> ReportDocument:
    """A short report exercising tables, code, links, citations, several scripts and a review."""
    rows = "\n".join(f"| {2000 + i} | {i * 1.5:.1f} % | row {i} ≤ {i + 1} |" for i in range(40))
    body = f"""## Background

Heat pumps moved from niche to mainstream in Europe [1], with R&D spending up 15% and the
market near $2M per #1 supplier [2]. Names vary: Ærøskøbing, Größe, Αθήνα, Москва, 北京, 東京.

> Efficiency ≥ 300 % is common → running costs fall [1].

## Market data

| Year | Growth | Note |
|------|-------:|------|
{rows}

## Method

```python
def cop(heat_kw: float, power_kw: float) -> float:
    return heat_kw / power_kw  # 能效比
```

- [x] Collected sources
- [ ] Field survey ~~planned~~ cancelled 🚀

See https://example.org/reports/heat%20pumps?year=2024#table-3 for the full table.
"""
    return ReportDocument(
        title="Heat pumps in Europe: adoption and costs",
        question="How fast are heat pumps being adopted in Europe, and what do they cost to run?",
        date="2024-05-01",
        executive_summary="Adoption grew fast since 2020 [1]; running costs depend on power prices [2].",
        body=body,
        review=[ReviewRound(1, what_changed="Added the market table.", critiques="- Sources are thin.",
                            answers="Added a second source [2].", open_objections="Installers disagree.")],
        sources=[SourceEntry(1, "European Heat Pump Association: market report",
                             "https://example.org/ehpa/market-report-2024.pdf"),
                 SourceEntry(2, "Running costs compared", "https://example.com/costs?region=eu&year=2024")],
        notice="Sample document for checking the layout.",
    )


def main(argv: list[str] | None = None) -> int:
    """``python -m engine.render.pdf --sample OUT_DIR``: render and build a sample report to look at."""
    from engine.render.latex import render_latex

    parser = argparse.ArgumentParser(description=main.__doc__)
    parser.add_argument("--sample", type=Path, required=True, metavar="OUT_DIR")
    args = parser.parse_args(argv)
    args.sample.mkdir(parents=True, exist_ok=True)
    tex = render_latex(sample_document())
    (args.sample / "report.tex").write_text(tex, encoding="utf-8")
    result = build_pdf(tex, args.sample)
    if result.pdf is None:
        print(f"error: {result.error}\n{result.log_tail or ''}")
        return 1
    print(f"{args.sample / 'report.tex'}\n{result.pdf}  ({result.seconds:.1f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
