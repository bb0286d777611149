"""Sweep terms (grid.py) the suite did not pin, found by mutation testing (qa492). Each figure by hand from the module's
docstrings, or by brute force over every batch where a docstring defines a search's answer."""
import warnings

import numpy as np
import pytest

from roofline.grid import load_configs, run_sweep
from roofline.hardware import load_hardware
from roofline.model import load_model
from roofline.scenario import scenario_from_dict
from roofline.serving import IDEAL
from roofline.speculation import pays, speculative_metrics

pytestmark = pytest.mark.slow  # each sweep or prediction above 30 ms

H100 = load_hardware("h100-sxm")
LLAMA = load_model("llama-3.1-8b")


def _sweep(data: dict, name: str = "t.yaml"):
    sc = scenario_from_dict({"name": "t", **data}, name)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return run_sweep(sc, load_configs(sc))


def test_a_gap_of_one_batch_after_the_last_swept_batch_that_pays_is_scanned():
    """_refined_break_even scans every batch lo + 1 .. hi - 1 of a gap, one batch wide too: EAGLE at alpha 0.3, k 4 on
    Llama-3.1-8B, H100, ideal, context 1024 pays at batch 63 and not at 64 (every batch evaluated); swept 60, 62, 64 the
    break-even is 63, not the swept 62 (qa492: gaps of one batch left unscanned survived)."""
    batches = np.arange(1, 129)
    speedup = np.asarray(speculative_metrics(H100, LLAMA, batches, 1024, 4, 0.3, method="eagle", engine=IDEAL)["speedup"])
    paying = batches[pays(speedup)]
    assert paying.max() == 63 and pays(speedup[61]) and pays(speedup[62]) and not pays(speedup[63])
    df = _sweep({"hardware": "h100-sxm", "model": "llama-3.1-8b", "method": "eagle", "engine": "ideal",
                 "axes": {"batch": [60, 62, 64], "k": [4], "alpha": [0.3], "context": [1024]}})
    assert (df.break_even_batch == 63).all()
    assert not df.break_even_at_last_batch.any() and not df.break_even_at_memory_limit.any()


@pytest.mark.parametrize("ks, said", [([0, 3], True), ([3], False)])
def test_a_plain_decoding_miss_is_said_of_a_sweep_that_sweeps_k_0(roofline, tmp_path, monkeypatch, ks, said):
    """_methods_swept: a config's rows run plain decoding where k 0 is swept, so a known miss kept for plain decoding
    alone (methods: [none], as `engines new` keeps sglang's when a speculation cost changes) is said of a sweep of k 0
    and 3, not of k 3 alone (qa492: only the method itself where it drafts survived)."""
    import warnings as w

    monkeypatch.setenv("ROOFLINE_USER_DIR", str(tmp_path / "user-profiles"))
    code, _, err = roofline("engines", "new", "my-sgl", "--from", "sglang", "--set", "spec_per_iteration=150 us")
    assert code == 0 and "methods: [none]" in (tmp_path / "user-profiles" / "my-sgl.yaml").read_text(), err
    sc = scenario_from_dict({"name": "t", "hardware": "mi300x", "model": "deepseek-r1", "engine": "my-sgl", "tp": 8,
                             "method": "mtp", "axes": {"batch": [1], "k": ks, "alpha": [0.8], "context": [1024]}}, "t.yaml")
    with w.catch_warnings(record=True) as caught:
        w.simplefilter("always")
        run_sweep(sc, load_configs(sc))
    assert any("a known miss of engine my-sgl" in str(c.message) for c in caught) is said


def test_plain_decodings_cost_pays_for_every_device_of_the_replica():
    """baseline_cost_usd_per_million_tokens = tp x price an hour / (baseline tokens/s x 3600) x 1e6: Llama-3.1-70B at
    tp 2 on H100s ($3.00 an hour each in the profile) pays $6.00 an hour, as the drafting rows' cost does with the same
    devices (qa492: one device's rent survived)."""
    assert H100.price_usd_per_hour == 3.0
    df = _sweep({"hardware": "h100-sxm", "model": "llama-3.1-70b", "tp": 2, "method": "eagle", "engine": "ideal",
                 "axes": {"batch": [1, 32], "k": [0, 3], "alpha": [0.7], "context": [1024]}})
    assert (df.devices == 2).all()
    per_million = 6.0 / 3600 * 1e6
    assert np.allclose(df.baseline_cost_usd_per_million_tokens, per_million / df.baseline_tokens_per_s, rtol=1e-12)
    assert np.allclose(df.cost_usd_per_million_tokens, per_million / df.tokens_per_s, rtol=1e-12)
    plain = df[df.k == 0]
    assert np.allclose(plain.cost_usd_per_million_tokens, plain.baseline_cost_usd_per_million_tokens, rtol=1e-12)
