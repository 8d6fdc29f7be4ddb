"""Rotary context extension (linear, dynamic NTK, YaRN, Llama 3): the definitions,
exactly, and the code that runs them.

Two kinds of function, neither of which imports pelib:

- **The definitions evaluated exactly** (:func:`linear`, :func:`dynamic`, :func:`yarn`,
  :func:`llama3`, and :func:`yarn_paper` for the ramp as the YaRN paper writes it):
  plain Python loops over the pairs in mpmath at :data:`oracle.MIN_BITS` bits, every
  input taken exactly (:func:`oracle.to_mpf`), each returning ``(frequencies,
  attention_factor)`` as mpmath numbers. Where Hugging Face made a choice the papers
  leave open (the rounding and the clamping of YaRN's correction range, the
  ``max(context, original)`` of dynamic NTK), the definition is Hugging Face's, as
  ``pelib.rope_scaling`` promises.
- **Transcriptions** of the code that computes them (``hf_*``: Hugging Face
  ``transformers``; :func:`meta_apply_scaling`: Meta's ``llama-models``), step by step
  in the precision of the original: ``numpy.float32`` where PyTorch computes in
  ``torch.float``, Python floats where the original uses Python floats. NumPy's
  float32 ``power``, ``cos`` and ``sin`` stand in for PyTorch's and can differ from
  them in the last bit.

Sources (the code here is written for this project; the facts carry over with these
citations):

- Hugging Face, ``src/transformers/modeling_rope_utils.py``: the functions
  ``_compute_linear_scaling_rope_parameters``, ``_compute_dynamic_ntk_parameters``,
  ``_compute_yarn_parameters`` (with ``truncate`` and ``mscale``/``mscale_all_dim``) and
  ``_compute_llama3_parameters``, as of revision
  26892c16b782513fdf938920653228ef63a19d7d of ``zucchini-nlp/transformers``, a fork of
  ``huggingface/transformers`` (the most recent copy of the file that the project's code
  index holds). The copy of ``huggingface/transformers`` itself there, revision
  ef46806472a64b0013ed413781e3afed82bfa047, has the same arithmetic but predates
  ``truncate`` (it always rounds), ``mscale`` (it always takes ``0.1 ln(factor) + 1``)
  and ``original_max_position_embeddings`` for YaRN (it takes
  ``max_position_embeddings``); both read the original length of dynamic NTK from
  ``max_position_embeddings``. Version note: the released ``transformers`` 5.23.0 has
  the arithmetic of the four functions transcribed here (with ``find_correction_dim``
  unchanged); 4.51 to 4.55 replaced ``factor`` by ``max_position_embeddings /
  original_max_position_embeddings`` whenever the latter was given; 4.56 on use the
  given ``factor`` (5.0 on take the ratio only when ``factor`` is missing). In revision
  26892c16, as in the released 5.0 to 5.12, ``dynamic_frequency_update`` stores the
  cached length with ``setattr(self, f"{layer_type}_max_seq_len_cached", seq_len)``,
  which for a model without layer types sets an attribute that is never read: there
  every pass longer than the original length is rotated for its own length, and a
  shorter pass keeps the frequencies of the last longer one. :class:`HFDynamicRotary`
  follows revision 5dd4a635 below, whose rule (growth and reset) is that of 4.45 to 4.57
  and 5.13 to 5.23.
- Hugging Face, ``src/transformers/models/llama/modeling_llama.py``, revision
  5dd4a63548857797727ae73eeb6a6e886ea02a3e of ``huggingface/transformers``:
  ``LlamaRotaryEmbedding.forward`` multiplies cos and sin by ``attention_scaling`` (the
  attention factor), and ``LlamaRotaryEmbedding._dynamic_frequency_update`` recomputes
  the dynamic frequencies for ``seq_len = max(position_ids) + 1`` when it exceeds the
  longest length seen so far, and restores the original ones when a sequence is shorter
  than the original length again (:class:`HFDynamicRotary`).
- Meta, ``meta-llama/llama-models``, revision cfd14a09c84ee3c76a8bf72780f5f02639633a56,
  ``models/llama3/reference_impl/model.py``: ``apply_scaling`` (lines 45-64, the
  vectorised form transcribed here) and ``precompute_freqs_cis`` (lines 67-76). The rule
  first appeared as a loop over the frequencies, the same float32 operations element by
  element, at revision 1f0feb795a4130697ced243fb53051670d591653,
  ``models/llama3_1/api/model.py`` (lines 41-63).
- The YaRN reference code, ``jquesnelle/yarn``, revision
  a18e54988639030e706f6ff9db224cf74e08a65a,
  ``scaled_rope/LlamaYaRNScaledRotaryEmbedding.py`` (``find_correction_dim``,
  ``find_correction_range``, ``linear_ramp_mask``): the same rounded and clamped
  correction range as Hugging Face's ``truncate=True``; and revision
  2ed02c79707d13e06e9df21231bb3835c24bbc90,
  ``scaled_rope/LlamaDynamicScaledRotaryEmbedding.py``: the dynamic base ``base * (ntk *
  seq_len / max_position_embeddings - (ntk - 1)) ** (dim / (dim - 2))`` that Hugging
  Face took over.
"""

from __future__ import annotations

import math

import mpmath
import numpy as np

from . import MIN_BITS, frequency, to_mpf

__all__ = [
    "F32",
    "HFDynamicRotary",
    "dynamic",
    "hf_default",
    "hf_dynamic",
    "hf_linear",
    "hf_llama3",
    "hf_rotary",
    "hf_yarn",
    "linear",
    "llama3",
    "mscale",
    "meta_apply_scaling",
    "meta_frequencies",
    "to_floats",
    "yarn",
    "yarn_correction_index",
    "yarn_paper",
]

F32 = np.float32


def to_floats(values) -> np.ndarray:
    """mpmath numbers rounded once each to the nearest float64."""
    return np.array([float(v) for v in values], dtype=np.float64)


# --- the definitions, exactly ---------------------------------------------------------


def _thetas(d: int, base) -> list:
    """The unscaled frequencies base ** (-2i / d) of the d / 2 pairs."""
    return [frequency(i, d, base) for i in range(d // 2)]


def linear(d: int, base=10000, factor=1):
    r"""Position interpolation (Chen et al. 2023): :math:`\theta_i / s`; attention
    factor 1."""
    with mpmath.workprec(MIN_BITS):
        s = to_mpf(factor)
        return [theta / s for theta in _thetas(d, base)], mpmath.mpf(1)


def dynamic(d: int, base=10000, factor=1, original_context=None, context=None):
    r"""Dynamic NTK as Hugging Face defines it: the base :math:`b' = b\,(s c / L - (s -
    1))^{d/(d-2)}`.

    :math:`c = \max(\text{context}, L)` (``context=None`` means :math:`L`); the
    frequencies are :math:`b'^{-2i/d}`. For ``d = 2`` the one frequency is :math:`b'^0 =
    1` whatever :math:`b'` (Hugging Face divides by ``d - 2`` and fails there).
    Attention factor 1.
    """
    with mpmath.workprec(MIN_BITS):
        s, big_l = to_mpf(factor), to_mpf(original_context)
        c = big_l if context is None else max(to_mpf(context), big_l)
        if d == 2:
            return [mpmath.mpf(1)], mpmath.mpf(1)
        scaled_base = to_mpf(base) * (s * c / big_l - (s - 1)) ** (
            mpmath.mpf(d) / (d - 2)
        )
        return [
            scaled_base ** (-mpmath.mpf(2 * i) / d) for i in range(d // 2)
        ], mpmath.mpf(1)


def mscale(factor, m=1):
    r"""YaRN's magnitude correction :math:`0.1\,m \ln s + 1` (1 for :math:`s \le 1`),
    exactly."""
    with mpmath.workprec(MIN_BITS):
        s = to_mpf(factor)
        return mpmath.mpf(1) if s <= 1 else to_mpf(m) * mpmath.log(s) / 10 + 1


def yarn_correction_index(rotations, d: int, base, original_context):
    r"""The real pair index :math:`j` whose wavelength fits ``rotations`` times into
    ``original_context``.

    :math:`L / (2\pi b^{2j/d}) = r \iff j = d \ln(L / (2\pi r)) / (2 \ln b)`.
    """
    with mpmath.workprec(MIN_BITS):
        return (
            d
            * mpmath.log(to_mpf(original_context) / (to_mpf(rotations) * 2 * mpmath.pi))
            / (2 * mpmath.log(to_mpf(base)))
        )


def _yarn_attention(factor, mscale_value, mscale_all_dim, attention_factor):
    """Hugging Face's rule: the given attention factor, else mscale / mscale_all_dim if
    both are non-zero, else mscale(s)."""
    if attention_factor is not None:
        return to_mpf(attention_factor)
    if mscale_value and mscale_all_dim:
        return mscale(factor, mscale_value) / mscale(factor, mscale_all_dim)
    return mscale(factor)


def yarn(
    d: int,
    base=10000,
    factor=1,
    original_context=None,
    beta_fast=32,
    beta_slow=1,
    truncate=True,
    mscale=None,
    mscale_all_dim=None,
    attention_factor=None,
):
    r"""YaRN as Hugging Face and the reference code compute it, in exact arithmetic.

    The correction range :math:`[\ell, h]` is the pair indices of ``beta_fast`` and
    ``beta_slow`` rotations in ``original_context`` (:func:`yarn_correction_index`),
    rounded outwards (floor, ceiling) if ``truncate``, then clamped to ``[0, d - 1]``
    (``d - 1``, not ``d/2 - 1``, as the code does), with ``h = \ell + 0.001`` if they
    coincide. Pair ``j`` gets the ramp :math:`\rho_j = \min(1, \max(0, (j - \ell)/(h -
    \ell)))` and the frequency :math:`\rho_j \theta_j / s + (1 - \rho_j)\theta_j`.
    """
    with mpmath.workprec(MIN_BITS):
        s = to_mpf(factor)
        low = yarn_correction_index(beta_fast, d, base, original_context)
        high = yarn_correction_index(beta_slow, d, base, original_context)
        if truncate:
            low, high = mpmath.floor(low), mpmath.ceil(high)
        low, high = max(low, mpmath.mpf(0)), min(high, mpmath.mpf(d - 1))
        if low == high:
            high += mpmath.mpf(1) / 1000
        out = []
        for j, theta in enumerate(_thetas(d, base)):
            ramp = min(max((j - low) / (high - low), mpmath.mpf(0)), mpmath.mpf(1))
            out.append(ramp * theta / s + (1 - ramp) * theta)
        return out, _yarn_attention(factor, mscale, mscale_all_dim, attention_factor)


def yarn_paper(d: int, base=10000, factor=1, original_context=None, alpha=1, beta=32):
    r"""YaRN's frequencies as the paper writes them (Peng et al. 2024, section 3.2,
    "NTK-by-parts").

    :math:`r_j = L / \lambda_j` rotations of pair ``j`` in the original context;
    :math:`\gamma = 0` for :math:`r < \alpha`, 1 for :math:`r > \beta`, :math:`(r -
    \alpha)/(\beta - \alpha)` between; :math:`h(\theta_j) = (1 - \gamma)\theta_j / s +
    \gamma\theta_j`. The ramp is linear in the rotation count :math:`r`, where the
    code's is linear in the pair index (that is, in :math:`\ln r`) between rounded
    bounds. Attention factor :math:`0.1 \ln s + 1`.
    """
    with mpmath.workprec(MIN_BITS):
        s, big_l, a, b = (
            to_mpf(factor),
            to_mpf(original_context),
            to_mpf(alpha),
            to_mpf(beta),
        )
        out = []
        for theta in _thetas(d, base):
            r = big_l * theta / (2 * mpmath.pi)
            gamma = (
                mpmath.mpf(0)
                if r < a
                else mpmath.mpf(1)
                if r > b
                else (r - a) / (b - a)
            )
            out.append((1 - gamma) * theta / s + gamma * theta)
        return out, mscale(factor)


def llama3(
    d: int,
    base=10000,
    factor=1,
    original_context=None,
    low_freq_factor=1,
    high_freq_factor=4,
):
    r"""Llama 3.1's frequencies (Meta's ``apply_scaling``, Hugging Face's ``llama3``),
    exactly.

    With :math:`\lambda_i = 2\pi/\theta_i`: unchanged if :math:`\lambda_i < L/h`,
    divided by the factor if :math:`\lambda_i > L/\ell`, else :math:`(1 -
    \sigma)\theta_i/s + \sigma\theta_i` with :math:`\sigma = (L/\lambda_i - \ell)/(h -
    \ell)`. Attention factor 1.
    """
    with mpmath.workprec(MIN_BITS):
        s, big_l = to_mpf(factor), to_mpf(original_context)
        low, high = to_mpf(low_freq_factor), to_mpf(high_freq_factor)
        out = []
        for theta in _thetas(d, base):
            wavelength = 2 * mpmath.pi / theta
            if wavelength < big_l / high:
                out.append(theta)
            elif wavelength > big_l / low:
                out.append(theta / s)
            else:
                smooth = (big_l / wavelength - low) / (high - low)
                out.append((1 - smooth) * theta / s + smooth * theta)
        return out, mpmath.mpf(1)


# --- Hugging Face transformers, transcribed in float32 --------------------------------


def hf_default(dim: int, base: float) -> np.ndarray:
    """``1.0 / (base ** (torch.arange(0, dim, 2, dtype=torch.int64).float() / dim))``,
    float32.

    PyTorch computes ``python_float ** float32_tensor`` in float32, the base rounded to
    float32.
    """
    exponents = np.arange(0, dim, 2, dtype=np.int64).astype(F32) / F32(dim)
    return F32(1.0) / (F32(base) ** exponents)


def hf_linear(dim: int, base: float, factor: float):
    """``_compute_linear_scaling_rope_parameters``: the default frequencies, ``inv_freq
    /= factor`` (float32)."""
    return hf_default(dim, base) / F32(factor), 1.0


def hf_dynamic(
    dim: int, base: float, factor: float, max_position_embeddings: int, seq_len=None
):
    """``_compute_dynamic_ntk_parameters``; ``max_position_embeddings`` is the original
    (trained) length.

    ``seq_len=None`` is the call at initialisation: the new base is formed in Python
    floats from ``seq_len = max_position_embeddings``. An integer ``seq_len`` is the
    call of the dynamic update in the forward pass, where it is the tensor
    ``max(position_ids) + 1`` (int64): ``torch.maximum`` with the original length, then
    every step of the new base is a float32 tensor operation. Hugging Face fails for
    ``dim = 2`` (division by zero), and so does this transcription.
    """
    if seq_len is None:
        seq_len = max_position_embeddings
        base = base * ((factor * seq_len / max_position_embeddings) - (factor - 1)) ** (
            dim / (dim - 2)
        )
        base = F32(base)
    else:
        seq = F32(np.maximum(np.int64(seq_len), np.int64(max_position_embeddings)))
        ratio = F32(factor) * seq / F32(max_position_embeddings) - F32(factor - 1)
        base = F32(base) * ratio ** F32(dim / (dim - 2))
    exponents = np.arange(0, dim, 2, dtype=np.int64).astype(F32) / F32(dim)
    return F32(1.0) / (base**exponents), 1.0


def _hf_get_mscale(scale, m=1):
    if scale <= 1:
        return 1.0
    return 0.1 * m * math.log(scale) + 1.0


def hf_yarn(
    dim: int,
    base: float,
    factor: float,
    original_max_position_embeddings,
    *,
    beta_fast=None,
    beta_slow=None,
    truncate=True,
    mscale=None,
    mscale_all_dim=None,
    attention_factor=None,
):
    """``_compute_yarn_parameters``: float32 frequencies, a Python-float correction
    range and attention factor.

    As the original: ``beta_fast`` and ``beta_slow`` default through ``or`` (so 0 or
    None mean 32 and 1); ``mscale`` is used only when ``mscale_all_dim`` is also set and
    neither is zero; the range is clamped to ``[0, dim - 1]``; the ramp runs over ``dim
    // 2`` pairs.
    """
    if attention_factor is None:
        if mscale and mscale_all_dim:
            attention_factor = float(
                _hf_get_mscale(factor, mscale) / _hf_get_mscale(factor, mscale_all_dim)
            )
        else:
            attention_factor = _hf_get_mscale(factor)
    beta_fast = beta_fast or 32
    beta_slow = beta_slow or 1

    def find_correction_dim(num_rotations):
        return (
            dim
            * math.log(original_max_position_embeddings / (num_rotations * 2 * math.pi))
        ) / (2 * math.log(base))

    low = find_correction_dim(beta_fast)
    high = find_correction_dim(beta_slow)
    if truncate:
        low = math.floor(low)
        high = math.ceil(high)
    low, high = max(low, 0), min(high, dim - 1)

    pos_freqs = F32(base) ** (np.arange(0, dim, 2).astype(F32) / F32(dim))
    inv_freq_extrapolation = F32(1.0) / pos_freqs
    inv_freq_interpolation = F32(1.0) / (F32(factor) * pos_freqs)

    ramp_max = (
        high + 0.001 if low == high else high
    )  # linear_ramp_factor: "Prevent singularity"
    linear_func = (np.arange(dim // 2, dtype=F32) - F32(low)) / F32(ramp_max - low)
    ramp = np.clip(linear_func, F32(0), F32(1))
    extrapolation_factor = F32(1) - ramp
    inv_freq = (
        inv_freq_interpolation * (F32(1) - extrapolation_factor)
        + inv_freq_extrapolation * extrapolation_factor
    )
    return inv_freq, attention_factor


def hf_llama3(
    dim: int,
    base: float,
    factor: float,
    low_freq_factor: float,
    high_freq_factor: float,
    original_max_position_embeddings,
):
    """``_compute_llama3_parameters``: bands by wavelength in float32, thresholds
    rounded to float32.

    PyTorch compares a float32 tensor with a Python float in float32, as NumPy does.
    """
    inv_freq = hf_default(dim, base)
    old_context_len = original_max_position_embeddings
    low_freq_wavelen = old_context_len / low_freq_factor
    high_freq_wavelen = old_context_len / high_freq_factor
    wavelen = F32(2 * math.pi) / inv_freq
    inv_freq_llama = np.where(
        wavelen > F32(low_freq_wavelen), inv_freq / F32(factor), inv_freq
    )
    # With low_freq_factor == high_freq_factor (Llama 4 Scout) the band is empty and
    # this divides by 0: PyTorch gives inf and nan silently, and the np.where below
    # discards them except for a wavelength exactly at the limit (nan there, as in
    # PyTorch). NumPy would warn; the warnings are silenced for these two expressions.
    with np.errstate(divide="ignore", invalid="ignore"):
        smooth_factor = (F32(old_context_len) / wavelen - F32(low_freq_factor)) / F32(
            high_freq_factor - low_freq_factor
        )
        smoothed_inv_freq = (F32(1) - smooth_factor) * inv_freq_llama / F32(
            factor
        ) + smooth_factor * inv_freq_llama
    is_medium_freq = ~(wavelen < F32(high_freq_wavelen)) & ~(
        wavelen > F32(low_freq_wavelen)
    )
    return np.where(is_medium_freq, smoothed_inv_freq, inv_freq_llama).astype(F32), 1.0


def hf_rotary(x, positions, inv_freq, attention_scaling=1.0):
    """``LlamaRotaryEmbedding.forward`` and ``apply_rotary_pos_emb`` (the
    ``rotate_half`` layout), float32.

    ``freqs = inv_freq @ positions`` (one product per entry), ``emb = cat((freqs,
    freqs))``, ``cos = emb.cos() * attention_scaling``, ``sin = emb.sin() *
    attention_scaling``, then ``x * cos + rotate_half(x) * sin``. ``x`` has shape
    ``(..., n, dim)``, ``positions`` ``(n,)``.
    """
    x = np.asarray(x, dtype=F32)
    dim = x.shape[-1]
    freqs = np.outer(np.asarray(positions).astype(F32), np.asarray(inv_freq, dtype=F32))
    emb = np.concatenate([freqs, freqs], axis=-1)
    cos = np.cos(emb) * F32(attention_scaling)
    sin = np.sin(emb) * F32(attention_scaling)
    rotate_half = np.concatenate([-x[..., dim // 2 :], x[..., : dim // 2]], axis=-1)
    return x * cos + rotate_half * sin


class HFDynamicRotary:
    """The state of ``LlamaRotaryEmbedding`` with ``rope_type="dynamic"``: which
    frequencies a forward pass uses.

    ``LlamaRotaryEmbedding._dynamic_frequency_update`` (revision
    5dd4a63548857797727ae73eeb6a6e886ea02a3e): with ``seq_len = max(position_ids) + 1``,
    recompute the frequencies for ``seq_len`` when it exceeds the longest length cached
    so far ("growth"), and go back to the original frequencies when ``seq_len`` is below
    the original length while the cache is longer ("reset"). So the frequencies of a
    pass are those of the longest sequence since the last reset, not of the pass itself.
    """

    def __init__(
        self, dim: int, base: float, factor: float, max_position_embeddings: int
    ):
        self.dim, self.base, self.factor = dim, base, factor
        self.max_seq_len_cached = self.original_max_seq_len = max_position_embeddings
        self.inv_freq, _ = hf_dynamic(dim, base, factor, max_position_embeddings)
        self.original_inv_freq = self.inv_freq

    def forward(self, position_ids) -> np.ndarray:
        """Update for one pass and return the frequencies it rotates with."""
        seq_len = int(np.max(position_ids)) + 1
        if seq_len > self.max_seq_len_cached:  # growth
            self.inv_freq, _ = hf_dynamic(
                self.dim, self.base, self.factor, self.original_max_seq_len, seq_len
            )
            self.max_seq_len_cached = seq_len
        if (
            seq_len < self.original_max_seq_len
            and self.max_seq_len_cached > self.original_max_seq_len
        ):  # reset
            self.inv_freq = self.original_inv_freq
            self.max_seq_len_cached = self.original_max_seq_len
        return self.inv_freq


# --- Meta's llama-models, transcribed in float32 --------------------------------------


def meta_frequencies(dim: int, theta: float = 10000.0) -> np.ndarray:
    """The frequencies of ``precompute_freqs_cis``, float32.

    ``1.0 / (theta ** (torch.arange(0, dim, 2)[: (dim // 2)].float() / dim))``.
    """
    exponents = np.arange(0, dim, 2)[: dim // 2].astype(F32) / F32(dim)
    return F32(1.0) / (F32(theta) ** exponents)


def meta_apply_scaling(
    freqs, scale_factor=8, low_freq_factor=1, high_freq_factor=4, old_context_len=8192
):
    """Meta's ``apply_scaling`` for Llama 3.1, float32.

    The original fixes the four constants to the defaults here ("Values obtained from
    grid search"); they are parameters only so that the tests can run it on other
    values. The middle band is ``(wavelen >= high_freq_wavelen) & (wavelen <=
    low_freq_wavelen)``, Hugging Face's ``~(wavelen < high) * ~(wavelen > low)``.
    """
    freqs = np.asarray(freqs, dtype=F32)
    low_freq_wavelen = old_context_len / low_freq_factor
    high_freq_wavelen = old_context_len / high_freq_factor
    wavelen = F32(2 * math.pi) / freqs
    new_freqs = np.where(
        wavelen > F32(low_freq_wavelen), freqs / F32(scale_factor), freqs
    )
    smooth = (F32(old_context_len) / wavelen - F32(low_freq_factor)) / F32(
        high_freq_factor - low_freq_factor
    )
    middle = (wavelen >= F32(high_freq_wavelen)) & (wavelen <= F32(low_freq_wavelen))
    blended = (F32(1) - smooth) * new_freqs / F32(scale_factor) + smooth * new_freqs
    return np.where(middle, blended, new_freqs).astype(F32)
