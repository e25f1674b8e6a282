"""One change to a hand record, for the tests that feed the engine mutated records: the
property tests (Hypothesis draws each choice, so a failure shrinks) and the comparison of
the compiled engine with the pure one (a seeded ``random``, so that two processes see the
same records). Each passes its own way of choosing; the changes are these."""

import copy


def mutate(record, events, op, i, j, *, choose, junk, header_keys, event_keys, rule_keys) -> None:
    """Apply change ``op`` to ``record`` and ``events`` (its events as they were first read:
    a header change may have put junk in its place since) in place: ``"drop"``, ``"dup"`` (event ``i`` again
    at ``j``), ``"swap"`` (``i`` and ``j``), ``"cut"`` (from ``i`` on), ``"value"`` and
    ``"unkey"`` (a key of event ``i`` given junk or removed), ``"key"`` (one of
    ``event_keys`` given junk), ``"type"`` (event ``i`` made junk), ``"rules"`` (one of
    ``rule_keys`` given junk) or ``"header"`` (one of ``header_keys`` given junk; also
    whatever ``op`` when there is no event).

    Args:
        choose: ``choose(sequence)`` → one of its items.
        junk: ``junk()`` → a fresh JSON value (valid or not).
    """
    if not events or op == "header":
        record[choose(header_keys)] = junk()
    elif op == "drop":
        del events[i]
    elif op == "dup":
        events.insert(j, copy.deepcopy(events[i]))
    elif op == "swap":
        events[i], events[j] = events[j], events[i]
    elif op == "cut":
        del events[i:]
    elif op in ("value", "unkey") and isinstance(events[i], dict) and events[i]:
        key = choose(sorted(events[i]))
        if op == "unkey":
            del events[i][key]
        else:
            events[i][key] = junk()
    elif op == "key" and isinstance(events[i], dict):
        events[i][choose(event_keys)] = junk()
    elif op == "type":
        events[i] = junk()
    elif op == "rules":
        rules = record["rules"] if isinstance(record["rules"], dict) else {"profile": record["rules"]}
        rules[choose(rule_keys)] = junk()
        record["rules"] = rules
