"""Reading a model's rotary configuration: which rotary frequencies each layer applies
and which features of each head they turn (:func:`rotary_layers`, read from a Hugging
Face ``config.json``).

Chapter 12, "Positions in practice" (``notebooks/12_positions_in_practice.ipynb``),
explains it and checks it against transcriptions of the real code.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any, NamedTuple

import numpy as np

from . import _validate
from ._rope import rope_scaling


@dataclass(frozen=True, eq=False)
class RotaryLayer:
    """The rotary position embedding of one layer, as :func:`rotary_layers` reads it
    from a configuration.

    Attributes
    ----------
    layer : int
        The layer's index, from 0.
    head_dim : int
        The width of each attention head of the layer (Gemma 4's full-attention layers:
        ``global_head_dim``).
    rotated : int
        How many leading features of each head the rotation touches (0 without
        rotary). In ``"half"`` layout feature ``i < rotated / 2`` pairs with ``i +
        rotated / 2``; in ``"interleaved"`` layout ``2i`` pairs with ``2i + 1``. The
        features from ``rotated`` on pass unchanged.
    frequencies : numpy.ndarray or None
        Float64, read-only, one per pair (``rotated / 2``): radians per position. Gemma
        4's ``"proportional"`` rotary gives zeros to the pairs beyond its fraction, and
        ``rotated = head_dim``. None without rotary.
    base : float or None
        The rotary base of the layer (None without rotary).
    attention : str or None
        ``"full"``, ``"sliding"``, ``"chunked"`` (Llama 4's local layers) or
        ``"linear"`` (the gated delta-net layers of Qwen3-Next and Qwen3.5, without
        rotary), from the configuration's layer types (given, or filled in by the
        model type's class); None when it has none.
    sections : numpy.ndarray or None
        M-RoPE only (Qwen2-VL, Qwen3-VL, Qwen3.5): int64, read-only, one per pair,
        the position axis that turns the pair: 0 time, 1 height, 2 width. None
        otherwise.
    rope_type : str or None
        ``"default"``, ``"linear"``, ``"dynamic"``, ``"yarn"``, ``"llama3"`` or
        ``"proportional"`` (``"mrope"`` is read as ``"default"``); None without rotary.
    attention_factor : float
        What cos and sin are multiplied by (YaRN's attention factor; 1.0 otherwise).
    layout : str
        ``"half"`` (Hugging Face's ``rotate_half``) or ``"interleaved"`` (Llama 4's
        complex multiplication, which pairs neighbouring features).
    """

    layer: int
    head_dim: int
    rotated: int
    frequencies: np.ndarray | None
    base: float | None
    attention: str | None
    sections: np.ndarray | None
    rope_type: str | None
    attention_factor: float = 1.0
    layout: str = "half"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, RotaryLayer):
            return NotImplemented
        return all(
            _same(getattr(self, f.name), getattr(other, f.name)) for f in fields(self)
        )

    __hash__ = None  # type: ignore[assignment]  # it holds arrays


def _same(a: Any, b: Any) -> bool:
    """Equality of two field values, arrays compared element by element."""
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return (
            isinstance(a, np.ndarray)
            and isinstance(b, np.ndarray)
            and np.array_equal(a, b)
        )
    return a == b


#: The layer types of Hugging Face's ``layer_types`` that :func:`rotary_layers` knows,
#: and how :attr:`RotaryLayer.attention` names them.
ATTENTION_TYPES = {
    "full_attention": "full",
    "sliding_attention": "sliding",
    "chunked_attention": "chunked",
    "linear_attention": "linear",
}
#: The ``rope_type`` values :func:`rotary_layers` understands.
ROPE_TYPES = ("default", "linear", "dynamic", "yarn", "llama3", "proportional", "mrope")
#: The keys of a ``rope_scaling`` or ``rope_parameters`` dictionary it understands.
ROPE_PARAMETER_KEYS = (
    "rope_type",
    "type",
    "rope_theta",
    "partial_rotary_factor",
    "factor",
    "original_max_position_embeddings",
    "attention_factor",
    "beta_fast",
    "beta_slow",
    "mscale",
    "mscale_all_dim",
    "truncate",
    "low_freq_factor",
    "high_freq_factor",
    "mrope_section",
    "mrope_interleaved",
)
#: The top-level keys it reads. Any other key whose name holds "rope", "rotary" or
#: "nope" is refused; other keys (``vocab_size``...) are ignored.
CONFIG_KEYS = (
    "model_type",
    "hidden_size",
    "num_attention_heads",
    "head_dim",
    "global_head_dim",
    "num_hidden_layers",
    "max_position_embeddings",
    "original_max_position_embeddings",
    "rope_theta",
    "rotary_emb_base",
    "rotary_pct",
    "partial_rotary_factor",
    "rope_scaling",
    "rope_parameters",
    "rope_local_base_freq",
    "layer_types",
    "sliding_window_pattern",
    "use_sliding_window",
    "sliding_window",
    "max_window_layers",
    "full_attention_interval",
    "no_rope_layers",
    "no_rope_layer_interval",
    "nope_layer_interval",
    "mrope_section",
    "mrope_interleaved",
    "text_config",
)
#: The most layers, and the widest head, :func:`rotary_layers` accepts.
MAX_LAYERS = 10_000
MAX_HEAD_DIM = 2**16
#: Composite model types, and the model type of the text configuration they hold.
_TEXT_MODEL = {
    "gemma3": "gemma3_text",
    "gemma4": "gemma4_text",
    "llama4": "llama4_text",
    "qwen2_vl": "qwen2_vl_text",
    "qwen3_vl": "qwen3_vl_text",
    "qwen3_5": "qwen3_5_text",
}
#: Model types whose rotary pairs neighbouring features (complex multiplication).
_INTERLEAVED_MODELS = ("llama4_text",)
#: Model types whose M-RoPE interleaves the axes whatever ``mrope_interleaved`` says.
_INTERLEAVED_MROPE = ("qwen3_vl", "qwen3_5")


class _Class(NamedTuple):
    """A ``transformers`` configuration class: its name, the values it fills in for the
    keys a configuration leaves out, and the keys whose default differs between
    versions (with both values, for the message)."""

    name: str
    defaults: dict[str, Any]
    unsettled: dict[str, str] = {}


def _fields(hidden: int, layers: int, heads: int, length: int, **more: Any) -> dict:
    """The defaults of ``hidden_size``, ``num_hidden_layers``, ``num_attention_heads``
    and ``max_position_embeddings``, and ``more``."""
    return dict(
        hidden_size=hidden,
        num_hidden_layers=layers,
        num_attention_heads=heads,
        max_position_embeddings=length,
        **more,
    )


#: The configuration classes whose defaults :func:`rotary_layers` fills in, by model
#: type (transformers 5.23.0; the sources are in its Notes). ``rope_theta``,
#: ``rotary_emb_base``, ``rope_local_base_freq``, ``partial_rotary_factor`` and
#: ``rotary_pct`` here are the class's values when neither the top level nor the
#: rotary parameters give one; ``mrope_section`` is the model class's.
_CLASSES = {
    "gpt_neox": _Class(
        "GPTNeoXConfig",
        _fields(6144, 44, 64, 2048, rotary_emb_base=10000.0, rotary_pct=0.25),
    ),
    "phi": _Class(
        "PhiConfig",
        _fields(2048, 24, 32, 2048, rope_theta=10000.0, partial_rotary_factor=0.5),
    ),
    "stablelm": _Class(
        "StableLmConfig",
        _fields(2560, 32, 32, 4096, rope_theta=10000.0, partial_rotary_factor=0.25),
    ),
    "llama": _Class("LlamaConfig", _fields(4096, 32, 32, 2048, rope_theta=10000.0)),
    "gemma3_text": _Class(
        "Gemma3TextConfig",
        _fields(
            2304,
            26,
            8,
            131072,
            head_dim=256,
            rope_theta=1_000_000.0,
            rope_local_base_freq=10_000.0,
            sliding_window_pattern=6,
        ),
    ),  # fmt: skip
    "gemma4_text": _Class(
        "Gemma4TextConfig",
        _fields(
            2304,
            30,
            8,
            131072,
            head_dim=256,
            global_head_dim=512,
            sliding_window_pattern=6,
            rope_parameters={
                "sliding_attention": {"rope_type": "default", "rope_theta": 10_000.0},
                "full_attention": {
                    "rope_type": "proportional",
                    "partial_rotary_factor": 0.25,
                    "rope_theta": 1_000_000.0,
                },
            },
        ),
    ),  # fmt: skip
    "llama4_text": _Class(
        "Llama4TextConfig",
        _fields(
            5120,
            48,
            40,
            131072,
            head_dim=128,
            rope_theta=500000.0,
            no_rope_layer_interval=4,
        ),
    ),  # fmt: skip
    "smollm3": _Class(
        "SmolLM3Config",
        _fields(2048, 36, 16, 32768, rope_theta=2000000.0, no_rope_layer_interval=4),
    ),
    "qwen2_vl_text": _Class(
        "Qwen2VLTextConfig",
        _fields(
            8192,
            80,
            64,
            32768,
            rope_theta=1000000.0,
            use_sliding_window=False,
            sliding_window=4096,
            max_window_layers=80,
            mrope_section=[16, 24, 24],
        ),
    ),  # fmt: skip
    "qwen3_vl_text": _Class(
        "Qwen3VLTextConfig",
        _fields(4096, 32, 32, 128000, head_dim=128, mrope_section=[24, 20, 20]),
        {
            "rope_theta": "transformers 4.57.1's Qwen3VLTextConfig gives 5000000.0, "
            "5.23.0's default_theta 500000.0"
        },
    ),
    "qwen3_5_text": _Class(
        "Qwen3_5TextConfig",
        _fields(
            4096,
            32,
            16,
            32768,
            head_dim=256,
            rope_theta=10000.0,
            partial_rotary_factor=0.25,
            full_attention_interval=4,
            mrope_section=[11, 11, 10],
        ),
    ),  # fmt: skip
    "qwen3_next": _Class(
        "Qwen3NextConfig",
        _fields(
            2048,
            48,
            16,
            32768,
            head_dim=256,
            rope_theta=10000.0,
            partial_rotary_factor=0.25,
            full_attention_interval=4,
        ),
    ),  # fmt: skip
}


class _Config(NamedTuple):
    """A configuration with ``text_config`` merged in, the name of each key in messages,
    its model type (a composite type read as its text model's) and its class's defaults
    for the keys it leaves out."""

    values: dict[str, Any]
    names: dict[str, str]
    model_type: str
    defaults: dict[str, Any] = {}
    known: _Class | None = None

    def name(self, key: str) -> str:
        return self.names.get(key, f"config[{key!r}]")

    def get(self, key: str) -> Any:
        """The value the configuration gives (None if none)."""
        return self.values.get(key)

    def value(self, key: str) -> Any:
        """The value given, else the class default when the key is absent."""
        return self.values[key] if key in self.values else self.defaults.get(key)


class _Rope(NamedTuple):
    """The checked rotary parameters of one layer type."""

    rope_type: str
    base: float
    fraction: float
    options: dict[str, Any]  # for rope_scaling, beyond d, method and base
    sections: tuple[int, int, int] | None
    interleaved: bool
    where: str  # the configuration key these came from, for messages


def rotary_layers(config: Mapping[str, Any]) -> tuple[RotaryLayer, ...]:
    r"""The rotary frequencies every layer of a model applies, and which features of
    each head they rotate, read from its Hugging Face configuration.

    Chapter 12, "Positions in practice", reads the configurations of released models
    with it: partial rotary (GPT-NeoX, Phi) against Gemma 4's proportional form, layers
    without rotary (SmolLM3, Llama 4), local and global bases (Gemma 3), M-RoPE
    sections (Qwen2-VL chunked, Qwen3-VL interleaved).

    A layer with a fraction :math:`f` (``partial_rotary_factor``, GPT-NeoX's
    ``rotary_pct``) rotates the first :math:`r = \lfloor f \cdot \text{head\_dim}
    \rfloor` features of each head with the frequencies of width :math:`r`,
    :math:`\omega_i = b^{-2i/r}`, scaled as its ``rope_type`` says (through
    :func:`pelib.rope_scaling`). Gemma 4's ``"proportional"`` rotates the whole head:
    :math:`\omega_i = b^{-2i/\text{head\_dim}} / s` for the first :math:`\lfloor f
    \cdot \text{head\_dim} / 2 \rfloor` pairs and 0 for the others.

    Parameters
    ----------
    config : dict
        A model configuration as ``json.load`` returns a ``config.json``. The keys
        read: ``num_hidden_layers``; ``head_dim`` (else ``hidden_size //
        num_attention_heads``); the base (``rope_theta``, GPT-NeoX's
        ``rotary_emb_base``, or ``rope_theta`` inside the rotary parameters); the
        fraction (``partial_rotary_factor``, GPT-NeoX's ``rotary_pct``, default 1); the
        rotary parameters, ``rope_scaling`` (transformers 4) or ``rope_parameters``
        (transformers 5), flat or keyed by layer type (``"full_attention"``,
        ``"sliding_attention"``, ``"chunked_attention"``), with the keys
        ``rope_type`` (or ``type``), ``rope_theta``, ``partial_rotary_factor``,
        ``factor``, ``original_max_position_embeddings``, ``attention_factor``,
        ``beta_fast``, ``beta_slow``, ``mscale``, ``mscale_all_dim``, ``truncate``,
        ``low_freq_factor``, ``high_freq_factor``, ``mrope_section`` and
        ``mrope_interleaved``; Gemma 3's ``rope_local_base_freq`` (the base of sliding
        layers, which are not scaled); the layer types (``layer_types``, among
        ``"full_attention"``, ``"sliding_attention"``, ``"chunked_attention"`` and
        ``"linear_attention"``, which has no rotary; or ``sliding_window_pattern``:
        every ``p``-th layer full, the others sliding; or ``full_attention_interval``:
        every ``p``-th layer full, the others linear attention); layers without rotary
        (``no_rope_layers``, 1 where the layer *uses* rotary, or every
        ``no_rope_layer_interval``-th layer without, also under Meta's name
        ``nope_layer_interval``); Gemma 4's ``global_head_dim`` (the head width of its
        full layers); M-RoPE's ``mrope_section`` and ``mrope_interleaved``; the lengths
        ``max_position_embeddings`` and ``original_max_position_embeddings`` for
        scaling; ``use_sliding_window``, ``sliding_window`` and Qwen2-VL's
        ``max_window_layers`` (for the layer types of SmolLM3 and Qwen2-VL);
        ``model_type`` (see Notes). A nested ``text_config`` is merged in. A key that
        a configuration leaves out takes the default of the model type's
        ``transformers`` configuration class, for the classes listed in Notes; for
        another model type a missing value that is needed is refused.
        Keys that have nothing to do with positions are ignored; any other key whose
        name holds "rope", "rotary" or "nope", any other key of the rotary parameters
        and any other ``rope_type`` (``"longrope"``...) are refused by name.

    Returns
    -------
    tuple of RotaryLayer
        One per layer, in order.

    Raises
    ------
    TypeError
        If ``config`` is not a dict with string keys, or a value has the wrong type.
    ValueError
        If a key is refused (see above), a needed key is missing (and has no class
        default, or one that differs between versions), a value is out of
        range, two keys that say the same thing disagree (``rope_theta`` inside and
        outside the rotary parameters, ``rotary_pct`` and ``partial_rotary_factor``,
        ``text_config`` and the top level), the rotated width is odd or 0, the M-RoPE
        sections do not fit the pairs, or the scaling is refused by
        :func:`pelib.rope_scaling`. Each message names the key.

    Notes
    -----
    The semantics are Hugging Face ``transformers``' (sources below; the code here is
    this project's). Where transformers 4 (``rope_scaling``, top-level ``rope_theta``
    and ``partial_rotary_factor``) and 5 (``rope_parameters``) place a key differently,
    both places are read, and a key given in both with different values is refused,
    since the two versions would not read the same one.

    - Partial rotary: ``rotary_ndims = int(head_size * rotary_pct)`` and
      ``inv_freq = 1 / base ** (arange(0, dim, 2) / dim)`` for ``dim = rotary_ndims``:
      ``src/transformers/models/gpt_neox/modeling_gpt_neox.py`` (revision
      006bd23dd0ce18d54e1cf260b09b15fa943a731d, ``GPTNeoXAttention``),
      ``modular_gpt_neox.py`` (revision 00dcc6dda6f6d8e69541a6b51f97986a80242367,
      ``apply_rotary_pos_emb`` rotates ``q[..., :rotary_dim]`` and passes the rest),
      ``configuration_gpt_neox.py`` (revision 008e574391258935f3ecc3035c882e73bbcac419:
      ``rotary_emb_base`` and ``rotary_pct`` move into ``rope_parameters``);
      ``models/phi/modular_phi.py`` (revision 00a98e7125fde87191ae8bb9ce137237fd90637b:
      ``rotary_ndims = int(head_dim * partial_rotary_factor)``). An odd width is
      refused: there transformers' cos and sin (``2 * ceil(dim / 2)`` wide) do not fit
      the rotated slice. In transformers 5 the ``"default"`` frequencies of models
      without a partial form (Llama, Llama 4, Qwen3-VL, Gemma 4's sliding layers)
      ignore ``partial_rotary_factor``; here it always applies, as in transformers 4's
      shared ``_compute_default_rope_parameters``.
    - Scaling: ``src/transformers/modeling_rope_utils.py`` of transformers 5 (the copy
      of revision 07dc0bab60a71fa935af8891ddda73e44293e18e of ``8b-is/transformers``,
      a fork, the newest the project's index holds; ``huggingface/transformers``'s own
      copy there, revision ef46806472a64b0013ed413781e3afed82bfa047, predates
      ``rope_parameters``): ``linear``, ``dynamic`` (frequencies at the trained length
      ``max_position_embeddings``, as at initialisation; they change with the length
      in use), ``yarn`` (``beta_fast`` and ``beta_slow`` of 0 or None read as 32 and
      1, as its ``or`` does), ``llama3``, each through :func:`pelib.rope_scaling`; the
      original length of ``yarn`` and ``llama3`` is the top-level
      ``original_max_position_embeddings`` (Phi-3's place, which transformers 5 puts
      first), else the one in the rotary parameters, else ``max_position_embeddings``
      (``standardize_rope_params``). Llama 4 Scout's ``low_freq_factor ==
      high_freq_factor`` makes transformers' blend a step (the division by ``high -
      low`` meets only the wavelength exactly at the limit): pairs of wavelength above
      ``L / low_freq_factor`` are divided by the factor, the others kept; a pair exactly
      at the limit (``nan`` there) is refused.
    - Proportional (Gemma 4): ``_compute_proportional_rope_parameters`` in the same
      file: ``rope_angles = int(partial_rotary_factor * head_dim // 2)``, ``inv_freq =
      1 / base ** (arange(0, 2 * rope_angles, 2) / head_dim)``, zeros for the other
      ``head_dim // 2 - rope_angles`` pairs, all divided by ``factor`` (default 1); its
      full-attention layers use ``global_head_dim``
      (``models/gemma4/modeling_gemma4.py``, revision
      0246b4f3335464614ef1de66531f9131a44ec801, ``Gemma4TextRotaryEmbedding`` passes
      ``head_dim_key="global_head_dim"``, ``Gemma4TextAttention`` takes that width);
      ``configuration_gemma4.py`` (revision
      008e574391258935f3ecc3035c882e73bbcac419) makes the last layer a full one
      whatever ``layer_types`` says, as done here for model type ``gemma4``.
    - Local and global (Gemma 3): ``models/gemma3/configuration_gemma3.py``,
      revision 008f5c8c29be84d4721dc6d1e0fcd72300580be4 (transformers 4:
      ``rope_local_base_freq`` and ``sliding_window_pattern``; the 4.x model rotates
      sliding layers with a copy of the configuration whose base is
      ``rope_local_base_freq`` and whose scaling is ``"default"``), and the copy of
      revision c0ce2e40523611eb0eb5d2c03ba304371523a1fc of ``Zahgon/transformers``
      (transformers 5: ``rope_scaling`` goes to ``full_attention`` only; layer ``i``
      is sliding unless ``(i + 1) % sliding_window_pattern == 0``);
      ``modeling_gemma3.py`` (revision 0018aa647bb13801f061e2d1027c326f531b59fb)
      rotates each layer with its type's parameters.
    - Layers without rotary: ``models/smollm3/configuration_smollm3.py`` and
      ``models/llama4/configuration_llama4.py`` (revision
      008e574391258935f3ecc3035c882e73bbcac419): ``no_rope_layers[i]`` is 1 where layer
      ``i`` *uses* rotary (the name reads the other way), default ``int((i + 1) %
      no_rope_layer_interval != 0)``; ``modeling_smollm3.py`` (revision
      00d4b3d2142cb4ced2f51b90614b5d26bc045015) and ``modeling_llama4.py`` (revision
      000c33fdfde12e1ffafbfcdb3c926df5727a00b6) read ``use_rope =
      config.no_rope_layers[layer_idx]``. Llama 4 names its rotary layers
      ``"chunked_attention"`` and its others ``"full_attention"``, and rotates by
      complex multiplication of neighbouring features (``view_as_complex`` in
      ``apply_rotary_emb``): layout ``"interleaved"``. ``nope_layer_interval`` is the
      name of Meta's ``llama-models`` (``(layer_id + 1) % nope_layer_interval == 0``
      means no rotary), read as ``no_rope_layer_interval``. An empty
      ``no_rope_layers`` is Llama 4's schedule (below); otherwise it is refused
      (SmolLM3's model would index past its end).
    - Linear attention: a ``"linear_attention"`` layer has no rotary.
      ``Qwen3_5DecoderLayer`` (transformers 5.23.0,
      ``models/qwen3_5/modeling_qwen3_5.py``, lines 854-897) gives it a
      ``Qwen3_5GatedDeltaNet`` and calls it without the position embeddings, as
      ``Qwen3NextDecoderLayer`` does (``models/qwen3_next/modeling_qwen3_next.py``,
      lines 871-923). Qwen3.5's full layers rotate with Qwen3-VL's interleaved M-RoPE
      (``Qwen3_5TextRotaryEmbedding``, lines 134-198) on ``int(head_dim *
      partial_rotary_factor)`` features (its ``compute_default_rope_parameters``,
      lines 152-173), which ``apply_rotary_pos_emb`` (lines 667-702) rotates, passing
      the rest of the head.
    - M-RoPE: ``models/qwen2_vl/modeling_qwen2_vl.py`` (revision
      00b676f8f0489b88652a31d70751cc540dd06305, ``apply_multimodal_rotary_pos_emb``:
      chunks of ``mrope_section`` pairs for time, height, width, in that order; the
      sections must sum to the pairs) and ``models/qwen3_vl/modeling_qwen3_vl.py``
      (revision 00709b862bb8f14a5435bb7195592579168496e4, ``apply_interleaved_mrope``:
      pair ``3k + 1`` is height for ``3k + 1 < 3 s_1``, pair ``3k + 2`` width for ``3k
      + 2 < 3 s_2``, every other pair time, so ``s_0`` is never read). Interleaved when
      ``mrope_interleaved`` is true or the model type starts with ``qwen3_vl`` (whose
      code interleaves whatever the flag says; a false flag there is refused).

    ``model_type`` is read for what the configuration alone cannot say: the layout
    (Llama 4), Gemma 4's last layer, the interleaving of Qwen3-VL and Qwen3.5, and the
    defaults of the configuration class. A composite type (``gemma3``, ``gemma4``,
    ``llama4``, ``qwen2_vl``, ``qwen3_vl``, ``qwen3_5``) is read as its text model's.
    A key left out (absent; a key given as null is not filled in) takes its class
    default, as ``transformers`` 5.23.0 fills it in (``src/transformers/`` of the
    wheel ``transformers-5.23.0-py3-none-any.whl``, files and lines below; the
    ``__init__`` defaults of 4.57.1 agree wherever the class exists there, except
    Qwen3-VL's base). ``default_theta`` is 10000.0 unless said
    (``modeling_rope_utils.py``, line 760); the base and the fraction are read from the
    rotary parameters first, then from the top level, then from these defaults:

    - ``gpt_neox``: ``configuration_gpt_neox.py`` lines 62-70 (``hidden_size`` 6144,
      44 layers, 64 heads, ``max_position_embeddings`` 2048) and 97-98 (base
      ``rotary_emb_base`` else ``default_theta``, fraction ``rotary_pct`` else 0.25).
      Its class reads no top-level ``rope_theta`` or ``partial_rotary_factor``: one
      that differs from the value read is refused.
    - ``phi``: ``configuration_phi.py`` lines 64-73 (2048, 24 layers, 32 heads, 2048)
      and 88 (``partial_rotary_factor`` 0.5). ``stablelm``:
      ``configuration_stablelm.py`` lines 47-52 (2560, 32, 32, 4096) and 68 (0.25).
      ``llama``: ``configuration_llama.py`` lines 65-71 (4096, 32, 32, 2048), the head
      ``hidden_size // num_attention_heads`` (lines 84-88).
    - ``gemma3_text``: ``configuration_gemma3.py`` lines 75-82 (2304, 26 layers, 8
      heads, ``head_dim`` 256, 131072), 106-112 (``sliding_window_pattern`` 6 when
      there are no ``layer_types``), 99 and 149-156 (full layers' base ``rope_theta``
      else 1000000.0, sliding layers' ``rope_local_base_freq`` else 10000.0).
    - ``gemma4_text``: ``configuration_gemma4.py`` lines 152-159 (2304, 30 layers, 8
      heads, ``head_dim`` 256, 131072), 189-200 (every 6th layer full, the last made
      full), 202-207 (``rope_parameters``: sliding ``"default"`` of base 10000.0, full
      ``"proportional"`` 0.25 of base 1000000.0), 209 (``global_head_dim`` 512). It
      reads ``rope_parameters`` per layer type and nothing else: a top-level
      ``rope_scaling``, ``rope_theta``, ``rotary_emb_base``, ``rope_local_base_freq``,
      ``partial_rotary_factor`` or ``rotary_pct``, flat ``rope_parameters`` and a
      ``sliding_window_pattern`` other than 6 are refused.
    - ``llama4_text``: ``configuration_llama4.py`` lines 131-139 (5120, 48 layers, 40
      heads, ``head_dim`` 128, 131072), 111 (``default_theta`` 500000.0), 158 and
      170-173 (``no_rope_layers`` missing or empty: ``int((i + 1) % 4 != 0)``, the
      interval ``no_rope_layer_interval``, default 4), 188-191 (layer types).
    - ``smollm3``: ``configuration_smollm3.py`` lines 73-79 (2048, 36 layers, 16
      heads, 32768), 55 (``default_theta`` 2000000.0), 90 and 101-104 (a missing
      ``no_rope_layers``: the same schedule), 106-114 (layer types: full, or sliding
      for layers without rotary when ``use_sliding_window`` and ``sliding_window``).
    - ``qwen2_vl_text``: ``configuration_qwen2_vl.py`` lines 87-99 (8192, 80 layers,
      64 heads, 32768, ``use_sliding_window`` false, ``sliding_window`` 4096,
      ``max_window_layers`` 80), 68 (``default_theta`` 1000000.0), 107-120 (layer
      ``i`` sliding when the window is used and ``i >= max_window_layers``);
      ``mrope_section`` [16, 24, 24] of the model (``modeling_qwen2_vl.py`` line 102;
      4.57.1 has no default).
    - ``qwen3_vl_text``: ``configuration_qwen3_vl.py`` lines 85-92 (4096, 32 layers,
      32 heads, ``head_dim`` 128, 128000); ``mrope_section`` [24, 20, 20] of the
      model (``modeling_qwen3_vl.py`` line 369). A missing base is refused: 5.23.0's
      ``default_theta`` is 500000.0 (line 81), 4.57.1's ``rope_theta=5000000.0``
      (its ``configuration_qwen3_vl.py``, line 182).
    - ``qwen3_5_text``: ``configuration_qwen3_5.py`` lines 83-97 (4096, 32 layers, 16
      heads, 32768, ``head_dim`` 256), 111 (``partial_rotary_factor`` 0.25), 112-117
      (every ``full_attention_interval``-th layer full, default 4, the others
      ``"linear_attention"``); ``mrope_section`` [11, 11, 10] of the model
      (``modeling_qwen3_5.py`` line 150). ``qwen3_next``:
      ``configuration_qwen3_next.py`` lines 93-107 (2048, 48 layers, 16 heads, 32768,
      ``head_dim`` 256), 128 (0.25), 130-135 (the same layer types).

    For another model type nothing is filled in: a value that is needed and missing
    (the layer count, the head width, the base, M-RoPE's sections...) is refused by
    name.

    Examples
    --------
    >>> layers = rotary_layers(
    ...     {"hidden_size": 2560, "num_attention_heads": 32, "num_hidden_layers": 2,
    ...      "rope_theta": 10000.0, "partial_rotary_factor": 0.4}
    ... )
    >>> layers[0].head_dim, layers[0].rotated, layers[0].frequencies.shape
    (80, 32, (16,))
    >>> smol = rotary_layers(
    ...     {"head_dim": 4, "num_hidden_layers": 4, "rope_theta": 100.0,
    ...      "no_rope_layers": [1, 1, 1, 0]}
    ... )
    >>> [layer.rotated for layer in smol]
    [4, 4, 4, 0]
    """
    cfg = _with_class(_merged(config))
    _refuse_unknown(cfg)
    _refuse_unread(cfg)
    n = _validate.size(
        _needed(cfg, "num_hidden_layers"),
        cfg.name("num_hidden_layers"),
        minimum=1,
        maximum=MAX_LAYERS,
    )
    head_dim, global_head_dim = _head_dims(cfg)
    uses = _uses_rope(cfg, n)
    types = _layer_types(cfg, n, uses)
    if types is not None:  # Qwen3-Next's and Qwen3.5's gated delta-net: no rotary
        uses = [
            use and kind != "linear_attention"
            for use, kind in zip(uses, types, strict=True)
        ]
    ropes = _ropes(cfg, types, uses)
    layout = "interleaved" if cfg.model_type in _INTERLEAVED_MODELS else "half"
    layers, made = [], {}
    for i in range(n):
        kind = None if types is None else types[i]
        wide = global_head_dim is not None and kind in (
            "full_attention",
            "chunked_attention",
        )
        width = global_head_dim if wide else head_dim
        common = dict(
            layer=i,
            head_dim=width,
            attention=None if kind is None else ATTENTION_TYPES[kind],
            layout=layout,
        )
        if not uses[i]:
            layers.append(RotaryLayer(**common, **_NO_ROTARY))
            continue
        if (kind, width) not in made:
            made[kind, width] = _rotation(ropes[kind], width, head_dim, cfg)
        layers.append(RotaryLayer(**common, **made[kind, width]))
    return tuple(layers)


#: The fields of a :class:`RotaryLayer` without rotary, beyond layer, width, attention
#: and layout.
_NO_ROTARY = dict(
    rotated=0,
    frequencies=None,
    base=None,
    sections=None,
    rope_type=None,
    attention_factor=1.0,
)


def _merged(config: Any) -> _Config:
    """``config`` checked to be a dict with string keys, its ``text_config`` merged in
    (a key given at both levels with different values is refused)."""
    if not isinstance(config, Mapping):
        raise TypeError(
            "config must be a dict (a Hugging Face config.json as json.load returns "
            f"it), got {_validate.describe(config)}"
        )
    _string_keys(config, "config")
    values = {k: v for k, v in config.items() if k != "text_config"}
    names = {k: f"config[{k!r}]" for k in values}
    text = config.get("text_config")
    if text is not None:
        where = "config['text_config']"
        if not isinstance(text, Mapping):
            raise TypeError(f"{where} must be a dict, got {_validate.describe(text)}")
        _string_keys(text, where)
        if "text_config" in text:
            raise ValueError(f"{where} holds another text_config; pelib reads one")
        for key, value in text.items():
            differ = key in values and not _equal(values[key], value)
            # the composite model's type (such as "gemma3") is not the text model's
            if differ and _positional(key) and key != "model_type":
                raise ValueError(
                    f"{where}[{key!r}] and config[{key!r}] differ "
                    f"({_validate.describe(value)} and "
                    f"{_validate.describe(values[key])}); give one value"
                )
            values[key] = value
            names[key] = f"{where}[{key!r}]"
    model_type = values.get("model_type")
    if model_type is not None and not isinstance(model_type, str):
        raise TypeError(
            f"{names['model_type']} must be a string, got "
            f"{_validate.describe(model_type)}"
        )
    return _Config(values, names, model_type or "")


def _string_keys(mapping: Mapping[Any, Any], where: str) -> None:
    """Refuse a mapping with a key that is not a string."""
    for key in mapping:
        if not isinstance(key, str):
            raise TypeError(
                f"{where} must have string keys (as JSON gives), got the key "
                f"{_validate.describe(key)}"
            )


def _positional(key: str) -> bool:
    """Whether :func:`rotary_layers` reads ``key`` or refuses it."""
    low = key.lower()
    return key in CONFIG_KEYS or any(word in low for word in ("rope", "rotary", "nope"))


def _equal(a: Any, b: Any) -> bool:
    """``a == b`` as a bool (False where the comparison fails)."""
    try:
        return bool(a == b)
    except (TypeError, ValueError):
        return False


def _refuse_unknown(cfg: _Config) -> None:
    """Refuse a key about positions that :func:`rotary_layers` does not understand."""
    for key in cfg.values:
        if _positional(key) and key not in CONFIG_KEYS:
            raise ValueError(
                f"{cfg.name(key)}: pelib does not understand this key, so it cannot "
                "say what it does to the rotary positions; rather than guess, it "
                "refuses it. "
                f"The keys it reads: {', '.join(CONFIG_KEYS)}"
            )


def _with_class(cfg: _Config) -> _Config:
    """``cfg`` with its model type read as its text model's and, for a model type whose
    configuration class pelib knows, that class's defaults of the keys it leaves out."""
    model_type = _TEXT_MODEL.get(cfg.model_type, cfg.model_type)
    known = _CLASSES.get(model_type)
    if known is None:
        return cfg._replace(model_type=model_type)
    defaults = {k: v for k, v in known.defaults.items() if k not in cfg.values}
    names = dict(cfg.names)
    for key, value in defaults.items():
        shown = "per layer type" if key == "rope_parameters" else repr(value)
        whose = f"{known.name}'s model" if key == "mrope_section" else known.name
        names[key] = f"config[{key!r}] ({whose}'s default, {shown})"
    return _Config(cfg.values, names, model_type, defaults, known)


def _unknown(cfg: _Config, key: str) -> str:
    """Why pelib does not fill ``key`` in: its class's versions disagree, or the model
    type is not one whose class pelib knows."""
    if cfg.known is not None and key in cfg.known.unsettled:
        return (
            f"; {cfg.known.name} fills it in, but its versions disagree "
            f"({cfg.known.unsettled[key]}): write it out"
        )
    if cfg.known is not None:
        return f"; {cfg.known.name} has no default for it either"
    kind = f"model_type {cfg.model_type!r}" if cfg.model_type else "no model_type"
    return (
        f"; config has {kind}, not one whose transformers configuration class pelib "
        f"knows ({', '.join(sorted(_CLASSES))} and the composite "
        f"{', '.join(sorted(_TEXT_MODEL))}), so it cannot fill in a class default"
    )


def _needed(cfg: _Config, key: str) -> Any:
    """The value of ``key`` (given, else the class default); refused if missing."""
    value = cfg.value(key)
    if value is None:
        raise ValueError(f"{cfg.name(key)} is missing{_unknown(cfg, key)}")
    return value


#: The top-level keys Gemma4TextConfig does not read (transformers 5.23.0: its rotary
#: comes from rope_parameters alone). GPT-NeoX's unread rope_theta and
#: partial_rotary_factor are checked in :func:`_base_and_fraction`.
_GEMMA4_UNREAD = (
    "rope_scaling",
    "rope_theta",
    "rotary_emb_base",
    "rope_local_base_freq",
    "partial_rotary_factor",
    "rotary_pct",
)


def _refuse_unread(cfg: _Config) -> None:
    """Refuse the top-level rotary keys Gemma 4's class does not read, and a
    ``sliding_window_pattern`` other than its 6 (GPT-NeoX's unread keys are checked
    against what it reads, in :func:`_base_and_fraction`)."""
    if cfg.model_type == "gemma4_text":
        for key in _GEMMA4_UNREAD:
            if cfg.get(key) is not None:
                raise ValueError(
                    f"{cfg.name(key)}: Gemma4TextConfig does not read it (its rotary "
                    "comes from rope_parameters, per layer type, else its class "
                    "default); write the parameters there"
                )
        pattern = cfg.get("sliding_window_pattern")
        if pattern is not None and not _equal(pattern, 6):
            raise ValueError(
                f"{cfg.name('sliding_window_pattern')} = {pattern!r}: Gemma4TextConfig "
                "does not read it (its default layer types make every 6th layer full); "
                "give layer_types"
            )


def _check_unread(cfg: _Config, key: str, used: Any, used_name: str) -> None:
    """Refuse a top-level ``key`` that GPT-NeoX's class does not read when it differs
    from the value ``used`` (named ``used_name``)."""
    given = cfg.get(key)
    if cfg.model_type == "gpt_neox" and given is not None and not _equal(given, used):
        raise ValueError(
            f"{cfg.name(key)} = {given!r}: GPTNeoXConfig does not read it (it reads "
            f"rotary_emb_base and rotary_pct, or the rotary parameters), and uses "
            f"{used_name} = {used!r}; give one value"
        )


def _head_dims(cfg: _Config) -> tuple[int, int | None]:
    """The head width (``head_dim``, else ``hidden_size // num_attention_heads``) and
    Gemma 4's ``global_head_dim`` of full-attention layers (None if not given or 0)."""
    if cfg.value("head_dim") is not None:
        head_dim = _validate.size(
            cfg.value("head_dim"), cfg.name("head_dim"), minimum=1, maximum=MAX_HEAD_DIM
        )
    else:
        if cfg.value("hidden_size") is None or cfg.value("num_attention_heads") is None:
            missing = "hidden_size" if cfg.value("hidden_size") is None else "heads"
            raise ValueError(
                "config gives no head_dim, nor hidden_size and num_attention_heads "
                "(head_dim = hidden_size // num_attention_heads)"
                + _unknown(
                    cfg, "num_attention_heads" if missing == "heads" else missing
                )
            )
        hidden = _validate.size(
            cfg.value("hidden_size"), cfg.name("hidden_size"), minimum=1
        )
        heads = _validate.size(
            cfg.value("num_attention_heads"),
            cfg.name("num_attention_heads"),
            minimum=1,
        )
        head_dim = hidden // heads
        if not 1 <= head_dim <= MAX_HEAD_DIM:
            raise ValueError(
                f"config's hidden_size // num_attention_heads = {hidden} // {heads} = "
                f"{head_dim} must be a head width from 1 to {MAX_HEAD_DIM}"
            )
    wide = cfg.value("global_head_dim")
    if wide is not None:
        wide = _validate.size(wide, cfg.name("global_head_dim"), maximum=MAX_HEAD_DIM)
    return head_dim, wide or None


def _uses_rope(cfg: _Config, n: int) -> list[bool]:
    """Whether each of the ``n`` layers uses rotary: ``no_rope_layers`` (1 = uses it),
    else every ``no_rope_layer_interval``-th layer without, else all."""
    interval = None
    for key in ("no_rope_layer_interval", "nope_layer_interval"):
        if cfg.get(key) is not None:
            value = _validate.size(cfg.get(key), cfg.name(key), minimum=1)
            if interval is not None and value != interval:
                raise ValueError(
                    "config['no_rope_layer_interval'] and "
                    f"config['nope_layer_interval'] differ ({interval} and {value}); "
                    "give one"
                )
            interval = value
    if interval is None:
        interval = cfg.defaults.get("no_rope_layer_interval")
    flags = cfg.get("no_rope_layers")
    if cfg.model_type == "llama4_text" and isinstance(flags, list) and not flags:
        flags = (
            None  # Llama4TextConfig: "no_rope_layers if no_rope_layers else default"
        )
    if flags is None:
        if interval is None:
            return [True] * n
        return [(i + 1) % interval != 0 for i in range(n)]
    name = cfg.name("no_rope_layers")
    if not isinstance(flags, (list, tuple)):
        raise TypeError(
            f"{name} must be a list of 0 and 1 (1 = the layer uses rotary), got "
            f"{_validate.describe(flags)}"
        )
    if len(flags) < n:
        raise ValueError(
            f"{name} must hold at least one flag per layer ({n}), got {len(flags)} "
            "(only Llama 4's class replaces an empty list by its schedule; SmolLM3's "
            "model would read past the end of it)"
        )
    for flag in flags[:n]:
        if not isinstance(flag, numbers.Integral) or int(flag) not in (0, 1):
            raise ValueError(
                f"{name} must hold 0 and 1 (1 = the layer uses rotary), got "
                f"{_validate.describe(flag)} among them"
            )
    return [bool(flag) for flag in flags[:n]]


def _layer_types(cfg: _Config, n: int, uses: list[bool]) -> list[str] | None:
    """The layer type of each layer (keys of :data:`ATTENTION_TYPES`): ``layer_types``,
    else a pattern given, else what the model type's class fills in; None when the
    configuration has none."""
    pattern = _pattern(cfg, n)
    given = cfg.get("layer_types")
    if given is not None:
        types = _checked_types(given, cfg.name("layer_types"), n)
        if pattern is not None and types != pattern[0]:
            raise ValueError(
                f"{cfg.name('layer_types')} and {pattern[1]} disagree on the type of "
                "some layers; give one"
            )
    elif pattern is not None:
        types = pattern[0]
    else:
        types = _class_types(cfg, n, uses)
        if types is None:
            return None
    if cfg.model_type == "gemma4_text":
        types[-1] = "full_attention"  # as Gemma4TextConfig forces it
    return types


#: The keys that give the layer types as a period: every p-th layer is full attention,
#: the others are of the type given here.
_PATTERNS = {
    "sliding_window_pattern": "sliding_attention",
    "full_attention_interval": "linear_attention",
}


def _pattern(cfg: _Config, n: int, given: bool = True) -> tuple[list[str], str] | None:
    """The layer types of a period (:data:`_PATTERNS`) and the name of its key; with
    ``given`` false, the period of the class default. None without one."""
    found = [
        key
        for key in _PATTERNS
        if (cfg.get(key) if given else cfg.defaults.get(key)) is not None
    ]
    if len(found) > 1:
        raise ValueError(
            f"{cfg.name(found[0])} and {cfg.name(found[1])} both give the layer types; "
            "give one (or layer_types)"
        )
    if not found:
        return None
    key = found[0]
    period = _validate.size(
        cfg.get(key) if given else cfg.defaults[key], cfg.name(key), minimum=1
    )
    other = _PATTERNS[key]
    types = [other if (i + 1) % period else "full_attention" for i in range(n)]
    return types, cfg.name(key)


def _class_types(cfg: _Config, n: int, uses: list[bool]) -> list[str] | None:
    """The layer types the model type's class fills in when the configuration gives
    none (None if it fills in none)."""
    pattern = _pattern(cfg, n, given=False)
    if pattern is not None:  # Gemma 3 and 4, Qwen3.5, Qwen3-Next
        return pattern[0]
    if cfg.model_type == "llama4_text":
        return ["chunked_attention" if use else "full_attention" for use in uses]
    if cfg.model_type == "smollm3":
        window = cfg.get("use_sliding_window") and cfg.get("sliding_window") is not None
        return [
            "sliding_attention" if window and not use else "full_attention"
            for use in uses
        ]
    if cfg.model_type == "qwen2_vl_text":
        # Qwen2VLTextConfig: sliding_window = None unless use_sliding_window
        if not cfg.value("use_sliding_window") or cfg.value("sliding_window") is None:
            return ["full_attention"] * n
        first = _validate.size(
            _needed(cfg, "max_window_layers"), cfg.name("max_window_layers")
        )
        return [
            "sliding_attention" if i >= first else "full_attention" for i in range(n)
        ]
    return None


def _checked_types(given: Any, name: str, n: int) -> list[str]:
    """``layer_types`` checked: one known layer type per layer."""
    if not isinstance(given, (list, tuple)):
        raise TypeError(
            f"{name} must be a list of layer types, got {_validate.describe(given)}"
        )
    if len(given) != n:
        raise ValueError(
            f"{name} must hold one layer type per layer ({n}), got {len(given)}"
        )
    for kind in given:
        if not isinstance(kind, str) or kind not in ATTENTION_TYPES:
            raise ValueError(
                f"{name} must hold layer types among "
                f"{', '.join(map(repr, ATTENTION_TYPES))}, got "
                f"{_validate.describe(kind)} among them"
            )
    return list(given)


def _rope_dict(cfg: _Config) -> tuple[Mapping[str, Any], str]:
    """The rotary parameters (``rope_parameters`` or ``rope_scaling``; both given must
    agree) and the name of their key ({} if neither)."""
    found = []
    for key in ("rope_parameters", "rope_scaling"):
        value = cfg.get(key)
        if value is None:
            continue
        if not isinstance(value, Mapping):
            raise TypeError(
                f"{cfg.name(key)} must be a dict, got {_validate.describe(value)}"
            )
        _string_keys(value, cfg.name(key))
        found.append((value, cfg.name(key)))
    if len(found) == 2 and not _equal(found[0][0], found[1][0]):
        raise ValueError(
            f"{found[0][1]} and {found[1][1]} differ (transformers 5 takes the second, "
            "transformers 4 reads only it); give one"
        )
    if found:
        return found[0]
    return cfg.defaults.get("rope_parameters", {}), cfg.name("rope_parameters")


def _ropes(
    cfg: _Config, types: list[str] | None, uses: list[bool]
) -> dict[str | None, _Rope]:
    """The checked rotary parameters of each layer type that has a layer with rotary
    (key None when the configuration has no layer types)."""
    raw, where = _rope_dict(cfg)
    needed = {None if types is None else types[i] for i, use in enumerate(uses) if use}
    per_type = bool(raw) and all(key in ATTENTION_TYPES for key in raw)
    if cfg.model_type == "gemma4_text" and not per_type:
        raise ValueError(
            f"{where} must be keyed by layer type ('full_attention', "
            "'sliding_attention'): Gemma 4's rotary reads rope_parameters[layer_type]"
        )
    local = cfg.get("rope_local_base_freq") is not None
    if local and types is None:
        raise ValueError(
            f"{cfg.name('rope_local_base_freq')} is the base of sliding layers, but "
            "config gives no layer types (layer_types or sliding_window_pattern)"
        )
    # Gemma 3's sliding layers take their base from rope_local_base_freq (or their own
    # parameters), never from rope_theta, and are never scaled, given the key or not
    local = local or cfg.model_type.startswith("gemma3")
    ropes = {}
    for kind in sorted(needed, key=str):
        sliding = local and kind == "sliding_attention"
        if not per_type:
            # transformers 4's Gemma 3 rotates sliding layers with the default
            # rotary of base rope_local_base_freq; transformers 5 sends rope_scaling to
            # full_attention only
            params, name = (
                ({}, "config's sliding layers (rope_local_base_freq)")
                if sliding
                else (raw, where)
            )
        elif kind is None:
            raise ValueError(
                f"{where} gives parameters per layer type, but config gives no layer "
                "types (layer_types or sliding_window_pattern)"
            )
        else:
            params, name = raw.get(kind), f"{where}[{kind!r}]"
            if not isinstance(params, Mapping):
                raise ValueError(
                    f"{name} must be the rotary parameters of the {kind!r} layers, a "
                    f"dict, got {_validate.describe(params)}"
                )
            _string_keys(params, name)
        ropes[kind] = _rope(cfg, params, name, sliding, flat=not per_type)
    return ropes


def _rope(
    cfg: _Config, params: Mapping[str, Any], where: str, sliding: bool, flat: bool
) -> _Rope:
    """The rotary parameters ``params`` (named ``where``) with the top-level keys that
    complete them, checked; ``sliding``: the sliding layers of a configuration with
    ``rope_local_base_freq``; ``flat``: not keyed by layer type."""
    for key in params:
        if key not in ROPE_PARAMETER_KEYS:
            raise ValueError(
                f"{where}[{key!r}]: pelib does not understand this key of the rotary "
                "parameters, so rather than guess it refuses it. The keys it reads: "
                f"{', '.join(ROPE_PARAMETER_KEYS)}"
            )
    rope_type = _agreed(
        [
            (f"{where}['rope_type']", params.get("rope_type")),
            (f"{where}['type']", params.get("type")),
        ]
    )
    if rope_type is None:
        rope_type = "default"
    rope_type = _validate.choice(rope_type, f"{where}['rope_type']", ROPE_TYPES)
    base, fraction = _base_and_fraction(cfg, params, where, sliding)
    sections, interleaved = _sections(cfg, params, where, rope_type)
    return _Rope(
        rope_type,
        base,
        fraction,
        _options(cfg, params, where, rope_type, flat),
        sections,
        interleaved,
        f"{where} (rope_type {rope_type!r})",
    )


def _base_and_fraction(
    cfg: _Config, params: Mapping[str, Any], where: str, sliding: bool
) -> tuple[float, float]:
    """The rotary base and fraction of ``params``: its own, else the top-level keys the
    model type's class reads, else the class defaults (else, for the fraction, 1)."""
    neox = cfg.model_type == "gpt_neox"
    if sliding:
        tops = ("rope_local_base_freq",)
    else:
        tops = ("rotary_emb_base",) if neox else ("rope_theta", "rotary_emb_base")
    base_name, base = _given(
        [(f"{where}['rope_theta']", params.get("rope_theta"))]
        + [(cfg.name(key), cfg.get(key)) for key in tops]
    )
    if base is None:
        base_name, base = _class_default(cfg, tops)
    if base is None:
        raise ValueError(
            f"config gives no rotary base for {where} (rope_theta, rotary_emb_base, "
            "rope_local_base_freq or rope_theta in the rotary parameters)"
            + _unknown(cfg, tops[0])
        )
    base = _validate.real(base, f"{base_name} (the rotary base)", positive=True)
    if base <= 1:
        raise ValueError(
            f"{base_name} (the rotary base) must be > 1 (frequencies that fall with "
            f"the pair index), got {base!r}"
        )
    _check_unread(cfg, "rope_theta", base, base_name)
    keys = ("rotary_pct",) if neox else ("partial_rotary_factor", "rotary_pct")
    fraction_name, fraction = _given(
        [(f"{where}['partial_rotary_factor']", params.get("partial_rotary_factor"))]
        + [(cfg.name(k), cfg.get(k)) for k in keys]
    )
    if fraction is None:
        fraction_name, fraction = _class_default(cfg, keys)
    fraction = 1.0 if fraction is None else fraction
    fraction = _validate.real(fraction, fraction_name, minimum=0, maximum=1)
    _check_unread(cfg, "partial_rotary_factor", fraction, fraction_name)
    return base, fraction


def _class_default(cfg: _Config, keys: tuple[str, ...]) -> tuple[str, Any]:
    """The name and class default of the first of ``keys`` that has one (the first
    name and None if none has)."""
    for key in keys:
        if key in cfg.defaults:
            return cfg.name(key), cfg.defaults[key]
    return cfg.name(keys[0]), None


def _agreed(candidates: list[tuple[str, Any]]) -> Any:
    """The one value that the named ``candidates`` give (None ones are absent; None if
    all are); refused if two differ."""
    return _given(candidates)[1]


def _given(candidates: list[tuple[str, Any]]) -> tuple[str, Any]:
    """The name and value of the first of the named ``candidates`` that is given (not
    None), checked to agree with the others; the first name and None if none is."""
    given = [(name, value) for name, value in candidates if value is not None]
    for name, value in given[1:]:
        if not _equal(value, given[0][1]):
            raise ValueError(
                f"{given[0][0]} and {name} say the same thing and differ "
                f"({_validate.describe(given[0][1])} and {_validate.describe(value)}); "
                "transformers versions differ in which they read: give one"
            )
    return given[0] if given else (candidates[0][0], None)


#: For each scaling ``rope_type``: the keys it requires, and the optional keys
#: :func:`pelib.rope_scaling` takes, with Hugging Face's default for each.
_SCALING_KEYS: dict[str, tuple[tuple[str, ...], dict[str, Any]]] = {
    "linear": (("factor",), {}),
    "dynamic": (("factor",), {}),
    "yarn": (
        ("factor",),
        {
            "beta_fast": 32.0,
            "beta_slow": 1.0,
            "truncate": True,
            "mscale": None,
            "mscale_all_dim": None,
            "attention_factor": None,
        },
    ),
    "llama3": (("factor", "low_freq_factor", "high_freq_factor"), {}),
    "proportional": ((), {"factor": 1.0}),
}


def _options(
    cfg: _Config, params: Mapping[str, Any], where: str, rope_type: str, flat: bool
) -> dict[str, Any]:
    """The keyword arguments of :func:`pelib.rope_scaling` (beyond ``d``, ``method``
    and ``base``) for ``rope_type``, from ``params``, with Hugging Face's defaults."""
    if rope_type not in _SCALING_KEYS:
        return {}
    required, optional = _SCALING_KEYS[rope_type]
    options = {}
    for key in required:
        if params.get(key) is None:
            raise ValueError(
                f"{where}['{key}'] is missing: rope_type {rope_type!r} needs it"
            )
        options[key] = _validate.real(params[key], f"{where}['{key}']")
    for key, default in optional.items():
        # beta_fast and beta_slow: Hugging Face's `get(...) or 32` (or 1)
        value = params.get(key)
        options[key] = (
            default if value is None or (key[:4] == "beta" and not value) else value
        )
        if key == "truncate":
            options[key] = _validate.boolean(options[key], f"{where}['truncate']")
        elif options[key] is not None:
            options[key] = _validate.real(options[key], f"{where}[{key!r}]")
    if rope_type == "dynamic":
        options["original_context"] = _length(cfg, "max_position_embeddings", where)
    elif rope_type in ("yarn", "llama3"):
        options["original_context"] = _original(cfg, params, where, flat)
    return options


def _length(cfg: _Config, key: str, where: str) -> int:
    """A length of the configuration (``max_position_embeddings``...), required."""
    if cfg.value(key) is None:
        raise ValueError(
            f"{cfg.name(key)} is missing, and {where} needs it{_unknown(cfg, key)}"
        )
    return _validate.size(cfg.value(key), cfg.name(key), minimum=1)


def _original(cfg: _Config, params: Mapping[str, Any], where: str, flat: bool) -> int:
    """The trained length of YaRN and Llama 3: the top-level
    ``original_max_position_embeddings`` (flat parameters only), else the one in
    ``params``, else ``max_position_embeddings``; two that differ are refused."""
    key = "original_max_position_embeddings"
    inner = params.get(key)
    top = cfg.get(key)
    if not flat and top is not None and inner is None:
        raise ValueError(
            f"{cfg.name(key)} is given, but transformers 5 reads "
            f"{where}['{key}'] (else max_position_embeddings) for parameters per layer "
            "type: write it there"
        )
    value = _agreed(
        [(cfg.name(key), top if flat else None), (f"{where}['{key}']", inner)]
    )
    if value is None:
        return _length(cfg, "max_position_embeddings", where)
    return _validate.size(value, f"{where}['{key}']", minimum=1)


def _sections(
    cfg: _Config, params: Mapping[str, Any], where: str, rope_type: str
) -> tuple[tuple[int, int, int] | None, bool]:
    """M-RoPE's ``mrope_section`` (None without) and whether it is interleaved."""
    sections = _agreed(
        [
            (f"{where}['mrope_section']", params.get("mrope_section")),
            (cfg.name("mrope_section"), cfg.get("mrope_section")),
        ]
    )
    flag = _agreed(
        [
            (f"{where}['mrope_interleaved']", params.get("mrope_interleaved")),
            (cfg.name("mrope_interleaved"), cfg.get("mrope_interleaved")),
        ]
    )
    if flag is not None:
        flag = _validate.boolean(flag, f"{where}['mrope_interleaved']")
    always = cfg.model_type.startswith(_INTERLEAVED_MROPE)
    if always and flag is False:
        raise ValueError(
            f"{where}['mrope_interleaved'] is false, but transformers' Qwen3-VL and "
            "Qwen3.5 interleave their sections whatever it says"
        )
    name = f"{where}['mrope_section']"
    if sections is None and "mrope_section" in cfg.defaults:
        sections, name = cfg.defaults["mrope_section"], cfg.name("mrope_section")
    if sections is None:
        if rope_type == "mrope" or always:
            raise ValueError(
                f"{name} is missing: M-RoPE needs it" + _unknown(cfg, "mrope_section")
            )
        return None, False
    if (
        not isinstance(sections, (list, tuple))
        or len(sections) != 3
        or not all(
            isinstance(s, numbers.Integral) and not isinstance(s, bool)
            for s in sections
        )
    ):
        raise TypeError(
            f"{name} must be three integers (pairs for time, height, width), got "
            f"{_validate.describe(sections)}"
        )
    sections = tuple(_validate.size(s, name, maximum=MAX_HEAD_DIM) for s in sections)
    return sections, bool(flag) or always


def _rotation(rope: _Rope, width: int, head_dim: int, cfg: _Config) -> dict[str, Any]:
    """The fields of a :class:`RotaryLayer` with rotary ``rope`` on heads of ``width``
    (``head_dim``: the width of the configuration's other layers)."""
    if rope.rope_type == "proportional":
        if width % 2:
            raise ValueError(
                f"{rope.where}: the head width {width} must be even to be rotated"
            )
        angles = int(rope.fraction * width // 2)
        omega, factor = _scaled(rope, width, "linear", rope.options)
        omega[angles:] = 0.0
        rotated = width
    else:
        if width != head_dim:
            raise ValueError(
                f"{cfg.name('global_head_dim')} = {width} differs from head_dim = "
                f"{head_dim}, but {rope.where} is not 'proportional': transformers "
                "computes its frequencies for head_dim, which do not fit these heads"
            )
        rotated = int(width * rope.fraction)
        if rotated < 2 or rotated % 2:
            raise ValueError(
                f"{rope.where}: int(head_dim * partial_rotary_factor) = int({width} * "
                f"{rope.fraction!r}) = {rotated} features must be even and at least 2 "
                "(transformers' cos and sin would not fit them)"
            )
        omega, factor = _frequencies(rope, rotated)
    omega.setflags(write=False)
    return dict(
        rotated=rotated,
        frequencies=omega,
        base=rope.base,
        sections=_axes(rope, omega.size),
        rope_type="default" if rope.rope_type == "mrope" else rope.rope_type,
        attention_factor=factor,
    )


def _frequencies(rope: _Rope, rotated: int) -> tuple[np.ndarray, float]:
    """The frequencies of ``rotated`` features and the attention factor."""
    if rope.rope_type in ("default", "mrope"):
        return _scaled(rope, rotated, "linear", {})
    options = rope.options
    if rope.rope_type == "llama3" and (
        options["low_freq_factor"] == options["high_freq_factor"]
    ):
        return _llama3_step(rope, rotated), 1.0
    return _scaled(rope, rotated, rope.rope_type, options)


def _scaled(
    rope: _Rope, d: int, method: str, options: dict[str, Any]
) -> tuple[np.ndarray, float]:
    """:func:`pelib.rope_scaling` for ``d`` features, its refusals naming the
    configuration."""
    try:
        omega, factor = rope_scaling(d, method, base=rope.base, **options)
    except ValueError as error:
        raise ValueError(f"config: {rope.where}: {error}") from None
    return omega.copy(), factor


def _llama3_step(rope: _Rope, rotated: int) -> np.ndarray:
    """Llama 3 scaling with ``low_freq_factor == high_freq_factor``: a step (see
    :func:`rotary_layers`' Notes)."""
    theta, _ = _scaled(rope, rotated, "linear", {})
    options = rope.options
    turns = options["original_context"] * theta / (2 * math.pi)
    low = options["low_freq_factor"]
    if np.any(turns == low):
        raise ValueError(
            f"config: {rope.where}: a pair's wavelength is exactly "
            "original_max_position_embeddings / low_freq_factor, where transformers' "
            "blend divides 0 by 0"
        )
    return np.where(turns < low, theta / options["factor"], theta)


def _axes(rope: _Rope, pairs: int) -> np.ndarray | None:
    """The position axis (0 time, 1 height, 2 width) of each of ``pairs`` pairs under
    M-RoPE (None without)."""
    if rope.sections is None:
        return None
    s = rope.sections
    if rope.interleaved:
        axes = np.zeros(pairs, dtype=np.int64)
        axes[1 : 3 * s[1] : 3] = 1
        axes[2 : 3 * s[2] : 3] = 2
    else:
        if sum(s) != pairs:
            raise ValueError(
                f"config: {rope.where}: mrope_section {list(s)} must sum to the "
                f"{pairs} rotated pairs"
            )
        axes = np.repeat(np.arange(3, dtype=np.int64), s)
    axes.setflags(write=False)
    return axes
