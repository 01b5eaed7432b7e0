"""``oxla.numpy.linalg``: ``jax.numpy.linalg``'s decompositions, solves, norms and matrix
helpers (from the extension's ``_oxla.linalg``)."""

from typing import NamedTuple

from .._oxla import linalg as _l

_BOUND = [
    "cholesky", "cond", "cross", "det", "diagonal", "eigvalsh", "inv", "lstsq", "matrix_norm",
    "matrix_power", "matrix_rank", "matrix_transpose", "multi_dot", "norm", "outer", "pinv",
    "solve", "svdvals", "trace", "vector_norm",
]
globals().update({name: getattr(_l, name) for name in _BOUND})
vecdot = _l.products.vecdot  # numpy's own: the same function

__all__ = sorted(_BOUND + ["vecdot", "eigh", "qr", "slogdet", "svd", "EighResult", "QRResult",
                          "SlogdetResult", "SVDResult"])


class EighResult(NamedTuple):
    """``eigh``'s result."""
    eigenvalues: object
    eigenvectors: object


class QRResult(NamedTuple):
    """``qr``'s result."""
    Q: object
    R: object


class SlogdetResult(NamedTuple):
    """``slogdet``'s result."""
    sign: object
    logabsdet: object


class SVDResult(NamedTuple):
    """``svd``'s result."""
    U: object
    S: object
    Vh: object


def eigh(a, UPLO=None, symmetrize_input=True):
    """The eigenvalues (ascending) and unit eigenvectors (columns) of symmetric matrices."""
    return EighResult(*_l.eigh(a, UPLO, symmetrize_input))


def qr(a, mode="reduced"):
    """The QR decomposition ``a = Q R`` (``mode="r"``: ``R`` alone)."""
    out = _l.qr(a, mode)
    return QRResult(*out) if isinstance(out, tuple) else out


def slogdet(a, *, method=None):
    """The sign and the log of the magnitude of the determinant."""
    return SlogdetResult(*_l.slogdet(a, method=method))


def svd(a, full_matrices=True, compute_uv=True, hermitian=False, subset_by_index=None):
    """``(U, S, Vh)`` with ``a = U diag(S) Vh`` (``compute_uv=False``: ``S`` alone)."""
    out = _l.svd(a, full_matrices, compute_uv, hermitian, subset_by_index)
    return SVDResult(*out) if isinstance(out, tuple) else out
