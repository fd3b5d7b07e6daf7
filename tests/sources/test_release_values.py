"""The release's user values as `helm get values -o json` prints them (sources/helm.py): numbers
as encoding/json prints them, and values it would print otherwise left to `helm get values`.
Against real Helm 3 and Helm 4: tests/e2e/test_release_values.py."""
from __future__ import annotations


from deployah_plan.sources.helm import _decode_values, _go_number


def test_numbers_read_as_encoding_json_prints_them() -> None:
    assert _go_number("1e+06") == 1000000 and isinstance(_go_number("1e+06"), int)
    assert _go_number("1.2345678901234567e+19") == 12345678901234567000
    assert _go_number("1e+21") == 1e21 and isinstance(_go_number("1e+21"), float)
    assert _go_number("1e-05") == 0.00001
    assert isinstance(_go_number("2.5"), float)


def test_values_not_printed_faithfully_are_left_to_helm_get_values() -> None:
    assert _decode_values('{"a":!map[string]string,"":null}') is None  # a type JSON does not decode to
    assert _decode_values('{"a":"\\x80","":null}') is None  # not UTF-8: encoding/json prints U+FFFD
    assert _decode_values('{"a":"\\\\x80","":null}') == {"a": "\\x80"}  # a backslash, then x80
    assert _decode_values("") is None  # a helm that printed no second line
    assert _decode_values('{"a":"\\a\\x01","":null}') == {"a": "\u0007\u0001"}
    assert _decode_values('{"":"x","":null}') == {"": "x"}  # the empty key is a key
