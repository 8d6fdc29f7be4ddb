"""Independent truth for the tests: the paper's formula evaluated entry by entry.

Nothing here uses pelib or NumPy's vectorised sine. Every value comes from
``math.sin``/``math.cos`` applied to the angle written exactly as in
Vaswani et al. (2017), eq. (PE): ``pos / base ** (2i / d_model)``.
"""

import math


def angle(pos, column, d_model, base=10000.0):
    """The angle of column ``column`` at position ``pos``; both columns 2i and 2i+1 use i."""
    i = column // 2
    return pos / base ** (2 * i / d_model)


def row(pos, d_model, base=10000.0):
    """PE(pos) in the interleaved layout: sine in even columns, cosine in odd ones."""
    return [
        math.sin(angle(pos, j, d_model, base)) if j % 2 == 0 else math.cos(angle(pos, j, d_model, base))
        for j in range(d_model)
    ]


def concat_row(pos, d_model, base=10000.0):
    """PE(pos) in the [sin | cos] layout: all ceil(d/2) sines, then floor(d/2) cosines."""
    n_sin = (d_model + 1) // 2
    sines = [math.sin(pos / base ** (2 * k / d_model)) for k in range(n_sin)]
    cosines = [math.cos(pos / base ** (2 * k / d_model)) for k in range(d_model // 2)]
    return sines + cosines


def table(n_positions, d_model, base=10000.0, start=0, layout="interleaved"):
    make = row if layout == "interleaved" else concat_row
    return [make(start + t, d_model, base) for t in range(n_positions)]


def tolerance(pos):
    """Double-precision error budget: the angle is only known to about |pos| * 2**-52."""
    return 1e-13 + 8 * abs(pos) * 2.0**-52


def max_abs_diff(array, rows):
    """Largest |array[t][j] - rows[t][j]|, read element by element."""
    worst = 0.0
    for t, expected in enumerate(rows):
        for j, value in enumerate(expected):
            worst = max(worst, abs(float(array[t][j]) - value))
    return worst
