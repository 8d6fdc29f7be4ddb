"""Other ways of writing the encoding that are common in code (chapter 2)."""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import DTypeLike

from . import _validate
from ._formats import _format, to_dtype


def timing_signal(
    length: int,
    channels: int,
    *,
    min_timescale: float = 1.0,
    max_timescale: float = 1.0e4,
    start_index: float = 0,
) -> np.ndarray:
    r"""The encoding of tensor2tensor's ``get_timing_signal_1d``, as that function
    computes it.

    With :math:`K = \lfloor \text{channels}/2 \rfloor` timescales, the inverse
    timescales are

    .. math::

       \begin{aligned}
       \nu_i &= \text{min\_timescale} \cdot \exp(-i\,\delta),
       \qquad i = 0, \ldots, K - 1, \\
       \delta &= \frac{\log(\text{max\_timescale}/\text{min\_timescale})}
       {\max(K - 1, 1)},
       \end{aligned}

    and the signal of position :math:`p` is :math:`[\sin(p\nu) \mid \cos(p\nu)]`,
    followed by one zero column when ``channels`` is odd. This is not the
    paper's encoding: the layout is ``[sin | cos]``, the exponent is
    :math:`i/(K-1)` instead of :math:`2i/d`, and ``min_timescale`` multiplies
    the inverse timescales (so the timescales run from ``1/min_timescale``,
    not ``min_timescale``). Chapter 2 (:doc:`/notebooks/02_code_equivalence`)
    shows each difference.

    Parameters
    ----------
    length : int
        Number of positions, 0 or more.
    channels : int
        Number of columns, at least 1.
    min_timescale, max_timescale : float, default 1.0 and 1.0e4
        Finite and positive, as in tensor2tensor.
    start_index : float, default 0
        Position of the first row.

    Returns
    -------
    numpy.ndarray
        Float64 array of shape ``(length, channels)`` (tensor2tensor returns
        float32 with a leading axis of size 1).

    Examples
    --------
    >>> timing_signal(2, 5, max_timescale=100.0).round(4)
    array([[0.    , 0.    , 1.    , 1.    , 0.    ],
           [0.8415, 0.01  , 0.5403, 1.    , 0.    ]])
    """
    length = _validate.size(length, "length", minimum=0)
    channels = _validate.size(channels, "channels", minimum=1)
    _validate.fits(length * channels, 8, "length and channels")
    min_timescale = _validate.real(min_timescale, "min_timescale", positive=True)
    max_timescale = _validate.real(max_timescale, "max_timescale", positive=True)
    start_index = _validate.real(start_index, "start_index")

    num_timescales = channels // 2
    names = "start_index, min_timescale and max_timescale"
    with _validate.arithmetic(names, "the angles position * inverse timescale are"):
        ratio = (
            max_timescale / min_timescale
        )  # as tensor2tensor computes it, unless the quotient overflows
        log_ratio = (
            math.log(ratio)
            if 0 < ratio < math.inf
            else math.log(max_timescale) - math.log(min_timescale)
        )
        increment = log_ratio / max(num_timescales - 1, 1)
        inv_timescales = min_timescale * np.exp(-increment * np.arange(num_timescales))
        angles = np.multiply.outer(
            start_index + np.arange(length, dtype=np.float64), inv_timescales
        )
        signal = np.zeros((length, channels))
        signal[:, :num_timescales] = np.sin(angles)
        signal[:, num_timescales : 2 * num_timescales] = np.cos(angles)
    return signal


def sinusoidal_direct(
    n_positions: int,
    d_model: int,
    *,
    base: float = 10000.0,
    start: int = 0,
    dtype: DTypeLike = np.float64,
) -> np.ndarray:
    r"""The paper's table computed the way most framework code does, every step in
    ``dtype``.

    Positions and frequencies :math:`\exp(-2i \log(\text{base}) / d)` are
    rounded to ``dtype``, and the angles :math:`p\,\omega_i` and their sines
    and cosines are formed in ``dtype``, as in the PyTorch tutorial, the
    Annotated Transformer and Dive into Deep Learning (which use float32). In
    float32 the angle is rounded to 24 bits before the sine is taken, so an
    entry can be off by up to about :math:`2p \cdot 2^{-24}` (the rounding of
    :math:`\omega_i` and of :math:`p\,\omega_i`): measured against mpmath at
    :math:`d = 1024`, about 3e-6 at position 49, 4e-4 at 8,191 and 1e-3 by
    position 20,000. Compare :func:`sinusoidal`, which forms its angles to within
    about :math:`2^{-64}` radians and stays within 5e-16 of the exact values.
    Chapter 2 (:doc:`/notebooks/02_code_equivalence`) uses it for the
    float32 implementations, chapter 10 (:doc:`/notebooks/10_precision_and_speed`)
    measures it.

    Parameters
    ----------
    n_positions : int
        Number of rows, 0 or more.
    d_model : int
        Number of columns, at least 1 (an odd width ends with a sine column).
    base : float, default 10000.0
        Finite and positive, and such that every frequency is finite in ``dtype``.
    start : int, default 0
        Position of the first row. The positions are rounded to ``dtype`` like
        everything else: in float32, from :math:`2^{24}` on, two neighbouring positions
        can become the same number; in float16 from 2,048 on, in bfloat16 from 256 on.
        Positions that round to infinity in ``dtype`` (in float16, 65,520 and beyond;
        65,505 to 65,519 round to 65,504) are refused, where framework code would
        produce rows of nan.
    dtype : numpy floating dtype or ml_dtypes.bfloat16, default numpy.float64
        The precision of every step, and of the result. For bfloat16 each
        operation is computed in float32 and its result rounded to bfloat16,
        as PyTorch and ``ml_dtypes`` do: a product of two bfloat16 numbers is
        exact in float32, so the angle is the exact product rounded once; the
        sine is float32's, rounded. bfloat16 has 8 significant bits: positions
        are exact up to 256 only (257 rounds to 256), and at 16,384 they are
        128 apart. float16 is computed the same way (angles in float16, each
        sine and cosine float32's, rounded), so the result does not depend on
        whether the CPU has float16 arithmetic of its own.

    Returns
    -------
    numpy.ndarray
        Array of shape ``(n_positions, d_model)`` and type ``dtype``.

    Examples
    --------
    >>> import oracle
    >>> low = sinusoidal_direct(50, 512, dtype=np.float32)
    >>> float(oracle.error(low[49:], [49], 512).max()) > 1e-6
    True
    """
    n_positions = _validate.size(n_positions, "n_positions", minimum=0)
    d_model = _validate.size(d_model, "d_model", minimum=1)
    base = _validate.real(base, "base", positive=True)
    start = _validate.size(start, "start", minimum=0)
    dtype = _validate.float_dtype(dtype)
    _validate.fits(n_positions * d_model, dtype.itemsize, "n_positions and d_model")
    if n_positions:
        last = start + n_positions - 1
        try:
            last_float = float(last)
        except OverflowError:
            last_float = math.inf
        with np.errstate(over="ignore"):
            rounded = to_dtype(np.asarray(last_float), dtype)
        if not np.isfinite(rounded):
            raise ValueError(
                f"start and n_positions: position {last} rounds to infinity "
                f"in {dtype.name} (the largest "
                f"{dtype.name} is {float(_format(dtype).largest):g}); "
                "framework code would give rows of nan there"
            )
    if _validate.is_bfloat16(
        dtype
    ):  # positions rounded once (ml_dtypes' cast of an integer rounds twice)
        position = to_dtype(
            float(start) + np.arange(n_positions, dtype=np.float64), dtype
        )[:, None]
    elif start + n_positions < 2**63:
        position = (start + np.arange(n_positions, dtype=np.int64)).astype(dtype)[
            :, None
        ]
    else:
        position = (float(start) + np.arange(n_positions, dtype=np.float64)).astype(
            dtype
        )[:, None]
    # The frequencies are exp(-2i log(base) / d) in float64, then rounded to dtype: for
    # float32, float16 and bfloat16 (and correctly rounded exp) that is the correctly
    # rounded frequency; in float64 the exp of a rounded argument can be off by several
    # units of its own last place (up to about 15 at d = 1024; at most (1.22 + E) 2**-53
    # in absolute terms for an exp within E ulps, chapter 10), like the code it models.
    # From here on every step is in dtype (for bfloat16, as ml_dtypes and PyTorch do it:
    # each operation in float32, its result rounded to bfloat16).
    with np.errstate(over="ignore", under="ignore"):
        div_term = to_dtype(
            np.exp(np.arange(0, d_model, 2) * (-math.log(base) / d_model)), dtype
        )
    if not np.all(np.isfinite(div_term)):
        raise ValueError(
            f"base={base!r} is too small for d_model={d_model}: "
            f"its frequencies overflow {dtype.name}"
        )
    with _validate.arithmetic("start, base and dtype", "the angles p * w are"):
        angles = position * div_term
        table = np.empty((n_positions, d_model), dtype=dtype)
        # A float16 sine or cosine is float32's, rounded, as frameworks compute it on
        # the CPU and the GPU; NumPy's own float16 loops on some CPUs (AVX512-FP16) are
        # less accurate.
        argument = angles.astype(np.float32) if dtype == np.float16 else angles
        table[:, 0::2] = np.sin(argument)
        table[:, 1::2] = np.cos(argument[:, : d_model // 2])
    return table
