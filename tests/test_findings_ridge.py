"""qa446: whose ridge points the break-even finding and figure name (findings.ridge_named, qa441): read from the
operators table's main GEMM rows, the routed experts' where a MoE model has them (mutation survivors: ridge_named had
no test of its own, and neither the finding's sentence nor the figure's axis was checked for it)."""

from __future__ import annotations

import re
import warnings

import pandas as pd
import pytest

from roofline.findings import ridge_named


def _ops(*rows):
    """(operator, compute_dtype) rows of an operators table."""
    return pd.DataFrame([{"operator": o, "compute_dtype": d, "hardware": h} for h, o, d in rows])


def test_a_dense_bf16_models_mlp_is_left_unnamed():
    """The default, bf16 MLP GEMMs on every device: nothing added."""
    assert ridge_named(_ops(("h100", "attention", "bf16"), ("h100", "mlp", "bf16"), ("h200", "mlp", "bf16"))) == ""


def test_a_moes_routed_experts_are_named_with_their_one_dtype_once():
    """DeepSeek-V3's fp8 experts beside fp8 dense-layer MLPs and bf16 attention: the experts' fp8, said once over
    several rows and devices."""
    ops = _ops(("h200", "attention", "bf16"), ("h200", "mlp", "fp8"), ("h200", "experts", "fp8"),
               ("b200", "mlp", "fp8"), ("b200", "experts", "fp8"))
    assert ridge_named(ops) == " of the routed experts' fp8 GEMMs"


def test_a_moes_bf16_experts_are_named_too():
    """bf16 experts are still not the MLP's: named (the '' is a dense bf16 model's alone)."""
    assert ridge_named(_ops(("h100", "mlp", "bf16"), ("h100", "experts", "bf16"))) == " of the routed experts' bf16 GEMMs"


def test_the_experts_dtype_is_read_from_the_experts_rows_not_the_mlps():
    """fp4 experts beside bf16 dense-layer MLPs (DeepSeek-V4-Flash's kind): fp4, the experts' own."""
    assert ridge_named(_ops(("b200", "mlp", "bf16"), ("b200", "experts", "fp4"))) == " of the routed experts' fp4 GEMMs"


def test_a_dense_models_fp8_and_mixed_dtypes_are_each_said_in_order_of_appearance():
    """A dense model's fp8 MLP is named (not ''); fp8 on three devices and bf16 on A100 (no fp8 there): both, in the
    order the rows give them."""
    fp8 = ridge_named(_ops(("h100", "mlp", "fp8"), ("h200", "mlp", "fp8")))
    assert fp8 == " of the MLP's fp8 GEMMs", fp8  # (qa446: "the MLP' fp8 GEMMs")
    mixed = ridge_named(_ops(("h100", "mlp", "fp8"), ("h200", "mlp", "fp8"), ("a100", "mlp", "bf16")))
    assert mixed.endswith(" fp8/bf16 GEMMs"), mixed


def test_only_the_dtypes_of_the_rows_the_brackets_read_are_named():
    """qa446: weight dtypes [bf16, fp8] swept on each device gave 'bf16/fp8' where every bracket is the first row's
    (bf16's) ridge: ridge_points reads each device's first main-GEMM row, and so does the name."""
    ops = _ops(("h100", "mlp", "bf16"), ("h100", "mlp", "fp8"), ("h200", "mlp", "bf16"), ("h200", "mlp", "fp8"))
    assert ridge_named(ops) == ""


@pytest.mark.slow
def test_the_break_even_finding_and_figure_name_a_moes_experts_ridge_points(tmp_path):
    """A DeepSeek-V3 break-even sweep (fp8 experts): the finding's brackets and the figure's axis say whose ridge
    points they are (about 0.5 s: one small sweep and one figure)."""
    from roofline.findings import break_even_batch
    from roofline.report import run_scenario
    from roofline.report_figures import _report_break_even

    (tmp_path / "be.yaml").write_text("name: be\nmodel: deepseek-v3\nmethod: mtp\nhardware: [h200, b200]\nengine: sglang\n"
                                      "dp_attention: 8\ntp: 1\nep: 8\naxes: {batch: [1, 16, 64], context: [2048], k: [0, 1, 2], alpha: [0.8]}\n")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = run_scenario(str(tmp_path / "be.yaml"))
    text = break_even_batch(r.df, r.ops, r.meta).text
    assert "derated ridge points of the routed experts' fp8 GEMMs in FLOP/B in brackets" in text, text
    assert re.search(r"H200 SXM \(354 FLOP/B;", text), text  # the experts' fp8 ridge, not attention's bf16 194
    fig = _report_break_even(r.df, r.ops, r.meta)
    labels = {ax.get_xlabel() for ax in fig.axes if ax.get_xlabel()}
    assert labels == {"GPU, by derated ridge point of the routed experts' fp8 GEMMs (FLOP/B)"}, labels
