"""The linear shift PE(t + phi) = T(phi) PE(t) and its four implementations (chapter 3).

Truth: rows computed from the formula at the shifted positions (reference.py),
and each 2 x 2 rotation written out with math.sin/math.cos.
"""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import pelib
import reference

APPROACHES = [pelib.shift, pelib.shift_loop, pelib.shift_matmul, pelib.shift_packed, pelib.shift_swap]
phis = st.floats(min_value=-1e4, max_value=1e4, allow_nan=False)
even_widths = st.integers(1, 24).map(lambda h: 2 * h)


def rotate_pairs(x, phi, base=10000.0):
    """Each pair (x[2k], x[2k+1]) times M(k, phi) = [[cos, sin], [-sin, cos]], in plain Python."""
    d = len(x)
    out = []
    for k in range(d // 2):
        angle = phi / base ** (2 * k / d)
        c, s = math.cos(angle), math.sin(angle)
        out += [c * x[2 * k] + s * x[2 * k + 1], -s * x[2 * k] + c * x[2 * k + 1]]
    return out


@pytest.mark.parametrize("approach", APPROACHES, ids=lambda f: f.__name__)
@pytest.mark.parametrize(("start", "phi"), [(0, 100), (0, 1), (50, -50), (3, 0.25), (0, -7.5), (1000, 123456)])
def test_shifted_rows_are_the_rows_at_t_plus_phi(approach, start, phi):
    pe = pelib.sinusoidal(40, 16, start=start)
    expected = reference.table(40, 16, start=start + phi)
    assert reference.max_abs_diff(approach(pe, phi), expected) <= reference.tolerance(start + abs(phi) + 40)


@pytest.mark.parametrize("approach", APPROACHES, ids=lambda f: f.__name__)
def test_seed_example_within_1e_12(approach):
    # 200 positions, d = 256, phi = 100: the notebook's figure.
    shifted = approach(pelib.sinusoidal(200, 256), 100)
    assert reference.max_abs_diff(shifted[::17], reference.table(300, 256)[100::17]) <= 1e-12


@pytest.mark.parametrize("approach", APPROACHES, ids=lambda f: f.__name__)
def test_any_vector_is_rotated_pair_by_pair(approach):
    x = np.random.default_rng(1).normal(size=(3, 10))
    for phi in (2.0, -0.3):
        got = approach(x, phi, base=50.0)
        for row_in, row_out in zip(x, got):
            assert row_out.tolist() == pytest.approx(rotate_pairs(row_in.tolist(), phi, 50.0), abs=1e-14)


@settings(max_examples=40, deadline=None)
@given(
    batch=st.lists(st.integers(0, 3), min_size=0, max_size=3),
    d_model=even_widths,
    phi=phis,
    seed=st.integers(0, 2**32 - 1),
)
def test_the_four_approaches_agree(batch, d_model, phi, seed):
    x = np.random.default_rng(seed).uniform(-1, 1, size=(*batch, d_model))
    results = [f(x, phi) for f in APPROACHES]
    for result in results:
        assert result.shape == x.shape and result.dtype == np.float64
        np.testing.assert_allclose(result, results[0], rtol=0, atol=1e-13)


@settings(deadline=None)
@given(d_model=even_widths, start=st.floats(-1e4, 1e4), seed=st.integers(0, 1000))
def test_shift_by_zero_is_the_identity(d_model, start, seed):
    pe = pelib.sinusoidal(5, d_model, start=start)
    assert np.array_equal(pelib.shift(pe, 0), pe)
    x = np.random.default_rng(seed).normal(size=(2, 3, d_model))
    assert np.array_equal(pelib.shift(x, 0.0), x)


@settings(deadline=None)
@given(d_model=even_widths, a=phis, b=phis)
def test_shifts_compose(d_model, a, b):
    pe = pelib.sinusoidal(6, d_model)
    twice = pelib.shift(pelib.shift(pe, a), b)
    np.testing.assert_allclose(twice, pelib.shift(pe, a + b), rtol=0, atol=1e-11)


@settings(deadline=None)
@given(d_model=st.integers(1, 16).map(lambda h: 2 * h), phi=phis, a=phis, b=phis)
def test_shift_matrix_is_a_rotation(d_model, phi, a, b):
    t = pelib.shift_matrix(phi, d_model)
    np.testing.assert_allclose(t @ t.T, np.eye(d_model), rtol=0, atol=1e-14)
    assert np.linalg.det(t) == pytest.approx(1.0, abs=1e-12)
    np.testing.assert_allclose(
        pelib.shift_matrix(a, d_model) @ pelib.shift_matrix(b, d_model), pelib.shift_matrix(a + b, d_model),
        rtol=0, atol=1e-11,
    )


def test_shift_matrix_entries():
    phi, d = 3.0, 6
    t = pelib.shift_matrix(phi, d)
    for k in range(3):
        w = 10000.0 ** (-2 * k / d)
        block = t[2 * k : 2 * k + 2, 2 * k : 2 * k + 2]
        expected = [math.cos(w * phi), math.sin(w * phi), -math.sin(w * phi), math.cos(w * phi)]
        assert block.ravel().tolist() == pytest.approx(expected, abs=1e-15)
    off_diagonal = t.copy()
    for k in range(3):
        off_diagonal[2 * k : 2 * k + 2, 2 * k : 2 * k + 2] = 0
    assert not off_diagonal.any()
    pe = pelib.sinusoidal(10, d)
    assert reference.max_abs_diff(pe @ t.T, reference.table(10, d, start=phi)) <= 1e-14


@pytest.mark.parametrize("approach", APPROACHES, ids=lambda f: f.__name__)
def test_types_and_shapes(approach):
    assert approach(np.zeros(4, dtype=np.float32), 1).dtype == np.float32
    assert approach([[1, 0, 1, 0]], 1).dtype == np.float64
    assert approach(np.zeros((0, 8)), 3).shape == (0, 8)
    row = pelib.sinusoidal(1, 8)[0]  # a single 1-D row
    assert reference.max_abs_diff([approach(row, 2)], reference.table(1, 8, start=2)) <= 1e-15
    f32 = approach(pelib.sinusoidal(10, 8, dtype=np.float32), 5)
    assert reference.max_abs_diff(f32, reference.table(10, 8, start=5)) <= 1e-6


def test_shift_handles_strided_and_other_float_inputs():
    table = pelib.sinusoidal(20, 16)
    assert np.array_equal(pelib.shift(table[::3], 4), pelib.shift(np.ascontiguousarray(table[::3]), 4))
    assert reference.max_abs_diff(pelib.shift(table.T.T[::2], 1), reference.table(20, 16, start=1)[::2]) <= 1e-14
    half = pelib.shift(table.astype(np.float16), 2)
    assert half.dtype == np.float16
    assert reference.max_abs_diff(half, reference.table(20, 16, start=2)) <= 4e-3


@pytest.mark.parametrize("approach", [*APPROACHES, lambda pe, phi, base=1e4: pelib.shift_matrix(phi, pe, base)],
                         ids=["shift", "loop", "matmul", "packed", "swap", "matrix"])
def test_odd_width_is_refused_with_the_reason(approach):
    arg = 5 if approach.__name__ == "<lambda>" else np.zeros((2, 5))
    with pytest.raises(ValueError, match=r"lone sine with no cosine partner to rotate with"):
        approach(arg, 1.0)


@pytest.mark.parametrize("approach", APPROACHES, ids=lambda f: f.__name__)
def test_bad_arguments(approach):
    pe = np.zeros((2, 4))
    with pytest.raises(ValueError, match=r"^phi must be a finite real number"):
        approach(pe, float("nan"))
    with pytest.raises(TypeError, match=r"^phi must be a finite real number"):
        approach(pe, "1")
    with pytest.raises(ValueError, match=r"^base must be a finite real number > 0"):
        approach(pe, 1, base=0)
    with pytest.raises(TypeError, match=r"^pe must be an array of real numbers"):
        approach(np.zeros((2, 4), dtype=complex), 1)
    with pytest.raises(TypeError, match=r"^pe must be an array of real numbers"):
        approach([[True, False]], 1)
    with pytest.raises(ValueError, match=r"^pe must have shape \(\.\.\., d_model\) with d_model >= 2"):
        approach(np.zeros((3, 0)), 1)
    with pytest.raises(ValueError, match=r"^pe must have shape"):
        approach(1.0, 1)


def test_shift_matrix_arguments():
    with pytest.raises(ValueError, match=r"^d_model must be an integer >= 2"):
        pelib.shift_matrix(1, 0)
    with pytest.raises(TypeError, match=r"^d_model must be an integer"):
        pelib.shift_matrix(1, 4.0)
    with pytest.raises(ValueError, match=r"^phi must be a finite real number"):
        pelib.shift_matrix(float("inf"), 4)


def test_packed_matrices_and_swap_vectors():
    phi, d = 2.5, 8
    m1, m2 = pelib.packed_matrices(phi, d)
    a, b = pelib.swap_vectors(phi, d)
    assert m1.shape == m2.shape == (2, 4) and a.shape == b.shape == (8,)
    for k in range(4):
        angle = phi * 10000.0 ** (-2 * k / d)
        c, s = math.cos(angle), math.sin(angle)
        assert [m1[0, k], m1[1, k], m2[0, k], m2[1, k]] == pytest.approx([c, s, -s, c], abs=1e-16)
        assert [a[2 * k], a[2 * k + 1], b[2 * k], b[2 * k + 1]] == pytest.approx([c, c, s, -s], abs=1e-16)
    with pytest.raises(ValueError, match=r"lone sine"):
        pelib.packed_matrices(1.0, 7)
    with pytest.raises(ValueError, match=r"lone sine"):
        pelib.swap_vectors(1.0, 7)
