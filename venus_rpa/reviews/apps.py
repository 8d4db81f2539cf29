from django.apps import AppConfig


class ReviewsConfig(AppConfig):
    name = "venus_rpa.reviews"
    label = "reviews"

    def ready(self) -> None:
        # The run side reaches the review queue only through what is registered here.
        from venus_rpa.reviews.ports import DjangoReviewPort
        from venus_rpa.reviews.receivers import cancel_pending_reviews
        from venus_rpa.runs.ports import review_port_register
        from venus_rpa.runs.signals import run_finished

        review_port_register(DjangoReviewPort())
        run_finished.connect(cancel_pending_reviews, dispatch_uid="reviews.cancel_pending_reviews")
