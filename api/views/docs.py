"""The API's documentation pages.

``/api/docs/`` is the reference rendered on the server from the OpenAPI schema: it works
with no network (no script or stylesheet from a CDN). ``/api/docs/swagger/`` and
``/api/docs/redoc/`` are drf-spectacular's interactive pages, whose scripts come from a
CDN (they need the browser to be online).
"""

import json

from django.shortcuts import render
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_GET

from api.schema import IDEMPOTENCY_PARAMETER, api_schema

METHODS = ("get", "post", "put", "patch", "delete")


def _schema_name(schema):
    if not schema:
        return ""
    if "$ref" in schema:
        return schema["$ref"].rsplit("/", 1)[-1]
    if schema.get("type") == "array":
        return f"list of {_schema_name(schema.get('items', {}))}"
    return schema.get("type", "object")


def _operations(schema):
    """The schema's operations grouped by tag: ``[(tag, [operation dict])]``."""
    groups = {}
    for path, item in schema.get("paths", {}).items():
        for method in METHODS:
            operation = item.get(method)
            if operation is None:
                continue
            body = operation.get("requestBody", {}).get("content", {})
            request = next(iter(body.values()), {}).get("schema") if body else None
            responses = []
            for code, response in operation.get("responses", {}).items():
                content = response.get("content", {})
                media, spec = next(iter(content.items()), (None, {}))
                responses.append({"code": code, "description": response.get("description", ""),
                                  "media": media, "schema": _schema_name(spec.get("schema"))})
            groups.setdefault((operation.get("tags") or ["api"])[0], []).append({
                "method": method.upper(), "path": path, "summary": operation.get("summary", ""),
                "description": operation.get("description", ""),
                "parameters": [{"name": p["name"], "in": p["in"], "required": p.get("required", False),
                                "description": p.get("description", ""),
                                "type": _schema_name(p.get("schema"))}
                               for p in operation.get("parameters", [])],
                "request": _schema_name(request), "responses": responses,
            })
    return sorted(groups.items())


@require_GET
def reference(request):
    """The API reference, rendered from the schema (no network needed)."""
    schema = api_schema()
    components = [{"name": name, "json": json.dumps(spec, indent=2, ensure_ascii=False)}
                  for name, spec in sorted(schema.get("components", {}).get("schemas", {}).items())]
    return render(request, "api/reference.html", {
        "info": schema.get("info", {}), "groups": _operations(schema), "components": components,
        "idempotency_header": IDEMPOTENCY_PARAMETER.name,
    })


@csrf_exempt
def not_found(request, path=""):
    """Any other path under /api/: the API's 404 as JSON (not the site's HTML page)."""
    from django.http import JsonResponse
    from django.utils.translation import gettext as _

    from api.errors import error_body

    return JsonResponse(error_body(message=_("there is no such resource in the API"), rule="not_found"),
                        status=404)
