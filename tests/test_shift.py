"""The linear shift PE(t + phi) = T(phi) PE(t) and its four implementations (chapter 3).

Truth: the exact rows at the shifted positions (the oracle, mpmath), and each 2 x 2
rotation written out with math.sin/math.cos.
"""

import math

import bounds
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import oracle
import pelib
from pelib import _encoding

APPROACHES = [
    pelib.shift,
    pelib.shift_loop,
    pelib.shift_matmul,
    pelib.shift_packed,
    pelib.shift_swap,
]
phis = st.floats(min_value=-1e4, max_value=1e4, allow_nan=False)
even_widths = st.integers(1, 24).map(lambda h: 2 * h)


def rotate_pairs(x, phi, base=10000.0):
    """Each pair (x[2i], x[2i+1]) times M(i, phi) = [[cos, sin], [-sin, cos]], in plain
    Python."""
    d = len(x)
    out = []
    for i in range(d // 2):
        angle = phi / base ** (2 * i / d)
        c, s = math.cos(angle), math.sin(angle)
        out += [c * x[2 * i] + s * x[2 * i + 1], -s * x[2 * i] + c * x[2 * i + 1]]
    return out


def shift_bound(largest_position, phi):
    """The input table's bound, plus the rounding of the angle phi * w and of the
    rotation."""
    return bounds.sinusoidal(largest_position) + bounds.ULP * (8 + 2 * abs(phi))


@pytest.mark.parametrize("approach", APPROACHES, ids=lambda f: f.__name__)
@pytest.mark.parametrize(
    ("start", "phi"),
    [(0, 100), (0, 1), (50, -50), (3, 0.25), (0, -7.5), (1000, 123456)],
)
def test_shifted_rows_are_the_rows_at_t_plus_phi(approach, start, phi):
    pe = pelib.sinusoidal(40, 16, start=start)
    error = oracle.error(approach(pe, phi), [start + phi + t for t in range(40)], 16)
    assert error.max() <= shift_bound(start + 40, phi)


@pytest.mark.parametrize("approach", APPROACHES, ids=lambda f: f.__name__)
def test_seed_example_within_1e_12(approach):
    # 200 positions, d = 256, phi = 100: the notebook's figure.
    shifted = approach(pelib.sinusoidal(200, 256), 100)
    assert oracle.error(shifted[::17], range(100, 300, 17), 256).max() <= 1e-12


@pytest.mark.parametrize("approach", APPROACHES, ids=lambda f: f.__name__)
def test_any_vector_is_rotated_pair_by_pair(approach):
    x = np.random.default_rng(1).normal(size=(3, 10))
    for phi in (2.0, -0.3):
        got = approach(x, phi, base=50.0)
        for row_in, row_out in zip(x, got, strict=True):
            assert row_out.tolist() == pytest.approx(
                rotate_pairs(row_in.tolist(), phi, 50.0), abs=1e-14
            )


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
        pelib.shift_matrix(a, d_model) @ pelib.shift_matrix(b, d_model),
        pelib.shift_matrix(a + b, d_model),
        rtol=0,
        atol=1e-11,
    )


def test_shift_matrix_entries():
    phi, d = 3.0, 6
    t = pelib.shift_matrix(phi, d)
    for i in range(3):
        w = 10000.0 ** (-2 * i / d)
        block = t[2 * i : 2 * i + 2, 2 * i : 2 * i + 2]
        expected = [
            math.cos(w * phi),
            math.sin(w * phi),
            -math.sin(w * phi),
            math.cos(w * phi),
        ]
        assert block.ravel().tolist() == pytest.approx(expected, abs=1e-15)
    off_diagonal = t.copy()
    for i in range(3):
        off_diagonal[2 * i : 2 * i + 2, 2 * i : 2 * i + 2] = 0
    assert not off_diagonal.any()
    pe = pelib.sinusoidal(10, d)
    assert oracle.error(pe @ t.T, [phi + r for r in range(10)], d).max() <= shift_bound(
        10, phi
    )


@pytest.mark.parametrize("approach", APPROACHES, ids=lambda f: f.__name__)
def test_types_and_shapes(approach):
    assert approach(np.zeros(4, dtype=np.float32), 1).dtype == np.float32
    assert approach([[1, 0, 1, 0]], 1).dtype == np.float64
    assert approach(np.zeros((0, 8)), 3).shape == (0, 8)
    row = pelib.sinusoidal(1, 8)[0]  # a single 1-D row
    assert oracle.error([approach(row, 2)], [2], 8).max() <= shift_bound(1, 2)
    f32 = approach(pelib.sinusoidal(10, 8, dtype=np.float32), 5)
    assert oracle.error(f32, range(5, 15), 8).max() <= 1e-6


def test_shift_handles_strided_and_other_float_inputs():
    table = pelib.sinusoidal(20, 16)
    assert np.array_equal(
        pelib.shift(table[::3], 4), pelib.shift(np.ascontiguousarray(table[::3]), 4)
    )
    assert oracle.error(
        pelib.shift(table.T.T[::2], 1), range(1, 21, 2), 16
    ).max() <= shift_bound(20, 1)
    half = pelib.shift(table.astype(np.float16), 2)
    assert half.dtype == np.float16
    assert oracle.error(half, range(2, 22), 16).max() <= 4e-3


@pytest.mark.parametrize(
    "approach",
    [*APPROACHES, lambda pe, phi, base=1e4: pelib.shift_matrix(phi, pe, base)],
    ids=["shift", "loop", "matmul", "packed", "swap", "matrix"],
)
def test_odd_width_is_refused_with_the_reason(approach):
    arg = 5 if approach.__name__ == "<lambda>" else np.zeros((2, 5))
    with pytest.raises(
        ValueError, match=r"lone sine with no cosine partner to rotate with"
    ):
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
    with pytest.raises(TypeError, match=r"^pe must be an array of finite real numbers"):
        approach(np.zeros((2, 4), dtype=complex), 1)
    with pytest.raises(TypeError, match=r"^pe must be an array of finite real numbers"):
        approach([[True, False]], 1)
    with pytest.raises(
        ValueError, match=r"^pe must have shape \(\.\.\., d_model\) with d_model >= 2"
    ):
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
    for i in range(4):
        angle = phi * 10000.0 ** (-2 * i / d)
        c, s = math.cos(angle), math.sin(angle)
        assert [m1[0, i], m1[1, i], m2[0, i], m2[1, i]] == pytest.approx(
            [c, s, -s, c], abs=1e-16
        )
        assert [a[2 * i], a[2 * i + 1], b[2 * i], b[2 * i + 1]] == pytest.approx(
            [c, c, s, -s], abs=1e-16
        )
    with pytest.raises(ValueError, match=r"lone sine"):
        pelib.packed_matrices(1.0, 7)
    with pytest.raises(ValueError, match=r"lone sine"):
        pelib.swap_vectors(1.0, 7)


def test_large_shift_refuses_overflow_in_either_half_and_keeps_its_bits(monkeypatch):
    # A shift of 8 MiB or more is computed by two threads, the last rows by the worker:
    # an overflow there must still be refused by name (NumPy's error state is carried to
    # the worker), without a warning, and the split must not change a bit.
    table = pelib.sinusoidal(4096, 1024)
    threaded = pelib.shift(table, 3.0)
    monkeypatch.setattr(_encoding, "_THREADED_BYTES", 1 << 62)
    assert np.array_equal(threaded, pelib.shift(table, 3.0))
    rows = [
        0,
        2047,
        2048,
        4095,
    ]  # one from each half's ends, against the exact rows three positions on
    # the table's 5e-16, plus the rounding of the factor e^{-i 3 w} and of the product:
    # a few 1e-16
    assert oracle.error(threaded[rows], [r + 3 for r in rows], 1024).max() <= 1e-15
    monkeypatch.undo()
    table[-1] = 1.7e308
    with pytest.raises(ValueError, match="pe"):
        pelib.shift(table, 3.0)
