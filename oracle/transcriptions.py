"""Widely used code that computes a sinusoidal table or position ids, transcribed to
NumPy.

Each function follows the arithmetic of the code it names, step by step and in the
same precision (``numpy.float32`` where the original uses ``torch.float`` or
``tf.float32``, float64 where it uses Python floats or NumPy), so that chapter 2 and
the tests can compare pelib's conventions with what the code actually computes, not
with a paraphrase. The source of each is cited by repository, commit, path and lines;
the code here is written for this project. NumPy's float32 ``exp``, ``sin`` and ``cos``
stand in for those of PyTorch and TensorFlow and can differ from them in the last bit.

Nothing here imports pelib.
"""

from __future__ import annotations

import math

import numpy as np

F32 = np.float32


def tensor2tensor(
    length, channels, min_timescale=1.0, max_timescale=1.0e4, start_index=0
):
    """tensor2tensor's ``get_timing_signal_1d``, in float32: ``[sin | cos]`` and a zero
    column if odd.

    Source: ``tensorflow/tensor2tensor``, revision
    16d59abb2e80a9f06646e587a995a39aa128358a (2019-03-25),
    ``tensor2tensor/layers/common_attention.py``, lines 403-449,
    ``get_timing_signal_1d``. Token for token the code the literature notes paste is the
    function of each of the 44 master revisions of the file from 5e19f44f (2018-09-22)
    to d13c3318 (2019-07-30); at the lines their link names, 403-449, it stood only from
    164d26ba (2019-02-14) to 16d59abb, before 6be7d5c8 (2019-03-28) moved it; from
    ffe4cf40 (2019-08-27) it carries the comment "Please note that this slightly differs
    from the published paper.", and in 2023 master had it at lines 408-456. It has
    ``start_index`` and ``tf.maximum(num_timescales - 1, 1)`` guarding the division. An
    earlier revision, 75b75f2e2281101b9b3637e14ef519afd6a11b68 (lines 270-313), has
    neither: it divides by ``num_timescales - 1`` and so returns nan for 2 or 3
    channels. ``tf.to_float`` is float32; the Python float ``log(max / min)`` is divided
    by a float32 tensor, so it is rounded to float32 first. Returns shape ``(1, length,
    channels)``, as the original.
    """
    position = (np.arange(length) + start_index).astype(F32)
    num_timescales = channels // 2
    log_timescale_increment = F32(
        math.log(float(max_timescale) / float(min_timescale))
    ) / np.maximum(F32(num_timescales) - F32(1), F32(1))
    inv_timescales = F32(min_timescale) * np.exp(
        np.arange(num_timescales).astype(F32) * -log_timescale_increment
    )
    scaled_time = position[:, None] * inv_timescales[None, :]
    signal = np.concatenate([np.sin(scaled_time), np.cos(scaled_time)], axis=1)
    signal = np.pad(signal, [[0, 0], [0, channels % 2]])
    return signal.reshape(1, length, channels)


def fairseq_embedding(num_embeddings, embedding_dim, padding_idx=None):
    """fairseq's ``SinusoidalPositionalEmbedding.get_embedding``: ``[sin | cos]``,
    float32, padding row zeroed.

    Source: ``facebookresearch/fairseq``, revision
    05625e3e6e660909e4df833de1f7b49019496a68,
    ``fairseq/modules/sinusoidal_positional_embedding.py``, lines 35-58. The frequencies
    are ``exp(-k log(10000) / (half_dim - 1))``, tensor2tensor's grid; the Python float
    ``log(10000) / (half_dim - 1)`` is rounded to float32 when it multiplies the float32
    range. Row ``p`` holds position ``p``; ``forward`` looks rows up with
    :func:`fairseq_positions`, so the first token reads row ``padding_idx + 1``.
    """
    half_dim = embedding_dim // 2
    emb = math.log(10000) / (half_dim - 1)
    emb = np.exp(np.arange(half_dim, dtype=F32) * F32(-emb))
    emb = np.arange(num_embeddings, dtype=F32)[:, None] * emb[None, :]
    emb = np.concatenate([np.sin(emb), np.cos(emb)], axis=1).reshape(num_embeddings, -1)
    if embedding_dim % 2 == 1:
        emb = np.concatenate([emb, np.zeros((num_embeddings, 1), dtype=F32)], axis=1)
    if padding_idx is not None:
        emb[padding_idx, :] = 0
    return emb


def fairseq_positions(tokens, padding_idx):
    """fairseq's ``utils.make_positions``: ``padding_idx + 1, + 2, ...`` for real
    tokens, ``padding_idx`` for pads.

    Source: ``facebookresearch/fairseq``, revision
    032a404d389307a0e8f7dd2a0d501c78afa78f39, ``fairseq/utils.py``, lines 240-250. Only
    real tokens are counted, so left padding does not move the positions of the tokens
    after it.
    """
    tokens = np.asarray(tokens)
    mask = (tokens != padding_idx).astype(np.int32)
    return (np.cumsum(mask, axis=1) * mask).astype(np.int64) + padding_idx


def marian_weight(n_pos, dim):
    """Hugging Face Marian's ``MarianSinusoidalPositionalEmbedding._init_weight``:
    ``[sin | cos]``, the paper's frequencies.

    Source: ``huggingface/transformers``, revision
    d02747e153da5844c1abaa36eec184b0177247c0,
    ``src/transformers/models/marian/modeling_marian.py``, lines 112-127 (Pegasus copies
    it). The angles ``pos / 10000 ** (2 * (j // 2) / dim)`` are float64; the sines of
    the even ``j`` fill the first ``ceil(dim / 2)`` columns and the cosines of the odd
    ``j`` the rest, then the table is stored in float32. Positions start at 0.
    """
    position_enc = np.array(
        [
            [pos / np.power(10000, 2 * (j // 2) / dim) for j in range(dim)]
            for pos in range(n_pos)
        ]
    )
    out = np.empty((n_pos, dim), dtype=F32)
    sentinel = dim // 2 if dim % 2 == 0 else (dim // 2) + 1
    out[:, 0:sentinel] = np.sin(position_enc[:, 0::2])
    out[:, sentinel:] = np.cos(position_enc[:, 1::2])
    return out


def musicgen_embedding(num_embeddings, embedding_dim):
    """Hugging Face MusicGen's ``MusicgenSinusoidalPositionalEmbedding.get_embedding``:
    ``[cos | sin]``.

    Source: ``huggingface/transformers``, revision
    7713be1e51fbf31eb2c5eb27624369e08af29243,
    ``src/transformers/models/musicgen/modeling_musicgen.py``, lines 133-147. fairseq's
    arithmetic (tensor2tensor's frequencies, float32) with the cosines first, a zero
    column for an odd width, no padding row; positions start at 0.
    """
    half_dim = embedding_dim // 2
    emb = math.log(10000) / (half_dim - 1)
    emb = np.exp(np.arange(half_dim, dtype=np.int64).astype(F32) * F32(-emb))
    emb = np.arange(num_embeddings, dtype=np.int64).astype(F32)[:, None] * emb[None, :]
    emb = np.concatenate([np.cos(emb), np.sin(emb)], axis=1).reshape(num_embeddings, -1)
    if embedding_dim % 2 == 1:
        emb = np.concatenate([emb, np.zeros((num_embeddings, 1), dtype=F32)], axis=1)
    return emb


def positional_encodings_1d(length, channels):
    """``PositionalEncoding1D`` of the ``positional-encodings`` package, for one
    sequence of ``length`` positions.

    Source: ``tatp22/multidim-positional-encoding``, revision
    57542dfb04d8f3b97775c3ee271a5b523907e046,
    ``positional_encodings/torch_encodings.py``, lines 6-47. The width is rounded up to
    an even ``C``, the frequencies are ``1 / 10000 ** (2i / C)`` in float32, the (sin,
    cos) pairs are interleaved, and the table is cut back to ``channels`` columns, so an
    odd width loses its last cosine and every exponent is ``2i / C`` instead of ``2i /
    channels``. The original writes into a table of the input tensor's dtype; this
    transcription models a float32 input. (An older release, revision
    c4f9180dc27d92fd3889278f5f2be421178f98fe, used ``[sin | cos]``.)
    """
    rounded = int(np.ceil(channels / 2) * 2)
    inv_freq = F32(1.0) / (
        F32(10000) ** (np.arange(0, rounded, 2).astype(F32) / F32(rounded))
    )
    pos_x = np.arange(length, dtype=F32)
    sin_inp_x = np.einsum("i,j->ij", pos_x, inv_freq)
    emb_x = np.stack((np.sin(sin_inp_x), np.cos(sin_inp_x)), axis=-1).reshape(
        length, rounded
    )
    return emb_x[:, :channels]


def pytorch_tutorial(max_len, d_model):
    """The ``PositionalEncoding`` of the PyTorch transformer tutorial, in float32
    (interleaved).

    Source: ``pytorch/tutorials``, revision e5f60c64367b2ff3c19e5b73a2c7eac4bf1269f1,
    ``beginner_source/transformer_tutorial.py``, lines 94-110. ``div_term`` is
    ``exp(arange(0, d, 2) * (-log(10000) / d))`` in float32 and the angle ``position *
    div_term`` is formed in float32. An odd ``d_model`` fails, as in the original:
    ``ceil(d/2)`` cosines do not fit ``floor(d/2)`` columns. Returns ``(max_len,
    d_model)``.
    """
    pe = np.zeros((max_len, d_model), dtype=F32)
    position = np.arange(0, max_len, dtype=F32)[:, None]
    div_term = np.exp(
        np.arange(0, d_model, 2).astype(F32) * F32(-math.log(10000.0) / d_model)
    )
    pe[:, 0::2] = np.sin(position * div_term)
    pe[:, 1::2] = np.cos(position * div_term)
    return pe


def annotated_transformer(max_len, d_model):
    """The ``PositionalEncoding`` of the Annotated Transformer (the 2022 edition of
    Rush's 2018 post), in float32.

    Source: ``harvardnlp/annotated-transformer``, revision
    0a91a254735c07532e23733dce8a693e504f3a08, ``the_annotated_transformer.py``,
    lines 748-768. Positions are an int64 range; multiplied by the float32 ``div_term``,
    PyTorch computes in float32 (NumPy would promote to float64, so the cast is written
    out here). Returns ``(max_len, d_model)``.
    """
    pe = np.zeros((max_len, d_model), dtype=F32)
    position = np.arange(0, max_len)[:, None]
    div_term = np.exp(
        np.arange(0, d_model, 2).astype(F32) * F32(-(math.log(10000.0) / d_model))
    )
    pe[:, 0::2] = np.sin(position.astype(F32) * div_term)
    pe[:, 1::2] = np.cos(position.astype(F32) * div_term)
    return pe


def d2l(max_len, num_hiddens):
    """Dive into Deep Learning's ``PositionalEncoding`` (PyTorch), in float32: positions
    divided by ``10000 ** (2i / d)``.

    Source: ``d2l-ai/d2l-en``, revision 300f071ebd1cff0dcc5de692eff85b4da3d29f5c,
    ``chapter_attention-mechanisms-and-transformers/self-attention-and-positional-encoding.md``,
    lines 283-298. Returns ``(max_len, num_hiddens)``.
    """
    p = np.zeros((max_len, num_hiddens), dtype=F32)
    x = np.arange(max_len, dtype=F32).reshape(-1, 1) / np.power(
        F32(10000), np.arange(0, num_hiddens, 2, dtype=F32) / F32(num_hiddens)
    )
    p[:, 0::2] = np.sin(x)
    p[:, 1::2] = np.cos(x)
    return p


def roberta_positions(input_ids, padding_idx, past_key_values_length=0):
    """Hugging Face RoBERTa's ``create_position_ids_from_input_ids``: fairseq's
    numbering.

    Source: ``huggingface/transformers``, revision
    87b236ba2be8b3e48a7d0c8ca6513302736d2886,
    ``src/transformers/models/roberta/modeling_roberta.py`` (the module-level function
    at the end of the file). Real tokens get ``padding_idx + 1, + 2, ...``, pads get
    ``padding_idx``; with ``pad_token_id = 1`` the first token reads row 2 of a learned
    table of 514 rows (``max_position_embeddings=514`` in the conversion script
    ``convert_roberta_original_pytorch_checkpoint_to_pytorch.py``, revision
    e0f914206dcd62c6f9a380a7549c4bd1a81496e0, line 67), so 512 tokens fit.
    """
    input_ids = np.asarray(input_ids)
    mask = (input_ids != padding_idx).astype(np.int32)
    incremental_indices = (np.cumsum(mask, axis=1) + past_key_values_length) * mask
    return incremental_indices.astype(np.int64) + padding_idx


def opt_rows(attention_mask, past_key_values_length=0, offset=2):
    """The rows Hugging Face OPT's ``OPTLearnedPositionalEmbedding`` reads: position +
    2.

    Source: ``huggingface/transformers``, revision
    ab910744d640b0ed37e2056eb94de31fd4a6979c,
    ``src/transformers/models/opt/modeling_opt.py``, lines 99-120. Positions are counted
    from the attention mask (first real token 0, pads -1) and shifted by ``offset = 2``.
    """
    attention_mask = np.asarray(attention_mask).astype(np.int64)
    positions = (np.cumsum(attention_mask, axis=1) * attention_mask) - 1
    positions = positions[:, past_key_values_length:]
    return positions + offset


# --- rotary embeddings of Llama: Meta's reference code and Hugging Face's -------------


def meta_llama_rope(x, positions, theta=10000.0, dtype=F32):
    """Meta's Llama rotary embedding: ``precompute_freqs_cis`` and ``apply_rotary_emb``;
    pairs (2i, 2i + 1).

    Source: ``meta-llama/llama``, revision 0504cf440a50aab815cadccd10a46e7ba70ff344,
    ``llama/model.py``, functions ``precompute_freqs_cis`` and ``apply_rotary_emb``. The
    frequencies ``1 / theta ** (arange(0, dim, 2) / dim)`` and the angles ``t * freq``
    are float32, ``torch.polar`` makes them complex64, and each head vector is read as
    complex numbers from its neighbouring pairs (``view_as_complex``) and multiplied by
    ``exp(i t freq)``. ``x`` has shape ``(..., n, head_dim)``, ``positions`` shape
    ``(n,)``. ``dtype=numpy.float64`` runs the same steps in double precision.
    """
    x = np.asarray(x, dtype=dtype)
    dim = x.shape[-1]
    freqs = dtype(1.0) / (
        dtype(theta) ** (np.arange(0, dim, 2)[: dim // 2].astype(dtype) / dtype(dim))
    )
    angles = np.outer(np.asarray(positions, dtype=dtype), freqs)
    freqs_cis = np.cos(angles) + 1j * np.sin(angles)
    pairs = x.reshape(*x.shape[:-1], -1, 2)
    rotated = (pairs[..., 0] + 1j * pairs[..., 1]) * freqs_cis
    return (
        np.stack([rotated.real, rotated.imag], axis=-1).reshape(x.shape).astype(dtype)
    )


def hf_llama_rope(
    x, positions, base=10000.0, dtype=F32, angle_dtype=None, inv_freq_dtype=None
):
    """Hugging Face's Llama rotary embedding: ``LlamaRotaryEmbedding`` and
    ``apply_rotary_pos_emb``; pairs (i, i + d/2).

    Source: ``huggingface/transformers``, revision
    5dd4a63548857797727ae73eeb6a6e886ea02a3e,
    ``src/transformers/models/llama/modeling_llama.py``: ``inv_freq`` (the default rope
    parameters, ``1 / base ** (arange(0, dim, 2) / dim)``, computed in float32 and kept
    as a buffer), ``freqs = inv_freq.float() @ position_ids.float()`` under
    ``torch.autocast(..., enabled=False)`` (commented "Force float32"), ``emb =
    cat((freqs, freqs))``, ``cos``/``sin`` in float32 then ``.to(dtype=x.dtype)``, and
    ``q * cos + rotate_half(q) * sin`` in the type of ``q`` with ``rotate_half(x) =
    cat((-x2, x1))``. ``x`` has shape ``(..., n, head_dim)``.

    Which step is in which type:

    - ``dtype``: the type of ``x``, of ``cos``/``sin`` after their cast, and of the
      rotation.
    - ``angle_dtype``: the type in which ``inv_freq`` is computed and the positions,
      the products and ``cos``/``sin`` are formed. The cited revision uses float32
      whatever ``dtype`` is (``angle_dtype=np.float32``). The default ``None`` takes
      ``dtype``: every step in one type, which for bfloat16 is not that revision's
      arithmetic (it is close to that of angles formed under bfloat16 autocast,
      which pull request 29285 removed).
    - ``inv_freq_dtype``: if given, the ``inv_freq`` computed in ``angle_dtype`` is
      rounded to this type and converted back before the product, as happens to the
      buffer when the model is cast with ``model.to(torch.bfloat16)`` (issue 25681);
      ``None``: the buffer as created, in float32 (``.float()`` in the default rope
      parameters). Which loading routes of ``transformers`` cast the buffer is not
      checked here.
    """
    x = np.asarray(x, dtype=dtype)
    at = dtype if angle_dtype is None else angle_dtype
    dim = x.shape[-1]
    inv_freq = at(1.0) / (at(base) ** (np.arange(0, dim, 2).astype(at) / at(dim)))
    if inv_freq_dtype is not None:
        inv_freq = inv_freq.astype(inv_freq_dtype).astype(at)
    freqs = np.outer(np.asarray(positions, dtype=at), inv_freq)
    emb = np.concatenate([freqs, freqs], axis=-1)
    cos, sin = np.cos(emb).astype(dtype), np.sin(emb).astype(dtype)
    x1, x2 = x[..., : dim // 2], x[..., dim // 2 :]
    rotate_half = np.concatenate([-x2, x1], axis=-1)
    return (x * cos + rotate_half * sin).astype(dtype)


def hf_llama_permute(w, n_heads, dim1=None, dim2=None):
    """The ``permute`` of Hugging Face's Llama conversion script: Meta's W_q or W_k rows
    reordered for ``rotate_half``.

    Source: ``huggingface/transformers``, revision
    01cc9cd9d804d368d553c093c4eb0646320545bb,
    ``src/transformers/models/llama/convert_llama_weights_to_hf.py``, the local function
    ``permute`` (commented "permute for sliced rotary"): ``w.view(n_heads, dim1 //
    n_heads // 2, 2, dim2).transpose(1, 2).reshape(dim1, dim2)``. Within each head, the
    rows of the pairs (2i, 2i + 1) become rows i and i + head_dim/2. The key projection
    is permuted with the number of key heads (grouped-query attention).
    """
    w = np.asarray(w)
    dim1 = w.shape[0] if dim1 is None else dim1
    dim2 = w.shape[1] if dim2 is None else dim2
    return (
        w.reshape(n_heads, dim1 // n_heads // 2, 2, dim2)
        .transpose(0, 2, 1, 3)
        .reshape(dim1, dim2)
    )


# --- more tables for pelib.identify: Whisper, Flax, the TensorFlow tutorials, DistilBER
# --- keras-hub, ESPnet, and hand-written code with known bugs -------------------------
#
# Each function below names the convention its table follows: the layout, the frequency
# family (the paper's base^(-2i/d) or tensor2tensor's geometric grid from 1 down to
# 1/max over d//2 - 1 steps), the position of its first row, its zero rows and columns,
# and whether its angles are formed in float32 or float64.
# ``tests/test_transcriptions.py`` checks every claim against the oracle.


def whisper_sinusoids(length, channels, max_timescale=10000):
    """OpenAI Whisper's ``sinusoids``: ``[sin | cos]``, tensor2tensor's frequencies,
    float32 angles, positions from 0.

    Source: ``openai/whisper``, revision fdf63e51dc3089e10d72fd25ac04ffe22f86543e,
    ``whisper/model.py``, lines 62-68 (the audio encoder's ``positional_embedding``
    buffer). ``np.log(max_timescale) / (channels // 2 - 1)`` is a float64 NumPy scalar;
    multiplied by the int64 ``torch.arange`` it acts as a Python scalar, so PyTorch
    rounds it to float32 and computes ``exp`` and the angles ``t * inv_timescales`` in
    float32. Frequency ``k`` is ``max_timescale ** (-k / (channels // 2 - 1))``. An odd
    ``channels`` fails the original's assertion (so it does here); ``channels == 2``
    divides by zero and gives nan. Returns ``(length, channels)``.
    """
    assert channels % 2 == 0
    log_timescale_increment = np.log(max_timescale) / (channels // 2 - 1)
    inv_timescales = np.exp(
        F32(-log_timescale_increment) * np.arange(channels // 2).astype(F32)
    )
    scaled_time = (
        np.arange(length).astype(F32)[:, np.newaxis] * inv_timescales[np.newaxis, :]
    )
    return np.concatenate([np.sin(scaled_time), np.cos(scaled_time)], axis=1)


def flax_sinusoidal_init(max_len, d_feature, min_scale=1.0, max_scale=10000.0):
    """Flax's ``sinusoidal_init`` (WMT example): ``[sin | cos]``, float64 angles stored
    in float32, zero column if odd.

    Source: ``google/flax``, revision 047b288cfc0488d17df9152ae0f48bc7d715f933,
    ``examples/wmt/models.py``, lines 68-93. The original returns an initializer
    ``init(key, shape, dtype)`` whose width is ``shape[-1]``; this function is that
    initializer applied to ``(1, max_len, d_feature)``. Everything is NumPy float64:
    ``div_term = min_scale * exp(-k log(max_scale / min_scale) / (d_feature // 2 -
    1))``, the tensor2tensor grid (``oracle.timescale_frequency`` with
    ``min_timescale=min_scale``), and ``position * div_term``; the sines and cosines are
    written into a float32 table of zeros, so an odd width keeps a zero last column.
    Positions start at 0. A width of 2 or 3 divides by zero (NumPy warns; the table is
    nan). Returns ``(1, max_len, d_feature)``.
    """
    pe = np.zeros((max_len, d_feature), dtype=np.float32)
    position = np.arange(0, max_len)[:, np.newaxis]
    scale_factor = -np.log(max_scale / min_scale) / (d_feature // 2 - 1)
    div_term = min_scale * np.exp(np.arange(0, d_feature // 2) * scale_factor)
    pe[:, : d_feature // 2] = np.sin(position * div_term)
    pe[:, d_feature // 2 : 2 * (d_feature // 2)] = np.cos(position * div_term)
    return pe[np.newaxis, :, :]


def tf_text_positional_encoding(length, depth):
    """The TensorFlow Transformer tutorial's ``positional_encoding(length, depth)``:
    ``[sin | cos]``, paper frequencies.

    Source: ``tensorflow/text``, revision 218b976be7f0dcf11ab87e8fdb7f283c45577c38,
    ``docs/tutorials/transformer.ipynb``, the code cell with id ``1Rz82wEs5biZ`` (its 14
    source lines; a notebook is cited by cell, whose id is stable, not by JSON line).
    ``depth / 2`` is a float, ``np.arange(depth / 2) / (depth / 2)`` are the exponents
    ``2k / depth`` in float64, ``1 / 10000 ** exponent`` the frequencies and ``positions
    * angle_rates`` the float64 angles; ``tf.cast`` rounds the table to float32.
    Positions start at 0. For an odd ``depth`` the float range has ``ceil(depth / 2)``
    entries, so the table has ``depth + 1`` columns: ``ceil(depth / 2)`` sines and as
    many cosines, with exponents ``2k / depth``. Returns ``(length, depth)`` or
    ``(length, depth + 1)``.
    """
    depth = depth / 2
    positions = np.arange(length)[:, np.newaxis]
    depths = np.arange(depth)[np.newaxis, :] / depth
    angle_rates = 1 / (10000**depths)
    angle_rads = positions * angle_rates
    pos_encoding = np.concatenate([np.sin(angle_rads), np.cos(angle_rads)], axis=-1)
    return pos_encoding.astype(np.float32)


def tf_docs_positional_encoding(position, d_model):
    """The older TensorFlow tutorial's ``get_angles`` and
    ``positional_encoding(position, d_model)``: interleaved.

    Source: ``tensorflow/docs``, revision 02b796f30713c373d7a3df6736d7b9340445a506,
    ``site/en/tutorials/text/transformer.ipynb``, the code cells with ids
    ``WhIOZjMNKujn`` (``get_angles``, 3 lines) and ``1Rz82wEs5biZ``
    (``positional_encoding``, 14 lines); the same two cells were in
    ``tensorflow/text``'s ``docs/tutorials/transformer.ipynb`` at revision
    014d0079e1fc85533d726588ec28ea184005a674 before the rewrite above. The exponent ``2
    * (i // 2) / np.float32(d_model)`` divides an int64 array by a float32 scalar, which
    NumPy (value-based casting before 2.0, NEP 50 since) computes in float64, so the
    frequencies and the angles ``pos * angle_rates`` are float64; sines go to the even
    columns and cosines to the odd ones in place, and ``tf.cast`` rounds to float32. An
    odd width works (its last column is a sine). Positions start at 0. Returns ``(1,
    position, d_model)``.
    """

    def get_angles(pos, i, d_model):
        angle_rates = 1 / np.power(10000, (2 * (i // 2)) / np.float32(d_model))
        return pos * angle_rates

    angle_rads = get_angles(
        np.arange(position)[:, np.newaxis], np.arange(d_model)[np.newaxis, :], d_model
    )
    angle_rads[:, 0::2] = np.sin(angle_rads[:, 0::2])
    angle_rads[:, 1::2] = np.cos(angle_rads[:, 1::2])
    pos_encoding = angle_rads[np.newaxis, ...]
    return pos_encoding.astype(np.float32)


def distilbert_sinusoidal_embeddings(n_pos, dim):
    """Hugging Face DistilBERT's ``create_sinusoidal_embeddings``: interleaved, paper
    frequencies, float64 angles.

    Source: ``huggingface/transformers``, revision
    00b326f4caca2d1fbebe5c86e1693475fd4d0c9a,
    ``src/transformers/models/distilbert/modeling_distilbert.py``, lines 74-90
    (``create_sinusoidal_embeddings`` only gathers DeepSpeed ZeRO-3 parameters around
    ``_create_sinusoidal_embeddings``). Marian's angles ``pos / 10000 ** (2 * (j // 2) /
    dim)`` in float64, but the sines fill the even columns and the cosines the odd ones
    of ``out`` (the float32 position-embedding weight) through ``torch.FloatTensor``. An
    odd ``dim`` works (its last column is a sine). Row ``p`` holds position ``p``.
    Returns ``(n_pos, dim)``.
    """
    position_enc = np.array(
        [
            [pos / np.power(10000, 2 * (j // 2) / dim) for j in range(dim)]
            for pos in range(n_pos)
        ]
    )
    out = np.empty((n_pos, dim), dtype=F32)
    out[:, 0::2] = np.sin(position_enc[:, 0::2]).astype(F32)
    out[:, 1::2] = np.cos(position_enc[:, 1::2]).astype(F32)
    return out


def diffusers_timestep_embedding(
    timesteps,
    embedding_dim,
    flip_sin_to_cos=False,
    downscale_freq_shift=1,
    scale=1,
    max_period=10000,
):
    """diffusers' ``get_timestep_embedding``: ``[sin | cos]`` (``[cos | sin]`` if
    flipped), float32, zero column if odd.

    Source: ``huggingface/diffusers``, revision
    0002117e9fa1351a3c0ee988d9c13e683cfb273b, ``src/diffusers/models/embeddings.py``,
    lines 27-78. With ``K = embedding_dim // 2``, frequency ``k`` is ``max_period ** (-k
    / (K - downscale_freq_shift))``: the default shift 1 gives tensor2tensor's grid,
    shift 0 (Stable Diffusion's ``Timesteps(..., 0)``) the paper's ``max_period ** (-2k
    / embedding_dim)`` for an even width (``-2k / (embedding_dim - 1)`` for an odd one).
    Every step is float32: ``-log(max_period)`` times the float32 range, divided by ``K
    - shift`` (PyTorch's CPU kernel divides; its CUDA kernel multiplies by the float32
    reciprocal, which can differ in the last bit), ``exp``, the timesteps (``.float()``,
    so fractional ones are rounded to float32) times the frequencies, then times
    ``scale``. ``flip_sin_to_cos`` swaps the halves; an odd width then gets a zero last
    column. Row ``r`` is ``timesteps[r]``. Returns ``(len(timesteps), embedding_dim)``.
    """
    timesteps = np.asarray(timesteps)
    assert len(timesteps.shape) == 1, "Timesteps should be a 1d-array"
    half_dim = embedding_dim // 2
    exponent = F32(-math.log(max_period)) * np.arange(0, half_dim, dtype=F32)
    exponent = exponent / F32(half_dim - downscale_freq_shift)
    emb = np.exp(exponent)
    emb = timesteps[:, None].astype(F32) * emb[None, :]
    emb = F32(scale) * emb
    emb = np.concatenate([np.sin(emb), np.cos(emb)], axis=-1)
    if flip_sin_to_cos:
        emb = np.concatenate([emb[:, half_dim:], emb[:, :half_dim]], axis=-1)
    if embedding_dim % 2 == 1:
        emb = np.pad(emb, ((0, 0), (0, 1)))
    return emb


def keras_sine_position_encoding(
    seq_length, hidden_size, max_wavelength=10000, start_index=0
):
    """keras-hub's ``SinePositionEncoding``: interleaved through sine and cosine masks,
    paper frequencies, float32.

    Source: ``keras-team/keras-hub``, revision 0e1444fdfbc088d2e736a43927f4719a30becd19,
    ``keras_hub/src/layers/modeling/sine_position_encoding.py``, lines 75-96 (``call``);
    the KerasNLP release, ``keras_nlp/layers/modeling/sine_position_encoding.py`` at
    revision 07f2448090806a2a6613dcfd9cb0cc9a44f2e050, computes the same table without
    ``start_index``. In the layer's compute dtype (float32 here): the positions ``arange
    + start_index``, ``min_freq = 1 / max_wavelength``, the frequencies ``min_freq ** (2
    * (j // 2) / hidden_size)`` for every column ``j`` and the angles; each column is
    ``sin * sin_mask + cos * cos_mask`` with the masks 1 and 0, so even columns are
    sines and odd ones cosines. An odd width works (its last column is a sine). Row
    ``r`` holds position ``start_index + r``. The original broadcasts the table to the
    input's shape; this returns ``(seq_length, hidden_size)``.
    """
    positions = np.arange(seq_length)
    positions = (positions + start_index).astype(F32)
    min_freq = F32(1 / max_wavelength)
    timescales = np.power(
        min_freq, (2 * (np.arange(hidden_size) // 2)).astype(F32) / F32(hidden_size)
    )
    angles = positions[:, np.newaxis] * timescales[np.newaxis, :]
    cos_mask = (np.arange(hidden_size) % 2).astype(F32)
    sin_mask = 1 - cos_mask
    return np.sin(angles) * sin_mask + np.cos(angles) * cos_mask


def espnet_positional_encoding(max_len, d_model, reverse=False):
    """ESPnet's ``PositionalEncoding.extend_pe``: interleaved, paper frequencies,
    float32; descending if ``reverse``.

    Source: ``espnet/espnet``, revision 029365d81725db38ae9d8fe2f16a3e1df97df1ee,
    ``espnet/nets/pytorch_backend/transformer/embedding.py``, lines 36-80 (``extend_pe``
    is 59-80); an older revision, 52652168315019b33ecd48601e56a78256fd7c02, has the same
    table (in ``reset_``) and no ``reverse``. The PyTorch tutorial's arithmetic:
    ``div_term = exp(arange(0, d, 2) * -(log(10000) / d))`` and ``position * div_term``
    in float32. With ``reverse=True`` (used by ``LegacyRelPositionalEncoding``) the
    positions are ``max_len - 1, ..., 1, 0``: row ``r`` holds position ``max_len - 1 -
    r``. An odd ``d_model`` fails, as in the original (``ceil(d/2)`` cosines do not fit
    ``floor(d/2)`` columns). Returns ``(1, max_len, d_model)``, the table built in
    ``__init__`` for a float32 input.
    """
    pe = np.zeros((max_len, d_model), dtype=F32)
    if reverse:
        position = np.arange(max_len - 1, -1, -1.0, dtype=F32)[:, np.newaxis]
    else:
        position = np.arange(0, max_len, dtype=F32)[:, np.newaxis]
    div_term = np.exp(
        np.arange(0, d_model, 2, dtype=F32) * F32(-(math.log(10000.0) / d_model))
    )
    pe[:, 0::2] = np.sin(position * div_term)
    pe[:, 1::2] = np.cos(position * div_term)
    return pe[np.newaxis]


# --- hand-written code with known bugs, as published ----------------------------------


def deepctr_positional_encoding(T, num_units, zero_pad=False):
    """DeepCTR's sinusoidal table before its fix in v0.8.7: column ``j`` has frequency
    ``10000 ** (-2j / d)``.

    Source: ``shenweichen/DeepCTR``, revision 02efb1074ba453fde4d70494537aa20012acc3e6,
    ``deepctr/layers/sequence.py``, the module-level function ``positional_encoding``
    (the table ``lookup_table``; the function then looks up rows ``0 .. T-1``, scales
    them by ``sqrt(num_units)`` and adds them to the input). Issue
    shenweichen/DeepCTR#379 quotes the same expression in the later ``PositionEncoding``
    layer (revision 0df401c5bbe2e00105aff62013ec687bea61774c, lines 640-642, not in the
    stored index) and the maintainers promised the fix for v0.8.7. The angle of column
    ``j`` is ``pos / 10000 ** (2. * j / num_units)`` with ``j`` running over every
    column instead of over pairs, so the sine in column ``2i`` has frequency ``10000 **
    (-4i / d)`` and the cosine in column ``2i + 1`` has ``10000 ** (-(4i + 2) / d)``: no
    two columns share a frequency, and the lowest is ``10000 ** (-2 (d - 1) / d)``,
    about ``1e-8`` instead of ``1e-4``. Float64 angles, stored in float32
    (``K.variable(..., dtype=tf.float32)``). Positions start at 0; ``zero_pad=True``
    zeroes row 0. An odd width works. Returns ``(T, num_units)``.
    """
    position_enc = np.array(
        [
            [pos / np.power(10000, 2.0 * i / num_units) for i in range(num_units)]
            for pos in range(T)
        ]
    )
    position_enc[:, 0::2] = np.sin(position_enc[:, 0::2])
    position_enc[:, 1::2] = np.cos(position_enc[:, 1::2])
    lookup_table = position_enc.astype(np.float32)
    if zero_pad:
        lookup_table = np.concatenate(
            (np.zeros((1, num_units), dtype=np.float32), lookup_table[1:, :]), 0
        )
    return lookup_table


def samlynnevans_positional_encoder(max_seq_len, d_model):
    """The ``PositionalEncoder`` of SamLynnEvans/Transformer: the same table as
    DeepCTR's bug, by another route.

    Source: ``SamLynnEvans/Transformer``, revision
    8f9de975e57f00c08b675d0fddb12d228b837aeb, ``Embed.py``, lines 14-29 (the buffer
    ``pe``, before ``forward`` scales the input); the bug is issue
    SamLynnEvans/Transformer#25 (and #7). The loop runs over even ``i`` and writes
    ``sin(pos / 10000 ** (2i / d))`` to column ``i`` and ``cos(pos / 10000 ** (2(i + 1)
    / d))`` to column ``i + 1``, so column ``j`` has frequency ``10000 ** (-2j / d)``
    for every ``j``, exactly as in :func:`deepctr_positional_encoding` (which reaches it
    through ``2. * j / d`` over all columns). Python float64 arithmetic (``math.sin``,
    ``**``), each value stored in a float32 tensor. Positions start at 0. An odd
    ``d_model`` fails (``IndexError``, as in the original). Returns ``(1, max_seq_len,
    d_model)``.
    """
    pe = np.zeros((max_seq_len, d_model), dtype=F32)
    for pos in range(max_seq_len):
        for i in range(0, d_model, 2):
            pe[pos, i] = math.sin(pos / (10000 ** ((2 * i) / d_model)))
            pe[pos, i + 1] = math.cos(pos / (10000 ** ((2 * (i + 1)) / d_model)))
    return pe[np.newaxis]


def jadore_sinusoid_table(n_position, d_hid, padding_idx=None):
    """attention-is-all-you-need-pytorch's 2018 ``get_sinusoid_encoding_table``:
    interleaved, paper, one row zeroed.

    Source: ``jadore801120/attention-is-all-you-need-pytorch``, revision
    7e14834dd5e48bb1e6c74581c55684405e821298, ``transformer/Models.py``, lines 14-32, a
    module function (``cal_angle``, ``get_posi_angle_vec``): the same arithmetic as the
    later method the study notes quote (:func:`jadore_positional_encoding_table`), but
    here the encoder and the decoder call it with ``padding_idx=0`` (line 71 for the
    encoder), the subject of issue jadore801120/attention-is-all-you-need-pytorch#99
    (which links revision 20f355eb655bad40195ae302b9d8036716be9a23, lines 71 and 117).
    The frequencies are the paper's: column ``j`` has ``10000 ** (-2 (j // 2) / d)``,
    sines in even columns, cosines in odd ones, float64 angles stored in float32
    (``torch.FloatTensor``). Row ``p`` holds position ``p`` except row ``padding_idx``,
    which is all zeros, so with ``padding_idx=0`` position 0 reads a zero vector (the
    repository numbers real tokens from 1 and pads with 0). An odd width works. Returns
    ``(n_position, d_hid)``.
    """

    def cal_angle(position, hid_idx):
        return position / np.power(10000, 2 * (hid_idx // 2) / d_hid)

    def get_posi_angle_vec(position):
        return [cal_angle(position, hid_j) for hid_j in range(d_hid)]

    sinusoid_table = np.array(
        [get_posi_angle_vec(pos_i) for pos_i in range(n_position)]
    )
    sinusoid_table[:, 0::2] = np.sin(sinusoid_table[:, 0::2])
    sinusoid_table[:, 1::2] = np.cos(sinusoid_table[:, 1::2])
    if padding_idx is not None:
        sinusoid_table[padding_idx] = 0.0
    return sinusoid_table.astype(F32)


def jadore_positional_encoding_table(n_position, d_hid):
    """attention-is-all-you-need-pytorch's ``PositionalEncoding`` table (notes' code).

    Source: ``jadore801120/attention-is-all-you-need-pytorch``, revision
    ecfe240e66071c8179f19e32e193d1fabd16ee08 (the revision the study notes link to),
    ``transformer/Models.py``, lines 31-42, the method ``_get_sinusoid_encoding_table``
    with its ``get_position_angle_vec`` (the same code at
    6c0b653606854caf64a41cd1131ad60304a1feae). The paper's interleaved table: column
    ``j`` has ``10000 ** (-2 (j // 2) / d)``, sines in even columns and cosines in odd
    ones, float64 angles stored in float32 (``torch.FloatTensor``); no row is zeroed,
    and ``forward`` (lines 44-45) adds row ``t`` to the token at index ``t``
    (:func:`jadore_rows`). An odd width works. Returns ``(1, n_position, d_hid)``, as
    the original's ``unsqueeze(0)``.
    """

    def get_position_angle_vec(position):
        return [
            position / np.power(10000, 2 * (hid_j // 2) / d_hid)
            for hid_j in range(d_hid)
        ]

    sinusoid_table = np.array(
        [get_position_angle_vec(pos_i) for pos_i in range(n_position)]
    )
    sinusoid_table[:, 0::2] = np.sin(sinusoid_table[:, 0::2])  # dim 2i
    sinusoid_table[:, 1::2] = np.cos(sinusoid_table[:, 1::2])  # dim 2i+1
    return sinusoid_table.astype(F32)[np.newaxis]


def jadore_position_encoding_init(n_position, d_pos_vec):
    """The 2017 ``position_encoding_init`` of the same repository: DeepCTR's frequency
    bug and a zero row 0.

    Source: ``jadore801120/attention-is-all-you-need-pytorch``, revision
    07e2cda7d6e3ed9225ae1063b90a077432c24995, ``transformer/Models.py``, lines 11-21.
    The angle is ``pos / 10000 ** (2 * i / d)`` with ``i`` over every column (no ``i //
    2``), so column ``j`` has frequency ``10000 ** (-2j / d)``; row 0 is zeros ("keep
    dim 0 for padding token position encoding zero vector") and the sines and cosines
    are taken of rows ``1:`` only. Float64 angles stored in float32. The same NumPy
    operations as :func:`deepctr_positional_encoding` with ``zero_pad=True``, hence the
    same table bit for bit. An odd width works. Returns ``(n_position, d_pos_vec)``.
    """
    position_enc = np.array(
        [
            [pos / np.power(10000, 2 * i / d_pos_vec) for i in range(d_pos_vec)]
            if pos != 0
            else np.zeros(d_pos_vec)
            for pos in range(n_position)
        ]
    )
    position_enc[1:, 0::2] = np.sin(position_enc[1:, 0::2])
    position_enc[1:, 1::2] = np.cos(position_enc[1:, 1::2])
    return position_enc.astype(F32)


# --- which row a token reads: positions by index --------------------------------------


def tensor2tensor_rows(length, start_index=0):
    """The positions ``add_timing_signal_1d`` adds to a sequence of ``length`` (padded)
    tokens: its index.

    Source: ``tensorflow/tensor2tensor``, revision
    75b75f2e2281101b9b3637e14ef519afd6a11b68,
    ``tensor2tensor/layers/common_attention.py``, ``add_timing_signal_1d``: ``length =
    tf.shape(x)[1]`` and ``x + get_timing_signal_1d(length, channels, ...)``, so the
    token at index ``t`` of the padded batch gets position ``t``; padding is not
    skipped. Revision 16d59abb2e80a9f06646e587a995a39aa128358a (lines 453-489, the
    revision of :func:`tensor2tensor`) adds ``start_index``, passed on to
    ``get_timing_signal_1d``: position ``t + start_index``, the default 0 giving the
    same rows.
    """
    return np.arange(length) + start_index


def jadore_rows(length):
    """The rows ``PositionalEncoding.forward`` of attention-is-all-you-need-pytorch
    adds: the token's index.

    Source: ``jadore801120/attention-is-all-you-need-pytorch``, revision
    6c0b653606854caf64a41cd1131ad60304a1feae (unchanged at ecfe240),
    ``transformer/Models.py``, class ``PositionalEncoding``, line 45:
    ``x + self.pos_table[:, :x.size(1)].clone().detach()``, the table of the notes' list
    comprehension (:func:`jadore_positional_encoding_table`), so the token at index
    ``t`` reads row ``t``. (At 7e14834 the tables have a zero row ``padding_idx=0``
    and the tokens are numbered from 1: :func:`jadore_sinusoid_table`.)
    """
    return np.arange(length)


# --- beyond the token axis: image grids, video grids, diffusion time steps ------------


def sincos_1d_from_grid(embed_dim, pos):
    """``get_1d_sincos_pos_embed_from_grid`` of MAE, DiT and diffusers: ``[sin | cos]``
    of the flattened positions, float64.

    Source: ``facebookresearch/mae``, revision efb2a8062c206524e35e47d04501ed4f544c0ae8,
    ``util/pos_embed.py``, lines 49-67; ``facebookresearch/DiT``, revision
    ed81ce2229091fd4ecc9a223645f95cf379d582b, ``models.py``, lines 303-321;
    ``huggingface/diffusers``, revision 58eb52c0803ea9af3abec60841c2a093bdf1f951,
    ``src/diffusers/models/embeddings.py``, lines 431-456
    (``get_1d_sincos_pos_embed_from_grid_np``). The three are token for token the same
    arithmetic: MAE writes ``dtype=np.float``, an alias of Python's ``float`` (float64)
    removed in NumPy 1.24 (so MAE's function fails on NumPy 2), here ``float``; DiT
    writes ``np.float64``; diffusers raises ``ValueError`` where the others
    ``assert``. The frequencies ``1 / 10000 ** (k / (D /
    2))`` (``D`` = ``embed_dim``, ``k < D / 2``) are float64; ``einsum`` of the float32
    positions with them promotes to float64, so the angles, sines and cosines are
    float64 and only the positions carry float32 rounding. diffusers' PyTorch path
    (lines 322-368) computes the same: ``omega`` in float64 (float32 on Apple's MPS
    device only), ``torch.outer`` of the float32 positions with it in float64.
    """
    assert embed_dim % 2 == 0
    omega = np.arange(embed_dim // 2, dtype=float)
    omega /= embed_dim / 2.0
    omega = 1.0 / 10000**omega  # (D/2,)
    pos = pos.reshape(-1)  # (M,)
    out = np.einsum("m,d->md", pos, omega)  # (M, D/2), outer product
    emb_sin = np.sin(out)  # (M, D/2)
    emb_cos = np.cos(out)  # (M, D/2)
    return np.concatenate([emb_sin, emb_cos], axis=1)  # (M, D)


def sincos_2d_from_grid(embed_dim, grid):
    """``get_2d_sincos_pos_embed_from_grid`` of MAE, DiT and diffusers: the 1-D table of
    ``grid[0]``, then that of ``grid[1]``.

    Source: ``facebookresearch/mae`` (revision as in :func:`sincos_1d_from_grid`),
    ``util/pos_embed.py``, lines 38-46; ``facebookresearch/DiT``, ``models.py``, lines
    292-300; ``huggingface/diffusers``, ``src/diffusers/models/embeddings.py``, lines
    409-428 (``get_2d_sincos_pos_embed_from_grid_np``; the PyTorch path, lines 289-319,
    is the same). The first half is named ``emb_h`` ("use half of dimensions to encode
    grid_h"), but every caller builds ``grid`` with ``np.meshgrid(grid_w, grid_h)``, so
    ``grid[0]`` holds the width coordinate (facebookresearch/mae#18).
    """
    assert embed_dim % 2 == 0
    emb_h = sincos_1d_from_grid(embed_dim // 2, grid[0])  # (H*W, D/2)
    emb_w = sincos_1d_from_grid(embed_dim // 2, grid[1])  # (H*W, D/2)
    return np.concatenate([emb_h, emb_w], axis=1)  # (H*W, D)


def mae_2d_sincos_pos_embed(embed_dim, grid_size, cls_token=False):
    """MAE's ``get_2d_sincos_pos_embed``: a square grid of integer positions, one zero
    row first if ``cls_token``; float64.

    Source: ``facebookresearch/mae``, revision efb2a8062c206524e35e47d04501ed4f544c0ae8,
    ``util/pos_embed.py``, lines 20-35. The positions are ``np.arange(grid_size,
    dtype=np.float32)`` (exact below ``2**24``); row ``h * grid_size + w`` holds the
    table of ``w``, then that of ``h`` (:func:`sincos_2d_from_grid`). Shape
    ``(grid_size**2, embed_dim)``, or one more row with ``cls_token``.
    """
    grid_h = np.arange(grid_size, dtype=np.float32)
    grid_w = np.arange(grid_size, dtype=np.float32)
    grid = np.meshgrid(grid_w, grid_h)  # here w goes first
    grid = np.stack(grid, axis=0)
    grid = grid.reshape([2, 1, grid_size, grid_size])
    pos_embed = sincos_2d_from_grid(embed_dim, grid)
    if cls_token:
        pos_embed = np.concatenate([np.zeros([1, embed_dim]), pos_embed], axis=0)
    return pos_embed


def dit_2d_sincos_pos_embed(embed_dim, grid_size, cls_token=False, extra_tokens=0):
    """DiT's ``get_2d_sincos_pos_embed``: MAE's, with ``extra_tokens`` zero rows, added
    only when ``cls_token`` is also true; float64.

    Source: ``facebookresearch/DiT``, revision ed81ce2229091fd4ecc9a223645f95cf379d582b,
    ``models.py``, lines 274-289 (copied from MAE, line 272 says). ``cls_token=True``
    alone adds no row (MAE adds one); ``extra_tokens`` alone adds none either. DiT
    itself calls it without either (``initialize_weights``), and stores the result in
    a float32 parameter.
    """
    grid_h = np.arange(grid_size, dtype=np.float32)
    grid_w = np.arange(grid_size, dtype=np.float32)
    grid = np.meshgrid(grid_w, grid_h)  # here w goes first
    grid = np.stack(grid, axis=0)
    grid = grid.reshape([2, 1, grid_size, grid_size])
    pos_embed = sincos_2d_from_grid(embed_dim, grid)
    if cls_token and extra_tokens > 0:
        pos_embed = np.concatenate(
            [np.zeros([extra_tokens, embed_dim]), pos_embed], axis=0
        )
    return pos_embed


def diffusers_2d_sincos_pos_embed(
    embed_dim,
    grid_size,
    cls_token=False,
    extra_tokens=0,
    interpolation_scale=1.0,
    base_size=16,
):
    """diffusers' ``get_2d_sincos_pos_embed_np``: ``grid_size`` an int or (height,
    width), positions scaled to ``base_size``, float32 positions, float64 table.

    Source: ``huggingface/diffusers``, revision
    58eb52c0803ea9af3abec60841c2a093bdf1f951, ``src/diffusers/models/embeddings.py``,
    lines 371-406. The position of cell ``i`` of an axis of ``n`` is ``arange(n,
    float32) / (n / base_size) / interpolation_scale``: a float32 array divided by
    Python floats stays float32 (NumPy 2's weak scalars, and NumPy 1's value-based
    casting alike), so each divisor is rounded to float32 and each quotient too; every
    axis spans ``[0, base_size / interpolation_scale)``. ``grid_size[0]`` is the height
    (``PatchEmbed`` passes ``(height, width)``); the ``reshape`` to ``(2, 1, width,
    height)`` keeps the row-major order ``h * width + w``. Zero rows as DiT's
    (:func:`dit_2d_sincos_pos_embed`). The public ``get_2d_sincos_pos_embed`` (lines
    221-286) calls this for ``output_type="np"`` after ``deprecate(..., "0.33.0")``,
    which raises ``ValueError`` in this revision (version 0.40.0.dev0); its PyTorch path
    computes the same (float32 grid, float64 table) and ``PatchEmbed`` stores it as
    float32.
    """
    if isinstance(grid_size, int):
        grid_size = (grid_size, grid_size)
    grid_h = (
        np.arange(grid_size[0], dtype=np.float32)
        / (grid_size[0] / base_size)
        / interpolation_scale
    )
    grid_w = (
        np.arange(grid_size[1], dtype=np.float32)
        / (grid_size[1] / base_size)
        / interpolation_scale
    )
    grid = np.meshgrid(grid_w, grid_h)  # here w goes first
    grid = np.stack(grid, axis=0)
    grid = grid.reshape([2, 1, grid_size[1], grid_size[0]])
    pos_embed = sincos_2d_from_grid(embed_dim, grid)
    if cls_token and extra_tokens > 0:
        pos_embed = np.concatenate(
            [np.zeros([extra_tokens, embed_dim]), pos_embed], axis=0
        )
    return pos_embed


def diffusers_3d_sincos_pos_embed(
    embed_dim,
    spatial_size,
    temporal_size,
    spatial_interpolation_scale=1.0,
    temporal_interpolation_scale=1.0,
):
    """diffusers' ``_get_3d_sincos_pos_embed_np`` (CogVideoX): ``spatial_size`` an int
    or **(width, height)**; shape ``(temporal_size, height * width, embed_dim)``.

    Source: ``huggingface/diffusers``, revision
    58eb52c0803ea9af3abec60841c2a093bdf1f951, ``src/diffusers/models/embeddings.py``,
    lines 155-218. ``grid_h = arange(spatial_size[1])`` and ``grid_w =
    arange(spatial_size[0])``: the pair is read as (width, height), the reverse of the
    2-D function's ``grid_size`` (CogVideoX passes ``(post_patch_width,
    post_patch_height)``, lines 699-707). Positions ``arange(n, float32) / scale`` are
    float32 (one rounding); the first ``D / 4`` columns are the 1-D table of the frame,
    the last ``3 D / 4`` the 2-D table of the cell (width index, then height index),
    float64. The function's first statement, ``deprecate("output_type=='np'",
    "0.33.0", ...)``, raises ``ValueError`` in this revision (version 0.40.0.dev0) and
    is left out here; ``get_3d_sincos_pos_embed``'s PyTorch path (lines 81-152), the one
    CogVideoX calls, computes the same arithmetic (its 1-D part in float64).
    """
    if embed_dim % 4 != 0:
        raise ValueError("`embed_dim` must be divisible by 4")
    if isinstance(spatial_size, int):
        spatial_size = (spatial_size, spatial_size)
    embed_dim_spatial = 3 * embed_dim // 4
    embed_dim_temporal = embed_dim // 4
    # 1. Spatial
    grid_h = np.arange(spatial_size[1], dtype=np.float32) / spatial_interpolation_scale
    grid_w = np.arange(spatial_size[0], dtype=np.float32) / spatial_interpolation_scale
    grid = np.meshgrid(grid_w, grid_h)  # here w goes first
    grid = np.stack(grid, axis=0)
    grid = grid.reshape([2, 1, spatial_size[1], spatial_size[0]])
    pos_embed_spatial = sincos_2d_from_grid(embed_dim_spatial, grid)
    # 2. Temporal
    grid_t = np.arange(temporal_size, dtype=np.float32) / temporal_interpolation_scale
    pos_embed_temporal = sincos_1d_from_grid(embed_dim_temporal, grid_t)
    # 3. Concat
    pos_embed_spatial = pos_embed_spatial[np.newaxis, :, :]
    pos_embed_spatial = np.repeat(pos_embed_spatial, temporal_size, axis=0)
    pos_embed_temporal = pos_embed_temporal[:, np.newaxis, :]
    pos_embed_temporal = np.repeat(
        pos_embed_temporal, spatial_size[0] * spatial_size[1], axis=1
    )
    return np.concatenate([pos_embed_temporal, pos_embed_spatial], axis=-1)


def guided_diffusion_timestep_embedding(timesteps, dim, max_period=10000):
    """guided-diffusion's ``timestep_embedding``: ``[cos | sin]``, float32, the
    frequencies ``max_period ** (-k / half)``, a zero column if odd.

    Source: ``openai/guided-diffusion``, revision
    22e0df8183507e13a7813f8d38d51b072ca1e67c, ``guided_diffusion/nn.py``, lines
    103-121. ``-math.log(max_period)`` times the float32 range is float32 (PyTorch
    casts the Python float to the tensor's type), divided by ``half`` in float32,
    ``exp`` in float32; the time steps are ``.float()`` (fractional ones rounded to
    float32) times the frequencies. This is diffusers' ``get_timestep_embedding`` with
    ``flip_sin_to_cos=True, downscale_freq_shift=0`` (and ``scale=1``) step for step
    (:func:`diffusers_timestep_embedding`).
    """
    half = dim // 2
    freqs = np.exp(
        F32(-math.log(max_period)) * np.arange(0, half, dtype=F32) / F32(half)
    )
    args = np.asarray(timesteps)[:, None].astype(F32) * freqs[None]
    embedding = np.concatenate([np.cos(args), np.sin(args)], axis=-1)
    if dim % 2:
        embedding = np.concatenate(
            [embedding, np.zeros_like(embedding[:, :1])], axis=-1
        )
    return embedding


def dit_timestep_embedding(t, dim, max_period=10000):
    """DiT's ``TimestepEmbedder.timestep_embedding``: guided-diffusion's, token for
    token; ``[cos | sin]``, float32.

    Source: ``facebookresearch/DiT``, revision ed81ce2229091fd4ecc9a223645f95cf379d582b,
    ``models.py``, lines 40-59 (a static method; its comment points to
    ``openai/glide-text2im``, ``glide_text2im/nn.py``). The arithmetic is that of
    :func:`guided_diffusion_timestep_embedding`; DiT calls it with ``dim =
    frequency_embedding_size = 256``.
    """
    half = dim // 2
    freqs = np.exp(
        F32(-math.log(max_period)) * np.arange(0, half, dtype=F32) / F32(half)
    )
    args = np.asarray(t)[:, None].astype(F32) * freqs[None]
    embedding = np.concatenate([np.cos(args), np.sin(args)], axis=-1)
    if dim % 2:
        embedding = np.concatenate(
            [embedding, np.zeros_like(embedding[:, :1])], axis=-1
        )
    return embedding


# --- resampling a position table: PyTorch's bicubic resize, MAE's interpolate_pos_embed


def _cubic_coefficients(t, dtype):
    """The four weights of PyTorch's ``get_cubic_upsample_coefficients`` for the
    fraction ``t`` (an array), each step in ``dtype``: Keys' kernel with ``A = -0.75``,
    ``cubic_convolution2(t + 1)``, ``cubic_convolution1(t)``, ``cubic_convolution1(1 -
    t)``, ``cubic_convolution2(2 - t)``."""
    a = dtype(-0.75)
    one, two, three = dtype(1), dtype(2), dtype(3)
    five, eight, four = dtype(5), dtype(8), dtype(4)

    def conv1(x):  # |x| <= 1: ((A + 2) x - (A + 3)) x^2 + 1
        return ((a + two) * x - (a + three)) * x * x + one

    def conv2(x):  # 1 < |x| < 2: ((A x - 5 A) x + 8 A) x - 4 A
        return ((a * x - five * a) * x + eight * a) * x - four * a

    x2 = one - t
    return [conv2(t + one), conv1(t), conv1(x2), conv2(x2 + one)]


def _bicubic_axis(values, axis, out_size, dtype):
    """Resize ``values`` along ``axis`` to ``out_size`` samples with PyTorch's cubic
    weights (``align_corners=False``, no antialias), in ``dtype``."""
    in_size = values.shape[axis]
    if out_size == in_size:
        # weights [0, 1, 0, 0] at t = 0: the copy PyTorch's CPU code makes
        return values.copy()
    if out_size > 1:
        # area_pixel_compute_scale: static_cast<scalar_t>(input_size) / output_size
        scale = dtype(in_size) / dtype(out_size)
    else:
        scale = dtype(0)
    dst = np.arange(out_size)
    # area_pixel_compute_source_index (cubic: negative indices kept):
    # scale * (dst_index + 0.5) - 0.5, the product and difference in double (the 0.5
    # is a double literal), returned as scalar_t
    real = (np.float64(scale) * (dst + 0.5) - 0.5).astype(dtype)
    # guard_index_and_lambda: index = min(floor(real), size - 1), lambda in [0, 1]
    index = np.minimum(np.floor(real).astype(np.int64), in_size - 1)
    lam = np.clip(real - index.astype(dtype), dtype(0), dtype(1)).astype(dtype)
    weights = _cubic_coefficients(lam, dtype)
    moved = np.moveaxis(values, axis, 0)
    total = None
    for j in range(4):
        # the taps index - 1 .. index + 2, clamped to the border
        taps = np.clip(index + j - 1, 0, in_size - 1)
        shape = (out_size,) + (1,) * (moved.ndim - 1)
        term = moved[taps] * weights[j].reshape(shape)
        total = term if total is None else total + term
    return np.moveaxis(total.astype(dtype), 0, axis)


def torch_bicubic_resize(grid, size, dtype=np.float64):
    """PyTorch's ``F.interpolate(x, size, mode='bicubic', align_corners=False)``
    (``antialias=False``) on the grid ``grid`` of shape ``(height, width, ...)`` (the
    trailing axes are the channels), returning shape ``(size[0], size[1], ...)``.

    Sources (``pytorch/pytorch``): ``aten/src/ATen/native/UpSample.h`` at revision
    ea5cd3606542b2ea3a4d3fe9359947e1d6184fac, lines 197-249
    (``compute_scales_value``, ``area_pixel_compute_scale``,
    ``area_pixel_compute_source_index``: ``scale = input_size / output_size``, source
    index ``scale * (dst_index + 0.5) - 0.5``, negative values kept for cubic), lines
    260-270 (``upsample_get_value_bounded``: taps clamped to ``[0, size - 1]``) and
    lines 285-324 (``cubic_convolution1``, ``cubic_convolution2``,
    ``get_cubic_upsample_coefficients`` with ``A = -0.75``, ``cubic_interp1d``). The
    CPU kernel: ``aten/src/ATen/native/UpSampleBicubic2d.cpp`` at revision
    70f364554f849d6ea059ddf7e985e8eaa6c4320f (``upsample_bicubic2d_out_cpu`` calls
    the dispatched ``upsample_bicubic2d_kernel``), which
    ``aten/src/ATen/native/cpu/UpSampleKernel.cpp`` at revision
    bb7240c35c73bef34525036c7ebd0dc48750654e registers as
    ``upsample_bicubic2d_kernel_impl``: for floating types
    ``upsample_generic_Nd_kernel_impl<2, scale_t, HelperInterpCubic>``, whose
    ``HelperInterpCubic::compute_indices_weights`` computes per axis the source index,
    ``guard_index_and_lambda`` (index ``min(floor(real), size - 1)``, fraction clamped
    to ``[0, 1]``; neither bites with ``align_corners=False``), the four weights and
    the clamped taps ``index - 1 .. index + 2``, and whose ``Interpolate`` sums, for
    each of the four height taps, the four width taps times their weights, then those
    four sums times the height weights (``opmath_type`` of float is float). The
    line numbers of those two ``.cpp`` files were not counted here; older revisions
    of ``UpSampleBicubic2d.cpp`` held the same arithmetic in
    ``upsample_bicubic2d_out_frame`` ("Interpolate 4 times in the x direction", then
    in y), with a plain copy when the sizes are equal.

    The resize is separable, and is done here axis by axis: the width first (each of
    the old rows), then the height, which sums in PyTorch's order. PyTorch computes in
    the tensor's dtype (float32 for MAE's table); ``dtype`` chooses float64 (default)
    or float32, where the steps follow the code's types but a compiler's fused
    multiply-adds or vector loops can move the last bit.
    """
    grid = np.asarray(grid, dtype=dtype)
    height, width = size
    out = _bicubic_axis(grid, 1, width, dtype)
    return _bicubic_axis(out, 0, height, dtype)


def mae_interpolate_pos_embed(
    pos_embed_checkpoint, num_patches, num_extra_tokens=1, dtype=np.float64
):
    """MAE's ``interpolate_pos_embed``: the extra (class) token rows kept, the square
    grid of the rest resized bicubically to ``int(num_patches ** 0.5)`` per side.

    Source: ``facebookresearch/mae``, revision
    efb2a8062c206524e35e47d04501ed4f544c0ae8, ``util/pos_embed.py``, lines 75-96
    (after DeiT). ``pos_embed_checkpoint`` has shape ``(1, num_extra_tokens + n * n,
    D)`` (a 2-D array is read as one batch); ``orig_size = int((rows -
    num_extra_tokens) ** 0.5)``, ``new_size = int(num_patches ** 0.5)``; when they
    differ, the grid rows are reshaped to ``(n, n, D)`` (row ``h * n + w`` to cell
    ``(h, w)``, the ``permute(0, 3, 1, 2)`` that makes the channels ``D``), resized
    with ``F.interpolate(..., mode='bicubic', align_corners=False)``
    (:func:`torch_bicubic_resize`), flattened back row-major and put after the extra
    rows. When they are equal the checkpoint is returned unchanged (the original
    leaves ``checkpoint_model`` as it is). The original edits a dict of a model;
    here the arrays and sizes are passed directly: ``num_patches`` is
    ``model.patch_embed.num_patches`` and ``num_extra_tokens`` is
    ``model.pos_embed.shape[-2] - num_patches``. Computed in ``dtype`` (PyTorch:
    the checkpoint's dtype, float32 for MAE).
    """
    pos = np.asarray(pos_embed_checkpoint, dtype=dtype)
    if pos.ndim == 2:
        pos = pos[None]
    embedding_size = pos.shape[-1]
    orig_size = int((pos.shape[-2] - num_extra_tokens) ** 0.5)
    new_size = int(num_patches**0.5)
    if orig_size == new_size:
        return pos
    extra_tokens = pos[:, :num_extra_tokens]
    pos_tokens = pos[:, num_extra_tokens:].reshape(
        -1, orig_size, orig_size, embedding_size
    )
    resized = np.stack(
        [torch_bicubic_resize(g, (new_size, new_size), dtype) for g in pos_tokens]
    )
    resized = resized.reshape(pos.shape[0], new_size * new_size, embedding_size)
    return np.concatenate([extra_tokens, resized], axis=1)
