"""Error bounds of pelib's tables against the exact values (the oracle), as its docstrings state them.

``EXTENDED`` says whether NumPy's long double has a 64-bit mantissa (the x87 format of
x86-64 Linux): pelib forms its angles in long double, so its accuracy depends on it.
The bounds for other platforms are the direct formula's, which is all pelib promises there.
"""

import numpy as np

EXTENDED = np.finfo(np.longdouble).nmant >= 63
ULP = 2.0**-53  # spacing of float64 numbers just below 1


def sinusoidal(p, dtype=np.float64):
    """Largest error of ``pelib.sinusoidal`` for a table with ``|start| + n_positions <= |p|``.

    The docstring's measured bound for every table tested (8 units in the last place from the
    complex multiplications); a float32 or float16 table is the float64 one rounded once.
    """
    angle = abs(p) * (2.0**-63 if EXTENDED else 2.0**-51)
    if dtype == np.float64:
        return 8 * ULP + angle
    if dtype == np.float32:
        return 2.0**-25 + 8 * ULP + angle
    if dtype == np.float16:
        return 2.0**-12 + 8 * ULP + angle
    if dtype == np.longdouble:
        return 4 * 2.0**-64 + angle
    raise ValueError(dtype)


def encode(p, dtype=np.float64):
    """Largest error of ``pelib.encode`` at positions up to ``|p|``: the angle is rounded in double precision."""
    angle = ULP * (2 + 2 * abs(p))
    if dtype == np.float64:
        return angle
    if dtype == np.float32:
        return 2.0**-25 * (1 + 2.0**-20) + angle
    raise ValueError(dtype)
