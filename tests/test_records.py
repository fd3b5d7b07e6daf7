"""The NamedTuple of the modules read before the first helm call (deployah_plan/records.py): a
class declared with it behaves as the same class declared with typing's."""
from __future__ import annotations

import pickle
import typing
from typing import Any

import pytest

from deployah_plan import flags, pflag, records


def _declare(base: Any) -> Any:
    class Point(base):  # type: ignore[misc, valid-type]
        """A point."""

        x: int
        y: int = 0
        label: str = "p"

        @property
        def norm(self) -> int:
            return abs(self.x) + abs(self.y)

        def moved(self, by: int) -> Any:
            return self._replace(x=self.x + by)
    return Point


def test_a_declared_class_is_typings_named_tuple_at_run_time() -> None:
    ours, theirs = _declare(records.NamedTuple), _declare(typing.NamedTuple)
    for cls in (ours, theirs):
        assert cls._fields == ("x", "y", "label") and cls._field_defaults == {"y": 0, "label": "p"}
        assert cls.__doc__ == "A point." and cls.__name__ == "Point" and cls.__module__ == __name__
        assert list(cls.__annotations__) == ["x", "y", "label"]
        point = cls(3, label="q")
        assert tuple(point) == (3, 0, "q") and point.norm == 3 and point.moved(2) == cls(5, 0, "q")
        assert point == (3, 0, "q") and hash(point) == hash((3, 0, "q")) and isinstance(point, tuple)
        assert repr(point) == "Point(x=3, y=0, label='q')" and not hasattr(point, "__dict__")
        with pytest.raises(TypeError):
            cls()  # x has no default
        with pytest.raises(AttributeError):
            point.x = 1
    assert {ours(1), theirs(1)} == {ours(1)}  # equal by value, across the two


def test_a_field_without_a_default_after_one_with_a_default_is_refused_as_typing_refuses_it() -> None:
    for base in (records.NamedTuple, typing.NamedTuple):
        with pytest.raises(TypeError):
            class Bad(base):  # type: ignore[misc, valid-type]
                a: int = 1
                b: int


def test_the_flag_table_is_made_of_them() -> None:
    assert flags.OUTPUT.long == "--output" and flags.CONTEXT._replace(into="diff").into == "diff"
    assert flags.UPGRADE[0] == flags.UPGRADE[0]._replace() and len(set(flags.UPGRADE)) == len(flags.UPGRADE)
    assert pickle.loads(pickle.dumps(flags.AtLeast(3))) == flags.AtLeast(3)
    assert pflag.Given(flags.OUTPUT, "json").value == "json"
