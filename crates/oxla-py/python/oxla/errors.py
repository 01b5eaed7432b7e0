"""oxla's exceptions (JAX's names where JAX has one)."""

from ._oxla import ConcretizationTypeError, OutOfMemoryError

__all__ = ["ConcretizationTypeError", "OutOfMemoryError"]
