"""WSGI entry point; production sets DJANGO_SETTINGS_MODULE=casino.settings.production.

Once the application is loaded, its objects (modules, models, URL patterns, settings) are
moved to the garbage collector's permanent generation (``gc.freeze``), so that a full
collection no longer walks them and pauses a gunicorn worker far less
(benchmarks/RESULTS.md). They live as long as the process anyway.
"""
import gc
import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "casino.settings.production")
application = get_wsgi_application()
gc.freeze()
