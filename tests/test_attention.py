"""One attention head, the head built from T(phi), and the tiny trainer (chapter 6).

Truth: attention written out in plain Python loops (math.exp, sums over entries), the
exact encoding and frequencies of the oracle (mpmath), rotations written out with
math.cos and math.sin, finite differences of the loss for the hand-written gradients,
and the tasks' definitions evaluated position by position.
"""

import math

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import oracle
from pelib import attention

# --- plain-loop attention -------------------------------------------------------------


def plain_softmax(row):
    top = max(row)
    exps = [math.exp(v - top) if v != -math.inf else 0.0 for v in row]
    total = sum(exps)
    return [e / total for e in exps]


def matmul(a, b):
    return [
        [sum(a[i][k] * b[k][j] for k in range(len(b))) for j in range(len(b[0]))]
        for i in range(len(a))
    ]


def rotate_row(row, position, frequencies):
    """Interleaved pairs of ``row`` turned counter-clockwise by position * w_i, with
    math.cos/math.sin."""
    out = list(row)
    for i, w in enumerate(frequencies):
        a, b = row[2 * i], row[2 * i + 1]
        c, s = math.cos(position * w), math.sin(position * w)
        out[2 * i], out[2 * i + 1] = a * c - b * s, a * s + b * c
    return out


def plain_head(x, w_q, w_k, w_v, causal, scale, rope_frequencies=None):
    """Scores, weights and output of one head on the rows of x (lists), entry by
    entry."""
    q, k = matmul(x, w_q), matmul(x, w_k)
    if rope_frequencies is not None:
        q = [rotate_row(r, t, rope_frequencies) for t, r in enumerate(q)]
        k = [rotate_row(r, t, rope_frequencies) for t, r in enumerate(k)]
    v = x if w_v is None else matmul(x, w_v)
    n = len(x)
    s = [
        [scale * sum(a * b for a, b in zip(q[t], k[u], strict=True)) for u in range(n)]
        for t in range(n)
    ]
    weights = [
        plain_softmax(
            [s[t][u] if (u <= t or not causal) else -math.inf for u in range(n)]
        )
        for t in range(n)
    ]
    out = [
        [sum(weights[t][u] * v[u][j] for u in range(n)) for j in range(len(v[0]))]
        for t in range(n)
    ]
    return s, weights, out


def test_softmax_matches_the_formula_and_is_stable():
    x = np.random.default_rng(0).normal(size=(4, 7)) * 30
    got = attention.softmax(x)
    for row_in, row_out in zip(x, got, strict=True):
        assert row_out.tolist() == pytest.approx(
            plain_softmax(row_in.tolist()), rel=1e-13, abs=1e-300
        )
    along_rows = attention.softmax(x, axis=0)
    for j in range(x.shape[1]):
        assert along_rows[:, j].tolist() == pytest.approx(
            plain_softmax(x[:, j].tolist()), rel=1e-13, abs=1e-300
        )
    # entries 1e308 apart: exp of the others underflows to 0 without a warning (warnings
    # are errors here)
    assert attention.softmax([1e308, -1e308, 0.0]).tolist() == [1.0, 0.0, 0.0]


def test_scores_match_the_dot_products():
    rng = np.random.default_rng(1)
    q, k = rng.normal(size=(2, 5, 6)), rng.normal(size=(2, 4, 6))
    got = attention.scores(q, k)
    for b in range(2):
        for t in range(5):
            for u in range(4):
                expected = sum(q[b, t, j] * k[b, u, j] for j in range(6)) / math.sqrt(6)
                assert got[b, t, u] == pytest.approx(expected, rel=1e-13, abs=1e-14)
    assert attention.scores(q, k, scale=2.0)[1, 2, 3] == pytest.approx(
        2 * math.sqrt(6) * got[1, 2, 3], rel=1e-14
    )


@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("values", [False, True])
@pytest.mark.parametrize("rope", [False, True])
def test_head_matches_plain_loops(causal, values, rope):
    rng = np.random.default_rng(2)
    n, d_model, d_k = 6, 5, 4
    x, w_q, w_k = (
        rng.normal(size=(n, d_model)),
        rng.normal(size=(d_model, d_k)),
        rng.normal(size=(d_model, d_k)),
    )
    w_v = rng.normal(size=(d_model, 3)) if values else None
    frequencies = [10000.0 ** (-2 * i / d_k) for i in range(d_k // 2)] if rope else None
    got = attention.head(x, w_q, w_k, w_v, causal=causal, rope=rope)
    s, weights, out = plain_head(
        x.tolist(),
        w_q.tolist(),
        w_k.tolist(),
        None if w_v is None else w_v.tolist(),
        causal,
        1 / math.sqrt(d_k),
        frequencies,
    )
    assert np.allclose(got.scores, s, rtol=1e-12, atol=1e-13)
    assert np.allclose(got.weights, weights, rtol=1e-12, atol=1e-15)
    assert np.allclose(got.output, out, rtol=1e-12, atol=1e-13)
    if causal:
        assert np.all(got.weights[np.triu_indices(n, 1)] == 0.0)


def test_head_keeps_leading_axes():
    rng = np.random.default_rng(3)
    x = rng.normal(size=(2, 3, 5, 4))
    w = rng.normal(size=(4, 4))
    batched = attention.head(x, w, w.T, causal=True)
    single = attention.head(x[1, 2], w, w.T, causal=True)
    assert batched.output.shape == (2, 3, 5, 4)
    assert np.allclose(batched.output[1, 2], single.output, rtol=1e-13, atol=1e-14)


# --- the head built from T(phi), against the exact encoding ---------------------------


@pytest.mark.parametrize(
    ("d_model", "offset", "pairs"),
    [
        (16, 3, None),
        (16, -2, [0, 5]),
        (32, 7, [3, 0, 9, 15]),
        (64, 2.5, list(range(0, 32, 3))),
        (8, 0, [1]),
    ],
)
def test_relative_head_scores_are_the_cosine_sum(d_model, offset, pairs):
    n, sharpness = 24, 5.0
    pe = oracle.encoding(range(n), d_model)  # exact, rounded once
    w_q, w_k = attention.relative_head(
        d_model, offset, pairs=pairs, sharpness=sharpness
    )
    got = attention.scores(pe @ w_q, pe @ w_k)
    chosen = range(d_model // 2) if pairs is None else pairs
    with mpmath.workdps(30):
        omega = [oracle.frequency(i, d_model) for i in chosen]
        for t in range(0, n, 5):
            for s in range(n):
                exact = (
                    sharpness
                    * mpmath.fsum(mpmath.cos(w * (t - offset - s)) for w in omega)
                    / len(omega)
                )
                # entries of size <= 1, d_k-term dot products, weights within a few
                # ulps: 1e-13 is ample
                assert abs(got[t, s] - float(exact)) <= 1e-13 * sharpness


def test_relative_head_attends_offset_back_at_integer_positions():
    pe = oracle.encoding(range(80), 32)
    w_q, w_k = attention.relative_head(32, 5, pairs=[0, 2, 4, 6], sharpness=40.0)
    h = attention.head(pe, w_q, w_k, causal=True)
    t = np.arange(5, 80)
    assert np.array_equal(h.weights[t].argmax(axis=1), t - 5)
    assert np.allclose(h.scores[t, t - 5], 40.0, rtol=0, atol=1e-12)


def test_relative_head_is_t_phi_on_the_chosen_pairs():
    # W_Q W_K^T restricted to the chosen pairs is c T(phi), T written out with
    # math.cos/math.sin
    d_model, offset, pairs = 12, 1.5, [4, 1]
    w_q, w_k = attention.relative_head(d_model, offset, pairs=pairs, sharpness=2.0)
    m = w_q @ w_k.T
    c = 2.0 * math.sqrt(4) / 2
    for i in range(d_model // 2):
        block = m[2 * i : 2 * i + 2, 2 * i : 2 * i + 2]
        angle = offset * float(oracle.frequency(i, d_model))
        expected = c * np.array(
            [[math.cos(angle), math.sin(angle)], [-math.sin(angle), math.cos(angle)]]
        )
        assert np.allclose(block, expected if i in pairs else 0.0, rtol=0, atol=1e-15)
    off_diagonal = m.copy()
    for i in range(d_model // 2):
        off_diagonal[2 * i : 2 * i + 2, 2 * i : 2 * i + 2] = 0
    assert not off_diagonal.any()


def test_block_rotations_of_the_built_head():
    d_model, offset = 16, 3
    w_q, w_k = attention.relative_head(
        d_model, offset, pairs=[0, 1, 2, 6], sharpness=1.0
    )
    r = attention.block_rotations(w_q @ w_k.T)
    assert r.share == pytest.approx(1.0, abs=1e-15)
    for i in [0, 1, 2, 6]:
        with mpmath.workdps(30):
            exact = float(
                mpmath.atan2(
                    mpmath.sin(offset * oracle.frequency(i, d_model)),
                    mpmath.cos(offset * oracle.frequency(i, d_model)),
                )
            )
        assert r.angles[i] == pytest.approx(exact, abs=1e-14)
    assert np.all(r.amplitudes[[3, 4, 5, 7]] == 0)


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10**6), h=st.integers(1, 6))
def test_block_rotations_split_the_score(seed, h):
    """PE(t)^T M PE(s) = sum_i rho_i cos(w_i (t - s) - theta_i) + terms that are not
    functions of t - s, and the rotation parts hold share * ||M||^2 of the squared norm
    (the projection written out)."""
    d = 2 * h
    m = np.random.default_rng(seed).normal(size=(d, d))
    r = attention.block_rotations(m)
    rotations = np.zeros_like(m)
    for i in range(h):
        a, b, c, e = (
            m[2 * i, 2 * i],
            m[2 * i, 2 * i + 1],
            m[2 * i + 1, 2 * i],
            m[2 * i + 1, 2 * i + 1],
        )
        cos_part, sin_part = (a + e) / 2, (b - c) / 2
        assert r.amplitudes[i] == pytest.approx(
            math.hypot(cos_part, sin_part), rel=1e-14
        )
        rotations[2 * i : 2 * i + 2, 2 * i : 2 * i + 2] = [
            [cos_part, sin_part],
            [-sin_part, cos_part],
        ]
    assert r.share == pytest.approx(np.sum(rotations**2) / np.sum(m**2), rel=1e-13)
    assert np.sum(rotations * (m - rotations)) == pytest.approx(
        0.0, abs=1e-12 * np.sum(m**2)
    )  # orthogonal
    pe = oracle.encoding(range(0, 40, 3), d)
    relative = pe @ rotations @ pe.T
    positions = np.arange(0, 40, 3)
    omega = np.array([float(oracle.frequency(i, d)) for i in range(h)])
    formula = (
        r.amplitudes
        * np.cos(np.subtract.outer(positions, positions)[..., None] * omega - r.angles)
    ).sum(-1)
    assert np.allclose(relative, formula, rtol=0, atol=1e-12 * (1 + np.abs(m).max()))


def test_block_rotations_scale_free_and_zero():
    m = np.random.default_rng(4).normal(size=(6, 6))
    big = attention.block_rotations(m * 1e300)
    small = attention.block_rotations(m)
    assert big.share == pytest.approx(small.share, rel=1e-14)
    assert np.allclose(big.amplitudes / 1e300, small.amplitudes, rtol=1e-14)
    assert attention.block_rotations(np.zeros((4, 4))).share == 0.0


# --- tasks ----------------------------------------------------------------------------


def test_copy_back_targets_by_definition():
    b = attention.copy_back(4, vocab=7).sample(3, 20, seed=5)
    for row in range(3):
        for t in range(20):
            assert b.mask[row, t] == (t >= 4)
            if t >= 4:
                assert (
                    b.sources[row, t] == t - 4
                    and b.targets[row, t] == b.tokens[row, t - 4]
                )
    assert b.tokens.min() >= 0 and b.tokens.max() < 7


def test_previous_occurrence_targets_by_definition():
    task = attention.previous_occurrence(keys=3, values=5)
    b = task.sample(4, 40, seed=6)
    for row in range(4):
        keys = [int(v) // 5 for v in b.tokens[row]]
        for t in range(40):
            earlier = [s for s in range(t) if keys[s] == keys[t]]
            assert b.mask[row, t] == bool(earlier)
            if earlier:
                assert b.sources[row, t] == earlier[-1]
                assert b.targets[row, t] == b.tokens[row, earlier[-1]] % 5


# --- the trainer ----------------------------------------------------------------------


@pytest.mark.parametrize("encoding", attention.ENCODINGS)
@pytest.mark.parametrize(
    "task",
    [attention.copy_back(2, vocab=5), attention.previous_occurrence(keys=2, values=3)],
    ids=["copy_back", "previous_occurrence"],
)
def test_gradients_match_finite_differences(encoding, task):
    params = attention._init(task, encoding, 6, 4, 12, seed=3)
    rng = np.random.default_rng(1)
    params = {
        name: value + rng.normal(0, 0.3, value.shape) for name, value in params.items()
    }
    batch = attention._sample(task, np.random.default_rng(5), 3, 9)
    _, grads = attention._loss_and_gradients(params, batch, encoding, 10000.0)
    assert sorted(grads) == sorted(params)
    assert_gradients_match(
        grads,
        params,
        lambda: attention._loss_and_gradients(params, batch, encoding, 1e4)[0],
    )


def assert_gradients_match(grads, params, loss):
    """Compare ``grads`` with central differences of ``loss()`` in every entry of
    ``params`` (changed in place)."""
    h = 1e-6
    for name, value in params.items():
        numeric = np.zeros_like(value)
        for index in np.ndindex(value.shape):
            old = value[index]
            value[index] = old + h
            plus = loss()
            value[index] = old - h
            minus = loss()
            value[index] = old
            numeric[index] = (plus - minus) / (2 * h)
        # central differences with h = 1e-6 in float64: truncation ~h^2 and rounding
        # ~1e-16/h, about 1e-10
        assert np.allclose(grads[name], numeric, rtol=1e-6, atol=1e-8), name


def test_forward_matches_plain_head():
    model = attention.train(
        attention.copy_back(1, vocab=5),
        "sinusoidal",
        steps=3,
        d_model=6,
        batch=2,
        length=8,
    )
    tokens = np.array([[0, 4, 2, 2, 1, 3, 0]])
    p = model.params
    x = p["embedding"][tokens[0]] + oracle.encoding(range(7), 6)
    _, weights, out = plain_head(
        x.tolist(),
        p["w_q"].tolist(),
        p["w_k"].tolist(),
        p["w_v"].tolist(),
        True,
        1 / math.sqrt(6),
    )
    forward = model.forward(tokens)
    assert np.allclose(forward.weights[0], weights, rtol=1e-10, atol=1e-14)
    assert np.allclose(
        forward.logits[0], np.array(out) @ p["w_o"], rtol=1e-10, atol=1e-12
    )


def test_training_is_deterministic_and_starts_alike():
    task = attention.previous_occurrence(keys=2, values=3)
    a = attention.train(
        task, "learned", steps=5, seed=4, d_model=8, batch=3, length=10, max_length=30
    )
    b = attention.train(
        task, "learned", steps=5, seed=4, d_model=8, batch=3, length=10, max_length=30
    )
    for name in a.params:
        assert np.array_equal(a.params[name], b.params[name])
    assert np.array_equal(a.losses, b.losses)
    # rows beyond the training length get no gradient: they keep their initial values
    initial = attention._init(task, "learned", 8, 8, 30, 4)
    assert np.array_equal(a.params["positions"][10:], initial["positions"][10:])
    assert not np.array_equal(a.params["positions"][:10], initial["positions"][:10])
    # every encoding starts from the same weights at the same seed
    for encoding in ("sinusoidal", "rope", "none"):
        other = attention._init(task, encoding, 8, 8, 30, 4)
        assert all(np.array_equal(other[name], initial[name]) for name in other)


def test_rope_learns_copy_back_and_none_cannot():
    # Position is the only way to find the key: without it the layer stays near chance
    # (1/8 at best for the early positions whose prefix is short); with rotary
    # embeddings it learns the task.
    task = attention.copy_back(2, vocab=8)
    rope = attention.train(
        task, "rope", steps=80, d_model=16, batch=16, length=32, learning_rate=0.02
    )
    none = attention.train(
        task, "none", steps=80, d_model=16, batch=16, length=32, learning_rate=0.02
    )
    assert rope.evaluate(32, seed=9, batch=8).accuracy > 0.9
    assert none.evaluate(32, seed=9, batch=8).accuracy < 0.3


# --- the trainer against a layer, data, initial draw and Adam written from its document


def scratch_targets(task, tokens):
    """Targets and the mask of counted positions, from the tasks' definitions, position
    by position."""
    targets, counted = np.zeros(tokens.shape, dtype=int), np.zeros(tokens.shape)
    for b in range(tokens.shape[0]):
        for t in range(tokens.shape[1]):
            if task.name == "copy_back":
                source = t - task.lag if t >= task.lag else None
            else:
                earlier = [
                    s
                    for s in range(t)
                    if tokens[b, s] // task.values == tokens[b, t] // task.values
                ]
                source = earlier[-1] if earlier else None
            if source is not None:
                targets[b, t], counted[b, t] = tokens[b, source] % task.outputs, 1.0
    return targets, counted


def scratch_loss(params, tokens, targets, counted, encoding, offset=0):
    """Mean cross-entropy of the layer train documents, complex-safe (no max, no
    comparison) for complex steps.

    x = E[token] (+ the exact sinusoidal table, or + the learned rows); q, k, v = x W
    (q, k turned pair by pair by t * w_i for rope, w_i from the oracle); weights =
    causal softmax(q k / sqrt(d_k)); logits = weights v W_O. The tokens sit at positions
    offset .. offset + n - 1 (train's max_offset).
    """
    n = tokens.shape[1]
    where = range(offset, offset + n)
    d_model, d_k = params["w_q"].shape
    x = params["embedding"][tokens]
    if encoding == "sinusoidal":
        x = x + oracle.encoding(where, d_model)
    elif encoding == "learned":
        x = x + params["positions"][offset : offset + n]
    q, k, v = (
        np.einsum("btd,dk->btk", x, params[name]) for name in ("w_q", "w_k", "w_v")
    )
    if encoding == "rope":
        frequencies = [float(oracle.frequency(i, d_k)) for i in range(d_k // 2)]
        angle = np.array(where)[:, None] * np.array(frequencies)
        cos, sin = np.cos(angle), np.sin(angle)

        def turn(z):
            out = np.empty_like(z)
            out[..., 0::2] = z[..., 0::2] * cos - z[..., 1::2] * sin
            out[..., 1::2] = z[..., 0::2] * sin + z[..., 1::2] * cos
            return out

        q, k = turn(q), turn(k)
    e = np.exp(np.einsum("btk,bsk->bts", q, k) / math.sqrt(d_k)) * np.tril(
        np.ones((n, n))
    )  # masked keys: 0
    logits = np.einsum(
        "bts,bsk,ko->bto", e / e.sum(axis=-1, keepdims=True), v, params["w_o"]
    )
    log_total = np.log(np.exp(logits).sum(axis=-1))
    picked = np.take_along_axis(logits, targets[..., None], axis=-1)[..., 0]
    return ((log_total - picked) * counted).sum() / counted.sum()


def complex_step_gradients(params, tokens, targets, counted, encoding):
    """d loss / d every entry, as Im(loss(p + 1e-30 i)) / 1e-30: exact to rounding, no
    differencing."""
    grads = {}
    for name, value in params.items():
        grads[name] = np.zeros_like(value)
        for index in np.ndindex(value.shape):
            shifted = {key: val.astype(complex) for key, val in params.items()}
            shifted[name][index] += 1e-30j
            grads[name][index] = (
                scratch_loss(shifted, tokens, targets, counted, encoding).imag / 1e-30
            )
    return grads


@pytest.mark.parametrize("encoding", attention.ENCODINGS)
@pytest.mark.parametrize(
    "task",
    [attention.copy_back(2, vocab=5), attention.previous_occurrence(keys=2, values=3)],
    ids=["copy_back", "previous_occurrence"],
)
def test_two_training_steps_match_a_computation_from_scratch(encoding, task):
    """train's documented recipe, redone without pelib: the initial draw, the data, the
    loss, exact gradients (complex step) and Adam (Kingma and Ba, algorithm 1), for two
    steps."""
    seed, d_model, d_k, batch, length, max_length, rate = 3, 6, 4, 3, 9, 12, 0.05
    model = attention.train(
        task,
        encoding,
        steps=2,
        seed=seed,
        d_model=d_model,
        d_k=d_k,
        batch=batch,
        length=length,
        max_length=max_length,
        learning_rate=rate,
    )
    draw = np.random.default_rng([seed, 0])
    params = {
        "embedding": draw.normal(0.0, 1.0, (task.vocab, d_model))
    }  # drawn in this order
    for name in ("w_q", "w_k", "w_v"):
        params[name] = draw.normal(0.0, d_model**-0.5, (d_model, d_k))
    params["w_o"] = draw.normal(0.0, d_k**-0.5, (d_k, task.outputs))
    if encoding == "learned":
        params["positions"] = draw.normal(0.0, 0.5**0.5, (max_length, d_model))
    data = np.random.default_rng([seed, 1])
    first = {name: np.zeros_like(value) for name, value in params.items()}
    second = {name: np.zeros_like(value) for name, value in params.items()}
    for step in (1, 2):
        tokens = data.integers(0, task.vocab, size=(batch, length))
        targets, counted = scratch_targets(task, tokens)
        assert counted.any()  # train redraws only batches without an answer
        loss = scratch_loss(params, tokens, targets, counted, encoding)
        # the same arithmetic in another order: agreement to a few ulps of the loss
        # (about 1)
        assert model.losses[step - 1] == pytest.approx(loss, rel=1e-13, abs=1e-13)
        grads = complex_step_gradients(params, tokens, targets, counted, encoding)
        # Adam's update does not see a common scale of the gradients: compare them
        # directly as well
        batch_ = attention.Batch(tokens, targets, None, counted > 0)
        by_pelib = attention._loss_and_gradients(params, batch_, encoding, 10000.0)[1]
        for name, grad in grads.items():
            # exact gradients of size ~0.1 against the hand-written backward pass:
            # rounding only
            assert np.allclose(by_pelib[name], grad, rtol=1e-10, atol=1e-13), name
            first[name] = 0.9 * first[name] + 0.1 * grad
            second[name] = 0.999 * second[name] + 0.001 * grad**2
            params[name] = params[name] - rate * (first[name] / (1 - 0.9**step)) / (
                np.sqrt(second[name] / (1 - 0.999**step)) + 1e-8
            )
    for name, value in params.items():
        # Adam's step is about rate * sign(gradient) here; gradients agree to ~1e-15
        # relative, so the parameters agree to rounding of entries of size ~1 (1e-12
        # leaves room for the ~100 operations)
        assert np.allclose(model.params[name], value, rtol=0, atol=1e-12), name


@pytest.mark.parametrize("encoding", ["sinusoidal", "learned", "rope"])
def test_gradients_at_an_offset_match_finite_differences(encoding):
    task = attention.copy_back(2, vocab=5)
    params = attention._init(task, encoding, 6, 4, 20, seed=2)
    batch = attention._sample(task, np.random.default_rng(4), 2, 7)
    offset = 9
    at = dict(offset=offset, rows=20)
    loss, grads = attention._loss_and_gradients(params, batch, encoding, 10000.0, **at)
    targets, counted = scratch_targets(task, batch.tokens)
    # the loss at positions 9..15, from the definition and the oracle's table: rounding
    mine = scratch_loss(params, batch.tokens, targets, counted, encoding, offset)
    assert loss == pytest.approx(mine, rel=1e-13)
    at_zero = attention._loss_and_gradients(params, batch, encoding, 10000.0)[0]
    if encoding == "rope":  # rotary scores depend on differences of positions only
        assert at_zero == pytest.approx(loss, rel=1e-12)
    else:  # added tables: other rows, another loss
        assert abs(at_zero - loss) > 1e-6
    assert_gradients_match(
        grads,
        params,
        lambda: attention._loss_and_gradients(params, batch, encoding, 1e4, **at)[0],
    )
    if encoding == "learned":  # only the rows read, 9..15, get a gradient
        moved = np.flatnonzero(np.abs(grads["positions"]).sum(axis=1))
        assert moved.tolist() == list(range(offset, offset + 7))


@pytest.mark.parametrize("encoding", ["sinusoidal", "learned", "rope"])
def test_random_offsets_follow_the_documented_draw(encoding):
    """train(max_offset=...): offsets from default_rng([seed, 2]), the first loss at its
    offset from the definition, unchanged initial weights and data."""
    task, seed, length, max_offset = attention.copy_back(2, vocab=5), 4, 6, 13
    recipe = dict(
        steps=3,
        seed=seed,
        d_model=4,
        batch=2,
        length=length,
        max_length=length + max_offset,
        learning_rate=0.05,
    )
    model = attention.train(task, encoding, max_offset=max_offset, **recipe)
    draws = np.random.default_rng([seed, 2]).integers(0, max_offset + 1, size=3)
    assert len(set(draws.tolist())) > 1  # the test sees different offsets
    first = attention._init(task, encoding, 4, 4, length + max_offset, seed)
    tokens = np.random.default_rng([seed, 1]).integers(0, task.vocab, size=(2, length))
    targets, counted = scratch_targets(task, tokens)
    # step 1 runs on the initial weights at the first offset drawn: the loss from the
    # definition, to rounding
    mine = scratch_loss(first, tokens, targets, counted, encoding, int(draws[0]))
    assert model.losses[0] == pytest.approx(mine, rel=1e-13)
    if encoding == "learned":  # the rows moved are exactly those of the offsets drawn
        change = np.abs(model.params["positions"] - first["positions"]).sum(axis=1)
        moved = np.flatnonzero(change)
        reached = sorted({int(o) + j for o in draws for j in range(length)})
        assert moved.tolist() == reached
    plain = attention.train(task, encoding, **recipe)
    mine = scratch_loss(first, tokens, targets, counted, encoding)
    assert plain.losses[0] == pytest.approx(mine, rel=1e-13)


def test_evaluate_counts_queries_after_start():
    model = attention.train(
        attention.copy_back(3, vocab=4), "none", steps=1, d_model=4, batch=2, length=8
    )
    assert model.evaluate(20, batch=3).queries == 3 * 17
    assert model.evaluate(20, batch=3, start=10).queries == 3 * 10


# --- bad input ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("call", "error", "name"),
    [
        (lambda: attention.softmax([]), ValueError, "x"),
        (lambda: attention.softmax([1.0, 2.0], axis=1), ValueError, "axis"),
        (lambda: attention.softmax([1.0], axis=0.0), TypeError, "axis"),
        (
            lambda: attention.scores(np.ones((2, 3)), np.ones((2, 4))),
            ValueError,
            "q and k",
        ),
        (
            lambda: attention.scores(np.ones((2, 3)), np.ones((2, 3)), scale=0.0),
            ValueError,
            "scale",
        ),
        (
            lambda: attention.head(np.ones((3, 4)), np.ones((5, 2)), np.ones((4, 2))),
            ValueError,
            "w_q",
        ),
        (
            lambda: attention.head(
                np.ones((3, 4)), np.ones((4, 3)), np.ones((4, 3)), rope=True
            ),
            ValueError,
            "w_q",
        ),
        (
            lambda: attention.head(
                np.ones((3, 4)), np.ones((4, 2)), np.ones((4, 2)), positions=[0, 1, 2]
            ),
            ValueError,
            "positions",
        ),
        (
            lambda: attention.head(
                np.full((3, 4), 1e300), np.ones((4, 2)), np.ones((4, 2))
            ),
            ValueError,
            "x",
        ),
        (lambda: attention.relative_head(7, 1), ValueError, "d_model"),
        (lambda: attention.relative_head(8, 1, pairs=[0, 0]), ValueError, "pairs"),
        (lambda: attention.relative_head(8, 1, pairs=[4]), ValueError, "pairs"),
        (lambda: attention.relative_head(8, 1, pairs=[0.0]), TypeError, "pairs"),
        (
            lambda: attention.relative_head(8, 1, sharpness=1e308 * 10),
            ValueError,
            "sharpness",
        ),
        (
            lambda: attention.relative_head(8, 1, pairs=[0], sharpness=1.7e308),
            ValueError,
            "sharpness",
        ),
        (lambda: attention.block_rotations(np.ones((3, 3))), ValueError, "matrix"),
        # the amplitude of this block is sqrt(2) * 1.7e308, beyond the float range
        (
            lambda: attention.block_rotations(
                [[1.7e308, -1.7e308], [1.7e308, 1.7e308]]
            ),
            ValueError,
            "matrix",
        ),
        (lambda: attention.copy_back(0), ValueError, "lag"),
        (lambda: attention.previous_occurrence(values=1), ValueError, "values"),
        (lambda: attention.train("copy", "rope"), TypeError, "task"),
        (
            lambda: attention.train(attention.copy_back(1), "alibi"),
            ValueError,
            "encoding",
        ),
        (
            lambda: attention.train(attention.copy_back(1), "rope", d_model=6, d_k=3),
            ValueError,
            "d_k",
        ),
        (
            lambda: attention.train(attention.copy_back(8), "rope", length=8),
            ValueError,
            "length",
        ),
        (
            lambda: attention.train(attention.copy_back(1), "rope", learning_rate=2.0),
            ValueError,
            "learning_rate",
        ),
        (
            lambda: attention.train(attention.copy_back(1), "rope", max_offset=-1),
            ValueError,
            "max_offset",
        ),
        (
            lambda: attention.train(attention.copy_back(1), "rope", max_offset=2.0),
            TypeError,
            "max_offset",
        ),
        (
            lambda: attention.train(attention.copy_back(1), "rope", max_offset=961),
            ValueError,
            "max_offset",
        ),
        (lambda: attention.copy_back(1).sample(0, 5), ValueError, "batch"),
    ],
)
def test_bad_input_is_refused_by_name(call, error, name):
    with pytest.raises(error, match=name):
        call()


def test_model_refuses_bad_tokens_and_lengths():
    model = attention.train(
        attention.copy_back(1, vocab=4),
        "learned",
        steps=1,
        d_model=4,
        batch=2,
        length=8,
        max_length=16,
    )
    with pytest.raises(ValueError, match="tokens"):
        model.forward([[0, 4]])
    with pytest.raises(TypeError, match="tokens"):
        model.forward([[0.0, 1.0]])
    with pytest.raises(ValueError, match="tokens"):
        model.forward(np.zeros((1, 17), dtype=int))
    with pytest.raises(ValueError, match="length"):
        model.evaluate(17)
    with pytest.raises(ValueError, match="start"):
        model.evaluate(8, start=8)


def test_hand_built_models_are_refused_by_name():
    """Model is a public NamedTuple: forward and evaluate check what a hand-built one
    holds."""
    model = attention.train(
        attention.copy_back(1, vocab=4), "rope", steps=2, d_model=4, batch=2, length=8
    )
    p = model.params
    cases = [
        (model._replace(encoding="bogus"), ValueError, "model.encoding"),
        (model._replace(encoding=None), TypeError, "model.encoding"),
        (model._replace(base=1.0), ValueError, "model.base"),
        (model._replace(base="10000"), TypeError, "model.base"),
        (model._replace(params=None), TypeError, "model.params"),
        (
            model._replace(params={k: v for k, v in p.items() if k != "w_v"}),
            ValueError,
            "model.params",
        ),
        (
            model._replace(encoding="learned"),
            ValueError,
            "model.params",
        ),  # no table of positions
        (
            model._replace(params={**p, "w_q": np.full((4, 4), np.nan)}),
            ValueError,
            "w_q",
        ),
        (model._replace(params={**p, "w_q": p["w_q"] + 0j}), TypeError, "w_q"),
        (
            model._replace(params={**p, "w_q": np.array([[1, "a"]] * 4, dtype=object)}),
            TypeError,
            "w_q",
        ),
        (model._replace(params={**p, "w_o": np.ones((3, 4))}), ValueError, "w_o"),
        (
            model._replace(
                params={**p, "w_q": np.ones((4, 3)), "w_k": np.ones((4, 3))}
            ),
            ValueError,
            "w_q",
        ),
        # finite parameters whose scores overflow: refused, not a warning or nan
        (
            model._replace(
                params={
                    **p,
                    "w_q": np.full((4, 4), 1e200),
                    "w_k": np.full((4, 4), 1e200),
                }
            ),
            ValueError,
            "model.params",
        ),
    ]
    for bad, error, name in cases:
        with pytest.raises(error, match=name.replace(".", r"\.")):
            bad.forward([[0, 1, 2]])
        with pytest.raises(error, match=name.replace(".", r"\.")):
            bad.evaluate(8)
    # a hand-built model that is right is accepted, also with lists and float32 arrays,
    # and computes the same
    same = model._replace(
        params={
            k: v.astype(np.float32).astype(np.float64).tolist() for k, v in p.items()
        }
    )
    rounded = model._replace(
        params={k: v.astype(np.float32).astype(np.float64) for k, v in p.items()}
    )
    assert np.array_equal(
        same.forward([[0, 1, 2]]).logits, rounded.forward([[0, 1, 2]]).logits
    )


def test_a_tie_is_no_win():
    # Keys holding the same token get exactly equal weights without positions: argmax
    # would credit the earliest; Model.evaluate counts it as a miss (chapter 6).
    from pelib.attention import _wins

    weights = np.array(
        [[0.4, 0.4, 0.2], [0.2, 0.5, 0.3], [0.5, 0.5 * (1 - 1e-12), 0.0]]
    )
    assert _wins(weights, np.array([0, 1, 0])).tolist() == [False, True, False]
    assert _wins(weights, np.array([1, 2, -1])).tolist() == [False, False, False]
