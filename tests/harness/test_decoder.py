"""The PyTorch decoder: shapes from a profile, KV cache at explicit positions, verify == decode."""

import pytest

pytestmark = pytest.mark.slow  # runs PyTorch

torch = pytest.importorskip("torch")

from roofline.errors import RooflineError  # noqa: E402
from roofline.harness.decoder import (  # noqa: E402
    build_decoder,
    cuda_graphs,
    decode_n_tokens,
    forward,
    linear,
    new_kv_cache,
    prefill,
    truncate,
    verify,
)
from roofline.model import load_model, model_from_dict  # noqa: E402

TINY = {"name": "tiny", "layers": 3, "hidden_size": 64, "heads": 4, "kv_heads": 2, "head_dim": 16,
        "ffn_size": 160, "vocab_size": 512}


@pytest.fixture(scope="module")
def model():
    torch.manual_seed(0)
    return build_decoder(model_from_dict(TINY), dtype=torch.float32, seed=1)


def test_weights_match_the_profile_parameter_count(model):
    spec = model.spec
    assert model.weight_bytes() == spec.params * 4


def test_validation_profile_is_several_times_the_reported_last_level_cache():
    spec = load_model("validation-small")
    assert spec.params * 2 > 3 * 480 * 2**20  # bf16 weights vs the 480 MiB L3 lscpu reports


def test_unsupported_profiles_raise_one_line():
    moe = dict(TINY, moe={"experts": 4, "top_k": 2, "expert_ffn_size": 32})
    with pytest.raises(RooflineError, match="MoE"):
        build_decoder(model_from_dict(moe))


def test_verify_of_k_plus_1_tokens_equals_k_plus_1_decode_steps(model):
    prompt = torch.randint(0, 512, (3, 7), generator=torch.Generator().manual_seed(2))
    plain = new_kv_cache(model, 3, 40)
    first = prefill(model, plain, prompt)
    tokens = decode_n_tokens(model, plain, first, torch.full((3,), 7), 8)
    batched = new_kv_cache(model, 3, 40)
    prefill(model, batched, prompt)
    checked = verify(model, batched, torch.cat((first[:, None], tokens[:, :7]), 1), torch.full((3,), 7))
    assert torch.equal(checked, tokens)
    assert torch.allclose(plain.k[:, :, :, :15], batched.k[:, :, :, :15], atol=1e-5)
    assert torch.allclose(plain.v[:, :, :, :15], batched.v[:, :, :, :15], atol=1e-5)


def test_ragged_positions_give_each_sequence_its_own_result(model):
    """Two sequences at different positions in one batch match the same sequences run alone."""
    gen = torch.Generator().manual_seed(3)
    prompts = [torch.randint(0, 512, (1, n), generator=gen) for n in (5, 9)]
    alone = []
    for p in prompts:
        cache = new_kv_cache(model, 1, 32)
        prefill(model, cache, p)
        alone.append(forward(model, cache, torch.tensor([[11, 12]]), torch.tensor([p.shape[1]])))
    # both prompts in one padded pass (sequence 0's padding lands past its position and is overwritten)
    cache = new_kv_cache(model, 2, 32)
    padded = torch.zeros(2, 9, dtype=torch.long)
    padded[0, :5], padded[1] = prompts[0][0], prompts[1][0]
    forward(model, cache, padded, torch.zeros(2, dtype=torch.long))
    both = forward(model, cache, torch.tensor([[11, 12], [11, 12]]), torch.tensor([5, 9]))
    assert torch.allclose(both[0], alone[0][0], atol=1e-4)
    assert torch.allclose(both[1], alone[1][0], atol=1e-4)


def test_truncated_drafter_shares_weights_and_has_fewer_layers(model):
    draft = truncate(model, 1)
    assert draft.spec.layers == 1 and draft.embedding is model.embedding
    with pytest.raises(RooflineError):
        truncate(model, 9)


def test_cache_overflow_is_an_error(model):
    cache = new_kv_cache(model, 1, 8)
    with pytest.raises(RooflineError, match="cache"):
        forward(model, cache, torch.zeros(1, 4, dtype=torch.long), torch.tensor([6]))


@pytest.mark.parametrize("shape", [(1, 1, 48), (1, 3, 48), (4, 5, 48), (7, 48)])
def test_linear_is_f_linear_with_the_weight_as_left_operand(shape):
    gen = torch.Generator().manual_seed(0)
    x, w = torch.randn(*shape, generator=gen), torch.randn(40, 48, generator=gen)
    out = linear(x, w)
    assert out.shape == (*shape[:-1], 40) and out.is_contiguous()
    torch.testing.assert_close(out, torch.nn.functional.linear(x, w), rtol=1e-5, atol=1e-5)


def test_a_fixed_length_past_the_longest_sequence_gives_the_same_logits(model):
    """A pass told to read the cache up to a fixed length (what a CUDA graph needs) masks the extra entries away."""
    prompt = torch.randint(0, 512, (2, 6), generator=torch.Generator().manual_seed(4))
    short, long_ = new_kv_cache(model, 2, 40), new_kv_cache(model, 2, 40)
    for cache in (short, long_):
        prefill(model, cache, prompt)
    tokens, pos = torch.tensor([[5, 6, 7], [8, 9, 10]]), torch.tensor([6, 4])
    assert torch.allclose(forward(model, short, tokens, pos), forward(model, long_, tokens, pos, 40), atol=1e-5)
    assert torch.allclose(forward(model, short, tokens, pos, 9), forward(model, long_, tokens, pos, 25), atol=1e-5)
    with pytest.raises(RooflineError, match="the cache holds 40"):  # the length given is the one read
        forward(model, long_, tokens, pos, 41)
    cut = forward(model, long_, tokens, pos, 8)  # too short for sequence 0 (positions 6-8): its last query loses keys
    assert not torch.allclose(cut[0, 2], forward(model, short, tokens, pos, 9)[0, 2], atol=1e-3)


def test_cuda_graphs_leave_cpu_passes_eager_and_go_with_their_block(model):
    cache = new_kv_cache(model, 1, 16)
    tokens, pos = torch.tensor([[3]]), torch.tensor([0])
    eager = forward(model, cache, tokens, pos)
    with cuda_graphs(12) as pool:
        assert torch.equal(forward(model, cache, tokens, pos), eager)
        assert pool.graphs == {}  # nothing captured from CPU tensors
    with cuda_graphs(enabled=False) as none:
        assert none is None
    from roofline.harness import decoder

    assert decoder._GRAPHS == []  # each block takes its pool with it


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")
def test_cuda_graph_replays_match_eager_passes_and_the_speculative_loop_stays_exact():
    """On a GPU: a replayed pass gives the eager pass's logits at new inputs, and the greedy speculative loop run on
    graphs emits the target's plain greedy tokens (its positions stay inside the graphs' fixed length)."""
    from roofline.harness.specloop import speculative_decode

    gpu = build_decoder(model_from_dict(TINY), dtype=torch.float32, device="cuda", seed=1)
    prompt = torch.randint(0, 512, (2, 6), generator=torch.Generator().manual_seed(5)).cuda()
    eager_cache, graph_cache = new_kv_cache(gpu, 2, 64), new_kv_cache(gpu, 2, 64)
    for cache in (eager_cache, graph_cache):
        prefill(gpu, cache, prompt)
    inputs = [(torch.tensor(tok, device="cuda"), torch.tensor(pos, device="cuda"))
              for tok, pos in [([[1], [2]], [6, 6]), ([[3], [4]], [7, 7]), ([[5], [6]], [8, 3])]]
    with cuda_graphs(48) as pool:
        graphed = [forward(gpu, graph_cache, tok, pos).clone() for tok, pos in inputs]
        assert len(pool.graphs) == 1  # one shape, captured once, replayed after
    eager = [forward(gpu, eager_cache, tok, pos) for tok, pos in inputs]  # outside the block: eager passes
    for step, (a, b) in enumerate(zip(graphed, eager, strict=True)):
        assert torch.allclose(a, b, atol=1e-4), step

    plain_cache, draft_cache, target_cache = (new_kv_cache(gpu, 2, 64) for _ in range(3))
    draft = truncate(gpu, 1)
    for cache in (plain_cache, target_cache):
        prefill(gpu, cache, prompt[:, :5])
    prefill(draft, draft_cache, prompt[:, :5])
    start = torch.full((2,), 5, device="cuda")
    plain = decode_n_tokens(gpu, plain_cache, prompt[:, 5], start, 12)
    with cuda_graphs(48):
        spec, _ = speculative_decode(gpu, draft, target_cache, draft_cache, prompt[:, 4], prompt[:, 5], start, 3, 12)
    assert torch.equal(spec, plain)
