"""mxffi.np.linalg: numpy's and the array API's linear algebra extension.

The functions are registered C++ functions ("np.linalg.<name>"): the factorizations and solvers
run LAPACK on the host, batched over the leading axes. ``eigh``, ``qr``, ``slogdet`` and ``svd``
return named tuples, as numpy's do; ``matmul``, ``matrix_transpose``, ``tensordot`` and
``vecdot`` are the main namespace's functions.
"""

from typing import NamedTuple

from ..error import LinAlgError
from ..ndarray import NDArray
from ..registry import init_api as _init_api


class EighResult(NamedTuple):
    eigenvalues: NDArray
    eigenvectors: NDArray


class QRResult(NamedTuple):
    Q: NDArray
    R: NDArray


class SlogdetResult(NamedTuple):
    sign: NDArray
    logabsdet: NDArray


class SVDResult(NamedTuple):
    U: NDArray
    S: NDArray
    Vh: NDArray


__all__ = _init_api("np.linalg", __name__)


def eigh(x, /, UPLO="L"):
    """Eigenvalues (ascending, in x's real dtype) and eigenvectors (the columns) of each
    Hermitian matrix of x, as an EighResult; UPLO names the triangle read."""
    return EighResult(*_eigh(x, UPLO))  # noqa: F821 (registered by _init_api)


def qr(x, /, *, mode="reduced"):
    """The QR factorization of each matrix of x as a QRResult (mode 'reduced' or 'complete');
    mode 'r' returns R alone, as numpy does."""
    res = _qr(x, mode=mode)  # noqa: F821
    return res[0] if mode == "r" else QRResult(*res)


def slogdet(x, /):
    """Sign and natural log of the absolute determinant of each square matrix of x, as a
    SlogdetResult (sign 0 and logabsdet -inf for a singular matrix)."""
    return SlogdetResult(*_slogdet(x))  # noqa: F821


def svd(x, /, *, full_matrices=True):
    """x = U @ diag(S) @ Vh for each matrix of x, as an SVDResult (S descending)."""
    return SVDResult(*_svd(x, full_matrices=full_matrices))  # noqa: F821


from . import matmul, matrix_transpose, tensordot, vecdot  # noqa: E402

__all__ = [n for n in __all__ if not n.startswith("_")] + [
    "LinAlgError",
    "eigh",
    "qr",
    "slogdet",
    "svd",
    "matmul",
    "matrix_transpose",
    "tensordot",
    "vecdot",
]
