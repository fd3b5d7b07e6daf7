"""`helm plan revision` and `helm plan releases`: plans between stored revisions, read from a
real helm's release store."""
from __future__ import annotations

from pathlib import Path

from conftest import EXAMPLE, EXAMPLE_UPGRADE, Store, changes_of, run_plan


def test_what_a_revision_changed(helm: Path, store: Store) -> None:
    store.add("shop", EXAMPLE / "chart-v1", "shop", status="superseded")
    store.add("shop", EXAMPLE / "chart-v2", "shop", revision=2, status="superseded")
    store.add("shop", EXAMPLE / "chart-v1", "shop", revision=3)
    made = run_plan("revision", "shop", "1", "2", "-n", "shop", "-o", "json", helm=helm, store=store)
    assert made.code == 0, made.err
    doc = made.json()
    assert changes_of(doc) == EXAMPLE_UPGRADE
    assert (doc["header"]["previous_revision"], doc["header"]["revision"]) == (1, 2)
    assert doc["live"]["status"] == "skipped"
    swapped = run_plan("revision", "shop", "2", "1", "-n", "shop", "-o", "json", helm=helm, store=store)
    assert changes_of(swapped.json()) == EXAMPLE_UPGRADE  # the older revision first, as helm-diff
    since = run_plan("revision", "shop", "2", "-n", "shop", "-o", "json", "--detailed-exitcode", helm=helm, store=store)
    assert since.code == 2 and since.json()["header"]["revision"] == 3  # to the newest: back to chart-v1
    same = run_plan("revision", "shop", "1", "3", "-n", "shop", "--detailed-exitcode", helm=helm, store=store)
    assert same.code == 0, same.out + same.err
    missing = run_plan("revision", "shop", "7", "-n", "shop", helm=helm, store=store)
    assert missing.code == 1 and missing.err.startswith("helm plan: error: release shop has no revision 7")


def test_two_releases(helm: Path, store: Store) -> None:
    store.add("shop", EXAMPLE / "chart-v2", "prod")
    store.add("shop", EXAMPLE / "chart-v1", "stage")
    made = run_plan("releases", "stage/shop", "prod/shop", "-o", "json", helm=helm, store=store)
    assert made.code == 0, made.err
    assert changes_of(made.json())[:3] == [(a, k, n) for a, k, n in EXAMPLE_UPGRADE[:3]]
    bad = run_plan("releases", "a/b/c", "shop", helm=helm, store=store)
    assert bad.code == 1 and "'a/b/c' is not a release" in bad.err
