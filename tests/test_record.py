"""The inputs record's pieces (deployah_plan/record.py): digests that depend on content only, and a
command line with its secrets taken out by the command's own option table."""
from __future__ import annotations

import shutil
from pathlib import Path

from conftest import EXAMPLE
from deployah_plan import record
from deployah_plan.cli import main_group

DIGESTER = record.Digester.of("00ff", keyed=False)


def test_a_chart_folder_digests_by_paths_and_contents(tmp_path: Path) -> None:
    copy = Path(shutil.copytree(EXAMPLE / "chart-v2", tmp_path / "elsewhere"))
    reference = record.chart_digest(DIGESTER, str(EXAMPLE / "chart-v2"))
    assert record.chart_digest(DIGESTER, str(copy)) == reference  # the folder's own name and place do not count
    (copy / "templates" / "web.yaml").rename(copy / "templates" / "web2.yaml")
    assert record.chart_digest(DIGESTER, str(copy)) != reference
    (copy / "templates" / "web2.yaml").rename(copy / "templates" / "web.yaml")
    (copy / "values.yaml").write_text((copy / "values.yaml").read_text() + "\n")
    assert record.chart_digest(DIGESTER, str(copy)) != reference
    assert record.chart_digest(record.Digester.of("01ff", keyed=False), str(EXAMPLE / "chart-v2")) != reference


def test_the_command_line_keeps_keys_and_digests_values() -> None:
    upgrade = main_group.commands["upgrade"]
    argv = ["upgrade", "shop", "./chart", "--set", "db.password=hunter2,replicas=3", "--set-string=tag=1.2",
            "-f", "values.yaml", "--set-literal", "a=b,c", "--skip-crds", "-o", "json"]
    redacted = record.redact_argv(upgrade, argv, DIGESTER)
    assert "hunter2" not in " ".join(redacted) and "1.2" not in " ".join(redacted)
    assert redacted[3].startswith("--set=db.password,replicas=(hmac-sha256:")
    assert redacted[4].startswith("--set-string=tag=(hmac-sha256:")
    assert redacted[5] == "--values=values.yaml" and redacted[7:] == ["--skip-crds", "--output=json"]
    assert redacted[6].startswith("--set-literal=a=(hmac-sha256:")  # a literal's commas are its value
    assert record.hidden_values(redacted) and not record.hidden_values(argv)
    assert record.redact_argv(upgrade, argv, DIGESTER) == redacted  # the same salt, the same digests


def test_credentials_are_hidden_in_flags_and_in_urls() -> None:
    upgrade = main_group.commands["upgrade"]
    argv = ["upgrade", "shop", "https://ci:s3cret@charts.example.com/shop-1.0.0.tgz", "--username", "me",
            "--password", "s3cret", "--repo=oci://ci:s3cret@registry.example.com/charts",
            "-f", "https://ci:s3cret@config.example.com/values.yaml,local.yaml"]
    redacted = record.redact_argv(upgrade, argv, DIGESTER)
    assert redacted == ["upgrade", "shop", "https://(hidden)@charts.example.com/shop-1.0.0.tgz", "--username=me",
                        f"--password={record.HIDDEN}", "--repo=oci://(hidden)@registry.example.com/charts",
                        "--values=https://(hidden)@config.example.com/values.yaml", "--values=local.yaml"]
    assert record.hidden_values(redacted)
    assert not record.hidden_values(record.redact_argv(upgrade, ["upgrade", "shop", "https://charts.example.com/c.tgz"],
                                                       DIGESTER))


def test_no_fragment_of_a_set_value_is_kept_as_a_key() -> None:
    from deployah_plan.redact import value_keys
    assert value_keys("a=1,b.c=2") == "a,b.c"
    assert value_keys('db={"user":"a","password":"hunter2"}', whole=True) == "db"
    for value in ("list={s3cr3t,other}", "pw=ab\\,cd", 'x={"k":"v","p":"hunter2"}'):
        shown = value_keys(value)
        assert not any(fragment in shown for fragment in ("other", "cd", "hunter2", "s3cr3t")), shown
