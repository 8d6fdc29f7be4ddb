"""Which position each token gets and which rotation each layer applies, in widely used
code, transcribed to NumPy.

Each function follows the arithmetic of the code it names, step by step and in the
same precision (``numpy.float32`` where the original uses ``torch.float``, Python
ints and floats where it uses them), so that the tests can compare
``pelib.position_ids`` and ``pelib.rotary_layers`` with what the code computes, not
with a paraphrase. The code here is written for this project; the facts carry over
with these citations. NumPy's float32 ``power``, ``cos`` and ``sin`` stand in for
PyTorch's and can differ from them in the last bit.

Sources, by release (the files of a release are those of the repository
``huggingface/transformers`` at the release tag, under ``src/transformers/``; the
line numbers are those of the released files, read from the wheels
``transformers-4.57.1-py3-none-any.whl`` and ``transformers-5.23.0-py3-none-any.whl``
of the Python Package Index):

- ``transformers`` 4.57.1, the last 4.x release: position ids from the attention mask
  recomputed at every step of ``generate`` (pads get 1), ``cache_position`` when no
  position ids are given, Whisper's decoder rows, Qwen2-VL's
  ``apply_multimodal_rotary_pos_emb`` and Qwen3-VL's ``apply_interleaved_mrope``.
- ``transformers`` 5.23.0: position ids computed once from the prompt's mask (pads
  get 0) and extended by one per step, the rotary classes of GPT-NeoX, Phi, Gemma 3,
  Gemma 4, SmolLM3, Llama 4, Qwen2-VL, Qwen3-VL, Qwen3.5 and Qwen3-Next, the defaults
  their configuration classes fill in, and ``modeling_rope_utils.py`` (the
  "proportional" rotary, ``rope_parameters`` standardisation).
- ``transformers`` 4.45.2 (the last release with a working ``SinkCache``; 4.57.1 keeps
  a stub): ``SinkCache._get_rerotation_cos_sin``, the step that moves its cached keys.
- ``facebookresearch/fairseq``, revision 3d262bb25690e4eb2e7d3c1309b1e9c406ca4b99
  (2025-09-30): the position of a token during incremental decoding.

OPT's rows, fairseq's ``make_positions`` and RoBERTa's ids are in
:mod:`oracle.transcriptions` and re-exported here; the rotary frequencies with
scaling (linear, Llama 3) are :mod:`oracle.rope_scaling`'s ``hf_*`` transcriptions,
whose arithmetic is that of 5.23.0 (``_compute_linear_scaling_rope_parameters``,
lines 134-191, and ``_compute_llama3_parameters``, lines 581-666).

Nothing here imports pelib.
"""

from __future__ import annotations

import numpy as np

from .rope_scaling import hf_default, hf_linear, hf_llama3
from .transcriptions import fairseq_positions, opt_rows, roberta_positions

__all__ = [
    "F32",
    "fairseq_incremental_row",
    "fairseq_positions",
    "gemma3_layer_types",
    "gemma4_layer_types",
    "hf5_generate_position_ids",
    "hf5_next_position_ids",
    "hf5_prefill_position_ids",
    "hf_default_inv_freq",
    "hf_default_position_ids",
    "hf_generate_position_ids",
    "hf_layer_types",
    "hf_proportional_inv_freq",
    "hf_rope_parameters",
    "hf_rotary_dim",
    "hf_rotary_layout",
    "mrope_pair_axes",
    "neox_apply_rotary",
    "neox_cos_sin",
    "no_rope_layers",
    "opt_rows",
    "qwen2_vl_cos_sin",
    "qwen2_vl_cos_sin_v5",
    "qwen3_vl_cos_sin",
    "roberta_positions",
    "rotary_layer_table",
    "sinkcache_rerotation",
    "whisper_rows",
]

F32 = np.float32


# --- position ids ---------------------------------------------------------------------


def hf_generate_position_ids(attention_mask, cache_length=0):
    """The position ids ``generate`` gives the model, transformers 4.57.1: ``cumsum -
    1``, pads set to 1, the uncached columns.

    Source: ``generation/utils.py`` of 4.57.1, ``prepare_inputs_for_generation``
    (line 546), steps 4 and 5, lines 592-620: ``position_ids =
    attention_mask.long().cumsum(-1) - 1``, ``position_ids.masked_fill_(attention_mask
    == 0, 1)``, then with a cache ``position_ids[:, -current_input_length:]``, the
    length of the input ids left after ``_cache_dependant_input_preparation`` (the
    columns from ``cache_position[0] == cache_length`` on). ``attention_mask`` covers
    the cached and the new columns; it grows by one column of ones per step
    (``_update_model_kwargs_for_generation``), and the ids are recomputed from it at
    every step. Returns int64 of shape ``(batch, n - cache_length)``.
    """
    attention_mask = np.asarray(attention_mask)
    position_ids = np.cumsum(attention_mask.astype(np.int64), axis=-1) - 1
    position_ids[attention_mask == 0] = 1
    current_input_length = attention_mask.shape[-1] - cache_length
    return position_ids[:, -current_input_length:]


def hf5_prefill_position_ids(attention_mask):
    """``_prepare_position_ids_for_generation`` of transformers 5.23.0: ``cumsum - 1``,
    pads set to **0**.

    Source: ``generation/utils.py`` of 5.23.0, lines 894-916 (called once, from
    ``generate``, lines 2885-2888, when the caller gives no position ids): with a mask,
    ``attention_mask.long().cumsum(-1) - 1`` and ``masked_fill(attention_mask == 0,
    0)``, commented "We need this as otherwise padding tokens appear as -1 in
    position". 4.57.1 filled the pads with 1 (:func:`hf_generate_position_ids`).
    """
    attention_mask = np.asarray(attention_mask)
    position_ids = np.cumsum(attention_mask.astype(np.int64), axis=-1) - 1
    position_ids[attention_mask == 0] = 0
    return position_ids


def hf5_next_position_ids(position_ids, num_new_tokens=1):
    """``_update_model_kwargs_for_generation`` of 5.23.0: the next ids are the last
    id + 1, + 2, ..., not recomputed from the mask.

    Source: ``generation/utils.py`` of 5.23.0, lines 1265-1276: ``arange(num_new_tokens)
    + position_ids[..., -1:] + 1`` appended to ``position_ids``. The last column of a
    right-padded prompt is a pad whose id is 0, so the first generated token of that
    row gets 1, where 4.57.1 (recomputing ``cumsum - 1`` from the grown mask) gives the
    number of real prompt tokens.
    """
    position_ids = np.asarray(position_ids, dtype=np.int64)
    step = np.arange(num_new_tokens, dtype=np.int64)
    following = step + position_ids[..., -1:] + 1
    return np.concatenate([position_ids, following], axis=-1)


def hf5_generate_position_ids(prompt_mask, steps):
    """The ids 5.23.0's ``generate`` feeds the model: the prompt's at prefill, then one
    column per decoding step.

    Source: :func:`hf5_prefill_position_ids`, :func:`hf5_next_position_ids`, and the
    slicing of ``prepare_inputs_for_generation`` (``generation/utils.py`` of 5.23.0,
    lines 707-713): an input of ``sequence_length`` columns gets
    ``position_ids[..., -sequence_length:]``. Returns a list: the prefill ids, then
    the ``(batch, 1)`` ids of each of ``steps`` decoding steps.
    """
    position_ids = hf5_prefill_position_ids(prompt_mask)
    fed = [position_ids]
    for _ in range(steps):
        position_ids = hf5_next_position_ids(position_ids)
        fed.append(position_ids[..., -1:])
    return fed


def hf_default_position_ids(batch, seq_len, past_seen_tokens=0):
    """The ids a decoder such as Llama makes when it is given none: ``arange(n) +
    past_seen_tokens``, one row shared by the batch.

    Source: ``models/llama/modeling_llama.py`` of 4.57.1, lines 373-380
    (``cache_position = arange(past_seen_tokens, past_seen_tokens + n)``,
    ``position_ids = cache_position.unsqueeze(0)``), and of 5.23.0, lines 375-378
    (``arange(n) + past_seen_tokens``). The mask is not read: every row gets the same
    ids whatever its padding. Broadcast here to ``(batch, seq_len)``.
    """
    position_ids = np.arange(seq_len, dtype=np.int64) + past_seen_tokens
    return np.broadcast_to(position_ids[None, :], (batch, seq_len)).copy()


def whisper_rows(seq_len, past_key_values_length=0):
    """The rows of Whisper's learned decoder table: ``weight[past : past + n]``, the
    mask ignored.

    Source: ``models/whisper/modeling_whisper.py`` of 4.57.1,
    ``WhisperPositionalEmbedding.forward``, lines 207-211 (without position ids,
    ``self.weight[past_key_values_length : past_key_values_length +
    input_ids.shape[1]]``), called by the decoder at lines 881-888 with
    ``past_key_values_length`` from ``cache_position[0]`` or the cache (lines
    866-870). Every row of the batch reads the same rows. (5.23.0 builds ``arange(n) +
    past_key_values_length`` itself, lines 773-777, the same rows.) Both versions
    compute ids from a decoder attention mask in long-form generation only: 4.57.1
    through the shared ``prepare_inputs_for_generation`` (``generation_whisper.py``
    sets ``decoder_attention_mask``), 5.23.0 in Whisper's own override, lines
    1012-1022.
    """
    return np.arange(past_key_values_length, past_key_values_length + seq_len)


def fairseq_incremental_row(prefix_length, padding_idx):
    """The table row fairseq's decoder reads for the newest token while decoding
    incrementally: ``padding_idx + prefix_length``, the same for every row.

    Source: ``facebookresearch/fairseq``, revision
    3d262bb25690e4eb2e7d3c1309b1e9c406ca4b99,
    ``fairseq/modules/learned_positional_embedding.py``, lines 42-48 (with an
    incremental state, ``fill_(int(self.padding_idx + input.size(1)))``, commented
    "positions is the same for every token when decoding a single step"),
    ``fairseq/modules/sinusoidal_positional_embedding.py``, lines 97-106
    (``weights[self.padding_idx + pos, :]`` with ``pos = seq_len``), and
    ``fairseq/models/transformer/transformer_decoder.py``, lines 295-303 (the whole
    prefix ``prev_output_tokens`` goes in, the last column is kept). Padding is not
    counted, unlike :func:`fairseq_positions` on the whole prefix.
    """
    return padding_idx + prefix_length


# --- rotary frequencies ---------------------------------------------------------------


def hf_rotary_dim(head_dim, partial_rotary_factor=1.0):
    """``int(head_dim * partial_rotary_factor)``: how many leading features of a head
    GPT-NeoX, Phi and StableLM rotate.

    Source: 5.23.0, ``models/gpt_neox/modeling_gpt_neox.py``, lines 80-82 (the
    frequencies) and 175-176 (``rotary_ndims``); ``models/phi/modeling_phi.py``, lines
    61-63 and 168. ``int`` truncates the Python float product.
    """
    return int(head_dim * partial_rotary_factor)


def hf_default_inv_freq(base, head_dim, partial_rotary_factor=1.0):
    """``1 / base ** (arange(0, dim, 2) / dim)`` in float32 with ``dim =
    int(head_dim * partial_rotary_factor)``.

    Source: 5.23.0, ``GPTNeoXRotaryEmbedding.compute_default_rope_parameters``
    (``models/gpt_neox/modeling_gpt_neox.py``, lines 68-86) and 4.57.1,
    ``modeling_rope_utils.py``, ``_compute_default_rope_parameters``, lines 123-131.
    The float32 arithmetic is :func:`oracle.rope_scaling.hf_default`'s. Length
    ``ceil(dim / 2)``.
    """
    return hf_default(hf_rotary_dim(head_dim, partial_rotary_factor), base)


def hf_proportional_inv_freq(base, head_dim, partial_rotary_factor=1.0, factor=1.0):
    """Gemma 4's "proportional" rotary: ``base ** (-2i / head_dim)`` for the first
    pairs, zero for the rest, all ``head_dim / 2`` of them.

    Source: 5.23.0, ``modeling_rope_utils.py``,
    ``_compute_proportional_rope_parameters``, lines 194-267: ``rope_angles =
    int(rope_proportion * head_dim // 2)`` (the Python float product, floor-divided
    by 2), ``1.0 / (base ** (arange(0, 2 * rope_angles, 2).float() / head_dim))`` -
    ``head_dim`` in the exponent, not the rotated width -, then ``head_dim // 2 -
    rope_angles`` float32 zeros, and ``inv_freq /= factor``. The cosine and sine
    tables are then as wide as the head (``cat((freqs, freqs))``): the zero
    frequencies rotate their pairs by 0.
    """
    rope_angles = int(partial_rotary_factor * head_dim // 2)
    exponents = np.arange(0, 2 * rope_angles, 2, dtype=np.int64).astype(F32)
    inv_freq_rotated = F32(1.0) / (F32(base) ** (exponents / F32(head_dim)))
    nope_angles = head_dim // 2 - rope_angles
    if nope_angles > 0:
        zeros = np.zeros(nope_angles, dtype=F32)
        inv_freq = np.concatenate([inv_freq_rotated, zeros])
    else:
        inv_freq = inv_freq_rotated
    return (inv_freq / F32(factor)).astype(F32)


def neox_cos_sin(inv_freq, positions):
    """``GPTNeoXRotaryEmbedding.forward``: ``freqs = positions * inv_freq``, ``emb =
    cat((freqs, freqs))``, cosine and sine, float32.

    Source: 5.23.0, ``models/gpt_neox/modeling_gpt_neox.py``, lines 89-97 (the same
    in Llama, Gemma 3/4, SmolLM3). ``positions`` has any shape; the result has one
    more axis, of width ``2 * len(inv_freq)``.
    """
    freqs = np.asarray(positions).astype(F32)[..., None] * np.asarray(inv_freq, F32)
    emb = np.concatenate([freqs, freqs], axis=-1)
    return np.cos(emb), np.sin(emb)


def neox_apply_rotary(x, cos, sin):
    """GPT-NeoX's ``apply_rotary_pos_emb``: ``rotate_half`` on the first
    ``cos.shape[-1]`` features of each head, the rest passed through.

    Source: 5.23.0, ``models/gpt_neox/modeling_gpt_neox.py``, ``rotate_half`` (lines
    100-104: ``cat((-x2, x1))`` of the two halves) and ``apply_rotary_pos_emb``
    (lines 107-140): ``rotary_dim = cos.shape[-1]``, ``q_rot, q_pass = q[...,
    :rotary_dim], q[..., rotary_dim:]``, ``q_rot * cos + rotate_half(q_rot) * sin``,
    concatenated back. Pair ``i`` is features ``(i, i + rotary_dim / 2)`` of the
    rotated part. ``x`` has shape ``(..., n, head_dim)`` and ``cos``, ``sin`` shape
    ``(n, rotary_dim)``; float32.
    """
    x = np.asarray(x, dtype=F32)
    rotary_dim = cos.shape[-1]
    x_rot, x_pass = x[..., :rotary_dim], x[..., rotary_dim:]
    x1, x2 = x_rot[..., : rotary_dim // 2], x_rot[..., rotary_dim // 2 :]
    rotate_half = np.concatenate([-x2, x1], axis=-1)
    embed = x_rot * cos + rotate_half * sin
    return np.concatenate([embed, x_pass], axis=-1)


def sinkcache_rerotation(cos, sin, num_sink_tokens, num_new_tokens=1, dtype=None):
    """``SinkCache._get_rerotation_cos_sin`` of transformers 4.45.2: the cosine and
    sine that move each kept key of a full window back by ``num_new_tokens`` positions.

    Source: 4.45.2, ``cache_utils.py``, lines 919-939 (called from ``update``, lines
    1016-1031, with ``self._cos_cache[: self.window_length]`` and the same for the
    sine: the model's cosines and sines of positions ``0 .. window_length - 1`` as the
    model passed them, in the keys' format). With ``L = num_new_tokens`` and ``S =
    num_sink_tokens``, upcast to float32: ``original_cos = cos[S + L :]``,
    ``shifted_cos = cos[S : -L]`` (and the sines alike), ``rerotation_cos =
    original_cos * shifted_cos + original_sin * shifted_sin``, ``rerotation_sin =
    -original_sin * shifted_cos + original_cos * shifted_sin``, each product and sum
    rounded to float32, then ``.to(key_states.dtype)``. Row ``k`` moves the ``k``-th
    kept key (cache index ``S + L + k``) from the angle of position ``S + L + k`` to
    that of ``S + k``; the step differs from row to row. ``update`` applies it as
    ``keys * rerotation_cos + rotate_half(keys) * rerotation_sin`` in the keys'
    format (lines 913-917). ``dtype`` is the keys' format (default: that of
    ``cos``); returns two arrays of shape ``(window_length - S - L, head_dim)``.
    """
    dtype = np.asarray(cos).dtype if dtype is None else dtype
    cos, sin = np.asarray(cos).astype(F32), np.asarray(sin).astype(F32)
    start, shift = num_sink_tokens, num_new_tokens
    original_cos, shifted_cos = cos[start + shift :], cos[start:-shift]
    original_sin, shifted_sin = sin[start + shift :], sin[start:-shift]
    rerotation_cos = original_cos * shifted_cos + original_sin * shifted_sin
    rerotation_sin = -original_sin * shifted_cos + original_cos * shifted_sin
    return rerotation_cos.astype(dtype), rerotation_sin.astype(dtype)


# --- M-RoPE: the cosine and sine of three position axes -------------------------------


def _mrope_freqs(position_ids, inv_freq):
    """``inv_freq @ position_ids`` per axis, float32: shape ``(3, batch, n,
    len(inv_freq))``."""
    position_ids = np.asarray(position_ids).astype(F32)
    return position_ids[..., None] * np.asarray(inv_freq, dtype=F32)


def _split_sections(values, sections):
    """``tensor.split(sections, dim=-1)``: consecutive chunks of the given widths."""
    edges = np.cumsum(sections)[:-1]
    return np.split(values, edges, axis=-1)


def qwen2_vl_cos_sin(position_ids, inv_freq, mrope_section):
    """Qwen2-VL's M-RoPE tables, transformers 4.57.1: chunks of the full-width cos/sin
    taken from the time, height and width axes in turn.

    Source: 4.57.1, ``models/qwen2_vl/modeling_qwen2_vl.py``:
    ``Qwen2VLRotaryEmbedding.forward`` (lines 130-145: ``freqs = inv_freq @
    position_ids`` for the 3 axes, ``emb = cat((freqs, freqs))``, cos and sin in
    float32 with autocast off) and ``apply_multimodal_rotary_pos_emb`` (lines 156-198:
    ``mrope_section = mrope_section * 2``, ``cat([m[i % 3] for i, m in
    enumerate(cos.split(mrope_section, dim=-1))])``). ``position_ids`` has shape
    ``(3, batch, n)``: time, height, width. Returns cos, sin of shape ``(batch, n,
    2 * len(inv_freq))``.
    """
    freqs = _mrope_freqs(position_ids, inv_freq)
    emb = np.concatenate([freqs, freqs], axis=-1)
    cos, sin = np.cos(emb), np.sin(emb)
    sections = list(mrope_section) * 2
    cos = np.concatenate(
        [m[i % 3] for i, m in enumerate(_split_sections(cos, sections))], axis=-1
    )
    sin = np.concatenate(
        [m[i % 3] for i, m in enumerate(_split_sections(sin, sections))], axis=-1
    )
    return cos, sin


def _qwen2_vl_recomposition(freq, mrope_section):
    """5.23.0's ``recomposition_frequencies``: chunks of the half-width table from the
    axes in turn, then doubled."""
    freq = np.concatenate(
        [m[i % 3] for i, m in enumerate(_split_sections(freq, mrope_section))],
        axis=-1,
    )
    return np.concatenate([freq, freq], axis=-1)


def qwen2_vl_cos_sin_v5(position_ids, inv_freq, mrope_section):
    """Qwen2-VL's M-RoPE tables, transformers 5.23.0: the sections chosen on the
    half-width cos/sin, then doubled.

    Source: 5.23.0, ``models/qwen2_vl/modeling_qwen2_vl.py``, ``Qwen2VLRotaryEmbedding``
    (lines 86-142): ``freqs = position_ids[..., None].float() * inv_freq``, ``cos =
    freqs.cos()``, ``sin = freqs.sin()``, then ``recomposition_frequencies`` (lines
    137-142): ``cat([m[i % 3] for i, m in enumerate(freq.split(self.mrope_section,
    dim=-1))])`` and ``cat((freq, freq))``. The same tables as 4.57.1
    (:func:`qwen2_vl_cos_sin`) whenever the sections sum to ``len(inv_freq)``.
    """
    freqs = _mrope_freqs(position_ids, inv_freq)
    cos = _qwen2_vl_recomposition(np.cos(freqs), mrope_section)
    sin = _qwen2_vl_recomposition(np.sin(freqs), mrope_section)
    return cos, sin


def _qwen3_vl_interleave(freqs, mrope_section):
    """``apply_interleaved_mrope``: the time axis everywhere, then the height axis on
    pairs ``1, 4, 7, ... < 3 * section[1]`` and the width axis on ``2, 5, 8, ... < 3 *
    section[2]``."""
    freqs_t = freqs[0].copy()
    for dim, offset in enumerate((1, 2), start=1):
        length = mrope_section[dim] * 3
        idx = slice(offset, length, 3)
        freqs_t[..., idx] = freqs[dim, ..., idx]
    return freqs_t


def qwen3_vl_cos_sin(position_ids, inv_freq, mrope_section):
    """Qwen3-VL's interleaved M-RoPE tables, float32.

    Source: 4.57.1, ``models/qwen3_vl/modeling_qwen3_vl.py``,
    ``Qwen3VLTextRotaryEmbedding``: ``apply_interleaved_mrope`` (lines 299-314) and
    ``forward`` (lines 316-334): ``freqs = inv_freq @ position_ids`` for the 3 axes,
    the pairs picked per axis as ``_qwen3_vl_interleave`` does, then ``emb =
    cat((freqs, freqs))``, cos and sin. 5.23.0 does the same on cos and sin
    (``recomposition_frequencies``, lines 406-415). A 2-D ``position_ids`` is used for
    the three axes (line 321-322). Returns cos, sin of shape ``(batch, n, 2 *
    len(inv_freq))``.
    """
    position_ids = np.asarray(position_ids)
    if position_ids.ndim == 2:
        position_ids = np.broadcast_to(position_ids[None], (3, *position_ids.shape))
    freqs = _qwen3_vl_interleave(_mrope_freqs(position_ids, inv_freq), mrope_section)
    emb = np.concatenate([freqs, freqs], axis=-1)
    return np.cos(emb), np.sin(emb)


def mrope_pair_axes(mrope_section, interleaved):
    """The position axis (0 time, 1 height, 2 width) that drives each rotated pair,
    read off the code paths above.

    Axis labels stand in for the frequencies: the half-width table whose axis ``a``
    holds ``a`` everywhere is put through 5.23.0's Qwen2-VL recomposition (chunked)
    or Qwen3-VL's interleave, and the first half of the result is returned (int64,
    one entry per pair).
    """
    half = int(sum(mrope_section))
    labels = np.broadcast_to(np.arange(3)[:, None], (3, half)).copy()
    if interleaved:
        return _qwen3_vl_interleave(labels, mrope_section).astype(np.int64)
    return _qwen2_vl_recomposition(labels, mrope_section)[:half].astype(np.int64)


# --- which layers rotate, and how -----------------------------------------------------


def gemma3_layer_types(num_hidden_layers, sliding_window_pattern=6):
    """Gemma 3's layer types when the configuration gives none: every
    ``sliding_window_pattern``-th layer is full attention.

    Source: 5.23.0, ``models/gemma3/configuration_gemma3.py``, lines 105-112:
    ``"sliding_attention" if bool((i + 1) % pattern) else "full_attention"``, the
    pattern read from ``kwargs.get("sliding_window_pattern", 6)``.
    """
    return [
        "sliding_attention"
        if bool((i + 1) % sliding_window_pattern)
        else "full_attention"
        for i in range(num_hidden_layers)
    ]


def gemma4_layer_types(num_hidden_layers):
    """Gemma 4's default layer types: Gemma 3's with a pattern of 6, the last layer
    forced to full attention.

    Source: 5.23.0, ``models/gemma4/configuration_gemma4.py``, lines 189-200 (the last
    layer is forced to ``full_attention`` also when the configuration gives the
    types, with a warning).
    """
    types = gemma3_layer_types(num_hidden_layers, 6)
    if types:
        types[-1] = "full_attention"
    return types


def no_rope_layers(num_hidden_layers, interval=4):
    """SmolLM3's and Llama 4's default ``no_rope_layers``: ``int((i + 1) % interval !=
    0)``, so **1 marks a layer that uses rotary**.

    Source: 5.23.0, ``models/smollm3/configuration_smollm3.py``, lines 101-104, and
    ``models/llama4/configuration_llama4.py``, lines 170-173; the attention reads
    ``self.use_rope = config.no_rope_layers[layer_idx]`` and rotates ``if
    self.use_rope`` (SmolLM3: ``modeling_smollm3.py``, lines 192 and 214-216; Llama 4:
    ``modeling_llama4.py``, lines 318 and 349-352). The docstrings agree: "A `1` at
    an index position indicates that the corresponding layer will use RoPE"
    (``configuration_smollm3.py``, lines 32-35). The name says the opposite.
    """
    return [int((i + 1) % interval != 0) for i in range(num_hidden_layers)]


# --- reading a configuration as transformers 5.23.0 does ------------------------------

#: ``default_theta`` of the configuration classes that change it (5.23.0): used only
#: when a configuration gives no base. Gemma 3 and 4 set theirs per layer type.
_DEFAULT_THETA = {
    "smollm3": 2000000.0,
    "llama4": 500000.0,
    "llama4_text": 500000.0,
    "qwen2_vl": 1000000.0,
    "qwen2_vl_text": 1000000.0,
    "qwen3_vl": 500000.0,
    "qwen3_vl_text": 500000.0,
}
#: Defaults of ``partial_rotary_factor`` set by the configuration classes (5.23.0):
#: ``configuration_gpt_neox.py`` line 98 (``rotary_pct``), ``configuration_phi.py``
#: line 88, ``configuration_stablelm.py`` line 68, ``configuration_qwen3_5.py`` line
#: 111, ``configuration_qwen3_next.py`` line 128 (``kwargs.setdefault``).
_DEFAULT_PARTIAL = {
    "gpt_neox": 0.25,
    "phi": 0.5,
    "stablelm": 0.25,
    "qwen3_5": 0.25,
    "qwen3_5_text": 0.25,
    "qwen3_next": 0.25,
}
_QWEN3_5 = ("qwen3_5", "qwen3_5_text")
_HYBRID = (*_QWEN3_5, "qwen3_next")  # gated delta-net layers beside full attention
#: Models whose "default" frequencies take the partial factor (their own
#: ``compute_default_rope_parameters``: ``dim = int(head_dim * partial_rotary_factor)``;
#: ``modeling_qwen3_5.py`` lines 165-168, ``modeling_qwen3_next.py`` lines 105-108).
_PARTIAL_DEFAULT_ROPE = ("gpt_neox", "phi", "stablelm", *_HYBRID)
_GEMMA3 = ("gemma3", "gemma3_text")
_GEMMA4 = ("gemma4", "gemma4_text")
_QWEN2_VL = ("qwen2_vl", "qwen2_vl_text")
_QWEN3_VL = ("qwen3_vl", "qwen3_vl_text", "qwen3_vl_moe", "qwen3_vl_moe_text")
_NO_ROPE = ("smollm3", "llama4", "llama4_text")
_LLAMA_LIKE = ("llama", "mistral", "qwen2", "qwen3", *_NO_ROPE, *_QWEN2_VL, *_QWEN3_VL)
_KNOWN = (*_PARTIAL_DEFAULT_ROPE, *_GEMMA3, *_GEMMA4, *_LLAMA_LIKE)


def _fields(hidden, layers, heads, length, **more):
    return dict(
        hidden_size=hidden,
        num_hidden_layers=layers,
        num_attention_heads=heads,
        max_position_embeddings=length,
        **more,
    )


#: The dataclass field defaults (5.23.0) of the keys read here, which a ``config.json``
#: that leaves a key out gets: ``configuration_gpt_neox.py`` lines 62-70,
#: ``configuration_phi.py`` 64-73, ``configuration_stablelm.py`` 47-52,
#: ``configuration_llama.py`` 65-84, ``configuration_gemma3.py`` 75-82,
#: ``configuration_gemma4.py`` 152-159, ``configuration_llama4.py`` 131-158,
#: ``configuration_smollm3.py`` 73-90, ``configuration_qwen2_vl.py`` 87-99,
#: ``configuration_qwen3_vl.py`` 85-92, ``configuration_qwen3_5.py`` 83-97,
#: ``configuration_qwen3_next.py`` 93-107. A composite configuration (``gemma3``,
#: ``llama4``...) builds its text configuration from ``text_config`` with these.
_CLASS_FIELDS = {
    "gpt_neox": _fields(6144, 44, 64, 2048),
    "phi": _fields(2048, 24, 32, 2048),
    "stablelm": _fields(2560, 32, 32, 4096),
    "llama": _fields(4096, 32, 32, 2048, head_dim=None),
    "gemma3_text": _fields(2304, 26, 8, 131_072, head_dim=256),
    "gemma4_text": _fields(2304, 30, 8, 131_072, head_dim=256),
    "llama4_text": _fields(5120, 48, 40, 4096 * 32, head_dim=128),
    "smollm3": _fields(2048, 36, 16, 32768, use_sliding_window=False),
    "qwen2_vl_text": _fields(
        8192, 80, 64, 32768, use_sliding_window=False, sliding_window=4096
    ),
    "qwen3_vl_text": _fields(4096, 32, 32, 128000, head_dim=128),
    "qwen3_5_text": _fields(4096, 32, 16, 32768, head_dim=256),
    "qwen3_next": _fields(2048, 48, 16, 32768, head_dim=256),
}
_CLASS_FIELDS["llama4_text"].update(no_rope_layer_interval=4)
_CLASS_FIELDS["smollm3"].update(sliding_window=None, no_rope_layer_interval=4)
_CLASS_FIELDS["qwen2_vl_text"].update(max_window_layers=80)
for _composite in ("gemma3", "gemma4", "llama4", "qwen2_vl", "qwen3_vl", "qwen3_5"):
    _CLASS_FIELDS[_composite] = _CLASS_FIELDS[_composite + "_text"]


def _text_and_type(config):
    """The text configuration (``text_config`` when nested, else the top level, as
    Qwen2-VL's flat Hub files), with the class's field defaults for the keys it leaves
    out, and its model type."""
    text = config.get("text_config")
    text = text if isinstance(text, dict) else config
    model_type = text.get("model_type") or config.get("model_type")
    if model_type not in _KNOWN:
        raise ValueError(
            f"model_type {model_type!r} is not transcribed; known: {_KNOWN}"
        )
    return {**_CLASS_FIELDS.get(model_type, {}), **text}, model_type


def _standardize(params, text):
    """``standardize_rope_params`` for one dict (5.23.0 ``modeling_rope_utils.py``,
    lines 806-866): ``rope_type`` from ``type`` or "default", and the original length
    of llama3/yarn/longrope."""
    params.setdefault("rope_type", params.get("type", "default"))
    if params["rope_type"] in ("llama3", "yarn", "longrope"):
        if "original_max_position_embeddings" in text:
            original = text["original_max_position_embeddings"]
            params["original_max_position_embeddings"] = original
        else:
            original = text.get("max_position_embeddings")
            params.setdefault("original_max_position_embeddings", original)
    return params


def _flat_rope_parameters(text, model_type):
    """``convert_rope_params_to_dict`` (5.23.0 ``modeling_rope_utils.py``, lines
    775-804; GPT-NeoX's, ``configuration_gpt_neox.py`` lines 90-100; Qwen2-VL's,
    ``configuration_qwen2_vl.py`` lines 124-133), then ``_standardize``."""
    params = dict(text.get("rope_scaling") or text.get("rope_parameters") or {})
    if model_type == "gpt_neox":
        params.setdefault("rope_theta", text.get("rotary_emb_base", 10000.0))
        params.setdefault("partial_rotary_factor", text.get("rotary_pct", 0.25))
    else:
        theta = text.get("rope_theta", _DEFAULT_THETA.get(model_type, 10000.0))
        params.setdefault("rope_theta", theta)
        partial = text.get("partial_rotary_factor", _DEFAULT_PARTIAL.get(model_type))
        if partial is not None:
            params.setdefault("partial_rotary_factor", partial)
    if (
        model_type in _QWEN2_VL
        and params.get("rope_type", params.get("type")) == "mrope"
    ):
        params["rope_type"] = "default"
    return _standardize(params, text)


def _gemma_rope_parameters(text, model_type):
    """Gemma 3's ``convert_rope_params_to_dict`` (5.23.0 ``configuration_gemma3.py``,
    lines 133-159: ``rope_scaling`` goes to the full-attention layers only, the
    sliding layers take ``rope_local_base_freq``) and Gemma 4's defaults
    (``configuration_gemma4.py``, lines 202-207)."""
    if model_type in _GEMMA4:
        params = text.get("rope_parameters") or {
            "sliding_attention": {"rope_type": "default", "rope_theta": 10_000.0},
            "full_attention": {
                "rope_type": "proportional",
                "partial_rotary_factor": 0.25,
                "rope_theta": 1_000_000.0,
            },
        }
        params = {key: dict(value) for key, value in params.items()}
    else:
        default = {"rope_type": "default"}
        params = text.get("rope_parameters") or {
            "sliding_attention": dict(default),
            "full_attention": dict(default),
        }
        params = {key: dict(value) for key, value in params.items()}
        if text.get("rope_scaling") is not None:
            params["full_attention"].update(text["rope_scaling"])
        params["full_attention"].setdefault("rope_theta", text.get("rope_theta", 1e6))
        local = text.get("rope_local_base_freq", 10_000.0)
        params["sliding_attention"].setdefault("rope_theta", local)
    return {
        key: _standardize(value, text)
        for key, value in params.items()
        if key in ("full_attention", "sliding_attention")
    }


def hf_rope_parameters(config):
    """The ``rope_parameters`` transformers 5.23.0 derives from a ``config.json``
    dict: one flat dict, or for Gemma 3 and 4 one per layer type."""
    text, model_type = _text_and_type(config)
    if model_type in (*_GEMMA3, *_GEMMA4):
        return _gemma_rope_parameters(text, model_type)
    return _flat_rope_parameters(text, model_type)


def hf_layer_types(config):
    """The layer types 5.23.0's configuration classes set (None where the model has
    none): Gemma 3 and 4 from the pattern, SmolLM3 and Llama 4 from
    ``no_rope_layers``, Qwen2-VL from its sliding window, Qwen3.5 and Qwen3-Next from
    ``full_attention_interval``.

    SmolLM3 (``configuration_smollm3.py``, lines 106-114) makes a layer sliding only
    if ``use_sliding_window`` and ``sliding_window`` are set and the layer has **no**
    rotary; Llama 4 (``configuration_llama4.py``, lines 188-191) writes
    ``"chunked_attention" if no_rope else "full_attention" for no_rope in
    self.no_rope_layers``: the variable named ``no_rope`` holds 1 for a layer that
    uses rotary, so the rotary layers are the chunked ones. Qwen2-VL
    (``configuration_qwen2_vl.py``, lines 107-120): ``sliding_window`` is None unless
    ``use_sliding_window``, and layer ``i`` is sliding if the window is set and ``i >=
    max_window_layers``. Qwen3.5 (``configuration_qwen3_5.py``, lines 110-118) and
    Qwen3-Next (``configuration_qwen3_next.py``, lines 127-135): ``"linear_attention"
    if bool((i + 1) % interval_pattern) else "full_attention"``, the interval popped
    from ``full_attention_interval``, default 4.
    """
    text, model_type = _text_and_type(config)
    n = text["num_hidden_layers"]
    given = text.get("layer_types")
    if model_type in _GEMMA3:
        return given or gemma3_layer_types(n, text.get("sliding_window_pattern", 6))
    if model_type in _GEMMA4:
        types = list(given) if given else gemma4_layer_types(n)
        types[-1] = "full_attention"
        return types
    if given is not None:
        return given
    if model_type in _QWEN2_VL:
        window = text["sliding_window"] if text["use_sliding_window"] else None
        return [
            "sliding_attention"
            if window is not None and i >= text["max_window_layers"]
            else "full_attention"
            for i in range(n)
        ]
    if model_type in _HYBRID:
        return _hybrid_layer_types(text)
    if model_type not in _NO_ROPE:
        return None
    uses_rope = _uses_rope(text, model_type)
    if model_type == "smollm3":
        sliding = text["use_sliding_window"] and text["sliding_window"] is not None
        return [
            "sliding_attention" if sliding and not rope else "full_attention"
            for rope in uses_rope
        ]
    return ["chunked_attention" if rope else "full_attention" for rope in uses_rope]


def _hybrid_layer_types(text):
    """Qwen3.5's and Qwen3-Next's layer types: given, else every
    ``full_attention_interval``-th layer full, the others linear attention."""
    if text.get("layer_types") is not None:
        return text["layer_types"]
    interval_pattern = text.get("full_attention_interval", 4)
    return [
        "linear_attention" if bool((i + 1) % interval_pattern) else "full_attention"
        for i in range(text["num_hidden_layers"])
    ]


def _uses_rope(text, model_type):
    """Whether each layer rotates: ``bool(no_rope_layers[i])`` (SmolLM3 fills a missing
    list, Llama 4 also an empty one: ``self.no_rope_layers if self.no_rope_layers else
    default``, ``configuration_llama4.py`` line 173); in Qwen3.5 and Qwen3-Next only
    the ``"full_attention"`` layers: a ``"linear_attention"`` layer is a gated
    delta-net called without the position embeddings (``modeling_qwen3_5.py``, lines
    854-897: ``Qwen3_5DecoderLayer`` makes ``self.linear_attn =
    Qwen3_5GatedDeltaNet(...)`` and calls it with the hidden states, the cache and the
    mask only; ``modeling_qwen3_next.py``, lines 871-923, the same)."""
    n = text["num_hidden_layers"]
    if model_type in _HYBRID:
        types = _hybrid_layer_types(text)
        return [types[i] == "full_attention" for i in range(n)]
    if model_type not in _NO_ROPE:
        return [True] * n
    given = text.get("no_rope_layers")
    interval = text["no_rope_layer_interval"]
    if model_type == "smollm3":
        flags = given if given is not None else no_rope_layers(n, interval)
    else:
        flags = given if given else no_rope_layers(n, interval)
    return [bool(flags[i]) for i in range(n)]


def hf_rotary_layout(config):
    """Which features form a pair in transformers 5.23.0: "half" (``rotate_half``:
    ``i`` with ``i + rotated / 2``) or "interleaved" (``2i`` with ``2i + 1``).

    Llama 4 is interleaved: ``apply_rotary_emb`` (``modeling_llama4.py``, lines
    225-234) reads each head as complex numbers from neighbouring features
    (``view_as_complex(xq.float().reshape(*xq.shape[:-1], -1, 2))``) and multiplies
    by ``freqs_cis = polar(1, freqs)`` (lines 217-222). Every other model here uses
    ``rotate_half``.
    """
    _, model_type = _text_and_type(config)
    return "interleaved" if model_type in ("llama4", "llama4_text") else "half"


def _inv_freq(params, head_dim, model_type):
    """The float32 inverse frequencies of one ``rope_parameters`` dict, by
    ``rope_type``, through the function the 5.23.0 model calls."""
    rope_type = params["rope_type"]
    base = params["rope_theta"]
    partial = params.get("partial_rotary_factor", 1.0)
    dim = hf_rotary_dim(head_dim, partial)
    if rope_type == "default":
        if model_type in _PARTIAL_DEFAULT_ROPE:
            return hf_default_inv_freq(base, head_dim, partial)
        return hf_default(head_dim, base)  # Llama, Gemma, Qwen: no partial factor
    if rope_type == "linear":
        return hf_linear(dim, base, params["factor"])[0]
    if rope_type == "llama3":
        return hf_llama3(
            dim,
            base,
            params["factor"],
            params["low_freq_factor"],
            params["high_freq_factor"],
            params["original_max_position_embeddings"],
        )[0]
    if rope_type == "proportional":
        return hf_proportional_inv_freq(
            base, head_dim, partial, params.get("factor", 1.0)
        )
    raise NotImplementedError(f"rope_type {rope_type!r} is not transcribed here")


def _head_dim(text, model_type):
    """``head_dim`` or ``hidden_size // num_attention_heads`` (GPT-NeoX always the
    latter, ``modeling_gpt_neox.py`` line 173)."""
    default = text["hidden_size"] // text["num_attention_heads"]
    if model_type == "gpt_neox":
        return default
    return text.get("head_dim") or default


def rotary_layer_table(config):
    """Per layer, what transformers 5.23.0 rotates for this ``config.json`` dict:
    ``(inv_freq, rotated, sections)``.

    ``inv_freq`` is the float32 array the layer's rotary embedding holds (None for a
    layer that does not rotate), ``rotated`` the width of its cosine table, ``2 *
    len(inv_freq)``, which is how many leading features of each head
    ``apply_rotary_pos_emb`` touches (0 without rotary), and ``sections`` the position
    axis of each pair for M-RoPE (:func:`mrope_pair_axes`) or None. Follows, model by
    model: the rope parameters (:func:`hf_rope_parameters`), the head width
    (Gemma 4's full-attention layers take ``global_head_dim``, default 512, through
    ``per_layer_config``: ``configuration_gemma4.py`` lines 209-224 and
    ``Gemma4TextRotaryEmbedding``, ``modeling_gemma4.py`` lines 1078-1108), the layer
    types (:func:`hf_layer_types`) and ``no_rope_layers`` (``_uses_rope``).
    M-RoPE's sections default to the model class's: ``[16, 24, 24]`` for Qwen2-VL
    (``modeling_qwen2_vl.py`` line 102), ``[24, 20, 20]`` for Qwen3-VL
    (``modeling_qwen3_vl.py`` line 369), ``[11, 11, 10]`` for Qwen3.5
    (``modeling_qwen3_5.py`` line 150). Qwen3-VL's and Qwen3.5's interleaving is
    chosen by the model class: transformers does not read ``mrope_interleaved``
    (``configuration_qwen3_vl.py`` line 82 and ``configuration_qwen3_5.py`` line 108
    list it among the keys their validation ignores). Qwen3.5's rotary
    (``Qwen3_5TextRotaryEmbedding``, ``modeling_qwen3_5.py`` lines 134-198) is
    Qwen3-VL's interleaved M-RoPE on ``int(head_dim * partial_rotary_factor)``
    features (its ``compute_default_rope_parameters``, lines 152-173), which its
    ``apply_rotary_pos_emb`` (lines 667-702) rotates, passing the rest of the head.
    """
    text, model_type = _text_and_type(config)
    params = hf_rope_parameters(config)
    head_dim = _head_dim(text, model_type)
    n = text["num_hidden_layers"]
    if model_type in (*_GEMMA3, *_GEMMA4):
        types = hf_layer_types(config)
        table = []
        for layer_type in types:
            width = head_dim
            if model_type in _GEMMA4 and layer_type == "full_attention":
                width = text.get("global_head_dim", 512)
            inv_freq = _inv_freq(params[layer_type], width, model_type)
            table.append((inv_freq, 2 * len(inv_freq), None))
        return tuple(table)
    inv_freq = _inv_freq(params, head_dim, model_type)
    sections = None
    if model_type in _QWEN2_VL:
        sections = mrope_pair_axes(params.get("mrope_section", [16, 24, 24]), False)
    elif model_type in _QWEN3_VL:
        sections = mrope_pair_axes(params.get("mrope_section", [24, 20, 20]), True)
    elif model_type in _QWEN3_5:
        sections = mrope_pair_axes(params.get("mrope_section", [11, 11, 10]), True)
    return tuple(
        (inv_freq, 2 * len(inv_freq), sections) if rope else (None, 0, None)
        for rope in _uses_rope(text, model_type)[:n]
    )
