"""``oxla.numpy``'s shape, polynomial and miscellaneous functions (re-exported by
``oxla.numpy``)."""

__all__ = []
