from django.apps import AppConfig


class NotificationsConfig(AppConfig):
    name = "venus_rpa.notifications"
    label = "notifications"

    def ready(self) -> None:
        # The review queue does not know this app: it hears of new reviews through the signal.
        from venus_rpa.notifications.receivers import notify_review_opened
        from venus_rpa.reviews.signals import review_opened

        review_opened.connect(notify_review_opened, dispatch_uid="notifications.notify_review_opened")
