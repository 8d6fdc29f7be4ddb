"""pelib: the sinusoidal positional encoding of "Attention Is All You Need".

The helper library of the book *The Sinusoidal Positional Encoding*. Every
function is explained, and checked, in the chapter its docstring names.
Importing ``pelib`` needs NumPy only; drawing lives in :mod:`pelib.plots`,
which imports Matplotlib when it is imported itself.
"""

from ._conventions import sinusoidal_direct, timing_signal
from ._encoding import LAYOUTS, encode, frequencies, sinusoidal, wavelengths
from ._shift import (
    packed_matrices,
    shift,
    shift_loop,
    shift_matmul,
    shift_matrix,
    shift_packed,
    shift_swap,
    swap_vectors,
)

__version__ = "0.1.0"

__all__ = [
    "LAYOUTS",
    "encode",
    "frequencies",
    "packed_matrices",
    "shift",
    "shift_loop",
    "shift_matmul",
    "shift_matrix",
    "shift_packed",
    "shift_swap",
    "sinusoidal",
    "sinusoidal_direct",
    "swap_vectors",
    "timing_signal",
    "wavelengths",
]
