"""Report bodies a model may write, each hard for some output format: the fidelity check's corpus."""

from __future__ import annotations

LONG_CELL = ("Installation costs vary between 8,000 and 20,000 EUR depending on insulation, radiator "
             "sizing and the need for a new electrical connection")

WIDE_TABLE = f"""| Aspect | Finding | Implication |
|---|---|---|
| Cost of installation in older detached houses built before 1970 | {LONG_CELL} | Subsidies covering 30-70 % of the cost make payback periods of 7-12 years realistic for most owners [1] |
| Running costs | Depend on the ratio of electricity to gas prices, which ranged from 2.1 to 4.3 in 2023 | A ratio below 3 favours heat pumps [2] |
"""

MANY_COLUMNS = "| " + " | ".join(f"Column{i} header" for i in range(12)) + " |\n|" + "---|" * 12 + "\n" + "\n".join(
    "| " + " | ".join(f"cell {r}.{c} value{'x' * (c % 5)}" for c in range(12)) + " |" for r in range(3))

LONG_TABLE = "| Year | Growth | Note |\n|---:|---|---|\n" + "\n".join(
    f"| {2000 + i} | {i * 1.5:.1f} % | row {i} of the long table, with a sentence that wraps in its column |"
    for i in range(60))

DEEP_LIST = "\n".join("  " * i + f"- bullet level {i}" for i in range(8))
DEEP_ORDERED = "\n".join("   " * i + f"1. number level {i}" for i in range(8))
DEEP_QUOTE = "\n".join(">" * (i + 1) + f" quote level {i}\n" + ">" * (i + 1) for i in range(8))
MIXED_NESTING = "- outer item\n\n  > quoted in a list\n  >\n  > - list in a quote\n  >\n  >   > quote in a list in a quote"

CODE_LONG = "```python\n" + "x = '" + "abcdefghij" * 30 + "'\n\tindented_with_tab = [1, 2]  # [n] stays\n```"

#: (name, body) pairs; every citation ``[n]`` refers to sources 1..3 of :data:`SOURCES`.
# Dotted names, paths and snake_case in inline code at every position of a line: none may overflow.
_IDS = ["ssl.SSLContext.check_hostname", "ssl.SSLContext.verify_mode", "ssl.create_default_context",
        "/usr/lib/python3/dist-packages/certifi", "urllib.request.urlopen", "collections.abc.MutableMapping"]
LONG_IDENTIFIERS = "\n\n".join(
    f"{'x' * (k % 7 + 1)} Python's `{_IDS[k % 6]}` and `{_IDS[(k + 1) % 6]}` with {'a' * (k % 5 + 2)} "
    f"`{_IDS[(k + 2) % 6]}` checks `{_IDS[(k + 3) % 6]}`." for k in range(12)
) + ("\n\n### Setting `ssl.SSLContext.check_hostname`\n\n| Attribute | Effect |\n|---|---|\n"
     "| `ssl.SSLContext.check_hostname` | `ssl.SSLContext.verify_mode` must be `ssl.CERT_REQUIRED` |")

CORPUS: list[tuple[str, str]] = [
    ("plain", "Heat pumps moved from niche to mainstream in Europe [1]. Sales doubled [2]."),
    ("citation groups", "Two sources agree [1][2] and three do too [1, 2, 3]; see also [3]."),
    ("brackets not citations", "Scores are normalised to the interval \\[0, 1\\] and rated on a scale \\[1-5\\]; "
                               "the index \\[0\\] and \\[sic\\] stay, as does \\[n\\] and \\[1\\] here."),
    ("brackets in quotes", "> \"The result \\[was\\] significant,\" he said \\[emphasis added\\] [2]."),
    ("references heading", "## References\n\nThis heading is body text.\n\n## Conclusion\n\nThe conclusion stays [1]."),
    ("wide table", WIDE_TABLE),
    ("many columns", MANY_COLUMNS),
    ("long table", LONG_TABLE),
    ("table with code and links", "| Tool | Command | Link |\n|---|---|---|\n| pip | `pip install x` | "
                                  "[docs](https://example.com/docs_(v2)#install) |"),
    ("footnote short", "A claim with a footnote.[^1]\n\n[^1]: The footnote text."),
    ("footnote long", "Another claim.[^long]\n\n[^long]: First paragraph of the note.\n\n    Second paragraph of "
                      "the note with `code` and a list:\n\n    - one\n    - two"),
    ("footnote in table", "| a | b |\n|---|---|\n| cell with note[^t] | plain |\n\n[^t]: Note from a table cell."),
    ("footnote in heading", "## Heading with note[^h]\n\nText under it.\n\n[^h]: Note from a heading."),
    ("footnote in list and quote", "- item with a note[^li]\n\n> quoted with a note[^q]\n\n[^li]: Note from a list item.\n\n"
                                   "[^q]: Note from a quote."),
    ("footnote twice", "It grew.[^tw] It grew again.[^tw] Then it fell.[^tw2]\n\n[^tw]: Note cited twice.\n\n"
                       "[^tw2]: Note cited once."),
    ("footnote in link text", "A [linked phrase[^lk]](https://example.com/l) here.\n\n[^lk]: Note from link text."),
    ("extreme table", "| " + " | ".join(f"k{i}" for i in range(20)) + " |\n|" + "---|" * 20 + "\n| "
     + " | ".join(f"value_{i}_abcdefghijklmno" for i in range(20)) + " |"),
    ("deep list", DEEP_LIST),
    ("deep ordered list", DEEP_ORDERED),
    ("deep quote", DEEP_QUOTE),
    ("mixed nesting", MIXED_NESTING),
    ("code long lines and tabs", CODE_LONG),
    ("long identifiers", LONG_IDENTIFIERS),
    ("long identifiers in text", "\n".join(
        f"- Changed in version 3.{k}: {'w' * k} supports ssl.SSLContext.check_hostname and ssl.HAS_SNI, "
        f"or use ssl.SSLContext.load_cert_chain() and {_IDS[k % 6]}." for k in range(8))),
    ("long words in fallback fonts", "Hebrew " + "ש" * 60 + " and Arabic " + "ب" * 45 + " end."),
    ("inline code with brackets", "Use `arr[1]` or `x[0, 1]` and `List<String>`; never `\\input`."),
    ("raw html", "Text with <b>bold tags</b>, a line<br>break and <span class=\"x\">a span</span>."),
    ("html comment", "Visible text <!-- a hidden comment --> continues.\n\n<!--\nblock comment\n-->\n\nAfter."),
    ("html block", "<div>\n<p>Paragraph in a div</p>\n</div>"),
    ("html hidden elements", "Text <script>track()</script> and <style>p {}</style> stay hidden.\n\n"
                             "<iframe src=\"https://example.com/x\">fallback</iframe>\n\nUse `<script>` as written."),
    ("math dollars", "Inline $E = mc^2$ and display:\n\n$$\\int_0^1 x\\,dx = \\frac{1}{2}$$"),
    ("math parens", "Inline \\(a^2 + b^2 = c^2\\) and display \\[x = \\frac{-b}{2a}\\] done."),
    ("task list", "- [x] Collected sources\n- [ ] Field survey\n- [ ] Interviews with installers"),
    ("definition list", "Term one\n: Definition of the first term.\n\nTerm two\n: Definition of the second."),
    ("images", "![A chart of sales](https://example.com/chart.png) and ![missing]() and "
               "![local](figures/plot.png \"title\")."),
    ("deep headings", "##### Level five heading\n\nText five.\n\n###### Level six heading\n\nText six."),
    ("empty link and heading", "An empty link [](https://example.com/empty) here.\n\n##\n\nText after an empty heading."),
    ("greek cyrillic", "Ελληνικά: η αντλία θερμότητας. Русский: тепловой насос, *курсив* и **жирный**."),
    ("cjk", "中文：热泵在欧洲越来越普及。日本語：ヒートポンプ。한국어: 히트 펌프."),
    ("arabic", "العربية: مضخة حرارية *مائلة* و **عريضة** في الجملة."),
    ("hebrew", "עברית: משאבת חום, *נטוי* ו-**מודגש**."),
    ("devanagari thai", "हिन्दी: ऊष्मा पम्प। ไทย: ปั๊มความร้อน"),
    ("scripts in headings", "## Αθήνα and Москва\n\n### 北京 and القاهرة and ירושלים\n\nBody."),
    ("scripts in table", "| Script | Sample |\n|---|---|\n| Arabic | مضخة حرارية |\n| Hebrew | משאבת חום |\n"
                         "| CJK | 热泵 |\n| Thai | ปั๊มความร้อน |"),
    ("emoji", "Launch 🚀 and thumbs 👍 and flag 🇩🇪 done."),
    ("numbers units ranges", "COP 3.5-4.2, 15 %, 20 °C, −7 °C, 2–3 kW, 1,200 kWh/yr, ≤ 300 %, 10^6 J, "
                             "$2M, €1.5 bn, 1e-3."),
    ("urls tricky", "See https://example.org/heat%20pumps?year=2024#table-3 and "
                    "[the report](https://example.com/a_(b)_c#frag) and <https://example.net/x_y_z>."),
    ("long url and hash", "Hash 3f2a9c8b7d6e5f4a3b2c1d0e9f8a7b6c5d4e3f2a1b0c9d8e7f6a5b4c3d2e1f0a and "
                          "https://example.com/" + "/".join(f"segment{i:02d}-abcdefghij" for i in range(10))
     + " and identifier some_very_long_identifier_name_without_any_break_inside_it_at_all."),
    ("specials", "R&D: 15% growth, $2M, #1, file_v2, {draft}, ~, x^2, C:\\temp, a\\b, 50% off."),
    ("emphasis mix", "*italic*, **bold**, ***both***, ~~struck~~, `code`, and **bold with *nested italic***."),
    ("hard breaks", "Line one  \nLine two\\\nLine three"),
    ("horizontal rule", "Above the rule.\n\n---\n\nBelow the rule."),
    ("setext and numbered", "Setext heading\n--------------\n\n3. starts at three\n4. then four"),
    ("quotes with brackets", "> \\[Editor's note\\] The text \\[sic\\] is \"quoted\" as ‘written’ — with dashes."),
    # a heading in a large font whose long words only fit when its lines end ragged (a question quoted
    # into a findings heading as report.md escapes it: "<script>alert(1)</script>" is one word of 25 letters)
    ("headings with long words", "# Findings: How loud are heat pumps? $HOME \\`rm -rf /\\` \\<script>alert(1)\\</script> 🔥🏠 "
     "\\section…\n\n### Findings: How does asyncio.TaskGroup compare with asyncio.gather_results_together? "
     "Text.\n\n# How do Wärmepumpen_und_Gasheizungen_im_Vergleich work in winter_and_summer_seasons?"),
]

SOURCES = [
    (1, "European Heat Pump Association: market report", "https://example.org/ehpa/market-report-2024.pdf"),
    (2, "Running costs compared", "https://example.com/costs?region=eu&year=2024"),
    (3, "Interval [0, 1] scores_and more", "https://example.net/a%20b_(c)#d"),
]
