"""Eager passes (an engine's `graphs: false`, vLLM's --enforce-eager): a pass no faster than its host's kernel launches,
K x eager_launch (engine.launch_floor_s), hand-counted here; the profile field, the measurements column and predict."""

import warnings
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from roofline.api import predict
from roofline.engine import step_metrics
from roofline.errors import RooflineError, RooflineWarning
from roofline.hardware import load_hardware
from roofline.measurements import COLUMNS, load_measurements, predict_measurements
from roofline.model import load_model
from roofline.serving import load_engine

LAUNCH_S = 15.6e-6
# vllm's kernels a layer of a dense GQA model in bf16 (engine_profiles/vllm.yaml): qkv_proj 2, attention 1, kv_write 1,
# o_proj 1, mlp 3, norms 2; the head: embedding 1, lm_head 2
LAYER_KERNELS, HEAD_KERNELS = 2 + 1 + 1 + 1 + 3 + 2, 1 + 2


def _eager(engine):
    return replace(engine, graphs=False, eager_launch_s=LAUNCH_S)


@pytest.mark.parametrize(("tp", "collectives_a_layer"), [(1, 0), (2, 2)])
def test_the_launch_floor_is_the_hand_counted_kernels_times_the_launch(tp, collectives_a_layer):
    from roofline.layout import deployment

    hw, model = load_hardware("h100-sxm"), load_model("llama-3.1-8b")
    dep = deployment(model, tp=tp)
    engine = load_engine("vllm").for_hardware(hw)
    graphs = step_metrics(hw, model, [1, 256], 1, 1024, dep, engine=engine)
    eager = step_metrics(hw, model, [1, 256], 1, 1024, dep, engine=_eager(engine))
    kernels = model.layers * (LAYER_KERNELS + collectives_a_layer) + HEAD_KERNELS
    assert eager["launch_time_s"] == pytest.approx([kernels * LAUNCH_S] * 2)
    assert not graphs["launch_time_s"].any() and not graphs["launch_bound"].any()
    # the pass (the step less the device's fixed step_overhead and vllm's host work, which it adds) is the longer of its
    # device time and its launches: step = max(pass, launches) + step_overhead + host
    pass_s = graphs["step_time_s"] - graphs["host_time_s"] - hw.step_overhead_s
    assert eager["step_time_s"] == pytest.approx(np.maximum(pass_s, kernels * LAUNCH_S) + hw.step_overhead_s
                                                 + graphs["host_time_s"])
    assert list(eager["launch_bound"]) == list(kernels * LAUNCH_S > pass_s)


def test_a_launch_bound_step_is_the_launches_and_a_device_bound_one_is_unchanged():
    hw, model = load_hardware("mi300x"), load_model("llama-3.1-405b")
    from roofline.layout import deployment

    dep = deployment(model, tp=8, weight_dtype="fp8")
    engine = load_engine("vllm").for_hardware(hw)
    batches = np.array([1, 4, 64, 512])
    graphs = step_metrics(hw, model, batches, 1, 2048, dep, engine=engine)
    eager = step_metrics(hw, model, batches, 1, 2048, dep, engine=_eager(engine))
    assert (eager["step_time_s"] >= graphs["step_time_s"] * (1 - 1e-12)).all()  # never faster than in graphs
    assert eager["launch_bound"][0] and eager["step_time_s"][0] > 1.2 * graphs["step_time_s"][0]  # 126 layers, batch 1
    assert not eager["launch_bound"][-1] and eager["step_time_s"][-1] == pytest.approx(graphs["step_time_s"][-1])


def test_graphs_true_ignores_the_launch_cost():
    hw, model = load_hardware("h100-sxm"), load_model("llama-3.1-8b")
    engine = load_engine("vllm")
    graphs = step_metrics(hw, model, 1, 1, 512, engine=replace(engine, eager_launch_s=1e-3))
    assert graphs["step_time_s"] == pytest.approx(step_metrics(hw, model, 1, 1, 512, engine=engine)["step_time_s"])


def test_profiles_say_graphs_as_their_own_and_take_the_launch_cost_from_costs_from(tmp_path):
    (tmp_path / "eager.yaml").write_text("type: engine\nname: eager\nsource: a test\ncosts_from: vllm\ngraphs: false\n")
    eager = load_engine("eager", (tmp_path,))
    vllm = load_engine("vllm")
    assert not eager.graphs and vllm.graphs and eager.eager_launch_s == vllm.eager_launch_s == pytest.approx(LAUNCH_S)
    (tmp_path / "unpriced.yaml").write_text("type: engine\nname: unpriced\nsource: a test\ncosts_from: trtllm\ngraphs: false\n")
    with pytest.warns(RooflineWarning, match="graphs: false with no eager_launch"):
        load_engine("unpriced", (tmp_path,))
    (tmp_path / "bad.yaml").write_text("type: engine\nname: bad\nsource: a test\ngraphs: 'no'\n")
    with pytest.raises(RooflineError, match=r"bad.yaml: line 4: graphs: expected true or false, found 'no'"):
        load_engine("bad", (tmp_path,))


def _rows(tmp_path, graphs_cells, name="m.csv", **changes):
    base = {"source_id": "t", "source": "here", "engine": "vllm", "engine_version": "0.6.4", "hardware": "mi300x",
            "gpus": "8", "tp": "8", "ep": "1", "dp_attention": "1", "model": "llama-3.1-405b", "weight_dtype": "fp8",
            "kv_dtype": "bf16", "batch": "4", "concurrency": "", "input_len": "128", "output_len": "2048", "method": "none",
            "k": "0", "acceptance_length": "", "draft_tokens": "", "quantity": "tokens_per_s", "value": "120",
            "split": "heldout", "notes": ""}
    path = tmp_path / name
    pd.DataFrame([{**base, **changes, "graphs": g} for g in graphs_cells], columns=[*COLUMNS, "graphs"]).to_csv(path, index=False)
    return path


@pytest.mark.slow
def test_a_measured_row_that_ran_eagerly_is_predicted_with_its_engine_without_graphs(tmp_path):
    with pytest.warns(RooflineWarning, match="row 3 repeats row 2") as said:  # an eager row repeats no graphs row
        df = load_measurements(_rows(tmp_path, ["", "false", " False "]))
    assert not any("repeats row 1" in str(w.message) for w in said)
    assert list(df["graphs"]) == [None, False, False]  # any case, spaces around; empty: the engine's own
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RooflineWarning)
        out = predict_measurements(df.iloc[:2])
    predicted = out["predicted"].to_numpy()
    assert predicted[1] < 0.9 * predicted[0]  # 405B at batch 4 on MI300X: launch-bound when eager


@pytest.mark.slow
def test_a_graphs_cell_other_than_true_or_false_is_one_line(tmp_path):
    with pytest.raises(RooflineError, match=r"m.csv: row 2 \(line 3\): graphs: expected true, false, or empty \(the engine's own\), found 'eager'"):
        load_measurements(_rows(tmp_path, ["", "eager"]))


@pytest.mark.slow
def test_predict_says_a_launch_bound_step_and_its_launches(tmp_path, roofline):
    (tmp_path / "vllm-eager.yaml").write_text("type: engine\nname: vllm-eager\nsource: a test\ncosts_from: vllm\ngraphs: false\n")
    point = predict("mi300x", "llama-3.1-405b", batch=4, tp=8, weight_dtype="fp8", engine=str(tmp_path / "vllm-eager.yaml"))
    assert point["graphs"] is False and point["launch_bound"]
    assert point["launch_kernels"] == pytest.approx(126 * (LAYER_KERNELS + 4 + 2) + HEAD_KERNELS)  # 4 fp8 quant kernels
    code, out, _ = roofline("predict", "--model", "llama-3.1-405b", "--hardware", "mi300x", "--tp", "8",
                            "--weight-dtype", "fp8", "--batch", "4", "--engine", tmp_path / "vllm-eager.yaml")
    assert code == 0
    assert "launch-bound: run eagerly, its 2,019 kernels launched by the host take 31.5 ms" in out
    assert "eager launches       31.5 ms   (2,019 kernels x 15.6 us" in out
    # qa395: the 15.6 us is an H100 host's CUDA launches, applied to an MI300X: said there, not on an H100
    assert "vllm-eager's eager_launch, an H100 host's CUDA launches (its source): HIP's are not measured here:" in out
    code, out, _ = roofline("predict", "--model", "llama-3.1-8b", "--hardware", "h100-sxm", "--engine",
                            tmp_path / "vllm-eager.yaml")
    assert code == 0 and "vllm-eager's eager_launch: " in out and "HIP" not in out
    from roofline.serving import load_engine

    own = Path(load_engine("vllm").path).read_text().replace("eager_launch: 15.6 us", "eager_launch: 20 us")
    assert "eager_launch: 20 us" in own  # a figure of one's own: not called the H100's (qa401)
    (tmp_path / "amd-eager.yaml").write_text(own.replace("name: vllm\n", "name: amd-eager\n", 1) + "graphs: false\n")
    code, out, err = roofline("predict", "--model", "llama-3.1-405b", "--hardware", "mi300x", "--tp", "8", "--weight-dtype",
                              "fp8", "--batch", "4", "--engine", tmp_path / "amd-eager.yaml")
    assert code == 0 and "x 20 us, amd-eager's eager_launch: " in out and "HIP" not in out, err


@pytest.mark.slow
def test_convert_eager_writes_graphs_false_and_append_wants_the_column(tmp_path, roofline):
    import json

    result = {"backend": "vllm", "max_concurrency": 8, "completed": 80, "total_input_tokens": 40960,
              "total_output_tokens": 20480, "duration": 30.0, "output_throughput": 682.7, "mean_tpot_ms": 11.5}
    path = tmp_path / "eager.json"
    path.write_text(json.dumps(result))
    common = ("--hardware", "h100-sxm", "--model", "llama-3.1-8b", "--engine-version", "0.10.1")
    code, _, err = roofline("measurements", "convert", path, *common, "--out", tmp_path / "eager.csv", "--eager")
    assert code == 0, err
    rows = load_measurements(tmp_path / "eager.csv")
    assert list(rows["graphs"]) == [False, False]
    code, _, err = roofline("measurements", "convert", path, *common, "--out", tmp_path / "graphs.csv")
    assert code == 0 and "graphs" not in (tmp_path / "graphs.csv").read_text().splitlines()[0]  # no column it leaves empty
    other = tmp_path / "other.json"
    other.write_text(json.dumps({**result, "mean_tpot_ms": 12.5, "output_throughput": 640.0}))
    before = (tmp_path / "graphs.csv").read_bytes()
    code, _, err = roofline("measurements", "convert", other, *common, "--out", tmp_path / "graphs.csv", "--eager", "--append")
    assert code == 2 and "expected a column 'graphs', which these rows fill (graphs false)" in err
    assert (tmp_path / "graphs.csv").read_bytes() == before


@pytest.mark.slow
def test_a_row_says_graphs_or_eager_whatever_the_engine_and_an_unpriced_eager_row_is_warned(tmp_path):
    (tmp_path / "vllm-eager.yaml").write_text("type: engine\nname: vllm-eager\nsource: a test\ncosts_from: vllm\ngraphs: false\n")
    df = load_measurements(_rows(tmp_path, ["", "true"]))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RooflineWarning)
        eager = predict_measurements(df, engine=str(tmp_path / "vllm-eager.yaml"))["predicted"].to_numpy()
        graphs = predict_measurements(df, engine="vllm")["predicted"].to_numpy()
    assert eager[0] < 0.9 * graphs[0]  # empty: the engine's own, eager here
    assert eager[1] == pytest.approx(graphs[1])  # true: the run's graphs, whatever the engine says
    trt = load_measurements(_rows(tmp_path, ["false"], "trt.csv", engine="trtllm", engine_version="0.9", hardware="h100-sxm"))
    with pytest.warns(RooflineWarning, match="engine trtllm: rows with graphs false are priced as in graphs"):
        predict_measurements(trt)


def test_launch_bound_is_said_of_the_term_that_sets_the_step_under_pp():
    """qa324: at pp 4 the paced device pass set the step while the round trip's launches were floored, and the step
    was said launch-bound at the very time graphs gave."""
    from roofline.layout import deployment

    hw, model = load_hardware("h100-sxm"), load_model("deepseek-v3")
    dep = deployment(model, tp=8, pp=4, weight_dtype="fp8")
    engine = load_engine("vllm").for_hardware(hw)
    batches = np.arange(100, 131)
    graphs = step_metrics(hw, model, batches, 1, 1024, dep, engine=engine)
    eager = step_metrics(hw, model, batches, 1, 1024, dep, engine=_eager(engine))
    same = np.isclose(eager["step_time_s"], graphs["step_time_s"], rtol=1e-12)
    assert same.any() and not eager["launch_bound"][same].any()
    assert (eager["launch_kernels"] == graphs["launch_kernels"]).all() and not graphs["launch_time_s"].any()


def test_an_overlapping_engine_does_its_host_work_and_the_launches_on_one_thread():
    hw, model = load_hardware("h100-sxm"), load_model("llama-3.1-8b")
    engine = load_engine("sglang").for_hardware(hw)
    assert engine.host_overlap and engine.host_per_step_s > 0
    graphs = step_metrics(hw, model, 1, 1, 1024, engine=engine)
    eager = step_metrics(hw, model, 1, 1, 1024, engine=_eager(engine))
    # sglang's counts (engine_profiles/sglang.yaml): 13 a dense GQA layer, 3 in the head
    assert eager["launch_kernels"] == pytest.approx(32 * 13 + 3)
    assert float(eager["step_time_s"]) == pytest.approx(max(float(graphs["step_time_s"]),
                                                            float(graphs["host_time_s"]) + 419 * LAUNCH_S))
    assert bool(eager["launch_bound"])


@pytest.mark.slow
def test_a_launch_bound_verify_pass_is_said_so():
    from roofline.speculation import predict_speculation

    hw, model = load_hardware("mi300x"), load_model("llama-3.1-405b")
    from roofline.layout import deployment

    dep = deployment(model, tp=8, weight_dtype="fp8")
    kw = dict(method="eagle", dep=dep)
    eager = predict_speculation(hw, model, 4, 1024, 3, 0.7, engine=_eager(load_engine("vllm").for_hardware(hw)), **kw)
    graphs = predict_speculation(hw, model, 4, 1024, 3, 0.7, engine=load_engine("vllm").for_hardware(hw), **kw)
    assert eager["verify_bound"] == "launch" and graphs["verify_bound"] == "memory"


def test_an_eager_launch_in_milliseconds_is_said_as_a_unit_slip(tmp_path):
    (tmp_path / "slip.yaml").write_text("type: engine\nname: slip\nsource: a test\neager_launch: 15.6 ms\n")
    with pytest.warns(RooflineWarning, match=r"slip.yaml: eager_launch: 15.6 ms a kernel is over 1 ms .*a unit slip\?"):
        load_engine("slip", (tmp_path,))


@pytest.mark.slow
def test_an_eager_copy_says_so_in_its_name_and_an_unpriced_one_says_its_kernels(tmp_path, roofline, monkeypatch):
    monkeypatch.setenv("ROOFLINE_USER_DIR", str(tmp_path))
    code, _, err = roofline("engines", "new", "trt-eager", "--from", "trtllm", "--set", "graphs=false")
    assert code == 0, err
    assert "trt-eager (copy of TensorRT-LLM (C++ runtime, CUDA graphs), run eagerly: graphs false)" in (
        tmp_path / "trt-eager.yaml").read_text()
    code, out, err = roofline("predict", "--hardware", "h100-sxm", "--model", "llama-3.1-70b", "--tp", "4", "--batch", "8",
                              "--engine", "trt-eager")
    assert code == 0 and "graphs: false with no eager_launch" in err
    assert "eager launches       0 s   (963 kernels x 0 s, trt-eager's eager_launch: 0 s, so priced as in graphs)" in out
    # qa340: `engines set` of graphs left the copy's name saying eager; it follows, both ways
    code, _, err = roofline("engines", "set", "trt-eager", "graphs=true")
    assert code == 0, err
    assert "display_name: 'trt-eager (copy of TensorRT-LLM (C++ runtime, CUDA graphs))'" in (tmp_path / "trt-eager.yaml").read_text()
    code, _, err = roofline("engines", "set", "trt-eager", "graphs=false")
    assert code == 0 and "run eagerly: graphs false)" in (tmp_path / "trt-eager.yaml").read_text(), err
    code, _, err = roofline("engines", "set", "trt-eager", "display_name=Team TRT (copy of TRT, graphs on)")  # the user's
    code, _, err = roofline("engines", "set", "trt-eager", "graphs=true")  # own name stays theirs (qa341)
    assert code == 0 and "display_name: 'Team TRT (copy of TRT, graphs on)'\n" in (tmp_path / "trt-eager.yaml").read_text(), err


@pytest.mark.parametrize(("model", "tp", "pp"), [("llama-3.1-8b", 2, 3), ("llama-3.1-70b", 4, 2)])
def test_an_eager_step_longer_than_in_graphs_is_said_launch_bound_and_no_other(model, tp, pp):
    """qa326: under pp the round trip with its micro-batch's own host work set the step, its launches floored, while the
    paced term's unfloored launches were reported: a step the launches lengthened was said 'hidden behind it'."""
    from roofline.layout import deployment

    hw, spec = load_hardware("h200"), load_model(model)
    dep = deployment(spec, tp=tp, pp=pp)
    engine = load_engine("vllm").for_hardware(hw)
    batches = np.arange(1, 257)
    graphs = step_metrics(hw, spec, batches, 1, 1024, dep, engine=engine)
    eager = step_metrics(hw, spec, batches, 1, 1024, dep, engine=_eager(engine))
    longer = eager["step_time_s"] > graphs["step_time_s"] * (1 + 1e-9)
    assert longer.any() and list(eager["launch_bound"]) == list(longer)


def test_an_eager_step_the_host_and_its_launches_set_says_the_host_priors_it_leans_on(tmp_path):
    (tmp_path / "sglang-eager.yaml").write_text("type: engine\nname: sglang-eager\nsource: a test\ncosts_from: sglang\n"
                                                "graphs: false\n")
    point = predict("h200", "validation-small", batch=1, engine=str(tmp_path / "sglang-eager.yaml"))
    assert point["launch_bound"] and point["step_time_s"] == pytest.approx(point["host_time_s"] + point["launch_time_s"])
    assert any("host_per_step" in w and "priors" in w for w in point["warnings"])


@pytest.mark.slow
def test_eager_draft_passes_set_by_their_launches_are_said_so(tmp_path, roofline):
    (tmp_path / "vllm-eager.yaml").write_text("type: engine\nname: vllm-eager\nsource: a test\ncosts_from: vllm\ngraphs: false\n")
    code, out, err = roofline("predict", "--model", "llama-3.1-70b", "--tp", "4", "--batch", "1", "--method", "draft",
                              "--draft", "llama-3.2-1b", "--alpha", "0.7", "--k", "3", "--draft-hardware", "h200",
                              "--engine", tmp_path / "vllm-eager.yaml", "--json")
    assert code == 0, err
    import json

    spec = json.loads(out)["spec"]
    assert spec["draft_launch_bound"] is True and spec["verify_bound"] == "memory"


@pytest.mark.slow
def test_ideal_beside_an_eager_row_is_not_warned_for_its_missing_launch_cost(tmp_path):
    from roofline.serving import IDEAL

    df = load_measurements(_rows(tmp_path, ["false"]))
    with warnings.catch_warnings():
        warnings.simplefilter("error", RooflineWarning)
        predict_measurements(df, engine=IDEAL)


@pytest.mark.parametrize(("tp", "dp", "ep"), [(2, 4, 8), (1, 8, 8), (8, 1, 1)])
def test_the_launched_collectives_are_the_collectives_priced(tp, dp, ep):
    """qa328: the eager floor counted two collectives a layer at tp > 1 while the expert dispatch's all-gather and
    reduce-scatter were priced besides: each collective the step prices is one kernel its host launches."""
    from roofline.engine import collective_times_s
    from roofline.layout import deployment

    hw, model = load_hardware("h200"), load_model("deepseek-v3")
    engine = replace(load_engine("vllm").for_hardware(hw), allreduce_latency_s=1.0, all_to_all_latency_s=1.0)
    dep = deployment(model, tp=tp, dp_attention=dp, ep=ep, weight_dtype="fp8")
    kernels: dict = {}
    times = collective_times_s(hw, model, dep, engine, 8, 1, kernels=kernels)
    assert sum(kernels.values()) > 0
    assert sum(kernels.values()) == round(float(sum(np.sum(t) for t in times.values())))  # 1 s a collective, bytes aside


def test_the_launches_said_are_those_of_the_term_that_sets_the_step():
    """qa326, qa328: at pp 3 the round trip with its micro-batch's own host work sets the step at batch 72; its kernels
    are 3 stages x (32 / 3 layers x (10 + 2 all-reduces)) + 3 of the head = 387 (the paced passes': 405)."""
    from roofline.layout import deployment

    hw, model = load_hardware("h200"), load_model("llama-3.1-8b")
    m = step_metrics(hw, model, 72, 1, 1024, deployment(model, tp=2, pp=3), engine=_eager(load_engine("vllm").for_hardware(hw)))
    assert float(m["launch_kernels"]) == pytest.approx(387) and float(m["launch_time_s"]) == pytest.approx(387 * LAUNCH_S)
    assert bool(m["launch_bound"])


def test_a_verify_pass_run_without_host_overlap_is_judged_as_it_runs():
    """sglang gives its host overlap up while it speculates: the verify pass adds its host work, so its launches (6.5 ms)
    under its device's 7.1 ms do not set it, though host work and launches together (8.0 ms) would set an overlapped one."""
    from roofline.speculation import predict_speculation

    hw, model = load_hardware("h100-sxm"), load_model("llama-3.1-8b")
    engine = _eager(load_engine("sglang").for_hardware(hw))
    assert engine.host_overlap and not engine.host_overlap_speculating
    spec = predict_speculation(hw, model, 1, 1024, 3, 0.7, method="eagle", engine=engine)
    assert spec["verify_bound"] == "memory"
    plain = predict_speculation(hw, model, 1, 1024, 0, 0.7, method="eagle", engine=engine)
    assert plain["draft_launch_bound"] is False  # k 0: no draft pass


def test_an_override_eager_launch_in_milliseconds_is_said_as_a_slip_and_an_override_prices_it(tmp_path):
    (tmp_path / "o.yaml").write_text("type: engine\nname: o\nsource: a test\ngraphs: false\n"
                                     "overrides:\n  - {hardware: 'h200', eager_launch: 20 ms}\n")
    with pytest.warns(RooflineWarning) as said:
        load_engine("o", (tmp_path,))
    text = " | ".join(str(w.message) for w in said)
    assert "overrides (h200): eager_launch: 20 ms a kernel is over 1 ms" in text
    assert "priced as graphs are, but on hardware matching h200, whose override gives one (set" in text


@pytest.mark.slow
def test_the_eager_sentences_say_what_sets_the_step(tmp_path, roofline):
    for name, base in (("vllm-eager", "vllm"), ("sglang-eager", "sglang")):
        (tmp_path / f"{name}.yaml").write_text(f"type: engine\nname: {name}\nsource: a test\ncosts_from: {base}\n"
                                               "graphs: false\n")

    def predict_out(*args):
        code, out, err = roofline("predict", *args)
        assert code == 0, err
        return out

    # sglang at batch 1: launches 6.54 ms under the device's 7.07, with the host's 1.51 ms on the same thread 8.05 ms
    out = predict_out("--model", "llama-3.1-8b", "--engine", tmp_path / "sglang-eager.yaml")
    assert "its 419 kernels launched by the host take 6.54 ms, 8.05 ms with the host's other work on the same thread" in out
    assert "overlapped with the device, but on the thread that launches the eager kernels" in out
    assert "with the host work above, longer than its work: they set the step)" in out
    # vllm at 70B tp 8, batch 96: launches hidden at 1x, the floor at twice the bandwidth, host work added beside it
    out = predict_out("--model", "llama-3.1-70b", "--tp", "8", "--batch", "96", "--engine", tmp_path / "vllm-eager.yaml")
    assert "shorter than its work: hidden behind it)" in out
    assert "host work 5.83 ms, the host's eager launches (15 ms, their floor) set the rest" in out
    # a host-bound step under pp: the launches hidden behind the host's work, not the device's
    out = predict_out("--hardware", "h200", "--model", "llama-3.2-1b", "--pp", "4", "--batch", "64", "--context", "128",
                      "--engine", tmp_path / "sglang-eager.yaml")
    assert "hidden behind the host's work, which sets the step)" in out
    out = predict_out("--model", "llama-3.1-70b", "--tp", "4", "--batch", "1", "--method", "draft", "--draft",
                      "llama-3.2-1b", "--alpha", "0.7", "--k", "3", "--draft-hardware", "h200",
                      "--engine", tmp_path / "vllm-eager.yaml")
    assert "(its eager passes launch-bound)" in out
    code, shown, _ = roofline("engines", "show", tmp_path / "vllm-eager.yaml")
    assert code == 0 and "decode passes             run eagerly (graphs: false): the host launches each kernel, 15.6 us" in shown


def test_a_launch_under_half_a_microsecond_is_said_and_an_eager_column_is_pointed_to_graphs(tmp_path):
    (tmp_path / "tiny.yaml").write_text("type: engine\nname: tiny\nsource: a test\neager_launch: 1e-9 s\n")
    with pytest.warns(RooflineWarning, match=r"eager_launch: 1 ns a kernel is under 500 ns .*a unit slip\?"):
        load_engine("tiny", (tmp_path,))
    path = _rows(tmp_path, ["false"])
    path.write_text(path.read_text().replace(",graphs\n", ",eager\n", 1))
    with pytest.raises(RooflineError, match=r"found 'eager' \(the tool reads graphs, its opposite: graphs false where the run"):
        load_measurements(path)


@pytest.mark.slow
def test_fit_says_its_rows_ran_eagerly_and_cheapest_says_a_draft_it_could_not_check(tmp_path, roofline):
    import shutil

    from roofline.measurements import default_measurements_path

    mine = tmp_path / "mine.csv"  # dstack's 405B rows, as fit rows: 7 on MI300X ran eagerly
    rows = pd.read_csv(default_measurements_path(), dtype=str, keep_default_na=False)
    rows[rows["source_id"] == "dstack-llama405b-h100-mi300x"].assign(split="fit").to_csv(mine, index=False)
    code, out, err = roofline("fit", mine, "--engine", "vllm-v0", "--fix", "allreduce_latency")
    assert code == 0, err
    assert "7 of 14 rows ran eagerly (graphs false): each pass no faster than its kernels x eager_launch (15.6 us" in out
    (tmp_path / "m.yaml").write_text("name: m\nhardware: h100-sxm\nmodel: llama-3.1-8b\nmethod: draft\ndraft: qwen3-0.6b\n"
                                     "axes: {batch: [1, 16], context: [1024], k: [2], alpha: [0.7]}\n")
    assert roofline("sweep", tmp_path / "m.yaml", "--out", tmp_path / "sw", "--no-plots")[0] == 0
    (tmp_path / "away").mkdir()
    shutil.copy(tmp_path / "sw" / "results.csv", tmp_path / "away" / "results.csv")
    code, out, _ = roofline("cheapest", tmp_path / "away" / "results.csv", "--min-tokens-per-user", "100")
    assert code == 0 and "the draft-model rows' draft is not named (no scenario.json beside the table)" in out


def test_an_engine_built_in_code_is_checked_and_warned_as_a_profile_is():
    """qa330: graphs='no' ran as graphs and None as eager; eager_launch_s 15.6e-3 priced a 5 s step, both unsaid."""
    from roofline.serving import check_engine_spec

    vllm = load_engine("vllm")
    with pytest.raises(RooflineError, match=r"engine spec 'mine': graphs: expected true or false, found 'no'"):
        check_engine_spec(replace(vllm, name="mine", graphs="no"))
    with pytest.warns(RooflineWarning, match=r"eager_launch: 15.6 ms a kernel is over 1 ms"):
        check_engine_spec(replace(vllm, name="mine", graphs=False, eager_launch_s=15.6e-3))


def test_a_prefill_pass_is_not_floored_in_either_mode():
    """qa330: an eager engine's 16-token prefill paid its launches while the same prefill in graphs (run eagerly there
    too) did not: neither does."""
    hw, model = load_hardware("b200"), load_model("llama-3.1-8b")
    engine = load_engine("vllm").for_hardware(hw)
    graphs = step_metrics(hw, model, 1, 16, 0, engine=engine, logit_tokens=1, prefill=True)
    eager = step_metrics(hw, model, 1, 16, 0, engine=_eager(engine), logit_tokens=1, prefill=True)
    assert float(eager["step_time_s"]) == pytest.approx(float(graphs["step_time_s"])) and not eager["launch_time_s"].any()
    decode = step_metrics(hw, model, 1, 1, 16, engine=_eager(engine))
    assert bool(decode["launch_bound"])  # the decode pass beside it is floored


@pytest.mark.slow
def test_a_sweep_says_which_points_its_launches_set_as_predict_does(tmp_path):
    from roofline.grid import load_configs, run_sweep
    from roofline.scenario import scenario_from_dict

    (tmp_path / "vllm-eager.yaml").write_text("type: engine\nname: vllm-eager\nsource: a test\ncosts_from: vllm\ngraphs: false\n")
    sc = scenario_from_dict({"name": "t", "hardware": "mi300x", "model": "llama-3.1-405b", "tp": 8, "weight_dtype": "fp8",
                             "method": "eagle", "engine": ["vllm", "vllm-eager"],
                             "axes": {"batch": [4, 32, 256], "context": [1024], "k": [0, 3], "alpha": [0.7]}}, "t.yaml")
    df = run_sweep(sc, load_configs(sc, (tmp_path,)))
    assert all(df[c].dtype == bool for c in ("launch_bound", "verify_launch_bound", "draft_launch_bound"))
    assert not df[df.engine == "vllm"][["launch_bound", "verify_launch_bound", "draft_launch_bound"]].to_numpy().any()
    for row in df[df.engine == "vllm-eager"].itertuples():
        point = predict("mi300x", "llama-3.1-405b", batch=int(row.batch), context=1024, tp=8, weight_dtype="fp8",
                        method="eagle", k=int(row.k), alpha=0.7, engine=str(tmp_path / "vllm-eager.yaml"))
        assert row.launch_bound == point["launch_bound"]
        verify_bound = point["spec"]["verify_bound"] if row.k else ("launch" if point["launch_bound"] else "")
        assert row.verify_launch_bound == (verify_bound == "launch")
        assert row.draft_launch_bound == bool(row.k and point["spec"]["draft_launch_bound"])
    eager = df[df.engine == "vllm-eager"].set_index(["batch", "k"])
    assert eager.loc[(4, 0), "launch_bound"] and not eager.loc[(256, 0), "launch_bound"]  # 31.5 ms of launches at batch 4
    assert eager.loc[(4, 3), "verify_launch_bound"]
    # qa335: at batch 32 the decode step is launch-bound and the verify pass of 4 x 32 tokens is not (the two swapped
    # passed at batches 4 and 256)
    assert eager.loc[(32, 3), "launch_bound"] and not eager.loc[(32, 3), "verify_launch_bound"]
    from roofline.frontier import _candidates

    drawn = _candidates(df[(df.engine == "vllm-eager") & (df.k == 3)])  # a plain point drawn from a speculative row:
    drawn_plain = drawn[(drawn["decoding"] == "plain") & (drawn["batch"] == 32)]  # no verify or draft pass of its own
    assert len(drawn_plain) == 1 and drawn_plain[["verify_launch_bound", "draft_launch_bound"]].isna().all(axis=None)
    assert bool(drawn_plain["launch_bound"].iloc[0])
