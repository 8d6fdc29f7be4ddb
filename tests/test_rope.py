"""Rotary position embedding against rotations written out with math.cos and math.sin
(chapter 7)."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import oracle
import pelib
from oracle import transcriptions


def rotate(row, position, layout, base=10000.0):
    """Each pair of ``row`` turned counter-clockwise by position * w_i, in plain
    Python."""
    d = len(row)
    out = list(row)
    for i in range(d // 2):
        a_index, b_index = (i, i + d // 2) if layout == "half" else (2 * i, 2 * i + 1)
        angle = position / base ** (2 * i / d)
        a, b = row[a_index], row[b_index]
        out[a_index] = a * math.cos(angle) - b * math.sin(angle)
        out[b_index] = a * math.sin(angle) + b * math.cos(angle)
    return out


@pytest.mark.parametrize("layout", ["half", "interleaved"])
def test_matches_the_rotation_written_out(layout):
    rng = np.random.default_rng(5)
    x = rng.normal(size=(2, 3, 7, 8))
    positions = np.array([0, 1, 2, 10, 100, 1000, 12345.5])
    got = pelib.apply_rope(x, positions, layout=layout, base=500.0)
    assert got.shape == x.shape
    for index in np.ndindex(2, 3, 7):
        expected = rotate(x[index].tolist(), positions[index[-1]], layout, 500.0)
        assert got[index].tolist() == pytest.approx(expected, abs=1e-12)


@settings(max_examples=40, deadline=None)
@given(
    h=st.integers(1, 16),
    m=st.floats(-1e4, 1e4),
    n=st.floats(-1e4, 1e4),
    shift=st.floats(-1e4, 1e4),
    seed=st.integers(0, 1000),
    layout=st.sampled_from(["half", "interleaved"]),
)
def test_scores_depend_only_on_the_offset(h, m, n, shift, seed, layout):
    q, k = np.random.default_rng(seed).normal(size=(2, 1, 2 * h))
    score = (
        pelib.apply_rope(q, [m], layout=layout)
        @ pelib.apply_rope(k, [n], layout=layout).T
    ).item()
    moved = (
        pelib.apply_rope(q, [m + shift], layout=layout)
        @ pelib.apply_rope(k, [n + shift], layout=layout).T
    ).item()
    assert moved == pytest.approx(score, abs=1e-9 * (1 + abs(score)))


@settings(max_examples=30, deadline=None)
@given(h=st.integers(1, 16), seed=st.integers(0, 1000))
def test_layouts_agree_after_the_permutation_only(h, seed):
    d = 2 * h
    x = np.random.default_rng(seed).normal(size=(4, d))
    positions = [0.0, 3.0, 17.0, 250.0]
    p = pelib.rope_permutation(d)
    np.testing.assert_allclose(
        pelib.apply_rope(x[:, p], positions, layout="interleaved"),
        pelib.apply_rope(x, positions)[:, p],
        rtol=0,
        atol=1e-12,
    )


def test_layouts_differ_without_the_permutation():
    x = np.random.default_rng(0).normal(size=(4, 8))
    assert (
        np.abs(
            pelib.apply_rope(x, [1, 2, 3, 4])
            - pelib.apply_rope(x, [1, 2, 3, 4], layout="interleaved")
        ).max()
        > 0.1
    )


def test_unit_pairs_give_the_sinusoidal_row():
    # Pairs (1, 0) rotated by p * w_i become (cos p w_i, sin p w_i): the encoding read
    # as (cos, sin).
    d = 16
    unit = np.tile([1.0, 0.0], d // 2)[None, :]
    for p in (0, 1, 7, 1000):
        rotated = pelib.apply_rope(unit, [p], layout="interleaved")[0]
        row = oracle.formula_row(p, d)
        assert rotated[1::2].tolist() == pytest.approx(row[0::2], abs=1e-12)
        assert rotated[0::2].tolist() == pytest.approx(row[1::2], abs=1e-12)


def test_rotation_matrix_is_the_transpose_of_the_shift_matrix():
    d, phi = 12, 2.5
    rotation_transposed = pelib.apply_rope(
        np.eye(d), np.full(d, phi), layout="interleaved"
    )  # rows: R e_j
    for k in range(d // 2):
        w = 10000.0 ** (-2 * k / d)
        block = rotation_transposed.T[2 * k : 2 * k + 2, 2 * k : 2 * k + 2]  # R itself
        expected = [
            math.cos(w * phi),
            -math.sin(w * phi),
            math.sin(w * phi),
            math.cos(w * phi),
        ]
        assert block.ravel().tolist() == pytest.approx(expected, abs=1e-15)
    np.testing.assert_allclose(
        rotation_transposed, pelib.shift_matrix(phi, d), rtol=0, atol=1e-15
    )


def test_shapes_dtypes_and_broadcasting():
    x = np.ones((2, 5, 4), dtype=np.float32)
    assert pelib.apply_rope(x, np.arange(5)).dtype == np.float32
    assert (
        pelib.apply_rope(np.ones((5, 4), dtype=int), np.arange(5)).dtype == np.float64
    )
    per_batch = pelib.apply_rope(np.ones((2, 5, 4)), np.arange(10).reshape(2, 5))
    assert per_batch.shape == (2, 5, 4)
    assert np.allclose(per_batch[1, 0], pelib.apply_rope(np.ones((1, 4)), [5])[0])
    np.testing.assert_array_equal(pelib.rope_permutation(4), [0, 2, 1, 3])


def test_bad_arguments():
    with pytest.raises(ValueError, match=r"^the last axis of x \(d\) must be even"):
        pelib.apply_rope(np.zeros((3, 5)), np.arange(3))
    with pytest.raises(ValueError, match=r"^x must have shape \(\.\.\., n, d\)"):
        pelib.apply_rope(np.zeros(4), [0])
    with pytest.raises(
        ValueError, match=r"^positions of shape \(4,\) do not broadcast"
    ):
        pelib.apply_rope(np.zeros((3, 4)), np.arange(4))
    with pytest.raises(
        ValueError, match=r"^layout must be one of 'half', 'interleaved'"
    ):
        pelib.apply_rope(np.zeros((3, 4)), np.arange(3), layout="neox")
    with pytest.raises(TypeError, match=r"^x must be an array of finite real numbers"):
        pelib.apply_rope(np.zeros((3, 4), dtype=complex), np.arange(3))
    with pytest.raises(
        ValueError,
        match=r"^positions must be a number or an array of finite real numbers",
    ):
        pelib.apply_rope(np.zeros((3, 4)), [0, 1, float("inf")])
    with pytest.raises(ValueError, match=r"^d must be even"):
        pelib.rope_permutation(5)


def test_layouts_are_metas_and_hugging_faces_code():
    # The transcribed Llama code of Meta (interleaved pairs) and of Hugging Face
    # (rotate_half), run in float64, rotate exactly as apply_rope's two layouts; and the
    # conversion script's permute is argsort(p) per head.
    rng = np.random.default_rng(3)
    x = rng.normal(size=(2, 6, 32))
    positions = np.array([0, 1, 7, 100, 4095, 123456.0])
    meta = transcriptions.meta_llama_rope(x, positions, dtype=np.float64)
    hf = transcriptions.hf_llama_rope(x, positions, dtype=np.float64)
    # Angles up to 1.2e5 rad are rounded in both codes: about |p| * 2**-52 on each
    # entry.
    assert (
        np.abs(meta - pelib.apply_rope(x, positions, layout="interleaved")).max()
        < 1e-10
    )
    assert np.abs(hf - pelib.apply_rope(x, positions, layout="half")).max() < 1e-10
    w = rng.normal(size=(3 * 32, 8))
    per_head = np.concatenate(
        [
            w[h * 32 : (h + 1) * 32][np.argsort(pelib.rope_permutation(32))]
            for h in range(3)
        ]
    )
    assert np.array_equal(transcriptions.hf_llama_permute(w, n_heads=3), per_head)
