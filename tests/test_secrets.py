"""No Secret value appears in any output unless --show-secrets: every format, the saved plan,
--debug, and errors; and what a reader does see of a changed Secret."""
from __future__ import annotations

import base64
from pathlib import Path

from conftest import Store, run_plan, write_chart
from deployah_plan.render.writers import FORMATS

VALUES = ("hunter2-old-password", "s3cr3t-new-password", "tls-key-line-two", "api-token-xyz")
SECRET_CHART = {
    "secret.yaml": (
        "apiVersion: v1\nkind: Secret\nmetadata:\n  name: app\n"
        "  annotations:\n    kubectl.kubernetes.io/last-applied-configuration: "
        "'{{ printf \"{\\\"stringData\\\":{\\\"token\\\":%q}}\" .Values.token }}'\n"
        "data:\n  password: {{ .Values.password | b64enc }}\n"
        "stringData:\n  tls.key: |\n    line-one\n    {{ .Values.keyline }}\n  token: {{ .Values.token }}\n"
        "  again: {{ .Values.password }}\n"
    ),
    "hook.yaml": (
        "apiVersion: v1\nkind: Secret\nmetadata:\n  name: hook-secret\n  annotations:\n"
        "    helm.sh/hook: pre-upgrade\nstringData:\n  token: {{ .Values.token }}\n"
    ),
}


def _forms(value: str) -> list[str]:
    """A value as it may leak: as is, base64-encoded, and inside base64 with neighbours."""
    return [value, base64.b64encode(value.encode()).decode()]


def test_no_secret_value_in_any_output(helm: Path, store: Store, tmp_path: Path) -> None:
    chart = write_chart(tmp_path, "app", SECRET_CHART,
                        values="password: hunter2-old-password\nkeyline: tls-key-line-one\ntoken: api-token-old\n")
    store.add("app", chart)
    flags = ("--set", "password=s3cr3t-new-password", "--set", "keyline=tls-key-line-two", "--set", "token=api-token-xyz")
    outputs = []
    for output in FORMATS:
        saved = tmp_path / f"plan-{output}.json"
        result = run_plan("upgrade", "app", str(chart), *flags, "-o", output, "--out", str(saved), "--debug",
                          helm=helm, store=store)
        assert result.code == 0, result.err
        outputs += [result.out, result.err, saved.read_text()]
        shown = run_plan("show", str(saved), "-o", output)
        outputs += [shown.out, shown.err]
    for text in outputs:
        for value in VALUES:
            for form in _forms(value):
                assert form not in text, (value, text[:2000])
    text_out = run_plan("upgrade", "app", str(chart), *flags, helm=helm, store=store).out
    # Keys stay visible with lengths; equal values share a token (password and again).
    assert "data.password: (sensitive #3, 20 bytes) -> (sensitive #4, 19 bytes)" in text_out
    assert "data.again: (sensitive #3, 20 bytes) -> (sensitive #4, 19 bytes)" in text_out
    # A hook's Secret with the same token value shares the token too.
    assert text_out.count("data.token: (sensitive #7, 13 bytes) -> (sensitive #8, 13 bytes)") == 2
    assert '+ data["tls.key"]' not in text_out and '~ data["tls.key"]: (sensitive' in text_out
    assert "kubectl.kubernetes.io/last-applied-configuration" in text_out


def test_show_secrets_prints_them(helm: Path, store: Store, tmp_path: Path) -> None:
    chart = write_chart(tmp_path, "app", SECRET_CHART,
                        values="password: hunter2-old-password\nkeyline: tls-key-line-one\ntoken: api-token-old\n")
    store.add("app", chart)
    out = run_plan("upgrade", "app", str(chart), "--set", "token=api-token-xyz", "--show-secrets",
                   helm=helm, store=store).out
    assert base64.b64encode(b"api-token-xyz").decode() in out


def test_errors_do_not_quote_secret_values(tmp_path: Path) -> None:
    (tmp_path / "previous.yaml").write_text("apiVersion: v1\nkind: Secret\nmetadata: {name: a}\ndata: {k: aHVudGVyMg==}\n")
    (tmp_path / "desired.yaml").write_text(
        "apiVersion: v1\nkind: Secret\nmetadata: {name: a}\nstringData:\n  k: hunter2-secret\n  k: hunter2-secret\n")
    result = run_plan("diff", str(tmp_path / "previous.yaml"), str(tmp_path / "desired.yaml"))
    assert result.code == 1 and "hunter2" not in result.err and "aHVudGVy" not in result.err
