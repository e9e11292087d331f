"""fp8kit.distributed without a GPU: how weights, scales and biases are split per
rank, every refused argument (TPError: an fp8kit.Error and a ValueError naming it),
tracing a column -> row pair on meta tensors, and the layers' gather and reduce
through torch.distributed's gloo backend on CPU with one rank in this process and
two spawned ranks (fp8kit's GEMM stood in for by tp_fakes, since it needs a GPU)."""

import pytest

torch = pytest.importorskip("torch")

import torch.distributed as dist  # noqa: E402
import torch.multiprocessing as mp  # noqa: E402

import fp8kit  # noqa: E402
from fp8kit.distributed import (ColumnParallelFp8Linear, RowParallelFp8Linear, TPError,  # noqa: E402
                                column_parallel_linear, row_parallel_linear, shard_column, shard_row)

import tp_fakes  # noqa: E402
from conftest import BLOCK, E4M3  # noqa: E402

MODES = ("tensor", "channel", "block")


def _weights(mode, n=512, k=768, seed=3):
    gen = torch.Generator().manual_seed(seed)
    return tp_fakes.cpu_fp8((n, k), gen), tp_fakes.weight_scale(mode, n, k, gen), torch.randn(n).to(torch.bfloat16)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("world", [1, 2, 4])
def test_column_shards_put_back_together_are_the_full_layer(mode, world):
    w, ws, b = _weights(mode)
    shards = [shard_column(w, ws, b, r, world) for r in range(world)]
    assert torch.equal(torch.cat([s[0] for s in shards]).view(torch.uint8), w.view(torch.uint8))
    assert torch.equal(torch.cat([s[2] for s in shards]), b)
    if mode == "tensor":
        assert all(torch.equal(s[1], ws) for s in shards)
    else:
        assert torch.equal(torch.cat([s[1] for s in shards]), ws)
        assert shards[0][1].shape == ((512 // world,) if mode == "channel" else (512 // world // BLOCK, 6))
    assert all(s[0].untyped_storage().data_ptr() != w.untyped_storage().data_ptr() for s in shards)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("world", [1, 2, 3])
def test_row_shards_put_back_together_are_the_full_layer(mode, world):
    w, ws, b = _weights(mode, k=768 if world != 3 else 1152)
    shards = [shard_row(w, ws, b, r, world) for r in range(world)]
    assert torch.equal(torch.cat([s[0] for s in shards], dim=1).view(torch.uint8), w.view(torch.uint8))
    assert all(torch.equal(s[2], b) for s in shards)
    if mode == "block":
        assert torch.equal(torch.cat([s[1] for s in shards], dim=1), ws)
    else:
        assert all(torch.equal(s[1], ws.reshape(-1)) for s in shards)
    assert all(s[0].is_contiguous() for s in shards)


def _refused(match, fn, *args, **kwargs):
    with pytest.raises(TPError, match=match) as info:
        fn(*args, **kwargs)
    assert isinstance(info.value, ValueError) and isinstance(info.value, fp8kit.Error)
    assert info.value.status == "invalid_argument"


def test_splits_that_do_not_fit_are_refused_naming_the_dimension():
    w, ws, b = _weights("block", n=384, k=768)
    _refused(r"N = 384 over 2 ranks gives 192 per rank, which cuts a 128x128 block", shard_column, w, ws, b, 0, 2)
    _refused(r"N = 384 is not divisible by the world size 5", shard_column, w, ws, b, 0, 5)
    _refused(r"K = 768 over 4 ranks gives 192 per rank, which cuts", shard_row, w, ws, b, 0, 4)
    wc, wsc, bc = _weights("channel", n=512, k=96)
    _refused(r"K = 96 over 4 ranks gives 24 per rank; fp8kit needs K % 16", shard_row, wc, wsc, bc, 0, 4)
    _refused(r"world_size = 0", shard_row, wc, wsc, bc, 0, 0)
    _refused(r"rank = 2: must be an int in \[0, 2\)", shard_column, wc, wsc, bc, 2, 2)
    # A shard handed over directly is checked the same way: 192 rows of a block-scaled weight
    # would cut a block at any world size above 1; at world size 1 it is the whole layer.
    assert ColumnParallelFp8Linear(w[:192], ws[:2], b[:192]).out_features == 192


def test_bad_weights_scales_and_options_are_refused_naming_them():
    w, ws, b = _weights("channel")
    _refused(r"^fp8kit: invalid_argument: weight.dtype = torch.bfloat16", shard_column, w.to(torch.bfloat16), ws,
             b, 0, 1)
    _refused(r"weight has shape \(512, 768, 1\): must be 2-D", shard_row, w.unsqueeze(-1), ws, b, 0, 1)
    _refused(r"weight_scale has shape \(3,\)", shard_column, w, ws[:3], b, 0, 1)
    _refused(r"weight_scale.dtype = torch.float16", shard_column, w, ws.half(), b, 0, 1)
    _refused(r"weight_scale: expected a torch.Tensor, got float", shard_column, w, 0.5, b, 0, 1)
    _refused(r"bias has shape \(511,\): must be \[N\] = \[512\]", shard_row, w, ws, b[:511], 0, 1)
    _refused(r"bias.dtype = torch.int32", ColumnParallelFp8Linear, w, ws, b.int())
    _refused(r"bias is on meta: must be on weight's device cpu", ColumnParallelFp8Linear, w, ws, b.to("meta"))
    _refused(r"act_mode = 'block': a 'channel'-scaled weight takes 'tensor' or 'row'", ColumnParallelFp8Linear, w,
             ws, act_mode="block")
    _refused(r"input_scale: a static input scale is per tensor; act_mode is 'row'", RowParallelFp8Linear, w, ws,
             input_scale=torch.ones(1))
    _refused(r"input_scale has shape \(2,\)", RowParallelFp8Linear, w, ws, act_mode="tensor",
             input_scale=torch.ones(2))
    _refused(r"out_dtype = torch.int8", ColumnParallelFp8Linear, w, ws, out_dtype=torch.int8)
    _refused(r"reduce_dtype = torch.float64", RowParallelFp8Linear, w, ws, reduce_dtype=torch.float64)
    _refused(r"group: given, but torch.distributed has no initialised process group", ColumnParallelFp8Linear.from_full,
             w, ws, group=object())
    _refused(r"gather_output = 'yes': must be True or False", ColumnParallelFp8Linear, w, ws, gather_output="yes")
    _refused(r"input_is_parallel = 1: must be True or False", row_parallel_linear, None, w, ws,
             input_is_parallel=1)


def test_bad_inputs_are_refused_before_any_work(monkeypatch):
    tp_fakes.install_fakes(monkeypatch)
    w, ws, b = _weights("block", n=256, k=256)
    col = ColumnParallelFp8Linear(w, ws, b)
    x = torch.randn(4, 256).to(torch.bfloat16)
    q, s = tp_fakes.fake_quantize(x, "block")
    _refused(r"x has shape \(4, 255\): its last dimension must be K = 256", col, x[:, :255])
    _refused(r"x.dtype = torch.int32", col, x.int())
    _refused(r"x: expected a torch.Tensor, got list", col, [1.0])
    _refused(r"x is on meta: must be on weight's device cpu", col, x.to("meta"))
    _refused(r"x_scale: an FP8 x needs its scale", col, q)
    _refused(r"x_scale: only an FP8 x takes a scale; x is torch.bfloat16", col, x, s)
    _refused(r"x_scale has shape \(4, 1\): act_mode 'block' takes \[4, 2\]", col, q, s[:, :1])
    _refused(r"x has shape \(1, 4, 256\): an FP8 x must be 2-D", col, q.unsqueeze(0), s)
    _refused(r"x has shape \(4, 256\): its last dimension must be K = 128", row_parallel_linear, x,
             w[:, :128].contiguous(), ws[:, :1].contiguous(), input_is_parallel=False)
    assert col(q, s).shape == (4, 256) and col(x.reshape(2, 2, 256)).shape == (2, 2, 256)


def _meta(*shape, dtype=torch.float32):
    return torch.empty(shape, dtype=dtype, device="meta")


def test_compile_traces_a_column_row_pair_into_one_graph():
    graphs = []

    def backend(gm, example_inputs):
        graphs.append(gm)
        return gm.forward

    col = ColumnParallelFp8Linear(_meta(1024, 512, dtype=E4M3), _meta(1024), gather_output=False)
    row = RowParallelFp8Linear(_meta(512, 1024, dtype=E4M3), _meta(512), _meta(512, dtype=torch.bfloat16))
    torch._dynamo.reset()
    model = torch.compile(lambda x: row(col(x)), fullgraph=True, dynamic=True, backend=backend)
    for m in (16, 33, 64):
        y = model(_meta(m, 512, dtype=torch.bfloat16))
        assert y.shape == (m, 512) and y.dtype == torch.bfloat16
    assert len(graphs) == 1
    assert graphs[0].code.count("fp8kit.scaled_mm") == 2 and graphs[0].code.count("fp8kit.quantize") == 2


@pytest.mark.parametrize("mode", MODES)
def test_without_a_process_group_a_layer_is_one_gemm(mode, monkeypatch):
    tp_fakes.install_fakes(monkeypatch)
    tp_fakes.check_layers(0, 1, mode)
    w, ws, b = _weights(mode)
    x = torch.randn(3, 768).to(torch.bfloat16)
    q, s = tp_fakes.fake_quantize(x, tp_fakes.ACT[mode])
    assert torch.equal(column_parallel_linear(x, w, ws, b), tp_fakes.fake_scaled_mm(q, w, s, ws, b))


@pytest.fixture
def gloo_world_of_one(tmp_path):
    dist.init_process_group("gloo", init_method=f"file://{tmp_path / 'store'}", rank=0, world_size=1)
    yield
    dist.destroy_process_group()


def test_a_group_that_is_not_a_process_group_is_refused(gloo_world_of_one):
    w, ws, _ = _weights("tensor")
    _refused(r"group: expected a torch.distributed ProcessGroup or None, got str", RowParallelFp8Linear, w, ws,
             group="world")


@pytest.mark.parametrize("mode", MODES)
def test_gloo_world_of_one_runs_the_collectives(mode, monkeypatch, gloo_world_of_one):
    tp_fakes.install_fakes(monkeypatch)
    calls = []
    for name in ("all_gather_into_tensor", "all_reduce"):
        real = getattr(dist, name)
        monkeypatch.setattr(dist, name, lambda *a, _real=real, _name=name, **k: calls.append(_name) or _real(*a, **k))
    tp_fakes.check_layers(0, 1, mode)
    assert "all_gather_into_tensor" in calls and "all_reduce" in calls


def test_gloo_two_ranks_split_gather_and_reduce(tmp_path):
    mp.spawn(tp_fakes.two_rank_worker, args=(2, str(tmp_path / "store"), MODES), nprocs=2, join=True)
