"""casino.jsontext: the standard library's values, whatever orjson would make of the text."""

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from casino.jsontext import loads, normal

TEXTS = [
    '{"a": 123456789012345678901234567890}',  # orjson alone: a float
    '{"a": 18446744073709551616}',  # one past 64 bits unsigned
    '{"a": -9223372036854775809}',  # one below 64 bits signed
    '{"a": 1e400}',  # orjson refuses it, json reads infinity
    '{"a": NaN}',
    '[1.0, 1.5e300, 0.1, "é", "\\u00e9", null, true]',
    '{"a": 1, "a": 2}',
    '"x"',
    '{"amount": "1234567890123456789"}',  # a long string of digits: the slow path, the same value
    '{"é": 1234567890123456789}',
]


@pytest.mark.parametrize("text", TEXTS)
def test_loads_is_the_standard_librarys_value(text):
    assert repr(loads(text)) == repr(json.loads(text))
    assert repr(loads(text.encode())) == repr(json.loads(text))


def test_loads_refuses_what_is_not_json():
    with pytest.raises(ValueError):
        loads("nul")


JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
                    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
                    max_leaves=20)


@given(JSON)
def test_loads_and_normal_agree_with_json_on_any_value(value):
    text = json.dumps(value)
    assert repr(loads(text)) == repr(json.loads(text))
    assert repr(normal(value)) == repr(json.loads(json.dumps(value)))


def test_normal_writes_tuples_as_lists_and_keys_as_strings():
    assert normal({"a": (1, 2), 1: [("x", 2 ** 70)]}) == {"a": [1, 2], "1": [["x", 2 ** 70]]}
    assert repr(normal({"x": float("nan")})) == repr(json.loads(json.dumps({"x": float("nan")})))
