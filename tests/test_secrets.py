"""What a reader sees of a Secret value (redact.py): its forms found base64-encoded inside a
longer string, and credentials taken out of a message however given. No Secret value in any
output unless --show-secrets, through the command line: tests/e2e/test_secrets.py."""
from __future__ import annotations

import base64


from deployah_plan.redact import credentials, scrub


def _forms(value: str) -> list[str]:
    """A value as it may leak: as is, base64-encoded, and inside base64 with neighbours.

    Base64 encodes 3 bytes as 4 characters, so a value inside a longer encoded string shows
    as one of three runs, by its offset modulo 3; each run keeps only the characters made from
    the value's bytes alone (the groups shared with a neighbour are dropped)."""
    raw = value.encode()
    runs = []
    for offset in range(3):
        encoded = base64.b64encode(b"\0" * offset + raw).decode()
        runs.append(encoded[4 if offset else 0:(offset + len(raw)) // 3 * 4])
    return [value, *runs]


def test_forms_find_a_value_base64_encoded_inside_a_longer_string() -> None:
    value = "hunter2-old-password"
    for before in ("", "a", "ab", "abc", "user=x\npassword="):
        encoded = base64.b64encode(f"{before}{value};more".encode()).decode()
        assert any(form in encoded for form in _forms(value)), before
    assert not any(form in base64.b64encode(b"password=something-else").decode() for form in _forms(value))


# -- repository credentials: typed in a URL or given as --password --------------------------


def test_credentials_are_taken_out_of_a_message_however_given() -> None:
    argv = ["upgrade", "r", "c", "--password", "hunter22", "--repo=https://ci:p%40ss-word@h.example/charts"]
    assert credentials(argv) == ["p%40ss-word", "p@ss-word", "hunter22"]
    message = 'looks like "https://ci:p%40ss-word@h.example/charts" is not valid (user ci, password hunter22)'
    assert scrub(message, credentials(argv)) == \
        'looks like "https://(hidden)@h.example/charts" is not valid (user ci, password (hidden))'
