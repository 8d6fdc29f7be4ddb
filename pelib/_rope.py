"""Rotary position embedding (RoPE, Su et al. 2021): the shift property applied to
queries and keys.

Chapter 7 (:doc:`/notebooks/07_rope`) explains it; chapter 9
(:doc:`/notebooks/09_context_extension`) uses :func:`rope_scaling`."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np
from numpy.typing import ArrayLike

from . import _validate
from ._encoding import _angular_frequencies

ROPE_LAYOUTS = ("half", "interleaved")


def apply_rope(
    x: ArrayLike,
    positions: ArrayLike,
    *,
    base: float | None = None,
    layout: str = "half",
    frequencies: ArrayLike | None = None,
    attention_factor: float = 1.0,
) -> np.ndarray:
    r"""Rotate the pairs of ``x`` by position times frequency: rotary position
    embedding.

    For the row of position :math:`p` and pair :math:`i` with entries
    :math:`(a, b)`, the result is the counter-clockwise rotation by
    :math:`p\,\omega_i`, with the paper's frequencies
    :math:`\omega_i = \text{base}^{-2i/d}` (or the given ``frequencies``),
    scaled by the attention factor :math:`m` (1 unless given):

    .. math:: (a, b) \mapsto m\,(a \cos p\omega_i - b \sin p\omega_i,\;
              a \sin p\omega_i + b \cos p\omega_i).

    Chapter 7 (:doc:`/notebooks/07_rope`) derives it from the shift property
    and checks what it preserves. :func:`rope_scaling` gives the frequencies
    and attention factor of the context-extension methods (linear, dynamic
    NTK, YaRN, Llama 3).

    Parameters
    ----------
    x : array_like
        Real array of shape ``(..., n, d)``, ``d`` even: ``n`` rows (tokens)
        of width ``d``, with any leading axes. ``d`` is the width of one
        attention head (``head_dim``), not ``d_model``: each head is rotated
        on its own.
    positions : array_like
        The position of each of the ``n`` rows: shape ``(n,)``, or any shape
        that broadcasts to ``x.shape[:-1]`` without adding axes. Any finite
        real numbers.
    base : float, optional
        Finite and positive; the frequencies are ``base ** (-2i / d)``.
        Default (None) 10000.0. Not together with ``frequencies``.
    layout : {"half", "interleaved"}, default "half"
        Which columns form a pair. ``"half"`` pairs column ``i`` with
        ``i + d/2`` (the ``rotate_half`` form of Llama in Hugging Face
        transformers); ``"interleaved"`` pairs ``2i`` with ``2i + 1`` (the
        RoFormer paper and Hugging Face's RoFormer).
    frequencies : array_like, optional
        The angular frequency of each pair, shape ``(d // 2,)``, finite and
        positive (such as the first result of :func:`rope_scaling`); they
        replace ``base ** (-2i / d)``. Pair ``i`` is columns ``(i, i + d/2)``
        or ``(2i, 2i + 1)`` as ``layout`` says.
    attention_factor : float, default 1.0
        Finite and positive. Cosine and sine are multiplied by it, as Hugging
        Face's rotary embedding multiplies them by ``attention_scaling``, so
        every query-key score of rotated rows is multiplied by its square
        (YaRN's attention temperature).

    Returns
    -------
    numpy.ndarray
        Float array of the shape and type of ``x`` (float64 for integer ``x``).

    Raises
    ------
    TypeError
        If ``x``, ``positions``, ``base``, ``frequencies`` or
        ``attention_factor`` is not real, or ``layout`` is not a string.
    ValueError
        If ``d`` is odd or zero, a position is not finite, ``positions`` does
        not broadcast to ``x.shape[:-1]``, ``layout`` is unknown, ``base`` or
        ``attention_factor`` is not finite and positive, ``frequencies`` is not
        ``d // 2`` finite positive numbers or is given together with ``base``,
        or the angles or the rotated values overflow the floating-point range.

    Examples
    --------
    >>> apply_rope([[1.0, 0.0]], [np.pi / 2]).round(12) + 0.0
    array([[0., 1.]])
    >>> y = apply_rope([[1.0, 0.0]], [1.0], frequencies=[np.pi], attention_factor=2.0)
    >>> y.round(12) + 0.0
    array([[-2.,  0.]])
    """
    x = _validate.float_array(x, "x")
    if x.ndim < 2 or x.shape[-1] == 0:
        raise ValueError(
            f"x must have shape (..., n, d) with d >= 2, got shape {x.shape}"
        )
    d = x.shape[-1]
    if d % 2:
        raise ValueError(f"the last axis of x (d) must be even to form pairs, got {d}")
    positions = _validate.real_array(positions, "positions")
    if base is not None:
        base = _validate.real(base, "base", positive=True)
    layout = _validate.choice(layout, "layout", ROPE_LAYOUTS)
    omega = _given_frequencies(frequencies, base, d)
    attention_factor = _validate.real(
        attention_factor, "attention_factor", positive=True
    )
    _check_positions(positions, x.shape)
    _validate.fits(x.size, 8, "x")
    if omega is None:
        omega = _angular_frequencies(d, 10000.0 if base is None else base, np.float64)
    cos, sin = _cos_sin(
        np.broadcast_to(positions, x.shape[:-1]),
        omega,
        "base" if frequencies is None else "frequencies",
        attention_factor,
        x.dtype,
    )
    return _rotate_pairs(x, cos, sin, layout, attention_factor != 1.0)


def _given_frequencies(
    frequencies: ArrayLike | None, base: float | None, d: int
) -> np.ndarray | None:
    """The frequencies given to :func:`apply_rope`, checked (None if none are given;
    refused together with ``base``)."""
    omega = None if frequencies is None else _pair_frequencies(frequencies, d)
    if omega is not None and base is not None:
        raise ValueError(
            "give base or frequencies, not both: frequencies replace the frequencies "
            f"base ** (-2i/d), got base={base!r} and frequencies"
        )
    return omega


def _check_positions(positions: np.ndarray, shape: tuple[int, ...]) -> None:
    """Refuse positions that do not broadcast to the rows of ``x`` (of ``shape``)
    without adding axes."""
    try:
        broadcast = np.broadcast_shapes(positions.shape, shape[:-1])
    except ValueError:
        raise ValueError(
            f"positions of shape {positions.shape} do not broadcast against "
            f"x.shape[:-1] = {shape[:-1]}"
        ) from None
    if broadcast != shape[:-1]:
        raise ValueError(
            f"positions of shape {positions.shape} would add axes to x of shape {shape}"
        )


def _cos_sin(
    positions: np.ndarray,
    omega: np.ndarray,
    source: str,
    attention_factor: float,
    dtype: np.dtype,
) -> tuple[np.ndarray, np.ndarray]:
    """cos and sin of the angles ``positions * omega``, times the attention factor, in
    ``dtype``; ``source`` names what the frequencies came from, for messages."""
    with _validate.arithmetic("positions and " + source, "the angles p * w are"):
        angles = np.multiply.outer(positions, omega)
    cos, sin = np.cos(angles), np.sin(angles)
    with _validate.arithmetic(
        "attention_factor", f"cos and sin times attention_factor in {dtype} are"
    ):
        # Hugging Face's attention_scaling: it multiplies cos and sin, not the result
        if attention_factor != 1.0:
            cos, sin = cos * attention_factor, sin * attention_factor
        cos, sin = cos.astype(dtype, copy=False), sin.astype(dtype, copy=False)
    return cos, sin


def _rotate_pairs(
    x: np.ndarray, cos: np.ndarray, sin: np.ndarray, layout: str, scaled: bool
) -> np.ndarray:
    """Each pair ``(a, b)`` of ``x``, its columns as ``layout`` says, turned to
    ``(a cos - b sin, a sin + b cos)``; ``scaled`` says whether cos and sin hold an
    attention factor, for messages."""
    d = x.shape[-1]
    first, second = (
        (slice(0, d // 2), slice(d // 2, d))
        if layout == "half"
        else (slice(0, d, 2), slice(1, d, 2))
    )
    a, b = x[..., first], x[..., second]
    out = np.empty_like(x)
    with _validate.arithmetic(
        "x and attention_factor" if scaled else "x", "the rotated values are"
    ):
        out[..., first] = a * cos - b * sin
        out[..., second] = a * sin + b * cos
    return out


def _pair_frequencies(frequencies: ArrayLike, d: int) -> np.ndarray:
    """``frequencies`` as float64, checked to be d // 2 finite positive numbers (one per
    pair)."""
    omega = _validate.real_array(frequencies, "frequencies", ndim=1)
    if omega.shape != (d // 2,):
        raise ValueError(
            f"frequencies must hold one frequency per pair, d // 2 = {d // 2} for the "
            f"last axis of x (d = {d}), got shape {omega.shape}"
        )
    if not np.all(omega > 0):
        raise ValueError(
            "frequencies must be positive, got "
            f"{float(omega[omega <= 0][0])!r} among them"
        )
    return omega


#: The context-extension methods of :func:`rope_scaling`.
ROPE_SCALINGS = ("linear", "dynamic", "yarn", "llama3")

#: The keyword arguments of :func:`rope_scaling` beyond ``d``, ``method``, ``base`` and
#: ``factor``, with their defaults, and the methods that read each. Any other method
#: must be given the default.
_SCALING_OPTIONS: dict[str, tuple[Any, tuple[str, ...]]] = {
    "original_context": (None, ("dynamic", "yarn", "llama3")),
    "context": (None, ("dynamic",)),
    "beta_fast": (32.0, ("yarn",)),
    "beta_slow": (1.0, ("yarn",)),
    "truncate": (True, ("yarn",)),
    "mscale": (None, ("yarn",)),
    "mscale_all_dim": (None, ("yarn",)),
    "attention_factor": (None, ("yarn",)),
    "low_freq_factor": (1.0, ("llama3",)),
    "high_freq_factor": (4.0, ("llama3",)),
}


def rope_scaling(
    d: int,
    method: str,
    *,
    base: float = 10000.0,
    factor: float = 1.0,
    original_context: float | None = None,
    context: float | None = None,
    beta_fast: float = 32.0,
    beta_slow: float = 1.0,
    truncate: bool = True,
    mscale: float | None = None,
    mscale_all_dim: float | None = None,
    attention_factor: float | None = None,
    low_freq_factor: float = 1.0,
    high_freq_factor: float = 4.0,
) -> tuple[np.ndarray, float]:
    r"""Rotary frequencies and attention factor of a context-extension method, as
    Hugging Face computes them.

    Each method changes the frequencies :math:`\theta_i = b^{-2i/d}` (``b`` = ``base``,
    :math:`i = 0 \ldots d/2 - 1`) of rotary embedding; :math:`s` is ``factor``,
    :math:`L` ``original_context`` (the context the model was trained with).
    :func:`apply_rope` takes both results (``frequencies=``, ``attention_factor=``).
    Chapter 7 (:doc:`/notebooks/07_rope`) introduces the rotation they feed; chapter 9
    (:doc:`/notebooks/09_context_extension`) compares the methods with numbers. The
    conventions are those of Hugging Face ``transformers`` 5.23.0 (see Notes for other
    versions).

    ``"linear"``, position interpolation (Chen et al. 2023; kaiokendev): every frequency
    divided by the factor, which is dividing every position by it.

    .. math:: \omega_i = \theta_i / s

    ``"dynamic"``, dynamic NTK (bloc97 and emozilla; Peng et al. 2024, section 3.3): a
    larger base, grown with the current context :math:`c` (``context``, default
    :math:`L`):

    .. math:: \omega_i = b'^{-2i/d},
              \qquad b' = b\,\bigl(s\,\bar c / L - (s - 1)\bigr)^{d/(d-2)},
              \qquad \bar c = \max(c, L).

    ``"yarn"`` (Peng et al. 2024), NTK-by-parts with an attention factor: with
    :math:`j(r) = d \ln(L / (2\pi r)) / (2 \ln b)`, the (real) index of the pair that
    turns :math:`r` times in :math:`L` positions, the correction range is :math:`\ell =
    \max(\lfloor j(\beta_\text{fast}) \rfloor, 0)`, :math:`h = \min(\lceil
    j(\beta_\text{slow}) \rceil, d - 1)` (no rounding if ``truncate`` is False; :math:`h
    = \ell + 0.001` if they are equal), and

    .. math:: \rho_i = \min\bigl(1, \max(0, (i - \ell)/(h - \ell))\bigr), \qquad
              \omega_i = \rho_i\,\theta_i / s + (1 - \rho_i)\,\theta_i:

    pairs that turn more than ``beta_fast`` times in :math:`L` positions keep their
    frequency, those that turn fewer than ``beta_slow`` times are divided by the factor
    (except at the extremes of the Notes). :math:`j` is computed with Hugging Face's
    expression ``(d * math.log(L / (r * 2 * math.pi))) / (2 * math.log(b))``, operation
    for operation, so the rounded bounds are Hugging Face's to the bit. The attention
    factor is ``attention_factor`` if given, else :math:`\mu(s, m)/\mu(s, m_\text{all})`
    for ``mscale`` :math:`m` and ``mscale_all_dim`` :math:`m_\text{all}` if both are
    given and non-zero, else :math:`\mu(s, 1)`, where :math:`\mu(s, m) = 0.1\,m \ln s +
    1` (1 for :math:`s = 1`).

    ``"llama3"`` (Meta's Llama 3.1): with :math:`r_i = L\theta_i / (2\pi)`, the number
    of turns of pair :math:`i` in :math:`L` positions (:math:`L/\lambda_i` for the
    wavelength :math:`\lambda_i`), :math:`\ell` = ``low_freq_factor`` and :math:`h` =
    ``high_freq_factor``:

    .. math:: \sigma_i = \min\bigl(1, \max(0, (r_i - \ell)/(h - \ell))\bigr), \qquad
              \omega_i = (1 - \sigma_i)\,\theta_i / s + \sigma_i\,\theta_i:

    wavelengths below :math:`L/h` keep their frequency, those above :math:`L/\ell` are
    divided by the factor, and those between are blended linearly in
    :math:`L/\lambda_i`.

    Parameters
    ----------
    d : int
        The rotary width (``head_dim``, or its rotated part), even and at least 2.
    method : {"linear", "dynamic", "yarn", "llama3"}
        Hugging Face's ``rope_type``.
    base : float, default 10000.0
        The base :math:`b` (``rope_theta``), finite and greater than 1.
    factor : float, default 1.0
        The scaling factor :math:`s`, finite and at least 1. A factor of 1 leaves the
        frequencies of ``"linear"``, ``"yarn"`` and ``"llama3"`` unchanged; dynamic NTK
        still grows the base with the context.
    original_context : float, optional
        The trained context :math:`L`: Hugging Face's
        ``original_max_position_embeddings`` for YaRN and Llama 3, and
        ``max_position_embeddings`` for dynamic NTK. Finite and positive; required by
        ``"dynamic"``, ``"yarn"`` and ``"llama3"``.
    context : float, optional
        ``"dynamic"`` only: the context :math:`c` the frequencies are for. Finite and
        positive; default :math:`L`, giving the default frequencies. In Hugging Face's
        forward pass it is ``max(position_ids) + 1`` of the longest sequence since the
        cache of lengths was last reset (transformers 4.45 to 4.57 and 5.13 to 5.23; see
        Notes for 5.0 to 5.12).
    beta_fast, beta_slow : float, default 32.0 and 1.0
        ``"yarn"`` only: the turns in :math:`L` positions above which a pair keeps its
        frequency and below which it is divided by the factor. Finite, positive, with
        :math:`L / (2\pi\beta)` a normal float64 number, and ``beta_fast >= beta_slow``.
        Equal values make the ramp a step.
    truncate : bool, default True
        ``"yarn"`` only: round the correction range outwards to whole pairs (Hugging
        Face's default and the YaRN reference code); False keeps the real bounds.
    mscale, mscale_all_dim : float, optional
        ``"yarn"`` only: finite and at least 0; used only when both are given and
        non-zero, as Hugging Face does.
    attention_factor : float, optional
        ``"yarn"`` only: the attention factor to return, as given, instead of the
        computed one; finite and positive.
    low_freq_factor, high_freq_factor : float, default 1.0 and 4.0
        ``"llama3"`` only: the band limits :math:`\ell < h`, finite and positive.

    Returns
    -------
    frequencies : numpy.ndarray
        Float64 array of shape ``(d // 2,)``: positive normal numbers (at least
        ``2**-1022``; smaller ones are refused). The exact values of the definitions
        decrease strictly with :math:`i` for every method, the crossed YaRN ramps of the
        Notes included (they keep every pair or divide every pair).
    attention_factor : float
        The factor Hugging Face multiplies cos and sin with: 1.0 except for ``"yarn"``,
        where a computed one is a normal float64 number.

    Raises
    ------
    TypeError
        If ``d`` is not an integer, ``method`` not a string, ``truncate`` not a bool, or
        another parameter not a real number (or None where None is allowed).
    ValueError
        If ``d`` is odd or below 2, ``method`` is unknown, a parameter is out of the
        range above, ``original_context`` is missing for a method that needs it, a
        parameter the method does not read is not at its default, ``beta_fast <
        beta_slow``, ``low_freq_factor >= high_freq_factor``, :math:`2\pi\beta` or
        :math:`L / (2\pi\beta)` is 0, infinite or subnormal in float64, the scaled base
        of ``"dynamic"`` overflows, a frequency underflows to 0 or to a subnormal number
        (a factor or base near the float64 limits), or the attention factor computed
        from ``mscale`` and ``mscale_all_dim`` is 0, infinite or subnormal. Each message
        names the parameters.

    Notes
    -----
    Versions. pelib computes what ``transformers`` 5.23.0 (``modeling_rope_utils.py``)
    computes, in float64 where it computes in float32; it was compared with that module
    itself, and ``tests/test_rope_scaling.py`` compares it with the transcriptions of
    ``oracle.rope_scaling``. Other versions of ``transformers`` differ:

    - 4.45 to 4.50 take YaRN's original length from ``max_position_embeddings`` (the
      extended length) and ignore ``mscale`` and ``mscale_all_dim``;
    - 4.51 to 4.55 replace ``factor`` by ``max_position_embeddings /
      original_max_position_embeddings`` whenever ``original_max_position_embeddings``
      is given (as Megatron-LM issue #1418 notes); from 4.56 on the given ``factor`` is
      used (from 5.0 on the ratio replaces only a missing one), so ``factor`` here is
      the one the model runs with;
    - ``truncate`` exists from 4.55 on (earlier versions always round);
    - 5.0 to 5.12 store the cached length of dynamic NTK with
      ``setattr(self, f"{layer_type}_max_seq_len_cached", seq_len)``, which for a model
      without layer types sets an attribute that is never read: every pass longer than
      :math:`L` is rotated for its own length, and a shorter pass keeps the frequencies
      of the last longer one, so ``context`` is that length there.

    Where the definitions differ from the papers:

    - Dynamic NTK: the YaRN paper (section 3.3) scales by :math:`\max(1, c/L)` in the
      NTK-aware base :math:`b\,s^{d/(d-2)}`; Hugging Face, after emozilla's code, uses
      :math:`s\bar c/L - (s - 1)`: the paper's :math:`\bar c/L` for :math:`s = 1`, and
      for larger factors 1 at :math:`\bar c = L` and :math:`s` times steeper. For ``d =
      2`` the one frequency is 1 whatever the base (Hugging Face divides by ``d - 2``
      and fails there).
    - YaRN: the paper's ramp :math:`\gamma(r)` is linear in the number of turns
      :math:`r` between :math:`\alpha` = ``beta_slow`` and :math:`\beta` =
      ``beta_fast``; Hugging Face's, like the reference code's, is linear in the pair
      index (so in :math:`\ln r`) between bounds rounded outwards to whole pairs. The
      two agree on which pairs keep their frequency and which are divided by the factor,
      not on the pairs between.
    - YaRN's bounds are clamped to ``[0, d - 1]``, not ``[0, d/2 - 1]``, as in Hugging
      Face's code, and at two extremes far from any released model the clamp, not the
      turns, decides. Fast end: with truncation, from :math:`L \ge 2\pi\beta_\text{fast}
      b^2` (:math:`j(\beta_\text{fast}) \ge d`) :math:`\ell` passes :math:`h = d - 1`,
      the ramp runs backwards and every pair is divided by the factor, though every pair
      turns more than ``beta_fast`` times (for :math:`d - 1 \le j(\beta_\text{fast}) <
      d`, :math:`\ell = h` and every pair keeps its frequency); without truncation every
      pair is divided from :math:`L > 2\pi\beta_\text{fast} b^{2(d-1)/d}`
      (:math:`j(\beta_\text{fast}) > d - 1`). Slow end: if :math:`L <
      2\pi\beta_\text{slow}` (every pair turns fewer than ``beta_slow`` times,
      :math:`j(\beta_\text{slow}) < 0`), without truncation every pair keeps its
      frequency; with truncation pair 0 keeps its frequency and the others are divided
      while :math:`L > 2\pi\beta_\text{slow} b^{-2/d}` (:math:`-1 < j(\beta_\text{slow})
      < 0`), and every pair keeps its frequency from :math:`L \le 2\pi\beta_\text{slow}
      b^{-2/d}` (:math:`j(\beta_\text{slow}) \le -1`) down. pelib computes what Hugging
      Face computes there too.
    - YaRN's attention factor multiplies cos and sin, so the scores of the rotated part
      of a head grow by its square, the paper's :math:`1/t = (0.1 \ln s + 1)^2` (a part
      of the head that is not rotated, as in partial rotary or DeepSeek's MLA, is not
      scaled). A lone ``mscale`` (or a zero one) is ignored, as Hugging Face ignores it.
    - Hugging Face computes in float32 (its frequencies have relative errors of about
      :math:`2^{-24} \ln b` and more); this function computes in float64.

    Values Hugging Face accepts (with a logged warning or none) and pelib refuses:
    ``beta_fast`` or ``beta_slow`` of 0 (Hugging Face's ``or`` turns them into the
    defaults 32 and 1; pass those), ``beta_fast < beta_slow`` (Hugging Face warns and
    computes a ramp that runs backwards, dividing fast pairs and keeping slow ones),
    ``attention_factor`` 0 (it makes every rotated query and key 0), ``low_freq_factor
    >= high_freq_factor`` (Hugging Face warns and computes a step at the wavelength ``L
    / low_freq_factor``, with no blended band), a ``factor`` below 1 (Hugging Face
    warns), a negative ``mscale`` or ``mscale_all_dim``, a ``base`` of at most 1
    (frequencies that do not fall with the pair index; at exactly 1 Hugging Face's YaRN
    divides by ``log(1) = 0`` and fails), and inputs whose frequencies or attention
    factor leave the normal float64 range.

    Accuracy: each frequency is within a relative :math:`(8 + \ln
    b_\text{eff})\,2^{-53}` of the exact value of its definition for ``"linear"``,
    ``"dynamic"`` and ``"yarn"`` with ``truncate=True`` (:math:`b_\text{eff} = b'` for
    ``"dynamic"``, :math:`b` otherwise), where for ``"yarn"`` the rounding of a computed
    :math:`j(\beta)` is below :math:`\delta = 2^{-51}\bigl(d/\ln b + 2|j(\beta)|\bigr)`
    (at most :math:`2.6 \cdot 10^{-13}` for :math:`d \le 256`, :math:`b \ge 100` and
    :math:`|j| \le d`) and the bound excludes :math:`j(\beta_\text{fast})` or
    :math:`j(\beta_\text{slow})` within :math:`\delta` of an integer: there the floor or
    ceiling of the computed :math:`j` (Hugging Face's) can differ from that of the exact
    one, and a whole pair moves in or out of the ramp. A ramp multiplies the rounding of
    what it is computed from by its slope: in the band of ``"llama3"`` the bound is
    :math:`(8 + \ln b)\,2^{-53}\,(1 + s h/(h - \ell))`, and ``"yarn"`` with
    ``truncate=False`` adds :math:`s(\delta_\ell + \delta_h)/(h - \ell)` (the two
    :math:`\delta` of the two bounds), except for distinct betas with
    :math:`|j(\beta_\text{fast}) - j(\beta_\text{slow})| \le \delta_\ell + \delta_h`,
    whose computed bounds may coincide (then the step of width 0.001 applies) where the
    exact ones do not, or the reverse. ``tests/test_rope_scaling.py`` checks these
    bounds against mpmath for even ``d`` up to 256, bases from 100 to 10**7, factors up
    to 64, :math:`L` from 64 to 2**17 and contexts from :math:`L/100` to :math:`8L`, and
    probes the jumps of the rounded bounds against Hugging Face's code transcribed.

    Examples
    --------
    >>> rope_scaling(4, "linear", factor=2.0)
    (array([0.5  , 0.005]), 1.0)
    >>> freqs, m = rope_scaling(128, "yarn", factor=16.0, original_context=4096)
    >>> round(m, 12)
    1.277258872224
    >>> freqs, _ = rope_scaling(
    ...     128, "llama3", base=500000.0, factor=8.0, original_context=8192
    ... )
    >>> from pelib import frequencies
    >>> theta = frequencies(128, 500000.0)
    >>> kept, divided_by_8 = freqs == theta, freqs == theta / 8
    >>> int(kept.sum()), int(divided_by_8.sum())
    (29, 29)
    """
    d = _validate.size(d, "d", minimum=2)
    if d % 2:
        raise ValueError(f"d must be even (rotary dimensions come in pairs), got {d}")
    _validate.fits(d // 2, 8, "d")
    method = _validate.choice(method, "method", ROPE_SCALINGS)
    base = _validate.real(base, "base")
    if base <= 1:
        raise ValueError(
            "base must be a finite real number > 1 (frequencies that fall with the "
            f"pair index), got {base!r}"
        )
    scaling = _Scaling(
        d,
        base,
        _validate.real(factor, "factor", minimum=1),
        _optional_real(original_context, "original_context", positive=True),
        _optional_real(context, "context", positive=True),
        _validate.real(beta_fast, "beta_fast", positive=True),
        _validate.real(beta_slow, "beta_slow", positive=True),
        _validate.boolean(truncate, "truncate"),
        _optional_real(mscale, "mscale", minimum=0),
        _optional_real(mscale_all_dim, "mscale_all_dim", minimum=0),
        _optional_real(attention_factor, "attention_factor", positive=True),
        _validate.real(low_freq_factor, "low_freq_factor", positive=True),
        _validate.real(high_freq_factor, "high_freq_factor", positive=True),
    )
    _check_scaling(method, scaling)
    named = _named(method, scaling)
    theta = _angular_frequencies(d, base, np.float64)
    with _validate.arithmetic(named, "the frequencies are"):
        omega, attention = _METHODS[method](theta, scaling)
    if not np.all(np.isfinite(omega) & (omega >= _SMALLEST_NORMAL)):
        raise ValueError(
            f"{named}: the frequencies underflow to 0 or to subnormal numbers (below "
            f"{_SMALLEST_NORMAL:.4g}, where float64 loses precision); choose a smaller "
            "factor or base"
        )
    return omega, attention


class _Scaling(NamedTuple):
    """The checked parameters of :func:`rope_scaling`, by name."""

    d: int
    base: float
    factor: float
    original_context: float | None
    context: float | None
    beta_fast: float
    beta_slow: float
    truncate: bool
    mscale: float | None
    mscale_all_dim: float | None
    attention_factor: float | None
    low_freq_factor: float
    high_freq_factor: float


def _check_scaling(method: str, scaling: _Scaling) -> None:
    """Refuse options that ``method`` does not read (unless at their defaults), a
    missing ``original_context``, and a YaRN ramp or a Llama 3 band that runs
    backwards."""
    for name, (default, methods) in _SCALING_OPTIONS.items():
        value = getattr(scaling, name)
        if method not in methods and value != default:
            readers = ("method " if len(methods) == 1 else "methods ") + ", ".join(
                repr(m) for m in methods
            )
            raise ValueError(
                f"{name} is read only by {readers}, not by {method!r}: leave it at its "
                f"default {default!r}, got {value!r}"
            )
    if scaling.original_context is None and method != "linear":
        raise ValueError(
            f"method {method!r} needs original_context, the context length the model "
            "was trained with"
        )
    if method == "yarn" and scaling.beta_fast < scaling.beta_slow:
        raise ValueError(
            "beta_fast must be >= beta_slow (the turns above which pairs keep their "
            "frequency, and below which they are divided by the factor), got "
            f"beta_fast={scaling.beta_fast!r} and beta_slow={scaling.beta_slow!r}"
        )
    if method == "llama3" and scaling.low_freq_factor >= scaling.high_freq_factor:
        raise ValueError(
            "low_freq_factor must be < high_freq_factor (the band of wavelengths "
            "between original_context / high_freq_factor and original_context / "
            f"low_freq_factor), got low_freq_factor={scaling.low_freq_factor!r} and "
            f"high_freq_factor={scaling.high_freq_factor!r}"
        )


def _named(method: str, scaling: _Scaling) -> str:
    """The parameters that ``method``'s frequencies depend on, with their values, as
    messages name them."""
    readers = (
        "base",
        "factor",
        *(
            name
            for name, (_, methods) in _SCALING_OPTIONS.items()
            if method in methods and name in _FREQUENCY_OPTIONS
        ),
    )
    return ", ".join(f"{name}={getattr(scaling, name)!r}" for name in readers)


def _yarn_scaling(theta: np.ndarray, scaling: _Scaling) -> tuple[np.ndarray, float]:
    """YaRN's frequencies and attention factor."""
    return _yarn(theta, scaling), _yarn_attention(scaling)


#: The frequencies and attention factor of each method of :func:`rope_scaling`, from
#: the default frequencies ``theta`` and the checked parameters.
_METHODS: dict[str, Callable[[np.ndarray, _Scaling], tuple[np.ndarray, float]]] = {
    "linear": lambda theta, s: (theta / s.factor, 1.0),
    "dynamic": lambda theta, s: (_dynamic_ntk(s), 1.0),
    "yarn": _yarn_scaling,
    "llama3": lambda theta, s: (_llama3(theta, s), 1.0),
}


#: The parameters that the frequencies of a method depend on (beyond base and factor),
#: for messages.
_FREQUENCY_OPTIONS = (
    "original_context",
    "context",
    "beta_fast",
    "beta_slow",
    "low_freq_factor",
    "high_freq_factor",
)

#: The smallest positive normal float64, 2**-1022: below it a float64 holds fewer than
#: 53 significant bits.
_SMALLEST_NORMAL = float(np.finfo(np.float64).tiny)


def _is_normal(value: float) -> bool:
    """Whether a Python float is finite and at least the smallest normal float64 in
    magnitude."""
    return math.isfinite(value) and abs(value) >= _SMALLEST_NORMAL


def _optional_real(value: Any, name: str, **limits: Any) -> float | None:
    """None, or ``value`` checked by :func:`_validate.real` with ``limits``."""
    return None if value is None else _validate.real(value, name, **limits)


def _dynamic_ntk(scaling: _Scaling) -> np.ndarray:
    """Dynamic NTK: the default frequencies of a base grown with the context (Hugging
    Face's formula)."""
    d, original, context = scaling.d, scaling.original_context, scaling.context
    if d == 2:
        # one pair, of frequency b'**0 = 1 for every b' (Hugging Face divides by
        # d - 2 = 0)
        return np.ones(1)
    c = (
        original if context is None else max(context, original)
    )  # Hugging Face: seq_len below L counts as L
    with _validate.arithmetic(
        "base, factor, original_context and context", "the scaled base is"
    ):
        # s c / L - (s - 1) written as 1 + s (c - L) / L: exactly 1, so the default, at
        # c = L
        stretch = 1.0 + np.float64(scaling.factor) * (
            (np.float64(c) - original) / original
        )
        scaled_base = np.float64(scaling.base) * stretch ** (d / (d - 2))
    return _angular_frequencies(d, float(scaled_base), np.float64)


def _correction_index(
    turns: float, name: str, d: int, base: float, original: float
) -> float:
    """The real pair index j that turns ``turns`` times in ``original`` positions, as
    Hugging Face computes it.

    ``find_correction_dim`` of ``_compute_yarn_parameters`` (transformers 5.23.0,
    ``modeling_rope_utils.py``): ``(dim * math.log(max_position_embeddings /
    (num_rotations * 2 * math.pi))) / (2 * math.log(base))``, the same Python-float
    operations in the same order, so the result is Hugging Face's to the bit and its
    floor and ceiling pick the same pairs (an algebraically equal expression, such as a
    difference of three logarithms, rounds differently and can land on the other side of
    an integer). ``2 pi turns`` and the quotient must be normal float64 numbers.
    """
    circle = turns * 2 * math.pi
    quotient = original / circle
    if not (_is_normal(circle) and _is_normal(quotient)):
        raise ValueError(
            f"original_context={original!r} and {name}={turns!r}: L / (2 pi {name}) = "
            f"{original!r} / {circle!r} must be a normal float64 number (between about "
            f"2.2e-308 and 1.8e+308), got {quotient!r}"
        )
    return (d * math.log(quotient)) / (2 * math.log(base))


def _yarn(theta: np.ndarray, scaling: _Scaling) -> np.ndarray:
    """YaRN's frequencies: the ramp over pair indices between the correction bounds, as
    Hugging Face computes it."""
    d, base, original = scaling.d, scaling.base, scaling.original_context
    low = _correction_index(scaling.beta_fast, "beta_fast", d, base, original)
    high = _correction_index(scaling.beta_slow, "beta_slow", d, base, original)
    if scaling.truncate:
        low, high = math.floor(low), math.ceil(high)
    low, high = (
        float(max(low, 0)),
        float(min(high, d - 1)),
    )  # d - 1, not d/2 - 1: Hugging Face's clamp
    if low == high:
        # Hugging Face's guard against a zero-width ramp: a step between pairs low and
        # low + 1
        high += 0.001
    # The ramp and its complement 1 - ramp, each from its own exact numerator: near the
    # divided end the result theta (ramp / s + (1 - ramp)) is s times more sensitive to
    # the complement than to the ramp.
    j = np.arange(d // 2)
    ramp = np.clip((j - low) / (high - low), 0.0, 1.0)
    keep = np.clip((high - j) / (high - low), 0.0, 1.0)
    return ramp * theta / scaling.factor + keep * theta


def _mscale(factor: float, m: float) -> float:
    """YaRN's magnitude correction 0.1 m ln(s) + 1, and 1 for s <= 1."""
    return 1.0 if factor <= 1 else 0.1 * m * math.log(factor) + 1.0


def _yarn_attention(scaling: _Scaling) -> float:
    """Hugging Face's choice: the given factor, else mscale / mscale_all_dim when both
    are non-zero, else mu(s, 1)."""
    if scaling.attention_factor is not None:
        return scaling.attention_factor
    factor, mscale, mscale_all_dim = (
        scaling.factor,
        scaling.mscale,
        scaling.mscale_all_dim,
    )
    if mscale and mscale_all_dim:
        # Python floats: an overflow gives inf (and inf / inf nan), which the check
        # below refuses
        result = _mscale(factor, mscale) / _mscale(factor, mscale_all_dim)
        if not _is_normal(result):
            raise ValueError(
                f"mscale={mscale!r}, mscale_all_dim={mscale_all_dim!r} and "
                f"factor={factor!r}: the attention factor (0.1 mscale ln(factor) + 1) "
                "/ (0.1 mscale_all_dim ln(factor) + 1) overflows or underflows "
                f"float64 (got {result!r}); it must be a normal positive number"
            )
        return result
    return _mscale(
        factor, 1.0
    )  # between 1 and 0.1 * 709.8 + 1 for every finite factor >= 1


def _llama3(theta: np.ndarray, scaling: _Scaling) -> np.ndarray:
    """Llama 3.1's frequencies: a blend linear in the turns L / wavelength between the
    two band limits."""
    factor, original = scaling.factor, scaling.original_context
    low, high = scaling.low_freq_factor, scaling.high_freq_factor
    turns = original * theta / (2 * math.pi)
    with np.errstate(
        over="ignore"
    ):  # a huge quotient only means "far outside the band": the clip settles it
        smooth = np.clip((turns - low) / (high - low), 0.0, 1.0)
        divided = np.clip(
            (high - turns) / (high - low), 0.0, 1.0
        )  # 1 - smooth, from its own numerator
    return divided * theta / factor + smooth * theta


def rope_permutation(d: int) -> np.ndarray:
    """The column order ``p = [0, h, 1, h + 1, ...]`` (``h = d / 2``) that turns the
    "half" layout into "interleaved".

    ``apply_rope(x[..., p], pos, layout="interleaved") == apply_rope(x, pos,
    layout="half")[..., p]``: a vector laid out for the half layout, with its columns
    taken in the order ``p``, is the same vector laid out for the interleaved layout.
    The inverse order ``numpy.argsort(p) = [0, 2, 4, ..., 1, 3, 5, ...]`` goes the other
    way, from interleaved to half. Converting the query and key weights of a checkpoint
    permutes the output rows *within each head* (``d`` is the head width): from Meta's
    interleaved Llama to Hugging Face's half layout with ``argsort(p)``, back with
    ``p``. Chapter 7 (:doc:`/notebooks/07_rope`) checks both directions on attention
    scores.

    Examples
    --------
    >>> rope_permutation(6)
    array([0, 3, 1, 4, 2, 5])
    >>> np.argsort(rope_permutation(6))
    array([0, 2, 4, 1, 3, 5])
    """
    d = _validate.size(d, "d", minimum=2)
    if d % 2:
        raise ValueError(f"d must be even to form pairs, got {d}")
    _validate.fits(d, 8, "d")
    h = d // 2
    return np.ravel(np.column_stack([np.arange(h), h + np.arange(h)]))


#: The row orders of a rotary query or key projection that :func:`convert_rope_weights`
#: converts between.
ROPE_WEIGHT_LAYOUTS = ROPE_LAYOUTS


def convert_rope_weights(
    w: ArrayLike, n_heads: int, head_dim: int, *, to: str, rotary_dim: int | None = None
) -> np.ndarray:
    r"""Reorder the output rows of a query or key projection between the two rotary
    layouts, head by head.

    A checkpoint trained with one pairing of rotary dimensions runs with the other
    pairing once the rows of its query and key projections are permuted within each
    head: the scores :math:`q_t \cdot k_s` are then exactly those of the original model.
    With :math:`h = r/2` for the rotary width :math:`r` (``rotary_dim``, by default
    ``head_dim``), the first ``r`` rows of every head are reordered, the rest (partial
    rotary) are left alone:

    - ``to="half"`` (from the interleaved layout of Meta's Llama, RoFormer and GPT-J,
      pairs :math:`(2i, 2i + 1)`, to the ``rotate_half`` layout of GPT-NeoX and Hugging
      Face's Llama, pairs :math:`(i, i + h)`): new row :math:`i` is old row :math:`2i`
      and new row :math:`i + h` is old row :math:`2i + 1`; the order
      ``argsort(rope_permutation(r))``. This is what Hugging Face's conversion script
      for Meta's Llama weights does.
    - ``to="interleaved"``: the inverse, the order ``rope_permutation(r)``.

    Applying one where the other is needed gives wrong scores for ``r >= 6`` (for
    ``r = 4`` the two orders coincide); chapter 8
    (:doc:`/notebooks/08_which_encoding`) shows both, with numbers, and
    chapter 7 (:doc:`/notebooks/07_rope`) explains the two layouts.

    Out of scope: fused query-key-value projections (GPT-NeoX's ``query_key_value``,
    Phi-3's ``qkv_proj``), whose rows must be split into query, key and value first, and
    rotary features that are not the first ``rotary_dim`` rows of each head.

    Parameters
    ----------
    w : array_like
        The weight of a query or key projection, shape ``(n_heads * head_dim, d_in)``
        (the PyTorch ``nn.Linear`` convention: one row per output feature, heads one
        after another), or its bias, shape ``(n_heads * head_dim,)``. Real and finite;
        the result keeps its dtype.
    n_heads : int
        The number of heads the rows belong to, at least 1. For a key projection under
        grouped-query attention, the number of key/value heads.
    head_dim : int
        Rows per head, even and at least 2.
    to : {"half", "interleaved"}
        The layout the result is for.
    rotary_dim : int, optional
        How many leading rows of each head are rotated (partial rotary, as GPT-NeoX's
        ``rotary_pct`` and GPT-J's ``rotary_dim``); even, between 2 and ``head_dim``.
        Default ``head_dim``.

    Returns
    -------
    numpy.ndarray
        A new array of the shape and dtype of ``w``.

    Raises
    ------
    TypeError
        If ``w`` is not a real array, a size is not an integer, or ``to`` is not a
        string.
    ValueError
        If ``w`` is not 1-D or 2-D, holds nan or infinity, its first axis is not
        ``n_heads * head_dim``, ``head_dim`` or ``rotary_dim`` is odd or out of range,
        or ``to`` is unknown.

    Examples
    --------
    >>> convert_rope_weights(np.arange(8), 2, 4, to="half")
    array([0, 2, 1, 3, 4, 6, 5, 7])
    >>> convert_rope_weights(np.arange(6), 1, 6, to="interleaved")
    array([0, 3, 1, 4, 2, 5])
    """
    w = _validate.weight_array(w, "w")
    n_heads = _validate.size(n_heads, "n_heads", minimum=1)
    head_dim = _validate.size(head_dim, "head_dim", minimum=2)
    if head_dim % 2:
        raise ValueError(
            f"head_dim must be even (rotary dimensions come in pairs), got {head_dim}"
        )
    to = _validate.choice(to, "to", ROPE_WEIGHT_LAYOUTS)
    rotary_dim = (
        head_dim
        if rotary_dim is None
        else _validate.size(rotary_dim, "rotary_dim", minimum=2, maximum=head_dim)
    )
    if rotary_dim % 2:
        raise ValueError(
            "rotary_dim must be even (rotary dimensions come in pairs), got "
            f"{rotary_dim}"
        )
    if w.ndim not in (1, 2):
        raise ValueError(
            "w must be a weight of shape (n_heads * head_dim, d_in) or a bias of "
            f"shape (n_heads * head_dim,), got shape {w.shape}"
        )
    if w.shape[0] != n_heads * head_dim:
        raise ValueError(
            f"w has {w.shape[0]} rows, but n_heads * head_dim = {n_heads} * {head_dim} "
            f"= {n_heads * head_dim}"
        )
    p = rope_permutation(rotary_dim)
    order = np.argsort(p) if to == "half" else p
    within = np.concatenate(
        [order, np.arange(rotary_dim, head_dim)]
    )  # partial rotary: the rest stays
    rows = (np.arange(n_heads)[:, None] * head_dim + within[None, :]).ravel()
    return w[rows].copy()
