"""Build report.pdf from report.tex with latexmk and XeLaTeX in a throw-away folder, under a time limit."""

from __future__ import annotations

import argparse
import os
import re
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from pathlib import Path

from engine.render import PdfBuild, ReportDocument, ReviewRound, SourceEntry

LOG_TAIL_LINES = 40
# latexmk's own rc files are ignored so that a stray latexmkrc cannot change the command.
LATEXMK_ARGS = ("-xelatex", "-norc", "-halt-on-error", "-interaction=nonstopmode", "-file-line-error",
                "-latexoption=-no-shell-escape")
MISSING = "{} not found: install the TeX packages (see README)"
_ERROR = re.compile(r"^(?:\./)?report\.tex:(\d+): (.+)$|^! (.+)$", re.MULTILINE)
_WARNING = re.compile(r"^(Missing character: .*|Overfull \\[hv]box .*)$", re.MULTILINE)
MAX_WARNINGS = 50


def build_pdf(tex: str, out_dir: Path, *, timeout: float = 120.0,
              cancel: threading.Event | None = None) -> PdfBuild:
    """Compile ``tex`` to ``out_dir/report.pdf`` with latexmk (XeLaTeX, no shell escape).

    The build runs in a fresh temporary folder; ``timeout`` (seconds) bounds the whole latexmk
    run, whose process group is killed when it expires, or as soon as ``cancel`` is set. TeX may read files only below the build
    folder and the TeX trees (``openin_any=p``).

    Returns:
        ``PdfBuild(pdf=out_dir/"report.pdf")`` on success; otherwise ``pdf=None``, ``error`` one
        line (the first TeX error, the timeout, or the missing program) and ``log_tail`` the last
        ~40 lines of the TeX log. ``warnings`` lists TeX's missing-glyph and overfull-box lines;
        ``seconds`` is the wall time. LaTeX errors never raise.

    Raises:
        OSError: ``out_dir`` cannot be created or written.
    """
    started = time.monotonic()
    for program in ("latexmk", "xelatex"):
        if shutil.which(program) is None:
            return PdfBuild(pdf=None, error=MISSING.format(program))
    out_dir = Path(out_dir)
    with tempfile.TemporaryDirectory(prefix="report-tex-", ignore_cleanup_errors=True) as tmp:
        build = Path(tmp)
        (build / "report.tex").write_text(tex, encoding="utf-8")
        env = {**os.environ, "openin_any": "p", "openout_any": "p", "shell_escape": "f"}
        proc = subprocess.Popen(["latexmk", *LATEXMK_ARGS, "report.tex"], cwd=build, env=env,
                                stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                start_new_session=True)
        deadline = started + timeout
        while True:
            try:
                output, _ = proc.communicate(timeout=min(0.25, max(0.0, deadline - time.monotonic())))
                break
            except subprocess.TimeoutExpired:
                cancelled = cancel is not None and cancel.is_set()
                if cancelled or time.monotonic() >= deadline:
                    _kill_group(proc)
                    error = "LaTeX build cancelled" if cancelled else f"LaTeX build timed out after {timeout:g} s"
                    return PdfBuild(pdf=None, error=error, log_tail=_log_tail(build, b""),
                                    seconds=time.monotonic() - started)
        pdf = build / "report.pdf"
        if proc.returncode == 0 and pdf.is_file():
            out_dir.mkdir(parents=True, exist_ok=True)
            target = out_dir / "report.pdf"
            shutil.copyfile(pdf, target)
            return PdfBuild(pdf=target, seconds=time.monotonic() - started, warnings=_warnings(build))
        tail = _log_tail(build, output)
        return PdfBuild(pdf=None, error=_first_error(build, proc.returncode, output), log_tail=tail,
                        seconds=time.monotonic() - started, warnings=_warnings(build))


def _kill_group(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    proc.communicate()


def _read_log(build: Path) -> str:
    log = build / "report.log"
    return log.read_text(encoding="utf-8", errors="replace") if log.is_file() else ""


def _warnings(build: Path) -> list[str]:
    """Distinct missing-glyph and overfull-box lines of the last TeX run, in order, at most 50."""
    found = dict.fromkeys(m.group(1).strip() for m in _WARNING.finditer(_read_log(build)))
    return list(found)[:MAX_WARNINGS]


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
