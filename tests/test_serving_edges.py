"""Serving-engine behaviour (serving.py) the suite did not pin, found by mutation testing (qa457).

Each test names the mutant it kills; every expected value is worked from the docstrings by hand."""

import dataclasses
import warnings

import pytest

from roofline.errors import RooflineError, RooflineWarning
from roofline.hardware import load_hardware
from roofline.layout import deployment
from roofline.model import load_model
from roofline.serving import (
    IDEAL,
    architecture_of,
    check_engine_spec,
    cost_sharers,
    dispatch_latency_note,
    engine_from_dict,
    engine_on_a_cpu,
    fitted_batches_note,
    host_amortised_note,
    host_terms_text,
    known_miss_notes,
    known_misses_at,
    load_engine,
    running_cap_speculating,
    speculating_engine,
    speculation_engine_notes,
    undetermined_text,
)
from roofline.units import format_seconds

H100 = load_hardware("h100-sxm")
MI300X = load_hardware("mi300x")
LLAMA = load_model("llama-3.1-8b")


def _host_engine(**changes):
    return dataclasses.replace(IDEAL, name="e", host_overlap=False, host_per_sequence_s=10e-6, **changes)


def test_host_work_over_a_quarter_of_the_plain_step_is_said_and_a_quarter_is_not():
    """HOST_SHARE_NOTED = 0.25: a share above it is said ('30% of the plain step'), 25% itself is not (share <= 0.25).
    Kills: the threshold moved (0.25 -> 0.35) and `<=` made `<`."""
    engine = _host_engine()
    note = host_amortised_note(engine, 8, 0.3, 1.0)  # 0.3 s of host work in a 1 s plain step: 30%
    assert "is 30% of the plain step" in note and "at batch 8" in note
    assert host_amortised_note(engine, 8, 1.0, 4.0) == ""  # 1 / 4 = 0.25 exactly: not above the threshold
    assert host_amortised_note(dataclasses.replace(engine, host_overlap=True), 8, 0.3, 1.0) == ""  # overlapped: not carried


def test_host_terms_are_said_fitted_only_where_a_fit_row_determined_them():
    """host_terms_text: ', fitted' only where every named term is a fitted parameter no row left undetermined (qa157).
    Kills: `determined` dropped from the condition."""
    said = f"{format_seconds(10e-6)} a sequence"
    fitted = _host_engine(fitted={"parameters": ["host_per_sequence"]})
    assert host_terms_text(fitted) == said + ", fitted"
    prior = _host_engine(fitted={"parameters": ["host_per_sequence"], "not_determined_by_rows": ["host_per_sequence"]})
    assert host_terms_text(prior) == said  # a sourced start no row moved: not "fitted"
    assert host_terms_text(_host_engine()) == said  # no fit at all


@pytest.mark.slow
def test_an_engine_whose_prefix_cache_is_already_off_speculates_as_it_decodes():
    """speculating_engine turns the cache (and the read-once prefix) off only where it was on: an engine that caches
    no prefix (prefix_cached false) speculates as it decodes, each sequence holding and reading its own copy even where
    its kernel is prefix-aware (prefix_read_once true: no copy is shared to read once; qa457 found it priced read
    once). Kills: `engine.prefix_cached and` dropped from the condition; `and self.prefix_cached` dropped from
    reads_prefix_once."""
    from roofline.engine import step_metrics

    engine = dataclasses.replace(load_engine("vllm"), prefix_cached=False, prefix_cached_speculating=False,
                                 prefix_read_once=True)
    assert speculating_engine(engine) is engine and engine.reads_prefix_once is False
    h100, llama = load_hardware("h100-sxm"), load_model("llama-3.1-8b")
    read_each = dataclasses.replace(engine, prefix_read_once=False)
    steps = [float(step_metrics(h100, llama, 16, 1, 8192, engine=e, shared_prefix=8000)["step_time_s"])
             for e in (engine, read_each, dataclasses.replace(engine, prefix_cached=True))]
    assert steps[0] == steps[1] > steps[2] * 1.5  # 16 copies of 8,000 tokens read, as an engine without the kernel;
    # one copy read once is far less (8,000 of 8,192 tokens of KV, 1 GiB a copy against 16 GB of weights)
    on = dataclasses.replace(engine, prefix_cached=True)  # the cache on in plain decoding: off while speculating
    spec = speculating_engine(on)
    assert (spec.prefix_cached, spec.prefix_read_once) == (False, False)


@pytest.mark.parametrize("key, top, over", [("kernels_per_layer", {"mlp": 100}, {"mlp": 100.5}),
                                            ("quant_kernels_per_gemm", 10, 10.5)])
def test_kernel_counts_take_their_stated_upper_bound(key, top, over):
    """'a kernel count in 0..100' / 'in 0..10': the bound itself loads, past it is one line. Kills `<= 100` -> `< 100`
    and `<= 10` -> `< 10`."""
    data = {"name": "x", "source": "s", key: top}
    assert getattr(engine_from_dict(data, "e.yaml"), key) == top
    with pytest.raises(RooflineError, match=r"e\.yaml: (kernels_per_layer\.mlp|quant_kernels_per_gemm): expected a kernel count in 0\.\.10"):
        engine_from_dict({**data, key: over}, "e.yaml")


def test_a_running_cap_under_the_attention_dp_groups_gives_each_group_one_sequence():
    """running_cap_speculating: d x max(floor(C / d), 1), 'at least one a group assumed': C = 4 over d = 8 groups is 8
    sequences, not 0, and a batch of 16 is said to pass it. Kills `max(..., 1)` dropped."""
    engine = dataclasses.replace(load_engine("sglang"), max_running_requests_speculating=4)
    assert running_cap_speculating(engine, 8) == 8  # floor(4 / 8) = 0 -> 1 a group, x 8
    assert running_cap_speculating(engine, 3) == 3  # floor(4 / 3) = 1 a group, x 3
    assert running_cap_speculating(engine, 1) == 4
    v3 = load_model("deepseek-v3")
    dep = deployment(v3, tp=1, dp_attention=8, ep=8)
    notes = speculation_engine_notes(engine, "mtp", 16, dep)
    assert len(notes) == 1 and "it runs at most 8 sequences at once" in notes[0] and "(1 in each of its 8 attention-DP" in notes[0]
    assert speculation_engine_notes(engine, "mtp", 8, dep) == []  # 8 is within the cap


def test_an_overrides_or_a_specs_held_memory_says_what_a_held_term_is():
    """_check_held names a context and communicators for C's terms (memory_before_share*), in an override and a spec
    too, not a reserve's graphs and buffers. Kills the key compared whole (`key in HELD_BEFORE_SHARE`)."""
    data = {"name": "x", "source": "s", "overrides": [{"hardware": "mi*", "memory_before_share": "100 GiB"}]}
    with pytest.raises(RooflineError, match=r"overrides\[0\]\.memory_before_share: expected at most 64 GiB \(a runtime's context and communicators"):
        engine_from_dict(data, "e.yaml")
    with pytest.raises(RooflineError, match=r"memory_before_share_bytes: expected at most 64 GiB \(a runtime's context and communicators"):
        check_engine_spec(dataclasses.replace(IDEAL, memory_before_share_bytes=100 * 2**30))
    with pytest.raises(RooflineError, match=r"memory_reserved: expected at most 64 GiB \(a runtime's graphs"):
        engine_from_dict({"name": "x", "source": "s", "memory_reserved": "100 GiB"}, "e.yaml")


def test_a_known_miss_batch_starts_at_one():
    """known_misses[i].batch: '[LOW, HIGH] whole numbers from 1'. Kills `batch[0] >= 1` -> `>= 0`."""
    miss = {"note": "measured 10% slower", "batch": [0, 4]}
    with pytest.raises(RooflineError, match=r"known_misses\[0\]\.batch: expected \[LOW, HIGH\] whole numbers from 1"):
        engine_from_dict({"name": "x", "source": "s", "known_misses": [miss]}, "e.yaml")
    assert engine_from_dict({"name": "x", "source": "s", "known_misses": [{**miss, "batch": [1, 4]}]}, "e.yaml").known_misses


def test_an_a100_runs_sm80_kernels_and_an_a10g_sm86():
    """ARCHITECTURES is first-match: a100* before a10*. Kills the two Ampere rows swapped."""
    assert architecture_of("a100-sxm-80gb") == "Ampere, sm80"
    assert architecture_of("a10g") == "Ampere, sm86"
    assert architecture_of("h20") == "Hopper, sm90"
    assert architecture_of("my-npu") == "my-npu"  # none: the name itself


def test_a_batch_is_said_outside_a_fit_only_past_twice_its_ends():
    """fitted_batches_note: said where B > 2 x most or B < fewest / 2 (FITTED_BATCH_REACH = 2). Fitted on 4-16 sequences:
    32 and 2 are within reach, 33 and 1 are not. Kills the reach changed (2 -> 2.5) and `>` made `>=`."""
    engine = dataclasses.replace(IDEAL, name="e", fitted={"batches": [4, 16]})
    assert fitted_batches_note(engine, [2, 32]) == ""
    assert "batch 33 lies far outside them" in fitted_batches_note(engine, 33)
    assert "batch 1 lies far outside them" in fitted_batches_note(engine, 1)
    assert "4-16 sequences at once" in fitted_batches_note(engine, [1, 33])


def test_an_apple_profile_of_kind_cpu_is_said_a_cpu():
    """engine_on_a_cpu: the Apple-silicon note is for a device that is not a CPU; one of kind cpu takes the CPU note.
    Kills the kind check dropped from the Apple branch."""
    apple = load_hardware("apple-m4-max")
    vllm = load_engine("vllm")
    assert "is Apple silicon" in engine_on_a_cpu(vllm, apple)
    cpu = dataclasses.replace(apple, kind="cpu")
    note = engine_on_a_cpu(vllm, cpu)
    assert "is a CPU" in note and "Apple silicon" not in note


def test_a_costs_from_profile_takes_its_sources_graphs_setting(tmp_path):
    """graphs is a behaviour field: a costs_from profile takes the other's value unless it sets its own. Kills the
    default `base.graphs` replaced by True."""
    (tmp_path / "eagerbase.yaml").write_text("name: eagerbase\nsource: s\ngraphs: false\neager_launch: 15.6 us\n")
    (tmp_path / "kid.yaml").write_text("name: kid\nsource: s\ncosts_from: eagerbase.yaml\n")
    (tmp_path / "kid2.yaml").write_text("name: kid2\nsource: s\ncosts_from: eagerbase.yaml\ngraphs: true\n")
    assert load_engine(str(tmp_path / "kid.yaml")).graphs is False
    assert load_engine(str(tmp_path / "kid2.yaml")).graphs is True


def test_a_link_latency_equal_to_the_engines_is_not_said_the_larger():
    """dispatch_latency_note adds 'the larger' only where the scale-out link's latency exceeds the engine's. Kills `>`
    made `>=`."""
    engine = dataclasses.replace(IDEAL, name="e", moe_dispatch="allgather", dp_gather="allgather", allreduce_latency_s=20e-6)
    assert "the larger" not in dispatch_latency_note(engine, link_latency_s=20e-6)
    assert "the larger" in dispatch_latency_note(engine, link_latency_s=25e-6)
    assert "a lower estimate for the all-gather" in dispatch_latency_note(engine, link_latency_s=20e-6)


def test_a_known_miss_note_without_short_high_or_long_gets_no_reading_of_its_percentages():
    """known_miss_notes appends how to read 'x% short / high / long' only to notes with such figures (qa323). Kills
    the regex replaced by any '%'."""
    miss = [{"note": "measured 20% slower at batch 64 (source)"}]
    engine = dataclasses.replace(IDEAL, name="e", known_misses=tuple(miss))
    notes = known_miss_notes(engine, H100, LLAMA, "none", [64])
    assert notes == ["a known miss of engine e: measured 20% slower at batch 64 (source)"]
    short = dataclasses.replace(engine, known_misses=({"note": "39% short at batch 64"},))
    assert "39% short 1.64x" in known_miss_notes(short, H100, LLAMA, "none", [64])[0]


def test_a_known_miss_with_layouts_matches_where_no_layout_is_given():
    """known_misses_at: `layout` None is any layout. Kills `layout is not None and` dropped."""
    engine = dataclasses.replace(IDEAL, name="e", known_misses=({"layouts": ["tp 8"], "note": "n"},))
    assert known_misses_at(engine, H100, LLAMA, "none", [1]) == [engine.known_misses[0]]
    assert known_misses_at(engine, H100, LLAMA, "none", [1], layout="tp 8") == [engine.known_misses[0]]
    assert known_misses_at(engine, H100, LLAMA, "none", [1], layout="tp 4") == []


def test_a_value_fifteen_times_a_fits_bound_is_warned():
    """_warn_beyond_fit_bounds: over ten times the bound (kernel_latency's 20 us: 300 us is 15x). Kills 10 -> 20."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        engine_from_dict({"name": "x", "source": "s", "kernel_latency": "300 us", "kernels_per_layer": {"mlp": 2}}, "e.yaml")
    said = [str(w.message) for w in caught if issubclass(w.category, RooflineWarning) and "over ten times" in str(w.message)]
    assert said == ["e.yaml: kernel_latency: 300 us is over ten times the largest value a fit takes (20 us): a unit slip?"]


def test_a_renamed_copy_of_vllm_still_shares_vllm_v0s_costs():
    """cost_sharers: a copy renamed (name, display_name) prices as its source (qa446); one with a cost changed shares
    nothing (qa440). (Pins behaviour; dropping display_name from _changed_since_read's names is an equivalent mutant:
    profiles.differing_fields already leaves prose fields out.)"""
    vllm = load_engine("vllm")
    named = [(e.name, how) for e, how in cost_sharers(dataclasses.replace(vllm, display_name="my vLLM"))]
    assert named == [(e.name, how) for e, how in cost_sharers(vllm)] and any(n == "vllm-v0" for n, _ in named)
    assert cost_sharers(dataclasses.replace(vllm, host_per_sequence_s=3 * vllm.host_per_sequence_s)) == []


def test_one_undetermined_parameter_is_a_prior_not_priors():
    """undetermined_text: 'a prior, not a measurement' for one, 'priors, not measurements' for several. Kills the
    singular dropped."""
    engine = dataclasses.replace(IDEAL, name="e", host_per_step_s=1.5e-3, spec_per_draft_step_s=25e-6)
    one = undetermined_text(engine, ["host_per_step"], "w")
    assert "a prior, not a measurement, and w" in one and "priors" not in one
    assert "priors, not measurements, and w" in undetermined_text(engine, ["host_per_step", "spec_per_draft_step"], "w")


def test_an_eager_engine_made_for_one_device_stays_eager_on_another():
    """for_other_hardware keeps `graphs` (qa328: how the deployment runs, not a device's cost). Kills the replace
    dropped."""
    eager = dataclasses.replace(load_engine("vllm").for_hardware(H100), graphs=False)
    assert eager.for_other_hardware(MI300X).graphs is False
    assert load_engine("vllm").for_hardware(H100).for_other_hardware(MI300X).graphs is True


def test_the_amd_hint_is_said_on_amd_devices_only():
    """engine_on_a_cpu: '(vllm and sglang run on AMD GPUs)' where an NVIDIA-only engine meets an AMD device, not a CPU.
    Kills the `if _amd(hw)` dropped."""
    trtllm = load_engine("trtllm")
    assert engine_on_a_cpu(trtllm, MI300X).endswith("(vllm and sglang run on AMD GPUs)")
    cpu_note = engine_on_a_cpu(trtllm, load_hardware("epyc-9654"))
    assert cpu_note and "AMD GPUs" not in cpu_note


def test_a_family_value_the_fit_did_not_write_is_no_fits_value():
    """fitted_source: an override for the device's family counts as the fit's ('kernel_latency [AMD Instinct]') only
    where fitted.per_family lists it written; an entry ending 'not determined, not written' means the override there was
    set by hand (None). Kills the 'not written' filter dropped."""
    def engine(entry):
        return dataclasses.replace(IDEAL, name="e", kernel_latency_s=2e-6, overrides=(("mi*", {"kernel_latency_s": 4e-6}),),
                                   fitted={"parameters": ["kernel_latency"], "per_family": [entry]})
    written = "kernel_latency on AMD Instinct (mi*; 12 rows)"
    assert engine(written).fitted_source("kernel_latency", "mi300x") == "kernel_latency [AMD Instinct]"
    assert engine(written + ": not determined, not written").fitted_source("kernel_latency", "mi300x") is None
    assert engine(written).fitted_source("kernel_latency", "h100-sxm") == "kernel_latency"  # no override there


def test_an_engine_without_attention_dp_refuses_two_groups_too():
    """engine_layout_note: attention DP of any degree above 1 under an engine with none (attention_dp false: vLLM V0).
    Kills `dp_attention > 1` -> `> 2`."""
    from roofline.serving import engine_layout_note

    moe = load_model("qwen3-30b-a3b")
    note = engine_layout_note(load_engine("vllm-v0"), moe, deployment(moe, dp_attention=2))
    assert note.startswith("dp_attention 2 under vllm-v0: it has no attention data parallelism (attention_dp false)")
    assert engine_layout_note(load_engine("vllm-v0"), moe, deployment(moe)) == ""


def test_sglangs_stage_split_layout_is_said_of_a_dense_model_only():
    """stage_split_dense_note: SGLang runs attention DP for DeepSeek-style MoE models only, so the note is for a dense
    model; an MoE model under the same layout gets none. Kills `or model.moe is not None` dropped."""
    from roofline.serving import stage_split_dense_note

    sglang = load_engine("sglang")
    moe = load_model("qwen3-30b-a3b")
    assert stage_split_dense_note(sglang, moe, deployment(moe, dp_attention=8)) == ""
    assert "so a dense model's figures here describe no SGLang setup" in stage_split_dense_note(
        sglang, LLAMA, deployment(LLAMA, dp_attention=8))


def test_a_device_count_given_twice_in_shares_by_devices_is_refused():
    """_fraction_by_devices: a count given twice ('2' and 2, one key to the count) is one line, not the later value
    silently taken. Kills the duplicate check dropped."""
    data = {"name": "x", "source": "s", "memory_fraction": 0.9, "memory_fraction_by_devices": {"2": 0.87, 2: 0.8}}
    with pytest.raises(RooflineError, match=r"e\.yaml: memory_fraction_by_devices: expected a mapping of device counts"):
        engine_from_dict(data, "e.yaml")


def test_a_zero_memory_size_needs_a_byte_unit():
    """_yaml_bytes: '0' in any byte unit is 0, but '0 parsecs' is no memory size. Kills the unit check dropped."""
    assert engine_from_dict({"name": "x", "source": "s", "memory_reserved": "0 GiB"}, "e.yaml").memory_reserved_bytes == 0
    with pytest.raises(RooflineError, match=r"e\.yaml: memory_reserved: expected a memory size of 0 or more with a byte unit"):
        engine_from_dict({"name": "x", "source": "s", "memory_reserved": "0 parsecs"}, "e.yaml")


def test_a_fitted_on_entry_must_name_devices_models_and_methods():
    """check_fitted: each fitted.fitted_on entry maps exactly devices, models and methods to lists. Kills the key-set
    check dropped (an entry without methods then passed, and fitted_elsewhere_note read none)."""
    entry = {"devices": ["h100-sxm"], "models": ["dense GQA"], "methods": ["none"]}
    good = {"name": "x", "source": "s", "fitted": {"parameters": ["kernel_latency"], "fitted_on": {"kernel_latency": entry}}}
    assert engine_from_dict(good, "e.yaml").fitted["fitted_on"]["kernel_latency"] == entry
    for bad in ({k: v for k, v in entry.items() if k != "methods"}, {**entry, "batches": ["1"]}):
        data = {**good, "fitted": {**good["fitted"], "fitted_on": {"kernel_latency": bad}}}
        with pytest.raises(RooflineError, match=r"fitted\.fitted_on\.kernel_latency: expected a mapping of devices, models, methods"):
            engine_from_dict(data, "e.yaml")


def test_every_override_matching_a_device_applies_each_its_own_fields():
    """for_hardware applies the overrides in order on top of each other: 'mi*' and 'mi300*' both match mi300x, each
    setting a field of its own, so the device gets both (and a later one's value where both set a field). Kills each
    override applied to the profile alone (the last match's fields only)."""
    engine = dataclasses.replace(IDEAL, name="e", kernel_latency_s=1e-6, host_per_step_s=1e-4,
                                 overrides=(("mi*", {"kernel_latency_s": 2e-6}), ("mi300*", {"host_per_step_s": 3e-4})))
    on = engine.for_hardware(MI300X)
    assert (on.kernel_latency_s, on.host_per_step_s) == (2e-6, 3e-4)
    on355 = engine.for_hardware("mi355x")  # 'mi*' alone
    assert (on355.kernel_latency_s, on355.host_per_step_s) == (2e-6, 1e-4)


def test_an_engine_made_for_two_devices_in_turn_keeps_the_profile_as_its_general():
    """for_hardware keeps the engine it started from as `general` (the profile's own values), also when made again
    from an engine already made for a device, so a drafter on another device (for_other_hardware) takes that device's
    values, not the first device's: vllm made for mi300x, then for h100-sxm, prices an H100 drafter at vllm's own
    kernel_latency, not mi300x's override. Kills `general=self.general or self` -> `general=self`."""
    vllm = load_engine("vllm")
    twice = vllm.for_hardware(MI300X).for_hardware(H100)
    assert vllm.for_hardware(MI300X).kernel_latency_s != vllm.kernel_latency_s  # the AMD override differs
    assert twice.general is vllm
    assert twice.for_other_hardware(H100).kernel_latency_s == vllm.kernel_latency_s


def test_optimistic_and_host_carries_gain_read_the_ideal_engine_by_name_whether_given_a_name_or_a_profile():
    """qa457: str() of a profile is its dataclass repr, never 'ideal', so the ideal profile passed as an object read as
    a serving engine's optimistic range."""
    from roofline.serving import host_carries_gain, optimistic

    assert optimistic(64, IDEAL) is False and optimistic(64, "ideal") is False
    assert optimistic(64, load_engine("vllm")) is True and optimistic(64, "vllm") is True and optimistic(8, "vllm") is False
    assert host_carries_gain(dataclasses.replace(IDEAL, host_overlap=False)) is False
