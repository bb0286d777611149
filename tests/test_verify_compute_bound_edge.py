"""predict says where the verify pass of its k turns compute-bound (speculation.verify_compute_bound_batches), the
mini-prefill's edge a student bisected by hand (qa495). Worked by hand: Llama-3.1-8B's MLP, 2 x 5.63e9 FLOPs a token
over its 11.27 GB of bf16 weights and 3.28 MB of activations a token, reaches H100's derated ridge,
989.4e12 x 0.80 / (3.35e12 x 0.85) = 278 FLOP/B, at T = 278 x 11.27e9 / (11.27e9 - 278 x 3.28e6) = 302.5 tokens: under
ideal at k 4 (q = 5) a pass of 60 sequences, 300 tokens, is memory-bound and one of 61, 305 tokens, compute-bound."""
import numpy as np
import pytest

import roofline
from roofline.hardware import load_hardware
from roofline.layout import deployment
from roofline.model import load_model
from roofline.serving import IDEAL
from roofline.speculation import speculative_metrics, verify_compute_bound_batches
from roofline.tables import predict_table

pytestmark = pytest.mark.slow  # each predict searches its break-even and best k: above 30 ms


def test_the_ideal_verify_pass_of_k_4_turns_compute_bound_where_the_mlp_crosses_the_ridge():
    p = roofline.predict("h100-sxm", "llama-3.1-8b", 1, 1024, method="eagle", k=4, alpha=0.6, engine="ideal")
    assert p["spec"]["verify_compute_bound"] == {"first_batch": 61, "memory_bound_again": None, "from_batch": 61,
                                                 "runs": [[61, 4096]], "searched_to": 4096}
    assert "; compute-bound from batch 61, 305 tokens a pass)" in predict_table(p)


def test_the_edge_is_the_sweeps_verify_compute_bound_column_at_every_batch():
    """The search agrees with speculative_metrics' verify_compute_bound, batch by batch, under a serving engine too."""
    hw, model = load_hardware("h100-sxm"), load_model("llama-3.1-8b")
    from roofline.serving import load_engine

    engine = load_engine("vllm").for_hardware("h100-sxm")
    batches = np.arange(1, 4097)
    flags = np.asarray(speculative_metrics(hw, model, batches, 1024, 3, 0.8, method="eagle", engine=engine)["verify_compute_bound"])
    edge = verify_compute_bound_batches(hw, model, 1024, 4.0, deployment(model), engine)
    assert edge["first_batch"] == int(batches[flags][0]) and flags[edge["first_batch"] - 1:].all()
    assert edge["memory_bound_again"] is None


def test_at_long_context_the_kv_reads_keep_every_verify_pass_memory_bound():
    p = roofline.predict("h100-sxm", "llama-3.1-8b", 16, 8192, method="eagle", k=3, alpha=0.8)
    assert p["spec"]["verify_compute_bound"]["first_batch"] is None
    assert "; memory-bound at every batch to 4,096)" in predict_table(p)
    flags = speculative_metrics(load_hardware("h100-sxm"), load_model("llama-3.1-8b"), np.arange(1, 4097), 8192, 3, 0.8,
                                method="eagle", engine=IDEAL)["verify_compute_bound"]
    assert not np.any(flags)  # under ideal too: attention's KV reads dominate the pass at 8k


def test_plain_decoding_says_no_verify_edge():
    p = roofline.predict("h100-sxm", "llama-3.1-8b", 16, 1024, method="eagle", k=0, alpha=0.8)
    assert p["spec"]["verify_compute_bound"] is None


def test_a_run_before_the_last_is_said_beside_it_not_as_a_run_to_itself():
    """SGLang at tp 8, n-gram k 3: the verify pass is compute-bound at batch 117 alone, memory-bound at 118-120, and
    compute-bound from 121 on (near the crossing the flag zigzags); it was said 'compute-bound at batch 117 (468 tokens
    a pass) to 117, memory-bound again from 118 (its KV reads)' (qa496)."""
    p = roofline.predict("h100-sxm", "llama-3.1-8b", 4, 1024, engine="sglang", tp=8, method="ngram", k=3, alpha=0.5)
    edge = p["spec"]["verify_compute_bound"]
    assert edge["runs"] == [[117, 117], [121, 4096]] and edge["from_batch"] == 121 and edge["memory_bound_again"] == 118
    (line,) = [x for x in predict_table(p).splitlines() if x.startswith("    verify pass ")]
    assert "; compute-bound from batch 121, 484 tokens a pass (and at batch 117 before it);" in line, line


def test_a_pass_that_ends_memory_bound_says_its_runs_and_where_it_turns_back():
    """vllm, k 1 at 1k context: compute-bound at batches 153-154 and 161-163 only, then memory-bound again from 164 as
    the KV reads grow with the batch (2 x 153 = 306 tokens a pass at the first)."""
    p = roofline.predict("h100-sxm", "llama-3.1-8b", 16, 1024, method="eagle", k=1, alpha=0.8)
    edge = p["spec"]["verify_compute_bound"]
    assert edge["runs"] == [[153, 154], [161, 163]] and edge["from_batch"] is None and edge["memory_bound_again"] == 155
    (line,) = [x for x in predict_table(p).splitlines() if x.startswith("    verify pass ")]
    assert ("; compute-bound at batches 153-154 and 161-163 (from 306 tokens a pass), memory-bound again from 164 (its KV "
            "reads grow with the batch))") in line, line
