"""``oxla.numpy``'s statistics, sorting, searching, sets and index functions (re-exported
by ``oxla.numpy``)."""

__all__ = []
