"""pelib.position_ids and pelib.rotary_layers against plain Python written here.

The truth of position_ids is a loop over each row that counts the tokens the way each
convention's code does (Hugging Face's ``generate``, OPT's learned table, fairseq's
``make_positions``, one index per column); the truth of rotary_layers is the frequency
formula written out per pair (``base ** (-2i / d)``, the zero tail of the proportional
form, linear and Llama 3 step scaling divided by hand), the layer pattern counted by
hand, and the M-RoPE axes laid out by loops. The scaling methods that need more than a
division (dynamic NTK, YaRN, blended Llama 3) are checked against
``pelib.rope_scaling``, which ``tests/test_rope_scaling.py`` holds to the exact
definitions: here only the wiring from the configuration is in question.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest

import pelib
from pelib import position_ids, rotary_layers

# --- position_ids: the loops ----------------------------------------------------------


def loop_row(mask, convention, padding_idx=1, lengths=None):
    """Positions of every column of one row, counted one token at a time."""
    starts = set()
    if lengths is not None:
        start = 0
        for length in lengths:
            starts.add(start)
            start += length
    first = {"index": 0, "hf": 0, "opt": 2, "fairseq": padding_idx + 1}[convention]
    out, count, doc_start = [], 0, 0
    for j, m in enumerate(mask):
        if j in starts:
            count, doc_start = 0, j
        count += m
        if lengths is not None:
            out.append(first + j - doc_start)
        elif convention == "index":
            out.append(j)
        elif convention == "hf":
            out.append(count - 1 if m else 1)
        elif convention == "opt":
            out.append(count * m - 1 + 2)
        else:
            out.append(count * m + padding_idx)
    return out


def loop_positions(mask, convention, cache_length=0, padding_idx=1, documents=None):
    mask = np.asarray(mask).tolist()
    if isinstance(mask[0], int):
        row = loop_row(mask, convention, padding_idx, documents)
        return row[cache_length:]
    return [
        loop_row(r, convention, padding_idx, None if documents is None else d)[
            cache_length:
        ]
        for r, d in zip(mask, documents or [None] * len(mask), strict=True)
    ]


CONVENTIONS = ["index", "hf", "opt", "fairseq"]


def test_left_and_right_padding_by_hand():
    left, right = [0, 0, 1, 1, 1], [1, 1, 1, 0, 0]
    expected = {
        "index": ([0, 1, 2, 3, 4], [0, 1, 2, 3, 4]),
        "hf": ([1, 1, 0, 1, 2], [0, 1, 2, 1, 1]),
        "opt": ([1, 1, 2, 3, 4], [2, 3, 4, 1, 1]),
        "fairseq": ([1, 1, 2, 3, 4], [2, 3, 4, 1, 1]),
    }
    for convention, (want_left, want_right) in expected.items():
        got = position_ids([left, right], convention=convention)
        assert got.tolist() == [want_left, want_right], convention
        assert got.dtype == np.int64


def test_fairseq_padding_idx_and_documents_by_hand():
    assert position_ids([0, 1, 1], convention="fairseq", padding_idx=0).tolist() == [
        0,
        1,
        2,
    ]
    assert position_ids(
        [1, 1, 1, 1], convention="fairseq", padding_idx=5, documents=[3, 1]
    ).tolist() == [6, 7, 8, 6]
    assert position_ids([1] * 5, convention="opt", documents=(1, 4)).tolist() == [
        2,
        2,
        3,
        4,
        5,
    ]


@pytest.mark.parametrize("convention", CONVENTIONS)
def test_every_cache_length_against_the_loop(convention):
    rng = np.random.default_rng(21)
    masks = rng.integers(0, 2, size=(6, 4, 7))
    masks[:, :, -1] = 1  # the newest token is real
    for mask in masks:
        for cache_length in range(7):
            for padding_idx in (0, 1, 3):
                got = position_ids(
                    mask,
                    convention=convention,
                    cache_length=cache_length,
                    padding_idx=padding_idx,
                )
                want = loop_positions(mask, convention, cache_length, padding_idx)
                assert got.tolist() == want
                assert got.shape == (4, 7 - cache_length)
                one = position_ids(
                    mask[0],
                    convention=convention,
                    cache_length=cache_length,
                    padding_idx=padding_idx,
                )
                assert one.tolist() == want[0] and one.shape == (7 - cache_length,)


@pytest.mark.parametrize("convention", CONVENTIONS)
def test_bool_and_unsigned_masks_read_as_integers(convention):
    mask = np.array([[False, True, True], [True, True, False]])
    want = loop_positions(mask.astype(int), convention)
    assert position_ids(mask, convention=convention).tolist() == want
    assert position_ids(mask.astype(np.uint8), convention=convention).tolist() == want


@pytest.mark.parametrize("convention", CONVENTIONS)
def test_documents_restart_positions(convention):
    documents = [[2, 3, 1], [6], [1, 1, 1, 1, 1, 1]]
    ones = np.ones((3, 6), dtype=int)
    for cache_length in range(6):
        got = position_ids(
            ones,
            convention=convention,
            cache_length=cache_length,
            documents=documents,
            padding_idx=2,
        )
        want = loop_positions(ones, convention, cache_length, 2, documents)
        assert got.tolist() == want
    got = position_ids([1] * 6, convention=convention, documents=[4, 2])
    assert got.tolist() == loop_positions([1] * 6, convention, 0, 1, [4, 2])
    # numpy arrays of lengths are sequences too
    got = position_ids(ones[:1], convention=convention, documents=[np.array([3, 3])])
    assert got.tolist() == loop_positions(ones[:1], convention, 0, 1, [[3, 3]])


def test_decoding_one_token_at_a_time_gives_the_prefill_positions():
    mask = np.array([[0, 0, 1, 1, 1, 1], [1, 1, 1, 1, 1, 1]])
    for convention in CONVENTIONS:
        full = position_ids(mask, convention=convention)
        steps = [
            position_ids(mask[:, : c + 1], convention=convention, cache_length=c)
            for c in range(2, 6)
        ]
        assert np.array_equal(np.concatenate(steps, axis=1), full[:, 2:])


BAD_POSITIONS = [
    (dict(attention_mask=[[0, 2]]), ValueError, "attention_mask"),
    (dict(attention_mask=[[0.0, 1.0]]), TypeError, "attention_mask"),
    (dict(attention_mask=[["a"]]), TypeError, "attention_mask"),
    (dict(attention_mask=[[1, None]]), TypeError, "attention_mask"),
    (dict(attention_mask=[[1], [1, 1]]), TypeError, "attention_mask"),
    (dict(attention_mask=np.ones((2, 2, 2), dtype=int)), ValueError, "attention_mask"),
    (dict(attention_mask=np.ones((2, 0), dtype=int)), ValueError, "attention_mask"),
    (dict(attention_mask=1), ValueError, "attention_mask"),
    (dict(attention_mask=True), TypeError, "attention_mask"),
    (dict(attention_mask=None), TypeError, "attention_mask"),
    (dict(attention_mask=[1, 1], convention="gpt2"), ValueError, "convention"),
    (dict(attention_mask=[1, 1], convention=None), TypeError, "convention"),
    (dict(attention_mask=[1, 1], cache_length=True), TypeError, "cache_length"),
    (dict(attention_mask=[1, 1], cache_length=1.0), TypeError, "cache_length"),
    (dict(attention_mask=[1, 1], cache_length=-1), ValueError, "cache_length"),
    (dict(attention_mask=[1, 1], cache_length=2), ValueError, "cache_length"),
    (dict(attention_mask=[1, 1], padding_idx=-1), ValueError, "padding_idx"),
    (dict(attention_mask=[1, 1], padding_idx=2**63), ValueError, "padding_idx"),
    (dict(attention_mask=[1, 1], padding_idx=1.0), TypeError, "padding_idx"),
    (dict(attention_mask=[1, 1], documents=[1]), ValueError, "documents"),
    (dict(attention_mask=[1, 1], documents=[0, 2]), ValueError, "documents"),
    (dict(attention_mask=[1, 1], documents=[-1, 3]), ValueError, "documents"),
    (dict(attention_mask=[1, 1], documents=[]), ValueError, "documents"),
    (dict(attention_mask=[1, 1], documents=[1.0, 1.0]), TypeError, "documents"),
    (dict(attention_mask=[1, 1], documents=[True, True]), TypeError, "documents"),
    (dict(attention_mask=[1, 1], documents="11"), TypeError, "documents"),
    (dict(attention_mask=[1, 1], documents={1, 2}), TypeError, "documents"),
    (dict(attention_mask=[0, 1], documents=[1, 1]), ValueError, "documents"),
    (dict(attention_mask=[[1, 1]] * 2, documents=[[2]]), ValueError, "documents"),
    (dict(attention_mask=[[1, 1]] * 2, documents=[2, 2]), TypeError, "documents"),
    (dict(attention_mask=[[1, 1]] * 2, documents=[[2], [1]]), ValueError, "documents"),
    (dict(attention_mask=[[1, 1]] * 2, documents=[[2], [1, 1.5]]), TypeError, "docume"),
    (dict(attention_mask=[[1, 1]] * 2, documents=5), TypeError, "documents"),
]


@pytest.mark.parametrize(("kwargs", "error", "name"), BAD_POSITIONS)
def test_position_ids_refuses_bad_input_by_name(kwargs, error, name):
    with pytest.raises(error, match=name):
        position_ids(**kwargs)


def test_absurd_masks_are_refused():
    big = np.broadcast_to(np.int8(1), (2, 2**25 + 1))
    with pytest.raises(ValueError, match="attention_mask"):
        position_ids(big)


# --- rotary_layers: the formula, written out ------------------------------------------


def loop_frequencies(d, base):
    """base ** (-2i / d) for each pair i of d features."""
    return [base ** (-(2 * i) / d) for i in range(d // 2)]


def close(got, want):
    np.testing.assert_allclose(got, want, rtol=1e-14, atol=0)


def test_default_full_rotary():
    layers = rotary_layers(
        {
            "hidden_size": 96,
            "num_attention_heads": 4,
            "num_hidden_layers": 3,
            "rope_theta": 500000.0,
            "vocab_size": 32000,  # unrelated keys are ignored
            "tie_word_embeddings": False,
        }
    )
    assert len(layers) == 3
    for i, layer in enumerate(layers):
        assert (layer.layer, layer.head_dim, layer.rotated) == (i, 24, 24)
        close(layer.frequencies, loop_frequencies(24, 500000.0))
        assert layer.base == 500000.0 and layer.rope_type == "default"
        assert layer.attention is None and layer.sections is None
        assert layer.layout == "half" and layer.attention_factor == 1.0
    # head_dim wins over hidden_size // num_attention_heads
    (layer,) = rotary_layers(
        {"head_dim": 10, "hidden_size": 96, "num_attention_heads": 4,
         "num_hidden_layers": 1, "rope_theta": 100}
    )  # fmt: skip
    assert layer.rotated == 10
    close(layer.frequencies, loop_frequencies(10, 100.0))


@pytest.mark.parametrize(
    "config",
    [
        # GPT-NeoX, transformers 4 names
        {"model_type": "gpt_neox", "rotary_pct": 0.25, "rotary_emb_base": 10000},
        # Phi, transformers 4
        {"model_type": "phi", "partial_rotary_factor": 0.25, "rope_theta": 10000.0},
        # transformers 5: inside rope_parameters
        {
            "model_type": "gpt_neox",
            "rope_parameters": {
                "rope_type": "default",
                "rope_theta": 10000.0,
                "partial_rotary_factor": 0.25,
            },
        },
    ],
    ids=["gpt-neox-4", "phi-4", "gpt-neox-5"],
)
def test_partial_rotary(config):
    config = {
        "hidden_size": 640,
        "num_attention_heads": 8,
        "num_hidden_layers": 2,
    } | config
    layers = rotary_layers(config)
    for layer in layers:
        # int(80 * 0.25) = 20 features, the frequencies of width 20
        assert (layer.head_dim, layer.rotated) == (80, 20)
        close(layer.frequencies, loop_frequencies(20, 10000.0))


def test_partial_rotary_rounds_down_as_int_does():
    # int(80 * 0.4) = 32 (Phi-2's fraction), int(96 * 0.3) = int(28.799...) = 28
    for head, fraction, rotated in [(80, 0.4, 32), (96, 0.3, 28)]:
        (layer,) = rotary_layers(
            {"head_dim": head, "num_hidden_layers": 1, "rope_theta": 10000.0,
             "partial_rotary_factor": fraction}
        )  # fmt: skip
        assert layer.rotated == rotated == int(head * fraction)
        close(layer.frequencies, loop_frequencies(rotated, 10000.0))


def gemma4_config(**changes):
    config = {
        "model_type": "gemma4_text",
        "head_dim": 16,
        "global_head_dim": 32,
        "num_hidden_layers": 7,
        "layer_types": ["sliding_attention"] * 5
        + ["full_attention"]
        + ["sliding_attention"],
        "rope_parameters": {
            "sliding_attention": {"rope_type": "default", "rope_theta": 10000.0},
            "full_attention": {
                "rope_type": "proportional",
                "partial_rotary_factor": 0.25,
                "rope_theta": 1000000.0,
            },
        },
    }
    config.update(changes)
    return config


def test_gemma4_proportional_zero_tail_and_global_head_dim():
    layers = rotary_layers(gemma4_config())
    kinds = [layer.attention for layer in layers]
    # the last layer is made full, as Gemma4TextConfig forces it
    assert kinds == ["sliding"] * 5 + ["full", "full"]
    for layer in layers:
        if layer.attention == "sliding":
            assert (layer.head_dim, layer.rotated, layer.rope_type) == (
                16, 16, "default"
            )  # fmt: skip
            close(layer.frequencies, loop_frequencies(16, 10000.0))
            continue
        # the whole head of 32 is rotated, with head_dim (32) in the exponent and
        # int(0.25 * 32 // 2) = 4 pairs turning; the other 12 pairs have frequency 0
        assert (layer.head_dim, layer.rotated, layer.rope_type) == (
            32, 32, "proportional"
        )  # fmt: skip
        want = [1e6 ** (-(2 * i) / 32) if i < 4 else 0.0 for i in range(16)]
        close(layer.frequencies, want)
        assert layer.base == 1e6


def test_proportional_factor_divides_and_fraction_zero_leaves_no_turning_pair():
    config = gemma4_config()
    config["rope_parameters"]["full_attention"]["factor"] = 8.0
    full = rotary_layers(config)[-1]
    close(
        full.frequencies,
        [1e6 ** (-(2 * i) / 32) / 8 if i < 4 else 0 for i in range(16)],
    )
    config["rope_parameters"]["full_attention"]["partial_rotary_factor"] = 0.0
    full = rotary_layers(config)[-1]
    assert full.rotated == 32 and not np.any(full.frequencies)


def test_partial_against_proportional_same_fraction():
    # partial: the first 8 of 32 features, exponent over 8; proportional: pairs
    # (i, i + 16) for i < 4, exponent over 32
    partial = rotary_layers(
        {"head_dim": 32, "num_hidden_layers": 1, "rope_theta": 1e6,
         "partial_rotary_factor": 0.25}
    )[0]  # fmt: skip
    assert partial.rotated == 8
    close(partial.frequencies, [1e6 ** (-(2 * i) / 8) for i in range(4)])


def smollm3_config(**changes):
    config = {
        "model_type": "smollm3",
        "hidden_size": 64,
        "num_attention_heads": 4,
        "num_hidden_layers": 8,
        "rope_theta": 2000000.0,
        "no_rope_layers": [1, 1, 1, 0, 1, 1, 1, 0],
    }
    config.update(changes)
    return config


def test_no_rope_layers_one_means_the_layer_uses_rotary():
    layers = rotary_layers(smollm3_config())
    uses = [layer.rotated > 0 for layer in layers]
    assert uses == [True, True, True, False] * 2
    for layer in layers:
        if layer.rotated:
            close(layer.frequencies, loop_frequencies(16, 2e6))
        else:
            assert layer.frequencies is None and layer.base is None
            assert layer.rope_type is None and layer.sections is None
            assert layer.head_dim == 16 and layer.attention_factor == 1.0
    # a longer list is read up to the number of layers
    assert rotary_layers(smollm3_config(no_rope_layers=[0] + [1] * 20))[0].rotated == 0


@pytest.mark.parametrize("key", ["no_rope_layer_interval", "nope_layer_interval"])
def test_no_rope_interval(key):
    config = smollm3_config(no_rope_layers=None)
    config[key] = 3
    uses = [layer.rotated > 0 for layer in rotary_layers(config)]
    assert uses == [(i + 1) % 3 != 0 for i in range(8)]


def test_smollm3_sliding_layers_are_the_layers_without_rotary():
    config = smollm3_config(use_sliding_window=True, sliding_window=128)
    kinds = [layer.attention for layer in rotary_layers(config)]
    assert kinds == ["full", "full", "full", "sliding"] * 2
    # without a window every layer is full attention: SmolLM3Config (transformers
    # 5.23.0, configuration_smollm3.py lines 106-114) fills layer_types in with
    # "full_attention" unless use_sliding_window and sliding_window are set
    kinds = [layer.attention for layer in rotary_layers(smollm3_config())]
    assert kinds == ["full"] * 8


def test_llama4_chunked_interleaved_and_step_scaling():
    text = {
        "model_type": "llama4_text",
        "head_dim": 16,
        "num_hidden_layers": 4,
        "rope_theta": 500000.0,
        "no_rope_layers": [1, 1, 1, 0],
        "max_position_embeddings": 10485760,
        "rope_scaling": {
            "rope_type": "llama3",
            "factor": 16.0,
            "low_freq_factor": 1.0,
            "high_freq_factor": 1.0,
            "original_max_position_embeddings": 8192,
        },
    }
    layers = rotary_layers({"model_type": "llama4", "text_config": text})
    assert [layer.attention for layer in layers] == ["chunked"] * 3 + ["full"]
    assert [layer.rotated for layer in layers] == [16, 16, 16, 0]
    assert all(layer.layout == "interleaved" for layer in layers)
    # the step: wavelengths 2 pi / theta longer than 8192 / 1 are divided by 16
    want = []
    for theta in loop_frequencies(16, 500000.0):
        want.append(theta / 16 if 2 * math.pi / theta > 8192 else theta)
    close(layers[0].frequencies, want)
    assert layers[0].rope_type == "llama3"


def gemma3_config_4(**changes):
    """Gemma 3 in transformers 4's form."""
    config = {
        "model_type": "gemma3_text",
        "head_dim": 16,
        "num_hidden_layers": 12,
        "rope_theta": 1000000.0,
        "rope_local_base_freq": 10000.0,
        "sliding_window_pattern": 6,
        "rope_scaling": {"rope_type": "linear", "factor": 8.0},
    }
    config.update(changes)
    return config


def test_gemma3_local_and_global():
    layers = rotary_layers(gemma3_config_4())
    for layer in layers:
        full = (layer.layer + 1) % 6 == 0
        assert layer.attention == ("full" if full else "sliding")
        if full:
            # the global base, divided by the linear factor: theta_i / 8
            close(layer.frequencies, [t / 8 for t in loop_frequencies(16, 1e6)])
            assert (layer.rope_type, layer.base) == ("linear", 1e6)
        else:
            # the local base, never scaled
            close(layer.frequencies, loop_frequencies(16, 1e4))
            assert (layer.rope_type, layer.base) == ("default", 1e4)


def test_gemma3_transformers5_form_reads_the_same():
    five = {
        "model_type": "gemma3_text",
        "head_dim": 16,
        "num_hidden_layers": 12,
        "layer_types": [
            "full_attention" if (i + 1) % 6 == 0 else "sliding_attention"
            for i in range(12)
        ],
        "rope_parameters": {
            "full_attention": {
                "rope_type": "linear",
                "factor": 8.0,
                "rope_theta": 1000000.0,
            },
            "sliding_attention": {"rope_type": "default", "rope_theta": 10000.0},
        },
    }
    assert rotary_layers(five) == rotary_layers(gemma3_config_4())
    # with both layer_types and a consistent pattern
    assert rotary_layers(five | {"sliding_window_pattern": 6}) == rotary_layers(five)
    # a composite configuration: text_config merged in
    composite = {"model_type": "gemma3", "text_config": five, "vision_config": {}}
    assert rotary_layers(composite) == rotary_layers(five)


def loop_axes_chunked(sections):
    axes = []
    for axis, count in enumerate(sections):
        axes += [axis] * count
    return axes


def loop_axes_interleaved(sections, pairs):
    axes = []
    for i in range(pairs):
        if i % 3 == 1 and i < 3 * sections[1]:
            axes.append(1)
        elif i % 3 == 2 and i < 3 * sections[2]:
            axes.append(2)
        else:
            axes.append(0)
    return axes


@pytest.mark.parametrize(
    "scaling",
    [
        {"type": "mrope", "mrope_section": [16, 24, 24]},  # transformers 4
        {"rope_type": "default", "mrope_section": [16, 24, 24]},  # transformers 5
    ],
)
def test_mrope_chunked(scaling):
    config = {
        "model_type": "qwen2_vl",
        "hidden_size": 1536,
        "num_attention_heads": 12,
        "num_hidden_layers": 2,
        "rope_theta": 1000000.0,
        "rope_scaling": scaling,
    }
    layer = rotary_layers(config)[0]
    assert layer.rotated == 128 and layer.rope_type == "default"
    assert layer.sections.tolist() == loop_axes_chunked([16, 24, 24])
    close(layer.frequencies, loop_frequencies(128, 1e6))


@pytest.mark.parametrize("model_type", ["qwen3_vl_text", "qwen3_vl", "other"])
def test_mrope_interleaved(model_type):
    scaling = {"rope_type": "default", "mrope_section": [24, 20, 20]}
    if model_type == "other":
        scaling["mrope_interleaved"] = True
    config = {
        "model_type": model_type,
        "head_dim": 128,
        "num_hidden_layers": 1,
        "rope_theta": 5000000.0,
        "rope_scaling": scaling,
    }
    axes = rotary_layers(config)[0].sections.tolist()
    assert axes == loop_axes_interleaved([24, 20, 20], 64)
    assert axes.count(0) == 24 and axes.count(1) == 20 and axes.count(2) == 20
    # the first section is never read: time takes what height and width leave
    config["rope_scaling"]["mrope_section"] = [0, 20, 20]
    assert rotary_layers(config)[0].sections.tolist() == axes


def scaled_config(scaling, **changes):
    config = {
        "head_dim": 64,
        "num_hidden_layers": 2,
        "rope_theta": 10000.0,
        "max_position_embeddings": 32768,
        "rope_scaling": scaling,
    }
    config.update(changes)
    return config


def test_linear_scaling_is_the_frequencies_divided_by_the_factor():
    layer = rotary_layers(scaled_config({"rope_type": "linear", "factor": 4.0}))[0]
    close(layer.frequencies, [t / 4.0 for t in loop_frequencies(64, 10000.0)])
    # with partial rotary the width of the formula is the rotated part
    layer = rotary_layers(
        scaled_config({"type": "linear", "factor": 2.0}, partial_rotary_factor=0.5)
    )[0]
    assert layer.rotated == 32
    close(layer.frequencies, [t / 2.0 for t in loop_frequencies(32, 10000.0)])


@pytest.mark.parametrize(
    ("scaling", "method", "kwargs"),
    [
        (
            {"rope_type": "dynamic", "factor": 2.0},
            "dynamic",
            dict(factor=2.0, original_context=32768),
        ),
        (
            {"rope_type": "yarn", "factor": 4.0,
             "original_max_position_embeddings": 8192},
            "yarn",
            dict(factor=4.0, original_context=8192),
        ),
        (
            {"rope_type": "yarn", "factor": 4.0, "beta_fast": 0, "beta_slow": None,
             "mscale": 1.0, "mscale_all_dim": 0.5, "truncate": False},
            "yarn",
            dict(factor=4.0, original_context=32768, mscale=1.0, mscale_all_dim=0.5,
                 truncate=False),
        ),
        (
            {"rope_type": "yarn", "factor": 4.0, "attention_factor": 1.5,
             "beta_fast": 16, "beta_slow": 2},
            "yarn",
            dict(factor=4.0, original_context=32768, attention_factor=1.5,
                 beta_fast=16.0, beta_slow=2.0),
        ),
        (
            {"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0,
             "high_freq_factor": 4.0, "original_max_position_embeddings": 8192},
            "llama3",
            dict(factor=8.0, original_context=8192, low_freq_factor=1.0,
                 high_freq_factor=4.0),
        ),
    ],
    ids=["dynamic", "yarn", "yarn-mscale", "yarn-given", "llama3"],
)  # fmt: skip
def test_scaling_goes_through_rope_scaling(scaling, method, kwargs):
    layer = rotary_layers(scaled_config(scaling))[0]
    omega, factor = pelib.rope_scaling(64, method, base=10000.0, **kwargs)
    np.testing.assert_array_equal(layer.frequencies, omega)
    assert layer.attention_factor == factor and layer.rope_type == method


def test_original_length_top_level_first_else_max_position_embeddings():
    scaling = {"rope_type": "yarn", "factor": 4.0}
    top = rotary_layers(scaled_config(scaling, original_max_position_embeddings=4096))[
        0
    ]
    inner = rotary_layers(
        scaled_config(scaling | {"original_max_position_embeddings": 4096})
    )[0]
    want, _ = pelib.rope_scaling(64, "yarn", factor=4.0, original_context=4096)
    np.testing.assert_array_equal(top.frequencies, want)
    np.testing.assert_array_equal(inner.frequencies, want)
    fallback = rotary_layers(scaled_config(scaling))[0]
    want, _ = pelib.rope_scaling(64, "yarn", factor=4.0, original_context=32768)
    np.testing.assert_array_equal(fallback.frequencies, want)


def test_rotary_layer_is_frozen_read_only_and_compared_by_value():
    a = rotary_layers(smollm3_config())
    b = rotary_layers(smollm3_config())
    assert a == b and a[0] != a[3] and a[0] != "layer"
    with pytest.raises(dataclasses.FrozenInstanceError):
        a[0].rotated = 2
    with pytest.raises(ValueError):
        a[0].frequencies[0] = 1.0
    with pytest.raises(TypeError):
        hash(a[0])
    assert isinstance(a[0], pelib.RotaryLayer)


def base_config(**changes):
    config = {"head_dim": 8, "num_hidden_layers": 2, "rope_theta": 10000.0}
    config.update(changes)
    return {k: v for k, v in config.items() if v is not ...}


BAD_CONFIGS = [
    ([1, 2], TypeError, "config"),
    (None, TypeError, "config"),
    ({1: 2}, TypeError, "config"),
    (base_config(rope_ratio=2.0), ValueError, "rope_ratio"),
    (base_config(rotary_dim=4), ValueError, "rotary_dim"),
    (base_config(qk_rope_head_dim=64), ValueError, "qk_rope_head_dim"),
    (base_config(use_NoPE=True), ValueError, "use_NoPE"),
    (
        base_config(rope_scaling={"type": "longrope", "short_factor": [1]}),
        ValueError,
        "short_factor",
    ),
    (base_config(rope_scaling={"type": "longrope"}), ValueError, "rope_type"),
    (
        base_config(rope_scaling={"rope_type": "linear", "factor": 2, "extra": 1}),
        ValueError,
        "extra",
    ),
    (base_config(rope_scaling={"rope_type": "linear"}), ValueError, "factor"),
    (
        base_config(rope_scaling={"rope_type": "linear", "factor": 0.5}),
        ValueError,
        "rope_scaling",
    ),
    (
        base_config(rope_scaling={"rope_type": "linear", "factor": "2"}),
        TypeError,
        "factor",
    ),
    (
        base_config(
            rope_scaling={
                "rope_type": "llama3",
                "factor": 8,
                "low_freq_factor": 4,
                "high_freq_factor": 1,
            }
        ),
        ValueError,
        "rope_scaling",
    ),
    (
        base_config(rope_scaling={"rope_type": "llama3", "factor": 8}),
        ValueError,
        "low_freq_factor",
    ),
    (
        base_config(rope_scaling={"rope_type": "dynamic", "factor": 2}),
        ValueError,
        "max_position_embeddings",
    ),
    (
        base_config(
            rope_scaling={"rope_type": "yarn", "factor": 2, "truncate": 1},
            max_position_embeddings=64,
        ),
        TypeError,
        "truncate",
    ),
    (base_config(rope_scaling=[1]), TypeError, "rope_scaling"),
    (base_config(rope_scaling={"rope_type": 3}), TypeError, "rope_type"),
    (
        base_config(
            rope_scaling={"rope_type": "linear", "type": "dynamic", "factor": 2}
        ),
        ValueError,
        "type",
    ),
    (base_config(rope_parameters={"rope_theta": 500.0}), ValueError, "rope_theta"),
    (
        base_config(
            rope_parameters={"rope_type": "linear", "factor": 2.0},
            rope_scaling={"rope_type": "linear", "factor": 3.0},
        ),
        ValueError,
        "rope_scaling",
    ),
    (base_config(rope_theta=...), ValueError, "base"),
    (base_config(rope_theta=1.0), ValueError, "base"),
    (base_config(rope_theta=-5.0), ValueError, "base"),
    (base_config(rope_theta=float("nan")), ValueError, "base"),
    (base_config(rope_theta="1e4"), TypeError, "base"),
    (base_config(rotary_emb_base=100.0), ValueError, "rotary_emb_base"),
    (base_config(partial_rotary_factor=1.5), ValueError, "partial_rotary_factor"),
    (base_config(partial_rotary_factor=0.1), ValueError, "partial_rotary_factor"),
    (base_config(partial_rotary_factor=0.5, rotary_pct=0.25), ValueError, "rotary_pct"),
    (base_config(head_dim=7), ValueError, "partial_rotary_factor"),
    (base_config(head_dim=0), ValueError, "head_dim"),
    (base_config(head_dim=2.0), TypeError, "head_dim"),
    (base_config(head_dim=..., hidden_size=64), ValueError, "num_attention_heads"),
    (
        base_config(head_dim=..., hidden_size=64, num_attention_heads=0),
        ValueError,
        "num_attention_heads",
    ),
    (
        base_config(head_dim=..., hidden_size=3, num_attention_heads=4),
        ValueError,
        "hidden_size",
    ),
    (base_config(num_hidden_layers=...), ValueError, "num_hidden_layers"),
    (base_config(num_hidden_layers=0), ValueError, "num_hidden_layers"),
    (base_config(num_hidden_layers=10**6), ValueError, "num_hidden_layers"),
    (base_config(layer_types=["full_attention"]), ValueError, "layer_types"),
    (
        base_config(layer_types=["full_attention", "hybrid_attention"]),
        ValueError,
        "layer_types",
    ),
    (
        base_config(sliding_window_pattern=2, full_attention_interval=2),
        ValueError,
        "full_attention_interval",
    ),
    (base_config(layer_types="full_attention"), TypeError, "layer_types"),
    (
        base_config(
            layer_types=["sliding_attention", "full_attention"],
            sliding_window_pattern=1,
        ),
        ValueError,
        "sliding_window_pattern",
    ),
    (base_config(sliding_window_pattern=0), ValueError, "sliding_window_pattern"),
    (base_config(no_rope_layers=[1]), ValueError, "no_rope_layers"),
    (base_config(no_rope_layers=[]), ValueError, "no_rope_layers"),
    (base_config(no_rope_layers=[1, 2]), ValueError, "no_rope_layers"),
    (base_config(no_rope_layers="11"), TypeError, "no_rope_layers"),
    (base_config(no_rope_layer_interval=0), ValueError, "no_rope_layer_interval"),
    (
        base_config(no_rope_layer_interval=2, nope_layer_interval=3),
        ValueError,
        "nope_layer_interval",
    ),
    (base_config(mrope_section=[1, 1]), TypeError, "mrope_section"),
    (base_config(mrope_section=[1, 1, 1]), ValueError, "mrope_section"),
    (base_config(mrope_section=[2, 1, -1]), ValueError, "mrope_section"),
    (
        base_config(mrope_section=[2, 1, 1], mrope_interleaved="yes"),
        TypeError,
        "mrope_interleaved",
    ),
    (base_config(rope_scaling={"type": "mrope"}), ValueError, "mrope_section"),
    # Qwen3VLTextConfig's default base differs between versions (4.57.1: 5000000.0,
    # 5.23.0: 500000.0): refused rather than picked
    (base_config(model_type="qwen3_vl_text", rope_theta=...), ValueError, "rope_theta"),
    (
        base_config(
            model_type="qwen3_5_text", num_hidden_layers=4, mrope_interleaved=False
        ),
        ValueError,
        "mrope_interleaved",
    ),
    (
        base_config(
            model_type="qwen3_vl", mrope_section=[2, 1, 1], mrope_interleaved=False
        ),
        ValueError,
        "mrope_interleaved",
    ),
    (base_config(rope_local_base_freq=10.0), ValueError, "rope_local_base_freq"),
    (
        base_config(rope_parameters={"full_attention": {"rope_theta": 1e4}}),
        ValueError,
        "layer types",
    ),
    (
        base_config(
            layer_types=["sliding_attention"] * 2,
            rope_parameters={"full_attention": {"rope_theta": 1e4}},
        ),
        ValueError,
        "sliding_attention",
    ),
    (
        base_config(
            layer_types=["full_attention"] * 2,
            rope_parameters={"full_attention": {"rope_theta": 1e4, "x": 1}},
        ),
        ValueError,
        "'x'",
    ),
    (base_config(text_config=[1]), TypeError, "text_config"),
    (base_config(text_config={"rope_theta": 5.0}), ValueError, "text_config"),
    (base_config(text_config={"text_config": {}}), ValueError, "text_config"),
    (base_config(model_type=3), TypeError, "model_type"),
    # keys the class does not read: GPT-NeoX's base is rotary_emb_base (else 10000)
    (base_config(model_type="gpt_neox", rope_theta=5e5), ValueError, "rope_theta"),
    (
        base_config(model_type="gpt_neox", partial_rotary_factor=0.5),
        ValueError,
        "partial_rotary_factor",
    ),
    # Gemma 4 reads rope_parameters alone, per layer type, and fixes the pattern at 6
    (base_config(model_type="gemma4_text"), ValueError, "rope_theta"),
    (
        base_config(
            model_type="gemma4_text",
            rope_theta=...,
            rope_parameters={"rope_type": "default", "rope_theta": 1e4},
        ),
        ValueError,
        "layer type",
    ),
    (
        base_config(model_type="gemma4_text", rope_theta=..., sliding_window_pattern=3),
        ValueError,
        "sliding_window_pattern",
    ),
    (
        base_config(
            model_type="gemma4_text",
            rope_theta=...,
            rope_parameters={"sliding_attention": {"rope_type": "default"}},
        ),
        ValueError,
        "full_attention",
    ),
    # SmolLM3's class keeps an empty list (its model would read past its end)
    (
        base_config(model_type="smollm3", no_rope_layers=[]),
        ValueError,
        "no_rope_layers",
    ),
    # a model type whose class pelib does not know: what it needs must be given
    (
        base_config(model_type="mistral", num_hidden_layers=...),
        ValueError,
        "mistral",
    ),
    (
        base_config(global_head_dim=16, layer_types=["full_attention"] * 2),
        ValueError,
        "global_head_dim",
    ),
]


@pytest.mark.parametrize(("config", "error", "name"), BAD_CONFIGS)
def test_rotary_layers_refuses_bad_input_by_name(config, error, name):
    with pytest.raises(error) as info:
        rotary_layers(config)
    assert name in str(info.value), str(info.value)
    if isinstance(config, dict):
        assert "config" in str(info.value)


def test_per_layer_type_original_length_must_be_inside():
    config = base_config(
        layer_types=["full_attention"] * 2,
        max_position_embeddings=64,
        original_max_position_embeddings=32,
        rope_parameters={"full_attention": {"rope_type": "yarn", "factor": 2.0}},
    )
    with pytest.raises(ValueError, match="original_max_position_embeddings"):
        rotary_layers(config)
    config["rope_parameters"]["full_attention"]["original_max_position_embeddings"] = 32
    assert rotary_layers(config)[0].rope_type == "yarn"


def test_keys_unrelated_to_positions_are_ignored_and_equal_duplicates_accepted():
    config = base_config(
        vocab_size=10, architectures=["X"], torch_dtype="bfloat16", hidden_act="silu"
    )
    assert rotary_layers(config) == rotary_layers(base_config())
    both = base_config(rope_parameters={"rope_theta": 10000.0, "rope_type": "default"})
    assert rotary_layers(both) == rotary_layers(base_config())
    merged = {"model_type": "x", "rope_theta": 10000.0, "text_config": base_config()}
    assert rotary_layers(merged) == rotary_layers(base_config())


# --- rotary_layers: the defaults of transformers' configuration classes ---------------
# The truth of each test is the class default read in the source of transformers
# 5.23.0 (src/transformers/..., read in transformers-5.23.0-py3-none-any.whl of the
# Python Package Index; 4.57.1's __init__ defaults agree where the class exists there),
# written here with its file and lines.


def test_gpt_neox_class_defaults():
    # GPTNeoXConfig, models/gpt_neox/configuration_gpt_neox.py lines 97-98:
    # rope_theta from rotary_emb_base else default_theta = 10_000.0
    # (modeling_rope_utils.py line 760), partial_rotary_factor from rotary_pct else 0.25
    config = {
        "model_type": "gpt_neox",
        "hidden_size": 512,
        "num_attention_heads": 8,
        "num_hidden_layers": 2,
    }
    for layer in rotary_layers(config):
        # head 512 / 8 = 64, int(64 * 0.25) = 16 features
        assert (layer.head_dim, layer.rotated, layer.base) == (64, 16, 10000.0)
        close(layer.frequencies, loop_frequencies(16, 10000.0))
    # nothing given: lines 62-64, hidden_size 6144, 44 layers, 64 heads: 96 wide
    layers = rotary_layers({"model_type": "gpt_neox"})
    assert len(layers) == 44 and (layers[0].head_dim, layers[0].rotated) == (96, 24)
    # a top-level rope_theta equal to the base read (as transformers 4 saves it) is
    # accepted
    assert rotary_layers(config | {"rope_theta": 10000.0}) == rotary_layers(config)


@pytest.mark.parametrize(
    ("model_type", "fraction"),
    # PhiConfig, models/phi/configuration_phi.py line 88: partial_rotary_factor 0.5;
    # StableLmConfig, models/stablelm/configuration_stablelm.py line 68: 0.25;
    # LlamaConfig: none (the whole head); all three: default_theta 10_000.0
    [("phi", 0.5), ("stablelm", 0.25), ("llama", 1.0)],
)
def test_partial_fraction_and_base_class_defaults(model_type, fraction):
    config = {
        "model_type": model_type,
        "hidden_size": 640,
        "num_attention_heads": 8,
        "num_hidden_layers": 1,
    }
    (layer,) = rotary_layers(config)
    rotated = int(80 * fraction)
    assert (layer.rotated, layer.base) == (rotated, 10000.0)
    close(layer.frequencies, loop_frequencies(rotated, 10000.0))


def test_llama_class_geometry():
    # LlamaConfig, models/llama/configuration_llama.py lines 65-68 and 84-88:
    # hidden_size 4096, 32 layers, 32 heads, head_dim = hidden_size // heads = 128
    layers = rotary_layers({"model_type": "llama"})
    assert len(layers) == 32 and layers[0].rotated == 128
    # max_position_embeddings 2048 (line 71) is the trained length of dynamic NTK
    config = {"model_type": "llama", "rope_scaling": {"type": "dynamic", "factor": 2}}
    want, _ = pelib.rope_scaling(128, "dynamic", factor=2.0, original_context=2048)
    np.testing.assert_array_equal(rotary_layers(config)[0].frequencies, want)


def test_gemma3_class_defaults_as_gemma_3_4b_it_leaves_them():
    # Gemma3TextConfig, models/gemma3/configuration_gemma3.py: num_attention_heads 8
    # and head_dim 256 (lines 78, 80), sliding_window_pattern 6 (line 106: every 6th
    # layer full, lines 108-112), full layers' base rope_theta else 1_000_000.0 and
    # sliding layers' rope_local_base_freq else 10_000.0 (lines 99 and 149-156),
    # rope_scaling on the full layers only (line 144)
    text = {
        "model_type": "gemma3_text",
        "hidden_size": 2560,
        "num_hidden_layers": 12,
        "rope_scaling": {"factor": 8.0, "rope_type": "linear"},
    }
    layers = rotary_layers({"model_type": "gemma3", "text_config": text})
    for layer in layers:
        assert (layer.head_dim, layer.rotated) == (256, 256)
        if (layer.layer + 1) % 6 == 0:
            assert (layer.attention, layer.base, layer.rope_type) == (
                "full", 1e6, "linear"
            )  # fmt: skip
            close(layer.frequencies, [t / 8 for t in loop_frequencies(256, 1e6)])
        else:
            assert (layer.attention, layer.base, layer.rope_type) == (
                "sliding", 1e4, "default"
            )  # fmt: skip
            close(layer.frequencies, loop_frequencies(256, 1e4))


def test_gemma3_empty_parameters_per_layer_type_take_the_class_bases():
    # the same lines: rope_parameters[...].setdefault("rope_theta", rope_theta given,
    # else 1e6) for full layers, (rope_local_base_freq given, else 1e4) for sliding
    config = gemma3_config_4(
        rope_theta=5e5,
        rope_local_base_freq=...,
        rope_scaling=...,
        rope_parameters={"sliding_attention": {}, "full_attention": {}},
    )
    config = {k: v for k, v in config.items() if v is not ...}
    bases = {layer.attention: layer.base for layer in rotary_layers(config)}
    assert bases == {"sliding": 1e4, "full": 5e5}


def test_gemma4_class_defaults():
    # Gemma4TextConfig, models/gemma4/configuration_gemma4.py: layer types every 6th
    # full, the last made full (lines 189-200); rope_parameters: sliding default
    # 10_000.0, full proportional 0.25 of base 1_000_000.0 (lines 202-207);
    # global_head_dim 512 for the full layers (lines 209-222)
    layers = rotary_layers(
        {"model_type": "gemma4_text", "head_dim": 16, "num_hidden_layers": 7}
    )
    assert [layer.attention for layer in layers] == ["sliding"] * 5 + ["full"] * 2
    for layer in layers[:5]:
        assert (layer.head_dim, layer.rotated, layer.base) == (16, 16, 1e4)
        close(layer.frequencies, loop_frequencies(16, 1e4))
    for layer in layers[5:]:
        # int(0.25 * 512 // 2) = 64 of 256 pairs turn, head_dim 512 in the exponent
        assert (layer.head_dim, layer.rotated, layer.rope_type) == (
            512, 512, "proportional"
        )  # fmt: skip
        want = [1e6 ** (-(2 * i) / 512) if i < 64 else 0.0 for i in range(256)]
        close(layer.frequencies, want)
    # nothing given: head_dim 256, 30 layers (lines 154 and 157)
    layers = rotary_layers({"model_type": "gemma4"})
    assert len(layers) == 30 and layers[0].head_dim == 256


def test_llama4_empty_no_rope_layers_is_the_class_schedule():
    # Llama4TextConfig, models/llama4/configuration_llama4.py lines 170-173:
    # "self.no_rope_layers if self.no_rope_layers else default", the default
    # int((i + 1) % no_rope_layer_interval != 0), interval 4 (line 158); base
    # default_theta 500000.0 (line 111); head_dim 128 (line 137); layer types
    # chunked where rotary, else full (lines 188-191)
    text = {"model_type": "llama4_text", "num_hidden_layers": 8, "no_rope_layers": []}
    layers = rotary_layers({"model_type": "llama4", "text_config": text})
    assert [layer.rotated for layer in layers] == [128, 128, 128, 0] * 2
    assert [layer.attention for layer in layers] == ["chunked"] * 3 + ["full"] + [
        "chunked"
    ] * 3 + ["full"]
    assert layers[0].base == 500000.0 and layers[0].layout == "interleaved"
    close(layers[0].frequencies, loop_frequencies(128, 500000.0))
    # the interval, when given, sets the schedule
    text |= {"no_rope_layer_interval": 2}
    uses = [layer.rotated > 0 for layer in rotary_layers(text)]
    assert uses == [True, False] * 4


def test_smollm3_class_defaults():
    # SmolLM3Config, models/smollm3/configuration_smollm3.py: default_theta
    # 2000000.0 (line 55), no_rope_layers default int((i + 1) % 4 != 0) (lines 90,
    # 101-104)
    config = smollm3_config(no_rope_layers=..., rope_theta=...)
    config = {k: v for k, v in config.items() if v is not ...}
    layers = rotary_layers(config)
    assert [layer.rotated for layer in layers] == [16, 16, 16, 0] * 2
    assert layers[0].base == 2000000.0


def test_qwen2_vl_class_defaults():
    # Qwen2-VL's model: mrope_section default [16, 24, 24]
    # (models/qwen2_vl/modeling_qwen2_vl.py line 102); Qwen2VLTextConfig,
    # configuration_qwen2_vl.py: default_theta 1000000.0 (line 68), layer types
    # sliding from max_window_layers on when use_sliding_window, sliding_window
    # default 4096 (lines 97-99 and 107-120)
    config = {
        "model_type": "qwen2_vl",
        "hidden_size": 1536,
        "num_attention_heads": 12,
        "num_hidden_layers": 3,
        "rope_scaling": {"type": "mrope"},
    }
    layers = rotary_layers(config)
    assert layers[0].sections.tolist() == loop_axes_chunked([16, 24, 24])
    assert (
        layers[0].base == 1e6 and [layer.attention for layer in layers] == ["full"] * 3
    )
    window = config | {"use_sliding_window": True, "max_window_layers": 1}
    kinds = [layer.attention for layer in rotary_layers(window)]
    assert kinds == ["full", "sliding", "sliding"]


def test_qwen3_vl_mrope_section_default():
    # Qwen3-VL's model: mrope_section default [24, 20, 20]
    # (models/qwen3_vl/modeling_qwen3_vl.py line 369), interleaved (lines 406-415);
    # Qwen3VLTextConfig: head_dim 128 (configuration_qwen3_vl.py line 90)
    config = {"model_type": "qwen3_vl_text", "num_hidden_layers": 1, "rope_theta": 5e6}
    (layer,) = rotary_layers(config)
    assert layer.rotated == 128
    assert layer.sections.tolist() == loop_axes_interleaved([24, 20, 20], 64)


@pytest.mark.parametrize("model_type", ["qwen3_5_text", "qwen3_next"])
def test_qwen3_5_and_qwen3_next_class_defaults(model_type):
    # Qwen3_5TextConfig (models/qwen3_5/configuration_qwen3_5.py) and Qwen3NextConfig
    # (models/qwen3_next/configuration_qwen3_next.py): head_dim 256 (lines 97, 107),
    # partial_rotary_factor 0.25 (lines 111, 128), layer types "linear_attention"
    # but every full_attention_interval-th (default 4) layer (lines 112-117,
    # 130-135), default_theta 10_000.0; the linear-attention layers are gated
    # delta-nets without rotary (modeling_qwen3_5.py lines 854-897,
    # modeling_qwen3_next.py lines 871-923); Qwen3.5's rotary is interleaved M-RoPE,
    # sections default [11, 11, 10] (modeling_qwen3_5.py lines 150 and 189-198)
    layers = rotary_layers({"model_type": model_type, "num_hidden_layers": 8})
    assert [layer.attention for layer in layers] == (["linear"] * 3 + ["full"]) * 2
    assert [layer.rotated for layer in layers] == [0, 0, 0, 64] * 2
    full = layers[3]
    assert (full.head_dim, full.base) == (256, 10000.0)
    close(full.frequencies, loop_frequencies(64, 10000.0))
    if model_type == "qwen3_5_text":
        assert full.sections.tolist() == loop_axes_interleaved([11, 11, 10], 32)
    else:
        assert full.sections is None and full.layout == "half"


def test_linear_attention_layers_have_no_rotary():
    config = base_config(
        num_hidden_layers=3,
        layer_types=["linear_attention", "full_attention", "linear_attention"],
    )
    layers = rotary_layers(config)
    assert [layer.rotated for layer in layers] == [0, 8, 0]
    assert [layer.attention for layer in layers] == ["linear", "full", "linear"]
    assert layers[0].frequencies is None and layers[0].base is None
    # from the period: every 3rd layer full, the others linear attention
    period = rotary_layers(base_config(num_hidden_layers=3, full_attention_interval=3))
    assert [layer.rotated for layer in period] == [0, 0, 8]
    assert [layer.attention for layer in period] == ["linear", "linear", "full"]
