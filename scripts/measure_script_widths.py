"""Measure how wide each script's letters are, relative to Latin body text, for table column widths.

``python scripts/measure_script_widths.py`` typesets, with XeTeX, every letter (Unicode general
category L) of each script that an installed ``Noto Serif X`` / ``Noto Sans X`` font is made for, in
that font (serif first, as :class:`engine.render.fonts.FontPlan` picks it; Han, Hiragana, Katakana
and Hangul in Noto Serif CJK SC), one letter per box (at most :data:`MAX_LETTERS`), and writes the
width nine in ten of its letters are no wider than (90th percentile of their advance widths: Cherokee
is written in capitals, wider than its mean letter) divided by the mean advance width of the letters
a-z in the main font (Noto Serif) to ``engine/render/script_widths.json``: ``{"Cherokee": 1.66, ...}``.
Run it again after installing other fonts (``scripts/setup.sh``); :mod:`engine.render.tables` reads
the file. Takes about 20 s.
"""

from __future__ import annotations

import json
import re
import statistics
import subprocess
import sys
import tempfile
import unicodedata
from pathlib import Path

import regex

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from engine.render.fonts import MAIN_FONTS, _first_installed, _script_fonts, installed_faces  # noqa: E402

OUT = ROOT / "engine" / "render" / "script_widths.json"
CJK = {"Han": "Noto Serif CJK SC", "Hiragana": "Noto Serif CJK SC", "Katakana": "Noto Serif CJK SC",
       "Hangul": "Noto Serif CJK SC"}
QUANTILE = 0.9  # the share of a script's letters no wider than the width written
MAX_LETTERS = 400  # letters measured per script: the first ones in code point order that the font has


def _letters(pattern: regex.Pattern, face) -> list[str]:
    """The letters (category L) matching ``pattern`` that ``face`` has, in code point order, at most
    :data:`MAX_LETTERS`."""
    out = []
    for cp in range(0x80, 0x32000):
        ch = chr(cp)
        if unicodedata.category(ch).startswith("L") and pattern.match(ch) and face.covers(cp):
            out.append(ch)
            if len(out) >= MAX_LETTERS:
                break
    return out


def main() -> int:
    """Measure and write :data:`OUT`; returns the exit code (1 when XeTeX fails)."""
    faces = installed_faces()
    fonts = {name.split(r"\p{Script=")[-1].rstrip("}"): fonts[0] for name, fonts in
             ((p.pattern, f) for p, f in _script_fonts(faces))}
    fonts.update({s: f for s, f in CJK.items() if f in faces})
    main_font = _first_installed(MAIN_FONTS, faces)
    samples = {"Latin": (main_font, [chr(c) for c in range(ord("a"), ord("z") + 1)])}
    for script, family in sorted(fonts.items()):
        letters = _letters(regex.compile(r"\p{Script=%s}" % script), faces[family])  # noqa: UP031
        if letters:
            samples[script.replace("_", " ")] = (family, letters)
    lines = ["\\documentclass[11pt]{article}", "\\usepackage{fontspec}", "\\begin{document}"]
    for k, (script, (family, letters)) in enumerate(samples.items()):
        lines.append(f"\\newfontfamily\\f{_name(k)}{{{family}}}")
        tag = script.replace(" ", "_")
        lines += [f"\\setbox0\\hbox{{\\f{_name(k)} {_char(c)}}}\\typeout{{WIDTH {tag} \\the\\wd0}}" for c in letters]
    lines.append("\\end{document}")
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "m.tex").write_text("\n".join(lines), encoding="utf-8")
        run = subprocess.run(["xelatex", "-interaction=nonstopmode", "-no-pdf", "m.tex"], cwd=tmp,
                             capture_output=True, text=True)
        found = re.findall(r"^WIDTH (\S+) ([\d.]+)pt$", run.stdout, re.MULTILINE)
    if not found:
        print(run.stdout[-2000:])
        return 1
    by_script: dict[str, list[float]] = {}
    for script, width in found:
        by_script.setdefault(script.replace("_", " "), []).append(float(width))
    latin = statistics.mean(by_script.pop("Latin"))
    widths = {script: round(_wide(found) / latin, 2) for script, found in sorted(by_script.items())}
    OUT.write_text(json.dumps(widths, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"{OUT}: {len(widths)} scripts; Latin a-z in {main_font}: {latin:.2f} pt a letter at 11 pt")
    return 0


def _wide(widths: list[float]) -> float:
    """The width most letters of a script are no wider than: the :data:`QUANTILE` of their widths
    (a column sized by it holds the wide capitals of Cherokee, not only the mean letter)."""
    ordered = sorted(widths)
    return ordered[min(len(ordered) - 1, int(QUANTILE * len(ordered)))]


def _char(c: str) -> str:
    """``c`` as TeX's ``^^^^`` notation (no character of the script in the .tex itself)."""
    return f"^^^^^{ord(c):05x}" if ord(c) > 0xFFFF else f"^^^^{ord(c):04x}"


def _name(k: int) -> str:
    out = ""
    k += 1
    while k:
        k, r = divmod(k - 1, 26)
        out = chr(ord("A") + r) + out
    return out


if __name__ == "__main__":
    raise SystemExit(main())
