"""An emoji sequence in the .tex: every code point kept, in one run marked as a sequence (no PDF is built)."""

from __future__ import annotations

import re

import pytest

from engine.render.fonts import installed_faces
from engine.render.latex import render_latex
from tests.engine.render.test_latex import make_doc

SCOTLAND = "\U0001F3F4" + "".join(chr(0xE0000 + ord(c)) for c in "gbsct") + "\U000E007F"
SEQUENCES = ["\U0001F469\u200d\U0001F52C", "\U0001F1EB\U0001F1F7", "\U0001F44D\U0001F3FD", "\u2764\ufe0f",
             "\U0001F9D1\U0001F3FF\u200d\U0001F52C", "\U0001F3F3\ufe0f\u200d\U0001F308", SCOTLAND]


@pytest.mark.skipif(not installed_faces(), reason="fc-list (fontconfig) is not installed")
def test_an_emoji_sequence_keeps_every_code_point_in_one_run_of_the_tex():
    """Joiners, variation selectors, skin tones and tags stay with their emoji, in one font's run
    marked as a sequence (its text layer is the sequence even where the font draws the parts)."""
    tex = render_latex(make_doc(body=" and ".join(SEQUENCES)))
    for seq in SEQUENCES:
        assert re.search(rf"\\drbfallback[A-Z]+\{{\\drbsequence\{{{re.escape(seq)}\}}", tex), ascii(seq)
