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
    for phi in explore.sin_only().controls["phi"]:
        linear, affine = (
            explore.sin_only_residuals(phi),
            explore.sin_only_residuals(phi, affine=True),
        )
        assert linear.argmax() <= 5 and affine.argmax() <= 5
        assert np.all(affine[8:] < linear[8:] / 10) and affine.min() > 1e-10


def test_update_times_are_measured(explorer):
    compute, redraw = explore.update_times(explorer, repeat=1)
    assert 0 < compute < 10 and 0 < redraw < 10
