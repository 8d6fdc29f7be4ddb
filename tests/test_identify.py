"""pelib.identify: the convention of tables made by real code, of tables made here, and
refusals.

The expected conventions are facts about the code that made each table (its source, as
transcribed in ``oracle.transcriptions``), and the rebuilt tables are checked against
the exact values of the oracle, built from the identified parameters without pelib.
"""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import oracle
import pelib
from oracle import transcriptions

F32 = np.float32


def exact_table(ident: pelib.Identification, n: int) -> np.ndarray:
    """The table ``ident`` describes, rows 0 .. n - 1, from the oracle (exact values
    rounded once)."""
    core = [j for j in range(ident.width) if j not in ident.zero_columns]
    m = len(core)
    count = (m + 1) // 2
    with mpmath.workprec(200):
        if ident.frequencies == "paper":
            omega = [
                oracle.frequency(i, ident.d_model, ident.base) for i in range(count)
            ]
        else:
            low = mpmath.mpf(ident.min_timescale)
            omega = [
                oracle.timescale_frequency(i, ident.d_model, low, ident.base)
                for i in range(count)
            ]
    positions = range(ident.offset, ident.offset + n)
    if ident.layout == "interleaved":
        values = oracle.encoding(positions, m, frequencies=omega)
    else:
        concat = oracle.encoding(
            positions, m, layout="concat", frequencies=omega
        )  # ceil(m/2) sines, then cosines
        if ident.layout == "concat":
            values = concat
        else:  # [cos | sin]: floor(m/2) cosines, then the sines
            values = np.hstack([concat[:, count:], concat[:, :count]])
    table = np.zeros((n, ident.width))
    table[:, core] = values
    table[[r for r in ident.zero_rows if r < n]] = 0
    return table


def check_rebuild(table, ident):
    """max_error is |table - ident.table(n)|, and ident.table agrees with the oracle's
    table."""
    n = len(table)
    rebuilt = ident.table(n)
    assert rebuilt.shape == np.shape(table)
    assert (
        ident.max_error == np.abs(np.asarray(table, dtype=np.float64) - rebuilt).max()
    )
    # identify rebuilds within about 0.53 units in the last place (pelib.identify,
    # Notes); the oracle's table is the exact one rounded once: together below 2**-52
    # for values up to 1
    assert np.abs(rebuilt - exact_table(ident, n)).max() <= 2.0**-52


def expect(ident, **attributes):
    got = {name: getattr(ident, name) for name in attributes}
    assert got == attributes


# --- tables of widely used code -------------------------------------------------------

WIDTHS = [2, 4, 6, 16, 17, 64, 129, 512]


@pytest.mark.parametrize("d", WIDTHS)
def test_tensor2tensor(d):
    table = transcriptions.tensor2tensor(60, d, start_index=3)[0]
    ident = pelib.identify(table)
    pairs = d // 2
    if (
        pairs == 1
    ):  # one frequency (1): the base is not determined, the layout is that of one pair
        expect(ident, layout="interleaved", frequencies="paper", base=10000.0)
    else:
        expect(ident, layout="concat", frequencies="tensor2tensor", base=10000.0)
    expect(
        ident,
        offset=3,
        zero_rows=(),
        zero_columns=(d - 1,) if d % 2 else (),
        angle_dtype="float32",
    )
    check_rebuild(table, ident)


FAIRSEQ_WIDTHS = [
    d for d in WIDTHS if d >= 4
]  # fairseq's arithmetic divides by d // 2 - 1


@pytest.mark.parametrize("d", FAIRSEQ_WIDTHS)
def test_fairseq_table_and_forward_pass(d):
    table = transcriptions.fairseq_embedding(70, d, padding_idx=1)
    ident = pelib.identify(table)
    expect(
        ident,
        offset=0,
        zero_rows=(1,),
        zero_columns=(d - 1,) if d % 2 else (),
        angle_dtype="float32",
    )
    expect(ident, layout="concat", frequencies="tensor2tensor", base=10000.0)
    check_rebuild(table, ident)
    # The rows a batch reads: left padding gives pad rows (zero) first, then positions
    # 2, 3, ...
    tokens = np.array([[1, 1, 1] + [7] * 30])
    rows = transcriptions.fairseq_positions(tokens, padding_idx=1)[0]
    looked_up = table[rows]
    ident = pelib.identify(looked_up)
    expect(ident, offset=2 - 3, zero_rows=(0, 1, 2))
    check_rebuild(looked_up, ident)
    right = table[
        transcriptions.fairseq_positions(np.array([[7] * 30 + [1, 1]]), padding_idx=1)[
            0
        ]
    ]
    expect(pelib.identify(right), offset=2, zero_rows=(30, 31))


@pytest.mark.parametrize("d", WIDTHS)
def test_marian(d):
    table = transcriptions.marian_weight(50, d)
    ident = pelib.identify(table)
    layout = "interleaved" if d == 2 else "concat"
    # at d = 2 and 4, float32 angles float32(p) * float32(w) of w = 1 and 0.01 at 50
    # positions stay within the rounding of the stored float32 numbers: the table cannot
    # tell the angles' precision
    expect(
        ident,
        layout=layout,
        frequencies="paper",
        base=10000.0,
        offset=0,
        zero_rows=(),
        zero_columns=(),
        angle_dtype="either" if d <= 4 else "float64",
        d_model=d,
    )
    check_rebuild(table, ident)


@pytest.mark.parametrize("d", FAIRSEQ_WIDTHS)
def test_musicgen(d):
    table = transcriptions.musicgen_embedding(50, d)
    ident = pelib.identify(table)
    expect(
        ident,
        layout="concat_cos_first",
        offset=0,
        zero_columns=(d - 1,) if d % 2 else (),
        angle_dtype="float32",
    )
    expect(ident, frequencies="tensor2tensor", base=10000.0)
    check_rebuild(table, ident)


@pytest.mark.parametrize("d", WIDTHS)
def test_positional_encodings_package(d):
    table = transcriptions.positional_encodings_1d(50, d)
    ident = pelib.identify(table)
    # the width is rounded up to even before the exponents are formed
    expect(
        ident,
        layout="interleaved",
        frequencies="paper",
        base=10000.0,
        offset=0,
        d_model=d + d % 2,
        angle_dtype="float32",
    )
    check_rebuild(table, ident)


@pytest.mark.parametrize(
    "code",
    [
        transcriptions.pytorch_tutorial,
        transcriptions.annotated_transformer,
        transcriptions.d2l,
    ],
    ids=lambda f: f.__name__,
)
@pytest.mark.parametrize("d", [2, 8, 64, 512])
def test_float32_tutorials(code, d):
    table = code(200, d)
    ident = pelib.identify(table)
    expect(
        ident,
        layout="interleaved",
        frequencies="paper",
        base=10000.0,
        offset=0,
        angle_dtype="float32",
    )
    check_rebuild(table, ident)


# Each row: the transcription, and the facts about the code it transcribes (see its
# docstring).
MORE_CODE = [
    (
        "Whisper",
        lambda d: transcriptions.whisper_sinusoids(40, d),
        "concat",
        "tensor2tensor",
        0,
        "float32",
    ),
    (
        "Flax",
        lambda d: transcriptions.flax_sinusoidal_init(40, d)[0],
        "concat",
        "tensor2tensor",
        0,
        "float64",
    ),
    (
        "TensorFlow text tutorial",
        lambda d: transcriptions.tf_text_positional_encoding(40, d),
        "concat",
        "paper",
        0,
        "float64",
    ),
    (
        "TensorFlow docs tutorial",
        lambda d: transcriptions.tf_docs_positional_encoding(40, d)[0],
        "interleaved",
        "paper",
        0,
        "float64",
    ),
    (
        "DistilBERT",
        lambda d: transcriptions.distilbert_sinusoidal_embeddings(40, d),
        "interleaved",
        "paper",
        0,
        "float64",
    ),
    (
        "diffusers",
        lambda d: transcriptions.diffusers_timestep_embedding(np.arange(40), d),
        "concat",
        "tensor2tensor",
        0,
        "float32",
    ),
    (
        "diffusers, shift 0, flipped",
        lambda d: transcriptions.diffusers_timestep_embedding(
            np.arange(40), d, flip_sin_to_cos=True, downscale_freq_shift=0
        ),
        "concat_cos_first",
        "paper",
        0,
        "float32",
    ),
    (
        "diffusers, timesteps from 7",
        lambda d: transcriptions.diffusers_timestep_embedding(np.arange(7, 47), d),
        "concat",
        "tensor2tensor",
        7,
        "float32",
    ),
    (
        "keras-hub",
        lambda d: transcriptions.keras_sine_position_encoding(40, d, start_index=3),
        "interleaved",
        "paper",
        3,
        "float32",
    ),
    (
        "ESPnet",
        lambda d: transcriptions.espnet_positional_encoding(40, d)[0],
        "interleaved",
        "paper",
        0,
        "float32",
    ),
    (
        "attention-is-all-you-need-pytorch",
        lambda d: transcriptions.jadore_sinusoid_table(40, d, padding_idx=0),
        "interleaved",
        "paper",
        0,
        "float64",
    ),
]


@pytest.mark.parametrize("d", [16, 17, 256])
@pytest.mark.parametrize(
    "name, make, layout, frequencies, offset, angle_dtype",
    MORE_CODE,
    ids=[row[0] for row in MORE_CODE],
)
def test_more_code(name, make, layout, frequencies, offset, angle_dtype, d):
    if d % 2 and name in ("Whisper", "ESPnet"):
        pytest.skip("the original refuses an odd width")
    table = make(d)
    ident = pelib.identify(table)
    expect(
        ident,
        layout=layout,
        frequencies=frequencies,
        base=10000.0,
        offset=offset,
        angle_dtype=angle_dtype,
    )
    padding = (0,) if name.startswith("attention") else ()
    assert ident.zero_rows == padding
    check_rebuild(table, ident)


def test_hand_written_bugs_from_the_wild_are_refused():
    for table in (
        transcriptions.deepctr_positional_encoding(40, 64),
        transcriptions.samlynnevans_positional_encoder(40, 64)[0],
        transcriptions.jadore_position_encoding_init(40, 64),
    ):
        refusal(table, "exponent counts columns", "base 10000")
    refusal(
        transcriptions.espnet_positional_encoding(40, 64, reverse=True)[0],
        "backwards",
        "39 - r",
    )


@pytest.mark.parametrize("d", [3, 8, 65, 256])
@pytest.mark.parametrize("layout", ["interleaved", "concat"])
def test_the_papers_formula_in_float64(d, layout):
    table = oracle.encoding(range(-5, 40), d, layout=layout)
    ident = pelib.identify(table)
    expect(
        ident,
        layout=layout,
        frequencies="paper",
        base=10000.0,
        offset=-5,
        angle_dtype="float64",
        d_model=d,
    )
    assert (
        ident.max_error <= 2.0**-53
    )  # the oracle's table is the exact one rounded once
    check_rebuild(table, ident)


def test_an_exact_table_stored_in_float32_has_float64_angles():
    table = oracle.encoding(range(100), 64).astype(F32)
    expect(pelib.identify(table), angle_dtype="float64", frequencies="paper")


def test_float32_angles_are_told_from_float64_angles_even_in_float64_storage():
    table = pelib.sinusoidal_direct(100, 64, dtype=F32).astype(np.float64)
    expect(pelib.identify(table), angle_dtype="float32")


@pytest.mark.parametrize("base", [100.0, 2.5, 500000.0, 1e6, 12345.678])
def test_other_bases(base):
    table = oracle.encoding(range(60), 48, base=base)
    ident = pelib.identify(table)
    expect(ident, frequencies="paper", base=base, angle_dtype="float64")
    check_rebuild(table, ident)


@pytest.mark.parametrize("start", [0, 1, 2, 1000, -700, 123456, 10**7])
def test_offsets(start):
    table = oracle.encoding(range(start, start + 30), 64)
    expect(pelib.identify(table), offset=start)


def test_width_4_and_8_ambiguities_resolve_to_base_10000():
    # Two frequencies, 1 and 1/100, are the paper's base 10000 at width 4 and
    # tensor2tensor's max_timescale 100; at width 8 the paper's base 10000 and
    # tensor2tensor's 1000 coincide.
    expect(
        pelib.identify(oracle.encoding(range(30), 4, layout="concat")),
        frequencies="paper",
        base=10000.0,
    )
    t2t = oracle.timing_signal(range(30), 4)
    expect(pelib.identify(t2t), frequencies="tensor2tensor", base=10000.0)
    expect(
        pelib.identify(oracle.timing_signal(range(30), 8, max_timescale=1000)),
        frequencies="paper",
        base=10000.0,
    )


def test_the_minimum_of_8_rows():
    expect(pelib.identify(oracle.encoding(range(8), 32)), offset=0, frequencies="paper")
    with pytest.raises(ValueError, match="at least 8 rows"):
        pelib.identify(oracle.encoding(range(7), 32))


def test_float16_and_long_double_tables():
    expect(
        pelib.identify(pelib.sinusoidal(50, 32, dtype=np.float16)),
        frequencies="paper",
        base=10000.0,
        offset=0,
    )
    expect(
        pelib.identify(pelib.sinusoidal(50, 32, dtype=np.longdouble)),
        angle_dtype="float64",
    )


# --- tables generated here, with every option -----------------------------------------


@st.composite
def conventions(draw):
    family = draw(st.sampled_from(["paper", "tensor2tensor"]))
    layout = draw(st.sampled_from(["interleaved", "concat", "concat_cos_first"]))
    pairs = draw(st.integers(3, 40))
    odd = (
        draw(st.sampled_from(["none", "zero", "lone"]))
        if family == "paper"
        else draw(st.sampled_from(["none", "zero"]))
    )
    if layout == "concat_cos_first" and odd == "lone":
        odd = "none"
    offset = draw(st.integers(-60, 3000))
    n = draw(st.integers(8, 30))
    precision = draw(st.sampled_from(["float64", "float32 storage", "float32 angles"]))
    padding = draw(st.lists(st.integers(0, n - 1), max_size=2, unique=True))
    return family, layout, pairs, odd, offset, n, precision, padding


def generated(family, layout, pairs, odd, offset, n, precision, padding):
    """A table written out here from the formulas (mpmath, or a plain float32 loop), and
    its facts."""
    m = 2 * pairs + (odd == "lone")
    width = m + (odd == "zero")
    d_model = width if family == "tensor2tensor" or odd != "zero" else m
    count = (m + 1) // 2
    positions = list(range(offset, offset + n))
    if family == "paper":
        omega = [oracle.frequency(i, d_model) for i in range(count)]
    else:
        omega = [oracle.timescale_frequency(i, width, 1, 10000) for i in range(count)]
    if precision == "float32 angles":
        w32 = np.array([float(w) for w in omega], dtype=F32)
        angles = (
            np.array(positions, dtype=F32)[:, None] * w32[None, :]
        )  # float32 products, as float32 code
        sin, cos = np.sin(angles).astype(np.float64), np.cos(angles).astype(np.float64)
    else:
        exact = oracle.encoding(
            positions, 2 * count, layout="concat", frequencies=omega
        )
        sin, cos = exact[:, :count], exact[:, count:]
    if layout == "interleaved":
        core = np.empty((n, m))
        core[:, 0 : 2 * pairs : 2], core[:, 1 : 2 * pairs : 2] = (
            sin[:, :pairs],
            cos[:, :pairs],
        )
        if odd == "lone":
            core[:, -1] = sin[:, pairs]
    elif layout == "concat":
        core = np.hstack([sin[:, :count], cos[:, :pairs]])
    else:
        core = np.hstack([cos[:, :pairs], sin[:, :count]])
    table = np.zeros((n, width))
    table[:, :m] = core
    table[padding] = 0
    if precision != "float64":
        table = table.astype(F32)
    return table, d_model


@given(conventions())
@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_generated_conventions_are_recovered(convention):
    family, layout, pairs, odd, offset, n, precision, padding = convention
    table, d_model = generated(*convention)
    live = sorted(set(range(n)) - set(padding))
    longest = max(
        len(run)
        for run in np.split(np.array(live), np.nonzero(np.diff(live) != 1)[0] + 1)
    )
    assume(longest >= 4)
    ident = pelib.identify(table)
    expect(
        ident,
        layout=layout,
        frequencies=family,
        base=10000.0,
        offset=offset,
        zero_rows=tuple(sorted(padding)),
        zero_columns=(table.shape[1] - 1,) if odd == "zero" else (),
        d_model=d_model,
    )
    # float64 angles: "either" where float32 angles would also fit the stored numbers
    # (narrow tables)
    allowed = ("float32",) if precision == "float32 angles" else ("float64", "either")
    assert ident.angle_dtype in allowed
    check_rebuild(table, ident)


# --- refusals -------------------------------------------------------------------------


def refusal(table, *words):
    with pytest.raises(ValueError) as caught:
        pelib.identify(table)
    message = str(caught.value)
    assert "table" in message
    for word in words:
        assert word in message, message
    return message


def test_random_and_learned_tables_are_refused():
    rng = np.random.default_rng(0)
    refusal(rng.normal(size=(40, 32)), "[-1, 1]")
    refusal(
        np.tanh(rng.normal(size=(40, 32))),
        "not a sinusoidal encoding",
        "learned or random",
    )
    refusal(rng.uniform(-1, 1, size=(40, 32)), "not a sinusoidal encoding")


def test_constant_and_zero_tables_are_refused():
    refusal(np.full((20, 16), 0.5), "every non-zero row is the same")
    refusal(np.zeros((20, 16)), "all zeros")
    refusal(np.ones((20, 1)), "fewer than 2 non-zero columns")


def test_rotary_caches_are_refused_as_such():
    # Hugging Face's cache: emb = cat((freqs, freqs)), then its cos and sin
    freqs = np.outer(np.arange(30), 1 / 10000 ** (np.arange(0, 64, 2) / 64))
    refusal(np.cos(np.concatenate([freqs, freqs], axis=1)), "rotary", "equal columns")
    refusal(np.sin(np.concatenate([freqs, freqs], axis=1)), "rotary")
    refusal(np.cos(freqs), "rotary (RoPE) cos cache")
    refusal(np.sin(freqs), "rotary (RoPE) sin cache")
    with pytest.raises(TypeError, match="complex"):
        pelib.identify(np.exp(1j * freqs))  # Meta's freqs_cis


def test_broken_code_is_refused_with_a_diagnosis():
    d, positions = 64, np.arange(50)[:, None]
    j = np.arange(d)
    angles = positions / np.power(10000, 2 * j / d)  # the exponent counts columns
    table = angles.copy()
    table[:, 0::2], table[:, 1::2] = np.sin(angles[:, 0::2]), np.cos(angles[:, 1::2])
    refusal(table, "exponent counts columns", "base 10000")
    i = np.arange(d // 2)
    shifted = np.empty((50, d))
    shifted[:, 0::2] = np.sin(positions / 10000 ** (2 * i / d))
    shifted[:, 1::2] = np.cos(positions / 10000 ** (2 * (i + 1) / d))
    refusal(shifted, "2(i+1)/d")
    cos_first = oracle.encoding(range(40), d)[
        :, np.arange(d).reshape(-1, 2)[:, ::-1].ravel()
    ]
    refusal(cos_first, "cosine in the even columns", "swap")


def test_scaled_reversed_and_fractional_tables_are_refused():
    table = oracle.encoding(range(40), 32)
    refusal(table * 8, "[-1, 1]", "sqrt(d_model)")
    refusal(table * 0.5, "scaled by 0.5")
    refusal(table[::-1], "backwards", "39 - r")
    refusal(oracle.encoding([t + 0.5 for t in range(40)], 32), "integer")


def test_bad_arguments():
    with pytest.raises(ValueError, match="2-D"):
        pelib.identify(np.ones((3, 4, 5)))
    with pytest.raises(TypeError, match="table"):
        pelib.identify("table")
    with pytest.raises(ValueError, match="nan or infinity"):
        pelib.identify(np.full((10, 4), np.nan))
    ident = pelib.identify(oracle.encoding(range(10), 8))
    with pytest.raises(ValueError, match="n_positions"):
        ident.table(-1)
    with pytest.raises(TypeError, match="n_positions"):
        ident.table(2.0)


# --- the result -----------------------------------------------------------------------


def test_table_rebuilds_beyond_the_input_and_reinstates_padding():
    table = transcriptions.fairseq_embedding(20, 17, padding_idx=1)
    ident = pelib.identify(table)
    longer = ident.table(100)
    assert not longer[1].any() and not longer[:, 16].any()
    truth = oracle.timing_signal(range(100), 17)
    truth[1] = 0
    assert np.abs(longer - truth).max() <= 2.0**-52  # as in check_rebuild
    assert ident.table(0).shape == (0, 17)


def test_omega_and_str():
    ident = pelib.identify(transcriptions.fairseq_embedding(30, 16, padding_idx=1))
    with mpmath.workprec(100):
        exact = [float(oracle.timescale_frequency(i, 16)) for i in range(8)]
    assert np.abs(ident.omega - exact).max() <= 2.0**-52
    text = str(ident)
    for words in (
        "[sin | cos]",
        "tensor2tensor",
        "10000",
        "row r holds position r;",
        "zero rows (1)",
        "float32",
    ):
        assert words in text, text
    assert math.isfinite(ident.max_error)


# --- cases an adversarial review found ------------------------------------------------


def test_stored_tables_with_equal_slow_cosines_are_identified():
    # Eight rows at width 512 in float32: the cosines of neighbouring slow pairs round
    # to the same numbers.
    table = oracle.encoding(range(8), 512).astype(F32)
    assert any(np.array_equal(table[:, j], table[:, j + 2]) for j in range(1, 510, 2))
    expect(
        pelib.identify(table),
        layout="interleaved",
        frequencies="paper",
        base=10000.0,
        offset=0,
    )


def test_bfloat16_numbers_held_in_float32_are_identified():
    exact = oracle.encoding(range(20), 16).astype(F32)
    bits = exact.view(np.uint32)
    rounded = (
        (bits + np.uint32(0x7FFF) + ((bits >> 16) & 1)) & np.uint32(0xFFFF0000)
    ).view(F32)  # to bfloat16
    ident = pelib.identify(rounded)
    expect(ident, frequencies="paper", base=10000.0, offset=0)
    assert ident.max_error <= 2.0**-9  # half a bfloat16 spacing below 1


@pytest.mark.parametrize(
    "d, start",
    [(2, 824_000), (8, 2**30), (8, 2**31 - 100), (12, 2**31 - 100), (4, 90_932_543)],
)
def test_far_offsets_of_narrow_tables(d, start):
    table = oracle.encoding(range(start, start + 10), d)
    ident = pelib.identify(table)
    # one pair, w = 1: float32(p) * 1 is exact for these p, so float32 angles would give
    # this table too
    expect(ident, offset=start, angle_dtype="either" if d == 2 else "float64")


def test_far_offsets_of_float32_code_at_width_8():
    positions = np.arange(65536, 65600, dtype=F32)[:, None]
    div_term = np.exp(np.arange(0, 8, 2, dtype=F32) * F32(-np.log(10000.0) / 8))
    table = np.zeros((64, 8), F32)
    table[:, 0::2], table[:, 1::2] = (
        np.sin(positions * div_term),
        np.cos(positions * div_term),
    )
    expect(pelib.identify(table), offset=65536, angle_dtype="float32")


def test_no_warning_for_large_entries():
    with pytest.raises(ValueError, match=r"\[-1, 1\]"):
        pelib.identify(np.full((8, 2), 1e5))


# --- round 2: angle_dtype, min_timescale, equivalent descriptions, refusals ---


def twiddle(n, d, dtype):
    """Rows by the angle-addition recurrence
    (s, c) <- (s cos w + c sin w, c cos w - s sin w)."""
    w = np.array([10000.0 ** (-2 * i / d) for i in range(d // 2)])
    c, s = np.cos(w).astype(dtype), np.sin(w).astype(dtype)
    out = np.zeros((n, d), dtype)
    a, b = np.zeros(d // 2, dtype), np.ones(d // 2, dtype)
    for t in range(n):
        out[t, 0::2], out[t, 1::2] = a, b
        a, b = a * c + b * s, b * c - a * s
    return out


def test_angle_dtype_neither_for_a_float64_recurrence():
    # errors of order 1e-13: far above float64 angles' (1e-15 here), far below float32
    # angles' (1e-5)
    ident = pelib.identify(twiddle(2000, 64, np.float64))
    expect(
        ident,
        layout="interleaved",
        frequencies="paper",
        base=10000.0,
        offset=0,
        angle_dtype="neither",
    )
    assert 1e-14 < ident.max_error < 1e-10
    assert "neither" in str(ident)


@pytest.mark.parametrize("rows", [8, 40])
def test_angle_dtype_either_in_float16(rows):
    # fairseq's float32 angles stored in float16 (what --fp16 does): their errors, below
    # 40 * 2**-24, hide under float16's rounding (2**-12 near 1/2): both precisions
    # explain the numbers
    stored = transcriptions.fairseq_embedding(rows, 16, padding_idx=1)
    ident = pelib.identify(stored.astype(np.float16))
    expect(
        ident, frequencies="tensor2tensor", base=10000.0, offset=0, angle_dtype="either"
    )
    assert "too coarse to tell" in str(ident)
    # the same code stored in float32 shows its float32 angles
    expect(pelib.identify(stored), angle_dtype="float32")


@pytest.mark.parametrize(
    "make, min_timescale",
    [
        (lambda: transcriptions.tensor2tensor(50, 32, min_timescale=2.0), 2.0),
        (lambda: transcriptions.tensor2tensor(50, 32, min_timescale=0.5), 0.5),
        (lambda: pelib.timing_signal(40, 32, min_timescale=0.5), 0.5),
    ],
)
def test_min_timescale(make, min_timescale):
    table = np.asarray(make())[0] if np.ndim(make()) == 3 else np.asarray(make())
    ident = pelib.identify(table)
    expect(
        ident,
        layout="concat",
        frequencies="tensor2tensor",
        base=10000.0,
        offset=0,
        min_timescale=min_timescale,
    )
    with mpmath.workprec(100):
        exact = [
            float(oracle.timescale_frequency(i, 32, min_timescale, 10000))
            for i in range(16)
        ]
    assert np.abs(ident.omega - exact).max() <= 2.0**-52 * max(exact)
    assert f"min_timescale {min_timescale:g}" in str(ident)
    check_rebuild(table, ident)


def test_first_columns_of_a_wider_table():
    wide = oracle.encoding(range(40), 512)
    # base 10000 at d_model 512 beats base 1.77828 at 32
    ident = pelib.identify(wide[:, :32])
    expect(ident, frequencies="paper", base=10000.0, d_model=512, width=32)
    assert "the first 32 columns of a width-512 table" in str(ident)
    # base 100 at 256 is as short: reported, and 10000 at 512 among the alternatives
    ident = pelib.identify(wide[:, :256])
    expect(ident, frequencies="paper", base=100.0, d_model=256)
    assert "the paper's frequencies with d_model 512, base 10000" in ident.alternatives
    check_rebuild(wide[:, :256], ident)


def test_base_printed_in_full():
    ident = pelib.identify(oracle.encoding(range(40), 64, base=12345.678))
    assert ident.base == 12345.678 and "base 12345.678;" in str(ident)


def refused_with(table):
    with pytest.raises(ValueError) as error:
        pelib.identify(table)
    return str(error.value)


def test_refusals_name_what_they_saw():
    rng = np.random.default_rng(7)
    exact = oracle.encoding(range(200), 64)
    text = refused_with(exact + rng.normal(scale=1e-6, size=exact.shape))
    assert "closest convention" in text and "1 + " in text, text
    assert "turns backwards" not in text, text
    noisy = exact + rng.normal(scale=1e-6, size=exact.shape)
    text = refused_with(np.clip(noisy, -1, 1))
    assert "closest convention" in text and "noise" in text, text
    assert "multiple of 1/127" in refused_with(np.round(exact * 127) / 127)
    assert "multiple of 1/32767" in refused_with(np.round(exact * 32767) / 32767)
    text = refused_with(exact + rng.normal(scale=1e-3, size=exact.shape))
    assert "1 + " in text and "noise" in text and "sqrt(d_model)" not in text, text
    text = refused_with(exact[rng.permutation(200)])
    assert "not consecutive positions" in text and "scaled" not in text, text
    text = refused_with(twiddle(2000, 64, F32))  # entries up to 1 + 3.5e-5
    assert "1 + " in text and "recurrence" in text and "sqrt(d_model)" not in text, text
    # shape (1, 40, 16)
    text = refused_with(np.asarray(transcriptions.tensor2tensor(40, 16)))
    assert "pass table[0]" in text, text


def test_refusal_of_a_2d_grid_table():
    # MAE's get_2d_sincos_pos_embed: a [sin | cos] table of the grid row, then one of
    # the grid column
    g, d = 7, 64
    rows, cols = np.divmod(np.arange(g * g), g)
    half = [oracle.encoding(p, d // 2, layout="concat") for p in (rows, cols)]
    text = refused_with(np.hstack(half))
    assert "2-D encoding" in text and "learned or random" not in text, text


# --- the speed-ups: the same answers by faster routes ------------------------------


def test_half_ulp_from_exponent_bits():
    """_half_ulp masks the exponent bits; frexp's 2**(e - bits - 1) defines it."""
    from pelib._identify import _half_ulp

    rng = np.random.default_rng(5)
    values = np.concatenate(
        [
            rng.uniform(-1, 1, 1998),
            [0.0, -0.0, 1.0, -1.0, 0.5, 2.0**-30],
            [5e-324, -3e-310, 2.0**-1022, np.nextafter(1.0, 0.0)],
        ]
    )
    for bits in (8, 11, 24, 53):
        _, exponent = np.frexp(np.abs(values))
        expected = np.where(values == 0, 0.0, np.ldexp(1.0, exponent - bits - 1))
        found = _half_ulp(values.reshape(-1, 4), bits)
        assert np.array_equal(found, expected.reshape(-1, 4))


def test_take_is_ix():
    """_take gives the entries of data[np.ix_(rows, columns)], in the same order."""
    from pelib._identify import _take

    data = np.arange(20 * 12, dtype=np.float64).reshape(20, 12)
    indices = [
        np.arange(12),
        np.arange(0, 12, 2),
        np.arange(6, 12),
        np.array([3]),
        np.array([0, 1, 5]),
        np.array([5, 3, 1]),
        np.arange(0, 20, 3)[:4],
    ]
    for rows in indices + [np.arange(20)]:
        for columns in indices:
            expected = data[np.ix_(rows, columns)]
            assert np.array_equal(_take(data, rows, columns), expected)


def turned(table, row, pair, position, by):
    """``table`` (interleaved, paper, base 10000) with pair ``pair`` of ``row`` turned
    on the circle ``by`` radians past its angle at ``position``."""
    angle = position * 10000.0 ** (-2 * pair / table.shape[1]) + by
    table[row, 2 * pair], table[row, 2 * pair + 1] = math.sin(angle), math.cos(angle)
    return table


@pytest.mark.parametrize(
    "make",
    [
        lambda: pelib.sinusoidal(300, 32, start=7),
        lambda: transcriptions.fairseq_embedding(300, 17, padding_idx=1),
        lambda: transcriptions.tensor2tensor(300, 24, start_index=3)[0],
        lambda: transcriptions.espnet_positional_encoding(300, 16, reverse=True)[0],
        lambda: (
            pelib.sinusoidal(300, 16)
            + np.random.default_rng(1).normal(0, 3e-7, (300, 16))
        ),
        lambda: pelib.sinusoidal(300, 16, dtype=np.float16),
        lambda: turned(pelib.sinusoidal(300, 32, start=7), 65, 5, 72, 1e-3),
    ],
)
def test_check_in_blocks_is_one_pass(make, monkeypatch):
    """_check in blocks of a few rows gives what one block of all rows gives: the same
    Identification, or the same refusal (the worst entry, found block by block)."""
    import pelib._identify as identify_module

    table = make()

    def outcome():
        try:
            return pelib.identify(table)
        except ValueError as error:
            return str(error)

    monkeypatch.setattr(identify_module, "_CHECK_ROWS", 10**6)
    whole = outcome()
    if "turned" in make.__code__.co_names:  # the worst entry, named
        assert "misses row 65, column 11" in whole
    monkeypatch.setattr(identify_module, "_CHECK_ROWS", 7)
    assert outcome() == whole


def _to_bfloat16(table):
    """float32 ``table`` rounded to the nearest bfloat16 (ties to even), held in
    float32."""
    bits = np.asarray(table, dtype=F32).view(np.uint32)
    rounded = (bits + np.uint32(0x7FFF) + ((bits >> 16) & 1)) & np.uint32(0xFFFF0000)
    return rounded.view(F32)


def test_one_telling_entry_does_not_make_float64():
    # fairseq's float32 angles in bfloat16, 106 x 32: float32(p) * float32(w) would
    # leave float64's envelope in one entry (row 59, column 18) where fairseq's own
    # float32 frequencies (made by exp) do not; one entry is not enough to say "float64"
    stored = _to_bfloat16(transcriptions.fairseq_embedding(106, 32))
    ident = pelib.identify(stored)
    assert (ident.layout, ident.offset) == ("concat", 0)
    assert ident.angle_dtype in ("either", "float32")
    # a float64 table in float32 storage still says float64 (thousands of entries tell)
    stored32 = pelib.sinusoidal(106, 32).astype(F32)
    assert pelib.identify(stored32).angle_dtype == "float64"


@pytest.mark.parametrize("low", [math.pi / 4, 1.2345678])
@pytest.mark.parametrize("dtype", [np.float16, "bfloat16"])
def test_min_timescale_that_is_not_a_short_decimal(low, dtype):
    # the shortest rounding of the measured first frequency is not the code's; a longer
    # one or the measured value is (tensor2tensor computes float32(low) * exp(...))
    signal = transcriptions.tensor2tensor(200, 32, min_timescale=low)[0]
    stored = signal.astype(np.float16) if dtype == np.float16 else _to_bfloat16(signal)
    ident = pelib.identify(stored)
    assert ident.frequencies == "tensor2tensor"
    assert (ident.offset, ident.base) == (0, 10000.0)
    # measured from 200 rows of half-precision numbers: a few parts in a million
    assert abs(ident.min_timescale / float(F32(low)) - 1) < 1e-5
    assert ident.angle_dtype in ("float32", "either")


def test_last_columns_of_a_wide_table_are_geometric():
    # the last 64 columns of the paper's d = 512 table: first frequency
    # 10000**(-448/512), ratio 10000**(-2/512); the absolute 1e-9 floor used to refuse
    # them
    table = pelib.sinusoidal(40, 512)[:, -64:]
    ident = pelib.identify(table)
    assert (ident.layout, ident.frequencies, ident.offset) == (
        "interleaved",
        "tensor2tensor",
        0,
    )
    assert abs(ident.min_timescale / 10000.0 ** (-448 / 512) - 1) < 1e-9
    assert ident.max_error < 1e-14  # float64 angles


def test_cos_first_refusal_describes_the_frequencies():
    # Meta's view_as_real(freqs_cis) with positions divided by 4: (cos, sin) pairs
    inv = (1.0 / 10000.0 ** (np.arange(0, 128, 2).astype(F32) / F32(128))).astype(F32)
    angles = np.outer(np.arange(64, dtype=F32) / F32(4), inv).astype(F32)
    table = np.stack([np.cos(angles), np.sin(angles)], -1).reshape(64, 128)
    with pytest.raises(ValueError) as info:
        pelib.identify(table)
    message = str(info.value)
    assert "min_timescale 0.25" in message and "otherwise" not in message
    assert "swap each pair of columns" in message


def test_repeated_rows_and_flattened_grids_are_named():
    table = pelib.sinusoidal(40, 16, layout="concat")
    clamped = table[np.minimum(np.arange(40), 20)][::-1].copy()
    with pytest.raises(ValueError, match="are equal"):
        pelib.identify(clamped)
    # a 2-D encoding read row by row: x in the first half of the columns, y in the
    # second
    x, y = np.meshgrid(np.arange(8), np.arange(8), indexing="ij")
    grid = np.concatenate(
        [pelib.sinusoidal(8, 16)[x.ravel()], pelib.sinusoidal(8, 16)[y.ravel()]], axis=1
    )
    with pytest.raises(ValueError, match="repeat every 8 rows"):
        pelib.identify(grid)


def test_quantized_in_float32_is_named():
    table = pelib.sinusoidal(64, 32)
    stored = np.round(table * 127).astype(F32) / F32(127)
    with pytest.raises(ValueError, match="multiple of 1/127"):
        pelib.identify(stored)


def test_near_miss_names_the_whole_convention():
    rng = np.random.default_rng(3)
    table = pelib.sinusoidal(64, 64) + rng.normal(scale=2e-6, size=(64, 64))
    with pytest.raises(
        ValueError, match=r"interleaved \(sin, cos\) pairs with the paper"
    ):
        pelib.identify(table)


def _pinned(ident):
    """The second pass's lines in ``alternatives``, by timescale: (a, b, at, p, q) for
    "<name> anywhere from a to b fits the table as well at <other> at (...); at any
    <other>, none outside p to q fits"."""
    found = {}
    for line in ident.alternatives:
        for name, other in (
            ("min_timescale", "max_timescale"),
            ("max_timescale", "min_timescale"),
        ):
            if line.startswith(f"{name} anywhere from "):
                a, _, b = line.split(" fits")[0].split()[3:6]
                at = line.split(f" at {other} ")[1].split()[0]
                p, _, q = line.split("none outside ")[1].split(" fits")[0].split()
                found[name] = tuple(float(v) for v in (a, b, at, p, q))
    return found


def _store(signal, dtype):
    return signal.astype(np.float16) if dtype == np.float16 else _to_bfloat16(signal)


def _true_omega(low, high, k):
    """tensor2tensor's frequencies low * (high / low)**(-i/(k-1)), exactly (mpmath)."""
    low, high = mpmath.mpf(low), mpmath.mpf(high)
    return np.array(
        [float(low * (high / low) ** (-mpmath.mpf(i) / (k - 1))) for i in range(k)]
    )


@pytest.mark.parametrize(
    "low, dtype", [(2 / 3, "bfloat16"), (0.123456, np.float16), (0.123456, "bfloat16")]
)
def test_min_timescale_pinned_only_to_a_range(low, dtype):
    # 16 rows of half-precision numbers: no rounding of the first measurement fits,
    # the second pass finds the range of min_timescale that fits (refused before)
    stored = _store(transcriptions.tensor2tensor(16, 32, min_timescale=low)[0], dtype)
    ident = pelib.identify(stored)
    assert (ident.frequencies, ident.offset, ident.base) == ("tensor2tensor", 0, 1e4)
    a, b, at, p, q = _pinned(ident)["min_timescale"]
    # the range is at max_timescale 10000, the code's own: the true min_timescale (and
    # float32's rounding of it, which the code multiplies by) lies in it
    assert at == 10000.0 and a <= b and p <= q
    assert a <= low <= b and a <= float(F32(low)) <= b and p <= low <= q
    assert a <= ident.min_timescale <= b
    assert "at max_timescale 10000 the table pins it only to" in str(ident)
    check_rebuild(stored, ident)


@pytest.mark.parametrize("dtype", [np.float16, "bfloat16"])
def test_correlated_timescales_both_pinned_hold_the_truth(dtype):
    # tensor2tensor with min_timescale 2/3 and max_timescale 12345.678, 24 x 32: both
    # timescales pinned. They are strongly correlated: the range of each that fits is
    # at the other's reported value, and can leave out the true value; the range
    # outside which no pair fits must hold the truth (before: one range of each,
    # bfloat16 0.66667076 to 0.66667129 and 12346.1746 to 12346.2874, left it out)
    low, high = 2 / 3, 12345.678
    signal = transcriptions.tensor2tensor(
        24, 32, min_timescale=low, max_timescale=high
    )[0]
    stored = _store(signal, dtype)
    ident = pelib.identify(stored)
    assert (ident.frequencies, ident.layout, ident.offset) == (
        "tensor2tensor",
        "concat",
        0,
    )
    pinned = _pinned(ident)
    a, b, at, p, q = pinned["min_timescale"]
    assert a <= ident.min_timescale <= b and at == ident.base and p <= low <= q
    a, b, at, p, q = pinned["max_timescale"]
    assert a <= ident.base <= b and at == ident.min_timescale and p <= high <= q
    text = str(ident)
    assert f"at max_timescale {ident.base:g} the table pins it only to" in text
    assert f"at min_timescale {ident.min_timescale:g} the table pins it only" in text
    # the frequencies named are the code's to what half precision over 24 rows pins:
    # bfloat16's relative spacing is 2**-8, and 24 rows of it pin a frequency to a
    # few parts in 1e5; max_timescale moves the slow pairs by i/15 of its error
    true = _true_omega(low, high, 16)
    assert np.abs(ident.omega / true - 1).max() <= 3e-4
    check_rebuild(stored, ident)


def test_min_timescale_with_a_narrow_fitting_range():
    # min_timescale 0.0123457 (max_timescale 10000), 40 x 32 in bfloat16: the values
    # that fit at max_timescale 10000 span about 6e-7; a grid of 129 values 1.75e-6
    # apart jumped over them (refused before)
    low = 0.0123457
    stored = _store(
        transcriptions.tensor2tensor(40, 32, min_timescale=low)[0], "bfloat16"
    )
    ident = pelib.identify(stored)
    assert (ident.frequencies, ident.offset, ident.base) == ("tensor2tensor", 0, 1e4)
    a, b, at, p, q = _pinned(ident)["min_timescale"]
    assert at == 10000.0 and a <= low <= b and p <= low <= q
    assert a <= ident.min_timescale <= b
    check_rebuild(stored, ident)


def _detr_x(w, feats=64, temperature=10000):
    """DETR's PositionEmbeddingSine(num_pos_feats=feats, temperature, normalize=True)
    along x for one row of width ``w``, as its float32 code computes it
    (facebookresearch/detr, models/position_encoding.py,
    PositionEmbeddingSine.forward; commit not verified): x = cumsum / (x[-1] + 1e-6) *
    2 pi, then x / temperature**(2 (j // 2) / feats), sin of the even columns, cos of
    the odd ones, interleaved."""
    x = np.arange(1, w + 1, dtype=F32) / (F32(w) + F32(1e-6)) * F32(2 * math.pi)
    dim_t = F32(temperature) ** (
        F32(2) * (np.arange(feats, dtype=F32) // 2) / F32(feats)
    )
    p = x[:, None] / dim_t
    return np.stack([np.sin(p[:, 0::2]), np.cos(p[:, 1::2])], 2).reshape(w, feats)


@pytest.mark.parametrize(
    "w, feats, temperature, dtype",
    [
        (12, 64, 10000, np.float16),
        (16, 64, 10000, np.float16),
        (8, 64, 10000, "bfloat16"),
        (12, 64, 10000, "bfloat16"),
        (16, 64, 10000, "bfloat16"),
        (9, 64, 10000, np.float16),
        (9, 64, 10000, "bfloat16"),
        (25, 128, 10000, np.float16),
        (25, 128, 10000, "bfloat16"),
        (16, 64, 20, "bfloat16"),
    ],
)
def test_detr_normalized_in_half_precision_pins_both_timescales(
    w, feats, temperature, dtype
):
    # pos_x = x_embed / dim_t with x_embed = (1..w) 2 pi / (w + 1e-6) and
    # dim_t = T**(2 (j // 2) / feats): read as tensor2tensor over K = feats / 2
    # timescales, min_timescale m = 2 pi / (w + 1e-6), max_timescale
    # m * T**((K-1)/K), row r at position r + 1. Stored in half precision neither
    # timescale has a decimal near the first measurement that fits; both are pinned.
    # 128 features is DETR's default (hidden_dim 256 // 2); W = 9 and 25 were refused
    # with false ranges before (5236.54122 to 5235.9176 at W = 9 in float16)
    stored = _store(_detr_x(w, feats, temperature), dtype)
    ident = pelib.identify(stored)
    assert (ident.layout, ident.frequencies, ident.offset) == (
        "interleaved",
        "tensor2tensor",
        1,
    )
    assert (ident.d_model, ident.zero_rows, ident.zero_columns) == (feats, (), ())
    k = feats // 2
    low = 2 * math.pi / (w + 1e-6)
    high = float(mpmath.mpf(low) * mpmath.mpf(temperature) ** (mpmath.mpf(k - 1) / k))
    pinned = _pinned(ident)
    a, b, at, p, q = pinned["min_timescale"]
    assert a <= ident.min_timescale <= b and at == ident.base and p <= low <= q
    a, b, at, p, q = pinned["max_timescale"]
    assert a <= ident.base <= b and at == ident.min_timescale and p <= high <= q
    assert str(ident).count("the table pins it only to") == 2
    # the frequencies named are DETR's to what half precision over 8 to 25 rows pins
    # (its spacing 2**-11 or 2**-8 relative; max_timescale's error moves frequency i
    # by i/(K-1) of it)
    true = _true_omega(low, high, k)
    assert np.abs(ident.omega / true - 1).max() <= 3e-4
    check_rebuild(stored, ident)


def test_detr_refusal_names_what_the_stored_numbers_allow():
    # one entry of pair 3 moved by 3 float16 spacings: the refusal says where the
    # stored numbers put the timescales and that nothing there fits every entry
    table = _detr_x(12).astype(np.float16)
    table[7, 6] += 3 * np.spacing(table[7, 6])
    message = refused_with(table)
    assert "min_timescale near 0.5235987" in message
    assert "row r holds position r + 1" in message


def test_second_pass_only_for_half_precision_tables_with_few_rows(monkeypatch):
    # the second pass runs only on half-precision tables of at most 256 rows (a
    # refusal of a larger or float32 table took 2.6 times as long with it)
    from pelib import _identify as identify_module

    def second_pass(*args, **kwargs):
        raise AssertionError("second pass")

    monkeypatch.setattr(identify_module, "_pin_scale", second_pass)
    signal = transcriptions.tensor2tensor(300, 32, min_timescale=0.3)[0]
    # 300 rows in float16, one entry moved by 4 spacings; 64 rows in float32, one
    # entry moved by 8e-6
    for table, by in ((signal.astype(np.float16), 4 * 2.0**-11), (signal[:64], 8e-6)):
        table = table.copy()
        table[10, 3] += by
        message = refused_with(table)  # not AssertionError: no second pass
        if table.dtype == np.float16:
            assert "only in half-precision tables of at most 256 rows" in message


def test_refusal_far_from_zero_states_no_false_bound():
    # 32 x 32, min_timescale 2/3, rows from position 20000, float16: the first pair's
    # measured turn per row is off by about 2.3e-5 (float32 angles there err by about
    # |p w| 2**-24 per row), far more than the stored numbers alone would allow; the
    # refusal must not state that smaller bound, and says the second pass's scope
    signal = transcriptions.tensor2tensor(
        32, 32, min_timescale=2 / 3, start_index=20000
    )
    message = refused_with(signal[0].astype(np.float16))
    assert "min_timescale near 0.66668" in message
    assert "pinned by the stored numbers" not in message
    assert "within" not in message.split("min_timescale near", 1)[1]
    assert "rows start thousands of positions from 0 may be refused" in message


def test_second_pass_scope_rows_far_from_zero_refused_without_blame():
    # 16 x 32, min_timescale 2/3, max_timescale 10000, rows from position 8000, in
    # float16: the true timescales fit, but the second pass searches the offset only
    # near the measured min_timescale; the refusal says so (identify's Notes and
    # min_timescale say this scope)
    signal = transcriptions.tensor2tensor(16, 32, min_timescale=2 / 3, start_index=8000)
    message = refused_with(signal[0].astype(np.float16))
    assert (
        "a table whose rows start thousands of positions from 0 may be refused "
        "although tensor2tensor's timescales fit it" in message
    )


@pytest.mark.parametrize("low, dtype", [(2 / 3, "bfloat16"), (0.123456, np.float16)])
def test_pinned_range_printed_ends_fit_and_beyond_do_not(low, dtype):
    # "pins it only to a' to b'": a' and b' are the values bisection found not to fit,
    # rounded outwards; a to b (rounded inwards) fit. Checked with identify's own
    # criterion (the claim is about which values that criterion accepts)
    from pelib import _identify as identify_module

    stored = _store(transcriptions.tensor2tensor(16, 32, min_timescale=low)[0], dtype)
    ident = pelib.identify(stored)
    line = next(a for a in ident.alternatives if a.startswith("min_timescale any"))
    a, b, at, _, _ = _pinned(ident)["min_timescale"]
    beyond = line.split("bisection: ")[1].split(", just beyond")[0].split(" and ")
    a_out, b_out = float(beyond[0]), float(beyond[1])
    assert a_out < a <= b < b_out
    assert (
        f"pins it only to {beyond[0]} to {beyond[1]} ({a:.9g} to {b:.9g} fits)"
        in str(ident)
    )
    data = np.asarray(stored).astype(np.float64)
    bits = identify_module._storage_bits(np.asarray(stored))
    reading = next(
        r for r in identify_module._readings(np.arange(32)) if r.layout == "concat"
    )
    live = np.arange(len(stored))

    def fits(scale):
        freq = identify_module._accurate("tensor2tensor", at, 32, 16, scale)
        return (
            identify_module._check(data, reading, live, freq, 0, at, bits)[0] != "none"
        )

    assert fits(a) and fits(b) and fits(low)
    assert not fits(a_out) and not fits(b_out)


@pytest.mark.parametrize("dtype", [np.float16, "bfloat16"])
def test_few_frequencies_far_fit_of_a_neighbouring_decimal_not_taken(dtype):
    # tensor2tensor's 16 x 5 table, min_timescale 2/3, max_timescale 3, rows from 0,
    # in half precision: with two frequencies, float32 angles' wide envelope far out
    # let min_timescale 0.667 (float16) or 0.67 (bfloat16) fit at offsets -348486 and
    # -222256; a fit nearer 0 (another candidate, or the second pass) is preferred
    signal = transcriptions.tensor2tensor(16, 5, min_timescale=2 / 3, max_timescale=3)
    ident = pelib.identify(_store(signal[0], dtype))
    expect(ident, frequencies="tensor2tensor", base=3.0, offset=0, zero_columns=(4,))
    assert "row r holds position r;" in str(ident)
    pinned = _pinned(ident).get("min_timescale")
    if pinned is None:  # one decimal, which 2/3 rounds to at its digits
        digits = len(repr(ident.min_timescale).split(".")[1])
        assert round(2 / 3, digits) == ident.min_timescale
    else:  # its pinned range, ends rounded inwards, holds 2/3
        assert pinned[0] <= 2 / 3 <= pinned[1]
