"""Lånedisken: a Swedish city library's loans desk written with Gradio's ordinary components. Each
browser session gets its own copy of the seeded loans and borrowers (gr.State). Served by
practice/realapps/lanedisk/app.py; PORT comes from the environment."""

import os
import time

import gradio as gr

BOCKER = ["Pippi Långstrump", "Röda rummet", "Utvandrarna", "Doktor Glas", "Gösta Berlings saga",
          "Hemsöborna", "Mio, min Mio", "Bröderna Lejonhjärta", "Kallocain", "Aniara",
          "Nils Holgerssons underbara resa", "Populärmusik från Vittula", "Din stund på jorden",
          "Hundraåringen som klev ut genom fönstret", "Män som hatar kvinnor", "Vi på Saltkråkan",
          "Ronja rövardotter", "Det blåser på månen", "Pojken i randig pyjamas", "Svinalängorna",
          "Händelser vid vatten", "Egenmäktigt förfarande"]
LANTAGARE = [("1001", "Astrid Berg"), ("1002", "Johan Lund"), ("1003", "Maja Holm"), ("1004", "Erik Sjöberg"),
             ("1005", "Sara Nyström"), ("1006", "Olle Dahl"), ("1007", "Lena Forsberg")]
STATUSAR = ["Alla", "Utlånad", "Försenad", "Återlämnad"]
PER_SIDA = 6
HEAD = ["Lån", "Titel", "Låntagare", "Förfallodag", "Status"]


def seed_loans():
    rows = []
    for i in range(17):
        status = ["Utlånad", "Försenad", "Återlämnad"][i % 3] if i % 4 else "Utlånad"
        rows.append([f"L-{301 + i}", BOCKER[i], LANTAGARE[i % 7][1], f"2026-12-{(i * 3) % 27 + 1:02d}", status])
    return rows


def visible(loans, status, query, only_late):
    rows = [r for r in loans if status in (None, "Alla") or r[4] == status]
    if only_late:
        rows = [r for r in rows if r[4] == "Försenad"]
    if query and query.strip():
        rows = [r for r in rows if query.strip().lower() in r[1].lower()]
    return rows


def page_view(loans, status, query, only_late, page):
    rows = visible(loans, status, query, only_late)
    pages = max(1, -(-len(rows) // PER_SIDA))
    page = min(max(page, 1), pages)
    chunk = rows[(page - 1) * PER_SIDA: page * PER_SIDA]
    return (chunk or [["", "Inga lån", "", "", ""]], f"Sida {page} av {pages} · {len(rows)} lån", page,
            gr.update(interactive=page > 1))


with gr.Blocks(title="Lånedisken") as demo:
    loans = gr.State(seed_loans())
    people = gr.State(list(LANTAGARE))
    sida = gr.State(1)
    gr.Markdown("# Lånedisken · Stadsbiblioteket", elem_id="rubrik")
    with gr.Tabs(elem_id="flikar") as tabs:
        with gr.Tab("Utlån", id="utlan", elem_id="flik_utlan"):
            gr.Markdown("Alla aktuella och avslutade lån. Filtrera på status eller sök på titel.", elem_id="ingress")
            with gr.Row():
                status = gr.Dropdown(STATUSAR, value="Alla", label="Status", elem_id="status")
                sok = gr.Textbox(label="Sök titel", placeholder="t.ex. Aniara", elem_id="sok")
                bara = gr.Checkbox(label="Endast försenade", elem_id="bara_forsenade")
            tabell = gr.Dataframe(headers=HEAD, value=seed_loans()[:PER_SIDA], interactive=False, elem_id="tabell")
            with gr.Row():
                forra = gr.Button("« Föregående", interactive=False, elem_id="forra")
                sidinfo = gr.Markdown("Sida 1 av 3 · 17 lån", elem_id="sidinfo")
                nasta = gr.Button("Nästa »", elem_id="nasta")
            with gr.Row():
                lan_nr = gr.Textbox(label="Lånenummer att återlämna", placeholder="L-301", elem_id="lan_nr")
                aterlamna = gr.Button("Återlämna", variant="primary", elem_id="aterlamna")

        with gr.Tab("Nytt lån", id="nytt", elem_id="flik_nytt"):
            with gr.Row():
                kort = gr.Textbox(label="Lånekortsnummer", max_length=4, elem_id="kort")
                bok = gr.Dropdown(BOCKER, label="Titel", value=None, elem_id="bok")
            with gr.Row():
                dagar = gr.Number(label="Lånetid (dagar, 1–60)", value=28, precision=0, elem_id="dagar")
                handl = gr.Textbox(label="Handläggare", value="Kerstin Ek", interactive=False, elem_id="handlaggare")
            typ = gr.Radio(["Bok", "Ljudbok", "E-bok"], value="Bok", label="Medietyp", elem_id="typ")
            with gr.Row():
                registrera = gr.Button("Registrera lån", variant="primary", elem_id="registrera")
                kvitto = gr.Button("Skriv ut kvitto", interactive=False, elem_id="kvitto")
            kvittens = gr.Markdown("", elem_id="kvittens")

        with gr.Tab("Låntagare", id="lantagare", elem_id="flik_lantagare"):
            folk = gr.Dataframe(headers=["Kortnummer", "Namn"], value=[list(p) for p in LANTAGARE],
                                interactive=False, elem_id="folk")
            with gr.Accordion("Ny låntagare", open=False, elem_id="ny_lantagare"):
                nytt_kort = gr.Textbox(label="Kortnummer", elem_id="nytt_kort")
                nytt_namn = gr.Textbox(label="Namn", elem_id="nytt_namn")
                spara = gr.Button("Spara låntagare", variant="primary", elem_id="spara")

        with gr.Tab("Rapport", id="rapport", elem_id="flik_rapport"):
            period = gr.Radio(["Vecka", "Månad", "År"], value="Månad", label="Period", elem_id="period")
            avgift = gr.Slider(0, 20, value=5, step=1, label="Förseningsavgift per dag (kr)", elem_id="avgift")
            skapa = gr.Button("Skapa rapport", elem_id="report_button")
            rapport = gr.Markdown("Ingen rapport skapad ännu.", elem_id="rapporttext")

        with gr.Tab("Hjälp", id="hjalp", elem_id="flik_hjalp"):
            gr.Markdown("\n\n".join(
                f"## {i}. {rubrik}\n\n" + ("Lånedisken används av personalen vid informationsdisken. " * 12)
                for i, rubrik in enumerate(["Utlån", "Återlämning", "Förseningar", "Reservationer", "Fjärrlån",
                                            "Låntagare", "Rapporter", "Kvitton"], 1)), elem_id="hjalptext")
            with gr.Accordion("Kontakt med IT-support", open=False, elem_id="kontakt"):
                gr.Markdown("Ring 08-123 45 67 eller skriv till it@stadsbiblioteket.example.", elem_id="kontakttext")

    def filt(loans, status, query, only_late):
        return page_view(loans, status, query, only_late, 1)

    outs = [tabell, sidinfo, sida, forra]
    for ev in (status.change, bara.change, sok.submit):
        ev(filt, [loans, status, sok, bara], outs)
    nasta.click(lambda l, s, q, o, p: page_view(l, s, q, o, p + 1), [loans, status, sok, bara, sida], outs)
    forra.click(lambda l, s, q, o, p: page_view(l, s, q, o, p - 1), [loans, status, sok, bara, sida], outs)

    def return_loan(loans, nr, status, query, only_late, page):
        nr = (nr or "").strip().upper()
        match = [r for r in loans if r[0] == nr]
        if not match:
            raise gr.Error(f"Det finns inget lån med nummer {nr or '(tomt)'}.")
        if match[0][4] == "Återlämnad":
            raise gr.Error(f"Lån {nr} är redan återlämnat.")
        match[0][4] = "Återlämnad"
        gr.Info(f"Lån {nr} är återlämnat.")
        return (loans, "", *page_view(loans, status, query, only_late, page))

    aterlamna.click(return_loan, [loans, lan_nr, status, sok, bara, sida], [loans, lan_nr, *outs])

    def register(loans, people, card, title, days, medium, status, query, only_late, page):
        card = (card or "").strip()
        if not card:
            raise gr.Error("Ange lånekortsnummer.")
        names = dict(people)
        if card not in names:
            raise gr.Error(f"Lånekort {card} finns inte.")
        if not title:
            raise gr.Error("Välj en titel.")
        if days is None or not 1 <= days <= 60:
            raise gr.Error("Lånetiden måste vara 1–60 dagar.")
        if any(r[1] == title and r[4] != "Återlämnad" for r in loans):
            raise gr.Error(f"”{title}” är redan utlånad.")
        nr = f"L-{301 + len(loans)}"
        loans = loans + [[nr, title, names[card], f"2027-01-{int(days) % 28 + 1:02d}", "Utlånad"]]
        gr.Info(f"Lån {nr} registrerat.")
        return (loans, "", None, f"Senaste lån: **{nr}** – {title} ({medium.lower()}) till {names[card]}.",
                *page_view(loans, status, query, only_late, page))

    registrera.click(register, [loans, people, kort, bok, dagar, typ, status, sok, bara, sida],
                     [loans, kort, bok, kvittens, *outs])

    def add_person(people, card, name):
        card, name = (card or "").strip(), (name or "").strip()
        if not card.isdigit() or len(card) != 4:
            raise gr.Error("Kortnumret ska vara fyra siffror.")
        if not name:
            raise gr.Error("Ange namn.")
        if card in dict(people):
            raise gr.Error(f"Kortnummer {card} används redan.")
        people = people + [(card, name)]
        gr.Info(f"{name} är tillagd.")
        return people, [list(p) for p in people], "", ""

    spara.click(add_person, [people, nytt_kort, nytt_namn], [people, folk, nytt_kort, nytt_namn])

    def report(loans, period, fee):
        time.sleep(3)
        late = sum(r[4] == "Försenad" for r in loans)
        return (f"### Rapport per {period.lower()}\n\nUtlånade: {sum(r[4] == 'Utlånad' for r in loans)} · "
                f"Försenade: {late} · Återlämnade: {sum(r[4] == 'Återlämnad' for r in loans)} · "
                f"Avgifter: {late * fee * 7} kr")

    skapa.click(report, [loans, period, avgift], rapport)

demo.launch(server_name="127.0.0.1", server_port=int(os.environ["PORT"]), ssr_mode=False, show_error=True, css="footer {display: none !important}",
            theme=gr.themes.Default(font=["system-ui", "sans-serif"], font_mono=["monospace"]))
