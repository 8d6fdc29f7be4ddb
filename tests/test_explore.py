"""Explorers: every frame precomputed, sliders linked in the browser, live redraw in a
kernel."""

import math

import ipywidgets as widgets
import numpy as np
import pytest

import oracle
from pelib import explore


@pytest.fixture(
    scope="module",
    params=list(explore.EXPLORERS),
    ids=lambda name: name.replace(" ", "-"),
)
def explorer(request):
    return explore.EXPLORERS[request.param]()


def test_one_frame_per_combination_and_light_pages(explorer):
    assert explorer.n_frames == math.prod(
        len(values) for values in explorer.controls.values()
    )
    assert explorer.n_bytes < 2_000_000
    for leaf in explorer._leaves.values():
        assert leaf.value.startswith(
            '<img src="data:image/png;base64,iVBORw0KGgo'
        )  # a PNG signature
        assert len(leaf.value.split('alt="')[1]) > 60  # and a description of the frame


def test_sliders_are_linked_to_the_stacks_in_the_browser(explorer):
    links = explorer.links
    assert all(isinstance(link, widgets.widget_link.Link) for link in links)
    for name, slider in explorer.sliders.items():
        stacks = explorer._stacks[name]
        assert stacks, name
        for stack in stacks:
            assert stack.selected_index == slider.index
            assert any(
                link.source == (slider, "index")
                and link.target == (stack, "selected_index")
                for link in links
            )


def test_frames_differ_between_values_and_repeat_for_the_same_values(explorer):
    name = next(iter(explorer.controls))
    first, second = explorer.controls[name][:2]
    values = dict(explorer.defaults)
    a = explorer.frame(**{**values, name: first})
    b = explorer.frame(**{**values, name: second})
    assert a != b and a == explorer.frame(**{**values, name: first})


def test_moving_a_slider_redraws_the_selected_frame(explorer):
    name, slider = next(iter(explorer.sliders.items()))
    target = (
        explorer.controls[name][0]
        if slider.value != explorer.controls[name][0]
        else explorer.controls[name][1]
    )
    index = tuple(
        explorer.controls[n].index(target if n == name else explorer.defaults[n])
        for n in explorer.controls
    )
    explorer._leaves[index].value = ""
    slider.value = target
    assert explorer._leaves[index].value.startswith("<img src=")
    slider.value = explorer.defaults[name]


def test_defaults_must_be_among_the_values():
    with pytest.raises(
        ValueError, match=r"^defaults\['phi'\] must be one of \[1, 2\], got 3"
    ):
        explore.Explorer(
            lambda: (None, None, None), {"phi": ("phi", [1, 2])}, {"phi": 3}, str
        )


def test_sin_only_residuals_against_the_exact_least_squares():
    # Width 4 (two frequencies, a well-conditioned fit): the float64 residuals are the
    # exact ones.
    for affine in (False, True):
        source = [row[:2] for row in oracle.exact(range(41), 4, layout="concat")]
        target = [row[:2] for row in oracle.exact(range(10, 51), 4, layout="concat")]
        _, _, exact = oracle.least_squares(source, target, affine=affine)
        got = explore.sin_only_residuals(10, d_model=4, window=40, affine=affine)
        assert got == pytest.approx(exact, rel=1e-9, abs=1e-12)
    # Width 32 over 0..400: the sine columns are so nearly dependent (condition number
    # above 1e15) that the float64 fit is only approximate (chapter 5 compares it with
    # the exact one); the affine fit is never worse.
    linear, affine = (
        explore.sin_only_residuals(10),
        explore.sin_only_residuals(10, affine=True),
    )
    assert np.all(affine <= linear + 1e-12)
    # What every frame's alt text says: both are largest among frequencies 0 to 5, the
    # affine residual falls far below the linear one to the right, and every value lies
    # above the plot's floor of 1e-10.
    for phi in explore.SIN_ONLY_PHIS:
        linear, affine = (
            explore.sin_only_residuals(phi),
            explore.sin_only_residuals(phi, affine=True),
        )
        assert linear.argmax() <= 5 and affine.argmax() <= 5
        assert np.all(affine[8:] < linear[8:] / 10) and affine.min() > 1e-10


def _sin_only_residuals_given():
    # made-up residuals, different at every offset, one of them 0 (drawn at the floor)
    return {
        phi: (np.linspace(0.5, 1e-3, 16) / phi, np.linspace(0.4, 0.0, 16) / phi)
        for phi in explore.SIN_ONLY_PHIS
    }


def test_sin_only_draws_the_residuals_it_is_given():
    given = _sin_only_residuals_given()
    explorer = explore.sin_only(residuals=given)
    assert explorer.controls["phi"] == explore.SIN_ONLY_PHIS
    ax = explorer.figure.axes[0]
    linear, affine = ax.lines[:2]
    for phi, (lin, aff) in given.items():
        data = explorer.compute(phi=phi)
        assert data[0] == phi
        np.testing.assert_array_equal(data[1], lin)
        np.testing.assert_array_equal(data[2], aff)
        explorer._draw(data)
        np.testing.assert_array_equal(linear.get_ydata(), np.maximum(lin, 1e-10))
        np.testing.assert_array_equal(affine.get_ydata(), np.maximum(aff, 1e-10))
        assert "exact least squares" in ax.get_title()
        assert f"phi = {phi}," in ax.get_title()
        text = explorer.alt(phi=phi)
        assert "exact" in text and "float64" not in text
        assert f"from {lin.min():.2g} to {lin.max():.2g}" in text
    # the arrays are copied: changing the caller's arrays changes no frame
    before = explorer.frame(phi=10)
    given[10][0][:] = 0.9
    assert explorer.frame(phi=10) == before
    # without residuals, the float64 fits
    plain = explore.sin_only()
    np.testing.assert_array_equal(
        plain.compute(phi=10)[1], explore.sin_only_residuals(10)
    )
    assert "float64 least squares" in plain.figure.axes[0].get_title()
    assert "fitted in float64" in plain.alt(phi=10)


@pytest.mark.parametrize(
    ("change", "error", "message"),
    [
        (lambda r: [r[p] for p in r], TypeError, r"^residuals must be None or a dict"),
        (
            lambda r: {**r, 3: r[1]},
            ValueError,
            r"; keys that are not offsets: 1, the first int 3$",
        ),
        (
            lambda r: {p: r[p] for p in list(r)[1:]},
            ValueError,
            r"; the offsets \[1\] are missing$",
        ),
        (
            lambda r: {float(p): v for p, v in r.items()},
            TypeError,
            r"got the key float 1\.0$",
        ),
        (lambda r: {**r, 10: r[10][0]}, TypeError, r"^residuals\[10\] must be a pair"),
        (
            lambda r: {**r, 10: (r[10][0], r[10][1], r[10][1])},
            TypeError,
            r"^residuals\[10\] must be a pair",
        ),
        (
            lambda r: {**r, 10: (r[10][0][:15], r[10][1])},
            ValueError,
            r"^residuals\[10\] \(linear\) must hold 16 residuals.*shape \(15,\)",
        ),
        (
            lambda r: {**r, 10: (r[10][0], r[10][1].reshape(4, 4))},
            ValueError,
            r"^residuals\[10\] \(affine\) must be a 1-D array",
        ),
        (
            lambda r: {**r, 20: (r[20][0], np.where(np.arange(16) == 3, np.nan, 0.1))},
            ValueError,
            r"^residuals\[20\] \(affine\) .*nan or infinity",
        ),
        (
            lambda r: {**r, 5: (r[5][0] - 1, r[5][1])},
            ValueError,
            r"^residuals\[5\] \(linear\) must hold relative residuals between 0 and 1",
        ),
        (
            lambda r: {**r, 5: (r[5][0] + 1, r[5][1])},
            ValueError,
            r"^residuals\[5\] \(linear\) must hold relative residuals between 0 and 1",
        ),
        (
            lambda r: {**r, 10**5000: r[5]},
            ValueError,
            r"; keys that are not offsets: 1, the first int of 5001 digits$",
        ),
        (
            lambda r: {**r, 5: (["a"] * 16, r[5][1])},
            TypeError,
            r"^residuals\[5\] \(linear\) must be",
        ),
    ],
    ids=[
        "not-a-dict",
        "extra-key",
        "missing-key",
        "float-keys",
        "not-a-pair",
        "three-arrays",
        "wrong-length",
        "two-dimensional",
        "nan",
        "negative",
        "above-one",
        "huge-key",
        "strings",
    ],
)
def test_sin_only_refuses_bad_residuals_by_name(change, error, message):
    with pytest.raises(error, match=message):
        explore.sin_only(residuals=change(_sin_only_residuals_given()))


def test_update_times_are_measured(explorer):
    compute, redraw = explore.update_times(explorer, repeat=1)
    assert 0 < compute < 10 and 0 < redraw < 10
