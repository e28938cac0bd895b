"""Tricky report summaries and bodies for the chat fidelity checks: what a model or a source writes."""

from __future__ import annotations

CORPUS: dict[str, str] = {
    "interval": "Scores are normalised to the interval [0, 1] and rated on a scale [1-5].",
    "sic": 'The source says "its effect [sic] were small" [2].',
    "index_zero": "The first element is index [0]; the last is [n-1].",
    "citations": "Heat pumps grew 40 % [1][2], see [[3]](https://example.com/s3).",
    "generics": "Use List<String> or Vec<u8>.",
    "comparison": "If a < b && c > d then a + c < b + d.",
    "html_like": "Tags such as <div>, <br/> and </p> appear in the page.",
    "at_channel": "Tell @channel and @here: the survey closes Friday.",
    "slack_specials": "The page literally shows <!here>, <!channel|@channel> and <!everyone>.",
    "slack_user": "Ask <@U123ABC> or <@W0XYZ|someone> in <#C0GENERAL|general>.",
    "teams_mention": "Send it to <at>Alice Smith</at> and <at id=\"0\">Bob</at>.",
    "asterisks_in_code": "Glob with `*literal asterisks*` or `**/*.py`.",
    "escaped_asterisks": "Footnotes are marked \\*like this\\* in the scan.",
    "arithmetic": "Compute 2 * 3 * 4 = 24 and 10 % 3 = 1.",
    "snake_case": "Set snake_case_names such as max_review_iterations and __init__ correctly.",
    "url_escapes": "Read https://example.com/a%20b/c_(d)?q=1&r=2#frag_1 for details.",
    "url_link": "See [the report (PDF)](https://example.com/files/report_2024%20final.pdf#page=3).",
    "url_parens": "Wikipedia: https://en.wikipedia.org/wiki/Heat_pump_(disambiguation).",
    "url_idn": "Voir https://fr.wikipedia.org/wiki/Pompe_à_chaleur et https://例え.jp/パス.",
    "email": "Write to <research@example.org> or [the desk](mailto:desk@example.org).",
    "bad_scheme": "A [javascript link](javascript:alert(1)) and [ftp](ftp://x.test/a) keep their text.",
    "table": (
        "| Country | Installations (k) | Growth |\n|---|---:|:---:|\n"
        "| Germany | 356 | +51 % |\n| France | 621 | [1-5] |\n| 日本 | 1,200 | n/a |"
    ),
    "table_links": "| Source | Note |\n|---|---|\n| [IEA](https://iea.org/a_b) | a < b |\n| `x*y` | **bold** |",
    "wide_table": (
        "| Aspect | Finding | Caveat |\n|---|---|---|\n"
        "| Cost | Running costs depend on electricity prices, which vary by a factor of three across the EU. "
        "| Prices change monthly [4]. |\n| Noise | Outdoor units stay under 45 dB(A) at 3 m. | Older units: 55 dB(A). |"
    ),
    "code_block": "```python\ndef f(xs: list[int]) -> dict[str, int]:\n    return {\"a_b\": xs[0] * 2}  # <T>\n```",
    "code_tabs": "```\n\tindented\twith tabs & <angle> brackets\n\n\tafter a blank line\n```",
    "indented_code": "Before:\n\n    x = a[0] * b_c\n    y = \"<@U1>\"\n\nAfter.",
    "quote_brackets": '> "Efficiency rose [by 3-4 %] in 2023" [5]\n>\n> — the report [sic]',
    "nested_quote": "> outer\n>\n> > inner *emphasis* and `code`",
    "lists": "- first [a]\n- second\n  - nested _x_\n  - nested 2\n- third\n\n1. one\n2. two\n\n7. seven\n8. eight",
    "task_list": "- [ ] open task\n- [x] done task",
    "headings": "# Title [0, 1]\n\n## Sub *part*\n\n#### Deep heading\n\n###### Deepest",
    "setext": "Title\n=====\n\nSub\n---",
    "emphasis": "**Bold** and *italic* and ***both*** and ~~struck~~ text.",
    "emphasis_punct": "Rates (**up 5 %**) rose; *[citation needed]* stays.",
    "numbers_units": "Between 3-5 kW, −10 °C to +35 °C, 1.5×10⁻³ m²; ranges 2019–2024 and 10^6.",
    "arabic": "مضخات الحرارة [1] تنمو بسرعة في أوروبا (٢٠٢٤).",
    "hebrew": "משאבות חום [2] נפוצות בישראל, ראו https://example.org/he_il.",
    "cjk": "欧盟热泵市场在二零二零年至二零二四年间快速增长[1]。「政策」是主要原因。",
    "mixed_scripts": "Ελληνικά, Русский, हिन्दी, ไทย and English [3] in one line.",
    "emoji": "Growth 🚀 and risk ⚠️ with 👩🏽‍🔬 researchers; flags 🇪🇺.",
    "link_definition": "The sources are listed below.\n\n[1]: https://example.com/one\n[2]: https://example.com/two",
    "references_heading": "Body text.\n\n## References\n\nThe conclusion comes after this heading [1].",
    "hard_breaks": "Line one  \nline two\\\nline three\nline four",
    "thematic_break": "Above\n\n---\n\nBelow *** and ___ in text.",
    "backslashes": "A path C:\\Users\\a_b and a regex \\d+\\s* and a literal \\\\ backslash.",
    "pipes": "Shell: a | b | c, and a \\| in text.",
    "dollar_math": "Costs $5–$10, inline $x^2$ and \\(a_b\\) notation.",
    "footnote_syntax": "A claim.[^1]\n\n[^1]: The footnote text.",
    "image": "A chart: ![Heat pump sales [2024]](https://example.com/chart_1.png) and ![](https://example.com/x.png).",
    "html_comment": "Before <!-- a comment --> after.",
    "entities": "AT&amp;T &copy; 2024 &#x41; and a bare & ampersand.",
    "tildes_backticks": "Approx ~5 %, a `` `tick` `` span and ~~not~~ struck.",
    "long_summary": " ".join(
        f"Paragraph {i}: adoption grew [{i % 7 + 1}] within [0, 1] bounds; List<T> and a_b stay."
        for i in range(60)
    ),
}
