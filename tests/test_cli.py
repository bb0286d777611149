"""The CLI end to end through Typer's CliRunner (and once as a subprocess for the exit code contract)."""

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import typer.main
from typer.testing import CliRunner

import cli

runner = CliRunner()
ROOT = Path(__file__).resolve().parent.parent


def run(*args):
    return runner.invoke(cli.app, list(args))


def run_main(*args):
    """Through main(), the console entry point that turns bad input into exit code 2."""
    return subprocess.run([sys.executable, str(ROOT / "cli.py"), *args], capture_output=True, text=True, cwd=ROOT)


@pytest.mark.slow
def test_predict_json_has_the_contract_keys():
    result = run("predict", "--hardware", "h100-sxm", "--model", "llama-3.1-8b", "--batch", "8", "--context", "2048",
                 "--prompt", "512", "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    for key in ("step_time_s", "tokens_per_s", "tokens_per_s_per_user", "mbu", "mfu", "bound", "weight_bytes",
                "kv_bytes", "fits_in_memory", "max_batch", "ttft_s"):
        assert key in data
    assert data["bound"] in ("memory", "compute")
    assert data["tokens_per_s"] == pytest.approx(8 * data["tokens_per_s_per_user"])


@pytest.mark.slow
def test_predict_with_speculation_adds_a_spec_object(roofline):
    code, out, err = roofline("predict", "--model", "llama-3.1-8b", "--method", "eagle", "--k", "4", "--alpha", "0.8", "--json")
    assert code == 0 and "best k" in err  # the warnings on stderr, the JSON alone on stdout
    spec = json.loads(out)["spec"]
    for key in ("iteration_time_s", "draft_time_s", "verify_time_s", "tau", "tokens_per_s", "tokens_per_s_per_user",
                "speedup", "best_k", "break_even_batch"):
        assert key in spec
    assert spec["tau"] == pytest.approx(3.3616)


@pytest.mark.parametrize("args, message", [  # every option and method: tests/test_speculation.py (check_speculating)
    (["--acceptance", "0.9"], "--acceptance: expected only with a speculation method"),
    (["--method", "ngram", "--draft-hardware", "l4"], "--draft-hardware: expected only with a method that runs a drafter"),
    (["--method", "eagle", "--acceptance", ""], "--acceptance: expected at least one rate, found an empty list"),
])
@pytest.mark.slow
def test_speculation_options_without_a_method_that_uses_them_are_one_line(roofline, args, message):
    code, out, err = roofline("predict", *args)
    assert code == 2 and out == "" and err.startswith("error: command line: ") and message in err and len(err.splitlines()) == 1


@pytest.mark.slow
@pytest.mark.parametrize("args", [["--method", "eagle", "--k", "0", "--alpha", "0.7"],
                                  ["--method", "draft", "--draft", "llama-3.2-1b", "--k", "0", "--tree-nodes", "8", "--tree-tau", "3"]])
def test_no_speculation_is_exactly_the_baseline(args):
    data = json.loads(run("predict", "--batch", "16", *args, "--json").stdout)
    spec = data["spec"]
    assert any(w.startswith("k 0: nothing is drafted") for w in data["warnings"])  # the acceptance given is not used
    assert spec["speedup"] == 1.0 and spec["tau"] == 1.0
    assert spec["tokens_per_s"] == data["tokens_per_s"] and spec["draft_time_s"] == 0.0


@pytest.mark.slow
def test_predict_accepts_per_position_acceptance_and_a_draft_on_other_hardware():
    result = run("predict", "--model", "llama-3.1-70b", "--tp", "4", "--method", "draft", "--draft", "llama-3.2-1b",
                 "--draft-hardware", "l4", "--acceptance", "0.9,0.8,0.7", "--k", "3", "--json")
    spec = json.loads(result.stdout)["spec"]  # stderr says the L4 drafter's engine values were fitted on other GPUs
    assert "the drafter's device l4 is NVIDIA Ada" in result.stderr
    assert spec["tau"] == pytest.approx(1 + 0.9 + 0.72 + 0.504)
    assert spec["draft_time_s"] > 0


@pytest.mark.slow
def test_predict_table_is_readable():
    result = run("predict", "--model", "mixtral-8x7b", "--hardware", "h200", "--batch", "4")
    assert result.exit_code == 0
    assert "step time" in result.output and "experts" in result.output


@pytest.mark.slow
def test_hw_and_models_commands_list_and_show():
    assert "h100-sxm" in run("hw", "list").output
    hw = json.loads(run("hw", "show", "h100-sxm", "--json").output)
    assert hw["name"] == "h100-sxm" and hw["mem_bw_bytes_per_s"] == 3.35e12
    assert set(hw["peak_flops_per_s"]) >= {"fp32", "tf32", "bf16", "fp16", "fp8", "int8"}
    # memory: 81559 MiB (what nvidia-smi shows for an H100 80GB HBM3) = 81559 * 2**20 = 85_520_809_984 B
    assert hw["link_bw_bytes_per_s"] == 450e9 and hw["mem_bytes"] == 81559 * 2**20 == 85_520_809_984
    assert "deepseek-v3" in run("models", "list").output
    model = json.loads(run("models", "show", "llama-3.1-8b", "--json").output)
    assert model["params"] == 8_030_261_248 and model["kv_bytes_per_token_nominal"] == 131072
    assert model["active_params"] == model["params"]
    mixtral = run("models", "show", "mixtral-8x7b").output
    assert "MoE: 8 experts top-2" in mixtral
    # qa255: 128k is past Mixtral's trained 32,768 tokens, which predict warns of; models show said nothing
    assert "B at 128k (past its trained 32,768) (bf16;" in mixtral
    assert "(past its trained" not in run("models", "show", "llama-3.1-8b").output  # 131,072: 128k is within
    shown = run("models", "show", "gpt-oss-120b").output.splitlines()
    # 5.71 B active against 5.1 B published: the tool counts the input embedding as well (2 x 201,088 x 2,880 = 1.16 B)
    # and without the input embedding, as OpenAI counts its 5.1 B (qa121: 5.710 beside 5.100 read as 12% apart)
    assert ("  active           5.710 billion, 5.131 billion without the input embedding (published 5.100 billion); counts the "
            "embedding and LM head (1.16 billion)") in shown  # billions, not B (bytes everywhere else: qa317)
    # the dtype of most parameters first (the experts' fp4: about 93% of them), then the classes it leaves 16-bit
    assert "  precision        fp4; bf16: attention, router, embedding, lm_head  (65.2 GB of weights as released)" in shown
    v4 = json.loads(run("models", "show", "deepseek-v4-flash", "--json").output)  # the fields its numbers come from
    assert v4["q_lora_rank"] == 1024 and v4["native_precision"]["experts"] == "fp4" and v4["mla"] is None
    # windows, compressed entries and fp8 indexer keys of 132 B over 131,072 tokens (6,272 B), and the compressors'
    # state, 12,206,080 B
    assert v4["kv_bytes_per_token_at_128k"] == 6272 + 12_206_080 / 131072
    shown = run("models", "show", "deepseek-v4-flash").output  # the state those 12.2 MB come from, per group (qa85)
    assert "ratio 4 reads <= 512 indexer 64 heads x 128, state 81,920 B a layer and sequence" in shown
    assert "ratio 128, state 524,288 B a layer and sequence" in shown and "sliding window 128, state" not in shown
    lines = run("models", "list").output.splitlines()
    assert "KV per token, bf16" in lines[0] and "4k context" in lines[1] and "128k" in lines[1]  # qa140: at which context
    listed = {line.split()[0]: line for line in lines[2:]}
    assert listed["llama-2-7b"].endswith("mha full") and listed["llama-3.1-8b"].endswith("gqa full")  # qa101: MHA read gqa
    assert "billions" in lines[1] and listed["llama-3.1-8b"].split()[1] == "8.03"  # qa403: not '8.03B' beside KiB


@pytest.mark.slow
def test_unknown_names_exit_2_with_one_line_naming_the_closest():
    result = run_main("predict", "--hardware", "h100-sxn", "--json")
    assert result.returncode == 2
    assert result.stderr.strip().count("\n") == 0 and "h100-sxm" in result.stderr
    assert "Traceback" not in result.stderr and result.stdout == ""
    result = run_main("models", "show", "llama-3-8b")
    assert result.returncode == 2 and "llama-3.1-8b" in result.stderr


@pytest.mark.slow
def test_a_broken_user_profile_exits_2_naming_file_and_field(tmp_path):
    import yaml

    data = yaml.safe_load((ROOT / "hardware_profiles" / "h100-sxm.yaml").read_text())
    data["name"] = "broken"
    data["memory_bandwidth"] = "3.35 TB"
    text = yaml.safe_dump(data)
    (tmp_path / "broken.yaml").write_text(text)
    line = text.splitlines().index("memory_bandwidth: 3.35 TB") + 1
    result = run_main("--profiles", str(tmp_path), "hw", "show", "broken")
    assert result.returncode == 2
    assert f"broken.yaml: line {line}: memory_bandwidth: expected" in result.stderr and "'3.35 TB'" in result.stderr


@pytest.mark.slow
def test_invalid_yaml_reports_the_line(tmp_path):
    (tmp_path / "bad.yaml").write_text("name: x\naxes: [1, 2\n")
    result = run_main("sweep", str(tmp_path / "bad.yaml"), "--out", str(tmp_path / "o"))
    assert result.returncode == 2 and "line" in result.stderr and not (tmp_path / "o").exists()


@pytest.mark.slow
def test_sweep_writes_table_and_plots_and_refuses_to_overwrite(tmp_path):
    out = tmp_path / "out"
    result = run("sweep", "eagle-on-hopper", "--out", str(out), "--svg")
    assert result.exit_code == 0, result.output
    assert (out / "results.csv").stat().st_size > 0 and (out / "results.parquet").stat().st_size > 0
    assert list(out.glob("*.png")) and list(out.glob("*.svg"))
    csv, parquet = pd.read_csv(out / "results.csv"), pd.read_parquet(out / "results.parquet")
    assert list(csv.columns) == list(parquet.columns) and len(csv) == len(parquet) == 900
    # CSV floats carry 7 significant digits, Parquet the exact float64
    np.testing.assert_allclose(csv["step_time_s"], parquet["step_time_s"], rtol=1e-6)
    again = run_main("sweep", "eagle-on-hopper", "--out", str(out))
    assert again.returncode == 2 and "--force" in again.stderr
    assert run("sweep", "eagle-on-hopper", "--out", str(out), "--force").exit_code == 0


@pytest.mark.slow
def test_a_bad_scenario_leaves_no_output_behind(tmp_path):
    scenario = tmp_path / "s.yaml"
    scenario.write_text("hardware: h100-sxm\nmodel: llama-3.1-8b\naxes:\n  alpha: [0.5, 1.5]\n")
    result = run_main("sweep", str(scenario), "--out", str(tmp_path / "o"))
    assert result.returncode == 2
    assert "axes.alpha: expected values in [0, 1], found 1.5" in result.stderr
    assert not (tmp_path / "o").exists()
    assert [p.name for p in tmp_path.iterdir()] == ["s.yaml"]


@pytest.mark.slow
def test_plot_redraws_from_a_written_table_without_the_scenario(tmp_path):
    out = tmp_path / "sweep"
    assert run("sweep", "moe-verify-cost", "--out", str(out), "--no-plots").exit_code == 0
    result = run("plot", str(out / "results.csv"), "--out", str(tmp_path / "plots"))
    assert result.exit_code == 0, result.output
    pngs = {p.stem for p in (tmp_path / "plots").glob("*.png")}
    assert pngs and not list((tmp_path / "plots").glob("*.svg"))
    result = run("plot", str(out), "--out", str(tmp_path / "plots"), "--svg", "--force")
    assert result.exit_code == 0, result.output
    assert {p.stem for p in (tmp_path / "plots").glob("*.svg")} == pngs  # SVG on request, beside each PNG
    assert (tmp_path / "plots" / ".roofline-output").is_file()  # an output folder like sweep's: a later --force may replace it
    assert run("sweep", "moe-verify-cost", "--out", str(tmp_path / "plots"), "--no-plots", "--force").exit_code == 0
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "keep.txt").write_text("mine")
    result = run_main("plot", str(out), "--out", str(mine), "--force")  # a folder of the user's own: never replaced
    assert result.returncode == 2 and "holds files roofline did not write" in result.stderr
    assert [p.name for p in mine.iterdir()] == ["keep.txt"]


@pytest.mark.parametrize("args", [["predict", "--batch", "0"], ["predict", "--bogus"], ["hw", "show"],
                                  ["predict", "--weight-dtype", "fp6"], ["predict", "--method", "draft", "--draft", "llama-3.2-1b"],
                                  ["predict", "--tp", "3"], ["predict", "--model", "llama-3.1-8b", "--ep", "2"],
                                  ["predict", "--method", "eagle", "--alpha", "0.5", "--acceptance", "0.5"],
                                  ["predict", "--batch", "50000000", "--method", "eagle", "--alpha", "0.8", "--json"]])
@pytest.mark.slow
def test_usage_errors_are_one_line_and_exit_2(args):
    result = run_main(*args)
    if args[-1] == "--json":  # a batch that cannot fit is a prediction, not an error
        assert result.returncode == 0 and json.loads(result.stdout)["fits_in_memory"] is False
        return
    assert result.returncode == 2
    assert result.stderr.startswith("error: ") and result.stderr.strip().count("\n") == 0


@pytest.mark.slow
def test_a_file_that_is_not_utf8_is_one_line(tmp_path):
    (tmp_path / "s.yaml").write_bytes(b"name: \xff\xfe\n")
    result = run_main("sweep", str(tmp_path / "s.yaml"), "--out", str(tmp_path / "o"))
    assert result.returncode == 2 and "expected UTF-8 text" in result.stderr


@pytest.mark.slow
def test_scenarios_list_names_every_builtin_scenario_with_its_points():
    out = run("scenarios", "list").output
    for name in ("eagle-on-hopper", "break-even-batch", "mtp-deepseek-v3"):
        assert name in out
    assert "7,776" in out  # break-even-batch: 6 GPUs x 3 methods configs x 25 batches x 6 k x 3 alpha x 1 context


def test_engines_list_and_show_print_every_cost_term():
    out = run("engines", "list").output
    assert "vllm" in out and "(default)" in out and "ideal" in out
    ideal_line = next(line for line in out.splitlines() if line.startswith("ideal "))
    assert "overlap p" in out.splitlines()[0] and " hardware " in ideal_line  # the pure roofline: the hardware's form
    show = run("engines", "show", "sglang").output
    assert "kernel latency" in show and "host work overlapped" in show and "override for mi*" in show
    (a2a,) = [line for line in show.splitlines() if line.startswith("  all-to-all latency ")]  # qa379: read as its
    assert a2a.endswith("not this profile's allgather, whose collectives pay the all-reduce latency)")  # dispatch's
    data = json.loads(run("engines", "show", "trtllm", "--json").output)
    assert data["name"] == "trtllm" and data["kernel_latency_s"] > 0
    # the fitted block the warnings cite ("its fitted.not_determined_by_rows"), in both forms (qa84)
    assert "spec_per_iteration" in data["fitted"]["not_determined_by_rows"]
    shown = {line.split("  ")[2].strip(): line for line in show.splitlines() if line.startswith("    ") and "  " in line[4:]}
    assert "host_per_step" in shown["determined by no row"] and "NVIDIA Blackwell" in shown["device families"]
    assert "fitted                    no (every value" in run("engines", "show", "ideal").output
    assert json.loads(run("engines", "show", "ideal", "--json").output)["fitted"] is None


def test_ctrl_c_ends_with_exit_code_130_and_one_line(roofline, monkeypatch, tmp_path):
    import roofline.scenario as scenario

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(scenario, "load_scenario", interrupted)  # typer turns Ctrl-C into a returned 130
    code, out, err = roofline("sweep", "eagle-on-hopper", "--no-plots", "--out", tmp_path / "o")
    assert (code, out, err) == (130, "", "interrupted\n") and not (tmp_path / "o").exists()


@pytest.mark.slow
def test_a_sweep_too_large_to_plot_says_so_naming_the_output_folder(tmp_path, monkeypatch):
    import roofline.grid

    monkeypatch.setattr(roofline.grid, "PLOT_POINTS_MAX", 100)
    out = tmp_path / "out"
    result = run("sweep", "eagle-on-hopper", "--out", str(out), "--format", "csv")
    assert result.exit_code == 0, result.output
    assert "plots skipped: 900 points are more than a sweep keeps in memory while it writes (100)" in result.output
    assert f"`roofline plot {out}` draws them" in result.output and ".out." not in result.output  # the folder, not its staging
    assert not list(out.glob("*.png")) and (out / "results.csv").is_file()


@pytest.mark.slow
def test_scenarios_show_and_validate():
    out = run("scenarios", "show", "eagle-on-hopper").output
    assert out.startswith("eagle-on-hopper  (") and "  hardware        h100-sxm, h200" in out
    assert "  axis batch         9 values: 1, 2, 4, 8, 16, 32, 64, 128, 256" in out
    assert "  engine          vllm (the default)" in out  # named where the file leaves it to the default
    assert "  engine          ideal" in run("scenarios", "show", "break-even-batch").output
    assert out.rstrip().endswith("2 configs x 450 grid points = 900 points")
    result = run("scenarios", "validate")
    assert result.exit_code == 0 and result.output.count("ok    ") == len(list((ROOT / "scenarios").glob("*.yaml")))


def _commands(cmd, path=()):
    """Every leaf command of the CLI, as its words (`hw set`)."""
    if not hasattr(cmd, "commands"):
        return [list(path)]
    return [words for name, sub in cmd.commands.items() for words in _commands(sub, (*path, name))]


HELP_COMMANDS = _commands(typer.main.get_command(cli.app))


@pytest.mark.slow  # rich renders the help: 0.3 s to import, then 0.03-0.05 s a command
@pytest.mark.parametrize("command", HELP_COMMANDS, ids=" ".join)
def test_help_at_80_columns_cuts_no_option_name_or_help_word(command):
    """rich cuts a word wider than its column with an ellipsis (`models import --published-active-params` was cut);
    a boolean option's --no-X twin took a column of its own."""
    assert len(HELP_COMMANDS) >= 28 and ["models", "import"] in HELP_COMMANDS  # every command, walked from the app
    result = CliRunner().invoke(cli.app, [*command, "--help"], env={"COLUMNS": "80", "TERMINAL_WIDTH": "80"})
    assert result.exit_code == 0 and "Usage:" in result.output
    assert "…" not in result.output and "--no-force" not in result.output
    usage = next(line for line in result.output.splitlines() if "Usage:" in line)  # qa383: `{scenario}`, `{FILE}...`
    assert "{" not in usage and "}" not in usage


@pytest.mark.slow
def test_one_bad_user_file_is_named_and_the_list_still_shows_the_rest(roofline, tmp_path):
    (tmp_path / "y.yaml").write_text("type: scenario\nname: y\nhardware: h100-sxm\nmodel: llama-3.1-8b\naxes:\n  batch: [0]\n  context: [1024]\n")
    (tmp_path / "my-gpu.yaml").write_text("type: hardware\nname: my-gpu\n")  # no fields: refused
    code, out, err = roofline("--profiles", tmp_path, "scenarios", "list")
    assert code == 2 and "eagle-on-hopper" in out and "y.yaml: line 6: axes.batch: expected values >= 1, found 0" in err
    code, out, err = roofline("--profiles", tmp_path, "hw", "list")
    assert code == 2 and "h100-sxm" in out and err.count("my-gpu.yaml") == 1


def test_engines_show_names_the_built_in_a_user_profile_shadows(roofline, tmp_path):
    (tmp_path / "sglang.yaml").write_text((ROOT / "engine_profiles" / "sglang.yaml").read_text())
    code, out, _ = roofline("--profiles", tmp_path, "engines", "show", "sglang")
    assert code == 0 and f"file: {tmp_path / 'sglang.yaml'}" in out
    assert out.rstrip().endswith(f"shadows: {ROOT / 'engine_profiles' / 'sglang.yaml'}")


def test_a_value_the_option_parser_refuses_is_named_in_the_error(roofline):
    code, out, err = roofline("predict", "--batch=-1")
    assert code == 2 and err.strip() == "error: command line: --batch: expected a whole number from 1 to 100,000,000, found '-1'"
    code, _, err = roofline("predict", "--prompt", "0")
    assert code == 2 and err.strip() == "error: command line: --prompt: expected a whole number from 1 to 1,000,000,000, found '0'"
    code, _, err = roofline("bench", "--points", "5000", "--points", "5")  # repeatable: the value refused is named
    assert code == 2 and err.strip() == "error: command line: --points: expected a whole number from 1,000 to 100,000,000, found '5'"
    # in the library's form whatever click's version words (qa297: 'Invalid value for ...: Input should be ...'); a
    # whole number written with an exponent is told its digits, a float range is said as a float's
    code, _, err = roofline("predict", "--batch", "1e3")
    assert code == 2 and err.strip() == "error: command line: --batch: expected a whole number from 1 to 100,000,000, found '1e3' (write 1000)"
    code, _, err = roofline("predict", "--batch", "1e9")
    assert code == 2 and err.strip().endswith("found '1e9'")
    # qa421: 32k and 1,024 were refused without the digits meant; a k is not guessed binary or decimal
    code, _, err = roofline("predict", "--context", "32k")
    assert code == 2 and err.strip().endswith("found '32k' (write 32768 for 32 x 1,024, or 32000 for 32 x 1,000)"), err
    code, _, err = roofline("predict", "--context", "1,024")
    assert code == 2 and err.strip().endswith("found '1,024' (write 1024: no separators)"), err
    code, _, err = roofline("predict", "--batch", "200M")  # neither in range: no digits offered
    assert code == 2 and err.strip().endswith("found '200M'"), err
    code, _, err = roofline("predict", "--batch", "100M")  # one in range (qa427)
    assert code == 2 and err.strip().endswith("found '100M' (write 100000000)"), err
    code, _, err = roofline("predict", "--batch", "1,000,000,000")
    assert code == 2 and err.strip().endswith("found '1,000,000,000'"), err
    code, _, err = roofline("cheapest", "x.csv", "--min-tokens-per-user", "1k")  # a rate, not a count: no reading offered
    assert code == 2 and err.strip().endswith("found '1k'"), err
    code, _, err = roofline("cheapest", "x.csv", "--min-tokens-per-user", "25", "--users", "500k")  # people: thousands
    assert code == 2 and err.strip().endswith("found '500k' (write 500000)"), err  # (qa431: 512000 was offered)
    code, _, err = roofline("bench", "--points", "2000.0", "--points", "5")  # 2000.0 is click's 2000: the 5 is refused
    assert code == 2 and err.strip().endswith("found '5'"), err
    code, _, err = roofline("measurements", "convert", "x.json", "--batch", "1e23")  # a range, and no float's digits
    assert code == 2 and err.strip() == ("error: command line: --batch: expected a whole number from 1 to 100,000,000, "
                                         "found '1e23'"), err
    code, _, err = roofline("predict", "--tree-tau", "0.5")
    assert code == 2 and err.strip() == "error: command line: --tree-tau: expected a number of at least 1, found '0.5'"
    code, _, err = roofline("predict", "--nosuch", "3")  # an unknown option has no value to name: its name is said
    assert code == 2 and err.strip().startswith("error: command line: --nosuch: expected an option of `roofline predict`, "
                                                "found none of that name ("), err
    code, _, err = roofline("predict", "--dp", "8")  # qa333: an SGLang user's --dp, offered the option it begins
    assert code == 2 and "(did you mean --dp-attention or " in err and len(err.strip().splitlines()) == 1, err
    code, _, err = roofline("predict", "--acc", "0.7")  # qa335: any option it begins, not only at a dash
    assert code == 2 and "(did you mean --acceptance or --acceptance-length" in err, err
    code, _, err = roofline("predict", "--model")  # qa335: click's own wording; an unknown command likewise
    assert code == 2 and err.strip() == "error: command line: --model: expected a value after it, found none", err
    code, _, err = roofline("hardware", "list")
    assert code == 2 and err.strip().startswith("error: command line: hardware: expected a command of `roofline` (predict, ")
    assert err.strip().endswith("found none of that name (did you mean hw?)"), err
    code, _, err = roofline("hw", "")  # qa394: a script's empty $CMD said in click's words
    assert code == 2 and err.strip().startswith("error: command line: expected a command of `roofline hw` (list, show, ")
    assert err.strip().endswith("found an empty word"), err
    code, _, err = roofline("sweep")  # qa339: click's 'Missing argument' and 'Got unexpected extra argument(s)'
    assert code == 2 and err.strip() == ("error: command line: SCENARIO: expected a value for `roofline sweep`'s SCENARIO, "
                                         "found none (`roofline sweep --help` says it)"), err
    code, _, err = roofline("engines", "new", "x")  # a required option by its flag (qa341: 'from_', the Python name)
    assert code == 2 and err.strip().startswith("error: command line: --from: expected a value for `roofline engines new`'s --from"), err
    code, _, err = roofline("predict", "extra", "more")
    assert code == 2 and err.strip() == "error: command line: extra: expected no further argument of `roofline predict`, found 'extra more'"


@pytest.mark.slow
def test_fit_help_lists_every_fitted_parameter_and_the_cli_starts_without_pandas():
    import subprocess

    from roofline.fit import PARAMETERS

    assert cli.FIT_PARAMETER_NAMES == tuple(p.key for p in PARAMETERS)
    code = "import sys, cli; cli._click_command(); print('pandas' in sys.modules, 'numpy' in sys.modules)"
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=Path(cli.__file__).parent, check=True)
    assert loaded.stdout.split() == ["False", "False"]  # building the commands' help imports neither
    version = CliRunner().invoke(cli.app, ["--version"])
    assert version.exit_code == 0 and version.output.startswith("roofline ")


@pytest.mark.slow
def test_help_shows_no_value_for_a_flag():
    """Typer showed `--force <bool>`: `--force true` was then refused as an extra argument."""
    out = run("sweep", "--help").output
    assert "<bool>" not in out and "--force" in out
    assert "sweep [OPTIONS] SCENARIO " in out  # required as click writes it (Typer 0.29: {scenario})
    assert "report [OPTIONS] [SCENARIO]... " in run("report", "--help").output
    assert "<bool>" not in run("--help").output


def test_predict_help_groups_its_options_by_what_they_set():
    """qa459: 28 options in one panel, 220 lines at 80 columns, read as a wall: the layout, the requests and the
    speculation each have a panel of their own, the point's own options (and --json) stay first."""
    import re

    out = CliRunner().invoke(cli.app, ["predict", "--help"], env={"COLUMNS": "80", "TERMINAL_WIDTH": "80"}).output
    panels, panel = {}, None
    for line in out.splitlines():
        if line.startswith("╭─ "):
            panel = line.split("─ ")[1].split(" ─")[0]
        elif (found := re.match(r"│ (--[a-z-]+)", line)) and panel:
            panels.setdefault(panel, []).append(found.group(1))
    assert list(panels) == ["Options", "Layout and precision", "Requests", "Speculation"]
    assert panels["Options"] == ["--hardware", "--model", "--batch", "--context", "--engine", "--json", "--help"]
    assert panels["Layout and precision"] == ["--tp", "--dp-attention", "--ep", "--pp", "--weight-dtype", "--expert-dtype",
                                              "--kv-dtype"]
    assert panels["Requests"] == ["--prompt", "--output-len", "--shared-prefix"]
    assert panels["Speculation"][0] == "--method" and "--no-overlap" in panels["Speculation"] and len(panels["Speculation"]) == 11


@pytest.mark.slow
def test_predict_help_gives_its_help_column_room_and_overlap_is_one_flag(roofline):
    """`--overlap --no-overlap` and `<int range> [1<=x<=100000000]` took 64 of 100 columns from the help text."""
    out = CliRunner().invoke(cli.app, ["predict", "--help"], env={"COLUMNS": "100", "TERMINAL_WIDTH": "100"}).output
    assert "<int> [1..4096]" in out and "<int range>" not in out and "<=x<=" not in out
    assert "--no-overlap" in out and "--overlap " not in out
    args = ["predict", "--model", "llama-3.1-70b", "--tp", "4", "--method", "draft", "--draft", "llama-3.2-1b", "--alpha",
            "0.8", "--draft-hardware", "a100", "--batch", "256", "--json"]
    points = [json.loads(roofline(*args, *flag)[1])["spec"] for flag in ([], ["--overlap"], ["--no-overlap"])]
    assert points[0]["drafter_overlaps"] and points[1] == points[0]
    assert not points[2]["drafter_overlaps"] and points[2]["tokens_per_s"] < 0.9 * points[0]["tokens_per_s"]
    code, _, err = roofline(*args, "--overlap", "--no-overlap")  # the last used to win, silently
    assert code == 2 and err.strip() == "error: --overlap and --no-overlap: expected one of them, found both"
    code, _, err = roofline("validate", "--no-quick", "--help")  # the old spelling of the default still runs
    assert code == 0, err
    code, out, _ = roofline(*args, "--overlap", "--no-overlap", "--help")  # help wins
    assert code == 0 and "Usage" in out
    from cli import drop_default_flags

    assert drop_default_flags(["sweep", "s.yaml", "--plots", "--", "--plots"]) == ["sweep", "s.yaml", "--", "--plots"]


@pytest.mark.slow
def test_a_sweep_that_varies_a_config_its_figures_narrow_says_how_to_draw_another(tmp_path):
    """The hint named tp, context, engine and weight dtype only: a sweep over kv dtypes or methods got none; and it
    was printed for any sweep that varied a config, where every figure drew every panel (the README's own main job:
    'keeps a subset of context', which only the roofline figure holds, and `plot --where context=` cannot redraw)."""
    def sweep(hardware: str, name: str):
        scenario = tmp_path / f"{name}.yaml"
        scenario.write_text(f"name: kv\nhardware: {hardware}\nmodel: llama-3.1-8b\nkv_dtype: [bf16, fp8]\naxes:\n  batch: [1, 8]\n")
        result = subprocess.run([sys.executable, "-c", "import cli; cli.main()", "sweep", str(scenario), "--out", str(tmp_path / name)],
                                cwd=Path(__file__).parent.parent, capture_output=True, text=True)
        assert result.returncode == 0, result.stderr
        return result.stderr
    many = sweep("[h100-sxm, h200, b200, a100-sxm-80gb]", "many")  # 8 panels: the figures keep six
    assert "keeps a subset of kv_dtype" in many and "--where kv_dtype=fp8" in many
    assert "keeps a subset" not in sweep("h100-sxm", "two")  # two panels: every figure draws both


def test_a_single_value_option_given_twice_and_an_ignored_no_overlap_are_refused(roofline):
    """`predict --hardware h100 --hardware h200` ran h200 and `predict --no-overlap` ran as without it, both in silence."""
    code, _, err = roofline("predict", "--hardware", "h100", "--hardware", "h200")
    assert (code, err.strip()) == (2, "error: command line: --hardware: expected once, found h100 and h200")
    code, _, err = roofline("predict", "--batch=1", "--batch", "2")
    assert (code, err.strip()) == (2, "error: command line: --batch: expected once, found 1 and 2")
    code, _, err = roofline("predict", "--method", "eagle", "--no-overlap")
    assert code == 2 and err.strip() == ("error: command line: --no-overlap: expected it only with a draft model on a device "
                                         "of its own (method draft and --draft-hardware: the one drafter that overlaps with "
                                         "verification), found method eagle and no --draft-hardware")
    # the API and scenario files check it too (qa93: predict(..., overlap=False) with eagle ran as without it)
    import roofline as api
    from roofline.errors import RooflineError

    with pytest.raises(RooflineError, match="predict: overlap: expected False") as raised:
        api.predict("h100", "llama-3.1-8b", 4, method="eagle", k=4, alpha=0.7, overlap=False)
    assert "--" not in str(raised.value)  # a keyword argument is not told of a flag (qa344)
    with pytest.raises(RooflineError, match="overlap: expected False .* found False with method eagle and no draft_hardware"):
        api.sweep({"hardware": "h100", "model": "llama-3.1-8b", "method": "eagle", "overlap": False, "axes": {"batch": [1]}})


def test_nan_for_a_bounded_number_is_said_to_be_no_number(roofline):
    code, _, err = roofline("predict", "--method", "eagle", "--tree-nodes", "8", "--tree-tau", "nan")
    assert code == 2 and err == "error: command line: --tree-tau: expected a number of at least 1, found 'nan'\n"  # it
    # said 'greater than or equal to 1' alone


def test_scenarios_show_names_a_profile_the_scenario_cannot_load(roofline, tmp_path):
    """qa76: `scenarios show` printed '1 config x 1 grid point' for a scenario naming unknown hardware; validate and
    sweep refuse it."""
    (tmp_path / "bad.yaml").write_text("type: scenario\nname: bad\nhardware: nosuchgpu\nmodel: llama-3.1-8b\n")
    code, out, err = roofline("--profiles", tmp_path, "scenarios", "show", "bad")
    assert code == 2 and not out and "hardware: unknown hardware 'nosuchgpu'" in err


def test_a_full_disk_mid_write_says_it_was_writing_the_output(roofline, monkeypatch):
    """qa71: a full disk gave 'error: No space left on device' with no file and no hint of what was being written."""
    import errno

    from roofline import api

    def full(*args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(api, "predict", full)
    code, _, err = roofline("predict", "--hardware", "h100-sxm", "--model", "llama-3.1-8b")
    assert code == 2 and err.strip() == ("error: No space left on device (while writing the command's output: free space, "
                                         "or give --out elsewhere)")


@pytest.mark.slow
def test_a_list_command_notes_a_user_file_standing_in_for_a_built_in(tmp_path, monkeypatch, roofline):
    """`hw list` told a user's h100-sxm.yaml from the built-in only by its display name (qa91)."""
    import shutil

    from roofline.profiles import builtin_dir

    shutil.copy(builtin_dir("hardware") / "h100-sxm.yaml", tmp_path / "h100-sxm.yaml")
    code, out, _ = roofline("--profiles", tmp_path, "hw", "list")
    assert code == 0 and f"note: hardware h100-sxm is {tmp_path / 'h100-sxm.yaml'}, which shadows the built-in" in out
    code, out, _ = roofline("hw", "list")
    assert code == 0 and "note:" not in out


@pytest.mark.slow
@pytest.mark.parametrize("args", [(), ("hw",), ("engines",)])
def test_roofline_or_a_group_alone_prints_its_help_once(roofline, args):
    """`roofline` alone printed its whole help twice (qa101)."""
    code, out, _ = roofline(*args)
    assert code == 0 and out.count("Usage: roofline") == 1


def test_predict_names_the_flag_of_an_unknown_profile(roofline):
    """qa110: `--draft-hardware h1000` said 'unknown hardware' as `--hardware h1000` did: which one?"""
    code, out, err = roofline("predict", "--method", "eagle", "--alpha", "0.7", "--draft-hardware", "h1000")
    assert code == 2 and not out and err.startswith("error: command line: --draft-hardware: unknown hardware 'h1000'; closest: ")
    code, out, err = roofline("predict", "--hardware", "h1000")
    assert code == 2 and err.startswith("error: command line: --hardware: unknown hardware 'h1000'")


@pytest.mark.slow
def test_plot_never_replaces_another_sweeps_results(roofline, tmp_path):
    """qa112: `plot TABLE --out OTHER_SWEEP --force` replaced the other sweep's folder whole, results and all."""
    for name in ("a", "b"):
        (tmp_path / f"{name}.yaml").write_text(f"name: {name}\nhardware: h100-sxm\nmodel: llama-3.1-8b\naxes:\n  batch: [1, 8]\n")
        assert roofline("sweep", tmp_path / f"{name}.yaml", "--out", tmp_path / name, "--no-plots")[0] == 0
    code, _, err = roofline("plot", tmp_path / "a", "--out", tmp_path / "b", "--force")
    assert code == 2 and "holds another sweep's results (results.csv, results.parquet)" in err
    assert (tmp_path / "b" / "results.csv").is_file() and (tmp_path / "b" / "scenario.json").is_file()
    assert roofline("plot", tmp_path / "a", "--out", tmp_path / "plots")[0] == 0
    assert roofline("plot", tmp_path / "a", "--out", tmp_path / "plots", "--force")[0] == 0  # its own plots: replaced


@pytest.mark.slow
def test_a_device_or_fifo_given_as_a_file_is_refused_in_one_line(roofline, tmp_path):
    """qa114: /dev/zero as a result file read until memory ran out; a FIFO as a profile blocked for ever; elsewhere
    they were 'file not found' or 'an empty file'."""
    import os

    (tmp_path / "zero.json").symlink_to("/dev/zero")
    (tmp_path / "zero.csv").symlink_to("/dev/zero")
    (tmp_path / "zero.yaml").symlink_to("/dev/zero")
    os.mkfifo(tmp_path / "fifo.yaml")
    for args in (("measurements", "convert", tmp_path / "zero.json", "--hardware", "h100", "--model", "llama-3.1-8b",
                  "--out", tmp_path / "z.csv"),
                 ("fit", tmp_path / "zero.csv"), ("sweep", tmp_path / "fifo.yaml"), ("predict", "--model", tmp_path / "zero.yaml")):
        code, out, err = roofline(*args)
        assert code == 2 and err.strip().endswith(("expected a regular file, found a device",
                                                   "expected a regular file, found a FIFO")), (args, err)
    code, out, _ = roofline("hw", "validate", tmp_path / "fifo.yaml")
    assert code == 2 and "expected a regular file, found a FIFO" in out


@pytest.mark.slow
def test_plot_and_cheapest_refuse_damaged_tables_in_one_line(roofline, tmp_path):
    """qa114: a blank hardware cell, batch 0 or speedups of nothing crashed plot; a scenario.json of a list, or random
    bytes, and a damaged operators.csv too (or it was blamed on results.csv); cheapest said a table of no rows had
    none that fit, and exited 0."""
    import shutil

    import pandas as pd

    (tmp_path / "s.yaml").write_text("name: s\nhardware: h100-sxm\nmodel: llama-3.1-8b\nmethod: eagle\n"
                                     "axes:\n  batch: [1, 8]\n  k: [0, 2]\n  alpha: [0.8]\n")
    assert roofline("sweep", tmp_path / "s.yaml", "--out", tmp_path / "sw", "--no-plots")[0] == 0
    table = pd.read_csv(tmp_path / "sw" / "results.csv")
    for column, value, said in (("hardware", "", "hardware: expected a name, found an empty or NaN cell (line 2)"),
                                ("batch", 0, "batch: expected a whole number in 1..2,147,483,647, found 0 (line 2)"),
                                ("speedup", float("nan"), "speedup: expected a number above 0 up to 1e+15, found an empty or NaN cell (line 2)")):
        bad = table.copy()
        bad.loc[0, column] = value
        bad.to_csv(tmp_path / "bad.csv", index=False)
        code, _, err = roofline("plot", tmp_path / "bad.csv", "--out", tmp_path / "pb")
        assert code == 2 and err.strip() == f"error: {tmp_path / 'bad.csv'}: {said}", err
    for name, content, said in (("scenario.json", b"[1, 2]", "found list"), ("scenario.json", bytes(range(128, 256)), "expected UTF-8"),
                                ("operators.csv", b'"a,b\n1,2\n', "operators.csv: expected an operators table (CSV), found")):
        copy = tmp_path / f"copy-{name}-{len(content)}"
        shutil.copytree(tmp_path / "sw", copy)
        (copy / name).write_bytes(content)
        code, _, err = roofline("plot", copy, "--out", tmp_path / f"p-{len(content)}")
        assert code == 2 and said in err and err.count("\n") == 1, err
    table.iloc[:0].to_parquet(tmp_path / "empty.parquet")
    code, _, err = roofline("cheapest", tmp_path / "empty.parquet", "--min-tokens-per-user", "50")
    assert code == 2 and "expected a sweep results table with at least one row, found none" in err


def test_an_empty_profiles_folder_and_sweep_options_beside_bench_jobs_are_refused(roofline):
    """qa114: `--profiles ''` (an unset "$DIR") searched the working folder in silence; `bench --jobs --format xml`
    ran the jobs and exited 0."""
    for args in (("--profiles", "", "hw", "list"), ("hw", "list", "--profiles=")):
        code, out, err = roofline(*args)
        assert code == 2 and not out and err.strip() == ("error: --profiles: expected a folder, found an empty string "
                                                         "(write '.' for the working folder)")
    code, _, err = roofline("bench", "--jobs", "--format", "xml")
    assert code == 2 and "--jobs: times the README's main jobs as they are, which --format does not change: leave it out" in err
    code, _, err = roofline("sweep", "eagle-on-hopper", "--svg", "--no-plots", "--out", "never-written")
    assert code == 2 and "--svg: expected with the plots, found --no-plots beside it" in err
    code, _, err = roofline("cheapest", "never-read", "--force")
    assert code == 2 and "--force: expected with --out FILE" in err


@pytest.mark.slow
def test_qa116_review_mends(roofline, tmp_path, monkeypatch):
    """qa116: plot refused a sweep's own 2 MB scenario.json (the 1 MB profile limit); cheapest blocked on a FIFO
    scenario.json; a --where that left no speculative row said the table had none; a folder named in the working
    folder with no scenario of that name was 'unknown scenario'; a blank --draft-hardware did not name the flag."""
    import json
    import os

    (tmp_path / "s.yaml").write_text("name: s\nhardware: h100-sxm\nmodel: llama-3.1-8b\nmethod: eagle\n"
                                     "axes:\n  batch: [1, 8]\n  k: [0, 2]\n  alpha: [0.8]\n")
    assert roofline("sweep", tmp_path / "s.yaml", "--out", tmp_path / "sw", "--no-plots")[0] == 0
    meta = json.loads((tmp_path / "sw" / "scenario.json").read_text())
    meta["padding"] = "x" * 1_500_000  # a sweep of many axis values writes a scenario.json this large
    (tmp_path / "sw" / "scenario.json").write_text(json.dumps(meta))
    assert roofline("plot", tmp_path / "sw", "--out", tmp_path / "p")[0] == 0
    code, out, _ = roofline("cheapest", tmp_path / "sw", "--min-tokens-per-user", "10", "--where", "k=0")
    assert code == 0 and "the rows --where selects have no speculative rows" in out
    os.remove(tmp_path / "sw" / "scenario.json")
    os.mkfifo(tmp_path / "sw" / "scenario.json")
    assert roofline("cheapest", tmp_path / "sw", "--min-tokens-per-user", "10")[0] == 0  # read as none, not blocked on
    monkeypatch.chdir(tmp_path)
    (tmp_path / "myfolder").mkdir()
    code, _, err = roofline("sweep", "myfolder")
    assert code == 2 and err.strip() == "error: myfolder: expected a scenario file, found a folder"
    code, _, err = roofline("predict", "--method", "eagle", "--alpha", "0.7", "--draft-hardware", " ")
    assert code == 2 and err.startswith("error: command line: --draft-hardware: ")


def test_an_output_path_in_a_loop_of_links_is_one_line_not_a_traceback(tmp_path, roofline):
    """qa246: pathlib's resolve() raises RuntimeError for a loop before Python 3.13: a traceback, exit 1."""
    (tmp_path / "loop1").symlink_to(tmp_path / "loop2")
    (tmp_path / "loop2").symlink_to(tmp_path / "loop1")
    code, _, err = roofline("sweep", "flops-vs-time", "--no-plots", "--out", tmp_path / "loop1")
    assert code == 2 and err.strip() == f"error: {tmp_path / 'loop1'}: Too many levels of symbolic links", err


def test_an_empty_path_is_one_line_not_the_working_folder(roofline, tmp_path, monkeypatch):
    """qa246: `accuracy --file ""` said '.: ... found a folder', `hw new --dir ""` wrote into the working folder: Path('')
    is '.', as --profiles '' was refused for (qa114)."""
    monkeypatch.chdir(tmp_path)
    for args, said in ((("accuracy", "--file", ""), "--file: expected a path, found an empty string"),
                       (("fit", ""), "FILE: expected a path, found an empty string"),
                       (("cheapest", " "), "TABLE: expected a path, found an empty string"),
                       (("sweep", "flops-vs-time", "--out="), "--out: expected a path, found an empty string"),
                       (("hw", "new", "x1", "--from", "h100-sxm", "--dir", ""), "--dir: expected a path, found an empty string"),
                       (("fit", "--", ""), "FILE: expected a path, found an empty string")):  # past '--' too (qa253)
        code, _, err = roofline(*args)
        assert code == 2 and f"error: command line: {said}" in err, (args, err)
    assert list(tmp_path.iterdir()) == []  # nothing written


def test_a_word_the_locale_could_not_decode_is_one_line(roofline, tmp_path, monkeypatch):
    """qa394: `sweep --out résultats --format parquet` under LC_ALL=C with PYTHONUTF8=0 gave a pyarrow traceback: Python
    keeps the bytes it cannot decode as lone surrogates, which no writer can encode again. One line naming the bytes."""
    monkeypatch.chdir(tmp_path)
    undecoded = "r\udcc3\udca9sultats"  # b'r\xc3\xa9sultats' read by an ASCII locale with surrogateescape
    code, out, err = roofline("sweep", "flops-vs-time", "--out", undecoded, "--format", "parquet", "--no-plots")
    assert code == 2 and out == "" and len(err.splitlines()) == 1, err
    assert err.startswith("error: command line: 'r\\xc3\\xa9sultats': expected text the locale's encoding"), err
    assert "LC_ALL=C.UTF-8" in err and list(tmp_path.iterdir()) == []


@pytest.mark.slow
def test_an_empty_path_is_told_to_write_a_dot_only_where_a_dot_is_taken(roofline, tmp_path):
    """qa288: `cheapest --out ""` (a CSV file) was told "write '.' for the working folder", which names no file; qa289:
    so was `sweep --out ""`, whose output folder refuses '.' (the working folder or one above it)."""
    for args, folder in ((("cheapest", str(tmp_path), "--out", ""), False), (("fit", ""), False),
                         (("cheapest", ""), True), (("sweep", "flops-vs-time", "--out", ""), False),
                         (("hw", "new", "x1", "--from", "h100-sxm", "--dir", ""), True)):
        code, _, err = roofline(*args)
        assert code == 2 and "expected a path, found an empty string" in err, (args, err)
        assert ("write '.' for the working folder" in err) == folder, (args, err)


@pytest.mark.slow
def test_a_bad_search_path_is_the_environments_not_an_options(roofline, tmp_path, monkeypatch):
    """qa288: a ROOFLINE_PATH naming nothing was blamed on --hardware ('command line: --hardware: ROOFLINE_PATH: ...')."""
    monkeypatch.setenv("ROOFLINE_PATH", str(tmp_path / "none"))
    for args in (("predict", "--hardware", "h100-sxm", "--model", "llama-3.1-8b"), ("hw", "show", "h100-sxm")):
        code, _, err = roofline(*args)
        assert code == 2 and err == f"error: ROOFLINE_PATH: {tmp_path / 'none'}: expected a folder of profiles, found no such file or folder\n", err


@pytest.mark.slow
@pytest.mark.parametrize("text", ["axes:\n  batch: [{big}]\n", "axes:\n  batch: {big}\n",
                                  "axes:\n  batch: {{start: 1, stop: {big}, num: 3}}\n", "axes:\n  alpha: [{big}]\n"])
def test_an_integer_too_large_for_a_float_in_a_scenario_is_one_line(tmp_path, text):
    """The fuzzer: a YAML integer of 400 digits raised OverflowError from math.isfinite (a traceback)."""
    path = tmp_path / "big.yaml"
    path.write_text("name: big\nhardware: h100-sxm\nmodel: llama-3.1-8b\n" + text.format(big=10**400))
    result = run_main("sweep", str(path), "--no-plots", "--out", str(tmp_path / "out"))
    assert result.returncode == 2 and "Traceback" not in result.stderr, result.stderr
    assert "big.yaml: line 5: axes." in result.stderr and not (tmp_path / "out").exists()


@pytest.mark.slow
def test_an_integer_too_large_for_a_float_in_an_engine_profile_is_one_line(tmp_path):
    result = run_main("engines", "new", "big", "--from", "vllm", "--set", f"overlap_exponent={10**400}", "--dir", str(tmp_path))
    assert result.returncode == 2 and "overlap_exponent: expected a number in [1, 100]" in result.stderr, result.stderr
    assert not (tmp_path / "big.yaml").exists()


def test_a_sweeps_warnings_name_its_scenario_file(tmp_path, roofline):
    """qa319: `roofline sweep FILE` said its configs' warnings with no file ('warning: dp_attention 4: ...'), where
    `scenarios validate` and `show` name it."""
    path = tmp_path / "dpd.yaml"
    path.write_text("name: dpd\nhardware: h100-sxm\nmodel: deepseek-v3\ntp: 1\ndp_attention: 8\nep: 8\n"
                    "axes: {batch: [1, 64], context: [1024]}\n")
    code, _, err = roofline("sweep", path, "--out", tmp_path / "out", "--no-plots")
    lines = [line for line in err.splitlines() if line.startswith("warning: ")]
    assert code == 0 and lines and all(line.startswith(f"warning: {path}: ") for line in lines), err


def test_a_shared_prefix_past_the_default_context_is_told_it_is_the_default(roofline):
    """qa349: '0..1,024 (the context, 1,024 ...)' where the user gave no context."""
    code, _, err = roofline("predict", "--shared-prefix", "3000", "--prompt", "4000")
    assert code == 2 and "(the context, 1,024, the default: give --context, or --output-len beside --prompt for a " in err


@pytest.mark.slow
def test_a_sweep_of_several_contexts_says_its_roofline_stays_at_the_first_and_an_svg_keeps_its_text(roofline, tmp_path):
    """qa393: `plot --where context=16384` was suggested for the roofline figure, which operators.csv holds at the first
    context only; the SVGs stored every label as paths, not text a paper's author can edit."""
    path = tmp_path / "two.yaml"
    path.write_text("name: two\nhardware: h100-sxm\nmodel: llama-3.1-8b\nmethod: eagle\naxes:\n  batch: [1, 8]\n"
                    "  context: [1024, 8192]\n  k: [2]\n  alpha: [0.8]\n")
    code, _, err = roofline("sweep", path, "--out", tmp_path / "out", "--svg")
    assert code == 0 and ("note: the roofline figure is at the first context swept, 1,024: operators.csv holds that one "
                          "only, so `plot --where context=...` redraws the other figures, not it") in err, err
    svg = (tmp_path / "out" / "roofline.svg").read_text()
    assert svg.count("<text") > 10 and "Roofline" in svg
    one = tmp_path / "one.yaml"
    one.write_text("name: one\nhardware: h100-sxm\nmodel: llama-3.1-8b\naxes:\n  batch: [1, 8]\n  context: [1024]\n")
    code, _, err = roofline("sweep", one, "--out", tmp_path / "out1")
    assert code == 0 and "roofline figure is at the first context" not in err
    assert "operators.csv holds the first context swept only" in " ".join(roofline("plot", "--help")[1].split())


@pytest.mark.slow
def test_a_point_between_swept_batches_within_a_rounding_of_the_pick_says_how_much_cheaper(roofline, tmp_path):
    """qa392: '$0.118' for the swept pick and '$0.118' for the point computed now (0.59% cheaper, so shown) read as no
    gain."""
    import re

    src = (Path(cli.__file__).parent / "scenarios" / "eagle-on-hopper.yaml").read_text()
    path = tmp_path / "eoh-serve.yaml"
    path.write_text(src.replace("name: eagle-on-hopper", "name: eoh-serve") + "\nprompt: 1024\noutput_len: 256\n")
    assert roofline("sweep", path, "--out", tmp_path / "out", "--no-plots")[0] == 0
    code, out, _ = roofline("cheapest", tmp_path / "out", "--min-tokens-per-user", "50", "--serving")
    picks = re.findall(r"^  speculation  \$(\S+) at .*\n\s+between swept batches, computed now: \$(\S+) at .*\((\d\.\d\d)% below the "
                       r"swept pick's cost\)$", out, re.M)
    assert code == 0 and picks and picks[0][0] == picks[0][1] and 0 < float(picks[0][2]) < 1, out[:1500]
    assert "% below the swept pick's cost" not in out.split("speculation  $")[0]  # plain's: $0.235 against $0.222, apart


@pytest.mark.slow
def test_a_reader_that_closes_stdout_early_gets_the_shells_sigpipe_code_not_cheapests_1():
    """qa394: `roofline hw list | true` exited 1 in silence, the code `cheapest` gives where no row reaches the speed
    asked; a script under pipefail could not tell the two apart. Now 141 (128 + SIGPIPE), as `yes | head` gives."""
    import os

    reader_gone = subprocess.Popen([sys.executable, str(ROOT / "cli.py"), "hw", "list"], stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE, cwd=ROOT)
    reader_gone.stdout.close()  # nobody reads: the first write meets a closed pipe
    assert reader_gone.wait(timeout=60) == cli.SIGPIPE_EXIT == 141
    assert reader_gone.stderr.read() == b""  # no traceback, no word: the reader chose to stop
    whole = subprocess.run([sys.executable, str(ROOT / "cli.py"), "hw", "list"], stdout=subprocess.PIPE, cwd=ROOT,
                           env={**os.environ})
    assert whole.returncode == 0 and whole.stdout.count(b"\n") > 10
