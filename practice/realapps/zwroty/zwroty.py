"""Dział zwrotów: a Polish warehouse's returns desk, server-rendered with Flask and WTForms. Records
live in the server process (restart to reset). Served by practice/realapps/zwroty/app.py; PORT comes
from the environment."""

import os

from flask import Flask, flash, redirect, render_template_string, request, url_for
from wtforms import BooleanField, DecimalField, Form, SelectField, StringField, TextAreaField
from wtforms.validators import DataRequired, Length, NumberRange, Regexp

app = Flask(__name__)
app.secret_key = "tylko-lokalnie"
STATUSY = ["Nowy", "W weryfikacji", "Przyjęty", "Odrzucony"]
POWODY = ["Uszkodzony", "Niezgodny z opisem", "Zła ilość", "Rezygnacja"]
KLIENCI = ["Hurtownia Wisła", "Sklep Bałtyk", "Biuro Tatry", "Drukarnia Odra", "Apteka Mazowsze"]
NA_STRONIE = 5
ZWROTY = [dict(id=i + 1, zamowienie=f"ZAM-{4100 + i * 7}", klient=KLIENCI[i % 5], powod=POWODY[i % 4],
               kwota=round(120 + i * 37.5, 2), status=STATUSY[i % 4], pilne=i % 3 == 0) for i in range(13)]

PAGE = """<!doctype html><html lang="pl"><head><meta charset="utf-8"><title>{{ title }} · Dział zwrotów</title>
<style>body{font-family:sans-serif;margin:0}nav{background:#234;padding:10px 20px}nav a{color:#fff;margin-right:18px}
main{padding:16px 24px}table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:6px 10px}
.blad{color:#b00}.flash{background:#dfd;padding:8px;border:1px solid #8c8}.pager span,.pager a{margin-right:14px}
label{display:inline-block;min-width:170px}p.pole{margin:10px 0}button[disabled]{opacity:.5}</style></head><body>
<nav><a href="/zwroty" id="nav-zwroty">Zwroty</a><a href="/zwroty/nowy" id="nav-nowy">Nowy zwrot</a>
<a href="/pomoc" id="nav-pomoc">Pomoc</a></nav><main>
<h1 id="tytul">{{ title }}</h1>
{% for m in get_flashed_messages() %}<p class="flash" role="status">{{ m }}</p>{% endfor %}
{{ body|safe }}</main></body></html>"""

LISTA = """<p id="opis">Zwroty zgłoszone przez klientów hurtowych. Kliknij numer, aby zmienić status.</p>
<form method="get" id="filtr"><label for="status">Status</label><select name="status" id="status">
{% for s in ['Wszystkie'] + statusy %}<option {{ 'selected' if s == status }}>{{ s }}</option>{% endfor %}</select>
<label for="q" style="min-width:0;margin-left:12px">Klient</label><input name="q" id="q" value="{{ q }}">
<input type="hidden" name="sort" value="{{ sort }}"><button type="submit" id="filtruj">Filtruj</button></form>
<table id="lista"><thead><tr>{% for k, n in cols %}<th><a href="{{ link(sort=k, strona=1) }}" id="sort-{{ k }}">{{ n }}</a>
{{ '▲' if sort == k else '▼' if sort == '-' + k else '' }}</th>{% endfor %}<th>Pilne</th></tr></thead><tbody>
{% for z in rows %}<tr><td><a href="/zwroty/{{ z.id }}">{{ z.zamowienie }}</a></td><td>{{ z.klient }}</td>
<td>{{ z.powod }}</td><td>{{ '%.2f'|format(z.kwota) }} zł</td><td>{{ z.status }}</td><td>{{ 'tak' if z.pilne }}</td></tr>
{% else %}<tr><td colspan="6">Brak zwrotów.</td></tr>{% endfor %}</tbody></table>
<p class="pager" id="pager">{% if strona > 1 %}<a href="{{ link(strona=strona - 1) }}" id="poprzednia">« Poprzednia</a>
{% else %}<span id="poprzednia" class="wylaczony">« Poprzednia</span>{% endif %}
<span id="ktora">Strona {{ strona }} z {{ stron }}</span>
{% for n in range(1, stron + 1) %}<a href="{{ link(strona=n) }}" id="strona-{{ n }}">{{ n }}</a>{% endfor %}
{% if strona < stron %}<a href="{{ link(strona=strona + 1) }}" id="nastepna">Następna »</a>
{% else %}<span id="nastepna" class="wylaczony">Następna »</span>{% endif %}</p>"""

FORM = """<form method="post" id="formularz" novalidate>{% for f in form %}<p class="pole">{{ f.label }} {{ f(**extra.get(f.name, {})) }}
{% for e in f.errors %}<span class="blad">{{ e }}</span>{% endfor %}</p>{% endfor %}
<button type="submit" id="zapisz">{{ submit }}</button> {% if delete %}<button type="button" id="usun" disabled
 title="Zamkniętych zwrotów nie można usunąć">Usuń</button>{% endif %}</form>"""

POMOC = "".join(f"<h2>{i}. {t}</h2>" + "<p>" + "Zwrot przyjmuje magazynier zmiany po sprawdzeniu towaru. " * 14 + "</p>"
                for i, t in enumerate(["Przyjęcie zwrotu", "Weryfikacja", "Korekta faktury", "Odrzucenie",
                                       "Zwroty pilne", "Raporty", "Archiwum"], 1))


class NowyZwrot(Form):
    zamowienie = StringField("Numer zamówienia", [DataRequired("Podaj numer zamówienia."),
                                                  Regexp(r"^ZAM-\d{4}$", message="Format: ZAM-1234.")])
    klient = SelectField("Klient", choices=KLIENCI)
    powod = SelectField("Powód", choices=POWODY)
    kwota = DecimalField("Kwota (zł)", [DataRequired("Podaj kwotę."), NumberRange(0.01, 10000, "Kwota od 0,01 do 10 000 zł.")])
    pilne = BooleanField("Pilne")
    uwagi = TextAreaField("Uwagi", [Length(max=40)])


class ZmianaStatusu(Form):
    status = SelectField("Status", choices=STATUSY)
    uwagi = StringField("Uwagi")
    magazynier = StringField("Magazynier")


@app.route("/")
def index():
    return redirect("/zwroty")


@app.route("/zwroty")
def lista():
    status, q, sort = request.args.get("status", "Wszystkie"), request.args.get("q", ""), request.args.get("sort", "")
    rows = [z for z in ZWROTY if status == "Wszystkie" or z["status"] == status]
    rows = [z for z in rows if q.lower() in z["klient"].lower()]
    if sort.lstrip("-") in ("zamowienie", "klient", "powod", "kwota", "status"):
        rows = sorted(rows, key=lambda z: z[sort.lstrip("-")], reverse=sort.startswith("-"))
    stron = max(1, -(-len(rows) // NA_STRONIE))
    strona = min(max(request.args.get("strona", 1, type=int), 1), stron)

    def link(**kw):
        args = {"status": status, "q": q, "sort": sort, "strona": strona, **kw}
        if kw.get("sort") == sort and sort:
            args["sort"] = "-" + sort
        return url_for("lista", **{k: v for k, v in args.items() if v not in ("", "Wszystkie")})

    body = render_template_string(LISTA, rows=rows[(strona - 1) * NA_STRONIE: strona * NA_STRONIE], statusy=STATUSY,
                                  status=status, q=q, sort=sort, strona=strona, stron=stron, link=link,
                                  cols=[("zamowienie", "Zamówienie"), ("klient", "Klient"), ("powod", "Powód"),
                                        ("kwota", "Kwota"), ("status", "Status")])
    return render_template_string(PAGE, title="Zwroty", body=body)


@app.route("/zwroty/nowy", methods=["GET", "POST"])
def nowy():
    form = NowyZwrot(request.form)
    if request.method == "POST" and form.validate():
        if any(z["zamowienie"] == form.zamowienie.data for z in ZWROTY):
            form.zamowienie.errors = [f"Zwrot dla {form.zamowienie.data} już istnieje."]
        else:
            ZWROTY.append(dict(id=len(ZWROTY) + 1, zamowienie=form.zamowienie.data, klient=form.klient.data,
                               powod=form.powod.data, kwota=float(form.kwota.data), status="Nowy",
                               pilne=form.pilne.data))
            flash(f"Zarejestrowano zwrot {form.zamowienie.data}.")
            return redirect("/zwroty")
    body = render_template_string(FORM, form=form, submit="Zarejestruj zwrot", delete=False,
                                  extra={"uwagi": {"maxlength": 40, "rows": 3}})
    return render_template_string(PAGE, title="Nowy zwrot", body=body)


@app.route("/zwroty/<int:nr>", methods=["GET", "POST"])
def zwrot(nr):
    z = next(z for z in ZWROTY if z["id"] == nr)
    form = ZmianaStatusu(request.form, data={"status": z["status"], "uwagi": z.get("uwagi", ""), "magazynier": "J. Kowalczyk"})
    if request.method == "POST" and form.validate():
        if form.status.data == z["status"] and form.uwagi.data == z.get("uwagi", ""):
            flash("Brak zmian do zapisania.")
        else:
            z["status"], z["uwagi"] = form.status.data, form.uwagi.data
            flash(f"Zapisano zwrot {z['zamowienie']}.")
        return redirect(f"/zwroty/{nr}")
    body = (f"<p id='dane'>{z['klient']} · {z['powod']} · {z['kwota']:.2f} zł</p>"
            + render_template_string(FORM, form=form, submit="Zapisz", delete=z["status"] in ("Przyjęty", "Odrzucony"),
                                     extra={"magazynier": {"readonly": True}}))
    return render_template_string(PAGE, title=f"Zwrot {z['zamowienie']}", body=body)


@app.route("/pomoc")
def pomoc():
    return render_template_string(PAGE, title="Pomoc", body=POMOC)


if __name__ == "__main__":
    app.run(host="127.0.0.1", port=int(os.environ["PORT"]), threaded=True)
