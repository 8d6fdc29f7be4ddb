"""Widely used code that computes a sinusoidal table or position ids, transcribed to NumPy.

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


def tensor2tensor(length, channels, min_timescale=1.0, max_timescale=1.0e4, start_index=0):
    """tensor2tensor's ``get_timing_signal_1d``, in float32: ``[sin | cos]`` and a zero column if odd.

    Source: ``tensorflow/tensor2tensor``, ``tensor2tensor/layers/common_attention.py``,
    ``get_timing_signal_1d``, as the literature notes this book follows quote it in full:
    the revision on the master branch at the time (lines 403-449), with ``start_index`` and
    with ``tf.maximum(num_timescales - 1, 1)`` guarding the division. An earlier revision,
    75b75f2e2281101b9b3637e14ef519afd6a11b68 (lines 270-313), has neither: it divides by
    ``num_timescales - 1`` and so returns nan for 2 or 3 channels. ``tf.to_float`` is
    float32; the Python float ``log(max / min)`` is divided by a float32 tensor, so it is
    rounded to float32 first. Returns shape ``(1, length, channels)``, as the original.
    """
    position = (np.arange(length) + start_index).astype(F32)
    num_timescales = channels // 2
    log_timescale_increment = F32(math.log(float(max_timescale) / float(min_timescale))) / np.maximum(
        F32(num_timescales) - F32(1), F32(1))
    inv_timescales = F32(min_timescale) * np.exp(np.arange(num_timescales).astype(F32) * -log_timescale_increment)
    scaled_time = position[:, None] * inv_timescales[None, :]
    signal = np.concatenate([np.sin(scaled_time), np.cos(scaled_time)], axis=1)
    signal = np.pad(signal, [[0, 0], [0, channels % 2]])
    return signal.reshape(1, length, channels)


def fairseq_embedding(num_embeddings, embedding_dim, padding_idx=None):
    """fairseq's ``SinusoidalPositionalEmbedding.get_embedding``: ``[sin | cos]``, float32, padding row zeroed.

    Source: ``facebookresearch/fairseq``, revision 05625e3e6e660909e4df833de1f7b49019496a68,
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
    """fairseq's ``utils.make_positions``: ``padding_idx + 1, + 2, ...`` for real tokens, ``padding_idx`` for pads.

    Source: ``facebookresearch/fairseq``, revision 032a404d389307a0e8f7dd2a0d501c78afa78f39,
    ``fairseq/utils.py``, lines 240-250. Only real tokens are counted, so left padding
    does not move the positions of the tokens after it.
    """
    tokens = np.asarray(tokens)
    mask = (tokens != padding_idx).astype(np.int32)
    return (np.cumsum(mask, axis=1) * mask).astype(np.int64) + padding_idx


def marian_weight(n_pos, dim):
    """Hugging Face Marian's ``MarianSinusoidalPositionalEmbedding._init_weight``: ``[sin | cos]``, the paper's frequencies.

    Source: ``huggingface/transformers``, revision d02747e153da5844c1abaa36eec184b0177247c0,
    ``src/transformers/models/marian/modeling_marian.py``, lines 112-127 (Pegasus copies
    it). The angles ``pos / 10000 ** (2 * (j // 2) / dim)`` are float64; the sines of the
    even ``j`` fill the first ``ceil(dim / 2)`` columns and the cosines of the odd ``j``
    the rest, then the table is stored in float32. Positions start at 0.
    """
    position_enc = np.array([[pos / np.power(10000, 2 * (j // 2) / dim) for j in range(dim)] for pos in range(n_pos)])
    out = np.empty((n_pos, dim), dtype=F32)
    sentinel = dim // 2 if dim % 2 == 0 else (dim // 2) + 1
    out[:, 0:sentinel] = np.sin(position_enc[:, 0::2])
    out[:, sentinel:] = np.cos(position_enc[:, 1::2])
    return out


def musicgen_embedding(num_embeddings, embedding_dim):
    """Hugging Face MusicGen's ``MusicgenSinusoidalPositionalEmbedding.get_embedding``: ``[cos | sin]``.

    Source: ``huggingface/transformers``, revision 7713be1e51fbf31eb2c5eb27624369e08af29243,
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
    """``PositionalEncoding1D`` of the ``positional-encodings`` package, for one sequence of ``length`` positions.

    Source: ``tatp22/multidim-positional-encoding``, revision
    57542dfb04d8f3b97775c3ee271a5b523907e046, ``positional_encodings/torch_encodings.py``,
    lines 6-47. The width is rounded up to an even ``C``, the frequencies are
    ``1 / 10000 ** (2i / C)`` in float32, the (sin, cos) pairs are interleaved, and the
    table is cut back to ``channels`` columns, so an odd width loses its last cosine and
    every exponent is ``2i / C`` instead of ``2i / channels``. The original writes into a
    table of the input tensor's dtype; this transcription models a float32 input. (An older
    release, revision c4f9180dc27d92fd3889278f5f2be421178f98fe, used ``[sin | cos]``.)
    """
    rounded = int(np.ceil(channels / 2) * 2)
    inv_freq = F32(1.0) / (F32(10000) ** (np.arange(0, rounded, 2).astype(F32) / F32(rounded)))
    pos_x = np.arange(length, dtype=F32)
    sin_inp_x = np.einsum("i,j->ij", pos_x, inv_freq)
    emb_x = np.stack((np.sin(sin_inp_x), np.cos(sin_inp_x)), axis=-1).reshape(length, rounded)
    return emb_x[:, :channels]


def pytorch_tutorial(max_len, d_model):
    """The ``PositionalEncoding`` of the PyTorch transformer tutorial, in float32 (interleaved).

    Source: ``pytorch/tutorials``, revision e5f60c64367b2ff3c19e5b73a2c7eac4bf1269f1,
    ``beginner_source/transformer_tutorial.py``, lines 94-110. ``div_term`` is
    ``exp(arange(0, d, 2) * (-log(10000) / d))`` in float32 and the angle
    ``position * div_term`` is formed in float32. An odd ``d_model`` fails, as in the
    original: ``ceil(d/2)`` cosines do not fit ``floor(d/2)`` columns. Returns ``(max_len, d_model)``.
    """
    pe = np.zeros((max_len, d_model), dtype=F32)
    position = np.arange(0, max_len, dtype=F32)[:, None]
    div_term = np.exp(np.arange(0, d_model, 2).astype(F32) * F32(-math.log(10000.0) / d_model))
    pe[:, 0::2] = np.sin(position * div_term)
    pe[:, 1::2] = np.cos(position * div_term)
    return pe


def annotated_transformer(max_len, d_model):
    """The ``PositionalEncoding`` of the Annotated Transformer (the 2022 edition of Rush's 2018 post), in float32.

    Source: ``harvardnlp/annotated-transformer``, revision
    0a91a254735c07532e23733dce8a693e504f3a08, ``the_annotated_transformer.py``,
    lines 748-768. Positions are an int64 range; multiplied by the float32 ``div_term``,
    PyTorch computes in float32 (NumPy would promote to float64, so the cast is written
    out here). Returns ``(max_len, d_model)``.
    """
    pe = np.zeros((max_len, d_model), dtype=F32)
    position = np.arange(0, max_len)[:, None]
    div_term = np.exp(np.arange(0, d_model, 2).astype(F32) * F32(-(math.log(10000.0) / d_model)))
    pe[:, 0::2] = np.sin(position.astype(F32) * div_term)
    pe[:, 1::2] = np.cos(position.astype(F32) * div_term)
    return pe


def d2l(max_len, num_hiddens):
    """Dive into Deep Learning's ``PositionalEncoding`` (PyTorch), in float32: positions divided by ``10000 ** (2i / d)``.

    Source: ``d2l-ai/d2l-en``, revision 300f071ebd1cff0dcc5de692eff85b4da3d29f5c,
    ``chapter_attention-mechanisms-and-transformers/self-attention-and-positional-encoding.md``,
    lines 283-298. Returns ``(max_len, num_hiddens)``.
    """
    p = np.zeros((max_len, num_hiddens), dtype=F32)
    x = np.arange(max_len, dtype=F32).reshape(-1, 1) / np.power(
        F32(10000), np.arange(0, num_hiddens, 2, dtype=F32) / F32(num_hiddens))
    p[:, 0::2] = np.sin(x)
    p[:, 1::2] = np.cos(x)
    return p


def roberta_positions(input_ids, padding_idx, past_key_values_length=0):
    """Hugging Face RoBERTa's ``create_position_ids_from_input_ids``: fairseq's numbering.

    Source: ``huggingface/transformers``, revision 87b236ba2be8b3e48a7d0c8ca6513302736d2886,
    ``src/transformers/models/roberta/modeling_roberta.py`` (the module-level function at
    the end of the file). Real tokens get ``padding_idx + 1, + 2, ...``, pads get
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
    """The rows Hugging Face OPT's ``OPTLearnedPositionalEmbedding`` reads: position + 2.

    Source: ``huggingface/transformers``, revision ab910744d640b0ed37e2056eb94de31fd4a6979c,
    ``src/transformers/models/opt/modeling_opt.py``, lines 99-120. Positions are counted
    from the attention mask (first real token 0, pads -1) and shifted by ``offset = 2``.
    """
    attention_mask = np.asarray(attention_mask).astype(np.int64)
    positions = (np.cumsum(attention_mask, axis=1) * attention_mask) - 1
    positions = positions[:, past_key_values_length:]
    return positions + offset


# --- rotary embeddings of Llama: Meta's reference code and Hugging Face's ---------------------


def meta_llama_rope(x, positions, theta=10000.0, dtype=F32):
    """Meta's Llama rotary embedding: ``precompute_freqs_cis`` and ``apply_rotary_emb``; pairs (2i, 2i + 1).

    Source: ``meta-llama/llama``, revision 0504cf440a50aab815cadccd10a46e7ba70ff344,
    ``llama/model.py``, functions ``precompute_freqs_cis`` and ``apply_rotary_emb``. The
    frequencies ``1 / theta ** (arange(0, dim, 2) / dim)`` and the angles ``t * freq`` are
    float32, ``torch.polar`` makes them complex64, and each head vector is read as complex
    numbers from its neighbouring pairs (``view_as_complex``) and multiplied by
    ``exp(i t freq)``. ``x`` has shape ``(..., n, head_dim)``, ``positions`` shape ``(n,)``.
    ``dtype=numpy.float64`` runs the same steps in double precision.
    """
    x = np.asarray(x, dtype=dtype)
    dim = x.shape[-1]
    freqs = dtype(1.0) / (dtype(theta) ** (np.arange(0, dim, 2)[: dim // 2].astype(dtype) / dtype(dim)))
    angles = np.outer(np.asarray(positions, dtype=dtype), freqs)
    freqs_cis = np.cos(angles) + 1j * np.sin(angles)
    pairs = x.reshape(*x.shape[:-1], -1, 2)
    rotated = (pairs[..., 0] + 1j * pairs[..., 1]) * freqs_cis
    return np.stack([rotated.real, rotated.imag], axis=-1).reshape(x.shape).astype(dtype)


def hf_llama_rope(x, positions, base=10000.0, dtype=F32):
    """Hugging Face's Llama rotary embedding: ``LlamaRotaryEmbedding`` and ``apply_rotary_pos_emb``; pairs (i, i + d/2).

    Source: ``huggingface/transformers``, revision 5dd4a63548857797727ae73eeb6a6e886ea02a3e,
    ``src/transformers/models/llama/modeling_llama.py``: ``inv_freq`` (the default rope
    parameters, ``1 / base ** (arange(0, dim, 2) / dim)``) times the positions in float32,
    ``emb = cat((freqs, freqs))``, and ``q * cos + rotate_half(q) * sin`` with
    ``rotate_half(x) = cat((-x2, x1))``. ``x`` has shape ``(..., n, head_dim)``.
    """
    x = np.asarray(x, dtype=dtype)
    dim = x.shape[-1]
    inv_freq = dtype(1.0) / (dtype(base) ** (np.arange(0, dim, 2).astype(dtype) / dtype(dim)))
    freqs = np.outer(np.asarray(positions, dtype=dtype), inv_freq)
    emb = np.concatenate([freqs, freqs], axis=-1)
    cos, sin = np.cos(emb), np.sin(emb)
    x1, x2 = x[..., : dim // 2], x[..., dim // 2 :]
    rotate_half = np.concatenate([-x2, x1], axis=-1)
    return (x * cos + rotate_half * sin).astype(dtype)


def hf_llama_permute(w, n_heads, dim1=None, dim2=None):
    """The ``permute`` of Hugging Face's Llama conversion script: Meta's W_q or W_k rows reordered for ``rotate_half``.

    Source: ``huggingface/transformers``, revision 01cc9cd9d804d368d553c093c4eb0646320545bb,
    ``src/transformers/models/llama/convert_llama_weights_to_hf.py``, the local function
    ``permute`` (commented "permute for sliced rotary"):
    ``w.view(n_heads, dim1 // n_heads // 2, 2, dim2).transpose(1, 2).reshape(dim1, dim2)``.
    Within each head, the rows of the pairs (2i, 2i + 1) become rows i and i + head_dim/2.
    The key projection is permuted with the number of key heads (grouped-query attention).
    """
    w = np.asarray(w)
    dim1 = w.shape[0] if dim1 is None else dim1
    dim2 = w.shape[1] if dim2 is None else dim2
    return w.reshape(n_heads, dim1 // n_heads // 2, 2, dim2).transpose(0, 2, 1, 3).reshape(dim1, dim2)
