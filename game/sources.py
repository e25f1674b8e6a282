"""The engine's pure Python modules imported instead of their compiled extensions.

``setup.py`` compiles some of ``game``'s modules with mypyc where a C compiler is at hand;
an extension module beside a ``.py`` of the same name takes precedence at import. With
``SIETE_PURE_PYTHON=1`` in the environment, ``game/__init__.py`` calls ``prefer_sources``
first and every ``game`` module is imported from its ``.py`` file: the pure engine, for
comparing both (``tests/engine/test_compiled.py``), measuring, or debugging.
"""

import hashlib
import importlib.machinery
import importlib.util
import json
import os
import sys
import warnings

#: Written by setup.py beside the extensions it built: each compiled module's source digest.
SOURCES = "compiled_sources.json"


class SourceFinder:
    """A meta path finder that finds ``game``'s modules as their ``.py`` files."""

    @classmethod
    def find_spec(cls, name, path=None, target=None):
        """The spec of ``game.<module>`` from its source file, or None (any other name)."""
        if not name.startswith("game.") or name.count(".") != 1:
            return None
        for folder in path or ():
            source = os.path.join(folder, name.rpartition(".")[2] + ".py")
            if os.path.isfile(source):
                return importlib.util.spec_from_file_location(name, source)
        return None


def prefer_sources():
    """Import ``game``'s modules from their ``.py`` files from now on (idempotent)."""
    if SourceFinder not in sys.meta_path:
        sys.meta_path.insert(0, SourceFinder)


def compiled():
    """True when ``game.hand`` was imported from a compiled extension (setup.py), False
    when from its ``.py`` file."""
    from game import hand

    return not hand.__file__.endswith(".py")


def stale(folder: str | None = None) -> list[str]:
    """The compiled modules of ``game`` whose ``.py`` is not the source they were built
    from (an edit not compiled again, or extensions without setup.py's record of their
    sources): ``[]`` when every extension is current or none is built. ``folder``: the
    package's (default: this one's). Reads the ``.py`` files and ``SOURCES``; imports
    nothing of ``game``."""
    folder = folder or os.path.dirname(os.path.abspath(__file__))
    suffixes = importlib.machinery.EXTENSION_SUFFIXES
    if not any(os.path.exists(os.path.join(folder, "hand" + suffix)) for suffix in suffixes):
        return []
    try:
        with open(os.path.join(folder, SOURCES)) as record:
            built = json.load(record)
    except (OSError, ValueError):
        return ["hand"]
    changed = []
    for name, digest in sorted(built.items()):
        try:
            with open(os.path.join(folder, name + ".py"), "rb") as source:
                current = hashlib.sha256(source.read()).hexdigest()
        except OSError:
            continue  # an install without the sources: the extension is all there is
        if current != digest:
            changed.append(name)
    return changed


def prefer_current_sources() -> None:
    """``prefer_sources`` when a compiled module is older than its ``.py`` (``stale``),
    with a ``RuntimeWarning`` naming them and how to build them again: an edited module
    runs as edited, compiled or not."""
    changed = stale()
    if changed:
        warnings.warn(f"game: the compiled {', '.join(changed)} differ from their .py files; the pure Python "
                      "modules are imported (build them again: make .venv/.installed, or pip install -e .)",
                      RuntimeWarning, stacklevel=2)
        prefer_sources()
