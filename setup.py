"""The engine's hot modules compiled with mypyc, where a C compiler is at hand.

``pip install -e .`` and ``pip install .`` build ``COMPILED`` (pure Python, no Django) into
C extensions beside their ``.py`` files; an extension module takes precedence at import
over the ``.py`` of the same name, and the ``.py`` files stay the source and the fallback.
Nothing else changes: the same code, the same results (``tests/engine/test_compiled.py``
compares both engines; ``game.compiled()`` says which one is imported).

Without a compiler (the image's ``python:3.11-slim``), or with ``SIETE_PURE_PYTHON=1`` in
the environment, the install goes on with the pure Python modules: all or nothing, never
some modules compiled and others not. The rest of the project's metadata is in
``pyproject.toml``; its ``[build-system]`` pins the mypy whose mypyc compiles.
"""

import hashlib
import json
import os
import shutil
import sys

from setuptools import setup
from setuptools.command.build_ext import build_ext

#: The modules compiled: a hand record's play and its settlement (benchmarks/RESULTS.md
#: "settle"). One group: calls between them are native.
COMPILED = ["game/cards.py", "game/hand.py", "game/payouts.py", "game/record.py"]
#: The group's shared library, inside the package: game/compiled__mypyc.*.so.
GROUP = "game.compiled"
#: Beside the extensions: the SHA-256 of each compiled module's source (game/sources.py).
SOURCES = "compiled_sources.json"


def _digest(path):
    with open(path, "rb") as source:
        return hashlib.sha256(source.read()).hexdigest()


def _note(message):
    print(f"setup.py: {message}", file=sys.stderr)


class OptionalBuildExt(build_ext):
    """``build_ext`` that, when any extension fails to build, removes whatever it built and
    leaves the pure Python modules in place (an install never fails for want of a compiler)."""

    def run(self):
        try:
            super().run()
        except Exception as error:  # a missing compiler, headers, a failed compilation
            _note(f"the engine is not compiled ({error}); pure Python modules installed")
            self._remove_built()
            return
        if self.extensions:
            self._record_sources()

    def _record_sources(self):
        """Write ``SOURCES`` beside the built extensions: each compiled module's source
        digest, so that ``game.sources.stale`` can tell an extension older than its ``.py``
        (an edit not yet compiled again) and import the ``.py`` instead."""
        here = os.path.dirname(os.path.abspath(__file__))
        digests = {os.path.basename(path)[:-3]: _digest(os.path.join(here, path)) for path in COMPILED}
        folder = os.path.dirname(self.get_ext_fullpath("game.hand"))
        os.makedirs(folder, exist_ok=True)
        with open(os.path.join(folder, SOURCES), "w") as out:
            json.dump(digests, out, indent=1, sort_keys=True)

    def _remove_built(self):
        here = os.path.dirname(os.path.abspath(__file__))
        for ext in [*self.extensions, None]:
            if ext is None:  # the sources' digests of an earlier build
                built = os.path.join(os.path.dirname(self.get_ext_fullpath("game.hand")), SOURCES)
                for path in (built, os.path.join(here, "game", SOURCES)):
                    if os.path.exists(path):
                        os.remove(path)
                continue
            built = self.get_ext_fullpath(ext.name)
            for path in (built, os.path.join(here, self.get_ext_filename(ext.name))):
                if os.path.exists(path):
                    os.remove(path)
        self.extensions = []

    def get_outputs(self):
        built = [path for path in super().get_outputs() if os.path.exists(path)]
        if self.extensions:
            built.append(os.path.join(os.path.dirname(self.get_ext_fullpath("game.hand")), SOURCES))
        return built


def _ext_modules():
    """The extensions, or none (pure Python): ``SIETE_PURE_PYTHON`` set, no C compiler
    found, or mypyc not importable."""
    if os.environ.get("SIETE_PURE_PYTHON"):
        _note("SIETE_PURE_PYTHON is set: the engine is not compiled")
        return []
    import sysconfig

    compiler = (os.environ.get("CC") or sysconfig.get_config_var("CC") or "cc").split()[0]
    if shutil.which(compiler) is None:
        _note(f"no C compiler ({compiler}): the engine is not compiled; pure Python modules installed")
        return []
    try:
        from mypyc.build import mypycify
    except ImportError as error:
        _note(f"mypyc is not importable ({error}): the engine is not compiled")
        return []
    return mypycify(COMPILED, opt_level="3", group_name=GROUP)


setup(ext_modules=_ext_modules(), cmdclass={"build_ext": OptionalBuildExt})
