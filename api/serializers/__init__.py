"""The API's serializers: input serializers check the shape of a request and hand their
``validated_data`` to a service; output serializers say what a response holds.

Amounts are ``Decimal`` euros written as strings with two decimals (``"10.00"``); an
amount sent in is a string (or an integer) of euros with at most two decimals, never a
float. Hands, events and hand records are judged by the rules engine (which names the
event and the rule), so their serializers check only that they are JSON objects.

- ``fields``: the game's JSON in the schema and the fields that read it (events, rules,
  amounts, percentages, players).
- ``tables``: tables, shifts, hands and their entries.
- ``records``: hand records and settlements.
- ``ledger``: players, accounts, statements, bank tenures, cashier's slips.
- ``auth``: the token.
"""
