"""What `helm plan verify` says moved between a saved plan and the plan made again
(commands/verify.py `plan_difference`). The command end to end is tests/e2e/test_verify.py."""
from __future__ import annotations


from deployah_plan.commands.verify import plan_difference, without_regenerated


# -- with a cluster: drift, and the deploy command run by helm ------------------------------


def test_the_plan_difference_names_impacts_that_moved() -> None:
    then = {"impact": [{"kind": "restart", "message": "Deployment shop/web: pod template changes: 2 pods restart"}]}
    now = {"impact": [{"kind": "restart", "message": "Deployment shop/web: pod template changes: 5 pods restart"}]}
    assert plan_difference(then, now) == [
        "  - impact restart: Deployment shop/web: pod template changes: 2 pods restart",
        "  + impact restart: Deployment shop/web: pod template changes: 5 pods restart",
    ]


def _field(after: object, regenerated: bool = True, path: str = "/data/password", **more: object) -> dict[str, object]:
    return {"path": path, "op": "replace", "before": "old", "after": after,
            **({"regenerated": True} if regenerated else {}), **more}


def test_a_regenerated_value_may_differ_by_being_made_anew_and_by_nothing_else() -> None:
    """Issue 48 point 1: what the saved plan marks regenerated may differ now, if it is still
    marked regenerated; its old value and every other field are compared as before."""
    def plan(*fields: dict[str, object]) -> dict[str, object]:
        return {"changes": [{"resource": {"api_version": "v1", "kind": "Secret", "namespace": "s", "name": "db"},
                             "action": "update", "fields": list(fields)}]}

    then = plan(_field("aaa", line_diff=["-a", "+b"]), _field("x", regenerated=False, path="/data/user"))
    assert plan_difference(without_regenerated(then), without_regenerated(
        plan(_field("bbb"), _field("x", regenerated=False, path="/data/user")))) == []
    fixed = plan(_field("bbb", regenerated=False), _field("x", regenerated=False, path="/data/user"))
    assert plan_difference(without_regenerated(then), without_regenerated(fixed)) == [
        "  ~ change update Secret s/db: fields at /data/password differ"]
    other_old = plan({**_field("bbb"), "before": "older"}, _field("x", regenerated=False, path="/data/user"))
    assert plan_difference(without_regenerated(then), without_regenerated(other_old)) != []
    other_user = plan(_field("bbb"), _field("y", regenerated=False, path="/data/user"))
    assert plan_difference(without_regenerated(then), without_regenerated(other_user)) != []
    assert then["changes"][0]["fields"][0]["after"] == "aaa"  # type: ignore[index]  # the saved plan is not changed


def test_a_generated_name_may_differ_by_being_made_anew() -> None:
    def plan(name: str, image: str) -> dict[str, object]:
        ref = {"api_version": "v1", "kind": "Pod", "namespace": "s", "name": name}
        return {"tasks": [{"name": f"Pod s/{name}", "resources": [ref], "definitions": [
            {"resource": ref, "action": "update",
             "fields": [_field(name, path="/metadata/name"), _field(image, regenerated=False, path="/spec/image")]}]}]}

    assert plan_difference(without_regenerated(plan("test-abcde", "a:1")),
                           without_regenerated(plan("test-fghij", "a:1"))) == []
    assert plan_difference(without_regenerated(plan("test-abcde", "a:1")),
                           without_regenerated(plan("test-fghij", "a:2"))) != []
