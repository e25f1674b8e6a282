"""The house's layers, kept: each app imports only the apps below it, imports inside
functions and model relations included; no private (``_name``) is imported from another
module. The layers, bottom to top:

    game → casino → patrons → ledger → tables → cage → boxes → reports → api → demo → site

``game`` is the pure rules engine; ``casino`` the settings and shared plumbing, below
every app but its URLs and project-wide pages (``casino.urls``, ``casino.views``: the
site, at the top). A lower layer that must hear from a higher one offers a hook (the
ledger's ``register_check``, ``register_chips_at_risk``, ``register_fault_finder``; the
tables' ``bank.deposits.register``), which the higher one fills in its ``AppConfig.ready``.
"""

import ast
from pathlib import Path

import pytest
from django.apps import apps

from tests.conftest import ROOT

LAYERS = ["game", "casino", "patrons", "ledger", "tables", "cage", "boxes", "reports", "api", "demo", "site"]
#: Modules of ``casino`` that are the site at the top (they assemble every app's pages).
SITE = {"casino.urls", "casino.views"}


def layer_of(module: str) -> str | None:
    """The layer of a dotted module name (None for a module outside the project)."""
    if module in SITE or any(module.startswith(site + ".") for site in SITE):
        return "site"
    top = module.split(".")[0]
    return top if top in LAYERS else None


def project_modules():
    """``(module name, path)`` of every project module but migrations and tests."""
    for top in LAYERS[:-1]:  # the site's modules are casino's
        for path in sorted((ROOT / top).rglob("*.py")):
            if "migrations" in path.parts or ".venv" in path.parts:
                continue
            parts = path.relative_to(ROOT).with_suffix("").parts
            module = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
            yield module, path


def imports_of(module: str, path: Path):
    """``(imported module, [names])`` of every import statement of a file, wherever it is
    (inside functions too); relative imports resolved."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, []
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            yield base, [alias.name for alias in node.names]


def test_each_layer_imports_only_those_below_it():
    upward = []
    for module, path in project_modules():
        mine = LAYERS.index(layer_of(module))
        for imported, names in imports_of(module, path):
            targets = [imported] + [f"{imported}.{name}" for name in names]
            for target in targets:
                layer = layer_of(target)
                if layer is not None and LAYERS.index(layer) > mine:
                    upward.append(f"{module} imports {target} ({layer} is above {layer_of(module)})")
                    break
    assert upward == []


def test_no_private_name_is_imported_from_another_module():
    private = [f"{module} imports {imported}.{name}" for module, path in project_modules()
               for imported, names in imports_of(module, path) for name in names
               if name.startswith("_") and not name.startswith("__")]
    assert private == []


def test_each_model_relation_points_at_its_own_layer_or_below():
    upward = []
    for model in apps.get_models():
        label = model._meta.app_label
        if label not in LAYERS:
            continue
        for field in model._meta.get_fields():
            if not field.is_relation or field.auto_created:
                continue
            target = field.related_model._meta.app_label
            if target in LAYERS and LAYERS.index(target) > LAYERS.index(label):
                upward.append(f"{model.__name__}.{field.name} -> {field.related_model.__name__} ({target})")
    assert upward == []


@pytest.mark.parametrize("module, imported, layer", [
    ("ledger.posting", "tables.models", "tables"), ("tables.services", "cage.services.slips", "cage"),
    ("casino.formatting", "reports.figures", "reports"), ("casino.urls", "api.urls", "api")])
def test_the_check_sees_an_upward_import(module, imported, layer):
    """The check is not blind: these would be caught (and the site's URLs may import all)."""
    assert layer_of(imported) == layer
    above = LAYERS.index(layer) > LAYERS.index(layer_of(module))
    assert above == (module != "casino.urls")
