"""The transcriptions of Whisper, Flax, the TensorFlow tutorials, DistilBERT, diffusers,
keras-hub, ESPnet and of hand-written code with known bugs, each against the exact table
of what it computes.

Truth: the oracle (mpmath), given the convention each docstring in
``oracle.transcriptions`` claims (its layout, its frequencies, the position of each row,
its zero rows and columns). Each table is compared entry by entry within a bound derived
from the precision its angles are formed in:

- **float64 angles stored in float32** (:func:`stored_float64`): the stored value is
  the float64 value rounded once, at most half a float32 spacing away, ``2**-25`` for
  ``|v| <= 1``; the float64 value itself is off by the few roundings of its angle
  (exponent, ``pow`` or ``exp``, quotient or product: a relative error below
  ``64 * 2**-53`` even after ``ln(base)`` amplifies the exponent's) plus one of
  ``sin``/``cos``.
- **float32 angles** (:func:`float32_code`): the argument of ``exp`` (or the exponent
  of ``pow``), at most ``ln(base)`` in size, carries ``argument_roundings`` float32
  roundings, so the frequency is off by a relative
  ``argument_roundings * ln(base) * 2**-24``; NumPy's float32 ``exp`` and ``power`` are
  within 3 units in the last place (measured: 2.43 and 1.0 over the arguments these
  codes use), a relative ``3 * 2**-23``; every later float32 product (position times
  frequency, times ``scale``) adds a relative ``2**-24``. The angle error moves a sine
  or cosine by at most as much, and NumPy's float32 ``sin``/``cos`` are within 1.2 units
  of ``2**-24`` of the true value of their float32 argument (measured up to 3e5
  radians): ``4 * 2**-24`` covers it and the float64 rounding of the oracle.

The bounds are entry by entry (each entry's own ``|t| * w``), so they are tight where
the angles are small, and ``test_wrong_conventions_fail`` shows that a table of the
wrong layout, frequencies, row positions or direction fails them.
"""

import math

import mpmath
import numpy as np
import pytest

import oracle
from oracle import transcriptions

F24 = 2.0**-24  # spacing of float32 numbers just below 1
F53 = 2.0**-53  # spacing of float64 numbers just below 1
LN10K = math.log(10000)
POSITIONS = np.arange(301)


# --- the exact tables and the bounds --------------------------------------------------


def paper(count, d_model, base=10000):
    """The paper's frequencies ``base ** (-2i / d_model)``, ``i < count`` (mpmath)."""
    return [oracle.frequency(i, d_model, base) for i in range(count)]


def t2t(channels, min_timescale=1, max_timescale=10000):
    """tensor2tensor's grid: ``channels // 2`` frequencies from ``min_timescale`` over
    ``channels // 2 - 1`` steps."""
    return [
        oracle.timescale_frequency(k, channels, min_timescale, max_timescale)
        for k in range(channels // 2)
    ]


def exact(positions, omega, layout, width=None):
    """The exact table (float64) of the frequencies ``omega`` in ``layout``, cut or
    zero-padded to ``width`` columns."""
    columns = 2 * len(omega)
    table = oracle.encoding(positions, columns, layout=layout, frequencies=omega)
    if width is not None and width != columns:
        table = (
            table[:, :width]
            if width < columns
            else np.pad(table, ((0, 0), (0, width - columns)))
        )
    return table


def column_frequencies(omega, layout, width):
    """Each column's frequency as a float (0 for a zero column), for the bounds."""
    w = [float(x) for x in omega]
    per_column = w + w if layout == "concat" else [w[j // 2] for j in range(2 * len(w))]
    per_column = per_column[:width] + [0.0] * max(0, width - len(per_column))
    return np.array(per_column)


def stored_float64(positions, w):
    """Bound for a table whose float64 value ``sin(t w)`` or ``cos(t w)`` was rounded
    once to float32."""
    angle = np.abs(np.asarray(positions, dtype=np.float64))[:, None] * w[None, :]
    return 2.0**-25 + (64 * angle + 4) * F53


def float32_code(positions, w, log_base, argument_roundings, product_roundings):
    """Bound for a table whose frequencies and angles were formed in float32 (see the
    module docstring)."""
    angle = np.abs(np.asarray(positions, dtype=np.float64))[:, None] * w[None, :]
    relative = (
        argument_roundings * log_base * F24 + 3 * 2.0**-23 + product_roundings * F24
    )
    return angle * relative + 4 * F24


def within(table, expected, bound):
    """Whether ``table`` (any float type) is within ``bound`` of ``expected`` entry by
    entry."""
    table = np.asarray(table, dtype=np.float64)
    return table.shape == expected.shape and bool(
        np.all(np.abs(table - expected) <= bound)
    )


def assert_within(table, expected, bound):
    table = np.asarray(table, dtype=np.float64)
    assert table.shape == expected.shape
    excess = np.abs(table - expected) / bound
    worst = np.unravel_index(excess.argmax(), excess.shape)
    assert excess.max() <= 1, (
        f"worst entry at {worst}: {excess.max():.3g} times the bound"
    )


# --- Whisper, Flax, the TensorFlow tutorials, DistilBERT ------------------------------


@pytest.mark.parametrize(
    "channels, max_timescale",
    [(4, 10000), (6, 10000), (64, 10000), (384, 10000), (32, 500)],
)
def test_whisper_is_tensor2tensor_concat_in_float32(channels, max_timescale):
    table = transcriptions.whisper_sinusoids(
        len(POSITIONS), channels, max_timescale=max_timescale
    )
    assert table.dtype == np.float32 and table.shape == (len(POSITIONS), channels)
    omega = t2t(channels, 1, max_timescale)
    # inc = log(max) / (K - 1) rounded to float32 and multiplied by k: two roundings of
    # the argument of exp.
    bound = float32_code(
        POSITIONS,
        column_frequencies(omega, "concat", channels),
        math.log(max_timescale),
        2,
        1,
    )
    assert_within(table, exact(POSITIONS, omega, "concat"), bound)


def test_whisper_refuses_odd_channels():
    with pytest.raises(AssertionError):
        transcriptions.whisper_sinusoids(10, 7)


@pytest.mark.parametrize("d_feature", [4, 7, 16, 33, 64])
@pytest.mark.parametrize(
    "min_scale, max_scale", [(1.0, 10000.0), (2.0, 5000.0), (0.5, 100.0)]
)
def test_flax_is_tensor2tensor_concat_in_float64(d_feature, min_scale, max_scale):
    table = transcriptions.flax_sinusoidal_init(
        len(POSITIONS), d_feature, min_scale=min_scale, max_scale=max_scale
    )
    assert table.dtype == np.float32 and table.shape == (1, len(POSITIONS), d_feature)
    omega = t2t(d_feature, min_scale, max_scale)
    expected = oracle.timing_signal(
        POSITIONS, d_feature, min_timescale=min_scale, max_timescale=max_scale
    )
    assert_within(
        table[0],
        expected,
        stored_float64(POSITIONS, column_frequencies(omega, "concat", d_feature)),
    )
    if d_feature % 2:
        assert not table[0, :, -1].any()  # the zero column, exactly


@pytest.mark.parametrize("depth", [4, 16, 64, 128])
def test_tf_text_tutorial_is_the_paper_concat_in_float64(depth):
    table = transcriptions.tf_text_positional_encoding(len(POSITIONS), depth)
    assert table.dtype == np.float32 and table.shape == (len(POSITIONS), depth)
    omega = paper(depth // 2, depth)
    bound = stored_float64(POSITIONS, column_frequencies(omega, "concat", depth))
    assert_within(table, exact(POSITIONS, omega, "concat"), bound)


@pytest.mark.parametrize("depth", [5, 17, 33])
def test_tf_text_tutorial_gives_an_odd_depth_one_more_column(depth):
    # np.arange(depth / 2) has ceil(depth / 2) entries: as many sines and cosines,
    # exponents 2k / depth, no zero column.
    table = transcriptions.tf_text_positional_encoding(len(POSITIONS), depth)
    assert table.shape == (len(POSITIONS), depth + 1)
    omega = paper((depth + 1) // 2, depth)
    bound = stored_float64(POSITIONS, column_frequencies(omega, "concat", depth + 1))
    assert_within(table, exact(POSITIONS, omega, "concat"), bound)


@pytest.mark.parametrize(
    "code",
    [
        transcriptions.tf_docs_positional_encoding,
        transcriptions.distilbert_sinusoidal_embeddings,
    ],
    ids=lambda f: f.__name__,
)
@pytest.mark.parametrize("d_model", [4, 7, 16, 33, 64])
def test_interleaved_paper_tables_in_float64(code, d_model):
    table = code(len(POSITIONS), d_model)
    table = table[0] if table.ndim == 3 else table
    assert table.dtype == np.float32 and table.shape == (len(POSITIONS), d_model)
    omega = paper((d_model + 1) // 2, d_model)
    expected = exact(
        POSITIONS, omega, "interleaved", d_model
    )  # an odd width ends with a sine
    assert_within(
        table,
        expected,
        stored_float64(POSITIONS, column_frequencies(omega, "interleaved", d_model)),
    )


# --- diffusers, keras-hub, ESPnet -----------------------------------------------------


def diffusers_frequencies(embedding_dim, shift, scale, max_period):
    """``scale * max_period ** (-k / (K - shift))``, ``k < K = embedding_dim // 2``, in
    mpmath."""
    half = embedding_dim // 2
    with mpmath.workprec(oracle.MIN_BITS):
        period = mpmath.mpf(max_period)
        return [
            mpmath.mpf(scale) * period ** (-mpmath.mpf(k) / (half - mpmath.mpf(shift)))
            for k in range(half)
        ]


DIFFUSERS_CASES = [
    # embedding_dim, flip_sin_to_cos, downscale_freq_shift, scale, max_period, timesteps
    (16, False, 1, 1, 10000, POSITIONS),  # the defaults: tensor2tensor's grid
    (17, False, 1, 1, 10000, POSITIONS),
    (
        64,
        True,
        0,
        1,
        10000,
        POSITIONS,
    ),  # Stable Diffusion's Timesteps(320, True, 0): the paper's frequencies
    (33, True, 0, 1, 10000, POSITIONS),
    (24, False, 1, 1, 5000, POSITIONS),
    (
        32,
        True,
        0,
        1000,
        10000,
        POSITIONS / 256,
    ),  # fractional timesteps in [0, 1.2], exact in float32, scaled
]


@pytest.mark.parametrize(
    "dim, flip, shift, scale, max_period, timesteps", DIFFUSERS_CASES
)
def test_diffusers_timestep_embedding(dim, flip, shift, scale, max_period, timesteps):
    table = transcriptions.diffusers_timestep_embedding(
        timesteps,
        dim,
        flip_sin_to_cos=flip,
        downscale_freq_shift=shift,
        scale=scale,
        max_period=max_period,
    )
    assert table.dtype == np.float32 and table.shape == (len(timesteps), dim)
    omega = diffusers_frequencies(dim, shift, scale, max_period)
    half = dim // 2
    expected = exact(timesteps, omega, "concat")
    w = column_frequencies(omega, "concat", 2 * half)
    if flip:
        expected = np.concatenate([expected[:, half:], expected[:, :half]], axis=1)
    expected = np.pad(expected, ((0, 0), (0, dim % 2)))
    w = np.pad(
        w, (0, dim % 2)
    )  # the halves have the same frequencies, so the flip leaves w alone
    # -log(P) rounded, times k, divided by K - shift: three roundings of the argument; t
    # * w and scale * (t w): two.
    assert_within(
        table, expected, float32_code(timesteps, w, math.log(max_period), 3, 2)
    )
    if dim % 2:
        assert not table[:, -1].any()


def test_diffusers_shift_zero_is_the_paper_and_shift_one_tensor2tensor():
    # The frequency families, named: for an even width shift 0 gives base^(-2k/d), shift
    # 1 the grid over K - 1 steps.
    assert all(
        mpmath.almosteq(a, b, 2.0**-150)
        for a, b in zip(
            diffusers_frequencies(64, 0, 1, 10000), paper(32, 64), strict=True
        )
    )
    assert all(
        mpmath.almosteq(a, b, 2.0**-150)
        for a, b in zip(diffusers_frequencies(64, 1, 1, 10000), t2t(64), strict=True)
    )


@pytest.mark.parametrize("hidden_size", [4, 7, 16, 33, 64])
@pytest.mark.parametrize(
    "max_wavelength, start_index", [(10000, 0), (10000, 7), (500, 0)]
)
def test_keras_sine_position_encoding_is_the_paper_interleaved_in_float32(
    hidden_size, max_wavelength, start_index
):
    table = transcriptions.keras_sine_position_encoding(
        len(POSITIONS), hidden_size, max_wavelength, start_index
    )
    assert table.dtype == np.float32 and table.shape == (len(POSITIONS), hidden_size)
    positions = POSITIONS + start_index
    omega = paper((hidden_size + 1) // 2, hidden_size, max_wavelength)
    # The exponent 2i / d: one rounding; min_freq = 1 / max (its error raised to e <= 1)
    # and t * w: two products.
    w = column_frequencies(omega, "interleaved", hidden_size)
    bound = float32_code(positions, w, math.log(max_wavelength), 1, 2)
    assert_within(table, exact(positions, omega, "interleaved", hidden_size), bound)


@pytest.mark.parametrize("d_model", [4, 16, 64, 256])
@pytest.mark.parametrize("reverse", [False, True])
def test_espnet_is_the_paper_interleaved_in_float32(d_model, reverse):
    table = transcriptions.espnet_positional_encoding(
        len(POSITIONS), d_model, reverse=reverse
    )
    assert table.dtype == np.float32 and table.shape == (1, len(POSITIONS), d_model)
    positions = (
        POSITIONS[::-1] if reverse else POSITIONS
    )  # reverse: row r holds max_len - 1 - r
    omega = paper(d_model // 2, d_model)
    bound = float32_code(
        positions, column_frequencies(omega, "interleaved", d_model), LN10K, 2, 1
    )
    assert_within(table[0], exact(positions, omega, "interleaved"), bound)


def test_espnet_refuses_an_odd_width():
    with pytest.raises(ValueError):
        transcriptions.espnet_positional_encoding(10, 7)


# --- the bugs -------------------------------------------------------------------------


def every_column_its_own(positions, d_model, base=10000):
    """Sines in even columns, cosines in odd ones, and column ``j`` at frequency ``base
    ** (-2j / d)`` (exact)."""
    sines = exact(
        positions,
        [oracle.frequency(j, d_model, base) for j in range(0, d_model + 1, 2)],
        "interleaved",
    )
    cosines = exact(
        positions,
        [oracle.frequency(j, d_model, base) for j in range(1, d_model + 2, 2)],
        "interleaved",
    )
    table = np.empty((len(positions), d_model))
    table[:, 0::2] = sines[:, 0:d_model:2]
    table[:, 1::2] = cosines[:, 1:d_model:2]
    return table, np.array(
        [float(oracle.frequency(j, d_model, base)) for j in range(d_model)]
    )


@pytest.mark.parametrize("d_model", [4, 7, 16, 64])
def test_deepctr_gives_column_j_the_frequency_of_pair_j(d_model):
    table = transcriptions.deepctr_positional_encoding(len(POSITIONS), d_model)
    assert table.dtype == np.float32 and table.shape == (len(POSITIONS), d_model)
    expected, w = every_column_its_own(POSITIONS, d_model)
    assert_within(table, expected, stored_float64(POSITIONS, w))
    padded = transcriptions.deepctr_positional_encoding(
        len(POSITIONS), d_model, zero_pad=True
    )
    assert not padded[0].any() and np.array_equal(padded[1:], table[1:])


@pytest.mark.parametrize("d_model", [4, 16, 64])
def test_samlynnevans_is_the_same_table_as_deepctr(d_model):
    table = transcriptions.samlynnevans_positional_encoder(len(POSITIONS), d_model)
    assert table.dtype == np.float32 and table.shape == (1, len(POSITIONS), d_model)
    expected, w = every_column_its_own(POSITIONS, d_model)
    assert_within(table[0], expected, stored_float64(POSITIONS, w))
    # Both round the same float64 values (Python's math against NumPy's sin/cos, which
    # may differ in the last bit) to float32: at most one float32 spacing apart, 2**-24
    # for values below 1.
    assert (
        np.abs(
            table[0]
            - transcriptions.deepctr_positional_encoding(len(POSITIONS), d_model)
        ).max()
        <= F24
    )


def test_samlynnevans_refuses_an_odd_width():
    with pytest.raises(IndexError):
        transcriptions.samlynnevans_positional_encoder(3, 7)


@pytest.mark.parametrize("d_model", [4, 7, 64])
def test_jadore_2017_is_deepctr_with_a_zero_row_0(d_model):
    table = transcriptions.jadore_position_encoding_init(len(POSITIONS), d_model)
    assert table.dtype == np.float32 and table.shape == (len(POSITIONS), d_model)
    # The same NumPy operations on the same float64 values: bit for bit.
    assert np.array_equal(
        table,
        transcriptions.deepctr_positional_encoding(
            len(POSITIONS), d_model, zero_pad=True
        ),
    )
    expected, w = every_column_its_own(POSITIONS[1:], d_model)
    assert not table[0].any()
    assert_within(table[1:], expected, stored_float64(POSITIONS[1:], w))


@pytest.mark.parametrize("d_model", [4, 7, 64])
@pytest.mark.parametrize("padding_idx", [None, 0, 5])
def test_jadore_2018_is_the_paper_interleaved_with_row_padding_idx_zeroed(
    d_model, padding_idx
):
    table = transcriptions.jadore_sinusoid_table(
        len(POSITIONS), d_model, padding_idx=padding_idx
    )
    assert table.dtype == np.float32 and table.shape == (len(POSITIONS), d_model)
    omega = paper((d_model + 1) // 2, d_model)
    expected = exact(POSITIONS, omega, "interleaved", d_model)
    if padding_idx is not None:
        expected[padding_idx] = 0
        assert not table[padding_idx].any()
    assert_within(
        table,
        expected,
        stored_float64(POSITIONS, column_frequencies(omega, "interleaved", d_model)),
    )


@pytest.mark.parametrize("d_model", [4, 7, 64])
def test_jadore_method_is_the_paper_interleaved_with_no_zero_row(d_model):
    table = transcriptions.jadore_positional_encoding_table(len(POSITIONS), d_model)
    assert table.dtype == np.float32 and table.shape == (1, len(POSITIONS), d_model)
    omega = paper((d_model + 1) // 2, d_model)
    expected = exact(POSITIONS, omega, "interleaved", d_model)
    w = column_frequencies(omega, "interleaved", d_model)
    assert_within(table[0], expected, stored_float64(POSITIONS, w))
    # position 0 is a row of the table, not a zero row: sin 0 = 0 and cos 0 = 1 exactly
    assert np.array_equal(table[0, 0, 1::2], np.ones(d_model // 2, dtype=np.float32))
    # the 2018 module function does the same NumPy operations: bit for bit without
    # padding_idx
    module_function = transcriptions.jadore_sinusoid_table(len(POSITIONS), d_model)
    assert np.array_equal(table[0], module_function)


def test_rows_read_by_jadore_and_tensor2tensor_start_at_row_0():
    # jadore (ecfe240) adds pos_table[:, :x.size(1)]: index t reads row t; tensor2tensor
    # (16d59abb) adds get_timing_signal_1d(length, ..., start_index): row t +
    # start_index
    assert transcriptions.jadore_rows(5).tolist() == [0, 1, 2, 3, 4]
    assert transcriptions.tensor2tensor_rows(4).tolist() == [0, 1, 2, 3]
    assert transcriptions.tensor2tensor_rows(3, start_index=2).tolist() == [2, 3, 4]
    # the row a token reads is the row its position's table would give at start_index
    signal = transcriptions.tensor2tensor(6, 8)[0]
    shifted = transcriptions.tensor2tensor(3, 8, start_index=2)[0]
    assert np.array_equal(
        signal[transcriptions.tensor2tensor_rows(3, start_index=2)], shifted
    )


def test_the_bug_is_not_the_paper():
    # Column j at base^(-2j/d) instead of base^(-2(j//2)/d): already column 1 (a cosine)
    # is off at position 1.
    bug = transcriptions.deepctr_positional_encoding(len(POSITIONS), 16)
    expected, w = every_column_its_own(POSITIONS, 16)
    paper_table = exact(POSITIONS, paper(8, 16), "interleaved")
    assert not within(bug, paper_table, stored_float64(POSITIONS, w))
    assert np.abs(bug[:, 1] - paper_table[:, 1]).max() > 0.5
    # Even columns 2i carry base^(-4i/d), the paper's frequency of pair 2i: the sines
    # are the paper's sines of pair 2i.
    assert np.abs(expected[:, 2] - paper_table[:, 4]).max() <= 2**-50


# --- the tests can fail ---------------------------------------------------------------


def wrong_conventions():
    """(name, table, expected of a wrong convention, bound): each must fail."""
    n = len(POSITIONS)
    omega16, t2t16 = paper(8, 16), t2t(16)
    w_t2t = column_frequencies(t2t16, "concat", 16)
    w_paper = column_frequencies(omega16, "interleaved", 16)
    whisper = transcriptions.whisper_sinusoids(n, 16)
    keras = transcriptions.keras_sine_position_encoding(n, 16)
    espnet_reverse = transcriptions.espnet_positional_encoding(n, 16, reverse=True)[0]
    diffusers_flip = transcriptions.diffusers_timestep_embedding(
        POSITIONS, 16, flip_sin_to_cos=True
    )
    tf_text = transcriptions.tf_text_positional_encoding(n, 16)
    jadore = transcriptions.jadore_sinusoid_table(n, 16, padding_idx=0)
    f32_t2t = float32_code(POSITIONS, w_t2t, LN10K, 3, 2)
    f32_paper = float32_code(POSITIONS, w_paper, LN10K, 2, 2)
    return [
        (
            "whisper as interleaved",
            whisper,
            exact(POSITIONS, t2t16, "interleaved"),
            f32_t2t,
        ),
        (
            "whisper with the paper's frequencies",
            whisper,
            exact(POSITIONS, omega16, "concat"),
            f32_t2t,
        ),
        ("keras as [sin | cos]", keras, exact(POSITIONS, omega16, "concat"), f32_paper),
        (
            "keras from position 1",
            keras,
            exact(POSITIONS + 1, omega16, "interleaved"),
            f32_paper,
        ),
        (
            "espnet reversed read forwards",
            espnet_reverse,
            exact(POSITIONS, omega16, "interleaved"),
            f32_paper,
        ),
        (
            "diffusers flipped read unflipped",
            diffusers_flip,
            exact(POSITIONS, t2t16, "concat"),
            f32_t2t,
        ),
        (
            "tf_text with tensor2tensor's grid",
            tf_text,
            exact(POSITIONS, t2t16, "concat"),
            stored_float64(POSITIONS, w_t2t),
        ),
        (
            "jadore without its zero row",
            jadore,
            exact(POSITIONS, omega16, "interleaved"),
            stored_float64(POSITIONS, w_paper),
        ),
        (
            "jadore's method as [sin | cos]",
            transcriptions.jadore_positional_encoding_table(n, 16)[0],
            exact(POSITIONS, omega16, "concat"),
            stored_float64(POSITIONS, w_paper),
        ),
    ]


def test_wrong_conventions_fail():
    passed = [
        name
        for name, table, expected, bound in wrong_conventions()
        if within(table, expected, bound)
    ]
    assert not passed


def test_hf_llama_rope_steps_in_the_types_named():
    # The parameters say which step is in which type (Hugging Face 5dd4a635 forces
    # float32 angles, rounds cos/sin to the model's type). Checked step by step on
    # an input [1..1, 0..0], whose output is [cos | sin] exactly (1 * c + 0 * s).
    import ml_dtypes

    bf16, d = ml_dtypes.bfloat16, 16
    positions = np.array([0, 1, 255, 4096, 65537])
    x = np.tile(np.r_[np.ones(d // 2), np.zeros(d // 2)], (len(positions), 1))
    exponents = np.arange(0, d, 2).astype(np.float32) / np.float32(d)
    inv = np.float32(1) / np.float32(10000) ** exponents
    routes = {  # (angle_dtype, inv_freq_dtype): the frequencies the product uses
        (np.float32, None): inv,
        (np.float32, bf16): inv.astype(bf16).astype(np.float32),
    }
    for (angle_dtype, inv_dtype), freq in routes.items():
        got = transcriptions.hf_llama_rope(
            x, positions, dtype=bf16, angle_dtype=angle_dtype, inv_freq_dtype=inv_dtype
        )
        angles = positions.astype(np.float32)[:, None] * freq[None, :]
        want = np.hstack([np.cos(angles), np.sin(angles)]).astype(bf16)
        assert got.dtype == bf16 and np.array_equal(got, want)
    # the default: every step in dtype (positions rounded to bfloat16: 65,537 -> 65,536)
    every = transcriptions.hf_llama_rope(x, positions, dtype=bf16)
    at_65536 = transcriptions.hf_llama_rope(x, [65536], dtype=bf16)[0]
    assert np.array_equal(every[-1], at_65536)
    f32 = transcriptions.hf_llama_rope(x, positions, dtype=bf16, angle_dtype=np.float32)
    assert not np.array_equal(every[-1], f32[-1])
    f32_default = transcriptions.hf_llama_rope(x, positions)
    f32_named = transcriptions.hf_llama_rope(x, positions, angle_dtype=np.float32)
    assert np.array_equal(f32_default, f32_named)


# --- PyTorch's bicubic resize and MAE's interpolate_pos_embed -------------------------


def keys_weight(x, a):
    """Keys' cubic convolution kernel W(x) with parameter ``a``, written from its
    definition (Keys 1981, eq. 15), in whatever arithmetic ``x`` and ``a`` carry."""
    x = abs(x)
    if x <= 1:
        return (a + 2) * x**3 - (a + 3) * x**2 + 1
    if x < 2:
        return a * x**3 - 5 * a * x**2 + 8 * a * x - 4 * a
    return 0 * x


def keys_resize_1d(samples, out_size, a=-0.75):
    """A plain loop: output j is sum over the four taps k of W(src - k) * f(clamp(k)),
    src = (j + 1/2) n / m - 1/2 (-1/2 if m = 1; taps floor(src) - 1 .. floor(src) +
    2), in the arithmetic of ``samples`` (floats, or mpmath numbers with ``a`` as
    one)."""
    n = len(samples)
    out = []
    for j in range(out_size):
        src = mpmath.mpf(2 * j + 1) * n / (2 * out_size) - mpmath.mpf(1) / 2
        if out_size == 1:
            # PyTorch's area_pixel_compute_scale gives scale 0 for one output, so
            # its source index is -1/2, not the centre (n - 1) / 2
            src = -mpmath.mpf(1) / 2
        base = int(mpmath.floor(src))
        total = 0
        for k in range(base - 1, base + 3):
            total += keys_weight(src - k, a) * samples[min(max(k, 0), n - 1)]
        out.append(total)
    return out


@pytest.mark.parametrize(
    ("n", "m"), [(14, 24), (14, 7), (32, 14), (5, 9), (9, 2), (4, 1)]
)
def test_torch_bicubic_resize_is_keys_kernel_with_a_minus_three_quarters(n, m):
    rng = np.random.default_rng(n * 100 + m)
    grid = rng.standard_normal((n, n, 3))
    got = transcriptions.torch_bicubic_resize(grid, (m, m))
    with mpmath.workdps(30):
        a = mpmath.mpf(-3) / 4
        for c in range(3):
            # separable: each row along the width, then each column along the height
            rows = [
                keys_resize_1d([mpmath.mpf(v) for v in grid[h, :, c]], m, a)
                for h in range(n)
            ]
            want = [
                keys_resize_1d([rows[h][w] for h in range(n)], m, a) for w in range(m)
            ]
            want = np.array([[float(want[w][h]) for w in range(m)] for h in range(m)])
            # float64 sums of 16 products of weights <= 1.3 in size and entries of
            # size <= 5: well under 1e-13
            assert np.abs(got[:, :, c] - want).max() < 1e-13


def test_torch_bicubic_resize_same_size_is_the_identity():
    grid = np.random.default_rng(0).standard_normal((6, 6, 4))
    assert np.array_equal(transcriptions.torch_bicubic_resize(grid, (6, 6)), grid)


def test_torch_bicubic_resize_reproduces_constants_not_ramps():
    # Keys' weights sum to 1 for every a: a constant is reproduced (to rounding);
    # a linear ramp only where the fraction t is 0 or 1/2, since the first moment of
    # the weights is t only for a = -1/2 (checked below in mpmath).
    const = np.full((14, 14, 1), 0.7)
    # two passes, each four products with weights of total size below 1.5 and a sum:
    # a few float64 roundings of 0.7 each, far below 1e-14
    assert (
        np.abs(transcriptions.torch_bicubic_resize(const, (24, 24)) - 0.7).max() < 1e-14
    )
    ramp = np.broadcast_to(np.arange(14.0)[None, :, None], (14, 14, 1))
    got = transcriptions.torch_bicubic_resize(ramp, (24, 24))[0, :, 0]
    src = (np.arange(24) + 0.5) * 14 / 24 - 0.5
    interior = (np.floor(src) >= 1) & (np.floor(src) <= 11)
    assert np.abs(got - src)[interior].max() > 0.01
    # 14 -> 7: every source index is 2 j + 1/2 (t = 1/2), where the ramp is exact
    half = transcriptions.torch_bicubic_resize(ramp, (7, 7))[0, :, 0]
    # away from the border (the first and last taps clamp: 0.40625, not 0.5)
    assert np.abs(half - (2 * np.arange(7) + 0.5))[1:-1].max() < 1e-14
    assert half[0] == 0.40625  # 0.5 - 3/32: the weight -3/32 of tap -1 moved to 0
    with mpmath.workdps(30):
        for t in (mpmath.mpf(1) / 4, mpmath.mpf(1) / 3):
            for a, reproduces in (
                (mpmath.mpf(-3) / 4, False),
                (-mpmath.mpf(1) / 2, True),
            ):
                moment = sum(keys_weight(t - k, a) * k for k in range(-1, 3))
                square = sum(keys_weight(t - k, a) * k**2 for k in range(-1, 3))
                assert (abs(moment - t) < 1e-25) is reproduces
                assert (abs(square - t**2) < 1e-25) is reproduces


def test_torch_bicubic_resize_float32_follows_float64():
    grid = np.random.default_rng(1).standard_normal((14, 14, 8))
    f64 = transcriptions.torch_bicubic_resize(grid, (24, 24))
    f32 = transcriptions.torch_bicubic_resize(
        grid.astype(np.float32), (24, 24), np.float32
    )
    assert f32.dtype == np.float32
    # float32 weights and 16-term sums of entries <= 5: a few hundred float32 ulps of 1
    assert np.abs(f32 - f64).max() < 1e-5


@pytest.mark.parametrize(("n", "m"), [(14, 24), (14, 7), (4, 6)])
def test_mae_interpolate_pos_embed_keeps_the_class_row_and_resizes_the_grid(n, m):
    d = 16
    table = transcriptions.mae_2d_sincos_pos_embed(d, n, cls_token=True)
    table[0] = np.arange(d)  # a class row that is not zero, to see it kept
    got = transcriptions.mae_interpolate_pos_embed(table[None], m * m, 1)
    assert got.shape == (1, 1 + m * m, d)
    assert np.array_equal(got[0, 0], np.arange(d))
    grid = table[1:].reshape(n, n, d)
    with mpmath.workdps(30):
        a = mpmath.mpf(-3) / 4
        # the table is separable: the width half depends on w only, the height half
        # on h only, so each is the 1-D resize of its axis (weights summing to 1)
        for col in (0, d // 4, d // 2, 3 * d // 4 + 1):
            if col < d // 2:
                line = keys_resize_1d([mpmath.mpf(v) for v in grid[0, :, col]], m, a)
                want = np.array([[float(line[w]) for w in range(m)]] * m)
            else:
                line = keys_resize_1d([mpmath.mpf(v) for v in grid[:, 0, col]], m, a)
                want = np.array([[float(line[h])] * m for h in range(m)])
            assert np.abs(got[0, 1:, col].reshape(m, m) - want).max() < 1e-14


def test_mae_interpolate_pos_embed_same_size_is_unchanged():
    table = transcriptions.mae_2d_sincos_pos_embed(8, 5, cls_token=True)
    assert np.array_equal(
        transcriptions.mae_interpolate_pos_embed(table, 25, 1)[0], table
    )
