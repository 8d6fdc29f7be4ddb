"""pelib.plots draws what it is given, on the book's axes conventions."""

import io
import types

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

from pelib import plots  # noqa: E402


@pytest.fixture(autouse=True)
def close_figures():
    yield
    plt.close("all")


def test_heatmap_shows_the_table_unchanged():
    table = np.linspace(-1, 1, 12).reshape(3, 4)
    ax = plots.heatmap(table, start=10, title="t")
    (image,) = ax.get_images()
    assert np.array_equal(image.get_array(), table)
    assert image.get_clim() == (-1, 1)
    # Row 0 is position 10 at the top, column j is centred on x = j.
    assert image.get_extent() == [-0.5, 3.5, 12.5, 9.5]
    assert ax.get_xlabel() == "column" and ax.get_ylabel() == "position t"
    assert len(ax.figure.axes) == 2  # the colour bar


def test_columns_plots_each_column_against_position():
    table = np.arange(20.0).reshape(5, 4)
    ax = plots.columns(table, [1, 3], positions=np.arange(2, 7))
    lines = ax.get_lines()
    assert [line.get_label() for line in lines] == ["column 1", "column 3"]
    assert lines[0].get_xdata().tolist() == [2, 3, 4, 5, 6]
    assert lines[1].get_ydata().tolist() == [3, 7, 11, 15, 19]


@pytest.mark.parametrize("draw", [plots.heatmap, lambda t: plots.columns(t, [0])])
def test_plots_reject_non_tables(draw):
    with pytest.raises(ValueError, match=r"^table must be a 2-D array"):
        draw(np.zeros(5))


def test_columns_needs_one_position_per_row():
    with pytest.raises(
        ValueError,
        match=r"^positions must have one entry per row of table \(5\), got 4",
    ):
        plots.columns(np.zeros((5, 2)), [0], positions=np.arange(4))
    assert plots.columns(np.zeros((5, 2)), [0]).get_lines()[0].get_xdata().tolist() == [
        0,
        1,
        2,
        3,
        4,
    ]


def test_import_pelib_does_not_import_matplotlib():
    import subprocess
    import sys

    code = (
        "import sys, pelib; pelib.sinusoidal(3, 4); print('matplotlib' in sys.modules)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == "False"


def test_vectors_plots_each_row_against_dimension():
    ax = plots.vectors({"a": np.array([1.0, 2.0, 3.0]), "b": np.zeros(3)})
    lines = ax.get_lines()
    assert [line.get_label() for line in lines] == ["a", "b"]
    assert lines[0].get_xdata().tolist() == [0, 1, 2] and lines[
        0
    ].get_ydata().tolist() == [1, 2, 3]
    with pytest.raises(ValueError, match=r"^rows\['c'\] must be a 1-D vector"):
        plots.vectors({"c": np.zeros((2, 2))})


def test_matrix_colour_scale_is_symmetric():
    m = np.array([[0.0, -2.0], [0.5, 0.0]])
    ax = plots.matrix(m)
    (image,) = ax.get_images()
    assert image.get_clim() == (-2.0, 2.0)
    assert np.array_equal(image.get_array(), m)
    assert plots.matrix(np.zeros((2, 2)), colorbar=False).get_images()[
        0
    ].get_clim() == (-1.0, 1.0)


def test_lines_sets_scales_and_checks_lengths():
    ax = plots.lines(
        np.array([1, 10, 100]),
        {"f": np.array([1e-3, 1e-2, 1e-1])},
        xlabel="n",
        ylabel="s",
        xscale="log",
        yscale="log",
        markers=True,
    )
    assert ax.get_xscale() == "log" and ax.get_yscale() == "log"
    assert ax.get_lines()[0].get_ydata().tolist() == [1e-3, 1e-2, 1e-1]
    assert ax.get_lines()[0].get_marker() == "o"
    assert (
        plots.lines(
            np.arange(2), {"g": np.ones(2)}, xlabel="x", ylabel="y"
        ).get_xscale()
        == "linear"
    )
    with pytest.raises(
        ValueError,
        match=r"^series\['g'\] must have one value per x \(3\), got shape \(2,\)",
    ):
        plots.lines(
            np.array([1, 10, 100]), {"g": np.array([1.0, 2.0])}, xlabel="n", ylabel="s"
        )


def test_bars_draw_one_bar_per_value_top_down():
    ax = plots.bars({"a": 3.0, "b": 1.0}, ylabel="ms")
    patches = ax.patches
    assert [p.get_width() for p in patches] == [3.0, 1.0]
    assert patches[0].get_y() > patches[1].get_y()  # first label on top
    labels = {
        tick: label.get_text()
        for tick, label in zip(ax.get_yticks(), ax.get_yticklabels(), strict=True)
    }
    assert labels == {1: "a", 0: "b"}
    assert plots.bars({"a": 10.0}, ylabel="ms", log=True).get_xscale() == "log"


def _pixels(png):
    from PIL import Image

    image = Image.open(io.BytesIO(png))
    return image.mode, np.asarray(image.convert("RGB"), dtype=float)


def test_palette_png_is_the_inline_figure_in_fewer_colours_and_bytes():
    fig, ax = plt.subplots(figsize=(4, 3))
    x = np.linspace(0, 10, 400)
    for k in range(4):
        ax.plot(x, np.sin(x + k), label=f"line {k}")
    ax.legend()
    full = io.BytesIO()
    fig.savefig(full, format="png", dpi=fig.dpi, bbox_inches="tight")
    mode, light = _pixels(plots.palette_png(fig))
    _, exact = _pixels(full.getvalue())
    assert mode == "P"
    assert light.shape == exact.shape
    # quantizing moves a few antialiased pixels: the mean change is under half a level
    assert np.abs(light - exact).mean() < 0.5
    assert len(plots.palette_png(fig)) < 0.6 * len(full.getvalue())
    assert len(_colours(plots.palette_png(fig, colours=8))) <= 8


def _colours(png):
    from PIL import Image

    return Image.open(io.BytesIO(png)).convert("RGB").getcolors(1 << 24)


def test_palette_pngs_replaces_the_kernels_png_formatter(monkeypatch):
    import IPython
    from IPython.core.formatters import DisplayFormatter

    assert plots.palette_pngs() is False  # no IPython here: nothing changes
    # a stand-in for a kernel's shell, whose display formatter is all the function
    # changes; it loads the current backend (recorded here, not switched)
    shell = types.SimpleNamespace(display_formatter=DisplayFormatter())
    monkeypatch.setattr(IPython, "get_ipython", lambda: shell)
    loaded = []
    monkeypatch.setattr(plt, "switch_backend", loaded.append)
    assert plots.palette_pngs(colours=16) is True
    assert loaded == [matplotlib.get_backend()]
    fig, ax = plt.subplots(figsize=(2, 2))
    ax.plot([0, 1], [1, 0])
    data, _ = shell.display_formatter.format(fig)
    mode, pixels = _pixels(data["image/png"])
    assert mode == "P" and len(np.unique(pixels.reshape(-1, 3), axis=0)) <= 16
    assert "image/png" not in shell.display_formatter.format(plt.figure())[0]


@pytest.mark.parametrize("colours", [1, 257, 2.0, True, None])
def test_palette_colours_are_checked(colours):
    with pytest.raises((TypeError, ValueError), match="colours"):
        plots.palette_pngs(colours=colours)
    with pytest.raises((TypeError, ValueError), match="colours"):
        plots.palette_png(plt.figure(), colours=colours)
