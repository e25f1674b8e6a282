"""Demo data (``manage.py demo``): staff of every role, players, banks and hands played at
three tables. At the top of the house: it uses every app."""
