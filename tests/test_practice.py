"""Positions in practice: the transcriptions of ``oracle.practice`` against independent
truth, and ``pelib.position_ids`` and ``pelib.rotary_layers`` against the
transcriptions.

Three parts:

- **(a) the transcriptions** against plain loops (position ids, which axis drives a
  pair, which layer rotates) and against mpmath (frequencies, cosine tables), each
  bound derived beside it;
- **(b) ``pelib.position_ids``** against the transcribed code on padded batches with
  caches, convention by convention;
- **(c) ``pelib.rotary_layers``** against :func:`oracle.practice.rotary_layer_table`
  for every configuration in ``oracle/model_configs.py``.

Bounds, in units of ``U = 2**-24`` (half the spacing of float32 numbers just below
1): the transcribed inverse frequency ``1 / fl(base) ** fl(k / d)`` carries the
rounding of the exponent (relative ``U``, amplified by ``ln(base) * k / d <=
ln(base)`` in the power), NumPy's float32 ``power`` (within 3 units in the last
place, ``6 U``, as measured in ``tests/test_transcriptions.py``) and the division
(``U``): ``(ln(base) + 8) U`` covers them with one ``U`` to spare. Llama 3's smoothed
band multiplies an error of the smoothing factor by up to ``factor - 1`` (the
smoothed frequency can be as small as ``theta / factor`` while the factor's error
moves it by ``theta * (1 - 1 / factor)`` times that error); the factor is formed from
the wavelength ``2 pi / theta`` over at most 4 roundings and a ratio ``L / lambda <=
4`` divided by 3, so its error is at most ``4/3 (rel + 4 U) + U``.
"""

import math

import mpmath
import numpy as np
import pytest

import oracle
from oracle import practice
from oracle import rope_scaling as rs
from oracle.model_configs import MODEL_CONFIGS

U = 2.0**-24
RNG = np.random.default_rng(20260321)


# --- helpers: plain loops ---------------------------------------------------------


def loop_hf(mask, pad_value):
    """Row by row: a real token gets the number of real tokens before it, a pad gets
    ``pad_value``."""
    out = []
    for row in np.asarray(mask).tolist():
        seen, ids = 0, []
        for m in row:
            ids.append(seen if m else pad_value)
            seen += 1 if m else 0
        out.append(ids)
    return np.array(out, dtype=np.int64)


def loop_fairseq(mask, padding_idx):
    """fairseq's numbering by hand: ``padding_idx + 1, + 2, ...`` for real tokens,
    ``padding_idx`` for pads."""
    out = []
    for row in np.asarray(mask).tolist():
        seen, ids = 0, []
        for m in row:
            seen += 1 if m else 0
            ids.append(padding_idx + seen if m else padding_idx)
        out.append(ids)
    return np.array(out, dtype=np.int64)


def padded_masks(batch, n, side):
    """Random 0/1 masks with the pads on the left or the right of each row (at least
    one real token per row)."""
    real = RNG.integers(1, n + 1, size=batch)
    rows = []
    for r in real:
        row = [1] * r + [0] * (n - r)
        rows.append(row[::-1] if side == "left" else row)
    return np.array(rows, dtype=np.int64)


def rel_bound(base):
    """The relative bound of a transcribed default frequency (module docstring)."""
    return (math.log(base) + 8) * U


def llama3_bound(base, factor):
    """The relative bound of a transcribed Llama 3 frequency (module docstring)."""
    rel = rel_bound(base)
    return rel + 4 * U + (factor - 1) * (4 / 3 * (rel + 4 * U) + U)


# --- (a) position ids against plain loops ----------------------------------------


@pytest.mark.parametrize("side", ["left", "right"])
@pytest.mark.parametrize("cache_length", [0, 3, 7])
def test_hf_generate_position_ids_is_cumsum_minus_one_pads_one(side, cache_length):
    mask = padded_masks(6, 8, side)
    got = practice.hf_generate_position_ids(mask, cache_length)
    assert got.dtype == np.int64
    np.testing.assert_array_equal(got, loop_hf(mask, 1)[:, cache_length:])


def test_hf5_prefill_fills_pads_with_zero():
    mask = padded_masks(6, 8, "left")
    np.testing.assert_array_equal(
        practice.hf5_prefill_position_ids(mask), loop_hf(mask, 0)
    )


def test_hf5_decoding_agrees_with_4_57_under_left_padding_only():
    # 4.57.1 recomputes cumsum - 1 from the mask grown by a column of ones per step;
    # 5.23.0 extends the last id by one. With left padding the last prompt column is
    # real in every row and the two agree; with right padding it is a pad, whose id is
    # 0 in 5.23.0, so its first generated token gets 1 instead of the real count.
    for side, agree in (("left", True), ("right", False)):
        mask = padded_masks(5, 6, side)
        mask[0] = 1  # one full row
        mask[1, -1] = 0 if side == "right" else 1  # at least one row ends in a pad
        fed = practice.hf5_generate_position_ids(mask, steps=3)
        grown = mask
        for step in range(1, 4):
            grown = np.concatenate([grown, np.ones((5, 1), np.int64)], axis=1)
            old = practice.hf_generate_position_ids(grown, grown.shape[1] - 1)
            assert np.array_equal(fed[step], old) == agree
    last_pad_row = fed[1][1, 0]
    assert last_pad_row == 1 and mask[1].sum() > 1


def test_index_conventions_ignore_the_mask():
    np.testing.assert_array_equal(practice.whisper_rows(4, 6), [6, 7, 8, 9])
    got = practice.hf_default_position_ids(3, 4, past_seen_tokens=6)
    np.testing.assert_array_equal(got, [[6, 7, 8, 9]] * 3)


def test_opt_and_fairseq_rows_match_the_loops():
    mask = padded_masks(6, 9, "left")
    np.testing.assert_array_equal(practice.opt_rows(mask), loop_hf(mask, -1) + 2)
    tokens = np.where(mask == 1, 7, 1)  # pad token 1, any other id for real ones
    np.testing.assert_array_equal(
        practice.fairseq_positions(tokens, 1), loop_fairseq(mask, 1)
    )


def test_fairseq_incremental_row_counts_pads_too():
    # Without padding the incremental row is the last row make_positions gives the
    # whole prefix; a left-padded prefix moves make_positions' row but not this one.
    full = np.ones((1, 5), np.int64)
    assert practice.fairseq_incremental_row(5, 1) == loop_fairseq(full, 1)[0, -1]
    padded = np.array([[0, 0, 1, 1, 1]])
    assert practice.fairseq_incremental_row(5, 1) == 6
    assert loop_fairseq(padded, 1)[0, -1] == 4


# --- (a) rotary frequencies against mpmath ---------------------------------------


@pytest.mark.parametrize(
    "base, head_dim, factor",
    [(10000.0, 64, 0.25), (10000.0, 80, 0.4), (10000.0, 128, 1.0), (5e6, 128, 1.0)],
)
def test_partial_default_inv_freq_against_mpmath(base, head_dim, factor):
    dim = practice.hf_rotary_dim(head_dim, factor)
    assert dim == int(head_dim * factor)
    got = practice.hf_default_inv_freq(base, head_dim, factor)
    assert got.dtype == np.float32 and len(got) == (dim + 1) // 2
    exact = rs.to_floats(oracle.frequency(i, dim, base) for i in range(len(got)))
    assert np.all(np.abs(got - exact) <= rel_bound(base) * exact)


@pytest.mark.parametrize(
    "head_dim, partial, factor", [(512, 0.25, 1.0), (256, 0.5, 1.0), (512, 0.25, 8.0)]
)
def test_proportional_inv_freq_against_mpmath(head_dim, partial, factor):
    got = practice.hf_proportional_inv_freq(1e6, head_dim, partial, factor)
    rope_angles = int(partial * head_dim // 2)
    assert got.dtype == np.float32 and len(got) == head_dim // 2
    assert np.all(got[rope_angles:] == 0)
    # head_dim, not the rotated width, in the exponent: base ** (-2k / head_dim)
    exact = [oracle.frequency(k, head_dim, 1e6) / factor for k in range(rope_angles)]
    exact = rs.to_floats(exact)
    # one more rounding for the division by the factor
    bound = (rel_bound(1e6) + U) * exact
    assert np.all(np.abs(got[:rope_angles] - exact) <= bound)


def test_llama3_transcription_against_the_exact_definition():
    for head_dim, factor in ((64, 32.0), (128, 8.0)):
        got, _ = rs.hf_llama3(head_dim, 500000.0, factor, 1.0, 4.0, 8192)
        exact, _ = rs.llama3(head_dim, 500000.0, factor, 8192, 1.0, 4.0)
        exact = rs.to_floats(exact)
        bound = llama3_bound(500000.0, factor) * exact
        assert np.all(np.abs(got - exact) <= bound)


# --- (a) applying partial rotary and M-RoPE --------------------------------------


def test_neox_partial_rotary_against_a_loop():
    head_dim, rotated, n = 12, 8, 5
    inv_freq = practice.hf_default_inv_freq(10000.0, head_dim, rotated / head_dim)
    positions = np.arange(n) + 30
    cos, sin = practice.neox_cos_sin(inv_freq, positions)
    x = RNG.standard_normal((n, head_dim)).astype(np.float32)
    got = practice.neox_apply_rotary(x, cos, sin)
    half = rotated // 2
    for t in range(n):
        for i in range(half):
            angle = float(positions[t]) * float(inv_freq[i])
            a, b = float(x[t, i]), float(x[t, i + half])
            # the float32 angle is off by 2 roundings (product, frequency accounted
            # separately as an exact input): 3 U * angle, plus a few U for cos/sin and
            # the rotation's products and sum, times |a| + |b|
            tol = (3 * U * angle + 8 * U) * (abs(a) + abs(b))
            assert abs(got[t, i] - (a * math.cos(angle) - b * math.sin(angle))) <= tol
            expected = a * math.sin(angle) + b * math.cos(angle)
            assert abs(got[t, i + half] - expected) <= tol
    np.testing.assert_array_equal(got[:, rotated:], x[:, rotated:])


def loop_axes(section, interleaved):
    """The axis of each pair, by hand: chunked in section order, or interleaved T H W
    with the tail to T."""
    half = sum(section)
    if not interleaved:
        return [a for a, s in enumerate(section) for _ in range(s)]
    axes = []
    for k in range(half):
        if k % 3 == 1 and k < 3 * section[1]:
            axes.append(1)
        elif k % 3 == 2 and k < 3 * section[2]:
            axes.append(2)
        else:
            axes.append(0)
    return axes


@pytest.mark.parametrize("section", [[16, 24, 24], [24, 20, 20], [2, 3, 3]])
@pytest.mark.parametrize("interleaved", [False, True])
def test_mrope_pair_axes(section, interleaved):
    got = practice.mrope_pair_axes(section, interleaved)
    np.testing.assert_array_equal(got, loop_axes(section, interleaved))


def mrope_positions(n):
    """Three distinct axes: time 0..n-1, height and width from an image grid."""
    t = np.arange(n) + 5
    h = (np.arange(n) // 4) * 3 + 1
    w = np.arange(n) % 4 + 11
    return np.stack([t, h, w])[:, None, :]


@pytest.mark.parametrize(
    "section, interleaved", [([4, 6, 6], False), ([6, 5, 5], True)]
)
def test_mrope_cos_sin_against_mpmath(section, interleaved):
    half = sum(section)
    inv_freq = rs.hf_default(2 * half, 1e6)
    pos = mrope_positions(10)
    if interleaved:
        cos, sin = practice.qwen3_vl_cos_sin(pos, inv_freq, section)
    else:
        cos, sin = practice.qwen2_vl_cos_sin(pos, inv_freq, section)
        cos5, sin5 = practice.qwen2_vl_cos_sin_v5(pos, inv_freq, section)
        # the same float32 operations on the same entries, in another order
        np.testing.assert_array_equal(cos, cos5)
        np.testing.assert_array_equal(sin, sin5)
    assert cos.dtype == np.float32 and cos.shape == (1, 10, 2 * half)
    axes = loop_axes(section, interleaved)
    for t in range(10):
        for k in range(half):
            p = int(pos[axes[k], 0, t])
            with mpmath.workprec(100):
                angle = mpmath.mpf(p) * mpmath.mpf(float(inv_freq[k]))
                c, s = float(mpmath.cos(angle)), float(mpmath.sin(angle))
            # one rounding of the float32 product p * w (relative U) moves the angle
            # by U * angle; NumPy's float32 cos/sin are within 2 U of the rounded one
            tol = U * float(angle) + 2 * U
            for col in (k, k + half):
                assert abs(cos[0, t, col] - c) <= tol
                assert abs(sin[0, t, col] - s) <= tol


def test_no_rope_layers_one_means_rotary():
    flags = practice.no_rope_layers(8)
    assert flags == [1, 1, 1, 0, 1, 1, 1, 0]
    table = practice.rotary_layer_table(MODEL_CONFIGS["SmolLM3-3B"])
    rope = [i for i, row in enumerate(table) if row[0] is not None]
    assert rope == [i for i in range(36) if i % 4 != 3] and len(rope) == 27
    assert table[3] == (None, 0, None)


def test_gemma3_layer_types_every_sixth_is_global():
    types = practice.gemma3_layer_types(26, 6)
    assert [i for i, t in enumerate(types) if t == "full_attention"] == [
        5,
        11,
        17,
        23,
    ]
    assert practice.gemma4_layer_types(7)[-1] == "full_attention"


def exact_frequencies(params, width):
    """The exact frequencies of one ``rope_parameters`` dict over a rotated width
    (mpmath, rounded once to float64)."""
    base = params["rope_theta"]
    if params["rope_type"] == "llama3":
        omega, _ = rs.llama3(
            width,
            base,
            params["factor"],
            params["original_max_position_embeddings"],
            params["low_freq_factor"],
            params["high_freq_factor"],
        )
        return rs.to_floats(omega)
    if params["rope_type"] == "proportional":
        # Gemma 4: the whole head (width = head_dim) in the exponent, the first
        # int(partial * head_dim // 2) pairs turning, the others at frequency 0
        factor = params.get("factor", 1)
        angles = int(params.get("partial_rotary_factor", 1.0) * width // 2)
        turning = [oracle.frequency(i, width, base) / factor for i in range(angles)]
        return np.concatenate([rs.to_floats(turning), np.zeros(width // 2 - angles)])
    factor = params.get("factor", 1) if params["rope_type"] == "linear" else 1
    return rs.to_floats(
        oracle.frequency(i, width, base) / factor for i in range(width // 2)
    )


@pytest.mark.parametrize("name", sorted(MODEL_CONFIGS))
def test_rotary_layer_table_against_mpmath(name):
    config = MODEL_CONFIGS[name]
    params = practice.hf_rope_parameters(config)
    types = practice.hf_layer_types(config)
    for index, (inv_freq, rotated, _) in enumerate(practice.rotary_layer_table(config)):
        if inv_freq is None:
            continue
        assert rotated == 2 * len(inv_freq) and inv_freq.dtype == np.float32
        layer_params = params if "rope_type" in params else params[types[index]]
        exact = exact_frequencies(layer_params, rotated)
        bound = frequency_bound(config, inv_freq)
        assert np.all(np.abs(inv_freq - exact) <= bound), (name, index)


# --- (b) pelib.position_ids against the transcriptions ----------------------------


def position_ids():
    from pelib import position_ids as function

    return function


@pytest.mark.parametrize("side", ["left", "right"])
@pytest.mark.parametrize("cache_length", [0, 1, 5])
def test_pelib_hf_and_opt_match_the_code(side, cache_length):
    mask = padded_masks(7, 9, side)
    f = position_ids()
    got = f(mask, convention="hf", cache_length=cache_length)
    np.testing.assert_array_equal(
        got, practice.hf_generate_position_ids(mask, cache_length)
    )
    assert got.dtype == np.int64
    got = f(mask, convention="opt", cache_length=cache_length)
    np.testing.assert_array_equal(got, practice.opt_rows(mask, cache_length))


@pytest.mark.parametrize("padding_idx", [1, 0, 3])
@pytest.mark.parametrize("cache_length", [0, 4])
def test_pelib_fairseq_matches_make_positions(padding_idx, cache_length):
    mask = padded_masks(6, 8, "left")
    tokens = np.where(mask == 1, padding_idx + 7, padding_idx)
    got = position_ids()(
        mask, convention="fairseq", cache_length=cache_length, padding_idx=padding_idx
    )
    expected = practice.fairseq_positions(tokens, padding_idx)[:, cache_length:]
    np.testing.assert_array_equal(got, expected)


def test_pelib_fairseq_without_padding_matches_incremental_decoding():
    mask = np.ones((3, 6), np.int64)
    got = position_ids()(mask, convention="fairseq", cache_length=5)
    assert np.all(got == practice.fairseq_incremental_row(6, 1))


@pytest.mark.parametrize("cache_length", [0, 3])
def test_pelib_index_matches_whisper_and_default_ids(cache_length):
    mask = padded_masks(4, 7, "left")
    got = position_ids()(mask, convention="index", cache_length=cache_length)
    n = 7 - cache_length
    np.testing.assert_array_equal(
        got, practice.hf_default_position_ids(4, n, cache_length)
    )
    np.testing.assert_array_equal(got[0], practice.whisper_rows(n, cache_length))


def test_pelib_one_dimensional_masks():
    mask = np.array([0, 0, 1, 1, 1, 1])
    f = position_ids()
    for convention, expected in (
        ("hf", practice.hf_generate_position_ids(mask[None], 2)[0]),
        ("opt", practice.opt_rows(mask[None], 2)[0]),
        ("index", practice.whisper_rows(4, 2)),
    ):
        got = f(mask, convention=convention, cache_length=2)
        assert got.shape == (4,)
        np.testing.assert_array_equal(got, expected)


def test_pelib_documents_restart_positions():
    mask = np.ones((2, 7), np.int64)
    documents = [[3, 4], [2, 2, 3]]
    expected = {
        "hf": [[0, 1, 2, 0, 1, 2, 3], [0, 1, 0, 1, 0, 1, 2]],
        "index": [[0, 1, 2, 0, 1, 2, 3], [0, 1, 0, 1, 0, 1, 2]],
        "opt": [[2, 3, 4, 2, 3, 4, 5], [2, 3, 2, 3, 2, 3, 4]],
        "fairseq": [[2, 3, 4, 2, 3, 4, 5], [2, 3, 2, 3, 2, 3, 4]],
    }
    # the same by running each convention's code on each document alone
    for row, lengths in enumerate(documents):
        start = 0
        for length in lengths:
            piece = np.ones((1, length), np.int64)
            stop = start + length
            got = practice.hf_generate_position_ids(piece)[0]
            assert got.tolist() == expected["hf"][row][start:stop]
            assert (
                practice.opt_rows(piece)[0].tolist() == expected["opt"][row][start:stop]
            )
            start = stop
    f = position_ids()
    for convention, rows in expected.items():
        got = f(mask, convention=convention, documents=documents)
        np.testing.assert_array_equal(got, rows)


# --- (c) pelib.rotary_layers against the transcribed code paths -------------------


def frequency_bound(config, inv_freq):
    """Relative bound on |pelib - transcription|: the transcription's bound against the
    exact value (part (a)) plus pelib's own float64 error, taken as 2**-40."""
    params = practice.hf_rope_parameters(config)
    flat = [params] if "rope_type" in params else list(params.values())
    worst = 0.0
    for p in flat:
        bound = rel_bound(p["rope_theta"])
        if p["rope_type"] == "llama3":
            bound = llama3_bound(p["rope_theta"], p["factor"])
        elif p["rope_type"] in ("linear", "proportional"):
            bound += U  # the division by the factor
        worst = max(worst, bound)
    return (worst + 2.0**-40) * np.abs(inv_freq)


def assert_layers_match(name, config):
    """pelib.rotary_layers(config) against the transcription, layer by layer: the
    rotated width, the frequencies within float32's rounding (frequency_bound) and the
    M-RoPE axes."""
    from pelib import rotary_layers

    table = practice.rotary_layer_table(config)
    layers = rotary_layers(config)
    assert len(layers) == len(table)
    for index, (layer, (inv_freq, rotated, sections)) in enumerate(
        zip(layers, table, strict=True)
    ):
        assert layer.layer == index
        assert layer.rotated == rotated, (name, index)
        if inv_freq is None:
            assert layer.frequencies is None, (name, index)
            continue
        got = np.asarray(layer.frequencies, dtype=np.float64)
        assert got.shape == inv_freq.shape, (name, index)
        error = np.abs(got - inv_freq.astype(np.float64))
        assert np.all(error <= frequency_bound(config, inv_freq)), (name, index)
        if sections is None:
            assert layer.sections is None
        else:
            np.testing.assert_array_equal(layer.sections, sections)
    return layers


@pytest.mark.parametrize("name", sorted(MODEL_CONFIGS))
def test_pelib_rotary_layers_match_the_code(name):
    config = MODEL_CONFIGS[name]
    layers = assert_layers_match(name, config)
    text = config.get("text_config") or config  # composite files nest it
    assert len(layers) == text["num_hidden_layers"]


@pytest.mark.parametrize("name", sorted(MODEL_CONFIGS))
def test_pelib_attention_types_match_the_code(name):
    from pelib import rotary_layers

    config = MODEL_CONFIGS[name]
    types = practice.hf_layer_types(config)
    got = [layer.attention for layer in rotary_layers(config)]
    if types is None:  # the model has no layer types: the spec says None
        assert got == [None] * len(got)
        return
    words = {
        "full_attention": "full",
        "sliding_attention": "sliding",
        "chunked_attention": "chunked",
        "linear_attention": "linear",
    }
    assert got == [words[t] for t in types]


# Configurations made for these tests, not released models: each exercises one code
# path of transformers 5.23.0 on small heads, with the keys its Hub files use or with
# keys left to the class defaults. Released files of Phi, Gemma 3 and 4, Qwen2-VL,
# Qwen3-VL, Llama 4 and Qwen3.5 are in oracle/model_configs.py; Qwen3-Next and the
# defaults no released file here leaves out (GPT-NeoX's rotary_pct, Gemma 4's layer
# types and parameters, Qwen2-VL's sliding layers...) are only here.
CODE_PATHS = {
    "phi with partial_rotary_factor": {
        "model_type": "phi",
        "hidden_size": 640,
        "num_attention_heads": 8,
        "num_hidden_layers": 2,
        "partial_rotary_factor": 0.4,
        "rope_theta": 10000.0,
    },
    "gemma3 linear scaling on the global layers only": {
        "model_type": "gemma3_text",
        "hidden_size": 256,
        "num_attention_heads": 2,
        "head_dim": 64,
        "num_hidden_layers": 7,
        "rope_theta": 1000000.0,
        "rope_local_base_freq": 10000.0,
        "rope_scaling": {"factor": 8.0, "rope_type": "linear"},
        "sliding_window_pattern": 6,
    },
    "gemma4 proportional with global_head_dim": {
        "model_type": "gemma4_text",
        "hidden_size": 256,
        "num_attention_heads": 2,
        "head_dim": 64,
        "global_head_dim": 128,
        "num_hidden_layers": 6,
        "layer_types": ["sliding_attention"] * 5 + ["full_attention"],
        "rope_parameters": {
            "full_attention": {
                "partial_rotary_factor": 0.25,
                "rope_theta": 1000000.0,
                "rope_type": "proportional",
            },
            "sliding_attention": {"rope_theta": 10000.0, "rope_type": "default"},
        },
    },
    "qwen2_vl mrope type": {
        "model_type": "qwen2_vl",
        "hidden_size": 256,
        "num_attention_heads": 2,
        "num_hidden_layers": 2,
        "rope_theta": 1000000.0,
        "rope_scaling": {"type": "mrope", "mrope_section": [16, 24, 24]},
    },
    "gpt_neox with rotary_pct and rotary_emb_base left to the class": {
        "model_type": "gpt_neox",
        "hidden_size": 512,
        "num_attention_heads": 8,
        "num_hidden_layers": 2,
    },
    "phi with partial_rotary_factor and rope_theta left to the class": {
        "model_type": "phi",
        "hidden_size": 640,
        "num_attention_heads": 8,
        "num_hidden_layers": 1,
    },
    "llama with rope_theta left to the class": {
        "model_type": "llama",
        "hidden_size": 512,
        "num_attention_heads": 8,
        "num_hidden_layers": 2,
        "rope_scaling": {"rope_type": "linear", "factor": 4.0},
    },
    "gemma3 with heads, pattern and bases left to the class": {
        "model_type": "gemma3",
        "text_config": {
            "model_type": "gemma3_text",
            "num_hidden_layers": 7,
            "rope_scaling": {"factor": 8.0, "rope_type": "linear"},
        },
    },
    "gemma4 with layer types, parameters and global_head_dim left to the class": {
        "model_type": "gemma4_text",
        "head_dim": 64,
        "num_hidden_layers": 8,
    },
    "llama4 with an empty no_rope_layers": {
        "model_type": "llama4",
        "text_config": {
            "model_type": "llama4_text",
            "head_dim": 64,
            "num_hidden_layers": 8,
            "no_rope_layers": [],
        },
    },
    "smollm3 with no_rope_layers and rope_theta left to the class": {
        "model_type": "smollm3",
        "hidden_size": 256,
        "num_attention_heads": 4,
        "num_hidden_layers": 8,
    },
    "qwen2_vl sliding layers from max_window_layers": {
        "model_type": "qwen2_vl",
        "hidden_size": 256,
        "num_attention_heads": 2,
        "num_hidden_layers": 6,
        "use_sliding_window": True,
        "max_window_layers": 4,
        "rope_scaling": {"type": "mrope"},
    },
    "qwen3_vl with mrope_section left to the model": {
        "model_type": "qwen3_vl",
        "text_config": {
            "model_type": "qwen3_vl_text",
            "num_hidden_layers": 2,
            "rope_theta": 5000000,
        },
    },
    "qwen3_5 with every position key left to the class": {
        "model_type": "qwen3_5",
        "text_config": {"model_type": "qwen3_5_text", "num_hidden_layers": 8},
    },
    "qwen3_next with every position key left to the class": {
        "model_type": "qwen3_next",
        "num_hidden_layers": 8,
    },
    "qwen3_vl interleaved": {
        "model_type": "qwen3_vl",
        "text_config": {
            "model_type": "qwen3_vl_text",
            "hidden_size": 256,
            "num_attention_heads": 2,
            "head_dim": 128,
            "num_hidden_layers": 2,
            "rope_theta": 5000000,
            "rope_scaling": {
                "mrope_interleaved": True,
                "mrope_section": [24, 20, 20],
                "rope_type": "default",
            },
        },
    },
}


@pytest.mark.parametrize("name", sorted(CODE_PATHS))
def test_pelib_rotary_layers_follow_each_code_path(name):
    assert_layers_match(name, CODE_PATHS[name])


def test_pelib_layer_types_follow_each_code_path():
    from pelib import rotary_layers

    words = {"full": "full_attention", "sliding": "sliding_attention"}
    words |= {"chunked": "chunked_attention", "linear": "linear_attention"}
    for name, config in CODE_PATHS.items():
        types = practice.hf_layer_types(config)
        got = [layer.attention for layer in rotary_layers(config)]
        if types is None:
            assert got == [None] * len(got), name
        else:
            assert [words[kind] for kind in got] == list(types), name


def test_smollm3_empty_no_rope_layers_fails_in_the_code_and_is_refused():
    # SmolLM3Config replaces only a missing list by its schedule (5.23.0,
    # configuration_smollm3.py lines 101-104) and the attention then reads
    # no_rope_layers[layer_idx]: an IndexError in the code, a refusal by name in pelib.
    # Llama 4's class replaces an empty list too (the code path above).
    from pelib import rotary_layers

    config = CODE_PATHS["smollm3 with no_rope_layers and rope_theta left to the class"]
    config = config | {"no_rope_layers": []}
    with pytest.raises(IndexError):
        practice.rotary_layer_table(config)
    with pytest.raises(ValueError, match="no_rope_layers"):
        rotary_layers(config)


# --- SinkCache's re-rotation step (transformers 4.45.2) -------------------------------


@pytest.mark.parametrize("fmt", ["float16", "bfloat16", "float32"])
@pytest.mark.parametrize("num_new_tokens", [1, 3])
def test_sinkcache_rerotation_against_mpmath(fmt, num_new_tokens):
    import ml_dtypes

    dtype = {"float16": np.float16, "bfloat16": ml_dtypes.bfloat16}.get(fmt, np.float32)
    window, sink, head_dim = 40, 4, 8
    angles = np.arange(window)[:, None] * 10000.0 ** (-np.arange(0, head_dim, 2) / 8)
    angles = np.concatenate([angles, angles], axis=1)
    cos = np.cos(angles).astype(np.float32).astype(dtype)
    sin = np.sin(angles).astype(np.float32).astype(dtype)
    got_cos, got_sin = practice.sinkcache_rerotation(cos, sin, sink, num_new_tokens)
    assert got_cos.dtype == dtype and got_cos.shape == (
        window - sink - num_new_tokens,
        8,
    )

    def f32(x):  # one rounding to float32 (24 bits; no value here leaves its range)
        with mpmath.workprec(24):
            return +x

    for k in range(window - sink - num_new_tokens):
        was, now = sink + num_new_tokens + k, sink + k  # from position `was` to `now`
        for j in range(head_dim):
            oc, sc = mpmath.mpf(float(cos[was, j])), mpmath.mpf(float(cos[now, j]))
            os_, ss = mpmath.mpf(float(sin[was, j])), mpmath.mpf(float(sin[now, j]))
            want_cos = f32(f32(oc * sc) + f32(os_ * ss))
            want_sin = f32(f32(-os_ * sc) + f32(oc * ss))
            assert float(got_cos[k, j]) == float(
                np.float32(float(want_cos)).astype(dtype)
            )
            assert float(got_sin[k, j]) == float(
                np.float32(float(want_sin)).astype(dtype)
            )
            # and it is the step by -(was - now) w: within a few roundings of dtype
            u = {np.float16: 2.0**-11, np.float32: U}.get(dtype, 2.0**-8)
            w = angles[was, j] - angles[now, j]
            assert abs(float(got_cos[k, j]) - math.cos(w)) <= 4 * u
            assert abs(float(got_sin[k, j]) + math.sin(w)) <= 4 * u
