"""A question that asks which of its items is something ("Which is cheaper to run, gas or a heat
pump?") asks it of each item: "Is gas cheaper to run", "Is a heat pump cheaper to run", in a language
whose yes-or-no question puts its verb first (English, German, Dutch, Spanish, Italian, Portuguese),
each with its frame ("Is … cheaper to run"), which a sentence quoted under it must name a word of.
English "what" with an auxiliary and a comparative asks as "which" does ("What is cheaper, a heat pump
or a gas boiler?"), a verb of its own is asked with "do" ("Which one lasts longer, batteries or solar
panels?": "Do batteries last longer"), and a yes-or-no question's comparative after its last item is
every item's ("Is a heat pump or a gas boiler more efficient?").
One comparative ("Which is faster, Python or Java?") is asked of each item too: "Is Python or Java
faster?" already asked "Is Python faster", and a sentence names the comparative in any degree of its
adjective ("fast", "fastest", "quiet", "noisy" and "noise": engine.word_forms.degree_bases), so the
frame no longer keeps out a sentence that says "fast" where the question says "faster".
A choice that names nothing but which to take ("Which is better?", "What's better, …?", "Which
broker?") and one in a language that asks otherwise (French) keep the items alone."""

from __future__ import annotations

import pytest

from engine.offline_lists import listed_frames
from engine.offline_text import plan_topics
from tests.engine.test_offline_fidelity import offline_run


@pytest.mark.parametrize(("brief", "language", "topics"), [
    ("Which is cheaper to run, gas or a heat pump?", "en", ["Is gas cheaper to run", "Is a heat pump cheaper to run"]),
    ("Which is cheaper to run: a gas boiler or a heat pump?", "en",
     ["Is a gas boiler cheaper to run", "Is a heat pump cheaper to run"]),
    ("Which is better for a small house, a heat pump or solar panels?", "en",
     ["Is a heat pump better for a small house", "Are solar panels better for a small house"]),
    ("Which one is quieter at night, a heat pump or a gas boiler?", "en",
     ["Is a heat pump quieter at night", "Is a gas boiler quieter at night"]),
    ("Welche ist günstiger im Betrieb, eine Gasheizung oder eine Wärmepumpe?", "de",
     ["Ist eine Gasheizung günstiger im Betrieb", "Ist eine Wärmepumpe günstiger im Betrieb"]),
    ("¿Cuál es más barata de usar, la calefacción de gas o la bomba de calor?", "es",
     ["Es la calefacción de gas más barata de usar", "Es la bomba de calor más barata de usar"]),
    # "what" + auxiliary + comparative asks as "which" does
    ("What is cheaper, a heat pump or a gas boiler?", "en", ["Is a heat pump cheaper", "Is a gas boiler cheaper"]),
    ("What is cheaper to run, a heat pump or a gas boiler?", "en",
     ["Is a heat pump cheaper to run", "Is a gas boiler cheaper to run"]),
    ("What are quieter at night, wind turbines or heat pumps?", "en",
     ["Are wind turbines quieter at night", "Are heat pumps quieter at night"]),
    ("What's more efficient, a heat pump or solar panels?", "en",
     ["Is a heat pump more efficient", "Are solar panels more efficient"]),
    ("What is the cheaper option, a heat pump or a gas boiler?", "en",
     ["Is a heat pump the cheaper option", "Is a gas boiler the cheaper option"]),
    ("What are quieter, a heat pump or wind turbines?", "en", ["Is a heat pump quieter", "Are wind turbines quieter"]),
    ("What costs more, gas or a heat pump?", "en", ["Does gas cost more", "Does a heat pump cost more"]),
    ("What is healthier, tea or coffee?", "en", ["Is tea healthier", "Is coffee healthier"]),
    ("What is the better choice: gas or a heat pump?", "en", ["Is gas the better choice", "Is a heat pump the better choice"]),
    # a verb of its own is asked with "do", in the plural for a plural item
    ("Which one lasts longer, batteries or solar panels?", "en", ["Do batteries last longer", "Do solar panels last longer"]),
    ("Which lasts longer, a battery or a solar panel?", "en",
     ["Does a battery last longer", "Does a solar panel last longer"]),
    ("Which costs more, gas or a heat pump?", "en", ["Does gas cost more", "Does a heat pump cost more"]),
    ("Which uses less energy, a kettle or a microwave?", "en",
     ["Does a kettle use less energy", "Does a microwave use less energy"]),
    ("Which one produces less noise, a heat pump or a gas boiler?", "en",
     ["Does a heat pump produce less noise", "Does a gas boiler produce less noise"]),
    ("Which consumes less power: a fridge or a freezer?", "en", ["Does a fridge consume less power", "Does a freezer consume less power"]),
    # one comparative is asked of each (see the module's docstring)
    ("Which is faster, Python or Java?", "en", ["Is Python faster", "Is Java faster"]),
    ("Which is quieter, a heat pump or a gas boiler?", "en", ["Is a heat pump quieter", "Is a gas boiler quieter"]),
    ("Which is bigger, Lyon or Marseille?", "en", ["Is Lyon bigger", "Is Marseille bigger"]),
    ("Which is noisier, a heat pump or a wind turbine?", "en",
     ["Is a heat pump noisier", "Is a wind turbine noisier"]),
])
def test_which_of_the_items_is_asked_of_each(brief, language, topics):
    assert plan_topics(brief, 5, language) == topics
    frames = listed_frames(brief, language)
    assert all(frames[t] and "…" in frames[t] for t in topics), frames


@pytest.mark.parametrize(("brief", "language", "topics"), [
    # a yes-or-no question's comparative after the last item is every item's
    ("Is a heat pump or a gas boiler more efficient?", "en",
     ["Is a heat pump more efficient", "Is a gas boiler more efficient"]),
    ("Are heat pumps or gas boilers cheaper to run?", "en", ["Are heat pumps cheaper to run", "Are gas boilers cheaper to run"]),
    ("Is Python or Java faster?", "en", ["Is Python faster", "Is Java faster"]),
    ("Were the Romans or the Greeks more advanced?", "en", ["Were the Romans more advanced", "Were the Greeks more advanced"]),
    ("Is a heat pump, a gas boiler or a pellet stove cheaper to run?", "en",
     ["Is a heat pump cheaper to run", "Is a gas boiler cheaper to run", "Is a pellet stove cheaper to run"]),
    ("Is a heat pump or a gas boiler less noisy at night?", "en",
     ["Is a heat pump less noisy at night", "Is a gas boiler less noisy at night"]),
    ("Is an electric car or a diesel car cheaper?", "en", ["Is an electric car cheaper", "Is a diesel car cheaper"]),
    ("Is Python or Java a better first language?", "en",
     ["Is Python a better first language", "Is Java a better first language"]),
])
def test_a_comparative_after_the_last_item_is_every_items(brief, language, topics):
    assert plan_topics(brief, 5, language) == topics
    frames = listed_frames(brief, language)
    assert all(frames[t] and "…" in frames[t] for t in topics), frames


@pytest.mark.parametrize(("brief", "language", "topics"), [
    # no comparative after "what is": what each item is, as before
    ("What is water, ice or steam?", "en", ["What is water", "What is ice", "What is steam"]),
    ("What is power, energy or work?", "en", ["What is power", "What is energy", "What is work"]),
    ("What are the costs, risks and benefits of solar panels?", "en",
     ["What are the costs of solar panels", "What are the risks of solar panels", "What are the benefits of solar panels"]),
])
def test_what_without_a_comparative_asks_what_each_is(brief, language, topics):
    assert plan_topics(brief, 5, language) == topics


@pytest.mark.parametrize(("brief", "language", "topics"), [
    ("What's better, Python or Java?", "en", ["Python", "Java"]),
    ("Which is better, Postgres or MySQL?", "en", ["Postgres", "MySQL"]),
    ("Which broker, Kafka or RabbitMQ?", "en", ["Kafka", "RabbitMQ"]),
    ("Postgres or MySQL: which is better?", "en", ["Postgres", "MySQL"]),
])
def test_a_choice_naming_nothing_more_or_asked_otherwise_keeps_the_items_alone(brief, language, topics):
    assert plan_topics(brief, 5, language) == topics


def test_a_choice_quotes_under_each_item_what_names_the_question(tmp_path):
    pages = {
        "costs.md": "# Running costs\n\nA heat pump costs about 40 percent less to run than a gas boiler in an "
                    "average house. Gas prices rose sharply in 2022 across Europe.\n",
        "gas.md": "# Gas boilers\n\nA gas boiler is cheaper to buy than a heat pump but dearer to run each year. "
                  "Gas boilers were first sold in the nineteenth century in England.\n",
    }
    report = offline_run(tmp_path, pages, "Which is cheaper to run, a gas boiler or a heat pump?", 1).report_md.read_text()
    assert "## Findings: Is a gas boiler cheaper to run" in report, report
    assert "## Findings: Is a heat pump cheaper to run" in report, report
    assert "nineteenth century" not in report and "rose sharply" not in report, report


@pytest.mark.parametrize(("word", "text", "meets"), [
    ("quieter", "A heat pump is quiet at night.", True),
    ("quiet", "A heat pump is quieter at night.", True),
    ("quieter", "The quietest one is the heat pump.", True),
    ("noisier", "It makes little noise.", True),
    ("noisy", "It makes little noise.", True),
    ("noisy", "The noises are low.", True),
    ("cheapest", "Gas is cheap to run.", True),
    ("bigger", "Lyon is a big city.", True),
    ("sunny", "The sun shines.", True),
    ("water", "A wat is a temple.", False),
    ("paper", "Pap smear tests.", False),
    ("boiler", "Boil the kettle.", False),
    ("heaters", "Heat rises.", False),
    ("never", "Nev is a name.", False),
])
def test_a_comparative_meets_its_base_and_no_other_word(word, text, meets):
    from engine.word_forms import mentioned

    assert (mentioned([word], text, "en") == [word]) is meets


def test_an_adjective_in_y_quotes_what_names_its_noun_or_another_degree(tmp_path):
    pages = {
        "noise.md": "# Noise\n\nA heat pump runs at 40 to 60 dB, about as loud as a fridge; it makes little noise. "
                    "A gas boiler is noisier than a heat pump when it fires up in the morning. "
                    "Wind turbines are among the noisiest machines near homes at 300 metres.\n",
        "history.md": "# History\n\nHeat pumps were first built in the 1850s in Austria. "
                      "Gas boilers were first sold in the nineteenth century in England.\n",
    }
    report = offline_run(tmp_path, pages, "How noisy are heat pumps, gas boilers and wind turbines?", 1).report_md.read_text()
    assert "## Findings: How noisy are heat pumps" in report, report
    assert "little noise" in report and "fires up" in report and "noisiest machines" in report, report
    assert "1850s" not in report and "nineteenth century" not in report, report


def test_a_single_comparative_is_asked_of_each_and_quotes_its_base(tmp_path):
    pages = {
        "noise.md": "# Noise\n\nA heat pump is quiet at night, about as loud as a fridge. "
                    "A gas boiler is quietest when it only heats water for the taps.\n",
        "history.md": "# History\n\nHeat pumps were first built in the 1850s in Austria. "
                      "Gas boilers were first sold in the nineteenth century in England.\n",
    }
    report = offline_run(tmp_path, pages, "Which is quieter, a heat pump or a gas boiler?", 1).report_md.read_text()
    assert "## Findings: Is a heat pump quieter" in report, report
    assert "## Findings: Is a gas boiler quieter" in report, report
    assert "as loud as a fridge" in report and "heats water for the taps" in report, report
    assert "1850s" not in report and "nineteenth century" not in report, report


@pytest.mark.parametrize(("brief", "topics"), [
    # "which" and one noun before the verb ask as "which" alone does: the noun is what the items are
    ("Which framework is faster, Django or Flask?", ["Is Django faster", "Is Flask faster"]),
    ("Which language is easier to learn, Python or Java?", ["Is Python easier to learn", "Is Java easier to learn"]),
    ("Which database scales better, Cassandra or MongoDB?", ["Does Cassandra scale better", "Does MongoDB scale better"]),
    # "has" with a noun after it is the verb "have", asked with "do"
    ("Which city has better public transport, Vienna or Zurich?",
     ["Does Vienna have better public transport", "Does Zurich have better public transport"]),
    ("Which has better replication, Postgres or MySQL?",
     ["Does Postgres have better replication", "Does MySQL have better replication"]),
    ("Which one has more features, solar panels or a battery?",
     ["Do solar panels have more features", "Does a battery have more features"]),
    # the choice after the items and a colon reads as before them
    ("Rust or Go: which is easier to learn?", ["Is Rust easier to learn", "Is Go easier to learn"]),
])
def test_a_choice_with_its_noun_its_own_have_or_after_a_colon_is_asked_of_each(brief, topics):
    """These gave "Which framework is Django", "Which city has better public Vienna", "Has Postgres
    better replication" and "Go: which is easier to learn"."""
    assert plan_topics(brief, 5, "en") == topics


@pytest.mark.parametrize(("brief", "topics"), [
    ("Which subsidies are there for heat pumps and solar panels?",
     ["Which subsidies are there for heat pumps", "Which subsidies are there for solar panels"]),
    ("Which heat pumps are cheapest to run?", ["Which heat pumps are cheapest to run?"]),
    ("Which has been faster, Python or Java?", ["Python", "Java"]),
])
def test_a_which_question_that_chooses_nothing_among_listed_items_is_as_it_was(brief, topics):
    assert plan_topics(brief, 5, "en") == topics


@pytest.mark.parametrize(("brief", "language", "topics"), [
    # "what" and an auxiliary before a comparative ask as "which" does, in every language
    ("Was ist günstiger, eine Wärmepumpe oder eine Gasheizung?", "de",
     ["Ist eine Wärmepumpe günstiger", "Ist eine Gasheizung günstiger"]),
    ("Welches ist schneller, der Zug oder das Flugzeug?", "de", ["Ist der Zug schneller", "Ist das Flugzeug schneller"]),
    ("Wat is goedkoper, de trein of het vliegtuig?", "nl", ["Is de trein goedkoper", "Is het vliegtuig goedkoper"]),
    ("¿Qué es más barato, el tren o el avión?", "es", ["Es el tren más barato", "Es el avión más barato"]),
    ("¿Cuál es más barato, el tren o el avión?", "es", ["Es el tren más barato", "Es el avión más barato"]),
    ("Qual è più economico, il treno o l'aereo?", "it", ["È il treno più economico", "È l'aereo più economico"]),
    ("O que é mais barato, o trem ou o avião?", "pt", ["É o trem mais barato", "É o avião mais barato"]),
    # French asks with "est-ce que", which any item reads well after
    ("Quel est le moins cher, le train ou l'avion ?", "fr",
     ["Est-ce que le train est le moins cher", "Est-ce que l'avion est le moins cher"]),
    ("Qu'est-ce qui est plus rapide, Python ou Go ?", "fr",
     ["Est-ce que Python est plus rapide", "Est-ce que Go est plus rapide"]),
    ("Lequel est moins cher à l'usage, le chauffage au gaz ou une pompe à chaleur ?", "fr",
     ["Est-ce que le chauffage au gaz est moins cher à l'usage", "Est-ce qu'une pompe à chaleur est moins chère à l'usage"]),
])
def test_a_choice_in_another_language_is_asked_of_each(brief, language, topics):
    assert plan_topics(brief, 5, language) == topics
    frames = listed_frames(brief, language)
    assert all(frames[t] and "…" in frames[t] for t in topics), frames


@pytest.mark.parametrize(("brief", "language", "topics"), [
    # "better" alone asks only which to take, in any language
    ("Was ist besser, Python oder Java?", "de", ["Python", "Java"]),
    ("Quel est le meilleur, Python ou JavaScript ?", "fr", ["Python", "JavaScript"]),
    ("Qual é o melhor, Python ou JavaScript?", "pt", ["Python", "JavaScript"]),
    # no comparative: what each is, as before
    ("Was ist Wasser, Eis oder Dampf?", "de", ["Was ist Wasser", "Was ist Eis", "Was ist Dampf"]),
])
def test_a_choice_in_another_language_naming_nothing_more_keeps_the_items_alone(brief, language, topics):
    assert plan_topics(brief, 5, language) == topics


@pytest.mark.parametrize(("brief", "language", "topics"), [
    # "which are the … of A, B and C" lists items of its own clause: no choice among them
    ("Which are the side effects of ibuprofen, paracetamol and aspirin?", "en",
     ["Which are the side effects of ibuprofen", "Which are the side effects of paracetamol",
      "Which are the side effects of aspirin"]),
    ("¿Cuáles son los efectos secundarios del ibuprofeno, el paracetamol y la aspirina?", "es",
     ["Cuáles son los efectos secundarios del ibuprofeno", "Cuáles son los efectos secundarios del paracetamol",
      "Cuáles son los efectos secundarios de la aspirina"]),
    ("Quali sono gli effetti collaterali dell'ibuprofene, del paracetamolo e dell'aspirina?", "it",
     ["Quali sono gli effetti collaterali dell'ibuprofene", "Quali sono gli effetti collaterali del paracetamolo",
      "Quali sono gli effetti collaterali dell'aspirina"]),
    ("Quais são os efeitos colaterais do ibuprofeno, o paracetamol e a aspirina?", "pt",
     ["Quais são os efeitos colaterais do ibuprofeno", "Quais são os efeitos colaterais do paracetamol",
      "Quais são os efeitos colaterais da aspirina"]),
])
def test_which_before_a_list_of_its_own_clause_asks_of_each_item(brief, language, topics):
    assert plan_topics(brief, 5, language) == topics


@pytest.mark.parametrize(("brief", "language", "topics"), [
    # a yes-or-no question's comparative after the last item is every item's, in any language
    ("Is de trein of het vliegtuig sneller?", "nl", ["Is de trein sneller", "Is het vliegtuig sneller"]),
    ("Ist der Zug oder das Flugzeug schneller?", "de", ["Ist der Zug schneller", "Ist das Flugzeug schneller"]),
    ("Ist eine Wärmepumpe oder eine Gasheizung günstiger?", "de",
     ["Ist eine Wärmepumpe günstiger", "Ist eine Gasheizung günstiger"]),
    ("¿Es el tren o el avión más rápido?", "es", ["Es el tren más rápido", "Es el avión más rápido"]),
    ("Est-ce que le train ou l'avion est plus rapide ?", "fr",
     ["Est-ce que le train est plus rapide", "Est-ce que l'avion est plus rapide"]),
])
def test_a_comparative_after_the_last_item_is_every_items_in_another_language(brief, language, topics):
    assert plan_topics(brief, 5, language) == topics


@pytest.mark.parametrize(("brief", "language", "topics"), [
    # a preposition and an article written as one word are joined and parted as each item needs
    ("Quels sont les effets secondaires de l'ibuprofène, du paracétamol et de l'aspirine ?", "fr",
     ["Quels sont les effets secondaires de l'ibuprofène", "Quels sont les effets secondaires du paracétamol",
      "Quels sont les effets secondaires de l'aspirine"]),
    ("Quelle est l'histoire de Rome, d'Athènes et de Carthage ?", "fr",
     ["Quelle est l'histoire de Rome", "Quelle est l'histoire d'Athènes", "Quelle est l'histoire de Carthage"]),
    ("¿Cuáles son los síntomas de la gripe, el resfriado y la COVID?", "es",
     ["Cuáles son los síntomas de la gripe", "Cuáles son los síntomas del resfriado", "Cuáles son los síntomas de la COVID"]),
    ("Quali sono gli effetti collaterali del paracetamolo, dell'ibuprofene e dell'aspirina?", "it",
     ["Quali sono gli effetti collaterali del paracetamolo", "Quali sono gli effetti collaterali dell'ibuprofene",
      "Quali sono gli effetti collaterali dell'aspirina"]),
    # an item that opens with an article after a phrase in the first one lists with that one's article
    ("Come gestisce asyncio la cancellazione dei task e i timeout?", "it",
     ["Come gestisce asyncio la cancellazione dei task", "Come gestisce asyncio i timeout"]),
])
def test_a_contracted_preposition_is_written_once_for_each_item(brief, language, topics):
    assert plan_topics(brief, 5, language) == topics


@pytest.mark.parametrize(("brief", "language", "topics"), [
    # the items open the question, its verb and comparative after them: every item's, asked as each
    # language asks yes or no; Italian, Portuguese and Spanish in the question's own order ("È il treno
    # più veloce" would read as "it is the fastest train")
    ("Il treno o l'aereo è più veloce?", "it", ["Il treno è più veloce", "L'aereo è più veloce"]),
    ("Python o Java è più facile da imparare?", "it", ["Python è più facile da imparare", "Java è più facile da imparare"]),
    ("O trem ou o avião é mais rápido?", "pt", ["O trem é mais rápido", "O avião é mais rápido"]),
    ("¿El tren o el avión es más rápido?", "es", ["El tren es más rápido", "El avión es más rápido"]),
    ("¿Madrid o Barcelona es más cara?", "es", ["Madrid es más cara", "Barcelona es más cara"]),
    # French with "est-ce que", which needs no pronoun of the item's gender ("est-il")
    ("Le train ou l'avion est-il plus rapide ?", "fr",
     ["Est-ce que le train est plus rapide", "Est-ce que l'avion est plus rapide"]),
    ("Paris ou Lyon est plus cher ?", "fr", ["Est-ce que Paris est plus cher", "Est-ce que Lyon est plus cher"]),
    # German, Dutch and English with the verb first
    ("Der Zug oder das Flugzeug ist schneller?", "de", ["Ist der Zug schneller", "Ist das Flugzeug schneller"]),
    ("De trein of het vliegtuig is sneller?", "nl", ["Is de trein sneller", "Is het vliegtuig sneller"]),
    ("Python or Java is faster?", "en", ["Is Python faster", "Is Java faster"]),
    # items of several words, with an article, a phrase of their own or none
    ("A heat pump or a gas boiler is cheaper?", "en", ["Is a heat pump cheaper", "Is a gas boiler cheaper"]),
    ("Heat pumps or gas boilers are cheaper to run?", "en", ["Are heat pumps cheaper to run", "Are gas boilers cheaper to run"]),
    ("Une pompe à chaleur ou une chaudière à gaz est-elle moins chère ?", "fr",
     ["Est-ce qu'une pompe à chaleur est moins chère", "Est-ce qu'une chaudière à gaz est moins chère"]),
    ("Una pompa di calore o una caldaia a gas è più economica?", "it",
     ["Una pompa di calore è più economica", "Una caldaia a gas è più economica"]),
    ("Il treno, l'aereo o l'auto è più veloce?", "it", ["Il treno è più veloce", "L'aereo è più veloce", "L'auto è più veloce"]),
])
def test_a_yes_or_no_choice_that_opens_with_its_items_is_asked_of_each(brief, language, topics):
    """These gave the first item alone ("Il treno") and the second with the verb ("l'aereo è più veloce")."""
    assert plan_topics(brief, 5, language) == topics


@pytest.mark.parametrize(("brief", "language", "topics"), [
    # a choice after the items and a colon or dash is asked of each as before them, the first item's
    # article in small letters
    ("Der Zug oder das Flugzeug – was ist schneller?", "de", ["Ist der Zug schneller", "Ist das Flugzeug schneller"]),
    ("De trein of het vliegtuig – wat is sneller?", "nl", ["Is de trein sneller", "Is het vliegtuig sneller"]),
    ("A heat pump or a gas boiler: which is cheaper?", "en", ["Is a heat pump cheaper", "Is a gas boiler cheaper"]),
    ("The train or the plane - which is faster?", "en", ["Is the train faster", "Is the plane faster"]),
    ("Il treno o l'aereo: quale è più veloce?", "it", ["È il treno più veloce", "È l'aereo più veloce"]),
    ("Coffee or tea: which is healthier?", "en", ["Is coffee healthier", "Is tea healthier"]),
    ("Python or Java: which is faster?", "en", ["Is Python faster", "Is Java faster"]),
    # after a comma too, where "was ist …" was a question of its own
    ("Kaffee oder Tee, was ist gesünder?", "de", ["Ist Kaffee gesünder", "Ist Tee gesünder"]),
    ("De trein of het vliegtuig, wat is sneller?", "nl", ["Is de trein sneller", "Is het vliegtuig sneller"]),
    # "better" alone still asks only which to take
    ("Postgres or MySQL: which is better?", "en", ["Postgres", "MySQL"]),
])
def test_a_choice_after_the_items_and_a_colon_is_asked_of_each(brief, language, topics):
    """These gave "Ist Der Zug schneller", "A heat pump" and "A a gas boiler", "The train" and "the plane"."""
    assert plan_topics(brief, 5, language) == topics


@pytest.mark.parametrize(("brief", "topics"), [
    # after "une" or "la" the adjective the choice asks of each item is written in the feminine:
    # "-e" added, or a written irregular form; one in "-e" already, and "meilleur marché", as they are
    ("Quel est le moins cher, une pompe à chaleur ou une chaudière à gaz ?",
     ["Est-ce qu'une pompe à chaleur est la moins chère", "Est-ce qu'une chaudière à gaz est la moins chère"]),
    ("Qu'est-ce qui est meilleur pour la santé, le thé ou la tisane ?",
     ["Est-ce que le thé est meilleur pour la santé", "Est-ce que la tisane est meilleure pour la santé"]),
    ("Qu'est-ce qui est plus coûteux, le train ou la voiture ?",
     ["Est-ce que le train est plus coûteux", "Est-ce que la voiture est plus coûteuse"]),
    ("Qu'est-ce qui est plus lent, le train ou la voiture ?",
     ["Est-ce que le train est plus lent", "Est-ce que la voiture est plus lente"]),
    ("Qu'est-ce qui est plus rapide, le train ou la voiture ?",
     ["Est-ce que le train est plus rapide", "Est-ce que la voiture est plus rapide"]),
    ("Qu'est-ce qui est meilleur marché, le train ou la voiture ?",
     ["Est-ce que le train est meilleur marché", "Est-ce que la voiture est meilleur marché"]),
    # and back in the masculine after "un" or "le" when the question wrote it feminine
    ("Quelle est la moins chère, une pompe à chaleur ou un poêle à bois ?",
     ["Est-ce qu'une pompe à chaleur est la moins chère", "Est-ce qu'un poêle à bois est le moins cher"]),
    # a yes-or-no question that opens with the items, likewise
    ("Le train ou la voiture est-il plus cher ?", ["Est-ce que le train est plus cher", "Est-ce que la voiture est plus chère"]),
])
def test_a_french_adjective_asked_of_each_item_agrees_with_its_article(brief, topics):
    """These gave "Est-ce qu'une pompe à chaleur est moins cher", "… est la moins cher"."""
    assert plan_topics(brief, 5, "fr") == topics
