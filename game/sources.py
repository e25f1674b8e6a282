"""The engine's pure Python modules imported instead of their compiled extensions.

``setup.py`` compiles some of ``game``'s modules with mypyc where a C compiler is at hand;
an extension module beside a ``.py`` of the same name takes precedence at import. With
``SIETE_PURE_PYTHON=1`` in the environment, ``game/__init__.py`` calls ``prefer_sources``
first and every ``game`` module is imported from its ``.py`` file: the pure engine, for
comparing both (``tests/engine/test_compiled.py``), measuring, or debugging.
"""

import importlib.util
import os
import sys


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
