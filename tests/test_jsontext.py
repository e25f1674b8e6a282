"""casino.jsontext: the standard library's values, whatever orjson would make of the text,
and the standard library's canonical text, whatever orjson would write."""

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from casino.jsontext import canonical, loads, normal

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


def standard(value):
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


#: Any value a signed body may hold, with every character (controls, quotes, backslashes,
#: beyond the BMP, lone surrogates), integers of any size, floats of any magnitude, keys
#: that are not strings.
ANY = st.recursive(st.none() | st.booleans() | st.integers() | st.integers(min_value=-2 ** 70, max_value=2 ** 70)
                   | st.floats(allow_nan=False, allow_infinity=False) | st.text(st.characters(exclude_categories=())),
                   lambda inner: st.lists(inner, max_size=4) | st.tuples(inner, inner)
                   | st.dictionaries(st.text(st.characters(exclude_categories=())), inner, max_size=4)
                   | st.dictionaries(st.integers(), inner, max_size=3),
                   max_leaves=25)


@given(ANY)
def test_canonical_is_the_standard_librarys_text_of_any_value(value):
    assert canonical(value) == standard(value)


@pytest.mark.parametrize("value", [
    1e-05, 1e16, 1e15, 0.1, -0.0, 1.0, {"a": 0.00001}, [2 ** 64], [-2 ** 63 - 1], {1: "x", 2: 2}, "\ud800",
    {"b": "\x00\x1f\x7f\"\\/\u2028\U0001f600", "a": [True, None]}, "1e5", {"memo": "mesa 1.5"}])
def test_canonical_writes_what_orjson_writes_otherwise_as_json_does(value):
    assert canonical(value) == standard(value)


@pytest.mark.parametrize("exponent", range(-12, 21))
def test_canonical_writes_floats_of_every_magnitude_as_json_does(exponent):
    """orjson writes floats below 1e-4 in another form: 2,000 of each magnitude, each sign."""
    import random

    rng = random.Random(exponent)
    for _ in range(1000):
        value = rng.uniform(1, 10) * 10.0 ** exponent
        assert canonical([value, -value, {"x": value}]) == standard([value, -value, {"x": value}])


def test_canonical_refuses_what_json_refuses():
    from decimal import Decimal

    with pytest.raises(TypeError):
        canonical({"amount": Decimal("1.00")})
    with pytest.raises(TypeError):
        canonical({"at": __import__("datetime").datetime(2026, 11, 30)})
