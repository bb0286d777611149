"""capacity.py at its edges (qa439: mutation testing of costs.py,
capacity.py and layout.py, 132 mutants; these kill its 14 survivors that were not equivalent)."""

from dataclasses import replace

import pytest

from roofline.capacity import capacity, default_sequences, kv_shared_and_per_sequence_bytes
from roofline.costs import weight_bytes
from roofline.hardware import load_hardware
from roofline.layout import deployment
from roofline.model import load_model
from roofline.serving import load_engine

H200 = load_hardware("h200")
LLAMA = load_model("llama-3.1-8b")


@pytest.mark.slow
def test_a_device_of_exactly_70_gib_takes_vllms_large_default_sequences():
    """Pins default_sequences' boundary: vLLM's max_num_seqs is 1024 from 70 GiB up ('device_memory >= 70 GiB'), 256 only below."""
    vllm = load_engine("vllm")
    assert default_sequences(vllm, replace(H200, mem_bytes=70 * 2**30)) == vllm.sampler_sequences == 1024
    assert default_sequences(vllm, replace(H200, mem_bytes=70 * 2**30 - 2**20)) == vllm.sampler_sequences_small == 256


def test_a_batch_of_one_that_fills_the_memory_exactly_gives_max_batch_one():
    """Pins max_batch >= 1 wherever batch 1 fits: weights + a drafter + one sequence's KV equal to usable memory exactly."""
    dep = deployment(LLAMA)
    usable = H200.usable_mem_bytes
    _, per_sequence = kv_shared_and_per_sequence_bytes(LLAMA, 8192, dep)
    assert float(per_sequence) == 32 * 8192 * 4096  # 32 layers x 8,192 tokens x (2 x 8 KV heads x 128 x 2 B) = 1 GiB
    extra = usable - weight_bytes(LLAMA, dep) - float(per_sequence)  # the rest of the memory to a drafter's weights
    cap = capacity(H200, LLAMA, 1, 8192, dep, extra_bytes=extra)
    assert float(cap["memory_needed_bytes"]) == float(cap["usable_memory_bytes"])  # the premise: an exact fit
    assert bool(cap["fits_in_memory"]) and int(cap["max_batch"]) == 1


@pytest.mark.parametrize("context", [8192, 32768])
def test_under_pipeline_parallelism_a_batch_past_max_batch_does_not_fit(context):
    """Pins pp capacity's 'fits where every stage fits': llama-3.1-8b at pp 3 (10/11/11 layers), max_batch fits, max_batch + 1 not."""
    dep = deployment(LLAMA, pp=3)
    assert dep.stage_counts(32) == [10, 11, 11]
    top = int(capacity(H200, LLAMA, 1, context, dep)["max_batch"])
    assert bool(capacity(H200, LLAMA, top, context, dep)["fits_in_memory"])
    assert not bool(capacity(H200, LLAMA, top + 1, context, dep)["fits_in_memory"])
    # the premise that makes it a test: a stage with no LM head still fits one more sequence
    assert bool(capacity(H200, LLAMA, top + 1, context, dep.at_stage(1))["fits_in_memory"])
