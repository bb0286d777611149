"""Measurements reading, checking and converting (measurements.py) the suite did not pin, found by mutation testing (qa491)."""

import json
import re

import pandas as pd
import pytest

from roofline.errors import RooflineError
from roofline.measurements import COLUMNS, convert_benchmark, load_measurements

pytestmark = pytest.mark.slow  # most load or convert a file: above 30 ms

BASE = {
    "source_id": "test", "source": "here", "engine": "vllm", "engine_version": "0.9", "hardware": "h100-sxm", "gpus": "1",
    "tp": "1", "ep": "1", "dp_attention": "1", "model": "llama-3.1-8b", "weight_dtype": "bf16", "kv_dtype": "bf16",
    "batch": "1", "input_len": "512", "output_len": "256", "method": "none", "k": "0", "acceptance_length": "",
    "quantity": "tokens_per_s_per_user", "value": "100", "split": "heldout", "notes": "",
}
RESULT = {"backend": "vllm", "max_concurrency": 32, "completed": 320, "duration": 60.0, "total_input_tokens": 327680,
          "total_output_tokens": 163840, "output_throughput": 2730.7, "mean_tpot_ms": 11.2}


def write_rows(tmp_path, rows, name="m.csv", columns=COLUMNS):
    path = tmp_path / name
    pd.DataFrame([{**BASE, **r} for r in rows], columns=list(columns)).to_csv(path, index=False)
    return path


def convert(tmp_path, result, name="run.json", **options):
    path = tmp_path / name
    path.write_text(json.dumps(result) + ("\n" if name.endswith(".jsonl") else ""))
    return convert_benchmark(path, hardware="h100-sxm", model=options.pop("model", "llama-3.1-8b"), **options)


def test_a_long_cell_is_quoted_to_80_characters(tmp_path):
    # repr of 200 x's is 202 characters: its first 77 ("'" and 76 x's) and "..." are shown (mutant: shown whole)
    path = write_rows(tmp_path, [{"weight_dtype": "x" * 200}])
    with pytest.raises(RooflineError) as err:
        load_measurements(path)
    assert str(err.value).endswith("found '" + "x" * 76 + "...")


def test_a_whole_number_written_with_a_point_is_read_and_a_fraction_is_refused(tmp_path):
    table = load_measurements(write_rows(tmp_path, [{"batch": "4.0"}], name="whole.csv"))
    assert table["batch"].iloc[0] == 4
    path = write_rows(tmp_path, [{"batch": "2.5"}], name="half.csv")
    with pytest.raises(RooflineError) as err:  # mutant: 2.5 read as batch 2
        load_measurements(path)
    assert str(err.value) == f"{path}: row 1 (line 2): batch: expected an integer in 1..100,000,000, found '2.5'"


def test_a_table_of_a_json_lines_file_without_the_columns_is_told_to_convert_it():
    from roofline.measurements import check_measurements

    raw = pd.DataFrame({"backend": ["sglang"], "completed": ["10"]})
    for where in ("run.json", "run.JSONL"):  # mutant: .jsonl not told
        with pytest.raises(RooflineError) as err:
            check_measurements(raw, where)
        assert str(err.value).endswith("; a serving benchmark's result file? convert it first: roofline measurements convert")
    with pytest.raises(RooflineError) as err:
        check_measurements(raw, "run.csv")
    assert str(err.value).endswith("found no hardware, gpus, tp, model, weight_dtype, kv_dtype, batch, input_len, "
                                   "output_len, method, k, quantity, value")


@pytest.mark.parametrize("column", ["eager", "enforce_eager", "Enforce_Eager"])
def test_an_eager_column_is_refused_naming_graphs_its_opposite(tmp_path, column):
    path = write_rows(tmp_path, [{column: "true"}], columns=[*COLUMNS, column])
    with pytest.raises(RooflineError) as err:  # mutant: enforce_eager warned as not read, the run priced in graphs
        load_measurements(path)
    assert str(err.value) == (f"{path}: header: expected a column the tool reads, found {column!r} (the tool reads graphs, "
                              "its opposite: graphs false where the run was eager, true or empty where not)")


def test_a_cuda_graphs_column_is_refused_as_graphs_misspelt(tmp_path):
    path = write_rows(tmp_path, [{"cuda_graphs": "false"}], columns=[*COLUMNS, "cuda_graphs"])
    with pytest.raises(RooflineError) as err:  # mutant: warned as not read, the eager run priced in graphs
        load_measurements(path)
    assert str(err.value) == (f"{path}: header: expected a column the tool reads, found 'cuda_graphs' (did you mean "
                              "'graphs'? measurements/README.md lists them)")


def test_a_file_of_exactly_the_row_limit_is_read(tmp_path, monkeypatch):
    import roofline.measurements as measurements

    monkeypatch.setattr(measurements, "MAX_ROWS", 2)  # at most 2 rows: 2 are read (mutant: refused)
    table = load_measurements(write_rows(tmp_path, [{}, {"batch": "2"}]))
    assert list(table["batch"]) == [1, 2]


@pytest.mark.parametrize("column", ["input_len", "output_len"])
def test_a_length_of_zero_tokens_is_refused(tmp_path, column):
    path = write_rows(tmp_path, [{column: "0"}])
    with pytest.raises(RooflineError) as err:  # mutant (input_len from 0): a row of no prompt read
        load_measurements(path)
    assert str(err.value) == f"{path}: row 1 (line 2): {column}: expected an integer in 1..1,000,000,000, found '0'"


def test_a_tree_of_the_most_nodes_and_its_root_is_read_and_one_more_refused(tmp_path):
    # TREE_NODES_MAX = 4096 draft nodes, the root verified beside them: draft_tokens up to 4097
    tree = {"method": "eagle", "k": "4", "acceptance_length": "3"}
    table = load_measurements(write_rows(tmp_path, [{**tree, "draft_tokens": "4097"}], name="most.csv"))
    assert table["draft_tokens"].iloc[0] == 4097  # mutant: refused
    path = write_rows(tmp_path, [{**tree, "draft_tokens": "4098"}], name="over.csv")
    with pytest.raises(RooflineError) as err:
        load_measurements(path)
    assert str(err.value) == f"{path}: row 1 (line 2): draft_tokens: expected an integer in 0..4,097, found '4098'"


def test_an_acceptance_length_of_exactly_one_token_and_of_exactly_k_plus_one_is_read(tmp_path):
    # tau in [1, k + 1]: a drafter whose every draft was rejected emits 1 token an iteration (mutant: 1 refused)
    rows = [{"method": "eagle", "k": "3", "acceptance_length": tau} for tau in ("1", "4")]
    table = load_measurements(write_rows(tmp_path, rows))
    assert list(table["acceptance_length"]) == [1.0, 4.0]


def test_a_draft_named_in_notes_is_read_for_method_draft_only(tmp_path):
    rows = [{"method": "eagle", "k": "3", "notes": "draft=llama-3.2-1b"},
            {"method": "draft", "k": "3", "acceptance_length": "2", "notes": "run 2; draft=llama-3.2-1b"}]
    table = load_measurements(write_rows(tmp_path, rows))
    assert list(table["draft"]) == ["", "llama-3.2-1b"]  # mutant: the eagle row given a draft model


def test_draft_inside_a_longer_word_of_the_notes_names_no_draft_model(tmp_path):
    # 'target_draft=...' is not the key draft= (it must start the notes or follow a space, ';', ',' or '(')
    path = write_rows(tmp_path, [{"method": "draft", "k": "3", "acceptance_length": "2", "notes": "target_draft=llama-3.2-1b"}])
    with pytest.raises(RooflineError) as err:  # mutant: read as the draft model llama-3.2-1b
        load_measurements(path)
    assert str(err.value) == (f"{path}: row 1 (line 2): draft: expected a draft model name (a draft column, or draft=NAME in "
                              "notes) with method draft, found ''")


@pytest.mark.parametrize("text", ['[{"backend": "vllm", "completed": 10}]', '  {"backend": "vllm", "completed": 10}'])
def test_a_json_result_file_given_as_measurements_is_told_to_convert_it(tmp_path, text):
    path = tmp_path / "runs.csv"  # named .csv: the JSON is known by its content (mutant: '[' and an indented '{' not)
    path.write_text(text + "\n")
    with pytest.raises(RooflineError) as err:
        load_measurements(path)
    assert str(err.value) == (f"{path}: expected a measurements CSV, found JSON: a serving benchmark's result file? convert "
                              "it first: roofline measurements convert")


def test_a_mean_in_flight_below_one_decodes_one_sequence_at_a_time(tmp_path):
    from roofline.measurements import predict_measurements

    # 0.5 requests in flight (a client idle between requests): one sequence decodes while any does, so its speed per user
    # is the batch-1 row's (mutant: a batch of 0.5 sequences priced)
    rows = [{"concurrency": "0.5", "batch": "1"}, {}]
    out = predict_measurements(load_measurements(write_rows(tmp_path, rows)))
    assert list(out["running_batch"]) == [1.0, 1.0]
    assert out["predicted"].iloc[0] == out["predicted"].iloc[1]


def test_a_speed_far_below_the_bound_is_not_said_as_milliseconds(tmp_path):
    from roofline.measurements import check_plausible

    # 1 token/s against a bound of 200: 200 times slower, a speed (no seconds to be milliseconds; mutant: hinted)
    table = load_measurements(write_rows(tmp_path, [{"value": "1"}]))
    with pytest.raises(RooflineError) as err:
        check_plausible(table, [200.0], "here")
    assert str(err.value) == ("here: row 1: value: expected a measurement at most 100x slower and 10x faster than the "
                              "roofline bound (200 tokens_per_s_per_user), found 1, 200 times slower than it")


def test_a_client_idle_between_requests_completes_its_share_of_one_sequences_throughput(tmp_path):
    from roofline.measurements import predict_measurements

    # Little's law: 0.5 requests in flight decode one sequence at a time (running 1) but complete half as many tokens a
    # second as a client that always has one in flight: R x min(C_r, B_r) x O / (t_prefill(1, P) + O t_tok), the stall
    # term 0 at B_r = 1 (mutant: priced as 1 in flight)
    rows = [{"quantity": "tokens_per_s", "concurrency": c, "batch": "1"} for c in ("0.5", "1")]
    out = predict_measurements(load_measurements(write_rows(tmp_path, rows)))
    assert list(out["running_batch"]) == [1.0, 1.0]
    assert out["predicted"].iloc[0] == pytest.approx(0.5 * out["predicted"].iloc[1], rel=1e-12)


def test_a_single_result_in_a_jsonl_file_of_no_backend_is_sglangs(tmp_path):
    # no backend, no field only one benchmark writes: the layout tells, and a .jsonl file is SGLang's bench_serving output
    # even when its one line reads as one JSON document (mutant: vllm)
    result = {k: v for k, v in RESULT.items() if k != "backend"}
    assert set(convert(tmp_path, result, name="run.jsonl")["engine"]) == {"sglang"}
    assert set(convert(tmp_path, result, name="run.json")["engine"]) == {"vllm"}


def test_convert_refuses_a_tree_of_k_tokens_as_the_option_at_its_bound(tmp_path):
    # a tree verifies its root and at least one token a step: draft_tokens >= k + 1 = 4 (mutant: 3 passed the option and
    # was refused as the converted row's)
    with pytest.raises(RooflineError) as err:
        convert(tmp_path, {**RESULT, "spec_decode_acceptance_length": 2.0}, method="eagle", k=3, draft_tokens=3)
    assert str(err.value) == ("command line: --draft-tokens: expected at least k + 1 = 4 tokens verified per sequence (or 0: "
                              "a chain), found 3")


def test_convert_takes_a_head_vocabulary_up_to_the_targets_and_refuses_one_more_as_the_option(tmp_path):
    # llama-3.1-8b's vocabulary: 128,256 tokens
    raw = convert(tmp_path, {**RESULT, "spec_decode_acceptance_length": 2.0}, method="eagle", k=3, draft_vocab=128256)
    assert raw["notes"].iloc[0].endswith("; draft_vocab=128256")
    with pytest.raises(RooflineError) as err:  # mutant: 128,257 passed the option, refused as a row's
        convert(tmp_path, {**RESULT, "spec_decode_acceptance_length": 2.0}, name="more.json", method="eagle", k=3,
                draft_vocab=128257)
    assert str(err.value) == ("command line: --draft-vocab: expected at most the vocabulary of llama-3.1-8b (128,256 tokens: "
                              "a head drafter's LM head covers part of it), found 128257")


def test_convert_takes_an_acceptance_length_of_exactly_one_token(tmp_path):
    # every draft rejected: 1 token an iteration, the least there is (mutant: refused as below one token)
    raw = convert(tmp_path, {**RESULT, "backend": "sglang", "accept_length": 1.0}, name="run.jsonl", method="eagle", k=3)
    assert set(raw["acceptance_length"]) == {"1"}


@pytest.mark.parametrize(("field", "expected"), [
    ("max_concurrency", "a whole number of requests, 1 to 100,000,000 (or null: then pass --batch)"),
    ("completed", "the number of completed requests"),
])
def test_convert_refuses_a_json_true_where_a_count_belongs(tmp_path, field, expected):
    # JSON true is no count (Python's bool is an int: mutant read it as 1 request)
    with pytest.raises(RooflineError) as err:
        convert(tmp_path, {**RESULT, field: True})
    assert str(err.value) == f"{tmp_path / 'run.json'}: result 1: {field}: expected {expected}, found true"


def _result_of(tmp_path, model_id):
    path = tmp_path / "run.json"
    path.write_text(json.dumps({**RESULT, "model_id": model_id}))
    return path


def test_convert_refuses_a_run_whose_model_id_names_another_model_profile(tmp_path):
    """A Qwen3-30B-A3B run given as --model llama-3.1-8b is refused in one line naming the model it is (qa497: written as
    Llama rows in silence, then fitted); the run's own model, under any spelling of its repository, is taken."""
    path = _result_of(tmp_path, "Qwen/Qwen3-30B-A3B")
    with pytest.raises(RooflineError) as err:
        convert_benchmark(path, hardware="h100-sxm", model="llama-3.1-8b")
    assert str(err.value) == (f"{path}: result 1: model_id: expected a run of llama-3.1-8b (--model), found "
                              "'Qwen/Qwen3-30B-A3B', a run of qwen3-30b-a3b: pass --model qwen3-30b-a3b, or convert each "
                              "model's results apart")
    assert len(convert_benchmark(path, hardware="h100-sxm", model="qwen3-30b-a3b")) == 2
    for spelling in ("meta-llama/Llama-3.1-8B-Instruct", "meta-llama/Meta-Llama-3.1-8B", "/models/llama_3.1_8b_fp8/"):
        assert len(convert_benchmark(_result_of(tmp_path, spelling), hardware="h100-sxm", model="llama-3.1-8b")) == 2


def test_convert_names_the_longest_profile_a_model_id_holds(tmp_path):
    """'Llama-3.1-70B-Instruct' holds llama-3.1-70b, not llama-3.1-8b's letters ('llama3170b' has no 'llama318b'), and
    DeepSeek-V3.1 holds deepseek-v3 (the same architecture: taken)."""
    with pytest.raises(RooflineError, match=r"a run of llama-3\.1-70b: pass --model llama-3\.1-70b"):
        convert_benchmark(_result_of(tmp_path, "meta-llama/Llama-3.1-70B-Instruct"), hardware="h100-sxm", model="llama-3.1-8b")
    rows = convert_benchmark(_result_of(tmp_path, "deepseek-ai/DeepSeek-V3.1"), hardware="h200", model="deepseek-v3", tp=8)
    assert set(rows["model"]) == {"deepseek-v3"}


def test_a_model_id_naming_no_profile_is_said_once_and_written_as_the_models(tmp_path):
    """A fine-tune or a folder of no profile's name: said once, its rows written as --model's."""
    path = tmp_path / "runs.jsonl"
    path.write_text("\n".join(json.dumps({**RESULT, "model_id": "acme/support-bot-v2", "max_concurrency": c}) for c in (32, 16)))
    with pytest.warns(Warning) as caught:
        rows = convert_benchmark(path, hardware="h100-sxm", model="llama-3.1-8b")
    said = [str(w.message) for w in caught if "names no model profile" in str(w.message)]
    assert said == [f"{path}: result 1: model_id 'acme/support-bot-v2' names no model profile: its rows are written as "
                    "llama-3.1-8b's (--model), whose architecture they are priced with"], said
    assert set(rows["model"]) == {"llama-3.1-8b"} and len(rows) == 4


@pytest.mark.parametrize("duration", [0, -5.0, "60"])
def test_convert_refuses_a_duration_that_is_no_length_of_time(tmp_path, duration):
    """A run of 0 s (or a negative or quoted one) cannot have run its requests: refused in one line, as completed 0 is
    (qa497: read as no duration, a warning, and its rows written)."""
    path = tmp_path / "run.json"
    path.write_text(json.dumps({**RESULT, "duration": duration}))
    with pytest.raises(RooflineError, match=rf"^{re.escape(str(path))}: result 1: duration: expected the run's length in "
                                            r"seconds, above 0, found "):
        convert_benchmark(path, hardware="h100-sxm", model="llama-3.1-8b")


def test_a_distilled_model_is_not_refused_as_its_teacher(tmp_path):
    """DeepSeek-R1-Distill-Llama-8B is a Llama 3.1 8B fine-tune: not refused as deepseek-r1 (qa498), said as naming no
    profile (its own name has no profile's) and written as --model's."""
    path = _result_of(tmp_path, "deepseek-ai/DeepSeek-R1-Distill-Llama-8B")
    with pytest.warns(Warning, match="names no model profile"):
        rows = convert_benchmark(path, hardware="h100-sxm", model="llama-3.1-8b")
    assert set(rows["model"]) == {"llama-3.1-8b"}
