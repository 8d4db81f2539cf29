"""Zábory veřejného prostranství: a Czech district office's desk for permits to occupy public space
(scaffolding, café terraces, skips, stalls), a reactive Solara app (Vuetify 2 components drawn in
the browser from the Python session over a websocket). Records live in each browser page's session
(solara.reactive values are per kernel), so a fresh page load shows the seeded records. Served by
practice/realapps/zabory/app.py with `solara run`."""

import re
import time

import solara
from reacton.ipyvue import use_event
from solara.alias import rv as v

STAVY = ["Podáno", "Schváleno", "Zamítnuto"]
UCELY = ["Lešení", "Předzahrádka", "Stavební kontejner", "Prodejní stánek", "Kulturní akce"]
PLATBY = ["Převodem", "Hotově", "Kartou"]
ZADATELE = ["Kavárna U Lípy s.r.o.", "Stavby Novák a.s.", "Jana Dvořáková", "Pekárna Letná", "Divadlo Na Výstavišti",
            "Petr Svoboda", "Květiny Holešovice", "Obnova fasád s.r.o."]
ULICE = ["Milady Horákové 12", "Dukelských hrdinů 5", "Letohradská 30", "Veletržní 48", "Janovského 9",
         "Františka Křížka 21", "Kamenická 3"]
SAZBY = {"chodnik": ("Chodník", [("Lešení", 10), ("Předzahrádka", 20), ("Prodejní stánek", 50)]),
         "vozovka": ("Vozovka", [("Stavební kontejner", 20), ("Lešení", 15)]),
         "zelen": ("Zeleň", [("Kulturní akce", 5), ("Prodejní stánek", 30)])}
FILTRY = {"Vše": "vse", "Podáno": "podano", "Schváleno": "schvaleno", "Zamítnuto": "zamitnuto"}
SLOUPCE = [("cislo", "Číslo"), ("zadatel", "Žadatel"), ("misto", "Místo"), ("ucel", "Účel"), ("plocha", "m²"),
           ("stav", "Stav")]
NA_STRANU = 5
URAD = "ÚMČ Praha 7, odbor dopravy"


def seed():
    return [dict(id=i + 1, cislo=f"ZP-{1001 + i}", zadatel=ZADATELE[i % 8], misto=ULICE[i % 7], ucel=UCELY[i % 5],
                 plocha=4 + (i * 7) % 30, dny=3 + (i * 5) % 28, stav=STAVY[i % 3], poznamka="") for i in range(14)]


zadosti = solara.reactive(seed())
zprava = solara.reactive(("", ""))  # (druh, text) shown above the list: "ok" or "info"


def ident(id_):
    return {"attributes": {"id": id_}}


def kc(castka):
    return f"{castka:,} Kč".replace(",", "\u00a0")


@solara.component
def Layout(children=[]):
    router = solara.use_router()
    with solara.Column(style={"max-width": "1100px", "margin": "0 auto", "padding": "12px 20px"}):
        with solara.Row(style={"background": "#0b4f8a", "padding": "6px 12px", "border-radius": "4px"}):
            solara.Text("Úřad MČ Praha 7 · Zábory", style={"color": "white", "font-weight": "bold",
                                                          "margin-right": "24px", "line-height": "36px"})
            for cesta, nazev, id_ in (("/", "Žádosti", "nav-zadosti"), ("/nova", "Nová žádost", "nav-nova"),
                                      ("/sazebnik", "Sazebník", "nav-sazebnik"), ("/napoveda", "Nápověda", "nav-napoveda")):
                aktivni = (router.path.rstrip("/") or "/") == cesta
                with solara.Link(cesta):
                    solara.Button(nazev, text=True, style={"color": "white", "text-decoration": "underline" if aktivni else "none"},
                                  **ident(id_))
        solara.Column(children=children)


@solara.component
def Upravit(z, zavrit):
    stav, set_stav = solara.use_state(z["stav"])
    poznamka, set_poznamka = solara.use_state(z["poznamka"])
    chyba, set_chyba = solara.use_state("")

    def ulozit():
        if len(poznamka) > 80:
            set_chyba("Poznámka může mít nejvýše 80 znaků.")
            return
        if stav == z["stav"] and poznamka == z["poznamka"]:
            zprava.set(("info", "Žádné změny k uložení."))
        else:
            zadosti.set([dict(x, stav=stav, poznamka=poznamka) if x["id"] == z["id"] else x for x in zadosti.value])
            zprava.set(("ok", f"Žádost {z['cislo']} byla uložena."))
        zavrit()

    with v.Card(attributes={"id": "upravit-dialog"}):
        v.CardTitle(children=[f"Úprava žádosti {z['cislo']}"])
        with v.CardText():
            v.TextField(label="Číslo žádosti", value=z["cislo"], readonly=True, id="upravit-cislo")
            v.TextField(label="Úřad", value=URAD, disabled=True, id="upravit-urad")
            with v.RadioGroup(label="Stav", v_model=stav, on_v_model=set_stav, row=True):
                for i, s in enumerate(STAVY):
                    v.Radio(label=s, value=s, id=f"upravit-stav-{i}")
            v.TextField(label="Poznámka (nejvýše 80 znaků)", v_model=poznamka, on_v_model=lambda t: set_poznamka(t or ""),
                        id="upravit-poznamka", attributes={"maxlength": 80}, counter=80, error_messages=[chyba] if chyba else [])
        with v.CardActions():
            solara.Button("Uložit", color="primary", on_click=ulozit, **ident("upravit-ulozit"))
            solara.Button("Zrušit", text=True, on_click=zavrit, **ident("upravit-zrusit"))


@solara.component
def Seznam():
    solara.Title("Žádosti · Zábory")
    napsano, set_napsano = solara.use_state("")
    hledat, set_hledat = solara.use_state("")
    stav, set_stav = solara.use_state("Vše")
    razeni, set_razeni = solara.use_state("cislo")
    strana, set_strana = solara.use_state(1)
    upravovana, set_upravovana = solara.use_state(None)
    mazana, set_mazana = solara.use_state(None)

    def hledej(*_):
        set_hledat(napsano.strip())
        set_strana(1)

    radky = [z for z in zadosti.value if stav == "Vše" or z["stav"] == stav]
    radky = [z for z in radky if hledat.lower() in z["zadatel"].lower()]
    klic = razeni.lstrip("-")
    radky = sorted(radky, key=lambda z: z[klic], reverse=razeni.startswith("-"))
    stran = max(1, -(-len(radky) // NA_STRANU))
    strana = min(strana, stran)

    solara.HTML("h1", "Žádosti o zábor", attributes={"id": "nadpis"})
    druh, text = zprava.value
    if druh == "ok":
        solara.Success(text, attributes={"id": "zprava"})
    elif druh == "info":
        solara.Info(text, attributes={"id": "zprava"})
    solara.Text("Přehled podaných žádostí. Tlačítkem Upravit změníte stav žádosti.")
    with solara.Row(style={"align-items": "center"}):
        pole = v.TextField(label="Hledat žadatele", v_model=napsano, on_v_model=lambda t: set_napsano(t or ""),
                           id="hledat", hide_details=True, attributes={"maxlength": 30}, style_="max-width: 320px")
        use_event(pole, "keyup.enter", hledej)
        solara.Button("Hledat", color="primary", on_click=hledej, **ident("hledat-tlacitko"))
    with solara.Row():
        solara.Text("Stav:", style={"line-height": "36px"})
        for nazev, kod in FILTRY.items():
            solara.Button(nazev, outlined=nazev != stav, color="primary",
                          on_click=lambda nazev=nazev: (set_stav(nazev), set_strana(1)), **ident("filtr-" + kod))
    solara.HTML("p", f"Nalezeno žádostí: {len(radky)}", attributes={"id": "pocet"})

    hlavicka = []
    for k, nazev in SLOUPCE:
        sipka = " ▲" if razeni == k else " ▼" if razeni == "-" + k else ""
        hlavicka.append(v.Html(tag="th", children=[solara.Button(nazev + sipka, text=True,
                                                                 on_click=lambda k=k: (set_razeni("-" + k if razeni == k else k), set_strana(1)),
                                                                 **ident(f"razeni-{k}"))]))
    hlavicka.append(v.Html(tag="th", children=["Akce"]))
    telo = []
    for z in radky[(strana - 1) * NA_STRANU: strana * NA_STRANU]:
        bunky = [v.Html(tag="td", children=[str(z[k])]) for k, _ in SLOUPCE]
        bunky.append(v.Html(tag="td", children=[
            solara.Button("Upravit", small=True, on_click=lambda z=z: set_upravovana(z["id"]), **ident(f"upravit-{z['id']}")),
            solara.Button("Smazat", small=True, text=True, color="error", disabled=z["stav"] != "Zamítnuto",
                          on_click=lambda z=z: set_mazana(z["id"]), **ident(f"smazat-{z['id']}"))]))
        telo.append(v.Html(tag="tr", children=bunky))
    if not telo:
        telo = [v.Html(tag="tr", children=[v.Html(tag="td", attributes={"colspan": "7", "id": "prazdno"},
                                                  children=["Žádné žádosti neodpovídají hledání."])])]
    v.SimpleTable(attributes={"id": "tabulka"}, children=[v.Html(tag="thead", children=[v.Html(tag="tr", children=hlavicka)]),
                                                      v.Html(tag="tbody", children=telo)])
    with solara.Row(style={"align-items": "center"}):
        solara.Button("« Předchozí", disabled=strana <= 1, on_click=lambda: set_strana(strana - 1), **ident("predchozi"))
        solara.HTML("span", f"Strana {strana} z {stran}", attributes={"id": "strana"})
        solara.Button("Další »", disabled=strana >= stran, on_click=lambda: set_strana(strana + 1), **ident("dalsi"))

    upr = next((z for z in zadosti.value if z["id"] == upravovana), None)
    with v.Dialog(v_model=upr is not None, on_v_model=lambda o: o or set_upravovana(None), max_width=560, persistent=True):
        if upr is not None:
            Upravit(upr, lambda: set_upravovana(None))
    maz = next((z for z in zadosti.value if z["id"] == mazana), None)

    def smazat():
        zadosti.set([x for x in zadosti.value if x["id"] != mazana])
        zprava.set(("ok", f"Žádost {maz['cislo']} byla smazána."))
        set_mazana(None)

    with v.Dialog(v_model=maz is not None, on_v_model=lambda o: o or set_mazana(None), max_width=460):
        if maz is not None:
            with v.Card(attributes={"id": "potvrdit-dialog"}):
                v.CardTitle(children=["Smazat žádost?"])
                v.CardText(children=[f"Žádost {maz['cislo']} ({maz['zadatel']}) bude trvale smazána."])
                with v.CardActions():
                    solara.Button("Ano, smazat", color="error", on_click=smazat, **ident("potvrdit-ano"))
                    solara.Button("Ne", text=True, on_click=lambda: set_mazana(None), **ident("potvrdit-ne"))


PRAZDNY = dict(cislo="", zadatel="", ico="", misto="", ucel="Lešení", plocha="", dny="7", chodnik=False, platba="Převodem")


@solara.component
def Nova():
    solara.Title("Nová žádost · Zábory")
    data, set_data = solara.use_state(PRAZDNY)
    chyby, set_chyby = solara.use_state({})
    hlaseni, set_hlaseni = solara.use_state("")

    def pole(klic):
        return dict(v_model=data[klic], on_v_model=lambda h: set_data(dict(data, **{klic: h if h is not None else ""})),
                    id=klic, error_messages=[chyby[klic]] if klic in chyby else [])

    def podat():
        ch = {}
        for klic, text in (("cislo", "Zadejte podací číslo."), ("zadatel", "Zadejte žadatele."), ("misto", "Zadejte místo záboru."),
                           ("plocha", "Zadejte plochu."), ("dny", "Zadejte počet dní.")):
            if not str(data[klic]).strip():
                ch[klic] = text
        if "cislo" not in ch and not re.fullmatch(r"ZP-\d{4}", data["cislo"].strip()):
            ch["cislo"] = "Podací číslo má tvar ZP-1234."
        elif "cislo" not in ch and any(z["cislo"] == data["cislo"].strip() for z in zadosti.value):
            ch["cislo"] = f"Žádost {data['cislo'].strip()} už je zaevidována."
        if data["ico"].strip() and not re.fullmatch(r"\d{8}", data["ico"].strip()):
            ch["ico"] = "IČO má 8 číslic."
        for klic, nejvic, text in (("plocha", 200, "Plocha musí být 1 až 200 m²."), ("dny", 90, "Počet dní musí být 1 až 90.")):
            if klic not in ch and not (str(data[klic]).strip().isdigit() and 1 <= int(data[klic]) <= nejvic):
                ch[klic] = text
        set_chyby(ch)
        if ch:
            set_hlaseni("")
            return
        nove = dict(id=max([z["id"] for z in zadosti.value] + [0]) + 1, cislo=data["cislo"].strip(),
                    zadatel=data["zadatel"].strip(), misto=data["misto"].strip(), ucel=data["ucel"],
                    plocha=int(data["plocha"]), dny=int(data["dny"]), stav="Podáno", poznamka="")
        zadosti.set([*zadosti.value, nove])
        set_hlaseni(f"Žádost {nove['cislo']} byla zaevidována.")
        set_data(PRAZDNY)

    solara.HTML("h1", "Nová žádost o zábor", attributes={"id": "nadpis"})
    if hlaseni:
        solara.Success(hlaseni, attributes={"id": "zprava"})
    if chyby:
        solara.Error("Formulář obsahuje chyby, opravte vyznačená pole.", attributes={"id": "chyby"})
    with solara.Card():
        v.TextField(label="Podací číslo (ZP-1234)", attributes={"maxlength": 7}, **pole("cislo"))
        v.TextField(label="Žadatel", attributes={"maxlength": 40}, counter=40, **pole("zadatel"))
        v.TextField(label="IČO (nepovinné)", attributes={"maxlength": 8}, **pole("ico"))
        v.TextField(label="Místo záboru", attributes={"maxlength": 60}, **pole("misto"))
        v.Html(tag="div", attributes={"id": "ucel-vyber"}, children=[v.Select(label="Účel", items=UCELY, **pole("ucel"))])
        with solara.Row():
            v.TextField(label="Plocha (m²)", type="number", **pole("plocha"))
            v.TextField(label="Počet dní", type="number", **pole("dny"))
        v.Checkbox(label="Zábor chodníku (nutné vyjádření policie)", v_model=data["chodnik"],
                   on_v_model=lambda h: set_data(dict(data, chodnik=bool(h))), id="chodnik")
        with v.RadioGroup(label="Platba poplatku", v_model=data["platba"], row=True,
                          on_v_model=lambda h: set_data(dict(data, platba=h))):
            for i, p in enumerate(PLATBY):
                v.Radio(label=p, value=p, id=f"platba-{i}")
        v.TextField(label="Příslušný úřad", value=URAD, disabled=True, id="urad")
        with solara.Row():
            solara.Button("Podat žádost", color="primary", on_click=podat, **ident("podat"))
            solara.Button("Vyčistit formulář", text=True,
                          on_click=lambda: (set_data(PRAZDNY), set_chyby({}), set_hlaseni("")), **ident("vycistit"))


@solara.lab.task
def vypocet(plocha: int, dny: int, sazba: int):
    time.sleep(2)
    return plocha * dny * sazba


@solara.component
def Sazebnik():
    solara.Title("Sazebník · Zábory")
    tab, set_tab = solara.use_state(0)
    plocha, set_plocha = solara.use_state("10")
    dny, set_dny = solara.use_state("7")
    solara.HTML("h1", "Sazebník poplatků", attributes={"id": "nadpis"})
    solara.Text("Poplatek za zábor se počítá za každý započatý m² a den.")
    with v.Tabs(v_model=tab, on_v_model=set_tab, attributes={"id": "zalozky"}):
        for kod, (nazev, _) in SAZBY.items():
            v.Tab(children=[nazev], attributes={"id": f"tab-{kod}"})
    kod = list(SAZBY)[tab or 0]
    nazev, sazby = SAZBY[kod]
    v.SimpleTable(attributes={"id": f"sazby-{kod}"}, children=[
        v.Html(tag="thead", children=[v.Html(tag="tr", children=[v.Html(tag="th", children=["Účel"]),
                                                                 v.Html(tag="th", children=["Kč za m² a den"])])]),
        v.Html(tag="tbody", children=[v.Html(tag="tr", children=[v.Html(tag="td", children=[u]),
                                                                 v.Html(tag="td", children=[str(s)])]) for u, s in sazby])])
    solara.HTML("h2", "Podmínky")
    with v.ExpansionPanels(attributes={"id": "podminky"}):
        for kod_p, titulek, text in (("slevy", "Slevy", "Spolky a školy platí polovinu sazby."),
                                     ("osvobozeni", "Osvobození od poplatku", "Akce pořádané městskou částí jsou osvobozeny."),
                                     ("splatnost", "Splatnost", "Poplatek je splatný nejpozději v den zahájení záboru.")):
            with v.ExpansionPanel():
                v.ExpansionPanelHeader(children=[titulek], attributes={"id": f"panel-{kod_p}"})
                v.ExpansionPanelContent(children=[text])
    solara.HTML("h2", "Výpočet poplatku")
    with solara.Row(style={"align-items": "center"}):
        v.TextField(label="Plocha (m²)", type="number", v_model=plocha, on_v_model=lambda h: set_plocha(h or ""),
                    id="kalk-plocha", style_="max-width: 160px")
        v.TextField(label="Počet dní", type="number", v_model=dny, on_v_model=lambda h: set_dny(h or ""),
                    id="kalk-dny", style_="max-width: 160px")

        def spocitat():
            if plocha.isdigit() and dny.isdigit():
                vypocet(int(plocha), int(dny), sazby[0][1])

        solara.Button("Spočítat poplatek", color="primary", on_click=spocitat, disabled=vypocet.pending,
                      **ident("spocitat"))
    if vypocet.pending:
        solara.HTML("p", "Počítám poplatek…", attributes={"id": "vysledek"})
        solara.ProgressLinear(True)
    elif vypocet.finished and vypocet.value is not None:
        solara.HTML("p", f"Poplatek ({nazev}, {sazby[0][0]}): {kc(vypocet.value)}", attributes={"id": "vysledek"})


KAPITOLY = ["Podání žádosti", "Posouzení a lhůty", "Vyjádření policie", "Platba poplatku", "Zábor chodníku",
            "Kontrola na místě", "Ukončení záboru"]


@solara.component
def Napoveda():
    solara.Title("Nápověda · Zábory")
    solara.HTML("h1", "Nápověda pro podatelnu", attributes={"id": "nadpis"})
    odstavec = "Žádost se podává nejméně deset dní před zahájením záboru a úředník ji zapíše do evidence. " * 12
    for i, k in enumerate(KAPITOLY, 1):
        solara.HTML("h2", f"{i}. {k}", attributes={"id": f"kapitola-{i}"})
        solara.HTML("p", odstavec)


routes = [
    solara.Route(path="/", component=Seznam, label="Žádosti", layout=Layout),
    solara.Route(path="nova", component=Nova, label="Nová žádost"),
    solara.Route(path="sazebnik", component=Sazebnik, label="Sazebník"),
    solara.Route(path="napoveda", component=Napoveda, label="Nápověda"),
]
