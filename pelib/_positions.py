"""Positions in practice: which position each token gets (:func:`position_ids`, under
padding, a cache and packed documents).

Chapter 12, "Positions in practice" (``notebooks/12_positions_in_practice.ipynb``),
explains it and checks it against transcriptions of the real code; the rotary
frequencies each layer of a model applies are read by :mod:`pelib._rotary_config`.
"""

from __future__ import annotations

import numbers
from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from . import _validate

#: The conventions of :func:`position_ids`.
CONVENTIONS = ("index", "hf", "opt", "fairseq")
#: The most mask entries :func:`position_ids` accepts.
MAX_MASK = 2**26
#: The largest ``padding_idx`` (positions stay far inside int64).
_MAX_PADDING_IDX = 2**62


def position_ids(
    attention_mask: ArrayLike,
    *,
    convention: str = "hf",
    cache_length: int = 0,
    documents: Sequence[Any] | None = None,
    padding_idx: int = 1,
) -> np.ndarray:
    r"""The position (table row, or rotation index) each new token gets, from the
    attention mask, the length of the cache and the boundaries of packed documents.

    Chapter 12, "Positions in practice", uses it for padding, decoding, chunked prefill
    and packing. The mask covers every token of a row, the cached ones first (as the
    mask given to Hugging Face's ``generate`` does); the result is for the last ``n -
    cache_length`` columns. With :math:`c_j` the number of ones of the row's mask up to
    and including column :math:`j` (its cumulative sum) and :math:`m_j` the mask:

    - ``"index"``: :math:`j` (the column), whatever the mask: one position per column
      shared by every row (Whisper's decoder, tensor2tensor, and a single
      ``cache_position`` given to every row);
    - ``"hf"``: :math:`c_j - 1`, and 1 where :math:`m_j = 0` (the ``position_ids`` that
      Hugging Face's ``generate`` builds from the mask, read by Llama, GPT-NeoX, Qwen);
    - ``"opt"``: :math:`c_j m_j - 1 + 2`: the rows of OPT's learned table when OPT is
      called without position ids (pads read row 1, the first real token row 2; under
      ``generate``, which passes its own ids, OPT reads those ids plus 2);
    - ``"fairseq"``: :math:`c_j m_j + \text{padding\_idx}`, in a full pass over the
      row (fairseq's ``make_positions`` and Hugging Face's RoBERTa: pads read row
      ``padding_idx``, the first real token row ``padding_idx + 1``; their incremental
      decoding counts the pads too, see Notes).

    With ``documents`` (packing) the positions restart at every document's first token
    at the convention's first value: 0 for ``"index"`` and ``"hf"``, 2 for ``"opt"``,
    ``padding_idx + 1`` for ``"fairseq"``.

    Parameters
    ----------
    attention_mask : array_like
        Zeros and ones (bool or integers), shape ``(batch, n)`` or ``(n,)``, ``n >= 1``,
        at most 2**26 entries: 1 for a token, 0 for padding. ``"index"``
        checks it but does not read it.
    convention : {"index", "hf", "opt", "fairseq"}, default "hf"
        Which numbering, as above.
    cache_length : int, default 0
        How many leading columns are already in the cache, ``0 <= cache_length < n``.
    documents : sequence, optional
        Packed documents: for a 1-D mask, the lengths of its documents in order
        (positive integers summing to ``n``); for a 2-D mask, one such sequence per row.
        The mask must then be all ones (packing leaves no padding).
    padding_idx : int, default 1
        ``"fairseq"`` only (the other conventions ignore it): the row of the pads,
        ``0 <= padding_idx <= 2**62``.

    Returns
    -------
    numpy.ndarray
        Int64 positions of shape ``(batch, n - cache_length)`` or ``(n -
        cache_length,)``, as the mask's number of axes.

    Raises
    ------
    TypeError
        If the mask is not an array of bool or integers, a size is not an integer,
        ``convention`` not a string, or ``documents`` not a sequence of integers (of
        sequences of integers for a 2-D mask).
    ValueError
        If the mask holds values other than 0 and 1, is not 1-D or 2-D, is empty or
        too large, ``cache_length`` is out of range, ``convention`` unknown,
        ``padding_idx`` negative or too large, or ``documents`` does not hold one
        sequence per row of positive lengths summing to ``n``, or comes with padding.

    Notes
    -----
    Sources (facts carried over; the code here is this project's):

    - ``"hf"``: ``huggingface/transformers``, revision
      000034a44ef887621d9b36001a5eb7c46e64cb3f,
      ``src/transformers/generation/utils.py``,
      ``GenerationMixin.prepare_inputs_for_generation`` steps 4 and 5:
      ``attention_mask.long().cumsum(-1) - 1``, ``masked_fill_(attention_mask == 0,
      1)``, then the last ``input_ids.shape[1]`` columns when a cache is given.
    - ``"opt"``: ``huggingface/transformers``, revision
      ab910744d640b0ed37e2056eb94de31fd4a6979c,
      ``src/transformers/models/opt/modeling_opt.py``, lines 99-120
      (``OPTLearnedPositionalEmbedding``: ``cumsum(mask) * mask - 1``, the columns
      after ``past_key_values_length``, plus the offset 2).
    - ``"fairseq"``: ``facebookresearch/fairseq``, revision
      3d262bb25690e4eb2e7d3c1309b1e9c406ca4b99, ``fairseq/utils.py``
      (``make_positions``). fairseq's own incremental decoding
      (``fairseq/modules/learned_positional_embedding.py``, same revision) gives the
      one new token ``padding_idx + t`` for a prefix of ``t`` tokens, padding or not;
      this function gives what ``make_positions`` gives the whole row, which is the same
      without padding.

    Examples
    --------
    >>> position_ids([[0, 0, 1, 1], [1, 1, 1, 1]])
    array([[1, 1, 0, 1],
           [0, 1, 2, 3]])
    >>> position_ids([0, 1, 1, 1], convention="opt", cache_length=3)
    array([4])
    >>> position_ids([1, 1, 1, 1, 1], documents=[2, 3])
    array([0, 1, 0, 1, 2])
    """
    mask = _mask(attention_mask)
    n = mask.shape[-1]
    convention = _validate.choice(convention, "convention", CONVENTIONS)
    cache_length = _validate.size(cache_length, "cache_length")
    if cache_length >= n:
        raise ValueError(
            "cache_length must be less than the number of columns of attention_mask "
            f"({n}): at least one new token, got {cache_length}"
        )
    padding_idx = _validate.size(padding_idx, "padding_idx", maximum=_MAX_PADDING_IDX)
    rows = mask.reshape(-1, n)
    starts = _document_starts(documents, rows, mask.ndim == 1)
    first = {"index": 0, "hf": 0, "opt": 2, "fairseq": padding_idx + 1}[convention]
    if starts is not None:
        result = np.arange(n, dtype=np.int64)[None, :] - starts + first
    elif convention == "index":
        result = np.broadcast_to(np.arange(n, dtype=np.int64), rows.shape)
    else:
        count = np.cumsum(rows, axis=1, dtype=np.int64)
        if convention == "hf":
            result = np.where(rows == 1, count - 1, 1)
        else:
            result = count * rows + (first - 1)
    return np.ascontiguousarray(result[:, cache_length:]).reshape(
        mask.shape[:-1] + (n - cache_length,)
    )


def _mask(attention_mask: ArrayLike) -> np.ndarray:
    """The attention mask as an int64 array of zeros and ones, 1-D or 2-D and
    non-empty."""
    accepted = (
        "attention_mask must be an array of zeros and ones (bool or integers) of "
        "shape (batch, n) or (n,)"
    )
    mask = _validate.as_array(attention_mask, accepted)
    if mask.dtype.kind not in "biu":
        kind = (
            "Python objects" if mask.dtype.kind == "O" else f"dtype {mask.dtype.name}"
        )
        raise TypeError(f"{accepted}, got an array of {kind}")
    if mask.ndim not in (1, 2) or mask.size == 0:
        raise ValueError(f"{accepted}, non-empty, got shape {mask.shape}")
    if mask.size > MAX_MASK:
        raise ValueError(
            f"attention_mask has {mask.size} entries, more than the {MAX_MASK} accepted"
        )
    if not np.all((mask == 0) | (mask == 1)):
        raise ValueError(f"{accepted}; it holds other values")
    return mask.astype(np.int64)


def _document_starts(
    documents: Any, rows: np.ndarray, one_row: bool
) -> np.ndarray | None:
    """For each row (of ``rows``, the mask as 2-D) and column, the column where its
    document starts (None without ``documents``); ``one_row``: the mask was 1-D."""
    if documents is None:
        return None
    batch, n = rows.shape
    if not one_row and not _is_sequence(documents):
        raise TypeError(
            "documents must hold one sequence of document lengths per row of the "
            f"2-D attention_mask, got {_validate.describe(documents)}"
        )
    per_row = [documents] if one_row else list(documents)
    if len(per_row) != batch:
        raise ValueError(
            f"documents must hold one sequence of lengths per row of attention_mask "
            f"({batch} rows), got {len(per_row)}"
        )
    if not np.all(rows == 1):
        raise ValueError(
            "documents (packing) needs a mask of ones only: packed rows have no "
            "padding, but attention_mask holds zeros"
        )
    starts = np.empty((batch, n), dtype=np.int64)
    for row, lengths in enumerate(per_row):
        starts[row] = _row_starts(
            lengths,
            n,
            "documents (for the 1-D attention_mask)"
            if one_row
            else f"documents[{row}]",
        )
    return starts


def _is_sequence(value: Any) -> bool:
    """A list, tuple or 1-D NumPy array (not a string, mapping or set)."""
    return isinstance(value, (list, tuple)) or (
        isinstance(value, np.ndarray) and value.ndim == 1
    )


def _row_starts(lengths: Any, n: int, where: str) -> np.ndarray:
    """The start column of the document of each of the ``n`` columns, from one row's
    document lengths (``where``: their name in messages)."""
    if not _is_sequence(lengths) or not all(
        isinstance(v, numbers.Integral) and not isinstance(v, (bool, np.bool_))
        for v in lengths
    ):
        raise TypeError(
            f"{where} must be a sequence of document lengths (positive integers), got "
            f"{_validate.describe(lengths)}"
        )
    values = [int(v) for v in lengths]
    if not values or min(values) < 1 or sum(values) != n:
        raise ValueError(
            f"{where} must be positive document lengths summing to the length of "
            f"attention_mask's rows, {n}, got {_validate.describe(lengths)}"
        )
    return np.repeat(np.cumsum([0] + values[:-1]), values).astype(np.int64)
