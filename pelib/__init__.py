"""pelib: the sinusoidal positional encoding of "Attention Is All You Need".

The helper library of the book *The Sinusoidal Positional Encoding*. Every
function is explained, and checked, in the chapter its docstring names.
Importing ``pelib`` needs NumPy only. Drawing lives in :mod:`pelib.plots`
(Matplotlib), the interactive explorers in :mod:`pelib.explore` (ipywidgets)
and timing helpers in :mod:`pelib.timing`; each is imported on its own.
"""

from ._analysis import LinearFit, fit_linear_map, offset_distance, relative_dot
from ._base import BaseBracket, first_negative, rope_cosine_sum, smallest_base
from ._conventions import sinusoidal_direct, timing_signal
from ._encoding import LAYOUTS, encode, frequencies, sinusoidal, wavelengths
from ._grids import sincos_2d, sincos_3d, timestep_embedding
from ._identify import Identification, identify
from ._identify_grid import GridIdentification, TimestepReading
from ._identify_volume import VolumeIdentification
from ._positions import position_ids
from ._precision import angle_limit
from ._report import at_most, rounded, shown
from ._rope import (
    ROPE_LAYOUTS,
    apply_rope,
    convert_rope_weights,
    rope_permutation,
    rope_scaling,
)
from ._rotary_config import RotaryLayer, rotary_layers
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
    "BaseBracket",
    "LAYOUTS",
    "GridIdentification",
    "Identification",
    "LinearFit",
    "ROPE_LAYOUTS",
    "RotaryLayer",
    "angle_limit",
    "apply_rope",
    "at_most",
    "convert_rope_weights",
    "encode",
    "first_negative",
    "fit_linear_map",
    "frequencies",
    "identify",
    "offset_distance",
    "packed_matrices",
    "position_ids",
    "relative_dot",
    "rope_cosine_sum",
    "rope_permutation",
    "rope_scaling",
    "rotary_layers",
    "rounded",
    "shift",
    "shift_loop",
    "shift_matmul",
    "shift_matrix",
    "shift_packed",
    "shift_swap",
    "shown",
    "sincos_2d",
    "sincos_3d",
    "sinusoidal",
    "sinusoidal_direct",
    "smallest_base",
    "swap_vectors",
    "TimestepReading",
    "VolumeIdentification",
    "timestep_embedding",
    "timing_signal",
    "wavelengths",
]
