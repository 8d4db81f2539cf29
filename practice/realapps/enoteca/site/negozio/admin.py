"""The admin of the wine shop: lists with filters, search, sorting, pagination, an editable price
list, an order form with its lines inline and a folded notes section, and two bulk actions."""

from django.contrib import admin, messages

from .models import Cliente, Ordine, Riga, Vino


@admin.register(Cliente)
class ClienteAdmin(admin.ModelAdmin):
    list_display = ("nome", "email", "citta", "telefono", "attivo")
    list_filter = ("attivo", "citta")
    search_fields = ("nome", "email")
    list_per_page = 10


@admin.register(Vino)
class VinoAdmin(admin.ModelAdmin):
    list_display = ("codice", "nome", "tipo", "annata", "prezzo", "in_catalogo")
    list_display_links = ("codice",)
    list_editable = ("prezzo", "in_catalogo")
    list_filter = ("tipo", "regione", "in_catalogo")
    search_fields = ("nome", "codice")
    list_per_page = 10
    fieldsets = (
        (None, {"fields": ("codice", "nome", ("tipo", "regione"), "annata")}),
        ("Listino e magazzino", {"fields": ("prezzo", "giacenza", "in_catalogo")}),
    )


class RigaInline(admin.TabularInline):
    model = Riga
    extra = 0


@admin.action(description="Segna come spediti gli ordini selezionati")
def segna_spediti(modeladmin, request, queryset):
    n = queryset.exclude(stato="spedito").update(stato="spedito")
    modeladmin.message_user(request, f"{n} ordini segnati come spediti.", messages.SUCCESS)


@admin.register(Ordine)
class OrdineAdmin(admin.ModelAdmin):
    list_display = ("__str__", "data", "stato", "urgente", "totale")
    list_filter = ("stato", "urgente")
    date_hierarchy = "data"
    search_fields = ("cliente__nome",)
    readonly_fields = ("totale",)
    inlines = [RigaInline]
    actions = [segna_spediti]
    fieldsets = (
        (None, {"fields": ("cliente", "data", "stato", "urgente", "totale")}),
        ("Note", {"fields": ("note",), "classes": ("collapse",)}),
    )
