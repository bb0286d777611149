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
