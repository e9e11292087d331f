"""fp8kit.distributed on one GPU: the tensor-parallel layers at world size 1, without
a process group (one GEMM) and with NCCL and gloo groups of one (the collectives'
code path), against fp8kit.scaled_mm on the full weight and the float64
reference, in every scale mode; inputs of any leading shape; bad inputs; and two
gloo ranks sharing this GPU through torchrun (tests/distributed/test_tp.py; not
the NCCL run across GPUs, which needs two). Skipped without torch or a GPU."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import BLOCK, assert_close, fp8, needs_gpu, reference

torch = pytest.importorskip("torch")
needs_gpu()

import torch.distributed as dist  # noqa: E402

import fp8kit  # noqa: E402
from fp8kit import distributed as tp  # noqa: E402

ACT = {"tensor": "tensor", "channel": "row", "block": "block"}
TP_SCRIPT = Path(__file__).resolve().parents[1] / "distributed" / "test_tp.py"


def _weights(mode, n, k):
    rand = lambda *s: torch.rand(s, device="cuda") * 0.02 + 0.001  # noqa: E731
    ws = {"tensor": lambda: rand(1), "channel": lambda: rand(n), "block": lambda: rand(-(-n // BLOCK), -(-k // BLOCK))}
    return fp8((n, k)), ws[mode](), torch.randn(n, device="cuda", dtype=torch.bfloat16)


@pytest.fixture(scope="module", params=["none", "nccl", "gloo"])
def group(request, tmp_path_factory):
    """No process group, or a world of one with the NCCL or gloo backend."""
    if request.param == "none":
        yield None
        return
    tp.disable_multicast()
    store = tmp_path_factory.mktemp(request.param) / "store"
    dist.init_process_group(request.param, init_method=f"file://{store}", rank=0, world_size=1,
                            device_id=torch.device("cuda", 0) if request.param == "nccl" else None)
    yield request.param
    dist.destroy_process_group()


@pytest.mark.parametrize("mode", ["tensor", "channel", "block"])
@pytest.mark.parametrize("m, n, k", [(37, 640, 1024), (1, 384, 256)])
def test_column_parallel_is_the_full_gemm(group, mode, m, n, k):
    w, ws, b = _weights(mode, n, k)
    x = torch.randn((m, k), device="cuda", dtype=torch.bfloat16)
    q, s = fp8kit.quantize(x, ACT[mode])
    one = fp8kit.scaled_mm(q, w, s, ws, b)
    for gather in (True, False):
        layer = tp.ColumnParallelFp8Linear.from_full(w, ws, b, gather_output=gather)
        assert layer.world_size == 1 and layer.scale_mode == mode
        y = layer(x)
        assert torch.equal(y, one)              # the same GEMM on the same operands (plus a gather copy)
    assert_close(y, *reference(q, w, s, ws, b))
    assert torch.equal(layer(q, s), one)


@pytest.mark.parametrize("mode", ["tensor", "channel", "block"])
@pytest.mark.parametrize("reduce_dtype", [torch.float32, torch.bfloat16])
@pytest.mark.parametrize("m, n, k", [(37, 640, 1024), (1, 384, 256)])
def test_row_parallel_matches_the_reference(group, mode, reduce_dtype, m, n, k):
    w, ws, b = _weights(mode, n, k)
    x = torch.randn((m, k), device="cuda", dtype=torch.bfloat16)
    q, s = fp8kit.quantize(x, ACT[mode])
    ref, mag = reference(q, w, s, ws, b)
    one = fp8kit.scaled_mm(q, w, s, ws, b)
    for parallel in (True, False):
        y = tp.RowParallelFp8Linear.from_full(w, ws, b, input_is_parallel=parallel, reduce_dtype=reduce_dtype)(x)
        assert y.shape == (m, n) and y.dtype == torch.bfloat16
        assert_close(y, ref, mag)
        if group is None or reduce_dtype == torch.bfloat16:
            # No group: one GEMM in bf16; bf16 partials: the GEMM's own bf16 rounding.
            assert torch.equal(y, one)
    y32 = tp.row_parallel_linear(q, tp.shard_row(w, ws, b, 0, 1)[0], ws, b, x_scale=s, out_dtype=torch.float32)
    assert y32.dtype == torch.float32
    assert_close(y32, ref, mag)


def test_leading_dimensions_and_a_column_row_pair(group):
    w1, s1, _ = _weights("block", 1024, 512)
    w2, s2, b2 = _weights("block", 256, 1024)
    col = tp.ColumnParallelFp8Linear.from_full(w1, s1, gather_output=False)
    row = tp.RowParallelFp8Linear.from_full(w2, s2, b2)
    x = torch.randn((2, 5, 512), device="cuda", dtype=torch.bfloat16)
    y = row(col(x))
    assert y.shape == (2, 5, 256)
    q, s = fp8kit.quantize(x.reshape(10, 512), "block")
    hq, hs = fp8kit.quantize(fp8kit.scaled_mm(q, w1, s, s1), "block")
    assert_close(y.reshape(10, 256), *reference(hq, w2, hs, s2, b2))


def test_static_input_scale_and_a_module_moved_to_the_gpu(group):
    w, ws, b = _weights("tensor", 256, 512)
    x = torch.randn((8, 512), device="cuda", dtype=torch.bfloat16)
    scale = x.abs().amax().float().reshape(1) / 448
    layer = tp.RowParallelFp8Linear.from_full(w.cpu(), ws.cpu(), b.cpu(), input_scale=scale.cpu()).cuda()
    q, _ = fp8kit.quantize(x, "tensor", scale=scale)
    assert_close(layer(x), *reference(q, w, scale, ws, b))


def test_bad_inputs_on_the_gpu_are_refused_naming_them(group):
    w, ws, b = _weights("channel", 256, 512)
    layer = tp.ColumnParallelFp8Linear.from_full(w, ws, b)
    with pytest.raises(tp.TPError, match=r"x is on cpu: must be on weight's device cuda:0"):
        layer(torch.randn(4, 512, dtype=torch.bfloat16))
    with pytest.raises(ValueError, match=r"x_scale is on cpu"):
        layer(fp8((4, 512)), torch.ones(4, 1))
    with pytest.raises(fp8kit.Error, match=r"x has shape \(4, 256\): its last dimension must be K = 512"):
        layer(torch.randn(4, 256, device="cuda", dtype=torch.bfloat16))


def test_two_gloo_ranks_on_this_gpu():
    """Two processes on cuda:0 with the gloo backend: the split, gather and reduce with 2 ranks."""
    env = tp.disable_multicast(dict(os.environ))
    env["PYTHONPATH"] = os.pathsep.join([str(Path(fp8kit.__file__).parents[1])] + sys.path)
    run = subprocess.run([sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc-per-node", "2",
                          str(TP_SCRIPT), "--backend", "gloo"], env=env, capture_output=True, text=True, timeout=600)
    print(run.stdout)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    assert "PASSED" in run.stdout and "on 2 rank(s), backend gloo" in run.stdout, run.stdout[-3000:]
