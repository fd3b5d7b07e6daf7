"""helm plan: what `helm upgrade` or `helm install` is about to do, before it does it."""

__all__ = ["__version__"]
# The one place the version is written: pyproject.toml reads it (dynamic), `helm plan version`
# says it, and plugin.yaml, which helm reads as text, repeats it (tests/test_packaging.py holds
# them equal; scripts/release moves both).
__version__ = "0.1.0"
