"""Saved plans: `--out`, `helm plan show`, `helm plan schema`, and refusing what cannot be read."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema

import pytest

from conftest import ROOT, run_plan
from deployah_plan.planfile import FORMAT_VERSION
from deployah_plan.planfile.seal import Digester, seal
from deployah_plan.render.writers import FORMATS
from e2e.test_bad_input import _one_line_error
from e2e.test_cases import validate

pytestmark = pytest.mark.e2e  # each test starts helm-plan or helm as a process

CASE = ROOT / "tests" / "cases" / "secrets"
SECRETS = ("c2VjcmV0LXR3bw==", "c2VjcmV0LW9uZQ==", "secret-two", "secret-one", "plain-text-secret",
           "cGxhaW4tdGV4dC1zZWNyZXQ=", "brand-new-api-key", "new-token-value", "old-token-value")


def _save(tmp_path: Path, *flags: str) -> Path:
    out = tmp_path / "plan.json"
    result = run_plan("diff", "previous.yaml", "desired.yaml", "--out", str(out), *flags, cwd=CASE)
    assert result.code == 0, result.err
    return out


def _resealed(doc: dict[str, Any]) -> dict[str, Any]:
    """A saved plan edited as a later helm plan would have written it: sealed again (no key)."""
    doc["inputs"]["seal"] = seal(Digester.of(doc["inputs"]["digest"]["salt"], False), doc)
    return doc


def test_schema_command_prints_the_published_schema() -> None:
    result = run_plan("schema")
    assert result.code == 0, result.err
    schema = result.json()
    jsonschema.Draft202012Validator.check_schema(schema)
    assert result.out == (ROOT / "deployah_plan" / "schema" / "plan.schema.json").read_text()


def test_a_saved_plan_keeps_secrets_masked(tmp_path: Path) -> None:
    saved = _save(tmp_path)
    for output in FORMATS:
        for flags in ((), ("--show-secrets",)):
            shown = run_plan("show", str(saved), "-o", output, *flags)
            assert shown.code == 0, shown.err
            assert not any(s in shown.out for s in SECRETS), (output, flags)
    shown = run_plan("show", str(saved)).out
    # Lengths in decoded bytes; equal values (a data key and a stringData key) share a token.
    assert "data.password: (sensitive #1, 10 bytes) -> (sensitive #2, 10 bytes)" in shown
    assert "data.copy: (sensitive #2, 10 bytes)" in shown


def test_a_plan_saved_with_secrets_shows_them_only_when_asked(tmp_path: Path) -> None:
    saved = _save(tmp_path, "--show-secrets")
    assert "c2VjcmV0LXR3bw==" in saved.read_text()
    assert "c2VjcmV0LXR3bw==" not in run_plan("show", str(saved)).out
    assert "c2VjcmV0LXR3bw==" in run_plan("show", str(saved), "--show-secrets").out


def test_show_reads_standard_input_and_newer_minor_versions(tmp_path: Path) -> None:
    doc = json.loads(_save(tmp_path).read_text())
    doc["format_version"] = "1.99"
    doc["a_field_from_the_future"] = {"x": 1}
    result = run_plan("show", "-", "-o", "json", stdin=json.dumps(_resealed(doc)))
    assert result.code == 0, result.err
    validate(result.json())
    # This version's document of the plan, the newer fields not read: it says so by its version,
    # and reads back as itself.
    assert result.json()["format_version"] == FORMAT_VERSION and "a_field_from_the_future" not in result.json()
    again = run_plan("show", "-", "-o", "json", stdin=result.out)
    assert again.code == 0 and again.out == result.out


def _with_unknown_values(doc: dict[str, Any], version: str) -> str:
    """The document at format `version`, with a warning code and an impact kind a later
    helm plan might add (a minor version may add codes and kinds: schema and docs/plan.md)."""
    warning = {"code": "quota-exceeded", "severity": "warning", "message": "the namespace quota is exceeded",
               "resource": None, "predicted_failure": False}
    impact = {"kind": "traffic-drained", "resource": doc["changes"][0]["resource"],
              "message": "connections are drained", "objects": [], "counts": {}, "details": ["over 30s"]}
    return json.dumps(_resealed({**doc, "format_version": version, "warnings": doc["warnings"] + [warning],
                                 "impact": doc.get("impact", []) + [impact]}))


def test_a_newer_minor_version_with_codes_this_one_does_not_know_is_shown_as_written(tmp_path: Path) -> None:
    doc = json.loads(_save(tmp_path).read_text())
    major, minor = FORMAT_VERSION.split(".")
    newer = _with_unknown_values(doc, f"{major}.{int(minor) + 1}")
    shown = run_plan("show", "-", stdin=newer)
    assert shown.code == 0, shown.err
    assert "the namespace quota is exceeded" in shown.out and "connections are drained" in shown.out
    markdown = run_plan("show", "-", "-o", "markdown", stdin=newer)
    assert markdown.code == 0, markdown.err
    assert "the namespace quota is exceeded" in markdown.out and "traffic-drained" in markdown.out  # as written
    # As this version's document it would not validate (its schema lists every code and kind),
    # and under the newer version it would not be that document: -o json says so, in one line.
    _one_line_error(run_plan("show", "-", "-o", "json", stdin=newer), "standard input was written by a newer helm plan",
                    "warning code quota-exceeded, impact kind traffic-drained", f"format {FORMAT_VERSION} does not have",
                    "show it as text or markdown")
    # A value no minor version may add stays refused, in one line that says what to do.
    broken = json.loads(newer)
    broken["changes"][0]["action"] = "explode"
    _one_line_error(run_plan("show", "-", stdin=json.dumps(broken)), "explode", "upgrade helm plan")
    # A new value is shaped as the listed ones are: nothing a writer would have to escape.
    hostile = json.loads(newer)
    hostile["impact"][-1]["kind"] = "drained`\n<b>x</b>"
    _one_line_error(run_plan("show", "-", "-o", "markdown", stdin=json.dumps(hostile)), "/impact/", "letters, digits and -")


def test_the_same_version_with_a_code_it_does_not_know_is_refused(tmp_path: Path) -> None:
    doc = json.loads(_save(tmp_path).read_text())
    _one_line_error(run_plan("show", "-", stdin=_with_unknown_values(doc, FORMAT_VERSION)),
                    "not a valid helm plan document", "/warnings/1/code", "quota-exceeded")


def test_a_newer_major_version_is_refused_with_what_to_do(tmp_path: Path) -> None:
    doc = json.loads(_save(tmp_path).read_text())
    newer = f"{int(FORMAT_VERSION.split('.')[0]) + 1}.0"
    _one_line_error(run_plan("show", "-", stdin=json.dumps({**doc, "format_version": newer})),
                    f"format version {newer}", "upgrade helm plan")


def test_show_refuses_what_it_cannot_read(tmp_path: Path) -> None:
    doc = json.loads(_save(tmp_path).read_text())
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({**doc, "format_version": "2.0"}))
    _one_line_error(run_plan("show", str(bad)), "format version 2.0", "reads only 1.x", "plan again")
    bad.write_text("{not json")
    _one_line_error(run_plan("show", str(bad)), "is not JSON", "--out FILE")
    bad.write_text(json.dumps({"hello": "world"}))
    _one_line_error(run_plan("show", str(bad)), "not a helm plan document")
    bad.write_text(json.dumps({k: v for k, v in doc.items() if k != "header"}))
    _one_line_error(run_plan("show", str(bad)), "not a valid helm plan document", "header")
    bad.write_text(json.dumps({**doc, "helm_action": "explode"}))
    _one_line_error(run_plan("show", str(bad)), "not a valid helm plan document", "explode")
    _one_line_error(run_plan("show", str(tmp_path / "missing.json")), "cannot read the saved plan", "No such file")


def test_out_to_an_unwritable_path_is_one_line(tmp_path: Path) -> None:
    _one_line_error(run_plan("diff", "previous.yaml", "desired.yaml", "--out", str(tmp_path / "no" / "plan.json"), cwd=CASE),
                    "cannot write the plan", "--out")


def test_show_reads_a_plan_written_by_format_1_0() -> None:
    """tests/fixtures/plan-format-1.0.json was written by the first release of the format (the
    secrets case): its masked values have no token, and it has none of 1.1's fields."""
    saved = ROOT / "tests" / "fixtures" / "plan-format-1.0.json"
    assert json.loads(saved.read_text())["format_version"] == "1.0"
    text = run_plan("show", str(saved))
    assert text.code == 0, text.err
    assert "data.password: (sensitive, 16 bytes) -> (sensitive, 16 bytes)" in text.out
    assert not any(s in text.out for s in SECRETS)
    again = run_plan("show", str(saved), "-o", "json")
    validate(again.json())
    assert again.json()["format_version"] == FORMAT_VERSION


def test_a_plan_saved_with_secrets_is_readable_by_its_owner_only(tmp_path: Path) -> None:
    assert _save(tmp_path, "--show-secrets").stat().st_mode & 0o777 == 0o600
    existing = tmp_path / "plan.json"
    existing.chmod(0o644)  # a file that was there before is narrowed too
    assert _save(tmp_path, "--show-secrets").stat().st_mode & 0o077 == 0


def test_show_refuses_an_edited_plan_and_no_gate_passes_on_it(tmp_path: Path) -> None:
    """Issue 48 point 2: five creates taken out of a saved plan and its count set to 0 are not
    "Plan: 0 to create"; shown on purpose (--allow-edited), the plan passes no gate."""
    config = "apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: {}}}\ndata: {{a: b}}\n"
    (tmp_path / "previous.yaml").write_text(config.format("kept"))
    (tmp_path / "desired.yaml").write_text("---\n".join(config.format(n) for n in ("kept", "a", "b", "c", "d", "e")))
    made = run_plan("diff", "previous.yaml", "desired.yaml", "--out", "plan.json", cwd=tmp_path)
    assert made.code == 0, made.err
    saved = tmp_path / "plan.json"
    doc = json.loads(saved.read_text())
    assert doc["summary"]["create"] == 5
    unedited = run_plan("show", "plan.json", "--fail-on", "create", cwd=tmp_path)
    assert unedited.code == 3 and "Plan: 5 to create" in unedited.out and "seal" not in unedited.err, unedited.err
    assert run_plan("show", "plan.json", cwd=tmp_path).code == 0

    doc["changes"] = [c for c in doc["changes"] if c["action"] != "create"]
    doc["summary"]["create"] = 0
    edited = tmp_path / "edited.json"
    edited.write_text(json.dumps(doc, indent=2))
    for gates in ((), ("--fail-on", "create"), ("--detailed-exitcode",)):
        _one_line_error(run_plan("show", "edited.json", *gates, cwd=tmp_path), "edited.json was changed after it was written",
                        "its seal does not match", "--allow-edited")
    shown = run_plan("show", "edited.json", "--allow-edited", cwd=tmp_path)
    assert shown.code == 0 and "Plan: 0 to create" in shown.out
    assert shown.err.startswith("helm plan: warning: edited.json was changed after it was written")
    assert "no gate passes on it" in shown.err and shown.err.count("\n") == 1
    for gates in (("--fail-on", "create"), ("--fail-on", "delete"), ("--detailed-exitcode",)):
        gated = run_plan("show", "edited.json", "--allow-edited", *gates, cwd=tmp_path)
        assert gated.code == 3, (gates, gated.err)
        assert "no gate passes on edited.json" in gated.err

    # With HELM_PLAN_KEY set, a plan sealed without it is the file's word only; a keyed plan
    # needs the key to be checked.
    keyed = run_plan("show", "plan.json", HELM_PLAN_KEY="ci-secret", cwd=tmp_path)
    _one_line_error(keyed, "was sealed without HELM_PLAN_KEY, which is set here")
    made = run_plan("diff", "previous.yaml", "desired.yaml", "--out", "keyed.json", cwd=tmp_path,
                    HELM_PLAN_KEY="ci-secret")
    assert run_plan("show", "keyed.json", HELM_PLAN_KEY="ci-secret", cwd=tmp_path).code == 0
    _one_line_error(run_plan("show", "keyed.json", cwd=tmp_path), "was sealed with HELM_PLAN_KEY, which is not set")
    assert run_plan("show", "keyed.json", HELM_PLAN_KEY="guess", cwd=tmp_path).code == 1


def test_a_plan_without_a_seal_is_shown_with_a_note(tmp_path: Path) -> None:
    """A plan written by -o json has no inputs record, so no seal: it is shown as before, with
    one line saying nothing shows it unedited (taking the record out of a saved plan makes one
    of these); with HELM_PLAN_KEY set it is refused."""
    made = run_plan("diff", "previous.yaml", "desired.yaml", "-o", "json", cwd=CASE)
    assert made.code == 0, made.err
    bare = tmp_path / "bare.json"
    bare.write_text(made.out)
    shown = run_plan("show", "bare.json", "--fail-on", "update", cwd=tmp_path)
    assert shown.code == 3 and "Plan:" in shown.out
    assert shown.err.startswith("helm plan: note: bare.json has no seal (it was written by -o json")
    _one_line_error(run_plan("show", "bare.json", HELM_PLAN_KEY="ci-secret", cwd=tmp_path), "bare.json has no seal",
                    "HELM_PLAN_KEY is set here")


OLDER = sorted((ROOT / "tests" / "fixtures" / "older-plans").glob("*.json"))


@pytest.mark.parametrize("saved", OLDER, ids=[p.stem for p in OLDER])
def test_plans_of_every_older_minor_version_are_read(saved: Path) -> None:
    """Plans as older versions wrote them (tests/fixtures/older-plans): the 1.6, 1.7 and 1.8
    goldens of two cases (`git show <commit>:tests/cases/<case>/expected.json` at a05835f^,
    e53c239^ and 7c90fb9), and a force-replace warning written by 604f787 (1.8, before its facts
    had `adopted`). A reader of 1.x reads every older 1.y: the published schema accepts them (a
    field with a default is optional), `show` reads them, and `verify` gets past reading the plan
    (these were written by -o json, so it stops at the missing inputs record)."""
    doc = json.loads(saved.read_text())
    assert doc["format_version"] == saved.stem.split("-")[0] != FORMAT_VERSION
    validate(doc)
    text = run_plan("show", str(saved), "--no-color")
    assert text.code == 0, text.err
    again = run_plan("show", str(saved), "-o", "json")
    assert again.code == 0, again.err
    validate(again.json())
    assert [w["code"] for w in again.json()["warnings"]] == [w["code"] for w in doc["warnings"]]
    _one_line_error(run_plan("verify", str(saved)), "has no inputs record")
