"""A break-even at the memory limit that is also the last swept batch is said (qa453, found mutation-testing grid.py:
a batch axis ending at max_batch had neither the memory-limit note nor the last-batch one)."""

import warnings

import pytest

from roofline.grid import load_configs, run_sweep
from roofline.scenario import scenario_from_dict


@pytest.mark.slow
def test_a_break_even_at_the_memory_limit_that_is_also_the_last_swept_batch_is_said():
    """iter_blocks counted the memory-limit cells as at_limit & (cap < last); the break-even never exceeds the last swept
    batch, so that only leaves out cap == last, which at_last (cap > last) does not count either: a batch axis ending at
    max_batch (51 here) where speculation still pays got neither note, though its rows say break_even_at_memory_limit.
    The same axis to 64 (past the cap) says it."""
    data = {"name": "t", "hardware": "h100-sxm", "model": "llama-3.1-8b", "method": "eagle",
            "axes": {"context": [8192], "batch": [1, 16, 64], "k": [4], "alpha": [0.9]}}
    for batches in ([1, 16, 64], [1, 16, 51]):
        sc = scenario_from_dict({**data, "axes": {**data["axes"], "batch": batches}}, "t.yaml")
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            df = run_sweep(sc, load_configs(sc))
        assert (df.max_batch == 51).all() and (df.break_even_batch == 51).all() and df.break_even_at_memory_limit.all()
        said = [str(w.message) for w in caught if "largest batch that fits (max_batch)" in str(w.message)]
        assert len(said) == 1, (batches, said)
