"""The Django project of the siete y media back-office: settings, URLs, the Celery app."""
from casino.celery import app as celery_app

__all__ = ("celery_app",)
