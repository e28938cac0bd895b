"""The words by which the offline model finds the items of a list question (:mod:`engine.offline_lists`),
in the languages it splits lists of: English, German, French, Spanish, Italian, Portuguese, Dutch and
Swedish (its prepositions and qualifier openers from :mod:`engine.offline_phrases_more`).

Each table lists the words as their language's grammar gives them; none is learnt from data.
"""

from __future__ import annotations

import re

from engine import offline_phrases_more as more
from engine.language import _QUESTION_WORDS
from engine.language import is_function_word as _is_function_word
from engine.offline_text import _AUXILIARIES

#: What parts a brief's clauses and the items of its lists in any language: punctuation, English
#: "and", "or", "and/or", "as well as", German "und", "oder", "sowie", French "et", "ou" (Portuguese
#: "ou" too), Spanish "y", and "vs", "versus".
JOINS = (
    ";",
    "\n",
    ",",
    " and/or ",
    " and ",
    " as well as ",
    " or ",
    " und ",
    " oder ",
    " sowie ",
    " et ",
    " ou ",
    " y ",
    " vs. ",
    " vs ",
    " versus ",
)
#: The comma of :data:`JOINS` as a pattern: any comma but one between two digits, which is inside a
#: number written with a thousands separator or a decimal comma ("12,000 kWh", "0,35 €", "1,5 oder
#: 2,5 kW"), never two items.
LIST_COMMA = r"(?<![\d\s]),|,(?!\d)"

#: The "and" and "or" of a language whose words are other words elsewhere, parting items only in a
#: brief of that language: Spanish "o", "u" (before an o-sound: "siete u ocho") and "e" (before an
#: i-sound: "padres e hijos"), Italian "e", "ed", "o", "oppure", Portuguese "e" ("o" is its article),
#: Dutch "en" and "of" (French and Spanish "en", English "of" are prepositions), Swedish "och" and "eller".
OWN_JOINS = {
    "es": (" o ", " u ", " e "),
    "it": (" e ", " ed ", " o ", " oppure "),
    "pt": (" e ",),
    "nl": (" en ", " of "),
    "sv": (" och ", " eller "),
}

#: Set phrases that only sound like a list, masked as one word before a brief is split: "one or
#: more", "more or less", "sooner or later", "… or so" and their like in German, French, Spanish,
#: Italian, Portuguese and Dutch.
SET_PHRASES = re.compile(
    r"(?<!\w)(?:one or more|more or less|sooner or later|or (?:more|less|fewer|so|else|otherwise)"
    r"|ein oder mehrere|mehr oder weniger|oder (?:mehr|weniger)|früher oder später|un ou plusieurs|plus ou moins"
    r"|ou (?:plus|moins|mais|menos)|tôt ou tard|uno o (?:más|più)|más o menos|o (?:más|menos|più|meno)|più o meno"
    r"|um ou mais|mais ou menos|een of meer|meer of minder|of (?:meer|minder))(?!\w)",
    re.IGNORECASE,
)

#: Words joined with a hyphen for the part they share (German's "Ergänzungsstrich", Dutch and Swedish
#: write it too, English now and then): "Vor- und Nachteile", "Heizungs-, Lüftungs- und Klimatechnik",
#: "Solaranlagen und -speicher", "voor- en nadelen", "för- och nackdelar", "pre- and post-war". The
#: hyphenated word is no item of its own ("Vor-" asks nothing): the whole is masked as one word.
SUSPENDED = re.compile(
    r"(?<!\S)(?:[^\W\d_]\w*-,?\s+)+(?:{joins})\s+\w[\w-]*|(?<!\S)\w[\w-]*\s+(?:{joins})\s+-\w+".format(
        joins="|".join(sorted({*(j.strip() for j in JOINS if j.strip().isalpha()),
                               *(j.strip() for js in OWN_JOINS.values() for j in js)}, key=len, reverse=True))),
    re.IGNORECASE,
)

#: Words that ask for the difference between the listed items ("the difference between A and B", "How
#: do A and B compare", "A和B有什么区别"), in the languages whose lists are split: a list whose
#: question names nothing else is researched item by item, each item alone. A verb that asks how
#: ("work", "funktionieren", "funzionano") is none: "How do A and B work" asks it of each.
COMPARING = frozenset(
    """difference differences between compare compares comparison differ differs vs versus unterschied
    unterschiede zwischen vergleich vergleichen unterscheiden unterscheidet différence différences entre
    comparer comparent comparaison diffèrent diferencia diferencias comparar comparan comparación
    diferencian difieren differenza differenze tra fra confrontare confronto differiscono diferença
    diferenças comparação diferem verschil verschillen tussen vergelijken vergelijking differ differs
    confrontare confronta differisce differiscono verschilt vergelijkt compara difere jämföra jämför skiljer
    skillnad skillnaden mellan onderscheiden onderscheidt elkaar einander voneinander varandra 区别 區別 差异 差異 不同 比较 比較 違い 違う 比べ""".split()
)

#: Words that ask how the listed items act on one another ("How do A, B and C interact", "Wie hängen A,
#: B und C zusammen"), in the languages whose lists are split: like :data:`COMPARING`, a frame that
#: names nothing else gives each item alone, since "How does A interact" asks nothing of A alone.
#: Adjectives that only rank the differences a question asks for ("the main differences between", "die
#: wichtigsten Unterschiede", "les principales différences"): beside a word of :data:`COMPARING` they
#: ask nothing more of the items.
RANKING = frozenset(
    """main key major biggest big chief important most significant notable fundamental core crucial primary
    basic essential real practical wichtigsten wesentlichen größten grössten hauptsächlichen principales
    principaux principale principal grandes mayores principali maggiori principais maiores belangrijkste
    grootste voornaamste viktigaste största""".split()
)
#: Words that ask how much ("how", "wie", "hoe", "hur", "combien", "cuánto", "cuán", "quanto", "quão"; Spanish
#: "qué tan"), and the measure words that, right after one (or after its "de", "è", "é"), are part of the
#: question word: "how high", "wie hoch", "hoe groot", "combien de temps", "cuánto tiempo", "qué tan
#: grande", "quanto è grande" ask how much of what follows, which is what a claim must name.
HOW_MUCH = frozenset("how wie hoe hur combien cuánto cuánta cuántos cuántas cuán quanto quanta quanti quante quão".split())
MEASURES = frozenset(
    """high much many long often far big large small tall wide deep heavy old expensive cheap fast soon
    hoch viel viele lang lange oft weit groß gross klein teuer billig alt schwer schnell tief breit
    hoog veel groot duur goedkoop vaak ver oud zwaar snel diep breed
    temps grand grande grandes haut haute cher chère loin souvent
    tiempo grande alto alta caro cara largo larga lejos
    tempo alto alta caro cara lungo lunga lontano spesso
    longo longa longe
    hög högt stor stort dyr dyrt ofta långt länge mycket""".split()
)
#: What may stand between a word of :data:`HOW_MUCH` and its measure word ("combien de temps", "quanto è grande").
MEASURE_LINKS = frozenset("de di è é".split())


def measure_words(tokens: list[str]) -> set[int]:
    """The indexes in ``tokens`` (a question's words) of the words of :data:`HOW_MUCH` and the measure
    words (:data:`MEASURES`) right after one, or after Spanish "qué tan" (and that "tan"): part of the question word."""
    low = [t.lower() for t in tokens]
    found: set[int] = set()
    for i, word in enumerate(low):
        if word in HOW_MUCH - {"how", "wie", "hoe", "hur"}:
            found.add(i)  # "cuán", "quão": a question word whatever follows
        if word not in MEASURES:
            continue
        j = i - 1
        while j > 0 and low[j] in MEASURE_LINKS:
            j -= 1
        if j >= 0 and low[j] in HOW_MUCH:
            found.add(i)
        elif j > 0 and low[j] == "tan" and low[j - 1] in ("qué", "que"):
            found |= {j, i}  # "qué tan": its "tan" is the question word's too
    return found


RELATING = frozenset(
    """interact interacts interplay interoperate interoperates relate relates related interagieren
    interagiert zusammenhängen zusammenwirken zusammenspielen zusammenarbeiten interagissent interagit
    interagir interactúan interactuar interagiscono interagire interagem interageren samverkar""".split()
)

#: Adverbs that ask how things go together ("work together", "funktionieren zusammen", "fonctionnent
#: ensemble", "werken samen"); "each other" and "one another" stand for them (:func:`together`). With
#: one, the frame's verb ("work", "fit", "hängen": :data:`TOGETHER_VERBS` and
#: :data:`engine.offline_terms.QUESTION_VERBS`) asks only how the items relate (:data:`RELATING`).
TOGETHER = frozenset("together zusammen ensemble juntos juntas insieme samen tillsammans".split())
#: Verbs that ask how things go together only beside an adverb of :data:`TOGETHER` ("fit together",
#: "hängen zusammen", "werken samen", "arbeiten zusammen"), as written in English, German, French,
#: Spanish, Italian, Dutch and Swedish.
TOGETHER_VERBS = frozenset(
    """fit fits go goes play plays hang hangs hängen hängt arbeiten arbeitet wirken wirkt spielen spielt
    passen passt travaillent marchent vont trabajan funcionan lavorano funzionano werken werkt hangen hangt
    passen fungerar arbetar""".split()
)
_EACH_OTHER = re.compile(r"(?<!\w)(?:each other|one another)(?!\w)", re.IGNORECASE)


def together(frame: str) -> str:
    """``frame`` with "each other" and "one another" written as "together" (:data:`TOGETHER`)."""
    return _EACH_OTHER.sub("together", frame)


def asks_how(words: list[str], k: int) -> bool:
    """True when ``words[k]`` is a verb that asks how the items of a list before it act, alone or
    together: a word of :data:`engine.offline_terms.QUESTION_VERBS` ("work", "differ", "handle"),
    :data:`RELATING` ("interact"), or of :data:`TOGETHER_VERBS` before an adverb of :data:`TOGETHER`
    ("fit together") or of any verb there (:func:`together_verb`: "run together"); a French verb with
    its pronoun ("interagissent-ils") by its verb."""
    from engine.offline_terms import QUESTION_VERBS

    word = words[k].lower()
    verb = word.split("-")[0]
    if word in QUESTION_VERBS | RELATING or verb in QUESTION_VERBS | RELATING:
        return True
    after = together(" ".join(words[k + 1 :])).lower().split()
    if after[:1] and after[0] not in TOGETHER and adverb(after[0]):
        after = after[1:]  # "run well together", "work nicely together"
    if not after or after[0] not in TOGETHER:
        return False
    return verb in TOGETHER_VERBS or together_verb(word)


def adverb(word: str) -> bool:
    """True when ``word`` is an English adverb of manner that may stand between a verb and
    :data:`TOGETHER` ("well", "nicely", "smoothly")."""
    lower = word.lower()
    return lower in ("well", "badly", "fine") or (lower.endswith("ly") and len(lower) > 4)


def together_verb(word: str) -> bool:
    """True when ``word``, written right before an adverb of :data:`TOGETHER`, is the verb it goes
    with, as :data:`TOGETHER_VERBS` are ("run together", "operate together", "be used together"): a
    word with a letter that is no function word nor a plural in "-s" ("batteries together" names an
    item)."""
    lower = word.lower()
    return (any(ch.isalpha() for ch in word) and not function_word(lower)
            and not (lower.endswith("s") and not lower.endswith("ss")))


#: Conjunctions and adverbs that join a question to the one before it ("…, but how loud are they",
#: "and also how…", "¿Y cuánto…?", "Und wie laut…"), left out of the later question's words.
OPENERS = frozenset(
    """and but also so then plus und aber auch dann sowie et mais aussi puis y pero también luego e ma
    anche poi mas também en maar ook dan och men även""".split()
)

#: Question words that ask to choose among the items, before them ("Which is faster, A or B?") or
#: after them ("A or B, which is better?").
CHOOSING = frozenset(
    "which welche welcher welches lequel laquelle lesquels cuál cuáles qual quale quali welk welke".split()
)

#: Words that open a qualifier of the clause before ("…, for Python developers"), not a topic.
QUALIFIER_OPENERS = frozenset(
    """for from to with without within about regarding für mit ohne pour avec sans para con sin per senza
    com sem voor met zonder""".split()
) | frozenset(more.QUALIFIER_OPENERS)

#: Prepositions that end a phrase a list's items share ("what are blades and towers made of"), or open
#: one ("… without eggs", "… at home").
PREPOSITIONS = frozenset(
    """of for in on about with without at into under during within through near across against from to by as von für bei aus mit zu über de des du pour sur par avec
    à del para en con por di da per su tra fra nel nella em no na com pelo pela van voor met op bij uit
    naar im ans ins beim vom zum zur nach unter auf au aux dans al åt""".split()
) | frozenset(more.PREPOSITIONS)
#: Reflexive and reciprocal pronouns, which belong to the verb around a list's items and are asked of
#: each ("Hoe gedragen warmtepompen en zonnepanelen | zich in de winter", "Wie verhalten A und B | sich
#: im Winter"), never the start of an item ("Wie unterscheiden sich | A und B | voneinander").
REFLEXIVES = frozenset("sich zich sig se si einander voneinander elkaar varandra".split())

#: Subject pronouns: a question's verb follows them ("How do I | read a file"); English "I" only as
#: written, capitalised (:func:`opens_verb`): Italian "i" is an article.
PRONOUNS = frozenset(
    "we you they ich wir du ihr je nous vous on yo nosotros io noi eu nós ik wij jij zij".split()
)

#: Pronouns that stand for a thing already named ("and are | they safe"), with English "I"
#: (:data:`PRONOUNS` has the other subject pronouns).
SUBJECTS = frozenset(
    "i it he she this that there es er sie il elle ils elles ello ella ellos ellas het".split()
)
#: Articles, by language: a noun phrase opens with one; a clause that does is no clause of its own
#: (:func:`engine.offline_lists._group_topics`: "How do daemon threads and | the main thread behave").
ARTICLES = {
    "en": frozenset("the a an".split()),
    "de": frozenset("der die das den dem des ein eine einen einem einer".split()),
    "fr": frozenset("le la les un une des du".split()),
    "es": frozenset("el la los las un una unos unas".split()),
    "it": frozenset("il lo la i gli le un uno una".split()),
    "pt": frozenset("o a os as um uma uns umas".split()),
    "nl": frozenset("de het een".split()),
    "sv": frozenset("en ett den det de".split()),
}

#: Prepositions that say whose or of what ("the costs and the benefits | of solar panels"): a phrase
#: after the last item that opens with one is shared by every item, even when each is a noun phrase
#: of its own.
GENITIVES = frozenset("of von de des du del di dei delle della degli do da dos das van".split())

#: Words after which a clause's subject or verb comes ("What do | cats and dogs eat", "Should I | rent
#: or buy a house", "better to | rent or buy"): a list of items there shares the words after the last
#: one (:func:`engine.offline_list_items._shares_tail`). Auxiliaries
#: (:data:`engine.offline_text._AUXILIARIES`, less French "a", an English article too), modal verbs,
#: subject pronouns, the infinitive's "to", and "better" where an infinitive follows it ("Es mejor |
#: alquilar o comprar una casa").
BEFORE_VERB = (
    (_AUXILIARIES - {"a"})
    | PRONOUNS
    | frozenset(
        "to zu soll sollte sollen muss müssen moet moeten devo posso puedo debo dois faut-il mejor melhor mieux meglio".split()
    )
)

#: The numbers one to ten in the languages whose lists are split (en, es, fr, de, it, pt, nl): a list
#: of numbers shares the unit after the last ("seven or eight hours").
NUMBERS = frozenset(
    """one two three four five six seven eight nine ten uno una dos tres cuatro cinco seis siete ocho nueve diez
    un une deux trois quatre cinq six sept huit neuf dix ein eine zwei drei vier fünf sechs sieben acht neun
    zehn due tre quattro cinque sei sette otto nove dieci um uma dois duas três sete oito dez een twee vier
    vijf zes zeven negen tien""".split()
)
#: A number in digits, a thousands separator or a decimal mark between them ("8", "12,000", "0,35", "1.5"),
#: which a list of numbers shares the unit after the last of as :data:`NUMBERS` does ("12,000 or 15,000 kWh").
NUMBER = re.compile(r"\d+(?:[.,]\d+)*")

#: Prepositions that never open a listed item of their own, however the later item opens ("delle
#: pompe di calore e dei pannelli": the first item opens at "delle", not "di").
BARE = frozenset("de di a à en in van von zu".split())

#: Words that open the first item of an alternative or a pair ("either A or B", "both A and B"), left
#: out of the words each sub-question shares.
CORRELATIVES = frozenset("either both entweder sowohl soit".split())

#: Endings that make a word a noun in the languages whose lists leave out a shared noun (es, fr, it,
#: pt, ca): agent nouns ("aerogenerador", "onduleur", "generatore", "aquecedor"), nouns of action and
#: state ("calefacción", "isolation", "riscaldamento", "aquecimento", "humidité"), each with its plural.
#: A later listed item that is such a noun names a thing of its own, not the first item's noun.
NOUN_ENDINGS = re.compile(
    r"(?:dor|dora|dores|doras|tor|tora|tores|toras|tore|tori|trice|trici|eur|eurs|euse|euses"
    r"|ción|ciones|sión|siones|zione|zioni|ção|ções|tion|tions|sion|sions|ció|cions"
    r"|miento|mientos|mento|menti|mentos|ment|ments|dad|dades|tat|tats|ité|ités|ità|dade|dades"
    r"|aje|ajes|aggio|aggi|agem|agens|ismo|ismos|isme|ismes)$"
)

#: Endings that make a word an adjective in the languages whose lists leave out a shared noun (es, fr,
#: it, pt, ca), each with its forms for gender and number: "-ico", "-ique" ("eólica", "thermiques"),
#: "-al", "-aux" ("nacional", "nucléaires" by "-aire"), "-ar" ("solares"), "-ivo", "-if", "-oso",
#: "-eux", "-able", "-ible", "-ável", "-ano", "-ien", "-ent", "-ant", "-ide" ("hybrides"), "-el",
#: "-ais", "-ois", "-ese", "-ês" and participles ("-ado", "-ato", "-é"). Only such a word, a later
#: listed item alone after the first one's article, leaves out the first item's noun ("la eólica");
#: any other word is a noun of its own ("les batteries", "los inversores").
ADJECTIVE_ENDINGS = re.compile(
    r"(?:ico|ica|icos|icas|ici|iche|ique|iques|al|ale|ales|ali|aux|ais|aire|aires|ar|ares|ari|are"
    r"|ivo|iva|ivos|ivas|ivi|ive|if|ifs|ives|oso|osa|osos|osas|eux|euse|euses|able|ables|ible|ibles"
    r"|abile|abili|ibile|ibili|ável|áveis|ível|íveis|ano|ana|anos|anas|ani|ien|ienne|iens|iennes"
    r"|ente|entes|enti|ante|antes|anti|ent|ents|ant|ants|ide|ides|el|elle|els|elles|ois|oise|oises"
    r"|aise|aises|ese|esi|ês|esa|esas|ado|ada|ados|adas|ato|ata|ati|ate|ido|ida|idos|idas|é|ée|és|ées)$"
)

#: Adjectives written before their noun, by language: English ones that take no ending of
#: :data:`ADJECTIVE_SUFFIXES` ("small", "large", "new", "old"; not those that are verbs too: "free",
#: "open", "clean"), and the few that come before the noun
#: in French, Spanish, Italian and Portuguese ("petites", "grandes", "nuevos", "piccole", "novos"),
#: in their forms for gender and number. Listed before one noun ("small and large companies",
#: "petites et grandes entreprises"), they share it (:func:`adjective`).
ADJECTIVES = {
    "en": frozenset(
        """small large big little new old young short long high low hot cold warm cool good bad great early
        late cheap poor rich paid full raw wet hard soft heavy fast strong weak wide narrow deep thin thick
        dark bright simple complex easy common rare adult senior junior single main medium mid upper lower
        inner outer fresh safe busy loud smart""".split()
    ),
    "fr": frozenset(
        """petit petite petits petites grand grande grands grandes nouveau nouvel nouvelle nouveaux nouvelles
        vieux vieil vieille vieilles jeune jeunes bon bonne bons bonnes mauvais mauvaise mauvaises gros grosse
        grosses haut haute hauts hautes beau bel belle beaux belles""".split()
    ),
    "es": frozenset(
        """pequeño pequeña pequeños pequeñas grande grandes gran nuevo nueva nuevos nuevas viejo vieja viejos
        viejas joven jóvenes buen bueno buena buenos buenas mal malo mala malos malas""".split()
    ),
    "it": frozenset(
        """piccolo piccola piccoli piccole grande grandi gran nuovo nuova nuovi nuove vecchio vecchia vecchi
        vecchie giovane giovani buono buona buoni buone cattivo cattiva cattivi cattive""".split()
    ),
    "pt": frozenset(
        """pequeno pequena pequenos pequenas grande grandes novo nova novos novas velho velha velhos velhas
        jovem jovens bom boa bons boas mau má maus más""".split()
    ),
}
#: English adjective endings ("public", "private", "national", "electric", "used", "modern").
ADJECTIVE_SUFFIXES = re.compile(r"(?:al|ous|ive|ful|less|able|ible|ic|ish|ary|ory|ern|ed|ent|ant|ile|ior|ate)$")


def adjective(word: str, language: str = "en") -> bool:
    """True when ``word`` (as written) is an adjective that may stand before a noun in ``language``:
    a word of :data:`ADJECTIVES`; in English also a small-letter word with an ending of
    :data:`ADJECTIVE_SUFFIXES`; in German any small-letter word that is no function word with an
    adjective's ending ("kleine", "großen"), since every German noun is capitalised. A word in capitals ("Medicare") is none."""
    low = word.lower()
    if not word[:1].islower() or function_word(low, language):
        return False
    if language == "de":
        return low.endswith(("e", "en", "er", "es", "em"))  # "kleine", "großen": an adjective's endings
    return low in ADJECTIVES.get(language, frozenset()) or (language == "en" and bool(ADJECTIVE_SUFFIXES.search(low)))


def function_word(word: str, language: str = "en") -> bool:
    """True for a lower-cased word that carries no topic (:func:`engine.language.is_function_word`),
    or one of ``language``'s own function words that list leaves out (Italian, Portuguese and Dutch:
    :data:`engine.language._QUESTION_WORDS`)."""
    return _is_function_word(word) or word in _QUESTION_WORDS.get(language, ())


def opens_verb(word: str, before: frozenset[str]) -> bool:
    """True when a verb or subject follows ``word`` as written: English "I", or a word of ``before``
    (:data:`PRONOUNS`, :data:`BEFORE_VERB`) in any case."""
    return word == "I" or word.lower() in before


#: English comparatives of more than one word open with one of these ("more efficient", "less noisy").
MORE = frozenset({"more", "less", "fewer"})


def opens_comparative(words: list[str]) -> bool:
    """True when ``words`` open with an English comparative: "more", "less" or "fewer" and a word, or
    one word (:func:`engine.word_forms.comparative`: "cheaper", "quieter", "better"; not "water")."""
    from engine.word_forms import comparative

    if not words:
        return False
    return (words[0].lower() in MORE and len(words) > 1) or comparative(words[0])
