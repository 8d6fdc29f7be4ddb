"""pelib.convert_rope_weights: a checkpoint converted between rotary layouts gives the
same attention scores.

The rotations are the transcriptions of Meta's Llama code (pairs (2i, 2i + 1)) and of
Hugging Face's (``rotate_half``, pairs (i, i + d/2)), run in float64; the reference
permutation is the transcription of Hugging Face's conversion script. pelib only
reorders rows here.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import pelib
from oracle import transcriptions


def rotate(x, positions, layout, rotary_dim):
    """Rotate the first ``rotary_dim`` features of every head with Meta's or Hugging
    Face's code (float64)."""
    code = (
        transcriptions.meta_llama_rope
        if layout == "interleaved"
        else transcriptions.hf_llama_rope
    )
    out = x.copy()
    out[..., :rotary_dim] = code(
        x[..., :rotary_dim], positions, 10000.0, dtype=np.float64
    )
    return out


def scores(x, wq, wk, n_heads, n_kv, head_dim, layout, rotary_dim):
    """softmax-free attention scores q_t . k_s of every head, (n_heads, n, n), with
    grouped keys."""
    n = len(x)
    positions = np.arange(n)
    q = (x @ wq.T).reshape(n, n_heads, head_dim).transpose(1, 0, 2)
    k = (x @ wk.T).reshape(n, n_kv, head_dim).transpose(1, 0, 2)
    q, k = (
        rotate(q, positions, layout, rotary_dim),
        rotate(k, positions, layout, rotary_dim),
    )
    k = np.repeat(
        k, n_heads // n_kv, axis=0
    )  # head h reads key head h // (n_heads / n_kv)
    return q @ k.transpose(0, 2, 1)


def model(seed, n_heads, n_kv, head_dim, d_in=24, n=12):
    rng = np.random.default_rng(seed)
    return (
        rng.normal(size=(n, d_in)),
        rng.normal(size=(n_heads * head_dim, d_in)) / 5,
        rng.normal(size=(n_kv * head_dim, d_in)) / 5,
    )


CONFIGS = [
    (1, 1, 4, 4),
    (4, 4, 8, 8),
    (4, 2, 16, 16),
    (8, 2, 12, 12),
    (4, 1, 16, 8),
    (2, 2, 32, 6),
]


@pytest.mark.parametrize("n_heads, n_kv, head_dim, rotary_dim", CONFIGS)
@pytest.mark.parametrize(
    "source, target", [("interleaved", "half"), ("half", "interleaved")]
)
def test_converted_weights_give_the_same_scores(
    n_heads, n_kv, head_dim, rotary_dim, source, target
):
    x, wq, wk = model(0, n_heads, n_kv, head_dim)
    before = scores(x, wq, wk, n_heads, n_kv, head_dim, source, rotary_dim)
    wq2 = pelib.convert_rope_weights(
        wq, n_heads, head_dim, to=target, rotary_dim=rotary_dim
    )
    wk2 = pelib.convert_rope_weights(
        wk, n_kv, head_dim, to=target, rotary_dim=rotary_dim
    )
    after = scores(x, wq2, wk2, n_heads, n_kv, head_dim, target, rotary_dim)
    # the same sums of products in another order: float64 rounding, relative to the
    # scores' size
    assert np.abs(after - before).max() <= 1e-12 * np.abs(before).max()


@pytest.mark.parametrize("n_heads, n_kv, head_dim, rotary_dim", CONFIGS)
def test_the_wrong_direction_changes_the_scores_from_rotary_width_6(
    n_heads, n_kv, head_dim, rotary_dim
):
    x, wq, wk = model(1, n_heads, n_kv, head_dim)
    before = scores(x, wq, wk, n_heads, n_kv, head_dim, "interleaved", rotary_dim)
    wrong = [
        pelib.convert_rope_weights(
            w, h, head_dim, to="interleaved", rotary_dim=rotary_dim
        )
        for w, h in ((wq, n_heads), (wk, n_kv))
    ]  # the inverse order, used as if it converted to half
    after = scores(x, *wrong, n_heads, n_kv, head_dim, "half", rotary_dim)
    gap = np.abs(after - before).max() / np.abs(before).max()
    if rotary_dim == 4:  # [0, 2, 1, 3] is its own inverse
        assert gap <= 1e-12
    else:
        assert gap > 0.01


def test_hugging_faces_conversion_script():
    rng = np.random.default_rng(2)
    for n_heads, head_dim in ((1, 8), (4, 16), (8, 128)):
        w = rng.normal(size=(n_heads * head_dim, 32))
        assert np.array_equal(
            pelib.convert_rope_weights(w, n_heads, head_dim, to="half"),
            transcriptions.hf_llama_permute(w, n_heads),
        )


@given(st.integers(1, 6), st.integers(1, 16), st.data())
@settings(max_examples=60, deadline=None)
def test_round_trip_is_the_identity(n_heads, half_head, data):
    head_dim = 2 * half_head
    rotary_dim = 2 * data.draw(st.integers(1, half_head))
    w = np.arange(n_heads * head_dim * 3, dtype=np.float32).reshape(
        n_heads * head_dim, 3
    )
    for first, second in (("half", "interleaved"), ("interleaved", "half")):
        there = pelib.convert_rope_weights(
            w, n_heads, head_dim, to=first, rotary_dim=rotary_dim
        )
        back = pelib.convert_rope_weights(
            there, n_heads, head_dim, to=second, rotary_dim=rotary_dim
        )
        assert np.array_equal(back, w) and back.dtype == w.dtype
        # only the first rotary_dim rows of each head move
        rows = there.reshape(n_heads, head_dim, 3)
        assert np.array_equal(
            rows[:, rotary_dim:], w.reshape(n_heads, head_dim, 3)[:, rotary_dim:]
        )


def test_bias_and_bad_input():
    bias = np.arange(8.0)
    assert pelib.convert_rope_weights(bias, 1, 8, to="half").tolist() == [
        0,
        2,
        4,
        6,
        1,
        3,
        5,
        7,
    ]
    with pytest.raises(ValueError, match="n_heads \\* head_dim"):
        pelib.convert_rope_weights(np.ones((10, 3)), 2, 4, to="half")
    with pytest.raises(ValueError, match="head_dim must be even"):
        pelib.convert_rope_weights(np.ones((6, 3)), 2, 3, to="half")
    with pytest.raises(ValueError, match="rotary_dim"):
        pelib.convert_rope_weights(np.ones((8, 3)), 1, 8, to="half", rotary_dim=10)
    with pytest.raises(ValueError, match="rotary_dim must be even"):
        pelib.convert_rope_weights(np.ones((8, 3)), 1, 8, to="half", rotary_dim=3)
    with pytest.raises(ValueError, match="to must be one of"):
        pelib.convert_rope_weights(np.ones((8, 3)), 1, 8, to="meta")
    with pytest.raises(ValueError, match="w"):
        pelib.convert_rope_weights(np.full((8, 3), np.nan), 1, 8, to="half")
    with pytest.raises(ValueError, match="w must be"):
        pelib.convert_rope_weights(np.ones((8, 3, 2)), 1, 8, to="half")
