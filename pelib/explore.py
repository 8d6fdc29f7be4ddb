"""Explorers: figures with controls, alive in a kernel and on the static website.

An explorer shows a figure that depends on a few parameters, each with a short
list of values. Every combination is rendered up front as a PNG frame, and the
frames sit in nested ``ipywidgets.Stack`` widgets whose ``selected_index`` is
linked in the browser (``jslink``) to the position of a slider. On the static
website, where no Python runs, moving a slider therefore switches frames by
itself. In a kernel the sliders also call Python, which recomputes the frame
for the new values with pelib and redraws it.

Each explorer draws into one Matplotlib figure that it keeps, updating the data
of its artists rather than building a new figure, so an update costs tens of
milliseconds. Frames are stored as palette PNGs to keep pages light.

Importing this module imports Matplotlib, Pillow and ipywidgets; ``import pelib`` does
not. Chapters 1, 3, 4 and 5 show its explorers.
"""

from __future__ import annotations

import base64
import html
import math
import numbers
import time
from collections.abc import Callable, Sequence
from typing import Any

import ipywidgets as widgets
import matplotlib as mpl
import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from PIL import Image

import pelib

from . import _validate, plots

#: Resolution of explorer frames, in dots per inch.
DPI = 64
#: Colours kept in each frame's PNG palette.
COLOURS = 48
#: Type sizes of the frames, in points. A frame is shown near its own pixel size, and
#: at DPI 64 Matplotlib's default of 10 points would be about 9 pixels tall.
STYLE = {
    "font.size": 13,
    "axes.titlesize": 13,
    "axes.labelsize": 13,
    "xtick.labelsize": 12,
    "ytick.labelsize": 12,
    "legend.fontsize": 12,
}


def to_png(fig: Figure) -> bytes:
    """Draw ``fig`` and return it as a palette PNG (the figure stays open for the next
    frame)."""
    fig = plots._figure_argument(fig)
    canvas = fig.canvas if hasattr(fig.canvas, "buffer_rgba") else FigureCanvasAgg(fig)
    canvas.draw()
    rgb = np.asarray(canvas.buffer_rgba())[..., :3]
    return plots._quantized_png(Image.fromarray(rgb), COLOURS)


class Explorer:
    """A figure driven by sliders, each over a fixed list of values.

    Built by the functions of this module, one per chapter: :func:`formula`,
    :func:`shift`, :func:`wavelengths` and :func:`sin_only`. Display it as the
    last expression of a cell (or with ``display``).

    Parameters
    ----------
    setup : callable
        ``setup()`` creates the figure and returns ``(fig, compute, draw)``:
        ``compute(**values)`` computes with pelib everything the figure shows
        for one combination of values, and ``draw(data)`` puts the result of
        ``compute`` into the figure's artists.
    controls : dict of str to (str, sequence)
        For each parameter, its slider's description and its values.
    defaults : dict
        The value of each parameter shown first; each must be one of its values.
    alt : callable
        ``alt(**values)`` describes the frame for those values, as its alt text.
    """

    def __init__(
        self,
        setup: Callable[[], tuple[Figure, Callable[..., Any], Callable[[Any], None]]],
        controls: dict[str, tuple[str, Sequence[Any]]],
        defaults: dict[str, Any],
        alt: Callable[..., str],
    ) -> None:
        setup = _validate.function(setup, "setup")
        alt = _validate.function(alt, "alt")
        _check_controls(controls)
        _check_defaults(defaults, controls)
        with mpl.rc_context(STYLE):
            self.figure, self.compute, self._draw = _setup_result(setup())
            _fix_layout(self.figure, lambda: self._draw(self.compute(**defaults)))
        _alt_text(alt, defaults)  # refuses an alt that cannot describe a frame
        self.alt = alt
        self.controls = {name: list(values) for name, (_, values) in controls.items()}
        self.defaults = dict(defaults)
        self.sliders = {
            name: _slider(description, values, defaults[name])
            for name, (description, values) in controls.items()
        }
        self._leaves: dict[tuple[int, ...], widgets.HTML] = {}
        self._stacks: dict[str, list[widgets.Stack]] = {name: [] for name in controls}
        self.view = self._stack(list(controls), ())
        #: The browser-side links from each slider to the stacks it selects in.
        self.links = [
            widgets.jslink((self.sliders[name], "index"), (stack, "selected_index"))
            for name, stacks in self._stacks.items()
            for stack in stacks
        ]
        for slider in self.sliders.values():
            slider.observe(self._redraw, names="index")
        self.widget = widgets.VBox([*self.sliders.values(), self.view])

    @property
    def n_frames(self) -> int:
        """Number of precomputed frames, one per combination of values."""
        return len(self._leaves)

    @property
    def n_bytes(self) -> int:
        """Total size of the precomputed frames as stored in the page, in bytes."""
        return sum(len(leaf.value) for leaf in self._leaves.values())

    def _check(self, values: dict[str, Any]) -> None:
        for name, value in values.items():
            if name not in self.controls:
                raise TypeError(
                    f"{name} is not a control of this explorer (they are "
                    f"{', '.join(self.controls)})"
                )
            if not any(
                value is v or (type(value) is type(v) and value == v)
                for v in self.controls[name]
            ):
                raise ValueError(
                    f"{name} must be one of {self.controls[name]}, got "
                    f"{_validate.describe(value)}"
                )
        missing = set(self.controls) - set(values)
        if missing:
            raise TypeError(
                "a value is needed for every control: "
                f"{', '.join(sorted(missing))} missing"
            )

    def frame(self, **values: Any) -> bytes:
        """Recompute and redraw the figure for one combination of values: the work of
        one update.

        Each value must be one of its control's values.
        """
        self._check(values)
        with mpl.rc_context(STYLE):
            self._draw(self.compute(**values))
            return to_png(self.figure)

    def html(self, **values: Any) -> str:
        """The frame for ``values`` as an ``<img>`` element with its alt text."""
        data = base64.b64encode(self.frame(**values)).decode("ascii")
        return (
            f'<img src="data:image/png;base64,{data}" '
            f'alt="{html.escape(_alt_text(self.alt, values))}">'
        )

    def current(self) -> dict[str, Any]:
        """The values the sliders show now."""
        return {name: slider.value for name, slider in self.sliders.items()}

    def _stack(self, names: list[str], index: tuple[int, ...]) -> widgets.Widget:
        if not names:
            values = {
                name: self.controls[name][i]
                for name, i in zip(self.controls, index, strict=True)
            }
            leaf = widgets.HTML(value=self.html(**values))
            self._leaves[index] = leaf
            return leaf
        name, rest = names[0], names[1:]
        children = [
            self._stack(rest, (*index, i)) for i in range(len(self.controls[name]))
        ]
        stack = widgets.Stack(
            children=children,
            selected_index=self.controls[name].index(self.defaults[name]),
        )
        self._stacks[name].append(stack)
        return stack

    def _redraw(self, change: dict) -> None:
        # In a kernel: recompute the frame the sliders now select, and show it.
        index = tuple(slider.index for slider in self.sliders.values())
        self._leaves[index].value = self.html(**self.current())

    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        return self.widget._repr_mimebundle_(**kwargs)


def _fix_layout(fig: Figure, draw_defaults: Callable[[], None]) -> None:
    """Lay out ``fig`` once, around the frame of the default values, and keep that
    layout for every frame, so that a frame depends on its values alone and not on
    the frames drawn before it."""
    if fig.get_layout_engine() is None:
        return
    draw_defaults()
    fig.get_layout_engine().execute(fig)
    fig.set_layout_engine("none")


def _check_controls(controls: Any) -> None:
    """Refuse controls that are not a non-empty dict of name to (description,
    non-empty list of values)."""
    if not isinstance(controls, dict) or not controls:
        raise TypeError(
            f"controls must be a non-empty dict of name to (description, values), "
            f"got {_validate.describe(controls)}"
        )
    for name, control in controls.items():
        _validate.text(name, "controls (a name)")
        if (
            not isinstance(control, tuple)
            or len(control) != 2
            or not isinstance(control[0], str)
            or not isinstance(control[1], (list, tuple))
            or not control[1]
        ):
            raise TypeError(
                f"controls[{name!r}] must be a pair (description, non-empty list "
                f"of values), got {_validate.describe(control)}"
            )


def _check_defaults(
    defaults: Any, controls: dict[str, tuple[str, Sequence[Any]]]
) -> None:
    """Refuse defaults that are not a dict giving each control one of its values."""
    if not isinstance(defaults, dict):
        raise TypeError(
            "defaults must be a dict of name to value, got "
            f"{_validate.describe(defaults)}"
        )
    for name, (_, values) in controls.items():
        if defaults.get(name) not in list(values):
            raise ValueError(
                f"defaults[{name!r}] must be one of {list(values)}, got "
                f"{defaults.get(name)!r}"
            )


def _alt_text(alt: Callable[..., str], values: dict[str, Any]) -> str:
    """``alt(**values)``, which must be a str; any other outcome is refused naming
    ``alt``."""
    try:
        text = alt(**values)
    except (TypeError, ValueError) as error:
        raise TypeError(
            "alt must take the controls as keyword arguments and return the alt text "
            f"(a str): alt({', '.join(values)}) raised {type(error).__name__}: {error}"
        ) from None
    if not isinstance(text, str):
        raise TypeError(
            f"alt must return the alt text as a str, got {_validate.describe(text)}"
        )
    return text


def _setup_result(
    made: Any,
) -> tuple[Figure, Callable[..., Any], Callable[[Any], None]]:
    """What ``setup()`` returned, if it is (figure, compute, draw)."""
    if not (
        isinstance(made, tuple)
        and len(made) == 3
        and isinstance(made[0], Figure)
        and callable(made[1])
        and callable(made[2])
    ):
        raise TypeError(
            f"setup must return (figure, compute, draw), got {_validate.describe(made)}"
        )
    return made


def _slider(
    description: str, values: Sequence[Any], value: Any
) -> widgets.SelectionSlider:
    """The slider of one control, over its values, showing ``value``."""
    return widgets.SelectionSlider(
        options=[(_label(v), v) for v in values],
        value=value,
        description=description,
        continuous_update=True,
        style={"description_width": "initial"},
        layout=widgets.Layout(width="420px"),
    )


def _label(value: Any) -> str:
    if isinstance(value, float) and value.is_integer():
        return f"{value:,.0f}"
    return str(value)


def _figure(ncols: int, width: float) -> tuple[Figure, Any]:
    # Outside pyplot: drawn only into frames, never shown by the notebook's inline
    # backend.
    fig = Figure(figsize=(width, 3.6), dpi=DPI, layout="constrained")
    FigureCanvasAgg(fig)
    axes = fig.subplots(1, ncols)
    for ax in np.atleast_1d(axes):
        ax.locator_params(nbins=5)
    return fig, axes


# --- chapter 1 ------------------------------------------------------------------------


def formula() -> Explorer:
    """Explorer of chapter 1 (:doc:`/notebooks/01_formula`): width, number of positions
    and base.

    Left, the table; right, its middle column (the sine of pair ``d/4``).
    """

    def setup():
        fig, (left, right) = _figure(2, 9.0)
        image = plots.heatmap(np.zeros((2, 2)), left).get_images()[0]
        (line,) = right.plot([], [])
        right.set(xlabel="position t", ylabel="value", ylim=(-1.05, 1.05))

        def compute(d_model, n_positions, base):
            column = d_model // 2
            return (
                d_model,
                n_positions,
                base,
                pelib.sinusoidal(n_positions, d_model, base=base),
                pelib.wavelengths(d_model, base)[column // 2],
            )

        def draw(data):
            d_model, n_positions, base, table, wavelength = data
            column = d_model // 2
            image.set_data(table)
            image.set_extent((-0.5, d_model - 0.5, n_positions - 0.5, -0.5))
            left.set(
                xlim=(-0.5, d_model - 0.5),
                ylim=(n_positions - 0.5, -0.5),
                title=f"d = {d_model}, {n_positions} positions, base {_label(base)}",
            )
            line.set_data(np.arange(n_positions), table[:, column])
            right.set(
                xlim=(0, n_positions - 1),
                title=f"column {column}: wavelength {wavelength:,.1f}",
            )

        return fig, compute, draw

    return Explorer(
        setup,
        {
            "d_model": ("width d", [16, 64, 256]),
            "n_positions": ("positions", [50, 200]),
            "base": ("base", [100.0, 10000.0]),
        },
        {"d_model": 256, "n_positions": 200, "base": 10000.0},
        _formula_alt,
    )


def _formula_alt(d_model: int, n_positions: int, base: float) -> str:
    """Alt text of a frame of :func:`formula`: what the middle column does over the
    positions shown."""
    wavelength = float(pelib.wavelengths(d_model, base)[d_model // 4])
    cycles = (n_positions - 1) / wavelength
    column = pelib.sinusoidal(n_positions, d_model, base=base)[:, d_model // 2]
    if cycles < 0.25:
        shape = (
            f"rising almost linearly from 0 to {column[-1]:.2f}, {cycles:.0%} of one "
            f"cycle of its wavelength {wavelength:,.1f}"
        )
    elif cycles < 1:
        low = (
            f", falls to {column.min():.2f} at position {column.argmin()}"
            if cycles > 0.5
            else ""
        )
        shape = (
            f"{cycles:.2f} of a cycle of a sine of wavelength {wavelength:,.1f}: it "
            f"rises to {column.max():.2f} at position {column.argmax()}{low} and ends "
            f"at {column[-1]:.2f}"
        )
    else:
        shape = f"{cycles:.1f} cycles of a wave of wavelength {wavelength:,.1f}"
    return (
        f"Left: heatmap of the encoding for {n_positions} positions and width "
        f"{d_model} with base {_label(base)}, fine stripes on the left widening to the "
        f"right. Right: column {d_model // 2} against position, {shape}."
    )


# --- chapter 3 ------------------------------------------------------------------------

#: Offsets offered by the shift explorer.
PHIS = [-100, -50, -20, -10, -5, -1, 0, 1, 5, 10, 20, 50, 100]


def shift(
    d_model: int = 64, n_positions: int = 64, pair: int = 4, shown: int = 10
) -> Explorer:
    """Explorer of chapter 3 (:doc:`/notebooks/03_shift_property`): the offset ``phi``.

    Left, the table; middle, the table shifted by ``phi`` with ``pelib.shift``;
    right, one (sin, cos) pair of the first ``shown`` rows before and after the
    shift, on the unit circle.
    """
    d_model, n_positions, pair, shown = _shift_arguments(
        d_model, n_positions, pair, shown
    )
    table = pelib.sinusoidal(n_positions, d_model)
    w = pelib.frequencies(d_model)[pair]

    def setup():
        fig, (a, b, c) = _figure(3, 10.0)
        plots.heatmap(table, a, title="PE(t)", colorbar=False)
        image = plots.heatmap(table, b, colorbar=False).get_images()[0]
        circle = np.linspace(0, 2 * math.pi, 200)
        c.plot(np.sin(circle), np.cos(circle), color="0.85")
        c.plot(
            table[:shown, 2 * pair],
            table[:shown, 2 * pair + 1],
            "o",
            color="C0",
            label=f"t = 0..{shown - 1}",
        )
        (moved,) = c.plot([], [], "o", color="C3", label="t + phi")
        c.set(
            aspect="equal",
            xlabel=f"column {2 * pair} (sin)",
            ylabel=f"column {2 * pair + 1} (cos)",
        )
        c.legend(loc="center", fontsize="small")

        def compute(phi):
            return phi, pelib.shift(table, phi)

        def draw(data):
            phi, shifted = data
            image.set_data(shifted)
            image.set_extent((-0.5, d_model - 0.5, phi + n_positions - 0.5, phi - 0.5))
            b.set(
                ylim=(phi + n_positions - 0.5, phi - 0.5),
                title=f"PE(t + {phi}), by pelib.shift",
            )
            moved.set_data(shifted[:shown, 2 * pair], shifted[:shown, 2 * pair + 1])
            # Smaller than the other titles: the widest, over the narrowest panel.
            c.set_title(f"pair {pair} turned {_direction(w * phi)}", fontsize=11)

        return fig, compute, draw

    return Explorer(
        setup,
        {"phi": ("offset phi", PHIS)},
        {"phi": 5},
        lambda phi: (
            f"Left: heatmap of positions 0 to {n_positions - 1}. Middle: the same "
            f"table shifted by {phi}, labelled with positions {phi} to "
            f"{phi + n_positions - 1}. Right: pair {pair} of the first {shown} "
            "positions on the unit circle, before (blue) and after the shift (red), "
            f"every point turned {_direction(w * phi)}."
        ),
    )


def _shift_arguments(
    d_model: Any, n_positions: Any, pair: Any, shown: Any
) -> tuple[int, int, int, int]:
    """The arguments of :func:`shift`, checked: sizes within bounds, an even
    ``d_model``, a pair that exists and no more rows shown than there are."""
    d_model = _validate.size(d_model, "d_model", minimum=2, maximum=1024)
    if d_model % 2:
        raise ValueError(f"d_model must be even, got {d_model}")
    n_positions = _validate.size(n_positions, "n_positions", minimum=1, maximum=1024)
    pair = _validate.size(pair, "pair", minimum=0)
    if pair >= d_model // 2:
        raise ValueError(
            f"pair must be below d_model // 2 = {d_model // 2}, got {pair}"
        )
    shown = _validate.size(shown, "shown", minimum=1)
    if shown > n_positions:
        raise ValueError(
            f"shown must be at most n_positions = {n_positions}, got {shown}"
        )
    return d_model, n_positions, pair, shown


def _direction(angle: float) -> str:
    """How a (sin, cos) pair drawn with sin across and cos up turns when its angle grows
    by ``angle``."""
    if angle == 0:
        return "by 0 rad (not at all)"
    return f"{'clockwise' if angle > 0 else 'anticlockwise'} by {abs(angle):.2f} rad"


# --- chapter 4 ------------------------------------------------------------------------


def wavelengths() -> Explorer:
    """Explorer of chapter 4 (:doc:`/notebooks/04_wavelengths`): the base and the width.

    Left, the wavelength of every pair; right, the dot product of rows
    φ apart, divided by its value ``d/2`` at offset 0.
    """
    offsets = np.arange(-1000, 1001)

    def setup():
        fig, (left, right) = _figure(2, 9.0)
        (lam_line,) = left.plot([], [], marker=".")
        left.set(
            yscale="log",
            ylim=(1, 1e7),
            xlabel="pair index i",
            ylabel="wavelength (positions)",
        )
        (dot_line,) = right.plot(offsets, np.zeros(len(offsets)))
        right.set(
            xlim=(-1000, 1000),
            ylim=(-0.75, 1.05),
            xlabel="offset φ",
            ylabel="PE(t) · PE(t + φ) / (d / 2)",
        )

        def compute(base, d_model):
            return (
                base,
                d_model,
                pelib.wavelengths(d_model, base),
                pelib.relative_dot(offsets, d_model, base),
            )

        def draw(data):
            base, d_model, lam, dot = data
            dot = dot / (d_model / 2)
            lam_line.set_data(np.arange(len(lam)), lam)
            left.set(
                xlim=(-0.5, len(lam) - 0.5),
                title=f"d = {d_model}, base {_label(base)}: longest {lam[-1]:,.0f}",
            )
            dot_line.set_ydata(dot)
            right.set_title(f"dot product at φ = 100: {dot[1100]:.3f}")

        return fig, compute, draw

    return Explorer(
        setup,
        {
            "base": ("base", [100.0, 10000.0, 500000.0]),
            "d_model": ("width d", [16, 64, 256]),
        },
        {"base": 10000.0, "d_model": 256},
        _wavelengths_alt,
    )


def _wavelengths_alt(base: float, d_model: int) -> str:
    """Alt text of a frame of :func:`wavelengths`."""
    dot = pelib.relative_dot(np.arange(1001), d_model, base) / (d_model / 2)
    low = dot.min()
    floor = (
        f"down to {low:.2g} at φ = ±{int(dot.argmin())}"
        if low < 0
        else f"staying above {low:.2f}"
    )
    return (
        f"Left: wavelengths of the {d_model // 2} pairs for width {d_model} and base "
        f"{_label(base)}, a straight line on a logarithmic axis up to "
        f"{pelib.wavelengths(d_model, base)[-1]:,.0f}. Right: the dot product of rows "
        "φ apart divided by d/2, a symmetric peak of 1 at φ = 0 falling with ripples "
        f"on both sides, {floor} within |φ| ≤ 1000."
    )


# --- chapter 5 ------------------------------------------------------------------------


def sin_only_residuals(
    phi: float, d_model: int = 32, window: int = 400, *, affine: bool = False
) -> np.ndarray:
    """Relative residual, per frequency, of the best map from s(t) to s(t + phi)
    (chapter 5).

    ``s(t)`` holds the sines of the ``d_model // 2`` frequencies of the
    encoding, over the table positions ``t = 0 .. window``; the map is linear,
    or affine (``M s + b``) with ``affine=True``.
    """
    phi = _validate.real(phi, "phi", minimum=-1e6, maximum=1e6)
    d_model = _validate.size(d_model, "d_model", minimum=2, maximum=1024)
    if d_model % 2:
        raise ValueError(f"d_model must be even, got {d_model}")
    window = _validate.size(window, "window", minimum=1, maximum=100_000)
    affine = _validate.boolean(affine, "affine")
    omega = pelib.frequencies(d_model)
    t = np.arange(window + 1)
    source, target = (
        np.sin(np.multiply.outer(t, omega)),
        np.sin(np.multiply.outer(t + phi, omega)),
    )
    return pelib.fit_linear_map(source, target, affine=affine).column_residuals


#: Offsets offered by the sine-only explorer.
SIN_ONLY_PHIS = [1, 2, 5, 10, 20, 50, 100]


def sin_only(residuals: Any = None) -> Explorer:
    """Explorer of chapter 5 (:doc:`/notebooks/05_sin_only`): the offset ``phi``.

    The relative residual of the best sine-only linear and affine shifts, per
    frequency (d = 32), over the table positions 0 to 400, for each offset of
    :data:`SIN_ONLY_PHIS`.

    Parameters
    ----------
    residuals : dict, optional
        The residuals to draw: for each offset of :data:`SIN_ONLY_PHIS`, a pair
        ``(linear, affine)`` of arrays of 16 finite residuals in [0, 1], such as the
        exact least-squares residuals chapter 5 computes in mpmath. The frames and
        their alt text then say "exact". With None (the default) the explorer fits
        in float64 with :func:`sin_only_residuals`: the sine columns are nearly
        dependent, so those values are approximate for the slower frequencies, and
        their last digits depend on the machine's libm and LAPACK.
    """
    given = _sin_only_given(residuals)
    method = "float64 least squares" if given is None else "exact least squares"
    floor = (
        1e-10  # below the smallest residual of any frame (about 2e-9, affine, phi = 1)
    )

    def residuals_at(phi):
        if given is None:
            return sin_only_residuals(phi), sin_only_residuals(phi, affine=True)
        return given[phi][0].copy(), given[phi][1].copy()

    def setup():
        fig, ax = _figure(1, 7.0)
        (linear,) = ax.plot(np.arange(16), np.ones(16), marker="o", label="linear M s")
        (affine,) = ax.plot(
            np.arange(16), np.ones(16), marker="s", label="affine M s + b"
        )
        ax.set(
            yscale="log",
            ylim=(floor, 2),
            xlabel="frequency index i",
            ylabel="relative residual",
        )
        ax.legend(loc="lower left")

        def compute(phi):
            return phi, *residuals_at(phi)

        def draw(data):
            phi, lin, aff = data
            linear.set_ydata(np.maximum(lin, floor))
            affine.set_ydata(np.maximum(aff, floor))
            ax.set_title(f"sine only, d = 32, phi = {phi}, t = 0..400, {method}")

        return fig, compute, draw

    def alt(phi):
        lin, aff = residuals_at(phi)
        values = (
            f"Relative residual of the best sine-only shift by {phi} over positions 0 "
            f"to 400, {'fitted in float64' if given is None else 'exact'}, for each "
            "of 16 frequencies on a logarithmic axis: linear maps from "
            f"{lin.min():.2g} to {lin.max():.2g}, affine maps from {aff.min():.2g} "
            f"to {aff.max():.2g}."
        )
        if given is None:
            return (
                f"{values} Both are largest among the fast frequencies 0 to 5 on the "
                "left; to the right the affine residual falls far below the linear one."
            )
        return (
            f"{values} The largest linear residual is at frequency {lin.argmax()}, "
            f"the largest affine one at frequency {aff.argmax()}; at the slowest "
            f"frequency, 15, linear {lin[-1]:.2g} and affine {aff[-1]:.2g}."
        )

    return Explorer(setup, {"phi": ("offset phi", SIN_ONLY_PHIS)}, {"phi": 10}, alt)


def _sin_only_given(residuals: Any) -> dict[int, tuple[np.ndarray, np.ndarray]] | None:
    """The ``residuals`` argument of :func:`sin_only`, checked: None, or a dict from
    each offset of :data:`SIN_ONLY_PHIS` to a pair of arrays of 16 finite residuals
    in [0, 1], returned as float64 arrays."""
    if residuals is None:
        return None
    accepted = (
        f"residuals must be None or a dict from each offset phi in {SIN_ONLY_PHIS} "
        "to a pair (linear, affine) of arrays of 16 finite residuals in [0, 1]"
    )
    if not isinstance(residuals, dict):
        raise TypeError(f"{accepted}, got {_validate.describe(residuals)}")
    keys = list(residuals)
    if any(_validate._is_bool(k) or not isinstance(k, numbers.Integral) for k in keys):
        odd = next(
            k
            for k in keys
            if _validate._is_bool(k) or not isinstance(k, numbers.Integral)
        )
        raise TypeError(f"{accepted}, got the key {_validate.describe(odd)}")
    missing = sorted(set(SIN_ONLY_PHIS) - {int(k) for k in keys})
    extra = [k for k in keys if int(k) not in SIN_ONLY_PHIS]
    if missing or extra:
        found = (
            f"the offsets {missing} are missing"
            if missing
            else f"keys that are not offsets: {len(extra)}, the first "
            f"{_validate.describe(extra[0])}"
        )
        raise ValueError(f"{accepted}; {found}")
    given = {}
    for key, pair in residuals.items():
        if not isinstance(pair, (tuple, list)) or len(pair) != 2:
            raise TypeError(
                f"residuals[{key}] must be a pair (linear, affine) of arrays of 16 "
                f"finite residuals in [0, 1], got {_validate.describe(pair)}"
            )
        arrays = []
        for kind, values in zip(("linear", "affine"), pair, strict=True):
            name = f"residuals[{key}] ({kind})"
            array = _validate.float_array(values, name, ndim=1)
            with np.errstate(over="ignore"):
                array = array.astype(np.float64)
            if array.shape != (16,):
                raise ValueError(
                    f"{name} must hold 16 residuals, one per frequency, got shape "
                    f"{array.shape}"
                )
            if not np.all(np.isfinite(array)):  # finite before, beyond float64 now
                raise ValueError(f"{name} must hold finite residuals, beyond float64")
            if np.any(array < 0) or np.any(array > 1):
                raise ValueError(
                    f"{name} must hold relative residuals between 0 and 1 (a best "
                    "fit is no worse than the zero map), got values from "
                    f"{float(array.min()):.3g} to {float(array.max()):.3g}"
                )
            arrays.append(array + 0.0)  # -0.0 becomes 0.0
        given[int(key)] = (arrays[0], arrays[1])
    return given


#: Every explorer of the book, by chapter.
EXPLORERS = {
    "chapter 1": formula,
    "chapter 3": shift,
    "chapter 4": wavelengths,
    "chapter 5": sin_only,
}


def update_times(explorer: Explorer, repeat: int = 5) -> tuple[float, float]:
    """Best times, in seconds, of the two parts of one update of ``explorer`` at its
    defaults.

    Returns ``(compute, redraw)``: the pelib computation, and drawing the
    figure with its result and encoding the PNG frame.
    """
    if not isinstance(explorer, Explorer):
        raise TypeError(
            f"explorer must be an Explorer, got {_validate.describe(explorer)}"
        )
    repeat = _validate.size(repeat, "repeat", minimum=1, maximum=100)
    compute = redraw = math.inf
    for _ in range(repeat):
        start = time.perf_counter()
        data = explorer.compute(**explorer.defaults)
        middle = time.perf_counter()
        explorer._draw(data)
        to_png(explorer.figure)
        end = time.perf_counter()
        compute, redraw = min(compute, middle - start), min(redraw, end - middle)
    return compute, redraw
