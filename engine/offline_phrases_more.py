"""The Italian, Dutch, Portuguese and Swedish columns of :data:`engine.offline_phrases.PHRASES` (kept
here so that each file stays readable); :mod:`engine.offline_phrases` merges them into the one table.

Each language has two cardinal forms for whole numbers (CLDR: "one" and "other"; Portuguese takes
"one" for 0 as well, :func:`engine.offline_phrases.plural_form`), so a phrase about a number of
things is a pair (singular, plural) as in English. Each language quotes as its typography does:
Italian «…», Dutch and Portuguese “…”, Swedish ”…”. Terms are the same throughout a language: the
report, its sources, findings, claims, the solution, critique and perspective of the review, and a
review round.
"""

from __future__ import annotations

#: The languages of :data:`MORE`, in the order of each entry's templates.
MORE_LANGUAGES = ("it", "nl", "pt", "sv")

#: Phrase key -> (Italian, Dutch, Portuguese, Swedish); a pair (singular, plural) for a phrase about
#: a number of things.
MORE: dict[str, tuple] = {
    "starting": ("Grazie, avvio subito la ricerca.", "Bedankt, het onderzoek begint nu.",
                 "Obrigado, a pesquisa começa agora.", "Tack, undersökningen börjar nu."),
    "clarify": (
        "«{q}» è piuttosto ampio. Su quale aspetto deve concentrarsi la ricerca (per esempio un caso d'uso, "
        "un periodo, una regione o un confronto) e a chi è destinato il rapporto?",
        "“{q}” is vrij breed. Op welk aspect moet het onderzoek zich richten (bijvoorbeeld een toepassing, "
        "een periode, een regio of een vergelijking), en voor wie is het rapport bedoeld?",
        "“{q}” é bastante amplo. Em qual aspecto a pesquisa deve se concentrar (por exemplo, um caso de uso, "
        "um período, uma região ou uma comparação) e para quem é o relatório?",
        "”{q}” är ganska brett. Vilken aspekt ska undersökningen inrikta sig på (till exempel ett "
        "användningsfall, en tidsperiod, en region eller en jämförelse), och vem är rapporten till för?"),
    "summary": ("Riepilogo", "Samenvatting", "Resumo", "Sammanfattning"),
    "executive_summary": ("Sintesi", "Managementsamenvatting", "Resumo executivo", "Sammanfattning"),
    "findings_on": ("Risultati: {t}", "Bevindingen: {t}", "Resultados: {t}", "Resultat: {t}"),
    "problems": ("Problemi durante la ricerca", "Problemen tijdens het onderzoek", "Problemas durante a pesquisa",
                 "Problem under undersökningen"),
    "no_findings": (
        "Non sono state trovate fonti per questa domanda, quindi il rapporto non può citare alcuna prova.",
        "Er zijn geen bronnen gevonden voor deze vraag, dus het rapport kan geen bewijs citeren.",
        "Não foram encontradas fontes para esta pergunta, portanto o relatório não pode citar nenhuma evidência.",
        "Inga källor hittades för den här frågan, så rapporten kan inte citera några belägg."),
    "no_claims": (
        "Il rapporto non cita alcun risultato, quindi non c'è ancora nulla da cui trarre una raccomandazione.",
        "Het rapport citeert geen enkele bevinding, dus er is nog niets om een aanbeveling op te baseren.",
        "O relatório não cita nenhum resultado, portanto ainda não há nada em que basear uma recomendação.",
        "Rapporten citerar inget resultat, så det finns ännu inget att grunda en rekommendation på."),
    "none_cited": (
        ("Trovata una fonte; il rapporto non la cita.", "Fonti trovate: {n}; il rapporto non ne cita nessuna."),
        ("Eén bron gevonden; het rapport citeert die niet.", "Gevonden bronnen: {n}; het rapport citeert er geen."),
        ("Uma fonte encontrada; o relatório não a cita.", "Fontes encontradas: {n}; o relatório não cita nenhuma."),
        ("En källa hittades; rapporten citerar den inte.", "Hittade källor: {n}; rapporten citerar ingen av dem.")),
    "no_passages": (
        ("{n} fonte trovata; non conteneva alcun passo da citare su questa domanda.",
         "{n} fonti trovate; nessuna conteneva un passo da citare su questa domanda."),
        ("{n} bron gevonden; die bevatte geen passage over deze vraag om te citeren.",
         "{n} bronnen gevonden; geen ervan bevatte een passage over deze vraag om te citeren."),
        ("{n} fonte encontrada; ela não tinha nenhum trecho sobre esta pergunta para citar.",
         "{n} fontes encontradas; nenhuma tinha um trecho sobre esta pergunta para citar."),
        ("{n} källa hittades; den innehöll inget stycke om den här frågan att citera.",
         "{n} källor hittades; ingen av dem innehöll något stycke om den här frågan att citera.")),
    "nothing_more_on": ("Non è stato trovato altro da citare su: {t}.",
                        "Over het volgende is niets meer gevonden om te citeren: {t}.",
                        "Não se encontrou mais nada para citar sobre: {t}.",
                        "Inget mer att citera hittades om: {t}."),
    "recommendation": ("Raccomandazione", "Aanbeveling", "Recomendação", "Rekommendation"),
    "reasons": ("Elementi a sostegno", "Onderbouwing", "Evidências de apoio", "Underlag"),
    "changes": ("Modifiche rispetto alla soluzione precedente", "Wijzigingen ten opzichte van de vorige oplossing",
                "Mudanças em relação à solução anterior", "Ändringar jämfört med föregående lösning"),
    "review_outcome": ("Esito della revisione", "Uitkomst van de beoordeling", "Resultado da revisão",
                       "Granskningens resultat"),
    "open_objections": ("Obiezioni aperte", "Openstaande bezwaren", "Objeções em aberto", "Öppna invändningar"),
    "research_done": ("La ricerca su questo tema è conclusa.", "Het onderzoek naar dit onderwerp is afgerond.",
                      "A pesquisa sobre este tema está concluída.", "Undersökningen av det här ämnet är klar."),
    "caveats": ("Avvertenze", "Kanttekeningen", "Ressalvas", "Förbehåll"),
    "uncited": (
        ("{n} affermazione senza citazione: «{example}».", "{n} affermazioni senza citazione, per es. «{example}»."),
        ("{n} bewering zonder bronvermelding: “{example}”.", "{n} beweringen zonder bronvermelding, bijv. “{example}”."),
        ("{n} afirmação sem citação: “{example}”.", "{n} afirmações sem citação, p. ex. “{example}”."),
        ("{n} påstående saknar källhänvisning: ”{example}”.", "{n} påståenden saknar källhänvisning, t.ex. ”{example}”.")),
    "one_source": (
        "La soluzione si basa su una sola fonte o su nessuna; nessuna affermazione è confermata da una seconda fonte.",
        "De oplossing steunt op hooguit één bron; geen enkele bewering wordt door een tweede bron bevestigd.",
        "A solução se apoia em uma fonte ou em nenhuma; nenhuma afirmação é corroborada por uma segunda fonte.",
        "Lösningen vilar på högst en källa; inget påstående bekräftas av en andra källa."),
    "unused_sources": (
        ("La soluzione non cita l'unica fonte trovata: {titles}.",
         "La soluzione cita {n} delle {m} fonti trovate; non usate: {titles}."),
        ("De oplossing citeert de enige gevonden bron niet: {titles}.",
         "De oplossing citeert {n} van de {m} gevonden bronnen; niet gebruikt: {titles}."),
        ("A solução não cita a única fonte encontrada: {titles}.",
         "A solução cita {n} das {m} fontes encontradas; não usadas: {titles}."),
        ("Lösningen citerar inte den enda källa som hittades: {titles}.",
         "Lösningen citerar {n} av de {m} källor som hittades; oanvända: {titles}.")),
    "all_sources_used": (
        ("La soluzione cita l'unica fonte trovata.", "La soluzione cita tutte le {m} fonti trovate."),
        ("De oplossing citeert de enige gevonden bron.", "De oplossing citeert alle {m} gevonden bronnen."),
        ("A solução cita a única fonte encontrada.", "A solução cita todas as {m} fontes encontradas."),
        ("Lösningen citerar den enda källa som hittades.", "Lösningen citerar alla {m} källor som hittades.")),
    "report_sources": (
        ("Il rapporto non cita l'unica fonte trovata: {titles}.",
         "Il rapporto cita {n} delle {m} fonti trovate; non citate: {titles}."),
        ("Het rapport citeert de enige gevonden bron niet: {titles}.",
         "Het rapport citeert {n} van de {m} gevonden bronnen; niet geciteerd: {titles}."),
        ("O relatório não cita a única fonte encontrada: {titles}.",
         "O relatório cita {n} das {m} fontes encontradas; não citadas: {titles}."),
        ("Rapporten citerar inte den enda källa som hittades: {titles}.",
         "Rapporten citerar {n} av de {m} källor som hittades; inte citerade: {titles}.")),
    "all_sources_cited": (
        ("Il rapporto cita l'unica fonte trovata.", "Il rapporto cita tutte le {m} fonti trovate."),
        ("Het rapport citeert de enige gevonden bron.", "Het rapport citeert alle {m} gevonden bronnen."),
        ("O relatório cita a única fonte encontrada.", "O relatório cita todas as {m} fontes encontradas."),
        ("Rapporten citerar den enda källa som hittades.", "Rapporten citerar alla {m} källor som hittades.")),
    "code_line": (
        "{q} [{sid}] è una riga di codice, non un risultato; citarla come tale non dice nulla al lettore.",
        "{q} [{sid}] is een regel code, geen bevinding; als bevinding geciteerd zegt die de lezer niets.",
        "{q} [{sid}] é uma linha de código, não um resultado; citá-la como tal não diz nada ao leitor.",
        "{q} [{sid}] är en kodrad, inte ett resultat; citerad som ett resultat säger den läsaren ingenting."),
    "dangling": (
        "{q} [{sid}] comincia con {word}, che rimanda a un testo che il rapporto non cita.",
        "{q} [{sid}] begint met {word}, dat verwijst naar tekst die het rapport niet citeert.",
        "{q} [{sid}] começa com {word}, que remete a um texto que o relatório não cita.",
        "{q} [{sid}] börjar med {word}, som syftar på text som rapporten inte citerar."),
    "unanswered": (
        "Nessuna affermazione della soluzione menziona {terms}, su cui verte la domanda.",
        "Geen enkele bewering van de oplossing noemt {terms}, waar de vraag over gaat.",
        "Nenhuma afirmação da solução menciona {terms}, de que trata a pergunta.",
        "Inget påstående i lösningen nämner {terms}, som frågan gäller."),
    "single_source_topic": (
        "I risultati su {topic} si basano su una sola fonte: {title} [{sid}].",
        "De bevindingen over {topic} steunen op slechts één bron: {title} [{sid}].",
        "Os resultados sobre {topic} se apoiam em uma única fonte: {title} [{sid}].",
        "Resultaten om {topic} vilar på en enda källa: {title} [{sid}]."),
    "numbers_differ": (
        "Le fonti riportano cifre diverse: {a} [{sa}] e {b} [{sb}].",
        "De bronnen noemen verschillende cijfers: {a} [{sa}] en {b} [{sb}].",
        "As fontes dão números diferentes: {a} [{sa}] e {b} [{sb}].",
        "Källorna anger olika siffror: {a} [{sa}] och {b} [{sb}]."),
    "nothing_to_check": (
        "La soluzione non cita alcuna fonte, quindi non c'è alcuna affermazione da verificare.",
        "De oplossing citeert geen enkele bron, dus er is geen bewering om te controleren.",
        "A solução não cita nenhuma fonte, portanto não há nenhuma afirmação a verificar.",
        "Lösningen citerar ingen källa, så det finns inget påstående att kontrollera."),
    "no_flaw": (
        "Ogni affermazione della soluzione ha una citazione ed è una frase compiuta, e ogni parte della domanda "
        "viene trattata.",
        "Elke bewering van de oplossing heeft een bronvermelding en is een volledige zin, en elk deel van de vraag "
        "komt aan bod.",
        "Toda afirmação da solução tem citação e é uma frase completa, e cada parte da pergunta é tratada.",
        "Varje påstående i lösningen har en källhänvisning och är en fullständig mening, och varje del av frågan "
        "besvaras."),
    "reader_intro": ("Dal punto di vista di chi ha posto la domanda:", "Vanuit het oogpunt van wie de vraag stelde:",
                     "Do ponto de vista de quem fez a pergunta:", "Ur frågeställarens synvinkel:"),
    "reader": ("Lettore", "Lezer", "Leitor", "Läsare"),
    "left_out": (
        "i risultati dicono anche {q} [{sid}], che la soluzione tralascia.",
        "de bevindingen zeggen ook {q} [{sid}], wat de oplossing weglaat.",
        "os resultados também dizem {q} [{sid}], o que a solução omite.",
        "resultaten säger också {q} [{sid}], vilket lösningen utelämnar."),
    "not_addressed": (
        "la domanda riguarda {terms}, e la soluzione non ne dice nulla.",
        "de vraag gaat over {terms}, en de oplossing zegt daar niets over.",
        "a pergunta trata de {terms}, e a solução não diz nada a respeito.",
        "frågan gäller {terms}, och lösningen säger ingenting om det."),
    "nothing_changed": (
        "Nessuna modifica: la critica e la prospettiva non hanno indicato nulla che i risultati possano "
        "aggiungere o togliere.",
        "Niets gewijzigd: de kritiek en het perspectief noemden niets wat de bevindingen kunnen toevoegen of "
        "weghalen.",
        "Nada mudou: a crítica e a perspectiva não apontaram nada que os resultados possam acrescentar ou remover.",
        "Inget ändrades: kritiken och perspektivet pekade inte ut något som resultaten kan lägga till eller ta bort."),
    "nothing_changed_raised": (
        "Nessuna modifica, benché siano state sollevate obiezioni (critica: {c}, prospettiva: {p}): nessuna "
        "indicava un'affermazione da togliere o un risultato del rapporto da aggiungere.",
        "Niets gewijzigd, hoewel er bezwaren waren (kritiek: {c}, perspectief: {p}): geen ervan noemde een "
        "bewering om te schrappen of een bevinding uit het rapport om toe te voegen.",
        "Nada mudou, embora tenham sido levantadas objeções (crítica: {c}, perspectiva: {p}): nenhuma apontou "
        "uma afirmação a remover ou um resultado do relatório a acrescentar.",
        "Inget ändrades, trots att invändningar framfördes (kritik: {c}, perspektiv: {p}): ingen pekade ut ett "
        "påstående att ta bort eller ett resultat ur rapporten att lägga till."),
    "added_findings": (
        ("Aggiunto {n} risultato che la prospettiva indicava come tralasciato: {quotes}.",
         "Aggiunti {n} risultati che la prospettiva indicava come tralasciati: {quotes}."),
        ("{n} bevinding toegevoegd die volgens het perspectief ontbrak: {quotes}.",
         "{n} bevindingen toegevoegd die volgens het perspectief ontbraken: {quotes}."),
        ("Acrescentado {n} resultado que a perspectiva apontou como omitido: {quotes}.",
         "Acrescentados {n} resultados que a perspectiva apontou como omitidos: {quotes}."),
        ("Lade till {n} resultat som perspektivet pekade ut som utelämnat: {quotes}.",
         "Lade till {n} resultat som perspektivet pekade ut som utelämnade: {quotes}.")),
    "dropped_claims": (
        ("Rimossa {n} affermazione segnalata dalla critica: {quotes}.",
         "Rimosse {n} affermazioni segnalate dalla critica: {quotes}."),
        ("{n} bewering geschrapt die de kritiek aanwees: {quotes}.",
         "{n} beweringen geschrapt die de kritiek aanwees: {quotes}."),
        ("Removida {n} afirmação apontada pela crítica: {quotes}.",
         "Removidas {n} afirmações apontadas pela crítica: {quotes}."),
        ("Strök {n} påstående som kritiken pekade ut: {quotes}.",
         "Strök {n} påståenden som kritiken pekade ut: {quotes}.")),
    "sources_outcome": (
        ("Il rapporto è passato per {n} ciclo di revisione. {sources}",
         "Il rapporto è passato per {n} cicli di revisione. {sources}"),
        ("Het rapport doorliep {n} beoordelingsronde. {sources}", "Het rapport doorliep {n} beoordelingsrondes. {sources}"),
        ("O relatório passou por {n} ciclo de revisão. {sources}", "O relatório passou por {n} ciclos de revisão. {sources}"),
        ("Rapporten gick igenom {n} granskningsomgång. {sources}",
         "Rapporten gick igenom {n} granskningsomgångar. {sources}")),
    "last_critique": ("L'ultima critica alla soluzione diceva:", "De laatste kritiek op de oplossing luidde:",
                      "A última crítica à solução dizia:", "Den senaste kritiken av lösningen löd:"),
    "settled_in_report": ("(risolto nel rapporto finale)", "(opgelost in het eindrapport)",
                          "(resolvido no relatório final)", "(åtgärdat i slutrapporten)"),
    "follow_up_terms": ("Che cosa dicono le fonti su {terms} riguardo a {topic}?",
                        "Wat zeggen de bronnen over {terms} bij {topic}?",
                        "O que dizem as fontes sobre {terms} em {topic}?",
                        "Vad säger källorna om {terms} för {topic}?"),
    "follow_up_terms_no_topic": ("Che cosa dicono le fonti su {terms}?", "Wat zeggen de bronnen over {terms}?",
                                 "O que dizem as fontes sobre {terms}?", "Vad säger källorna om {terms}?"),
    "follow_up_finding": ("Che cosa implica il risultato {q} per {topic}?", "Wat betekent de bevinding {q} voor {topic}?",
                          "O que o resultado {q} implica para {topic}?", "Vad betyder resultatet {q} för {topic}?"),
    "follow_up_finding_no_topic": ("Che cosa si deduce dal risultato {q}?", "Wat volgt uit de bevinding {q}?",
                                   "O que se conclui do resultado {q}?", "Vad följer av resultatet {q}?"),
    "follow_up_other": ("Che cosa dicono le prove su {point}, un'obiezione a {topic}?",
                        "Wat zegt het bewijs over {point}, een bezwaar tegen {topic}?",
                        "O que dizem as evidências sobre {point}, uma objeção a {topic}?",
                        "Vad säger beläggen om {point}, en invändning mot {topic}?"),
    "follow_up_other_no_topic": ("Che cosa dicono le prove sull'obiezione {point}?",
                                 "Wat zegt het bewijs over het bezwaar {point}?",
                                 "O que dizem as evidências sobre a objeção {point}?",
                                 "Vad säger beläggen om invändningen {point}?"),
    "follow_up_narrow": ("A quale caso d'uso, periodo o regione si può restringere {topic}?",
                         "Tot welke toepassing, periode of regio kan {topic} worden beperkt?",
                         "A que caso de uso, período ou região se pode restringir {topic}?",
                         "Till vilket användningsfall, vilken period eller region kan {topic} avgränsas?"),
    "follow_up_evidence_terms": ("Quali dati o documenti chiarirebbero {terms} riguardo a {topic}?",
                                 "Welke gegevens of documenten zouden {terms} bij {topic} ophelderen?",
                                 "Que dados ou documentos esclareceriam {terms} em {topic}?",
                                 "Vilka data eller dokument skulle klarlägga {terms} för {topic}?"),
    "follow_up_evidence_terms_no_topic": ("Quali dati o documenti chiarirebbero {terms}?",
                                          "Welke gegevens of documenten zouden {terms} ophelderen?",
                                          "Que dados ou documentos esclareceriam {terms}?",
                                          "Vilka data eller dokument skulle klarlägga {terms}?"),
    "follow_up_evidence_other": ("Quali dati o documenti risolverebbero {point}, un'obiezione a {topic}?",
                                 "Welke gegevens of documenten zouden {point} beslechten, een bezwaar tegen {topic}?",
                                 "Que dados ou documentos resolveriam {point}, uma objeção a {topic}?",
                                 "Vilka data eller dokument skulle avgöra {point}, en invändning mot {topic}?"),
    "follow_up_evidence_other_no_topic": ("Quali dati o documenti risolverebbero l'obiezione {point}?",
                                          "Welke gegevens of documenten zouden het bezwaar {point} beslechten?",
                                          "Que dados ou documentos resolveriam a objeção {point}?",
                                          "Vilka data eller dokument skulle avgöra invändningen {point}?"),
    "quoted": ("«{q}»", "“{q}”", "“{q}”", "”{q}”"),
    "quoted_inner": ("‘{q}’", "‘{q}’", "‘{q}’", "’{q}’"),
    "none": ("(nessuna)", "(geen)", "(nenhuma)", "(inga)"),
    "list_separator": (", ", ", ", ", ", ", "),
    "role_says": ("{role}: {text}", "{role}: {text}", "{role}: {text}", "{role}: {text}"),
    "none_cited_short": ("(nessuna citata)", "(geen geciteerd)", "(nenhuma citada)", "(inga citerade)"),
    "no_sources": ("Non è stata citata alcuna fonte.", "Er zijn geen bronnen geciteerd.", "Nenhuma fonte foi citada.",
                   "Inga källor citerades."),
    "review_of": ("Revisione di: {q}", "Beoordeling van: {q}", "Revisão de: {q}", "Granskning av: {q}"),
    "review_round": ("Ciclo {n}", "Ronde {n}", "Ciclo {n}", "Omgång {n}"),
    "role_solution": ("Soluzione", "Oplossing", "Solução", "Lösning"),
    "role_critique": ("Critica", "Kritiek", "Crítica", "Kritik"),
    "role_perspective": ("Prospettiva", "Perspectief", "Perspectiva", "Perspektiv"),
    "no_review_rounds": (
        "Non è stato svolto alcun ciclo di revisione (DEEPRESEARCH_MAX_REVIEW_ITERATIONS=0).",
        "Er zijn geen beoordelingsrondes uitgevoerd (DEEPRESEARCH_MAX_REVIEW_ITERATIONS=0).",
        "Nenhum ciclo de revisão foi realizado (DEEPRESEARCH_MAX_REVIEW_ITERATIONS=0).",
        "Inga granskningsomgångar genomfördes (DEEPRESEARCH_MAX_REVIEW_ITERATIONS=0)."),
    "review_legend": ("Fonti citate dalla revisione", "Bronnen die de beoordeling citeert",
                      "Fontes citadas pela revisão", "Källor som granskningen citerar"),
    "review_legend_note": ("(I ruoli citano le fonti tramite il loro identificativo.)",
                           "(De rollen verwijzen naar bronnen met hun kenmerk.)",
                           "(Os papéis citam as fontes pelo identificador.)",
                           "(Rollerna hänvisar till källor med deras id.)"),
    "source_of_report": ("(fonte {n} del rapporto)", "(bron {n} van het rapport)", "(fonte {n} do relatório)",
                         "(källa {n} i rapporten)"),
    "offline_notice": (
        "Questo rapporto è stato prodotto in modalità estrattiva offline, senza un modello linguistico: cita "
        "frasi delle fonti, ordinate in base alla domanda, senza interpretarle.",
        "Dit rapport is gemaakt in de offline extractieve modus, zonder taalmodel: het citeert zinnen uit de "
        "bronnen, gerangschikt naar de vraag, zonder ze te interpreteren.",
        "Este relatório foi gerado no modo extrativo offline, sem um modelo de linguagem: cita frases das "
        "fontes, ordenadas de acordo com a pergunta, sem interpretá-las.",
        "Den här rapporten togs fram i offlineläge genom extraktion, utan språkmodell: den citerar meningar ur "
        "källorna, rangordnade efter frågan, utan att tolka dem."),
    "chat_cited": (("{n} fonte citata", "{n} fonti citate"), ("{n} bron geciteerd", "{n} bronnen geciteerd"),
                   ("{n} fonte citada", "{n} fontes citadas"), ("{n} källa citerad", "{n} källor citerade")),
    "chat_failed": (("{n} tema di ricerca non riuscito", "{n} temi di ricerca non riusciti"),
                    ("{n} onderzoeksonderwerp mislukt", "{n} onderzoeksonderwerpen mislukt"),
                    ("{n} tema de pesquisa falhou", "{n} temas de pesquisa falharam"),
                    ("{n} undersökningsämne misslyckades", "{n} undersökningsämnen misslyckades")),
    "chat_offline": ("prodotto in modalità estrattiva offline, senza un modello linguistico",
                     "gemaakt in de offline extractieve modus, zonder taalmodel",
                     "gerado no modo extrativo offline, sem um modelo de linguagem",
                     "framtagen i offlineläge genom extraktion, utan språkmodell"),
    "facet_how": ("funzionamento", "werking", "funcionamento", "hur det fungerar"),
    "facet_limits": ("limiti e problemi", "beperkingen en problemen", "limitações e problemas",
                     "begränsningar och problem"),
    "facet_examples": ("esempi", "voorbeelden", "exemplos", "exempel"),
    "facet_history": ("storia", "geschiedenis", "história", "historia"),
}

# --- the words the offline model reads a question by, in the same four languages ---------------------
# Each is the counterpart of an English, German, French and Spanish table of engine.offline_text,
# engine.offline_terms, engine.offline_review, engine.language or engine.segments, which adds these.

#: Function words (articles, articulated prepositions, pronouns, conjunctions, auxiliaries and question
#: words) that carry no topic, less those that are words or names of English too (Dutch "door",
#: "over"; Swedish "man", "den", "var", "sin", "vi"; Italian "ai", "ci", "cos", "era"; Portuguese "os"):
#: :data:`engine.language.FUNCTION_WORDS`.
FUNCTION_WORDS = {
    "it": """il lo la i gli le l un una uno di del dello della dei degli delle d da dal dallo dalla dai dagli
        dalle in nel nello nella nei negli nelle con su sul sullo sulla sui sugli sulle per tra fra a al allo
        alla agli alle e ed o ma che chi cosa come dove quando perché quale quali quanto quanta quanti
        quante è sono erano essere stato stata non si ne più anche molto molti molte questo questa
        questi queste quello quella quelli quelle suo sua suoi sue loro ha hanno ho può possono deve devono
        c se sopra sotto senza verso durante contro dopo presso spesso""",
    "nl": """de het een en of maar van in op voor met naar bij uit om te tot aan dat die dit deze wat wie welke
        welk waarom wanneer waar hoe hoeveel is zijn was waren wordt worden werd kan kunnen moet moeten zal
        zullen niet geen ook nog er hij zij ze wij we jij je ik u hun haar hebben heeft had veel meer als
        dan zo al lang vaak tussen zonder tijdens sinds tegen onder boven""",
    "pt": """o a as um uma uns umas de do da dos das d em no na nos nas num numa por pelo pela pelos pelas
        para com sem e ou mas que quê qual quais quando onde como porque porquê quanto quanta quantos
        quantas é são era eram ser está estão estar não se seu sua seus suas mais muito muitos muitas
        também isso isto este esta estes estas esse essa esses essas ele ela eles elas pode podem tem têm
        há ao aos à às sobre entre desde até durante contra após""",
    "sv": """och i på av till för med om från som att det de en ett är vad hur varför när vilken vilket vilka
        kan kunde ska skulle inte jag han hon ni mer mycket också bara eller sitt sina har hade blir
        blev vara hos mot ur vid efter under än så länge ofta mellan utan över genom sedan enligt""",
}
#: Words that open a question of its own after "and" or a comma ("…, e quanto rumore fanno?"):
#: ``engine.offline_text._INTERROGATIVES``.
INTERROGATIVES = """come cosa perché quando dove quale quali quanto quanta quanti quante chi wat hoe waarom
    wanneer waar welke welk hoeveel wie waarvoor waarmee waardoor como porquê quando onde qual quais quanto
    quanta quantos quantas quem vad hur varför när vilken vilket vilka vem""".split()
#: The words of a request itself ("please explain"): ``engine.offline_text.STOPWORDS``.
REQUEST_WORDS = """spiega spiegami mostra mostrami trova rapporto leg uitleggen toon vind explique explica
    explicar mostre encontre relatório förklara visa hitta""".split()
#: Verbs that ask how rather than about what ("come funziona", "hoe werkt", "como funciona",
#: "hur fungerar"), and the light verbs of saying and of worth ("cosa dicono", "wat zegt", "loont het",
#: "vale a pena", "lönar sig"), less those that are English words or names too ("serve", "usa", "dice"):
#: :data:`engine.offline_terms.QUESTION_VERBS`.
QUESTION_VERBS = """funziona funzionano gestisce gestiscono usano usato fa fanno dicono detto vale valgono pena
    zegt zeggen zei loont lonen diz dizem disse disseram valem säger sade lönar
    confrontare confronta differisce differiscono significa werkt werken doet doen gebruikt gebruiken
    gaat maakt maken betekent verschilt verschillen vergelijken vergelijkt funciona funcionam lida lidam
    usam usado faz fazem comparar compara diferem difere significa fungerar hanterar använder används
    gör jämföra jämför skiljer betyder""".split()
#: Verbs that make a question's rest a clause: ``engine.offline_text._AUXILIARIES``.
AUXILIARIES = """è sono era erano può possono ha hanno is zijn was waren wordt worden werd kan kunnen moet
    heeft hebben é são era eram pode podem tem têm är var blir blev kan kunde ska har hade""".split()
#: Words that open a qualifier of the clause before ("…, per sviluppatori Python"):
#: ``engine.offline_text._QUALIFIER_OPENERS``.
QUALIFIER_OPENERS = "per con senza voor met zonder para com sem för med utan".split()
#: Prepositions that end a phrase a list's items share: ``engine.offline_text._PREPOSITIONS``.
PREPOSITIONS = """di del della dei delle per su in con da van voor op over met uit bij de do da dos das para
    em com por av för på om med från till""".split()
#: Snowball stems that say a question already asks about a facet: ``engine.offline_text.FACETS``.
FACET_STEMS = {
    "facet_how": ("funzion", "werk", "funger"),
    "facet_limits": ("beperk", "begräns"),
    "facet_examples": ("esemp", "voorbeel", "exempel"),
    "facet_history": ("schiedenis", "histór"),
}
#: Words a sentence opens with that refer to text before it ("Questo …", "Dit …", "Isso …",
#: "Detta …"): ``engine.offline_review._REFERENCE``.
REFERENCES = ("questo", "questa", "questi", "queste", "ciò", "dit", "deze", "dergelijke", "isso", "isto",
              "esse", "essa", "esses", "essas", "detta", "dessa", "denna", "sådan", "sådana")
#: Abbreviations that end in a full stop inside a sentence, lower-cased ("ad es.", "bijv.", "p. ex.",
#: "t.ex."): :data:`engine.segments.ABBREVIATIONS`.
ABBREVIATIONS = ("ecc.", "sig.", "dott.", "pag.", "cfr.", "bijv.", "o.a.", "d.w.z.", "m.b.t.", "blz.", "dhr.",
                 "mevr.", "ex.", "pág.", "dra.", "t.ex.", "bl.a.", "d.v.s.", "s.k.", "resp.")
