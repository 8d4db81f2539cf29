from django.apps import AppConfig


class ReviewsConfig(AppConfig):
    name = "venus_rpa.reviews"
    label = "reviews"
