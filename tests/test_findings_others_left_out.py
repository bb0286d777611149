"""Found by mutation testing of session 72's diff (qa482): the generic finding's note of another engine's rows the cheapest figure leaves out, in the singular."""
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from test_findings import _run_text  # noqa: E402

pytestmark = pytest.mark.slow  # CLI runs, predicts and sweeps: 40-650 ms a test


def test_one_left_out_row_of_another_engine_is_said_in_the_singular(tmp_path):
    """kills f_others_plural: trtllm's tp 2 / dp-attention 4 layout (no TensorRT-LLM setup) at one batch, k and
    context is 1 row: '1 row of engine trtllm', not '1 rows'."""
    from roofline.findings import generic

    r, _ = _run_text(tmp_path, "name: gen-one\nhardware: h200\nmodel: deepseek-v3\nmethod: mtp\nengine: [vllm, trtllm]\n"
                     "layouts: [{tp: 8, ep: 8}, {tp: 2, dp_attention: 4, ep: 8}]\n"
                     "axes:\n  batch: [1]\n  context: [4096]\n  k: [0]\n  alpha: [0.8]\n", answer=False)
    assert len(r.df[(r.df["engine"] == "trtllm") & (r.df["tp"] == 2)]) == 1
    text = generic(r.df, r.ops, r.meta).text
    assert "(The cheapest figure leaves out 1 row of engine trtllm at a layout, on a device or with a draft model that " \
           "engine does not run: the sweep's warnings say which.)" in text, text
