"""Figures of the book, drawn one way everywhere.

Importing this module imports Matplotlib; ``import pelib`` alone does not.
Each function draws on an existing :class:`~matplotlib.axes.Axes` (or a new
one) and returns the axes, so a notebook cell composes them and ends with
``plt.show()``.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.axes import Axes
from matplotlib.ticker import MaxNLocator

#: Diverging colour map for encoding values, which lie in [-1, 1].
CMAP = "RdBu_r"
#: Default size of a single-panel figure, in inches.
FIGSIZE = (8.0, 4.0)


def axes(ax: Axes | None = None, figsize: tuple[float, float] = FIGSIZE) -> Axes:
    """Return ``ax``, or the axes of a new figure of size ``figsize``.

    Every figure of the book starts here, from chapter 1 (:doc:`/notebooks/01_formula`) on.
    """
    if ax is None:
        _, ax = plt.subplots(figsize=figsize, layout="constrained")
    return ax


def _as_table(table: np.ndarray) -> np.ndarray:
    table = np.asarray(table)
    if table.ndim != 2:
        raise ValueError(f"table must be a 2-D array (positions x dimensions), got shape {table.shape}")
    return table


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
    ax = axes(ax)
    n, d = table.shape
    image = ax.imshow(
        table, cmap=CMAP, vmin=-1, vmax=1, aspect="auto", interpolation="nearest",
        extent=(-0.5, d - 0.5, start + n - 0.5, start - 0.5),
    )
    ax.set_xlabel("dimension (column)")
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
    ax = axes(ax)
    if positions is None:
        positions = np.arange(table.shape[0])
    elif len(positions) != table.shape[0]:
        raise ValueError(f"positions must have one entry per row ({table.shape[0]}), got {len(positions)}")
    for col in cols:
        ax.plot(positions, table[:, col], label=f"column {col}")
    ax.set_xlabel("position t")
    ax.set_ylabel("value")
    ax.legend(loc="best", fontsize="small")
    if title:
        ax.set_title(title)
    return ax


def vectors(rows: dict[str, np.ndarray], ax: Axes | None = None, *, title: str | None = None) -> Axes:
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
    ax = axes(ax)
    for label, row in rows.items():
        row = np.asarray(row)
        if row.ndim != 1:
            raise ValueError(f"rows[{label!r}] must be a 1-D vector, got shape {row.shape}")
        ax.plot(np.arange(len(row)), row, label=label, linewidth=1)
    ax.set_xlabel("dimension (column)")
    ax.set_ylabel("value")
    ax.legend(loc="best", fontsize="small")
    if title:
        ax.set_title(title)
    return ax


def matrix(m: np.ndarray, ax: Axes | None = None, *, title: str | None = None, colorbar: bool = True) -> Axes:
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
    m = _as_table(m)
    ax = axes(ax)
    limit = float(np.max(np.abs(m))) or 1.0
    image = ax.imshow(m, cmap=CMAP, vmin=-limit, vmax=limit, aspect="auto", interpolation="nearest")
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
    ax = axes(ax)
    for label, values in series.items():
        if len(values) != len(x):
            raise ValueError(f"series[{label!r}] must have one value per x ({len(x)}), got {len(values)}")
        ax.plot(x, values, marker="o" if markers else None, label=label)
    ax.set_xscale(xscale)
    ax.set_yscale(yscale)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.legend(loc="best", fontsize="small")
    if title:
        ax.set_title(title)
    return ax


def bars(values: dict[str, float], ax: Axes | None = None, *, ylabel: str, title: str | None = None,
         log: bool = False) -> Axes:
    """Horizontal bars, one per labelled value, with the value written beside each bar.

    Used in chapter 7 (:doc:`/notebooks/07_precision_and_speed`) for timings.

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
    ax = axes(ax)
    labels = list(values)
    heights = [float(values[label]) for label in labels]
    positions = np.arange(len(labels))[::-1]
    ax.barh(positions, heights, color="C0")
    ax.set_yticks(positions, labels)
    if log:
        ax.set_xscale("log")
    for y, value in zip(positions, heights):
        ax.annotate(f" {value:.3g}", (value, y), va="center", fontsize="small")
    ax.set_xlabel(ylabel)
    if title:
        ax.set_title(title)
    return ax
