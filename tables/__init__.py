"""Tables: the game. ``tables.engine`` is the pure rules engine (no Django import)."""
