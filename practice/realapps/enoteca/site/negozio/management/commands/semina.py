"""`manage.py semina`: the seeded shop (the staff user, 23 customers, 24 wines, 18 orders)."""

import datetime
from decimal import Decimal

from django.contrib.auth.models import User
from django.core.management.base import BaseCommand

from negozio.models import Cliente, Ordine, Riga, Vino

CLIENTI = [
    ("Alessandra Bianchi", "Torino"), ("Bruno Colombo", "Milano"), ("Carla Esposito", "Napoli"),
    ("Davide Ferrari", "Bologna"), ("Elena Galli", "Firenze"), ("Fabio Greco", "Bari"),
    ("Giulia Lombardi", "Milano"), ("Ivo Mancini", "Roma"), ("Laura Marino", "Torino"),
    ("Marco Moretti", "Verona"), ("Nadia Ricci", "Roma"), ("Orlando Rizzo", "Palermo"),
    ("Paola Romano", "Napoli"), ("Quirino Russo", "Genova"), ("Rita Santoro", "Bari"),
    ("Sergio Conti", "Milano"), ("Teresa De Luca", "Firenze"), ("Umberto Costa", "Genova"),
    ("Valeria Fontana", "Verona"), ("Walter Gatti", "Bologna"), ("Ylenia Barbieri", "Roma"),
    ("Zeno Caruso", "Palermo"), ("Agnese Villa", "Torino"),
]
VINI = [
    ("BRL-19", "Barolo Cannubi", "rosso", "piemonte", 2019, "48.00"),
    ("BRB-21", "Barbaresco Asili", "rosso", "piemonte", 2021, "39.50"),
    ("BAR-22", "Barbera d'Asti", "rosso", "piemonte", 2022, "12.90"),
    ("DOL-23", "Dolcetto d'Alba", "rosso", "piemonte", 2023, "10.50"),
    ("GAV-24", "Gavi di Gavi", "bianco", "piemonte", 2024, "13.80"),
    ("MOS-24", "Moscato d'Asti", "spumante", "piemonte", 2024, "11.20"),
    ("BRU-18", "Brunello di Montalcino", "rosso", "toscana", 2018, "55.00"),
    ("CHI-21", "Chianti Classico", "rosso", "toscana", 2021, "16.40"),
    ("VNO-20", "Vino Nobile di Montepulciano", "rosso", "toscana", 2020, "24.00"),
    ("VER-24", "Vernaccia di San Gimignano", "bianco", "toscana", 2024, "11.90"),
    ("BOL-22", "Bolgheri Rosso", "rosso", "toscana", 2022, "27.50"),
    ("AMA-17", "Amarone della Valpolicella", "rosso", "veneto", 2017, "52.00"),
    ("SOA-24", "Soave Classico", "bianco", "veneto", 2024, "9.80"),
    ("PRO-NV", "Prosecco Valdobbiadene", "spumante", "veneto", 2025, "13.50"),
    ("BAD-24", "Bardolino Chiaretto", "rosato", "veneto", 2024, "10.90"),
    ("NDA-22", "Nero d'Avola", "rosso", "sicilia", 2022, "11.50"),
    ("ETN-23", "Etna Rosso", "rosso", "sicilia", 2023, "21.00"),
    ("GRI-24", "Grillo", "bianco", "sicilia", 2024, "9.90"),
    ("PRM-21", "Primitivo di Manduria", "rosso", "puglia", 2021, "17.80"),
    ("NEG-22", "Negroamaro", "rosso", "puglia", 2022, "10.40"),
    ("ROS-24", "Salento Rosato", "rosato", "puglia", 2024, "9.50"),
    ("FRI-24", "Friulano", "bianco", "friuli", 2024, "14.20"),
    ("RIB-23", "Ribolla Gialla", "bianco", "friuli", 2023, "15.60"),
    ("REF-20", "Refosco dal Peduncolo", "rosso", "friuli", 2020, "16.90"),
]
STATI = ["confermato", "spedito", "bozza", "spedito", "annullato", "confermato"]


class Command(BaseCommand):
    help = "Semina il negozio di prova."

    def handle(self, *args, **options):
        User.objects.create_superuser("admin", "admin@enoteca.example", None, first_name="Gianni")
        clienti = []
        for n, (nome, citta) in enumerate(CLIENTI):
            user = nome.lower().replace(" ", ".")
            clienti.append(Cliente.objects.create(
                nome=nome, email=f"{user}@posta.example", citta=citta,
                telefono=f"+39 3{n:02d} 555 {1000 + n * 37}"[:12], attivo=n % 7 != 3,
                note="Preferisce la consegna al mattino." if n % 5 == 0 else ""))
        vini = [Vino.objects.create(codice=c, nome=nome, tipo=t, regione=r, annata=a, prezzo=Decimal(p),
                                    giacenza=(i * 7) % 40 + 3, in_catalogo=i != 9)
                for i, (c, nome, t, r, a, p) in enumerate(VINI)]
        start = datetime.date(2025, 9, 3)
        for n in range(18):
            ordine = Ordine.objects.create(cliente=clienti[(n * 5) % len(clienti)], data=start + datetime.timedelta(days=n * 11),
                                           stato=STATI[n % len(STATI)], urgente=n % 4 == 1,
                                           note="Citofono Rossi, secondo piano." if n % 3 == 0 else "")
            for k in range(1 + n % 3):
                Riga.objects.create(ordine=ordine, vino=vini[(n * 3 + k * 5) % len(vini)], quantita=1 + (n + k) % 6)
