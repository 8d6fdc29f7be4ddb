"""Error bounds of pelib's tables against the exact values (the oracle), as its
docstrings state them.

``pelib.sinusoidal`` and ``pelib.encode``: every float64 entry within 5e-16 of the exact
value at every position |p| < 2**31, for every width, layout and base of at least 1 (the
3.1e-16 derived in ``pelib/_encoding.py``, rounded up to the figure the docstrings
promise); a float32, float16 or bfloat16 result is that value rounded once. Nothing
depends on the platform. Beyond 2**31 the docstrings state a measured growth of up to
about |p| 2**-95, bounded here by |p| 2**-93. A long double result is computed directly
in long double, so its bound depends on the platform (``EXTENDED``: a 64-bit mantissa,
the x87 format of x86-64 Linux).
"""

import numpy as np

EXTENDED = np.finfo(np.longdouble).nmant >= 63
ULP = 2.0**-53  # spacing of float64 numbers just below 1
FLOAT64 = 5e-16  # pelib's promise in float64 below 2**31
FLOAT32 = (
    2.0**-24
)  # and in float32: half a float32 unit (2**-25) plus the float64 error
FAR = 2.0**31


def sinusoidal(p, dtype=np.float64):
    """Largest error of ``pelib.sinusoidal`` or ``pelib.encode`` at positions up to
    ``|p|``."""
    float64 = FLOAT64 + (abs(p) * 2.0**-93 if abs(p) >= FAR else 0.0)
    if dtype == np.float64:
        return float64
    if dtype == np.float32:
        return FLOAT32 if abs(p) < FAR else 2.0**-25 + float64
    if dtype == np.float16:
        return 2.0**-12 + float64  # half a float16 unit for values in [1/2, 1)
    if np.dtype(dtype).name == "bfloat16":
        return (
            2.0**-9 + float64
        )  # half a bfloat16 unit (8 significant bits) for values in [1/2, 1)
    if dtype == np.longdouble:
        return 4 * 2.0**-64 + abs(p) * (2.0**-63 if EXTENDED else 2.0**-51)
    raise ValueError(dtype)


encode = sinusoidal


def direct(p, dtype=np.float64):
    """Largest error of the direct formula in float64 (``pelib.sinusoidal_direct``) at
    positions up to ``|p|``.

    The frequency w = exp(-x) comes from exp of a rounded argument x (chapter 10): off
    by w (1 + 2x) + E units of w's last place, at most 1.22 + E, with E the error of the
    machine's exp in units in the last place (E <= 2.25 assumed: within 1 for glibc, a
    few for vectorised libraries). The angle p * w adds one rounding, the sine one more
    and the rounding of p nothing below 2**53: (2 + 3.5 |p|) 2**-53 in all.
    """
    angle = ULP * (2 + 3.5 * abs(p))
    if dtype == np.float64:
        return angle
    if dtype == np.float32:
        return 2.0**-25 * (1 + 2.0**-20) + angle
    raise ValueError(dtype)
