"""The top navigation: each app registers its entry pages with the roles that see them."""

from django.urls import NoReverseMatch, reverse
from django.utils.functional import SimpleLazyObject

from casino.roles import has_role

#: (url name, label, roles that see it); apps append in their AppConfig.ready().
ENTRIES = []


def register(url_name, label, *roles):
    """Show ``url_name`` in the navigation to users holding any of ``roles``."""
    ENTRIES.append((url_name, label, roles))


def nav_links(request):
    """Context processor: ``nav_links``, the entries the current user may open, each a dict
    ``{"url": str, "label": str, "current": bool}``; worked out once, and only if the page
    shows the navigation. ``current`` marks the entry the page belongs to: the one whose
    address is the longest prefix of the request's path (none on the home page)."""
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {"nav_links": []}
    return {"nav_links": SimpleLazyObject(lambda: _links(user, request.path))}


def _links(user, path):
    links = []
    for url_name, label, roles in ENTRIES:
        if has_role(user, *roles):
            try:
                links.append({"url": reverse(url_name), "label": label, "current": False})
            except NoReverseMatch:
                continue
    within = [link for link in links if link["url"] != "/" and path.startswith(link["url"])]
    if within:
        max(within, key=lambda link: len(link["url"]))["current"] = True
    return links
