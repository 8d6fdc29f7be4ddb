"""Dot products, distances and least-squares fits (chapters 4 and 5).

Truth: dot products and distances of rows computed entry by entry from the formula in
plain Python (oracle.formula_row), the exact sums in mpmath (oracle.dot,
oracle.distance), and linear maps constructed by hand.
"""

import math

import bounds
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import oracle
import pelib


def dot(u, v):
    return sum(a * b for a, b in zip(u, v, strict=True))


@settings(max_examples=40, deadline=None)
@given(
    d_model=st.integers(1, 16).map(lambda h: 2 * h),
    t=st.integers(-5000, 5000),
    k=st.integers(-5000, 5000),
)
def test_relative_dot_is_the_dot_product_of_rows(d_model, t, k):
    expected = dot(oracle.formula_row(t, d_model), oracle.formula_row(t + k, d_model))
    assert pelib.relative_dot(k, d_model) == pytest.approx(expected, abs=1e-10)


@settings(max_examples=40, deadline=None)
@given(
    d_model=st.integers(1, 16).map(lambda h: 2 * h),
    t=st.integers(-5000, 5000),
    k=st.integers(-5000, 5000),
)
def test_offset_distance_is_the_distance_of_rows(d_model, t, k):
    a, b = oracle.formula_row(t, d_model), oracle.formula_row(t + k, d_model)
    expected = math.sqrt(sum((x - y) ** 2 for x, y in zip(a, b, strict=True)))
    assert pelib.offset_distance(k, d_model) == pytest.approx(expected, abs=1e-9)


@pytest.mark.parametrize("k", [0, 1, 24, 100, 1000, 123456.5])
@pytest.mark.parametrize("d_model", [2, 16, 256])
def test_closed_forms_against_the_exact_sums(k, d_model):
    # The float64 sum of d/2 cosines of float64 angles: each angle is off by about k *
    # 2**-53.
    tolerance = (d_model / 2) * bounds.ULP * (4 + 2 * abs(k))
    assert pelib.relative_dot(k, d_model) == pytest.approx(
        oracle.dot(k, d_model), abs=tolerance
    )
    assert pelib.offset_distance(k, d_model) == pytest.approx(
        oracle.distance(k, d_model), abs=tolerance
    )


def test_known_values():
    assert pelib.relative_dot(0, 256) == pytest.approx(128, abs=1e-12)
    assert pelib.relative_dot(1, 2) == pytest.approx(math.cos(1), abs=1e-16)
    # A single frequency 1: rows 710 apart nearly coincide, since 710 is close to 113 *
    # 2 * pi.
    assert pelib.offset_distance(710, 2) == pytest.approx(
        2 * abs(math.sin(355)), rel=1e-9
    )


def test_offset_distance_keeps_relative_accuracy_for_tiny_offsets():
    # To first order the distance is |k| * ||dPE/dt|| = |k| * sqrt(sum w_i^2).
    speed = math.sqrt(sum(10000.0 ** (-4 * i / 64) for i in range(32)))
    assert pelib.offset_distance(1e-9, 64) == pytest.approx(1e-9 * speed, rel=1e-6)


def test_shapes_and_long_ranges():
    offsets = np.arange(100_000).reshape(4, 25_000)  # more than one block
    got = pelib.offset_distance(offsets, 8)
    assert got.shape == (4, 25_000)
    for k in [0, 1, 33_333, 99_999]:
        expected = math.sqrt(
            sum(
                (x - y) ** 2
                for x, y in zip(
                    oracle.formula_row(0, 8), oracle.formula_row(k, 8), strict=True
                )
            )
        )
        assert got.reshape(-1)[k] == pytest.approx(expected, abs=1e-9)
    assert pelib.relative_dot([], 8).shape == (0,)


def test_closed_forms_refuse_odd_widths_and_bad_offsets():
    with pytest.raises(ValueError, match=r"^d_model must be even, got 5"):
        pelib.relative_dot(1, 5)
    with pytest.raises(ValueError, match=r"^d_model must be an integer >= 2"):
        pelib.offset_distance(1, 0)
    with pytest.raises(
        ValueError,
        match=r"^offsets must be a number or an array of finite real numbers",
    ):
        pelib.offset_distance([1, float("nan")], 4)
    with pytest.raises(ValueError, match=r"^base must be a finite real number > 0"):
        pelib.relative_dot(1, 4, base=-2)


def test_fit_recovers_a_known_linear_map():
    rng = np.random.default_rng(3)
    source = rng.normal(size=(50, 4))
    m = rng.normal(size=(3, 4))
    fit = pelib.fit_linear_map(source, source @ m.T)
    np.testing.assert_allclose(fit.matrix, m, atol=1e-12)
    assert fit.residual < 1e-14 and np.all(fit.column_residuals < 1e-14)
    assert not fit.offset.any()


def test_affine_fit_recovers_the_offset():
    rng = np.random.default_rng(4)
    source = rng.normal(size=(40, 2))
    m, b = np.array([[2.0, -1.0]]), np.array([0.5])
    assert pelib.fit_linear_map(source, source @ m.T + b).residual > 0.01
    fit = pelib.fit_linear_map(source, source @ m.T + b, affine=True)
    np.testing.assert_allclose(fit.matrix, m, atol=1e-12)
    np.testing.assert_allclose(fit.offset, b, atol=1e-12)


def test_column_residuals_of_an_orthogonal_target():
    # The target's second column is orthogonal to every source column: nothing of it can
    # be fitted.
    source = np.array([[1.0], [1.0], [0.0], [0.0]])
    target = np.array([[2.0, 1.0], [2.0, -1.0], [0.0, 0.0], [0.0, 0.0]])
    fit = pelib.fit_linear_map(source, target)
    assert fit.column_residuals.tolist() == pytest.approx([0.0, 1.0], abs=1e-15)
    assert fit.residual == pytest.approx(
        math.sqrt(2 / 10), abs=1e-15
    )  # ||(0, 0, 1, -1)|| / ||target||


def test_fit_drops_directions_below_the_default_cutoff():
    # The Notes: lstsq's default cutoff eps * max(rows, columns) of the largest singular
    # value. Source singular values 1 and s; the target is the second direction. Far
    # below the cutoff (s = 1e-3 of it) the direction is dropped, and nothing of the
    # target is fitted; far above (1e3 times) it is kept, and the fit is exact to
    # rounding. Both are a factor 1e3 from the cutoff, beyond any LAPACK's error.
    cutoff = np.finfo(np.float64).eps * 3
    target = np.array([[0.0], [1.0], [0.0]])
    residuals = []
    for s in (1e-3 * cutoff, 1e3 * cutoff):
        source = np.array([[1.0, 0.0], [0.0, s], [0.0, 0.0]])
        residuals.append(pelib.fit_linear_map(source, target).residual)
    assert residuals[0] == pytest.approx(1.0, abs=1e-12)
    assert residuals[1] < 1e-12


def test_fit_arguments():
    with pytest.raises(
        ValueError, match=r"^source and target must have the same number of rows"
    ):
        pelib.fit_linear_map(np.zeros((3, 2)), np.zeros((4, 2)))
    with pytest.raises(ValueError, match=r"^source must be a 2-D array"):
        pelib.fit_linear_map(np.zeros(3), np.zeros(3))
    with pytest.raises(
        TypeError, match=r"^source must be a 2-D array of finite real numbers"
    ):
        pelib.fit_linear_map([["a"]], [[1.0]])
    with pytest.raises(TypeError, match=r"^affine must be True or False"):
        pelib.fit_linear_map(np.zeros((2, 1)), np.zeros((2, 1)), affine=1)


def test_direct_float32_positions_collapse_at_two_to_the_24():
    rows = pelib.sinusoidal_direct(4, 16, start=2**24 - 2, dtype=np.float32)
    assert not np.array_equal(
        rows[0], rows[1]
    )  # 2**24 - 2 and 2**24 - 1 are both float32 numbers
    assert np.array_equal(rows[2], rows[3])  # 2**24 + 1 rounds to 2**24
    careful = pelib.sinusoidal(4, 16, start=2**24 - 2, dtype=np.float32)
    assert oracle.error(
        careful, range(2**24 - 2, 2**24 + 2), 16
    ).max() <= bounds.sinusoidal(2**24, np.float32)
    with pytest.raises(ValueError, match=r"^start must be an integer >= 0"):
        pelib.sinusoidal_direct(2, 4, start=-1)
