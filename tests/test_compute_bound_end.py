"""predict's `compute-bound at no batch` line names the operators that keep the step memory-bound at the search's end
and says where the search runs past what fits (qa459: a student read 'no batch' against the glossary's rule, intensity
about B past the ridge, with nothing saying GQA attention's KV reads held 71% of the time)."""
import numpy as np
import pytest

from roofline import predict
from roofline.engine import COMPUTE_BOUND_SEARCH_MAX_BATCH, step_metrics
from roofline.hardware import load_hardware
from roofline.layout import deployment
from roofline.model import load_model
from roofline.serving import load_engine

pytestmark = pytest.mark.slow  # two compute-bound searches: about 1 s


def test_no_compute_bound_batch_names_the_memory_bound_operators_and_their_shares(roofline):
    point = predict(hardware="h100-sxm", model="llama-3.1-8b", batch=1, context=1024)
    cb = point["compute_bound"]
    assert cb["first_batch"] is None
    model = load_model("llama-3.1-8b")
    ops = step_metrics(load_hardware("h100-sxm"), model, COMPUTE_BOUND_SEARCH_MAX_BATCH, 1, 1024, deployment(model),
                       engine=load_engine("vllm"), with_operators=True)["operators"]
    total = sum(float(op["time_s"]) for op in ops.values())
    memory = {name: float(op["time_s"]) / total for name, op in ops.items() if not bool(np.asarray(op["compute_bound"]))}
    assert sum(memory.values()) > 0.5  # memory-bound operators hold most of it: the step is memory-bound there
    held = cb["memory_bound_operators_at_end"]
    assert held[0][0] == "attention" and held[0][1] == pytest.approx(memory["attention"], rel=1e-12) and memory["attention"] > 0.5
    assert [s for _, s in held] == sorted((s for s in memory.values() if s > 0), reverse=True)
    code, out, _ = roofline("predict")
    line = next(x for x in out.splitlines() if "compute-bound at" in x)
    assert f"attention's KV reads {100 * memory['attention']:.0f}% of it;" in line
    assert line.endswith(f"the search runs past what fits: {point['max_batch']:,} fit in memory")


def test_a_compute_bound_batch_lists_no_memory_bound_operators_at_the_end():
    cb = predict(hardware="h100-sxm", model="llama-3.1-8b", batch=1, context=256)["compute_bound"]
    assert cb["first_batch"] is not None and "memory_bound_operators_at_end" not in cb
