"""Figures of the book, drawn one way everywhere.

Importing this module imports Matplotlib; ``import pelib`` alone does not.
Each function draws on an existing :class:`~matplotlib.axes.Axes` (or a new
one) and returns the axes, so a notebook cell composes them and ends with
``plt.show()``. Chapters 1, 3, 4, 5, 7, 9 and 10 draw with it.

:func:`palette_pngs` makes a notebook's figures lighter: the kernel then stores each
figure as a palette PNG (chapter 4 uses it, to stay under the size limit of a page).
"""

from __future__ import annotations

import io
import warnings

import matplotlib
import matplotlib.pyplot as plt
import numpy as np
from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator
from PIL import Image

from . import _validate

#: Diverging colour map for encoding values, which lie in [-1, 1].
CMAP = "RdBu_r"
#: Default size of a single-panel figure, in inches.
FIGSIZE = (8.0, 4.0)
#: The largest magnitude drawn (Matplotlib's margins around values near the float limit
#: overflow).
LIMIT = 1e300
#: Accepted figure widths and heights, in inches.
FIGSIZE_RANGE = (1.0, 100.0)
SCALES = ("linear", "log")
#: The largest first position of a heatmap (beyond it, neighbouring rows are no longer
#: apart in float64).
POSITION_LIMIT = 2.0**50
#: Colours kept by :func:`palette_pngs` unless told otherwise: 256, the most a palette
#: PNG holds; the book's line plots and colour maps show no visible change.
PALETTE = 256


def axes(ax: Axes | None = None, figsize: tuple[float, float] = FIGSIZE) -> Axes:
    """Return ``ax``, or the axes of a new figure of size ``figsize``.

    Every figure of the book starts here, from chapter 1 (:doc:`/notebooks/01_formula`)
    on.

    Parameters
    ----------
    ax : matplotlib.axes.Axes or None
        Axes to draw on; ``None`` makes a new figure.
    figsize : pair of float, default FIGSIZE
        Width and height of a new figure, each from 1 to 100 inches.
    """
    ax = _axes_argument(ax)
    if not isinstance(figsize, (tuple, list)) or len(figsize) != 2:
        raise TypeError(
            "figsize must be a pair (width, height) of numbers, got "
            f"{_validate.describe(figsize)}"
        )
    low, high = FIGSIZE_RANGE
    size = tuple(
        _validate.real(v, "figsize", minimum=low, maximum=high) for v in figsize
    )
    if ax is None:
        _, ax = plt.subplots(figsize=size, layout="constrained")
    return ax


def _axes_argument(ax) -> Axes | None:
    if ax is not None and not isinstance(ax, Axes):
        raise TypeError(
            f"ax must be Matplotlib Axes or None, got {_validate.describe(ax)}"
        )
    return ax


def _data(value, name: str, ndim: int, *, positive: bool = False) -> np.ndarray:
    """A non-empty finite float64 array of ``ndim`` dimensions whose values can be
    drawn."""
    array = _validate.float_array(value, name, ndim=ndim).astype(np.float64)
    if array.size == 0:
        raise ValueError(f"{name} must not be empty, got shape {array.shape}")
    if np.max(np.abs(array)) > LIMIT:
        raise ValueError(
            f"{name} must hold values of magnitude at most {LIMIT:g} to be drawn"
        )
    if positive and np.min(array) <= 0:
        raise ValueError(
            f"{name} must be positive on a logarithmic axis, got a minimum of "
            f"{np.min(array)!r}"
        )
    return array


def _text(value, name: str, *, optional: bool = False) -> str | None:
    """A string (or None, if ``optional``) that Matplotlib draws without an error or a
    warning."""
    value = _validate.text(value, name, optional=optional)
    if value:
        figure = Figure(figsize=(2, 1))
        FigureCanvasAgg(figure)
        figure.text(0, 0, value)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("error")
                figure.canvas.draw()
        except (ValueError, UserWarning, RuntimeError) as problem:
            message = (
                str(problem).splitlines()[0] if str(problem) else type(problem).__name__
            )
            raise ValueError(
                f"{name} must be text that Matplotlib can draw, got {value!r}: "
                f"{message}"
            ) from None
    return value


def _as_table(table: np.ndarray) -> np.ndarray:
    table = _validate.float_array(table, "table")
    if table.ndim != 2:
        raise ValueError(
            "table must be a 2-D array (positions x dimensions), got shape "
            f"{table.shape}"
        )
    return _data(table, "table", 2)


def heatmap(
    table: np.ndarray,
    ax: Axes | None = None,
    *,
    start: float = 0,
    title: str | None = None,
    colorbar: bool = True,
) -> Axes:
    """Draw an encoding table: positions down, dimensions across, values in [-1, 1].

    Used in chapter 1 (:doc:`/notebooks/01_formula`) and later chapters.

    Parameters
    ----------
    table : numpy.ndarray
        Array of shape ``(n_positions, d_model)``.
    ax : matplotlib.axes.Axes, optional
        Where to draw; a new figure if omitted.
    start : float, default 0
        Position of the first row, for the vertical axis.
    title : str, optional
        Axes title.
    colorbar : bool, default True
        Whether to add a colour bar.

    Returns
    -------
    matplotlib.axes.Axes
    """
    table = _as_table(table)
    start = _validate.real(
        start, "start", minimum=-POSITION_LIMIT, maximum=POSITION_LIMIT
    )
    title = _text(title, "title", optional=True)
    colorbar = _validate.boolean(colorbar, "colorbar")
    ax = axes(ax)
    n, d = table.shape
    image = ax.imshow(
        table,
        cmap=CMAP,
        vmin=-1,
        vmax=1,
        aspect="auto",
        interpolation="nearest",
        extent=(-0.5, d - 0.5, start + n - 0.5, start - 0.5),
    )
    ax.set_xlabel("column")
    ax.set_ylabel("position t")
    if title:
        ax.set_title(title)
    if colorbar:
        ax.figure.colorbar(image, ax=ax, label="value")
    return ax


def columns(
    table: np.ndarray,
    cols: list[int] | tuple[int, ...],
    ax: Axes | None = None,
    *,
    positions: np.ndarray | None = None,
    title: str | None = None,
) -> Axes:
    """Plot selected columns of an encoding table against position.

    Used in chapter 1 (:doc:`/notebooks/01_formula`) and later chapters.

    Parameters
    ----------
    table : numpy.ndarray
        Array of shape ``(n_positions, d_model)``.
    cols : sequence of int
        Column indices to draw, one line each, labelled ``column ...``.
    ax : matplotlib.axes.Axes, optional
        Where to draw; a new figure if omitted.
    positions : numpy.ndarray, optional
        Position of each row, for the horizontal axis; ``0, 1, 2, ...`` if
        omitted.
    title : str, optional
        Axes title.

    Returns
    -------
    matplotlib.axes.Axes
    """
    table = _as_table(table)
    if not isinstance(cols, (list, tuple)) or not cols:
        raise TypeError(
            "cols must be a non-empty list of column indices, got "
            f"{_validate.describe(cols)}"
        )
    for c in cols:
        _validate.size(c, "cols", minimum=0)
        if c >= table.shape[1]:
            raise ValueError(
                f"cols must be column indices of table (0 to {table.shape[1] - 1}), "
                f"got {c}"
            )
    cols = [int(c) for c in cols]
    title = _text(title, "title", optional=True)
    ax = _axes_argument(ax)
    if positions is None:
        positions = np.arange(table.shape[0])
    else:
        positions = _data(positions, "positions", 1)
        if len(positions) != table.shape[0]:
            raise ValueError(
                f"positions must have one entry per row of table ({table.shape[0]}), "
                f"got {len(positions)}"
            )
    ax = axes(ax)
    for col in cols:
        ax.plot(positions, table[:, col], label=f"column {col}")
    ax.set_xlabel("position t")
    ax.set_ylabel("value")
    ax.legend(loc="best", fontsize="small")
    if title:
        ax.set_title(title)
    return ax


def vectors(
    rows: dict[str, np.ndarray], ax: Axes | None = None, *, title: str | None = None
) -> Axes:
    """Plot one or more encoding rows against the dimension, one line each.

    Used in chapter 3 (:doc:`/notebooks/03_shift_property`) to compare a row
    with its shifted counterpart.

    Parameters
    ----------
    rows : dict of str to numpy.ndarray
        Label and 1-D vector of each line.
    ax : matplotlib.axes.Axes, optional
        Where to draw; a new figure if omitted.
    title : str, optional
        Axes title.

    Returns
    -------
    matplotlib.axes.Axes
    """
    if not isinstance(rows, dict) or not rows:
        raise TypeError(
            "rows must be a non-empty dict of label to vector, got "
            f"{_validate.describe(rows)}"
        )
    checked = {}
    for label, row in rows.items():
        _text(label, "rows (a label)")
        row = _validate.float_array(row, f"rows[{label!r}]")
        if row.ndim != 1:
            raise ValueError(
                f"rows[{label!r}] must be a 1-D vector, got shape {row.shape}"
            )
        checked[label] = _data(row, f"rows[{label!r}]", 1)
    title = _text(title, "title", optional=True)
    ax = axes(ax)
    for label, row in checked.items():
        ax.plot(np.arange(len(row)), row, label=label, linewidth=1)
    ax.set_xlabel("column")
    ax.set_ylabel("value")
    ax.legend(loc="best", fontsize="small")
    if title:
        ax.set_title(title)
    return ax


def matrix(
    m: np.ndarray,
    ax: Axes | None = None,
    *,
    title: str | None = None,
    colorbar: bool = True,
) -> Axes:
    """Draw a matrix with a colour scale symmetric about zero, so zeros are white.

    Used in chapter 3 (:doc:`/notebooks/03_shift_property`) for the shift
    matrix and its packed forms.

    Parameters
    ----------
    m : numpy.ndarray
        2-D array.
    ax : matplotlib.axes.Axes, optional
        Where to draw; a new figure if omitted.
    title : str, optional
        Axes title.
    colorbar : bool, default True
        Whether to add a colour bar.

    Returns
    -------
    matplotlib.axes.Axes
    """
    m = _validate.float_array(m, "m")
    if m.ndim != 2:
        raise ValueError(f"m must be a 2-D array, got shape {m.shape}")
    m = _data(m, "m", 2)
    title = _text(title, "title", optional=True)
    colorbar = _validate.boolean(colorbar, "colorbar")
    ax = axes(ax)
    limit = float(np.max(np.abs(m))) or 1.0
    image = ax.imshow(
        m, cmap=CMAP, vmin=-limit, vmax=limit, aspect="auto", interpolation="nearest"
    )
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel("column")
    ax.set_ylabel("row")
    if title:
        ax.set_title(title)
    if colorbar:
        ax.figure.colorbar(image, ax=ax)
    return ax


def lines(
    x: np.ndarray,
    series: dict[str, np.ndarray],
    ax: Axes | None = None,
    *,
    xlabel: str,
    ylabel: str,
    xscale: str = "linear",
    yscale: str = "linear",
    markers: bool = False,
    title: str | None = None,
) -> Axes:
    """Plot one or more series against a common ``x``, one labelled line each.

    Used from chapter 3 (:doc:`/notebooks/03_shift_property`) on, for timings
    on logarithmic axes, wavelengths and dot products.

    Parameters
    ----------
    x : numpy.ndarray
        The common horizontal values.
    series : dict of str to numpy.ndarray
        Label and values (one per ``x``) of each line.
    ax : matplotlib.axes.Axes, optional
        Where to draw; a new figure if omitted.
    xlabel, ylabel : str
        Axis labels, with units.
    xscale, yscale : {"linear", "log"}, default "linear"
        Axis scales.
    markers : bool, default False
        Mark each point, for measurements at a few sizes.
    title : str, optional
        Axes title.

    Returns
    -------
    matplotlib.axes.Axes
    """
    xscale = _validate.choice(xscale, "xscale", SCALES)
    yscale = _validate.choice(yscale, "yscale", SCALES)
    x = _data(x, "x", 1, positive=xscale == "log")
    if not isinstance(series, dict) or not series:
        raise TypeError(
            "series must be a non-empty dict of label to values, got "
            f"{_validate.describe(series)}"
        )
    checked = {}
    for label, values in series.items():
        _text(label, "series (a label)")
        values = _validate.float_array(values, f"series[{label!r}]")
        if values.ndim != 1 or len(values) != len(x):
            raise ValueError(
                f"series[{label!r}] must have one value per x ({len(x)}), got shape "
                f"{values.shape}"
            )
        checked[label] = _data(
            values, f"series[{label!r}]", 1, positive=yscale == "log"
        )
    xlabel = _text(xlabel, "xlabel")
    ylabel = _text(ylabel, "ylabel")
    markers = _validate.boolean(markers, "markers")
    title = _text(title, "title", optional=True)
    ax = axes(ax)
    for label, values in checked.items():
        ax.plot(x, values, marker="o" if markers else None, label=label)
    ax.set_xscale(xscale)
    ax.set_yscale(yscale)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.legend(loc="best", fontsize="small")
    if title:
        ax.set_title(title)
    return ax


def bars(
    values: dict[str, float],
    ax: Axes | None = None,
    *,
    ylabel: str,
    title: str | None = None,
    log: bool = False,
) -> Axes:
    """Horizontal bars, one per labelled value, with the value written beside each bar.

    Used in chapter 10 (:doc:`/notebooks/10_precision_and_speed`) for timings.

    Parameters
    ----------
    values : dict of str to float
        Label and value of each bar, drawn top to bottom.
    ax : matplotlib.axes.Axes, optional
        Where to draw; a new figure if omitted.
    ylabel : str
        Label of the value axis (drawn horizontally).
    title : str, optional
        Axes title.
    log : bool, default False
        Logarithmic value axis.

    Returns
    -------
    matplotlib.axes.Axes
    """
    log = _validate.boolean(log, "log")
    if not isinstance(values, dict) or not values:
        raise TypeError(
            "values must be a non-empty dict of label to number, got "
            f"{_validate.describe(values)}"
        )
    for label, value in values.items():
        _text(label, "values (a label)")
        _validate.real(
            value, f"values[{label!r}]", positive=log, minimum=-LIMIT, maximum=LIMIT
        )
    ylabel = _text(ylabel, "ylabel")
    title = _text(title, "title", optional=True)
    ax = axes(ax)
    labels = list(values)
    heights = [float(values[label]) for label in labels]
    positions = np.arange(len(labels))[::-1]
    ax.barh(positions, heights, color="C0")
    ax.set_yticks(positions, labels)
    if log:
        ax.set_xscale("log")
    for y, value in zip(positions, heights, strict=True):
        ax.annotate(f" {value:.3g}", (value, y), va="center", fontsize="small")
    ax.set_xlabel(ylabel)
    if title:
        ax.set_title(title)
    return ax


def palette_png(fig: Figure, colours: int = PALETTE) -> bytes:
    """Return ``fig`` as the inline backend draws it (the figure's resolution, cropped
    to what is drawn), as an opaque PNG of at most ``colours`` colours: a transparent
    background turns white. On the book's figures it takes a third to a half of the
    bytes of Matplotlib's own PNG."""
    fig = _figure_argument(fig)
    colours = _validate.size(colours, "colours", minimum=2, maximum=PALETTE)
    drawn = io.BytesIO()
    fig.savefig(
        drawn,
        format="png",
        dpi=fig.dpi,
        bbox_inches="tight",
        facecolor=fig.get_facecolor(),
        edgecolor=fig.get_edgecolor(),
    )
    return _quantized_png(Image.open(drawn).convert("RGB"), colours)


def _quantized_png(image: Image.Image, colours: int) -> bytes:
    """Return an RGB ``image`` as an optimized PNG of at most ``colours`` colours (the
    last step of :func:`palette_png` and of ``pelib.explore.to_png``)."""
    light = io.BytesIO()
    image.quantize(colors=colours).save(light, format="png", optimize=True)
    return light.getvalue()


def _figure_argument(fig) -> Figure:
    """``fig`` if it is a Matplotlib Figure, else a TypeError naming the parameter."""
    if not isinstance(fig, Figure):
        raise TypeError(
            f"fig must be a Matplotlib Figure, got {_validate.describe(fig)}"
        )
    return fig


def palette_pngs(colours: int = PALETTE) -> bool:
    """Store the running IPython kernel's figures as palette PNGs (:func:`palette_png`).

    The backend is loaded first, so that the inline backend's own PNG formatter, which
    it sets when it loads, is replaced. Return True, or False (and change nothing)
    outside IPython.
    """
    colours = _validate.size(colours, "colours", minimum=2, maximum=PALETTE)
    try:
        from IPython import get_ipython
    except ImportError:  # pragma: no cover - IPython comes with Jupyter
        return False
    shell = get_ipython()
    if shell is None:
        return False
    # load the backend now (pyplot waits for the first figure): the inline backend sets
    # its own PNG formatter when it loads, which would replace this one
    plt.switch_backend(matplotlib.get_backend())
    formatter = shell.display_formatter.formatters["image/png"]
    formatter.for_type(Figure, lambda fig: _shown(fig, colours))
    return True


def _shown(fig: Figure, colours: int) -> bytes | None:
    """What the kernel stores for ``fig``: nothing for an empty figure, as the inline
    backend does."""
    return palette_png(fig, colours) if fig.axes or fig.lines else None
