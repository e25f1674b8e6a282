"""The boxes' pages (``boxes.views``): the console's buy-in, a session's boxes, the registers."""

from boxes.views import app_name, urlpatterns  # noqa: F401
