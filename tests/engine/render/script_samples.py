"""A word per script the font plan knows (:data:`engine.render.fonts.SHAPED_SCRIPTS`), each with vowel
signs, viramas or other combining marks, and the script's own digits where it has them."""

from __future__ import annotations

SAMPLES = {
    "Arabic": "العَرَبِيَّة ٢٠٢٤",
    "Hebrew": "עִבְרִית",
    "Devanagari": "अंतर्राष्ट्रीय २०२४",
    "Thai": "ภาษาไทยที่นี่ ๒๐๒๔",
    "Bengali": "বাংলাদেশ ২০২৪",
    "Tamil": "தமிழ் அப்பா விழா ௨௦௨௪",
    "Telugu": "తెలుగు ౨౦౨౪",
    "Kannada": "ಕನ್ನಡ ೨೦೨೪",
    "Malayalam": "മലയാളം ൨൦൨൪",
    "Gujarati": "ગુજરાતી ૨૦૨૪",
    "Gurmukhi": "ਪੰਜਾਬੀ ੨੦੨੪",
    "Oriya": "ଓଡ଼ିଆ ୨୦୨୪",
    "Sinhala": "සිංහල ශ්‍රී",
    "Khmer": "ភាសាខ្មែរ ២០២៤",
    "Lao": "ພາສາລາວ ໂຮງຮຽນ ໒໐໒໔",
    "Myanmar": "မြန်မာ ၂၀၂၄",
    "Tibetan": "བོད་སྐད ༢༠༢༤",
    "Syriac": "ܣܘܼܪܝܵܝܵܐ",
    "Thaana": "ދިވެހި",
    "Nko": "ߒߞߏ ߓߊ߲ߡߊ߲ߣߊ߲ ߂߀߂߄",
}
