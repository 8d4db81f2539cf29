"""Fietsverhuur De Spaak: a Dutch bike-rental counter, server-rendered with Pyramid and Deform
(Colander schemas; Deform's own Bootstrap templates, error rendering and static files; Dutch
messages from Colander's and Deform's own translations). Records live in the server process
(restart to reset). Served by practice/realapps/fietsbalie/app.py; PORT comes from the environment."""

import html
import os
import time
from urllib.parse import urlencode

import colander
import deform
from importlib.resources import files
from pyramid.config import Configurator
from pyramid.httpexceptions import HTTPFound, HTTPNotFound
from pyramid.i18n import get_localizer
from pyramid.response import Response
from pyramid.session import SignedCookieSessionFactory
from pyramid.threadlocal import get_current_request
from waitress import serve

STATUSSEN = ["Lopend", "Teruggebracht", "Te laat"]
FIETSEN = ["Stadsfiets", "E-bike", "Bakfiets", "Tandem", "Kinderfiets"]
KLANTEN = ["Anouk de Vries", "Bram Jansen", "Carlijn Bakker", "Daan Visser", "Eva Smit", "Floris de Boer",
           "Gijs Mulder", "Hanna Bos", "Ilse Peters"]
BETALING = [("pin", "Pin"), ("contant", "Contant"), ("factuur", "Op factuur")]
DAGPRIJS = {"Stadsfiets": 12.5, "E-bike": 27.5, "Bakfiets": 35.0, "Tandem": 30.0, "Kinderfiets": 8.0}
PER_PAGINA = 6
VERHUUR = [dict(id=i + 1, nummer=f"VH-{1001 + i}", klant=KLANTEN[i % 9], telefoon=f"06-{23456780 + i * 111}",
                fiets=FIETSEN[i % 5], dagen=1 + (i * 3) % 7, status=STATUSSEN[i % 3], verzekering=i % 2 == 0,
                betaling=BETALING[i % 3][0], opmerking="") for i in range(17)]
VLOOT = {"stad": [("S-01", "Gazelle Orange", "Beschikbaar"), ("S-02", "Batavus Finez", "Verhuurd"),
                  ("S-03", "Cortina U4", "In reparatie")],
         "ebike": [("E-01", "Stromer ST1", "Beschikbaar"), ("E-02", "Sparta M8", "Beschikbaar")],
         "bak": [("B-01", "Urban Arrow", "Verhuurd"), ("B-02", "Babboe Big", "Beschikbaar")]}


HUIDIG = ' aria-current="page"'


def euro(bedrag):
    return f"€ {bedrag:.2f}".replace(".", ",")


def vertaal(term):
    return get_localizer(get_current_request()).translate(term)


deform.Form.set_default_renderer(deform.ZPTRendererFactory([str(files("deform") / "templates")], translator=vertaal))

PAGINA = """<!doctype html><html lang="nl"><head><meta charset="utf-8"><link rel="icon" href="data:,"><title>{titel} · Fietsverhuur De Spaak</title>
<link rel="stylesheet" href="/static/css/bootstrap.min.css"><link rel="stylesheet" href="/static/css/form.css">
<script src="/static/scripts/jquery-2.0.3.min.js"></script><script src="/static/scripts/bootstrap.bundle.min.js"></script>
<script src="/static/scripts/deform.js"></script></head><body>
<nav class="navbar navbar-expand navbar-dark bg-success mb-3"><div class="container">
<span class="navbar-brand">De Spaak</span><ul class="navbar-nav">
<li class="nav-item"><a class="nav-link{a_verhuur}" href="/verhuur" id="nav-verhuur">Verhuringen</a></li>
<li class="nav-item"><a class="nav-link{a_nieuw}" href="/verhuur/nieuw" id="nav-nieuw">Nieuwe verhuring</a></li>
<li class="nav-item"><a class="nav-link{a_fietsen}" href="/fietsen" id="nav-fietsen">Vloot</a></li>
<li class="nav-item"><a class="nav-link{a_tarieven}" href="/tarieven" id="nav-tarieven">Tarieven</a></li>
<li class="nav-item"><a class="nav-link{a_hulp}" href="/hulp" id="nav-hulp">Hulp</a></li></ul></div></nav>
<main class="container" id="inhoud"><h1 id="titel">{titel}</h1>{meldingen}{inhoud}</main>
<script>deform.load();</script></body></html>"""


def pagina(request, titel, inhoud, actief):
    meldingen = "".join(f'<div class="alert alert-{soort}" role="status">{html.escape(m)}</div>'
                        for queue, soort in (("succes", "success"), ("info", "info"))
                        for m in request.session.pop_flash(queue))
    actief_attr = {f"a_{k}": (" active" if k == actief else "") for k in ("verhuur", "nieuw", "fietsen", "tarieven", "hulp")}
    return Response(PAGINA.format(titel=html.escape(titel), inhoud=inhoud, meldingen=meldingen, **actief_attr))


def vind(nr):
    for v in VERHUUR:
        if v["id"] == nr:
            return v
    raise HTTPNotFound()


# ---- schemas ----

def nieuw_schema():
    def uniek(node, value):
        if any(v["nummer"] == value for v in VERHUUR):
            raise colander.Invalid(node, f"Verhuring {value} bestaat al.")

    class Nieuw(colander.MappingSchema):
        nummer = colander.SchemaNode(colander.String(), title="Verhuurnummer", oid="nummer",
                                     description="Vorm: VH-1234",
                                     validator=colander.All(colander.Regex(r"^VH-\d{4}$", "Gebruik de vorm VH-1234."), uniek),
                                     widget=deform.widget.TextInputWidget(attributes={"maxlength": 7}))
        klant = colander.SchemaNode(colander.String(), title="Naam klant", oid="klant",
                                    validator=colander.Length(2, 40, "Naam is te kort.", "Maximaal 40 tekens."),
                                    widget=deform.widget.TextInputWidget(attributes={"maxlength": 40}))
        telefoon = colander.SchemaNode(colander.String(), title="Telefoon", oid="telefoon",
                                       validator=colander.Regex(r"^06-\d{8}$", "Gebruik de vorm 06-12345678."))
        vestiging = colander.SchemaNode(colander.String(), title="Vestiging", oid="vestiging", missing="Utrecht Centraal",
                                        widget=deform.widget.TextInputWidget(attributes={"disabled": "disabled"}))
        fiets = colander.SchemaNode(colander.String(), title="Fiets", oid="fiets", default="Stadsfiets",
                                    widget=deform.widget.SelectWidget(values=[(f, f) for f in FIETSEN]),
                                    validator=colander.OneOf(FIETSEN))
        dagen = colander.SchemaNode(colander.Integer(), title="Aantal dagen", oid="dagen", default=1,
                                    validator=colander.Range(1, 14, "Minimaal 1 dag.", "Maximaal 14 dagen."),
                                    widget=deform.widget.TextInputWidget(attributes={"type": "number", "min": 1, "max": 14}))
        verzekering = colander.SchemaNode(colander.Boolean(), title="Diefstalverzekering (€ 2,50 per dag)",
                                          oid="verzekering", missing=False)
        betaling = colander.SchemaNode(colander.String(), title="Betaling", oid="betaling", default="pin",
                                       widget=deform.widget.RadioChoiceWidget(values=BETALING, inline=True),
                                       validator=colander.OneOf([b for b, _ in BETALING]))
        opmerking = colander.SchemaNode(colander.String(), title="Opmerking", oid="opmerking", missing="",
                                        validator=colander.Length(max=120, max_err="Maximaal 120 tekens."),
                                        widget=deform.widget.TextAreaWidget(rows=3, attributes={"maxlength": 120}))
    return Nieuw()


def wijzig_schema():
    class Wijzig(colander.MappingSchema):
        nummer = colander.SchemaNode(colander.String(), title="Verhuurnummer", oid="nummer", missing=colander.drop,
                                     widget=deform.widget.TextInputWidget(attributes={"readonly": "readonly"}))
        status = colander.SchemaNode(colander.String(), title="Status", oid="status",
                                     widget=deform.widget.SelectWidget(values=[(s, s) for s in STATUSSEN]),
                                     validator=colander.OneOf(STATUSSEN))
        dagen = colander.SchemaNode(colander.Integer(), title="Aantal dagen", oid="dagen",
                                    validator=colander.Range(1, 14, "Minimaal 1 dag.", "Maximaal 14 dagen."),
                                    widget=deform.widget.TextInputWidget(attributes={"type": "number", "min": 1, "max": 14}))
        verzekering = colander.SchemaNode(colander.Boolean(), title="Diefstalverzekering", oid="verzekering", missing=False)
        opmerking = colander.SchemaNode(colander.String(), title="Opmerking", oid="opmerking", missing="",
                                        validator=colander.Length(max=120, max_err="Maximaal 120 tekens."),
                                        widget=deform.widget.TextAreaWidget(rows=3, attributes={"maxlength": 120}))
        medewerker = colander.SchemaNode(colander.String(), title="Medewerker", oid="medewerker", missing=colander.drop,
                                         widget=deform.widget.TextInputWidget(attributes={"readonly": "readonly"}))
    return Wijzig()


# ---- views ----

def lijst(request):
    status, zoek, sort = request.GET.get("status", "Alle"), request.GET.get("zoek", "").strip(), request.GET.get("sort", "nummer")
    rijen = [v for v in VERHUUR if status == "Alle" or v["status"] == status]
    rijen = [v for v in rijen if zoek.lower() in v["klant"].lower()]
    sleutel = sort.lstrip("-")
    if sleutel in ("nummer", "klant", "fiets", "dagen", "status"):
        rijen = sorted(rijen, key=lambda v: v[sleutel], reverse=sort.startswith("-"))
    paginas = max(1, -(-len(rijen) // PER_PAGINA))
    try:
        nu = min(max(int(request.GET.get("pagina", 1)), 1), paginas)
    except ValueError:
        nu = 1

    def link(**kw):
        args = {"status": status, "zoek": zoek, "sort": sort, "pagina": nu, **kw}
        return "/verhuur?" + urlencode({k: v for k, v in args.items() if v not in ("", "Alle")})

    opties = "".join(f"<option{' selected' if s == status else ''}>{s}</option>" for s in ["Alle", *STATUSSEN])
    koppen = ""
    for k, naam in (("nummer", "Nummer"), ("klant", "Klant"), ("fiets", "Fiets"), ("dagen", "Dagen"), ("status", "Status")):
        pijl = " ▲" if sort == k else " ▼" if sort == "-" + k else ""
        koppen += f'<th><a href="{html.escape(link(sort=("-" + k) if sort == k else k, pagina=1))}" id="sort-{k}">{naam}</a>{pijl}</th>'
    body = "".join(
        f'<tr><td><a href="/verhuur/{v["id"]}" id="verhuur-{v["id"]}">{v["nummer"]}</a></td><td>{html.escape(v["klant"])}</td>'
        f'<td>{v["fiets"]}</td><td>{v["dagen"]}</td><td>{v["status"]}</td>'
        f'<td>{euro(v["dagen"] * DAGPRIJS[v["fiets"]])}</td></tr>'
        for v in rijen[(nu - 1) * PER_PAGINA: nu * PER_PAGINA]) or '<tr><td colspan="6" id="leeg">Geen verhuringen gevonden.</td></tr>'

    def eind(naam, tekst, doel):
        if doel is None:
            return f'<li class="page-item disabled"><span class="page-link" id="{naam}" aria-disabled="true">{tekst}</span></li>'
        return f'<li class="page-item"><a class="page-link" id="{naam}" href="{html.escape(link(pagina=doel))}">{tekst}</a></li>'

    nummers = "".join(
        f'<li class="page-item{" active" if n == nu else ""}"><a class="page-link" id="pagina-{n}" '
        f'href="{html.escape(link(pagina=n))}"{HUIDIG if n == nu else ""}>{n}</a></li>'
        for n in range(1, paginas + 1))
    inhoud = f"""<p id="uitleg">Alle verhuringen van vandaag en eerder. Klik op een nummer om de verhuring te wijzigen.</p>
<form method="get" action="/verhuur" id="filter" class="row g-2 align-items-end mb-3">
<div class="col-auto"><label for="status" class="form-label">Status</label>
<select name="status" id="status" class="form-select">{opties}</select></div>
<div class="col-auto"><label for="zoek" class="form-label">Zoek klant</label>
<input name="zoek" id="zoek" class="form-control" value="{html.escape(zoek)}" maxlength="30"></div>
<input type="hidden" name="sort" value="{html.escape(sort)}">
<div class="col-auto"><button type="submit" class="btn btn-primary" id="zoeken">Zoeken</button>
<a href="/verhuur" class="btn btn-link" id="wissen">Filter wissen</a></div></form>
<p id="aantal">{len(rijen)} verhuring(en)</p>
<table class="table table-striped" id="verhuurlijst"><thead><tr>{koppen}<th>Bedrag</th></tr></thead>
<tbody>{body}</tbody></table>
<nav aria-label="Paginering"><ul class="pagination" id="pager">{eind("vorige", "« Vorige", nu - 1 if nu > 1 else None)}
{nummers}{eind("volgende", "Volgende »", nu + 1 if nu < paginas else None)}</ul></nav>
<p id="paginatekst">Pagina {nu} van {paginas}</p>"""
    return pagina(request, "Verhuringen", inhoud, "verhuur")


def nieuw(request):
    form = deform.Form(nieuw_schema(), formid="verhuurform", buttons=(deform.Button("opslaan", "Opslaan"),))
    form.widget.attributes = {"novalidate": "novalidate"}  # the server checks every field, not the browser
    if request.method == "POST" and "opslaan" in request.POST:
        try:
            data = form.validate(request.POST.items())
        except deform.ValidationFailure as fout:
            return pagina(request, "Nieuwe verhuring", fout.render(), "nieuw")
        VERHUUR.append(dict(id=max(v["id"] for v in VERHUUR) + 1, status="Lopend", **{k: data[k] for k in (
            "nummer", "klant", "telefoon", "fiets", "dagen", "verzekering", "betaling", "opmerking")}))
        request.session.flash(f"Verhuring {data['nummer']} is opgeslagen.", "succes")
        return HTTPFound("/verhuur")
    return pagina(request, "Nieuwe verhuring", form.render({"vestiging": "Utrecht Centraal"}), "nieuw")


def wijzig(request):
    v = vind(int(request.matchdict["nr"]))
    knoppen = [deform.Button("opslaan", "Opslaan"),
               deform.Button("annuleren", "Annuleren", type="link", value="/verhuur", css_class="btn-secondary")]
    form = deform.Form(wijzig_schema(), formid="wijzigform", buttons=knoppen)
    form.widget.attributes = {"novalidate": "novalidate"}
    huidig = {k: v[k] for k in ("nummer", "status", "dagen", "verzekering", "opmerking")} | {"medewerker": "Joost (balie 2)"}
    if request.method == "POST" and "opslaan" in request.POST:
        try:
            data = form.validate(request.POST.items())
        except deform.ValidationFailure as fout:
            return pagina(request, f"Verhuring {v['nummer']}", fout.render() + verwijder_blok(v), "verhuur")
        nieuwe = {k: data[k] for k in ("status", "dagen", "verzekering", "opmerking")}
        if all(v[k] == w for k, w in nieuwe.items()):
            request.session.flash("Geen wijzigingen om op te slaan.", "info")
        else:
            v.update(nieuwe)
            request.session.flash(f"Verhuring {v['nummer']} is bijgewerkt.", "succes")
        return HTTPFound(f"/verhuur/{v['id']}")
    info = (f'<p id="samenvatting">{html.escape(v["klant"])} · {v["fiets"]} · {v["telefoon"]} · '
            f'{euro(v["dagen"] * DAGPRIJS[v["fiets"]])}</p>')
    return pagina(request, f"Verhuring {v['nummer']}", info + form.render(huidig) + verwijder_blok(v), "verhuur")


def verwijder_blok(v):
    if v["status"] != "Teruggebracht":
        return ('<p><button type="button" class="btn btn-outline-danger" id="verwijderen" disabled '
                'title="Alleen teruggebrachte verhuringen kunnen worden verwijderd">Verwijderen</button> '
                '<small class="text-muted">Alleen teruggebrachte verhuringen kunnen worden verwijderd.</small></p>')
    return f"""<p><button type="button" class="btn btn-outline-danger" id="verwijderen" data-bs-toggle="modal"
data-bs-target="#bevestig">Verwijderen</button></p>
<div class="modal fade" id="bevestig" tabindex="-1" aria-labelledby="bevestig-titel" aria-hidden="true">
<div class="modal-dialog"><div class="modal-content"><div class="modal-header">
<h2 class="modal-title fs-5" id="bevestig-titel">Verhuring verwijderen?</h2>
<button type="button" class="btn-close" data-bs-dismiss="modal" aria-label="Sluiten" id="bevestig-sluiten"></button></div>
<div class="modal-body">Verhuring {v["nummer"]} van {html.escape(v["klant"])} wordt definitief verwijderd.</div>
<div class="modal-footer"><button type="button" class="btn btn-secondary" data-bs-dismiss="modal" id="bevestig-nee">Nee, terug</button>
<form method="post" action="/verhuur/{v["id"]}/verwijderen"><button type="submit" class="btn btn-danger" id="bevestig-ja">Ja, verwijderen</button></form>
</div></div></div></div>"""


def verwijderen(request):
    v = vind(int(request.matchdict["nr"]))
    if request.method == "POST" and v["status"] == "Teruggebracht":
        VERHUUR.remove(v)
        request.session.flash(f"Verhuring {v['nummer']} is verwijderd.", "succes")
    return HTTPFound("/verhuur")


def vloot(request):
    if request.method == "POST":
        time.sleep(2)
        vrij = sum(1 for rijen in VLOOT.values() for r in rijen if r[2] == "Beschikbaar")
        request.session.flash(f"Controle voltooid: {vrij} fietsen beschikbaar.", "succes")
        return HTTPFound("/fietsen")
    tabs, panes = "", ""
    for i, (k, naam) in enumerate((("stad", "Stadsfietsen"), ("ebike", "E-bikes"), ("bak", "Bakfietsen"))):
        tabs += (f'<li class="nav-item" role="presentation"><button class="nav-link{" active" if i == 0 else ""}" id="tab-{k}" '
                 f'data-bs-toggle="tab" data-bs-target="#paneel-{k}" type="button" role="tab" '
                 f'aria-controls="paneel-{k}" aria-selected="{"true" if i == 0 else "false"}">{naam}</button></li>')
        rijen = "".join(f"<tr><td>{c}</td><td>{m}</td><td>{s}</td></tr>" for c, m, s in VLOOT[k])
        panes += (f'<div class="tab-pane fade{" show active" if i == 0 else ""}" id="paneel-{k}" role="tabpanel" '
                  f'aria-labelledby="tab-{k}"><table class="table"><thead><tr><th>Code</th><th>Model</th><th>Staat</th>'
                  f'</tr></thead><tbody>{rijen}</tbody></table></div>')
    inhoud = f"""<p>De fietsen van de vestiging Utrecht Centraal, per soort.</p>
<ul class="nav nav-tabs" id="vloottabs" role="tablist">{tabs}</ul><div class="tab-content pt-3">{panes}</div>
<form method="post" action="/fietsen" id="controleform"><button type="submit" class="btn btn-outline-primary" id="controleer"
>Beschikbaarheid controleren</button> <small class="text-muted">(duurt enkele seconden)</small></form>"""
    return pagina(request, "Vloot", inhoud, "fietsen")


def tarieven(request):
    delen = [("dag", "Dagtarieven", "".join(f"<li>{f}: {euro(p)} per dag</li>" for f, p in DAGPRIJS.items())),
             ("week", "Weekkorting", "<li>Vanaf 7 dagen: 15% korting op het totaalbedrag.</li>"),
             ("groep", "Groepen en bedrijven", "<li>Vanaf 5 fietsen: bel de balie voor een offerte.</li>")]
    acc = "".join(
        f'<div class="accordion-item"><h2 class="accordion-header"><button class="accordion-button{"" if i == 0 else " collapsed"}" '
        f'type="button" id="acc-{k}" data-bs-toggle="collapse" data-bs-target="#deel-{k}" '
        f'aria-expanded="{"true" if i == 0 else "false"}" aria-controls="deel-{k}">{t}</button></h2>'
        f'<div id="deel-{k}" class="accordion-collapse collapse{" show" if i == 0 else ""}" data-bs-parent="#tariefaccordeon">'
        f'<div class="accordion-body"><ul>{body}</ul></div></div></div>' for i, (k, t, body) in enumerate(delen))
    inhoud = f"""<p>Prijzen inclusief btw. Een verzekering kost € 2,50 per dag.</p>
<div class="accordion" id="tariefaccordeon">{acc}</div>"""
    return pagina(request, "Tarieven", inhoud, "tarieven")


HOOFDSTUKKEN = ["Een fiets uitgeven", "Borg en legitimatie", "Terugbrengen", "Schade en reparatie", "Diefstal",
                "Te laat terugbrengen", "Kassa afsluiten"]


def hulp(request):
    tekst = "Controleer bij elke verhuring het legitimatiebewijs en noteer het framenummer op de bon. " * 12
    inhoud = "".join(f'<h2 id="hoofdstuk-{i}">{i}. {t}</h2><p>{tekst}</p>' for i, t in enumerate(HOOFDSTUKKEN, 1))
    return pagina(request, "Hulp voor de balie", inhoud, "hulp")


def main():
    settings = {"pyramid.default_locale_name": "nl"}
    with Configurator(settings=settings) as config:
        config.set_session_factory(SignedCookieSessionFactory("alleen-lokaal"))
        config.add_translation_dirs("colander:locale", "deform:locale")
        config.add_static_view("static", "deform:static")
        for naam, pad, view in (("home", "/", lambda r: HTTPFound("/verhuur")), ("lijst", "/verhuur", lijst),
                                ("nieuw", "/verhuur/nieuw", nieuw), ("wijzig", "/verhuur/{nr:\\d+}", wijzig),
                                ("verwijderen", "/verhuur/{nr:\\d+}/verwijderen", verwijderen),
                                ("vloot", "/fietsen", vloot), ("tarieven", "/tarieven", tarieven), ("hulp", "/hulp", hulp)):
            config.add_route(naam, pad)
            config.add_view(view, route_name=naam)
        app = config.make_wsgi_app()
    serve(app, host="127.0.0.1", port=int(os.environ["PORT"]), threads=4, _quiet=True)


if __name__ == "__main__":
    main()
