"""predict's `below it` line: the first and last batch below the break-even where speculation loses, against every
batch computed (qa461: the search's next grid point lay past the break-even and lost, so 420 was named the last that
loses under a break-even of 421, where 417-420 paid)."""
import numpy as np
import pytest

from roofline.hardware import load_hardware
from roofline.layout import deployment
from roofline.model import load_model
from roofline.serving import load_engine
from roofline.speculation import pays, predict_speculation, speculative_metrics

pytestmark = pytest.mark.slow  # a break-even search and every batch below it: about 0.3 s


def test_the_dip_below_a_break_even_is_named_by_its_first_and_last_losing_batch():
    target, draft = load_model("llama-3.1-70b"), load_model("llama-3.2-1b")
    kw = dict(method="draft", draft=draft, dep=deployment(target, tp=4), engine=load_engine("vllm"))
    h100 = load_hardware("h100-sxm")
    spec = predict_speculation(h100, target, 32, 128, 2, 0.6, **kw)
    be = spec["break_even_batch"]
    batches = np.arange(1, be)
    losing = batches[~pays(speculative_metrics(h100, target, batches, 128, 2, 0.6, **kw)["speedup"])]
    assert len(losing) and spec["not_paying_below_break_even"] == [int(losing.min()), int(losing.max())]
    assert spec["not_paying_every_batch_between"] == (len(losing) == losing.max() - losing.min() + 1)


def test_a_dip_between_two_search_grid_batches_that_pay_is_named():
    """qa462: Llama 3.1 8B under sglang, EAGLE k 4 at alpha 0.8, 512 tokens: batches 765-768 lose below a break-even of
    772, between two grid batches that pay, and predict said no dip."""
    target = load_model("llama-3.1-8b")
    kw = dict(method="eagle", dep=deployment(target), engine=load_engine("sglang"))
    h100 = load_hardware("h100-sxm")
    spec = predict_speculation(h100, target, 8, 512, 4, 0.8, **kw)
    batches = np.arange(1, spec["break_even_batch"])
    losing = batches[~pays(speculative_metrics(h100, target, batches, 512, 4, 0.8, **kw)["speedup"])]
    assert len(losing) and spec["not_paying_below_break_even"] == [int(losing.min()), int(losing.max())]
    assert spec["not_paying_every_batch_between"] == (len(losing) == losing.max() - losing.min() + 1)


def test_the_dip_search_reads_every_batch_below_its_limit_and_the_grid_past_it():
    """_dip_below: a synthetic curve losing at 100-120 and at 40,000-40,005, a stretch narrower than the grid's steps
    there. Below EXACT_DIP_SEARCH_MAX every batch is read: both stretches, first 100, last 40,005, not every batch between
    losing. Past it the grid's batches with their edges refined: the narrow stretch is missed (the documented limit)."""
    from roofline.speculation import EXACT_DIP_SEARCH_MAX, _dip_below, _search_grid

    def speedup_at(b):
        b = np.asarray(b)
        return np.where(((b >= 100) & (b <= 120)) | ((b >= 40_000) & (b <= 40_005)), 0.9, 1.1)

    grid = _search_grid(EXACT_DIP_SEARCH_MAX)
    assert _dip_below(grid, speedup_at(grid), 50_000, speedup_at) == ([100, 40_005], False)
    far = _search_grid(4 * EXACT_DIP_SEARCH_MAX)
    assert not (~pays(speedup_at(far)) & (far >= 40_000)).any()  # no grid batch falls in the narrow stretch
    assert _dip_below(far, speedup_at(far), EXACT_DIP_SEARCH_MAX + 2, speedup_at) == ([100, 120], True)
    assert _dip_below(grid, np.full(grid.shape, 1.1), 90, speedup_at) == (None, None)  # none below 90
