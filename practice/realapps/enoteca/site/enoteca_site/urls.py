from django.contrib import admin
from django.urls import path

admin.site.site_header = "Enoteca Bacco — gestione"
admin.site.site_title = "Enoteca Bacco"
admin.site.index_title = "Amministrazione del negozio"

urlpatterns = [path("admin/", admin.site.urls)]
