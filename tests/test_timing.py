"""pelib.timing.best_time measures what it is given."""

import time

import pytest

from pelib.timing import best_time


def test_best_time_is_close_to_a_known_sleep():
    # A sleep lasts at least as long as asked; the best of a few rounds is not much
    # more.
    measured = best_time(time.sleep, 0.002, repeat=3, min_seconds=0.004)
    assert 0.002 <= measured < 0.05


def test_best_time_calls_the_function_with_its_arguments():
    calls = []
    best_time(calls.append, 7, repeat=2, min_seconds=0.0)
    assert calls and set(calls) == {7}


def test_best_time_needs_a_round():
    with pytest.raises(ValueError, match=r"^repeat must be an integer >= 1"):
        best_time(int, repeat=0)
