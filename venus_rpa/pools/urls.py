from django.urls import path

from venus_rpa.pools import views

urlpatterns = [path("", views.metrics, name="metrics")]
