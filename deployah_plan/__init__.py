"""helm plan: what `helm upgrade` or `helm install` is about to do, before it does it."""

__all__ = ["__version__"]
__version__ = "0.1.0"
