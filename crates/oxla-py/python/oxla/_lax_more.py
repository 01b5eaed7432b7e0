"""``lax``'s primitives beyond the elementwise table (reductions, windows, convolutions,
cumulative operations, bit operations), re-exported by ``oxla.lax``."""

__all__ = []
