"""Bad input, everywhere: a property of the whole public API of pelib.

Every public function (and method) of ``pelib``, ``pelib.plots``, ``pelib.explore`` and
``pelib.timing`` is called with valid arguments in which exactly one is replaced by an
odd value: integers far beyond the float range, the extremes of float64, ragged lists,
object, complex, boolean, string and empty arrays, ``None``, callables, dictionaries...
Whatever the value, the call either

- returns a result whose every number is finite, without any warning (``pyproject.toml``
  turns warnings into errors), or
- raises ``TypeError`` or ``ValueError`` whose message names the replaced parameter.

Anything else (another exception, a warning, a nan or an infinity in the result) fails.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from hypothesis.extra import numpy as hnp  # noqa: E402
from matplotlib.axes import Axes  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

import pelib  # noqa: E402
from pelib import attention, explore, plots, timing  # noqa: E402


@dataclass
class Case:
    """A public callable with one set of valid arguments, passed by name."""

    name: str
    func: Callable[..., Any]
    kwargs: dict[str, Any]
    #: Parameters that cannot be replaced by keyword (for ``*args``-style signatures,
    #: none here).
    skip: tuple[str, ...] = field(default_factory=tuple)


def _figure():
    fig = plt.figure(figsize=(2, 2))
    return fig


def _explorer_setup():
    fig = Figure(figsize=(1, 1), dpi=16)
    ax = fig.add_subplot()
    (line,) = ax.plot([0, 1], [0, 1])

    def compute(a):
        return a

    def draw(a):
        line.set_ydata([0, a])

    return fig, compute, draw


def _tiny_explorer():
    return explore.Explorer(
        _explorer_setup, {"a": ("a", [1, 2])}, {"a": 1}, lambda a: f"a line up to {a}"
    )


TABLE = pelib.sinusoidal(6, 8)
ROWS = np.random.default_rng(0).normal(size=(3, 8))
IDENTIFIED = pelib.identify(pelib.sinusoidal(10, 8, start=3))
MODEL = attention.train(
    attention.copy_back(2, vocab=5),
    "learned",
    steps=2,
    d_model=4,
    batch=2,
    length=8,
    max_length=16,
)
TASK = attention.previous_occurrence(keys=3, values=4)

CASES = [
    Case("frequencies", pelib.frequencies, dict(d_model=8, base=10000.0)),
    # tolerance 1e-3: an odd dtype that means float64 (such as "d") stays fast there
    # (see angle_limit's Notes)
    Case(
        "angle_limit",
        pelib.angle_limit,
        dict(d_model=8, dtype=np.float16, tolerance=1e-3, base=10000.0, pair=None),
    ),
    Case("at_most", pelib.at_most, dict(value=[1e-16, -2e-16], bound=5e-16)),
    Case(
        "rounded",
        pelib.rounded,
        dict(value=0.153385, decimals=3, slack=1e-12, direction="up"),
    ),
    Case("shown", pelib.shown, dict(value=2.671201608, spec=".4f", slack=1e-12)),
    Case("wavelengths", pelib.wavelengths, dict(d_model=8, base=10000.0)),
    Case(
        "sinusoidal",
        pelib.sinusoidal,
        dict(
            n_positions=5,
            d_model=8,
            base=10000.0,
            start=3,
            layout="concat",
            dtype=np.float32,
        ),
    ),
    Case(
        "encode",
        pelib.encode,
        dict(
            positions=[0, 1.5, 7],
            d_model=7,
            base=100.0,
            layout="interleaved",
            dtype=np.float64,
        ),
    ),
    Case(
        "sinusoidal_direct",
        pelib.sinusoidal_direct,
        dict(n_positions=5, d_model=8, base=10000.0, start=2, dtype=np.float32),
    ),
    Case(
        "sincos_2d",
        pelib.sincos_2d,
        dict(
            embed_dim=8,
            grid_size=(2, 3),
            extra_tokens=1,
            base_size=4.0,
            interpolation_scale=1.5,
        ),
    ),
    Case(
        "sincos_3d",
        pelib.sincos_3d,
        dict(
            embed_dim=16,
            spatial_size=(3, 2),
            temporal_size=2,
            spatial_interpolation_scale=1.5,
            temporal_interpolation_scale=0.5,
        ),
    ),
    Case(
        "timestep_embedding",
        pelib.timestep_embedding,
        dict(
            timesteps=[0, 1.5, 999],
            embedding_dim=7,
            flip_sin_to_cos=True,
            downscale_freq_shift=1.0,
            scale=2.0,
            max_period=10000.0,
        ),
    ),
    Case(
        "timing_signal",
        pelib.timing_signal,
        dict(
            length=4, channels=7, min_timescale=1.0, max_timescale=1.0e4, start_index=2
        ),
    ),
    Case(
        "relative_dot",
        pelib.relative_dot,
        dict(offsets=[0, 1, 10], d_model=8, base=10000.0),
    ),
    Case(
        "rope_cosine_sum",
        pelib.rope_cosine_sum,
        dict(m=[0, 1, 10], dim=16, base=10000.0),
    ),
    Case(
        "first_negative",
        pelib.first_negative,
        dict(base=10000.0, dim=16, length=64),
    ),
    Case("smallest_base", pelib.smallest_base, dict(length=64, dim=16)),
    Case(
        "offset_distance",
        pelib.offset_distance,
        dict(offsets=[0, 1, 10], d_model=8, base=10000.0),
    ),
    Case(
        "fit_linear_map",
        pelib.fit_linear_map,
        dict(source=ROWS, target=ROWS[:, :3], affine=True),
    ),
    Case(
        "apply_rope",
        pelib.apply_rope,
        dict(
            x=ROWS,
            positions=[0, 1, 2],
            base=10000.0,
            layout="half",
            attention_factor=1.25,
        ),
    ),
    Case(
        "apply_rope[frequencies]",
        pelib.apply_rope,
        dict(
            x=ROWS,
            positions=[0, 1, 2],
            frequencies=[1.0, 0.1, 0.01, 0.001],
            layout="interleaved",
            attention_factor=1.25,
        ),
    ),
    Case(
        "rope_scaling",
        pelib.rope_scaling,
        dict(
            d=8,
            method="yarn",
            base=10000.0,
            factor=4.0,
            original_context=2048,
            beta_fast=32.0,
            beta_slow=1.0,
            truncate=False,
            mscale=0.707,
            mscale_all_dim=0.5,
            attention_factor=None,
        ),
    ),
    Case(
        "rope_scaling[dynamic]",
        pelib.rope_scaling,
        dict(
            d=8,
            method="dynamic",
            base=500.0,
            factor=2.0,
            original_context=1024,
            context=3000,
        ),
    ),
    Case(
        "rope_scaling[llama3]",
        pelib.rope_scaling,
        dict(
            d=16,
            method="llama3",
            base=500000.0,
            factor=8.0,
            original_context=8192,
            low_freq_factor=1.0,
            high_freq_factor=4.0,
        ),
    ),
    Case(
        "rope_scaling[linear]",
        pelib.rope_scaling,
        dict(d=8, method="linear", base=10000.0, factor=3.0),
    ),
    Case("rope_permutation", pelib.rope_permutation, dict(d=8)),
    Case(
        "position_ids",
        pelib.position_ids,
        dict(
            attention_mask=[[0, 1, 1], [1, 1, 1]],
            convention="fairseq",
            cache_length=1,
            documents=None,
            padding_idx=1,
        ),
    ),
    Case(
        "position_ids[documents]",
        pelib.position_ids,
        dict(
            attention_mask=np.ones((2, 3), dtype=int),
            convention="opt",
            cache_length=1,
            documents=[[1, 2], [3]],
            padding_idx=1,
        ),
    ),
    Case(
        "rotary_layers",
        pelib.rotary_layers,
        dict(
            config={
                "head_dim": 8,
                "num_hidden_layers": 6,
                "max_position_embeddings": 256,
                "rope_theta": 1e6,
                "rope_local_base_freq": 1e4,
                "sliding_window_pattern": 3,
                "partial_rotary_factor": 0.5,
                "no_rope_layers": [1, 1, 1, 1, 1, 0],
                "rope_scaling": {
                    "rope_type": "yarn",
                    "factor": 4.0,
                    "original_max_position_embeddings": 64,
                    "mrope_section": [1, 0, 1],
                },
            }
        ),
    ),
    Case(
        "convert_rope_weights",
        pelib.convert_rope_weights,
        dict(w=np.ones((8, 3)), n_heads=2, head_dim=4, to="half", rotary_dim=2),
    ),
    Case("identify", pelib.identify, dict(table=pelib.sinusoidal(10, 8, start=3))),
    Case("Identification.table", None, dict(n_positions=5)),
    Case("shift_matrix", pelib.shift_matrix, dict(phi=2.5, d_model=8, base=10000.0)),
    Case(
        "packed_matrices", pelib.packed_matrices, dict(phi=2.5, d_model=8, base=10000.0)
    ),
    Case("swap_vectors", pelib.swap_vectors, dict(phi=2.5, d_model=8, base=10000.0)),
    *[
        Case(f.__name__, f, dict(pe=TABLE, phi=3.0, base=10000.0))
        for f in (
            pelib.shift,
            pelib.shift_loop,
            pelib.shift_matmul,
            pelib.shift_packed,
            pelib.shift_swap,
        )
    ],
    Case(
        "attention.softmax",
        attention.softmax,
        dict(x=np.arange(6.0).reshape(2, 3), axis=0),
    ),
    Case(
        "attention.scores",
        attention.scores,
        dict(q=np.ones((3, 4)), k=np.ones((2, 4)), scale=0.5),
    ),
    Case(
        "attention.head",
        attention.head,
        dict(
            x=ROWS,
            w_q=np.ones((8, 4)),
            w_k=np.ones((8, 4)),
            w_v=np.ones((8, 2)),
            positions=[0.0, 1.0, 5.0],
            rope=True,
            base=100.0,
            frequencies=None,
            causal=True,
            scale=0.5,
        ),
    ),
    Case(
        "attention.head[frequencies]",
        attention.head,
        dict(
            x=ROWS,
            w_q=np.ones((8, 4)),
            w_k=np.ones((8, 4)),
            rope=True,
            frequencies=[1.0, 0.1],
            causal=False,
        ),
    ),
    Case(
        "attention.relative_head",
        attention.relative_head,
        dict(d_model=8, offset=3, pairs=[0, 2], sharpness=4.0, base=10000.0),
    ),
    Case(
        "attention.block_rotations",
        attention.block_rotations,
        dict(matrix=np.arange(16.0).reshape(4, 4)),
    ),
    Case("attention.copy_back", attention.copy_back, dict(lag=2, vocab=5)),
    Case(
        "attention.previous_occurrence",
        attention.previous_occurrence,
        dict(keys=3, values=4),
    ),
    Case(
        "attention.train",
        attention.train,
        dict(
            task=attention.copy_back(1, vocab=4),
            encoding="rope",
            steps=2,
            seed=1,
            d_model=4,
            d_k=2,
            batch=2,
            length=6,
            learning_rate=0.01,
            max_length=8,
            base=100.0,
            max_offset=1,
        ),
    ),
    Case("Task.sample", TASK.sample, dict(batch=2, length=6, seed=3)),
    Case("Model.forward", MODEL.forward, dict(tokens=[[0, 1, 2, 4]])),
    Case("Model.evaluate", MODEL.evaluate, dict(length=12, seed=2, batch=2, start=3)),
    Case("plots.axes", plots.axes, dict(ax=None, figsize=(4.0, 3.0))),
    Case(
        "plots.heatmap",
        plots.heatmap,
        dict(table=TABLE, ax=None, start=2, title="t", colorbar=False),
    ),
    Case(
        "plots.columns",
        plots.columns,
        dict(table=TABLE, cols=[0, 3], ax=None, positions=np.arange(6), title="t"),
    ),
    Case(
        "plots.vectors", plots.vectors, dict(rows={"a": TABLE[0]}, ax=None, title="t")
    ),
    Case(
        "plots.matrix", plots.matrix, dict(m=TABLE, ax=None, title="t", colorbar=False)
    ),
    Case(
        "plots.lines",
        plots.lines,
        dict(
            x=np.arange(1, 7),
            series={"a": TABLE[:, 1] + 2},
            ax=None,
            xlabel="x",
            ylabel="y",
            xscale="log",
            yscale="log",
            markers=True,
            title="t",
        ),
    ),
    Case(
        "plots.bars",
        plots.bars,
        dict(values={"a": 1.0, "b": 2.5}, ax=None, ylabel="ms", title="t", log=True),
    ),
    Case(
        "plots.palette_png", plots.palette_png, dict(fig=None, colours=16)
    ),  # fig: the test
    Case("plots.palette_pngs", plots.palette_pngs, dict(colours=16)),
    Case(
        "timing.best_time", timing.best_time, dict(func=int, repeat=1, min_seconds=0.0)
    ),
    Case(
        "explore.sin_only_residuals",
        explore.sin_only_residuals,
        dict(phi=3.0, d_model=8, window=20, affine=True),
    ),
    Case("explore.to_png", explore.to_png, dict(fig=None)),  # fig filled in by the test
]

# Functions whose valid call draws frames; they get fewer examples.
SLOW_CASES = [
    Case(
        "explore.shift", explore.shift, dict(d_model=8, n_positions=8, pair=1, shown=3)
    ),
    Case(
        "explore.Explorer",
        explore.Explorer,
        dict(
            setup=_explorer_setup,
            controls={"a": ("a", [1, 2])},
            defaults={"a": 1},
            alt=lambda a: "a line",
        ),
    ),
    Case(
        "explore.sin_only",
        explore.sin_only,
        dict(
            residuals={
                phi: (np.full(16, 0.5), np.full(16, 0.25))
                for phi in explore.SIN_ONLY_PHIS
            }
        ),
    ),
    Case("explore.update_times", explore.update_times, dict(explorer=None, repeat=1)),
    Case("Explorer.frame", None, dict(a=2)),
    Case("Explorer.html", None, dict(a=2)),
]

HUGE_INTEGERS = [10**400, -(10**400), 2**63, 2**64, -(2**63) - 1, 10**20]
EXTREME_FLOATS = [
    1e308,
    -1e308,
    1.7976931348623157e308,
    5e-324,
    -5e-324,
    0.0,
    -0.0,
    math.nan,
    math.inf,
    -math.inf,
]
NUMPY_SCALARS = [
    np.float16(65504),
    np.float32(3.4e38),
    np.float64(1e308),
    np.longdouble(10) ** 4000,
    np.int64(-(2**63)),
    np.uint64(2**64 - 1),
    np.bool_(True),
    np.complex128(1j),
    np.str_("8"),
    np.datetime64("2026-01-01"),
    np.float64(math.nan),
]
OTHERS = [
    None,
    True,
    False,
    "",
    "8",
    "interleaved",
    "half",
    b"8",
    1j,
    complex(1e308, 1e308),
    [],
    [[]],
    [[1.0, 2.0], [3.0]],
    [1, [2, 3]],
    [None, 1],
    ["a", "b"],
    (),
    {},
    {"a": 1},
    {1: np.ones(3)},
    object(),
    print,
    Ellipsis,
    slice(1, 2),
    range(3),
    {1, 2},
    frozenset(),
    np.float64,
    np.int8,
    float,
    "float128",
    "datetime64",
    "a",  # a dtype alias that NumPy 2 deprecates: np.dtype("a") warns
    np.dtype("V8"),
    np.dtype("S3"),
]
ARRAYS = [
    np.array([]),
    np.empty((0, 0)),
    np.empty((0, 8)),
    np.empty((3, 0)),
    np.array(3.0),
    np.array(1e308),
    np.array([1, "a"], dtype=object),
    np.array([None, None]),
    np.array([10**400], dtype=object),
    np.array([1j, 2j]),
    np.array([True, False]),
    np.array(["a", "b"]),
    np.ones((2, 3, 4)),
    np.full((3, 8), np.nan),
    np.full((3, 8), np.inf),
    np.full((3, 8), 1e308),
    np.full((3, 8), 5e-324),
    np.full((3, 8), 60000, dtype=np.float16),
    np.ones((3, 8), dtype=np.longdouble),
    np.array([2**62, -(2**62)], dtype=np.int64),
    np.arange(8, dtype=np.uint8),
]

odd_values = st.one_of(
    st.sampled_from(HUGE_INTEGERS + EXTREME_FLOATS + NUMPY_SCALARS + OTHERS + ARRAYS),
    st.integers(-3, 3),
    st.integers(min_value=2**62) | st.integers(max_value=-(2**62)),
    st.floats(allow_nan=True, allow_infinity=True, allow_subnormal=True),
    st.complex_numbers(),
    st.text(max_size=5),
    st.lists(st.floats(allow_nan=True, allow_infinity=True), max_size=4),
    st.lists(st.lists(st.integers(-5, 5), max_size=3), max_size=3),  # ragged, usually
    hnp.arrays(
        dtype=st.sampled_from(
            [np.float16, np.float32, np.float64, np.int32, np.bool_, np.complex64]
        ),
        shape=hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=4),
    ),
)


def _check_finite(result, where="result"):
    """Every number in ``result`` is finite (recursively through tuples, lists and
    dicts)."""
    if (
        isinstance(result, (Axes, Figure, explore.Explorer, bytes, str))
        or result is None
    ):
        return
    if isinstance(result, pelib.Identification):
        _check_finite(
            [result.base, result.offset, result.max_error, result.table(3)], where
        )
        return
    if dataclasses.is_dataclass(result) and not isinstance(result, type):
        # such as pelib.RotaryLayer: every field
        fields = dataclasses.fields(result)
        _check_finite([getattr(result, f.name) for f in fields], where)
        return
    if isinstance(result, dict):
        for key, value in result.items():
            _check_finite(value, f"{where}[{key!r}]")
        return
    if isinstance(result, (tuple, list)):
        for i, value in enumerate(result):
            _check_finite(value, f"{where}[{i}]")
        return
    array = np.asarray(result)
    assert array.dtype.kind in "biufc", f"{where} has dtype {array.dtype}"
    assert np.all(np.isfinite(array)), f"{where} holds nan or infinity"


def _call(case: Case, name: str, value, explorer=None):
    kwargs = dict(case.kwargs)
    if case.name in ("explore.to_png", "plots.palette_png"):
        kwargs["fig"] = _figure()
    if case.name == "explore.update_times":
        kwargs["explorer"] = explorer
    kwargs[name] = value
    if case.name.startswith("Explorer."):
        return getattr(explorer, case.name.split(".")[1])(**kwargs)
    if case.name.startswith("Identification."):
        return getattr(IDENTIFIED, case.name.split(".")[1])(**kwargs)
    return case.func(**kwargs)


def _check(case: Case, name: str, value, explorer=None):
    try:
        result = _call(case, name, value, explorer)
    except (TypeError, ValueError) as error:
        message = str(error)
        assert name in message, (
            f"{case.name}({name}={value!r}) raised {type(error).__name__} "
            f"not naming it: {message}"
        )
        return
    else:
        if isinstance(result, Axes):
            result.figure.canvas.draw()  # drawing raises no warning either
        _check_finite(result, f"{case.name}({name}={value!r})")
    finally:
        plt.close("all")


def _parameters(cases):
    return [
        (case, name) for case in cases for name in case.kwargs if name not in case.skip
    ]


@pytest.mark.parametrize(
    ("case", "name"),
    _parameters(CASES),
    ids=lambda x: x.name if isinstance(x, Case) else x,
)
@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(value=odd_values)
def test_odd_value_is_returned_finite_or_refused_by_name(case, name, value):
    _check(case, name, value)


@pytest.fixture(scope="module")
def tiny_explorer():
    return _tiny_explorer()


@pytest.mark.parametrize(
    ("case", "name"),
    _parameters(SLOW_CASES),
    ids=lambda x: x.name if isinstance(x, Case) else x,
)
@settings(
    max_examples=15,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(value=odd_values)
def test_odd_value_for_explorers(case, name, value, tiny_explorer):
    _check(case, name, value, explorer=tiny_explorer)


@pytest.mark.parametrize("case", CASES + SLOW_CASES, ids=lambda c: c.name)
def test_the_valid_call_of_each_case_works(case, tiny_explorer):
    # The property above is only meaningful if the unmodified call succeeds.
    name = next(iter(case.kwargs))
    value = case.kwargs[name]
    if case.name in ("explore.to_png", "plots.palette_png"):
        value = _figure()
    if case.name == "explore.update_times":
        value = tiny_explorer
    _check_finite(_call(case, name, value, tiny_explorer))
    plt.close("all")


def test_every_public_function_has_a_case():
    covered = {case.name for case in CASES + SLOW_CASES}
    public = {
        name
        for name in pelib.__all__
        if callable(getattr(pelib, name)) and name[0].islower()
    }
    public |= {
        f"plots.{n}"
        for n in dir(plots)
        if not n.startswith("_")
        and callable(getattr(plots, n))
        and getattr(getattr(plots, n), "__module__", "") == plots.__name__
    }
    public |= {
        f"explore.{n}"
        for n in dir(explore)
        if not n.startswith("_")
        and callable(getattr(explore, n))
        and getattr(getattr(explore, n), "__module__", "") == explore.__name__
    }
    public |= {
        f"attention.{n}"
        for n in dir(attention)
        if not n.startswith("_")
        and callable(getattr(attention, n))
        and getattr(getattr(attention, n), "__module__", "") == attention.__name__
        and not isinstance(getattr(attention, n), type)
    }
    public |= {
        "timing.best_time",
        "Explorer.frame",
        "Explorer.html",
        "Identification.table",
        "Task.sample",
        "Model.forward",
        "Model.evaluate",
    }
    public -= {
        "explore.formula",
        "explore.wavelengths",
    }  # no parameters to replace
    assert public <= covered, sorted(public - covered)


BEYOND_STR = 10**5000  # more digits than str() converts (4,300): no message may try


@pytest.mark.parametrize("sign", [1, -1])
@pytest.mark.parametrize(
    ("case", "name"),
    _parameters(CASES + SLOW_CASES),
    ids=lambda x: x.name if isinstance(x, Case) else x,
)
def test_integers_beyond_str_are_refused_by_name(case, name, sign, tiny_explorer):
    try:
        result = _call(case, name, sign * BEYOND_STR, tiny_explorer)
    except (TypeError, ValueError) as error:
        assert name in str(error), f"{case.name}({name}=10**5000): {error}"
        return
    finally:
        plt.close("all")
    _check_finite(result, f"{case.name}({name}=10**5000)")


def test_deprecated_dtype_alias_is_refused_by_name():
    # np.dtype("a") warns in NumPy 2 (a deprecated alias of "S"): pelib refuses it with
    # a TypeError naming the parameter, and lets no DeprecationWarning through
    with pytest.raises(TypeError, match="^dtype must be a NumPy floating dtype"):
        pelib.encode([0, 1], 8, dtype="a")
