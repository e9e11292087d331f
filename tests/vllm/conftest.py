"""The plugin against the real vllm package (the pinned environment of scripts/vllm-env),
on a machine with no GPU. tests/vllm/run.sh starts pytest with fp8kit's sources and a
generated dist-info on PYTHONPATH (vLLM's load_general_plugins() finds the entry point
there) and, where no driver is installed, the CUDA toolkit's stub libcuda on the
loader's path, so vLLM's native op library loads (nothing in it runs).

What stands in for the GPU: vLLM's own CUDA platform class (vllm.platforms.cuda),
subclassed only to answer the device queries (capability, name, count) with the
capability a test sets. It is installed before anything binds vllm.platforms'
current_platform; everything else (kernel lists, selection, layers, the MoE oracle,
the argument parser) is vLLM's code.
"""

import contextlib
import itertools
import json
import socket

import pytest
import torch
import vllm.platforms
from vllm.platforms.interface import DeviceCapability

assert vllm.platforms._current_platform is None, "the platform must be set before vLLM resolves it"
import vllm.platforms.cuda as vllm_cuda  # noqa: E402


class LentGpu(vllm_cuda.CudaPlatformBase):
    """vLLM's CUDA platform on a machine without a GPU: the device queries answer from
    `capability`, which tests set."""

    capability = DeviceCapability(12, 1)

    @classmethod
    def get_device_capability(cls, device_id=0):
        return cls.capability

    @classmethod
    def get_device_name(cls, device_id=0):
        return f"no GPU (capability {cls.capability.major}.{cls.capability.minor} for the test)"

    @classmethod
    def device_count(cls):
        return 1

    @classmethod
    def get_device_total_memory(cls, device_id=0):
        return 1 << 34


vllm.platforms._current_platform = LentGpu()

from vllm.config import ModelConfig, VllmConfig, set_current_vllm_config  # noqa: E402
from vllm.distributed import init_distributed_environment, initialize_model_parallel  # noqa: E402
from vllm.plugins import load_general_plugins  # noqa: E402

# vLLM's own plugin loading, as every vLLM process does it.
load_general_plugins()

FP8 = torch.float8_e4m3fn
# A tiny MoE model configuration (no weights: vLLM reads config.json for its ModelConfig).
TINY_MOE = {"architectures": ["MixtralForCausalLM"], "model_type": "mixtral", "hidden_size": 512,
            "intermediate_size": 256, "num_attention_heads": 4, "num_key_value_heads": 4,
            "num_hidden_layers": 1, "num_local_experts": 8, "num_experts_per_tok": 2, "vocab_size": 1024,
            "max_position_embeddings": 2048, "rms_norm_eps": 1e-5, "torch_dtype": "bfloat16",
            "tie_word_embeddings": False}


def served_capability():
    """A capability this build of fp8kit has images for, for the tests that need fp8kit
    selected: the first of the shipped ones it serves (8.9 in the default build; a
    developer build of other targets answers with one of those)."""
    from fp8kit._choose import choose_path
    for cc in (89, 90, 120, 121, 100, 103, 110, 80, 86, 87, 75):
        answer = choose_path(cc // 10, cc % 10)
        if answer.ok and answer.tensor_cores != "fallback":
            return cc
    raise RuntimeError("this fp8kit build serves no shipped capability")


@contextlib.contextmanager
def capability(cc):
    """The stand-in GPU has capability cc (vLLM's integer, e.g. 121) inside the block."""
    old = LentGpu.capability
    LentGpu.capability = DeviceCapability(cc // 10, cc % 10)
    try:
        yield
    finally:
        LentGpu.capability = old


@pytest.fixture(scope="session")
def vllm_config(tmp_path_factory):
    """A VllmConfig over the tiny model, current for the whole session, with vLLM's
    distributed state for one rank (gloo on the loopback address)."""
    model = tmp_path_factory.mktemp("tiny-moe")
    (model / "config.json").write_text(json.dumps(TINY_MOE))
    config = VllmConfig(model_config=ModelConfig(model=str(model), dtype="bfloat16", skip_tokenizer_init=True))
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with set_current_vllm_config(config):
        init_distributed_environment(world_size=1, rank=0, local_rank=0, backend="gloo",
                                     distributed_init_method=f"tcp://127.0.0.1:{port}")
        initialize_model_parallel(1, 1)
        yield config


_layer_names = itertools.count()


@pytest.fixture
def layer_name():
    """A fresh layer prefix (vLLM refuses two layers of one name)."""
    return f"model.layers.{next(_layer_names)}.mlp"


def fill_checkpoint(module):
    """Random FP8 weights and positive f32 scales, as a checkpoint load leaves them."""
    with torch.no_grad():
        for p in module.parameters():
            if p.dtype == FP8:
                p.copy_(torch.randn(p.shape).clamp(-8, 8).to(FP8))
            elif p.dtype == torch.float32:
                p.copy_(torch.rand(p.shape) + 0.5)


def to_fake_cuda(module, mode):
    """Each parameter replaced by a fake CUDA tensor of the same shape, dtype and strides."""
    with mode:
        for name, p in list(module.named_parameters()):
            owner_name, _, attr = name.rpartition(".")
            owner = module.get_submodule(owner_name) if owner_name else module
            setattr(owner, attr, torch.nn.Parameter(mode.from_tensor(p, static_shapes=True).to("cuda"),
                                                    requires_grad=False))
