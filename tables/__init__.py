"""Tables: the tables, their sessions, hands and banks. The rules are ``game`` (no Django)."""
