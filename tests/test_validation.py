"""Every bad argument gets a TypeError or ValueError that names the parameter."""

import warnings

import numpy as np
import pytest

import pelib

GOOD = {"n_positions": 4, "d_model": 8}


def call_sinusoidal(**bad):
    kwargs = {**GOOD, **bad}
    return pelib.sinusoidal(kwargs.pop("n_positions"), kwargs.pop("d_model"), **kwargs)


SIZE_CASES = [
    (-1, ValueError),
    (-100, ValueError),
    (2.5, TypeError),
    (3.0, TypeError),
    (np.float64(4), TypeError),
    (True, TypeError),
    (False, TypeError),
    (np.True_, TypeError),
    ("8", TypeError),
    (None, TypeError),
    ([8], TypeError),
    (1j, TypeError),
]


@pytest.mark.parametrize(("value", "error"), SIZE_CASES)
@pytest.mark.parametrize("name", ["n_positions", "d_model"])
def test_bad_sizes(name, value, error):
    with pytest.raises(error, match=rf"^{name} must be an integer >= [01]"):
        call_sinusoidal(**{name: value})


def test_zero_width_is_rejected_but_zero_positions_is_not():
    with pytest.raises(ValueError, match=r"^d_model must be an integer >= 1, got 0$"):
        pelib.sinusoidal(4, 0)
    assert pelib.sinusoidal(0, 4).shape == (0, 4)


@pytest.mark.parametrize(
    ("value", "error"),
    [
        (0, ValueError),
        (-10000.0, ValueError),
        (float("inf"), ValueError),
        (float("nan"), ValueError),
        (10**400, ValueError),
        ("10000", TypeError),
        (None, TypeError),
        (True, TypeError),
        (1j, TypeError),
    ],
)
def test_bad_base(value, error):
    for call in (
        lambda: call_sinusoidal(base=value),
        lambda: pelib.frequencies(8, value),
        lambda: pelib.wavelengths(8, base=value),
    ):
        with pytest.raises(error, match=r"^base must be a finite real number > 0"):
            call()


@pytest.mark.parametrize(
    ("value", "error"),
    [
        (float("inf"), ValueError),
        (-float("inf"), ValueError),
        (float("nan"), ValueError),
        (np.float32("nan"), ValueError),
        ("0", TypeError),
        (None, TypeError),
        (False, TypeError),
    ],
)
def test_bad_start(value, error):
    with pytest.raises(error, match=r"^start must be a finite real number"):
        call_sinusoidal(start=value)


@pytest.mark.parametrize(
    ("value", "error"),
    [
        ("Interleaved", ValueError),
        ("sincos", ValueError),
        ("", ValueError),
        (None, TypeError),
        (0, TypeError),
    ],
)
def test_bad_layout(value, error):
    with pytest.raises(error, match=r"^layout must be one of 'interleaved', 'concat'"):
        call_sinusoidal(layout=value)


@pytest.mark.parametrize(
    "value",
    [
        int,
        np.int32,
        "int64",
        bool,
        np.complex128,
        complex,
        object,
        "nonsense",
        None,
        3,
        ",",
        "f8,",
    ],
)
def test_bad_dtype(value):
    with pytest.raises(TypeError, match=r"^dtype must be a NumPy floating dtype"):
        call_sinusoidal(dtype=value)


@pytest.mark.parametrize("value", [0, -2, 2.0, True, "64"])
def test_bad_width_for_frequencies(value):
    with pytest.raises(
        (TypeError, ValueError), match=r"^d_model must be an integer >= 1"
    ):
        pelib.frequencies(value)
    with pytest.raises(
        (TypeError, ValueError), match=r"^d_model must be an integer >= 1"
    ):
        pelib.wavelengths(value)


def test_messages_show_the_rejected_value():
    with pytest.raises(ValueError, match=r"got -3$"):
        pelib.sinusoidal(-3, 8)
    with pytest.raises(TypeError, match=r"got float 2\.5$"):
        pelib.sinusoidal(2.5, 8)
    with pytest.raises(ValueError, match=r"got 'rope'$"):
        pelib.sinusoidal(2, 8, layout="rope")


def test_large_inputs_raise_no_warning():
    # Positions and bases at the edge of the float range: finite answers, no
    # RuntimeWarning.
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        table = pelib.sinusoidal(2, 8, start=1e300, base=1e300)
        assert np.all(np.isfinite(table))
        assert np.all(np.isfinite(pelib.frequencies(8, base=1e-300)))


def test_angles_beyond_the_float_range_are_rejected():
    for call in (
        pelib.frequencies,
        pelib.wavelengths,
        lambda d, base: pelib.sinusoidal(2, d, base=base),
    ):
        with pytest.raises(
            ValueError, match=r"^base=5e-324 is too small for d_model=512"
        ):
            call(512, base=5e-324)
    with pytest.raises(
        ValueError,
        match=(
            r"^start and n_positions: positions up to 1e\+300 "
            r"with base=1e-300 give angles"
        ),
    ):
        pelib.sinusoidal(2, 8, start=1e300, base=1e-300)


@pytest.mark.parametrize(
    ("value", "error"),
    [
        ([0, float("nan")], ValueError),
        (float("inf"), ValueError),
        ([True, False], TypeError),
        ([1j], TypeError),
        ("12", TypeError),
        ([[0, 1], [2]], TypeError),
        (None, TypeError),
        ([object()], TypeError),
    ],
)
def test_bad_positions(value, error):
    with pytest.raises(
        error, match=r"^positions must be a number or an array of finite real numbers"
    ):
        pelib.encode(value, 8)


def test_encode_checks_its_other_arguments():
    with pytest.raises(ValueError, match=r"^d_model must be an integer >= 1"):
        pelib.encode([0, 1], 0)
    with pytest.raises(ValueError, match=r"^layout must be one of"):
        pelib.encode([0, 1], 4, layout="sin")
    with pytest.raises(TypeError, match=r"^dtype must be a NumPy floating dtype"):
        pelib.encode([0, 1], 4, dtype=int)
    with pytest.raises(ValueError, match=r"^base must be a finite real number > 0"):
        pelib.encode([0, 1], 4, base=-1)
