"""The oracle itself: checked against values known in closed form, and kept apart from
pelib.

The oracle (``oracle/``) is the truth every other test, the chapters and ``make bench``
compare pelib with, so it is tested against numbers that do not come from mpmath: the
decimal expansions of sin 1 and cos 1, exact powers of ten, and the formula in plain
Python. It must also never import pelib.
"""

import ast
import math
from decimal import Decimal
from fractions import Fraction
from pathlib import Path

import mpmath
import numpy as np
import pytest

import oracle
from oracle import transcriptions

ORACLE = Path(oracle.__file__).parent

# sin(1) and cos(1) to 50 decimal places.
SIN_1 = Decimal("0.84147098480789650665250232163029899962256306079837")
COS_1 = Decimal("0.54030230586813971740093660744297660373231042061792")


def test_the_oracle_never_imports_pelib():
    for path in ORACLE.glob("*.py"):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                assert not any(
                    alias.name.split(".")[0] == "pelib" for alias in node.names
                ), path
            if isinstance(node, ast.ImportFrom):
                assert (node.module or "").split(".")[0] != "pelib", path


def test_position_one_is_sine_and_cosine_of_one():
    row = oracle.encoding([1], 2)[0]
    assert row.tolist() == [float(SIN_1), float(COS_1)]  # correctly rounded
    exact = oracle.exact([1], 2)[0]
    with mpmath.workprec(
        200
    ):  # the oracle keeps GUARD_BITS bits after the integer part of the angle
        assert abs(exact[0] - mpmath.mpf(str(SIN_1))) < mpmath.mpf(2) ** -(
            oracle.GUARD_BITS - 4
        )
        assert abs(exact[1] - mpmath.mpf(str(COS_1))) < mpmath.mpf(2) ** -(
            oracle.GUARD_BITS - 4
        )


@pytest.mark.parametrize("i", range(4))
def test_frequencies_of_width_8_are_powers_of_ten(i):
    # 10000 ** (-2i / 8) = 10 ** -i exactly.
    with mpmath.workprec(300):
        assert (
            abs(oracle.frequency(i, 8) - mpmath.mpf(10) ** -i) < mpmath.mpf(2) ** -290
        )
    assert float(oracle.frequency(i, 8)) == 10.0**-i


def test_wavelengths():
    assert float(oracle.wavelength(0, 512)) == 2 * math.pi
    assert float(oracle.wavelength(1, 4, base=100)) == pytest.approx(
        20 * math.pi, rel=1e-15
    )


def test_error_measures_below_the_last_place():
    positions = [0, 1, 2, 7]
    exact = oracle.encoding(positions, 6)
    # The nearest doubles are within half a unit in the last place of the truth.
    assert oracle.error(exact, positions, 6).max() <= 2.0**-54
    # A perturbation far below float64's resolution near 1 is seen exactly (the
    # difference is formed in mpmath).
    nudged = exact.astype(np.longdouble) + np.longdouble(2.0**-60)
    err = oracle.error(nudged, positions, 6)
    assert np.all(np.abs(err - 2.0**-60) <= 2.0**-54)
    assert oracle.error(exact + 1e-10, positions, 6).min() == pytest.approx(
        1e-10, rel=1e-5
    )


def test_numbers_of_every_width_convert_exactly():
    third = np.longdouble(1) / 3
    if np.finfo(np.longdouble).nmant > 52:
        with mpmath.workprec(200):
            assert abs(oracle.to_mpf(third) - mpmath.mpf(1) / 3) < mpmath.mpf(2) ** -64
            assert oracle.to_mpf(third) != mpmath.mpf(1.0 / 3)
    assert oracle.to_mpf(np.float32(0.1)) == mpmath.mpf(float(np.float32(0.1)))
    assert oracle.to_mpf(2**70) == mpmath.mpf(2) ** 70
    with mpmath.workprec(100):
        assert oracle.to_mpf(Fraction(1, 4)) == mpmath.mpf(0.25)
    # A Fraction keeps its digits whatever the caller's precision; an mpmath number
    # passes through as it is.
    big = Fraction(2**60 + 1, 3)
    with mpmath.workprec(400):
        assert abs(oracle.to_mpf(big) * 3 - (2**60 + 1)) < mpmath.mpf(2) ** -100
        third = mpmath.mpf(1) / 3
    assert oracle.to_mpf(third) is third
    with pytest.raises(TypeError):
        oracle.to_mpf(True)


@pytest.mark.parametrize("layout", oracle.LAYOUTS)
@pytest.mark.parametrize("d_model", [1, 2, 7, 16])
def test_agrees_with_the_formula_in_plain_python(layout, d_model):
    # At small positions the plain-Python formula is accurate to a few units in the last
    # place.
    for p in (0, 1, 5, 33.5):
        got = oracle.encoding([p], d_model, layout=layout)[0]
        assert got.tolist() == pytest.approx(
            oracle.formula_row(p, d_model, layout=layout), abs=1e-14
        )


def test_far_positions_do_not_depend_on_the_working_precision():
    # GUARD_BITS beyond the integer part of the angle are enough: 100 more bits change
    # nothing.
    positions = [2**31 - 1, 10**9 + 7, 2**40]
    standard = oracle.encoding(positions, 64)
    old = oracle.GUARD_BITS
    try:
        oracle.GUARD_BITS = old + 100
        assert np.array_equal(oracle.encoding(positions, 64), standard)
    finally:
        oracle.GUARD_BITS = old


def test_dot_and_distance():
    assert oracle.dot(0, 16) == 8.0
    for k in (1, 10, 710):
        assert oracle.distance(k, 16) ** 2 == pytest.approx(
            16 - 2 * oracle.dot(k, 16), rel=1e-14
        )
    assert oracle.dot(3, 2) == pytest.approx(math.cos(3), abs=1e-16)


def test_timing_signal():
    table = oracle.timing_signal([0, 1], 5, max_timescale=100)
    assert table[0].tolist() == [0, 0, 1, 1, 0]
    # Timescales 1 and 100: row 1 is sin(1), sin(0.01), cos(1), cos(0.01), 0.
    assert table[1].tolist() == pytest.approx(
        [math.sin(1), math.sin(0.01), math.cos(1), math.cos(0.01), 0], abs=1e-16
    )
    # min_timescale multiplies the inverse timescales (chapter 2).
    assert float(oracle.timescale_frequency(0, 8, min_timescale=2)) == 2.0
    assert float(oracle.timescale_frequency(3, 8, min_timescale=2)) == pytest.approx(
        2 * 2 / 10000, rel=1e-15
    )


def test_transcriptions_keep_their_sources_conventions():
    # Layouts, odd widths and padding rows as the cited code has them; the values are
    # the chapter's business.
    t2t = transcriptions.tensor2tensor(3, 5)
    assert (
        t2t.shape == (1, 3, 5) and t2t.dtype == np.float32 and not t2t[0, :, -1].any()
    )
    assert t2t[0, 0].tolist() == [0, 0, 1, 1, 0]
    fairseq = transcriptions.fairseq_embedding(4, 6, padding_idx=1)
    assert not fairseq[1].any() and fairseq[0].tolist() == [0, 0, 0, 1, 1, 1]
    assert transcriptions.marian_weight(1, 5)[0].tolist() == [0, 0, 0, 1, 1]
    assert transcriptions.musicgen_embedding(1, 5)[0].tolist() == [1, 1, 0, 0, 0]
    assert transcriptions.positional_encodings_1d(1, 5)[0].tolist() == [0, 1, 0, 1, 0]
    with pytest.raises(ValueError):
        transcriptions.pytorch_tutorial(4, 5)
    assert transcriptions.fairseq_positions([[1, 1, 7, 8]], 1).tolist() == [
        [1, 1, 2, 3]
    ]
    assert transcriptions.roberta_positions([[7, 8, 1]], 1).tolist() == [[2, 3, 1]]
    assert transcriptions.opt_rows([[0, 1, 1]]).tolist() == [[1, 2, 3]]


def test_least_squares_recovers_a_known_map():
    # target = source @ [[2, 0], [1, -1]] + [3, 0] exactly: the affine fit finds it with
    # zero residual, the linear one cannot fit the offset of the first column.
    source = [[0, 1], [1, 0], [2, 5], [3, -1]]
    target = [[2 * x + y + 3, -y] for x, y in source]
    matrix, offset, residuals = oracle.least_squares(source, target, affine=True)
    assert np.allclose(
        [[float(v) for v in row] for row in matrix],
        [[2, 1], [0, -1]],
        rtol=0,
        atol=1e-60,
    )
    assert (
        np.allclose([float(v) for v in offset], [3, 0], rtol=0, atol=1e-60)
        and residuals.max() < 1e-60
    )
    _, none, linear = oracle.least_squares(source, target)
    assert none is None and linear[0] > 0.1 and linear[1] < 1e-60


def test_integers_beyond_2_to_the_53_convert_exactly():
    big = 10**17 + 1  # not a float64
    assert oracle.to_mpf(big) - oracle.to_mpf(10**17) == 1
    # sin(p) for p and p + 1 differ: the oracle must not round the position to float64
    # first
    assert oracle.encoding([big], 2)[0, 0] != oracle.encoding([10**17], 2)[0, 0]
    with mpmath.workprec(300):
        assert oracle.to_mpf(2**200 + 1) == mpmath.mpf(2) ** 200 + 1
