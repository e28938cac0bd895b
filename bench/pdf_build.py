"""Figure 7: time to render and build the PDF of a report of about 20 pages."""

from __future__ import annotations

import time
from pathlib import Path

from bench.harness import median
from engine.render import ReportDocument, ReviewRound, SourceEntry

RUNS = 3
#: Body sections; each is about two thirds of a page (prose, a list, a table, citations).
SECTIONS = 21
SOURCES = 30


def _section(n: int) -> str:
    cite = f"[{n % SOURCES + 1}]"
    prose = " ".join(
        f"Measurement {n}.{k} of seasonal performance shows a coefficient of {2.5 + (n * k) % 17 / 10:.1f} "
        f"under standard test conditions, with differences between regions and building types {cite}."
        for k in range(1, 7)
    )
    rows = "\n".join(f"| {2015 + k} | {n * 3 + k}.{k} % | {100 + n * k} € | note {k} on section {n} |" for k in range(8))
    return (
        f"## Section {n}: running costs, case {n}\n\n{prose}\n\n{prose}\n\n"
        f"- Finding one of section {n} {cite}\n- Finding two, with **bold** and _italic_ text\n"
        f"- A link to [the data](https://example.org/data/{n}?year=2024&unit=kwh)\n\n"
        f"| Year | Growth | Price | Note |\n|---|---:|---:|---|\n{rows}\n"
    )


def twenty_page_document() -> ReportDocument:
    """A deterministic report that renders to about 20 A4 pages."""
    return ReportDocument(
        title="Heat pumps in Germany: running and installation costs",
        question="Which heat pumps are cheapest to run in Germany, and what does installation cost?",
        date="2024-05-01",
        executive_summary="Air-source heat pumps are the cheapest to install [1]; ground-source ones the "
                          "cheapest to run where drilling is allowed [2]. Tariffs matter more than models [3].",
        body="\n".join(_section(n) for n in range(1, SECTIONS + 1)),
        review=[ReviewRound(i, what_changed=f"Round {i}: added evidence [1].", critiques="- Thin sources.\n- Old data.",
                            answers="Added two sources [2].", open_objections="Installers disagree.")
                for i in (1, 2)],
        sources=[SourceEntry(i, f"Source {i}: a report on heat pumps", f"https://example.org/sources/{i}.pdf")
                 for i in range(1, SOURCES + 1)],
    )


def measure(work: Path, runs: int = RUNS) -> dict:
    """Render and build the 20-page report ``runs`` times; median seconds and the page count."""
    from pypdf import PdfReader

    from engine.render.latex import render_latex
    from engine.render.pdf import build_pdf

    doc = twenty_page_document()
    render_s, build_s, pages, error = [], [], 0, None
    for i in range(runs):
        started = time.monotonic()
        tex = render_latex(doc)
        rendered = time.monotonic()
        result = build_pdf(tex, work / "pdf" / str(i))
        build_s.append(time.monotonic() - rendered)
        render_s.append(rendered - started)
        if result.pdf is None:
            error = result.error
            break
        pages = len(PdfReader(result.pdf).pages)
    return {"seconds": median([r + b for r, b in zip(render_s, build_s, strict=True)]),
            "render_latex_s": median(render_s), "build_pdf_s": median(build_s), "pages": pages,
            "runs": len(build_s), "error": error,
            "inputs": {"sections": SECTIONS, "sources": SOURCES, "review_rounds": 2,
                       "engine": "latexmk -xelatex"}}
