"""Database helpers shared by the apps' migrations."""


def run_on_postgresql(sql):
    """A RunPython operation running ``sql`` on PostgreSQL only (nothing on SQLite, the
    quick start's database, whose CHECK and UNIQUE constraints still apply)."""
    def operation(apps, schema_editor):
        if schema_editor.connection.vendor == "postgresql":
            with schema_editor.connection.cursor() as cursor:
                cursor.execute(sql)
    return operation
