"""No Secret value appears in any output unless --show-secrets: every format, the saved plan,
--debug, and errors; and what a reader does see of a changed Secret."""
from __future__ import annotations

import base64
import json
import subprocess
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from conftest import EXAMPLE, Result, Store, clean_env, run_plan, write_chart
from deployah_plan.render.writers import FORMATS
from test_secrets import _forms

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
    "zconfig.yaml": (  # the password inside a base64-encoded file
        "apiVersion: v1\nkind: Secret\nmetadata:\n  name: zconfig\n"
        "data:\n  app.ini: {{ printf \"[db]\\nuser=app\\npassword=%s\\n\" .Values.password | b64enc }}\n"
    ),
    "hook.yaml": (
        "apiVersion: v1\nkind: Secret\nmetadata:\n  name: hook-secret\n  annotations:\n"
        "    helm.sh/hook: pre-upgrade\nstringData:\n  token: {{ .Values.token }}\n"
    ),
}


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
    out = run_plan("upgrade", "app", str(chart), "--set", "token=api-token-xyz", "--set", "password=s3cr3t-new-password",
                   "--show-secrets", helm=helm, store=store).out
    assert base64.b64encode(b"api-token-xyz").decode() in out
    # The new password shows inside the base64 of config's app.ini: the forms the test above
    # looks for would find it there.
    # (The "what matters" head names the key app.ini too, without its value.)
    lines = [line for line in out.splitlines() if "app.ini" in line]
    whole = base64.b64encode(b"s3cr3t-new-password").decode()
    assert lines and all("s3cr3t-new-password" not in line and whole not in line for line in lines)
    assert any(form in line for line in lines for form in _forms("s3cr3t-new-password"))


@pytest.mark.e2e
def test_errors_do_not_quote_secret_values(tmp_path: Path) -> None:
    (tmp_path / "previous.yaml").write_text("apiVersion: v1\nkind: Secret\nmetadata: {name: a}\ndata: {k: aHVudGVyMg==}\n")
    (tmp_path / "desired.yaml").write_text(
        "apiVersion: v1\nkind: Secret\nmetadata: {name: a}\nstringData:\n  k: hunter2-secret\n  k: hunter2-secret\n")
    result = run_plan("diff", str(tmp_path / "previous.yaml"), str(tmp_path / "desired.yaml"))
    assert result.code == 1 and "hunter2" not in result.err and "aHVudGVy" not in result.err


# -- repository credentials: typed in a URL or given as --password --------------------------

PASSWORD = "Rep0-Pa55word-xyz"


class _Repository:
    """A chart repository on loopback that answers only `Authorization: Basic ci:PASSWORD`,
    serving the example chart packaged by real helm, with the index `helm repo index` writes."""

    def __init__(self, root: Path, helm: Path) -> None:
        for args in (["package", str(EXAMPLE / "chart-v1"), "-d", str(root)], ["repo", "index", str(root)]):
            done = subprocess.run([str(helm), *args], capture_output=True, text=True, env=clean_env())
            assert done.returncode == 0, done.stderr
        expected = "Basic " + base64.b64encode(f"ci:{PASSWORD}".encode()).decode()
        served = root

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 (http.server's name)
                path = served / self.path.lstrip("/").split("?")[0]
                if self.headers.get("Authorization") != expected:
                    self.send_response(401)
                    self.send_header("WWW-Authenticate", 'Basic realm="charts"')
                    self.end_headers()
                elif not path.is_file():
                    self.send_error(404)
                else:
                    body = path.read_bytes()
                    self.send_response(200)
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()

    def url(self, userinfo: str = f"ci:{PASSWORD}") -> str:
        return f"http://{userinfo}@127.0.0.1:{self.server.server_address[1]}"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.mark.parametrize("given", [
    ("--set-json", 'password={"x":"Sup3rSecretJson"'),
    ("--set", "Sup3rSecretBare"),
    ("--set-literal", "Sup3rSecretLiteral"),
    ("--set", "a=1,Sup3rSecretPart"),
], ids=["set-json", "set-bare", "set-literal", "set-part"])
def test_a_set_value_helm_cannot_read_is_not_quoted_back(helm: Path, store: Store, given: tuple[str, str]) -> None:
    """helm's own error quotes the value it could not read; relayed, it would reach a CI log or
    a pull-request comment (scripts/ci-plan copies stderr there), where no masking applies."""
    store.add("shop", EXAMPLE / "chart-v1", "shop")
    result = run_plan("upgrade", "shop", str(EXAMPLE / "chart-v2"), "-n", "shop", *given, helm=helm, store=store)
    assert result.code == 1, result.err
    assert "Sup3rSecret" not in result.out + result.err, result.err
    assert "(hidden)" in result.err or "failed" in result.err


def test_repository_credentials_never_appear_in_any_output(helm: Path, store: Store, tmp_path: Path) -> None:
    """The password in `--repo https://user:pw@host`, in a chart URL and in --password is kept
    out of the saved plan, the outputs, --debug lines and every error; such a plan needs the
    command to verify, as --set values do."""
    store.add("shop", EXAMPLE / "chart-v1", "shop")
    repository = _Repository(tmp_path / "repo", helm)
    outputs: list[str] = []

    def run(*args: str, code: int | None = 0) -> Result:
        result = run_plan(*args, helm=helm, store=store, cwd=tmp_path)
        outputs.extend([result.out, result.err])
        if code is not None:
            assert result.code == code, result.out + result.err
        return result

    try:
        deploy = ("upgrade", "shop", "shop", "-n", "shop", "--repo", repository.url())
        run(*deploy, "--out", "plan.json", "--debug")
        saved = (tmp_path / "plan.json").read_text()
        outputs.append(saved)
        record = json.loads(saved)["inputs"]
        assert f"--repo={repository.url('(hidden)')}" in record["argv"]
        alone = run("verify", "plan.json", code=1)
        assert "pass the command" in alone.err
        _holds = run("verify", "plan.json", "--check-only", "--debug", "--", "helm", *deploy)
        assert "holds" in _holds.out
        other = run("verify", "plan.json", "--check-only", "--", "helm", "upgrade", "shop", "shop", "-n", "shop",
                    "--repo", repository.url() + "/elsewhere", code=1)
        assert "--repo differs from the reviewed plan" in other.err
        # A chart by URL, with the user and password in it; and --password, with --debug.
        package = f"{repository.url()}/shop-0.1.0.tgz"
        run("upgrade", "shop", package, "-n", "shop", "--out", "url-plan.json", "--debug")
        outputs.append((tmp_path / "url-plan.json").read_text())
        run("upgrade", "shop", "shop", "-n", "shop", "--repo", repository.url("").replace("@", ""), "--username", "ci",
            "--password", PASSWORD, "--debug", "--out", "flag-plan.json")
        outputs.append((tmp_path / "flag-plan.json").read_text())
        # Errors: a repository that is not there, a chart that is not in it, a wrong password.
        failed = run("upgrade", "shop", "shop", "-n", "shop", "--repo", repository.url() + "/missing", "--debug",
                     code=1)
        assert failed.err.startswith("helm plan: error: ") or "helm plan: error: " in failed.err
        run("upgrade", "shop", f"{repository.url()}/nothing-1.0.0.tgz", "-n", "shop", "--debug", code=1)
        run("upgrade", "shop", "shop", "-n", "shop", "--repo", repository.url(f"ci:{PASSWORD}-wrong"), code=1)
        run("verify", "plan.json", "--", "helm", "upgrade", "shop", "shop", "-n", "shop", "--repo",
            repository.url() + "/missing", "--debug", code=1)
    finally:
        repository.close()
    leaked = [text for text in outputs if PASSWORD in text]
    assert not leaked, leaked[0][:3000]
