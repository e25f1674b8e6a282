"""gunicorn's configuration (``gunicorn --config python:casino.gunicorn_conf``, as the
Dockerfile and docker-compose.yml run it).

The answers name no server: gunicorn writes ``Server: gunicorn`` on every response and has
no setting to leave it out, so its response's default headers are taken without it, in the
master, before the workers are forked. A server's name only helps someone match it with
its known flaws.
"""

from gunicorn.http import wsgi

_default_headers = wsgi.Response.default_headers


def _default_headers_without_server(self):
    """gunicorn's status line and default headers, but its ``Server``."""
    return [line for line in _default_headers(self) if not line.lower().startswith("server:")]


wsgi.Response.default_headers = _default_headers_without_server
