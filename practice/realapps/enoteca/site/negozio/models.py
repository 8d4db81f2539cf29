"""The wine shop's records: customers, wines, orders and their lines."""

from decimal import Decimal

from django.core.validators import MaxValueValidator, MinValueValidator, RegexValidator
from django.db import models

TIPI = [("rosso", "Rosso"), ("bianco", "Bianco"), ("rosato", "Rosato"), ("spumante", "Spumante")]
REGIONI = [("piemonte", "Piemonte"), ("toscana", "Toscana"), ("veneto", "Veneto"), ("sicilia", "Sicilia"),
           ("puglia", "Puglia"), ("friuli", "Friuli Venezia Giulia")]
STATI = [("bozza", "Bozza"), ("confermato", "Confermato"), ("spedito", "Spedito"), ("annullato", "Annullato")]


class Cliente(models.Model):
    nome = models.CharField("nome", max_length=80)
    email = models.EmailField("email", unique=True)
    citta = models.CharField("città", max_length=40)
    telefono = models.CharField("telefono", max_length=12, blank=True,
                                validators=[RegexValidator(r"^\+?[0-9 ]+$", "Solo cifre e spazi.")])
    attivo = models.BooleanField("attivo", default=True)
    note = models.TextField("note", blank=True)

    class Meta:
        verbose_name, verbose_name_plural, ordering = "cliente", "clienti", ["nome"]

    def __str__(self):
        return self.nome


class Vino(models.Model):
    codice = models.CharField("codice", max_length=8, unique=True, help_text="Otto caratteri al massimo, es. BRL-19.")
    nome = models.CharField("nome", max_length=80)
    tipo = models.CharField("tipo", max_length=10, choices=TIPI)
    regione = models.CharField("regione", max_length=10, choices=REGIONI)
    annata = models.PositiveSmallIntegerField("annata", validators=[MinValueValidator(1950), MaxValueValidator(2026)])
    prezzo = models.DecimalField("prezzo (€)", max_digits=7, decimal_places=2,
                                 validators=[MinValueValidator(Decimal("0.50"))])
    giacenza = models.PositiveIntegerField("giacenza", default=0)
    in_catalogo = models.BooleanField("in catalogo", default=True,
                                      help_text="Tolga la spunta per nasconderlo dal listino.")

    class Meta:
        verbose_name, verbose_name_plural, ordering = "vino", "vini", ["codice"]

    def __str__(self):
        return f"{self.nome} {self.annata}"


class Ordine(models.Model):
    cliente = models.ForeignKey(Cliente, on_delete=models.PROTECT, verbose_name="cliente")
    data = models.DateField("data")
    stato = models.CharField("stato", max_length=10, choices=STATI, default="bozza")
    urgente = models.BooleanField("consegna urgente", default=False)
    note = models.TextField("note per il corriere", blank=True)

    class Meta:
        verbose_name, verbose_name_plural, ordering = "ordine", "ordini", ["-data", "-id"]

    def __str__(self):
        return f"Ordine {self.pk} — {self.cliente}"

    def totale(self):
        return sum((r.quantita * r.vino.prezzo for r in self.righe.all()), Decimal("0"))
    totale.short_description = "totale (€)"


class Riga(models.Model):
    ordine = models.ForeignKey(Ordine, on_delete=models.CASCADE, related_name="righe")
    vino = models.ForeignKey(Vino, on_delete=models.PROTECT, verbose_name="vino")
    quantita = models.PositiveSmallIntegerField("quantità", validators=[MinValueValidator(1)])

    class Meta:
        verbose_name, verbose_name_plural = "riga d'ordine", "righe d'ordine"
