"""The image's files as the Dockerfile copies them: its ``COPY`` lines read, the build
context's ``.dockerignore`` applied. Used by ``test_image_files`` (does the image hold what
the settings need?) and ``test_shipped`` (install and run exactly those files)."""

import posixpath
import re
import shutil
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def copies(dockerfile: Path = ROOT / "Dockerfile") -> list[tuple[str, str]]:
    """``[(source, destination)]`` of the Dockerfile's ``COPY`` lines, in order: sources
    relative to the build context, destinations relative to ``WORKDIR``. Flags (``--chown=``…) are skipped; a line with
    ``--from`` (another stage) is not a copy from the context."""
    found = []
    for line in dockerfile.read_text().splitlines():
        words = line.split()
        if not words or words[0].upper() != "COPY":
            continue
        if any(word.startswith("--from") for word in words):
            continue
        *sources, destination = [word for word in words[1:] if not word.startswith("--")]
        if len(sources) > 1 or destination.endswith("/"):
            found += [(source, posixpath.normpath(posixpath.join(destination, Path(source).name)))
                      for source in sources]
        else:
            found.append((sources[0], posixpath.normpath(destination)))
    return found


def _ignore_patterns(context: Path):
    patterns = []
    ignore = context / ".dockerignore"
    if ignore.exists():
        for line in ignore.read_text().splitlines():
            line = line.strip()
            if line and not line.startswith("#"):
                pattern = re.escape(line.strip("/")).replace(r"\*\*", ".*").replace(r"\*", "[^/]*").replace(r"\?", "[^/]")
                patterns.append(re.compile(pattern + "$"))
    return patterns


def ignored(path: str, context: Path = ROOT) -> bool:
    """Does the build context's ``.dockerignore`` leave ``path`` (relative to the context)
    or one of its parent directories out? (Docker's patterns, anchored at the context.)"""
    parts = Path(path).parts
    prefixes = ["/".join(parts[:n]) for n in range(1, len(parts) + 1)]
    return any(pattern.match(prefix) for pattern in _ignore_patterns(context) for prefix in prefixes)


def image_files(context: Path = ROOT) -> dict[str, Path]:
    """Every file the image gets from the context: ``{path relative to WORKDIR: its file
    in the context}``."""
    files = {}
    for source, destination in copies(context / "Dockerfile"):
        origin = context / source
        if origin.is_dir():
            for file in origin.rglob("*"):
                relative = file.relative_to(context).as_posix()
                if file.is_file() and not ignored(relative, context):
                    files[destination.rstrip("/") + "/" + file.relative_to(origin).as_posix()] = file
        elif not ignored(source, context):
            files[destination] = origin
    return files


def image_paths(context: Path = ROOT) -> set[str]:
    """Every file the image gets from the context, relative to ``WORKDIR``."""
    return set(image_files(context))


def copy_image_files(target: Path, context: Path = ROOT) -> set[str]:
    """Copy the image's files into ``target`` (as ``WORKDIR``); returns them."""
    files = image_files(context)
    for path, file in files.items():
        place = target / path.lstrip("/")
        place.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(file, place)
    return set(files)
