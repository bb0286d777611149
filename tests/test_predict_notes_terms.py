"""Mutation testing (qa470) of the last two sessions' predict notes and lines (break_even_notes with the k that pays
longest, the break-even's speedup digits, Medusa's one head, the memory-bound operators' shares, the padded FLOPs of a
pp step) and of a prefix read once only where one copy is held (engine's mean stage, findings): each test names the
mutants it kills; values worked by hand."""

from __future__ import annotations

import dataclasses
import json

import pandas as pd
import pytest

from roofline.api import break_even_notes
from roofline.hardware import load_hardware
from roofline.layout import deployment
from roofline.model import load_model
from roofline.serving import load_engine
from roofline.units import format_si

pytestmark = pytest.mark.slow  # each sweeps or predicts: 0.3-1 s a test

LONGEST = {"k": 1, "batch": 100, "at_memory_limit": False, "speedup": 1.1}
OPTIMISTIC = ("lie where, under vllm, speculative gains run optimistic (batch 32 and above, docs/ACCURACY.md): read them "
              "as upper estimates")


def test_the_optimistic_note_names_only_the_batches_at_32_and_above():
    """Asked k 6 breaks even at 20 (below OPTIMISTIC_BATCH, 32), k 1 pays to 100: only k 1's is said (mutant: both, the
    20 read as optimistic); both at 32 and above: both, with a plural verb and 'them' (mutants: 'lies', 'it')."""
    eng = load_engine("vllm")
    (note,) = break_even_notes({"break_even_batch": 20, "k": 6, "pays_longest": LONGEST}, eng, 8)
    assert note.startswith("k 1's break-even batch 100 lies where, under vllm, speculative gains run optimistic") and \
        note.endswith("read it as an upper estimate") and "batch 20" not in note, note
    (note,) = break_even_notes({"break_even_batch": 40, "k": 6, "pays_longest": LONGEST}, eng, 8)
    assert note == f"the break-even batch 40 and k 1's break-even batch 100 {OPTIMISTIC}", note


def test_a_break_even_cost_at_its_fit_bound_is_said_only_of_a_break_even_that_exists():
    """An engine whose spec_per_iteration_per_sequence sits at its fit's upper bound (100 us): a break-even of 100 is
    said to rest on it; where the asked k pays nowhere (break-even None) and k 1 pays to 100, only the optimistic note
    (mutant without `be is None`: 'the break-even batch {None:,}', a TypeError)."""
    bound = dataclasses.replace(load_engine("vllm"), spec_per_iteration_per_sequence_s=100e-6,
                                fitted={"parameters": ["spec_per_iteration_per_sequence"],
                                        "bounds_hit": ["spec_per_iteration_per_sequence"]})
    notes = break_even_notes({"break_even_batch": 100, "k": 12, "pays_longest": None}, bound, 8)
    assert any(n.startswith("the break-even batch 100 rests on vllm's spec_per_iteration_per_sequence (100 us, the upper "
                            "bound of its fit range)") for n in notes), notes
    notes = break_even_notes({"break_even_batch": None, "k": 12, "pays_longest": LONGEST}, bound, 8)
    assert notes == ["k 1's break-even batch 100 lies where, under vllm, speculative gains run optimistic (batch 32 and "
                     "above, docs/ACCURACY.md): read it as an upper estimate"], notes


def test_a_break_even_speedup_a_hair_above_1_is_said_with_its_digits(roofline):
    """N-gram k 1 at alpha 0.4 on H200, 128 tokens, ideal: the break-even's speedup is within 0.0002 of 1; the line says
    it with the digits that tell, 1.0001x (mutant: '1.000x', read as no gain)."""
    args = ["predict", "--hardware", "h200", "--model", "llama-3.1-8b", "--method", "ngram", "--alpha", "0.4", "--k", "1",
            "--context", "128", "--engine", "ideal"]
    code, out, _ = roofline(*args, "--json")
    spec = json.loads(out)["spec"]
    assert code == 0 and 1.00005 <= spec["break_even_speedup"] < 1.00015
    _, text, _ = roofline(*args)
    assert f"break-even batch   {spec['break_even_batch']:,} at k 1, 1.0001x there (within 1% of 1" in text, text


def test_a_medusa_drafter_of_one_head_says_one_head(roofline):
    """qa462: '1 heads' (mutant: '1 heads of a block and an LM head each'); k 2 keeps the plural."""
    base = ["predict", "--hardware", "h100-sxm", "--model", "llama-3.1-8b", "--method", "medusa", "--alpha", "0.7"]
    _, one, _ = roofline(*base, "--k", "1")
    _, two, _ = roofline(*base, "--k", "2")
    assert ", 1 head of a block and an LM head; no KV cache" in one and "1 heads" not in one, one  # (qa470: not "1 head, a block")
    assert ", 2 heads of a block and an LM head each; no KV cache" in two, two


def test_the_memory_bound_operators_are_named_until_they_pass_half_the_operator_time():
    """40% and 30%: the first alone is not past half, so both (70%) are said, and no third (mutant: the first alone)."""
    from roofline.tables import _operator_shares_text

    assert _operator_shares_text([["attention", 0.4], ["mlp", 0.3], ["norms", 0.1]]) == "attention's KV reads 40% of it, mlp 30%"
    assert _operator_shares_text([["mlp", 0.2], ["attention", 0.2], ["norms", 0.15], ["qkv_proj", 0.1]]) == (
        "mlp 20% of it, attention's KV reads 20%, norms 15%")  # at most three


def test_the_padded_flops_of_a_pp_step_are_its_micro_batches_pass_times_m():
    """The operators are one micro-batch's pass (1.2 TFLOP padded of 1 TFLOP), the step two of them (flops 2 TFLOP):
    the step's padded FLOPs are 2.4 TFLOP, over 1% above (mutant: one pass's 1.2 TFLOP, below 2 TFLOP: 'the FLOPs')."""
    from roofline.tables import _padded_flops_text

    p = {"flops": 2e12, "operators": {"mlp": {"flops": 1e12, "padded_flops": 1.2e12}}}
    assert _padded_flops_text(p) == f"the step's FLOPs padded to the GEMM tile, {format_si(2.4e12, 'FLOP')},"


def test_a_prefix_aware_kernel_without_the_prefix_cache_reads_each_copy_at_pp_2():
    """qa457 at pp 2: an engine with prefix_read_once true and prefix_cached false holds a copy a sequence, which no
    kernel shares; the round trip's mean stage prices them as read by each sequence too (mutant: the mean stage's costs
    take prefix_read_once, the step cheaper than an engine without the kernel)."""
    from roofline.engine import step_metrics

    engine = dataclasses.replace(load_engine("vllm"), prefix_cached=False, prefix_cached_speculating=False,
                                 prefix_read_once=True)
    h100, llama = load_hardware("h100-sxm"), load_model("llama-3.1-8b")
    dep = deployment(llama, pp=2)
    steps = [float(step_metrics(h100, llama, 16, 1, 8192, dep, engine=e, shared_prefix=8000)["step_time_s"])
             for e in (engine, dataclasses.replace(engine, prefix_read_once=False))]
    assert steps[0] == steps[1]


def test_the_findings_read_a_prefix_once_only_where_the_engine_holds_one_copy():
    """findings.prefix_read_once of a copy of vllm with the kernel (prefix_read_once true) and the cache off: False, each
    sequence reads its own copy (mutant: the profile's prefix_read_once, True)."""
    from roofline.findings import prefix_read_once

    engine = dataclasses.replace(load_engine("vllm").for_hardware("h100-sxm"), prefix_cached=False, prefix_read_once=True)
    df = pd.DataFrame([{"engine": "vllm", "hardware": "h100-sxm"}])
    assert prefix_read_once(df, {"engine_values": {("vllm", "h100-sxm"): engine}}) is False
    cached = dataclasses.replace(engine, prefix_cached=True)
    assert prefix_read_once(df, {"engine_values": {("vllm", "h100-sxm"): cached}}) is True


def test_predict_json_says_a_prefix_read_by_each_sequence_where_the_engine_caches_none(roofline, monkeypatch, tmp_path):
    """shared_prefix_read_once: a copy of vllm with prefix_read_once true and prefix_cached false holds a copy a
    sequence, so none is read once (mutant: the profile's prefix_read_once, true); the same copy with the cache on reads
    it once."""
    monkeypatch.setenv("ROOFLINE_USER_DIR", str(tmp_path / "user"))
    for name, cached in (("kernel-nocache", "false"), ("kernel-cache", "true")):
        code, _, err = roofline("engines", "new", name, "--from", "vllm", "--set", "prefix_read_once=true",
                                "--set", f"prefix_cached={cached}")
        assert code == 0, err
    said = {}
    for name in ("kernel-nocache", "kernel-cache"):
        code, out, err = roofline("predict", "--model", "llama-3.1-8b", "--engine", name, "--context", "4096",
                                  "--shared-prefix", "2048", "--json")
        assert code == 0, err
        said[name] = json.loads(out)["shared_prefix_read_once"]
    assert said == {"kernel-nocache": False, "kernel-cache": True}
