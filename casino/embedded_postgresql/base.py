"""PostgreSQL, the server of ``casino.localdb`` started when a connection is made while it
is down (and stopped when this process exits, if it started it): importing the settings,
or a command that never connects (``manage.py settle``), starts nothing."""

from django.db.backends.postgresql import base

from casino import localdb


class DatabaseWrapper(base.DatabaseWrapper):
    def get_connection_params(self):
        # The socket's directory: var/postgres, or the wheel's other place when that
        # path is too long for a socket.
        self.settings_dict["HOST"] = localdb.ensure_running()
        return super().get_connection_params()
