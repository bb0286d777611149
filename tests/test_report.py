"""Tests for roofline.report: the report is written whole with a
finding, a figure and a command per section, and the HTML page opens in a headless browser."""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess

import numpy as np
import pandas as pd
import pytest

from roofline.errors import RooflineError
from roofline.report import write_report


def test_a_method_mapping_must_name_every_model_once():
    from roofline.scenario import scenario_from_dict

    with pytest.raises(RooflineError, match="method: expected a method for each model"):
        scenario_from_dict({"hardware": "h100-sxm", "model": ["llama-3.1-8b", "deepseek-v3"], "method": {"llama-3.1-8b": "eagle"}}, "x.yaml")


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    out = tmp_path_factory.mktemp("r") / "report"
    files = write_report(("flops-vs-time", "prefill-not-sped-up"), out, workers=2)
    return out, files


@pytest.mark.slow
def test_the_report_writes_markdown_html_figures_and_tables_with_a_command_per_section(report):
    out, files = report
    names = {p.relative_to(out).as_posix() for p in files}
    assert names == {"report.md", "report.html", "img/flops-vs-time.png", "img/prefill-not-sped-up.png",
                     "tables/flops-vs-time.csv", "tables/prefill-not-sped-up.csv",
                     "tables/flops-vs-time.json", "tables/prefill-not-sped-up.json"}  # what each was swept with
    md = (out / "report.md").read_text()
    assert "## 1. More compute, less time" in md and "## 2. Prefill is not sped up" in md
    assert "roofline report flops-vs-time --out " + shlex.quote(f"{out}-flops-vs-time") in md  # beside the report's folder
    assert md.count("![") == 2
    assert "**Assumptions**" in md and "- Prices per device-hour, from the hardware profiles: NVIDIA H100 SXM5 80GB $3.00" in md


@pytest.mark.slow
def test_the_html_page_inlines_its_images_and_needs_nothing_else(report):
    out, _ = report
    page = (out / "report.html").read_text()
    assert page.count('src="data:image/png;base64,') == 2
    assert not re.search(r'src="(?!data:)', page) and "<link" not in page and "<script" not in page


@pytest.mark.slow
def test_the_report_refuses_an_existing_folder_without_force(report):
    out, _ = report
    with pytest.raises(RooflineError, match="pass --force"):
        write_report(("flops-vs-time",), out)


def _chromium():
    return shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")


@pytest.mark.slow
def test_the_html_report_renders_in_headless_chromium_with_its_sections_and_images(report, tmp_path):
    browser = _chromium()
    if browser is None:
        pytest.skip("chromium not installed (apt-get install -y chromium): the browser check of report.html is skipped")
    out, _ = report
    url = (out / "report.html").resolve().as_uri()
    flags = ["--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", f"--user-data-dir={tmp_path / 'profile'}"]
    dom = subprocess.run([browser, *flags, "--dump-dom", url], capture_output=True, text=True, timeout=120).stdout
    assert "1. More compute, less time" in dom and "2. Prefill is not sped up" in dom
    assert dom.count("<img") == 2
    shot = tmp_path / "shot.png"
    subprocess.run([browser, *flags, f"--screenshot={shot}", "--window-size=1200,2400", url], capture_output=True, timeout=120)
    from matplotlib.image import imread

    pixels = imread(shot)
    assert pixels.shape[0] == 2400 and pixels.shape[1] == 1200
    # the page is not blank: a good share of pixels is not white (figures, text), and some are coloured (plot lines)
    rgb = pixels[..., :3]
    assert (rgb.min(axis=2) < 0.9).mean() > 0.05
    assert (np.ptp(rgb, axis=2) > 0.2).mean() > 0.001


def test_each_configs_rows_get_their_own_time_to_first_token():
    """The prefill was matched to rows on hardware, model, engine, method, drafter device and tp only: a sweep over
    weight dtypes gave every row the last dtype's time to first token."""
    from roofline.engine import ttft_s
    from roofline.hardware import load_hardware
    from roofline.layout import deployment
    from roofline.model import load_model
    from roofline.report import _sweep
    from roofline.serving import load_engine

    data = {"name": "t", "hardware": "h100-sxm", "model": "llama-3.1-70b", "tp": 4, "weight_dtype": ["bf16", "fp8"],
            "method": "draft", "draft": "llama-3.2-1b", "axes": {"batch": [1], "context": [32768], "k": [0, 4], "alpha": [0.8]}}
    df, _, _ = _sweep(data, "t", ())
    hw, model, engine = load_hardware("h100-sxm"), load_model("llama-3.1-70b"), load_engine("vllm").for_hardware("h100-sxm")
    for dtype in ("bf16", "fp8"):
        want = float(ttft_s(hw, model, 32768, deployment(model, weight_dtype=dtype, tp=4), engine))
        assert df.loc[df["weight_dtype"] == dtype, "ttft_s"].to_numpy() == pytest.approx(want, rel=1e-12)
    assert df.loc[df["weight_dtype"] == "bf16", "ttft_s"].iloc[0] > df.loc[df["weight_dtype"] == "fp8", "ttft_s"].iloc[0]


@pytest.mark.slow
def test_a_users_scenario_named_like_a_question_is_answered_on_one_config_or_by_the_generic_finding(tmp_path):
    """The draft-offload question with a tp axis averaged tp 4 and 8 (2.36x, no real config's) and said '1 x H100';
    with one drafter placement, and the break-even question with one alpha, the report died with a traceback."""
    import yaml as pyyaml

    from roofline.profiles import builtin_dir

    folder = tmp_path / "mine"
    folder.mkdir()
    offload = pyyaml.safe_load((builtin_dir("scenario") / "draft-offload.yaml").read_text())
    (folder / "draft-offload.yaml").write_text(pyyaml.safe_dump({**offload, "tp": [4, 8]}))
    one = {**offload, "draft_hardware": ["l4"]}
    (tmp_path / "draft-offload.yaml").write_text(pyyaml.safe_dump(one))
    beb = pyyaml.safe_load((builtin_dir("scenario") / "break-even-batch.yaml").read_text())
    beb["axes"]["alpha"] = [0.8]
    (folder / "break-even-batch.yaml").write_text(pyyaml.safe_dump(beb))
    out = tmp_path / "rep"
    write_report((str(folder / "draft-offload.yaml"), str(folder / "break-even-batch.yaml")), out, workers=1)
    text = (out / "report.md").read_text()
    table = pd.read_csv(out / "tables" / "draft-offload.csv")
    tp4 = table[(table["tp"] == 4) & (table["draft_hardware"].isna()) & (table["batch"] == 1) & table["fits_in_memory"]
                & (table["hardware"] == table["hardware"].iloc[0])]
    assert "on 4 × H100 SXM5, co-location wins" in text and f"{tp4['speedup'].max():.2f}×" in text
    assert "its answer and figure hold tp 4 (of 4, 8), and the table holds every row" in text
    assert "Free until compute-bound" in text and "At higher acceptance" not in text  # one alpha: no higher one
    write_report((str(tmp_path / "draft-offload.yaml"),), tmp_path / "rep2", workers=1)  # no runner-up placement
    assert "so it is the generic finding" in (tmp_path / "rep2" / "report.md").read_text()


@pytest.mark.slow
def test_a_copy_of_a_question_s_scenario_answers_that_question(roofline, tmp_path, monkeypatch):
    """qa188: the break-even finding told readers that a copy of its scenario with another engine gives that engine's
    batches, and `scenarios new my-sc --from break-even-batch` got the generic section: a report picked the question by
    the scenario's name. A copy now says `question: break-even-batch`, which the report reads; a question no report
    has is refused in one line."""
    monkeypatch.setenv("ROOFLINE_USER_DIR", str(tmp_path))
    code, _, err = roofline("scenarios", "new", "my-be", "--from", "break-even-batch", "--set", "engine=sglang")
    assert code == 0, err
    assert "\nname: my-be\nquestion: break-even-batch\n" in (tmp_path / "my-be.yaml").read_text()
    write_report(("my-be",), tmp_path / "rep", workers=1)
    text = (tmp_path / "rep" / "report.md").read_text()
    assert "## 1. Free until compute-bound" in text and "engine sglang" in text.replace("serving engine: sglang", "engine sglang")
    assert "roofline report" in text and "my-be" in text
    code, _, err = roofline("scenarios", "set", "my-be", "question=break-even")
    assert code == 2 and "question: expected one of the report's questions (verify-mini-prefill, " in err, err


def report_warnings(paths, out) -> list[str]:
    """What write_report warned about, running the given scenario files into `out` (one worker)."""
    with pytest.warns(Warning) as caught:
        write_report([str(p) for p in paths], out, workers=1)
    return [str(w.message) for w in caught]


def test_a_section_says_what_its_sweep_warned_about(tmp_path):
    """The sweep warned that MTP past DeepSeek-V3's one module reuses it (and that a layout engines refuse was swept);
    the report's finding headlined those rows and said nothing of it."""
    scenario = tmp_path / "mtp.yaml"
    scenario.write_text("name: mtp-layouts\nhardware: h200\nmodel: deepseek-v3\nmethod: mtp\n"
                        "layouts: [{tp: 8}, {tp: 32}]\naxes:\n  batch: [8, 64, 64]\n  k: [1, 3]\n  alpha: [0.8]\n")
    said = report_warnings([scenario], tmp_path / "out")
    assert any("k up to 3 exceeds its 1 trained MTP module" in w for w in said)
    assert any("deepseek-v3 at tp 32: the checkpoint's 128 x 128 block scales" in w for w in said)
    # on stderr each names its scenario, as its section does (two sections' same words read as one; qa88)
    assert any(w.startswith("mtp-layouts: mtp on deepseek-v3: k up to 3") for w in said)
    md = (tmp_path / "out" / "report.md").read_text()
    section = md[md.index("Warnings from the sweep (all its rows"):]
    assert "- mtp on deepseek-v3: k up to 3 exceeds its 1 trained MTP module" in section
    assert "- deepseek-v3 at tp 32: the checkpoint's 128 x 128 block scales do not divide" in section
    html_text = (tmp_path / "out" / "report.html").read_text()
    assert '<ul class="warnings"><li>' in html_text and "trained MTP module" in html_text
    # a warning naming the scenario's file is said by the scenario's name: a shared report carried this machine's
    # path (qa101)
    assert "mtp-layouts: axes.batch: 3 values given, 2 distinct: a value given twice (or two alike to 12 digits) is swept once" in said
    warned = section[:section.index("\n\n", section.index("- "))]  # the list (the section's command names the file)
    assert "- axes.batch: 3 values given, 2 distinct: a value given" in warned and str(tmp_path) not in warned


@pytest.mark.slow
def test_words_several_scenarios_warn_alike_are_said_once_naming_them_all(tmp_path):
    """The main job said one engine's caveat five times on stderr, once a scenario that swept it: said alike, it is
    said once after every name that said it, and each section still lists it."""
    for name in ("first", "second"):
        (tmp_path / f"{name}.yaml").write_text(f"name: {name}\nhardware: h100-sxm\nmodel: llama-3.1-8b\nmethod: eagle\n"
                                              "axes:\n  batch: [1, 8, 8]\n  k: [1, 2]\n  alpha: [0.7]\n")
    said = report_warnings([tmp_path / "first.yaml", tmp_path / "second.yaml"], tmp_path / "out")
    twice = [w for w in said if "axes.batch: 3 values given, 2 distinct" in w]
    assert len(twice) == 1 and twice[0].startswith("first, second: axes.batch: 3 values given"), said
    md = (tmp_path / "out" / "report.md").read_text()
    assert md.count("- axes.batch: 3 values given, 2 distinct") == 2  # each section says it under its heading


def test_the_reports_lower_bound_and_evidence_notes_are_counted_on_stderr_and_said_whole_in_their_sections():
    """qa301: the main job printed 35 warnings, most of them break-even lower bounds and engine values fitted elsewhere,
    burying the few that change a reading; those two kinds are counted on stderr (each section of report.md says them
    whole), the rest said as before."""
    import types

    from roofline.errors import RooflineWarning
    from roofline.report import say_grouped

    bound = "break_even_batch is the sweep's last batch, 16, in 3 (config, context, alpha, k) cell(s) where ..."
    fitted = "engine vllm: spec_per_iteration (986 us) were fitted on draft and eagle rows only, and ..."
    family = "engine vllm was fitted on rows from AMD Instinct devices only (its fitted.hardware_families), and b200 ..."
    other = "under vllm, speculation pays the engine's host work ..."
    flat = "eagle: each alpha is taken at every draft position, to k 6; acceptance falls ..."  # qa313: nine lines more
    results = [types.SimpleNamespace(name="a", warnings=(bound, fitted, other, flat)),
               types.SimpleNamespace(name="b", warnings=(bound.replace("16", "32"), family))]
    with pytest.warns(RooflineWarning) as caught:
        say_grouped(results)
    said = [str(w.message) for w in caught]
    assert said == ["a: under vllm, speculation pays the engine's host work ...",
                    "a, b: 2 notes on cells whose break_even_batch is a lower bound or dips below 1, each under its "
                    "section in report.md",
                    "a, b: 2 notes on engine values fitted on no row like the config (devices, model classes or methods), "
                    "each under its section in report.md",
                    "a: 1 note on alphas taken at every draft position (best k and the gains at larger k run optimistic), "
                    "each under its section in report.md"]
    # no report.md where a later scenario failed, and the report's own (late) notes are in no section: said whole (qa304)
    with pytest.warns(RooflineWarning) as caught:
        say_grouped(results, {"b": [bound]}, written=False)
    said = [str(w.message) for w in caught]
    assert f"a, b: {bound}" in said and f"b: {family}" in said and not any("each under its section" in w for w in said)
    with pytest.warns(RooflineWarning) as caught:
        say_grouped(results[:1], {"a": [bound.replace("16", "64")]})
    assert f"a: {bound.replace('16', '64')}" in [str(w.message) for w in caught]


@pytest.mark.slow
def test_what_earlier_scenarios_warned_is_said_when_a_later_one_fails(tmp_path):
    """Warnings are said once the sweeps have run (grouped); a scenario that fails after others must not swallow what
    they warned about (qa161: untested). A fault found by reading the scenarios (an unknown model) is said before any
    runs, alone (qa284); one found only as its sweep starts (more points than a report holds) after the others ran."""
    (tmp_path / "first.yaml").write_text("name: first\nhardware: h100-sxm\nmodel: llama-3.1-8b\nmethod: eagle\n"
                                        "axes:\n  batch: [1, 8, 8]\n  k: [1, 2]\n  alpha: [0.7]\n")
    (tmp_path / "second.yaml").write_text("name: second\nhardware: h100-sxm\nmodel: llama-3.1-8b\naxes:\n"
                                         "  batch: {start: 1, stop: 4096, num: 4096}\n  context: {start: 128, stop: 4096, num: 600}\n")
    with pytest.warns(Warning) as caught, pytest.raises(RooflineError, match="expected at most 2,000,000 points"):
        write_report([str(tmp_path / "first.yaml"), str(tmp_path / "second.yaml")], tmp_path / "out", workers=1)
    assert any(str(w.message).startswith("first: axes.batch: 3 values given, 2 distinct") for w in caught)
    assert not (tmp_path / "out").exists()  # whole or not at all
    (tmp_path / "second.yaml").write_text("name: second\nhardware: h100-sxm\nmodel: no-such-model\naxes:\n  batch: [1]\n")
    import warnings

    with warnings.catch_warnings(record=True) as caught, pytest.raises(RooflineError, match="no-such-model"):
        warnings.simplefilter("always")
        write_report([str(tmp_path / "first.yaml"), str(tmp_path / "second.yaml")], tmp_path / "out", workers=1)
    assert not caught and not (tmp_path / "out").exists()


@pytest.mark.slow
def test_a_question_a_sweep_cannot_answer_is_said_after_its_scenarios_own_warnings_by_its_name(tmp_path):
    """qa161: the fallback was said at once, before every grouped warning, and by the file's path where the others say
    the scenario's name."""
    path = tmp_path / "sp.yaml"
    path.write_text("name: shared-prefix\nhardware: h100-sxm\nmodel: llama-3.1-8b\nmethod: eagle\n"
                    "axes:\n  batch: [1, 8, 8]\n  k: [1, 2]\n  alpha: [0.7]\n")
    said = report_warnings([path], tmp_path / "out")
    own = next(i for i, w in enumerate(said) if w.startswith("shared-prefix: axes.batch: 3 values given"))
    fallback = next(i for i, w in enumerate(said) if "question cannot be answered from this sweep" in w)
    assert own < fallback and said[fallback].startswith("shared-prefix: the shared-prefix question") and str(path) in said[fallback]


def test_a_sections_command_carries_the_profile_folders_it_ran_with():
    """`report mine.yaml --profiles runs` printed `roofline report mine.yaml --out out/mine`, which fails where the
    scenario names an engine of those folders."""
    from types import SimpleNamespace

    from roofline.report import _command

    result = SimpleNamespace(name="mine", path="my runs/mine.yaml")
    assert _command(result, ("runs", "other dir")) == ("roofline report 'my runs/mine.yaml' --profiles runs --profiles 'other dir' "
                                                       "--out out/report-mine")
    assert _command(result, (), "my out").endswith("--out 'my out'")
    assert _command(result, (), "my out", force=True).endswith("--out 'my out' --force")  # the section alone: its folder


def test_the_html_writes_inline_code_as_code_and_keeps_a_section_together_in_print():
    """The reading paragraph showed '(`roofline accuracy` prints it)' with its backticks; printed, a section's heading
    could end a page with its finding and figure on the next."""
    from roofline.report import _CSS, READING, Section, _html

    assert "`roofline accuracy`" in READING  # Markdown in the source, code in the page
    section = Section("s", "A <title>", "Run `roofline sweep` & see", None, "roofline report s --out out/s", "desc `x.yaml`")
    page = _html([section], {}, 1.0, [])
    assert "`" not in page
    assert "(<code>roofline accuracy</code> prints it)" in page
    assert "Run <code>roofline sweep</code> &amp; see" in page and "desc <code>x.yaml</code>" in page
    assert "<h2>1. A &lt;title&gt;</h2>" in page
    rules = {sel.strip(): body for sel, body in re.findall(r"([^{}]+)\{([^}]*)\}", _CSS)}
    together = [sel for sel, body in rules.items() if "break-inside:avoid" in body.replace(" ", "")]
    assert any("section" in sel and "img" in sel for sel in together), rules
    assert any("h2" in sel and "break-after:avoid" in body.replace(" ", "") for sel, body in rules.items()), rules


def test_the_opening_lists_its_assumptions_prices_decoding_only_the_default_engine_and_the_version():
    """The opening said nothing of the prices behind every cost, that costs leave prefill out, or which engine and
    version computed the report."""
    from types import SimpleNamespace

    import roofline
    from roofline.report import _assumptions, _html, _markdown
    from roofline.serving import DEFAULT_ENGINE

    results = [SimpleNamespace(meta={"hardware": {"h100-sxm": "NVIDIA H100 SXM5 80GB", "l40s": "NVIDIA L40S 48GB"},
                                     "price_usd_per_hour": {"h100-sxm": 3.0, "l40s": None}}),
               SimpleNamespace(meta={"hardware": {"h100-sxm": "NVIDIA H100 SXM5 80GB", "b200": "NVIDIA B200 (HGX, 180 GB)"},
                                     "price_usd_per_hour": {"h100-sxm": 3.0, "b200": 6.0}})]
    lines = _assumptions(results)
    text = "\n".join(lines)
    assert "NVIDIA H100 SXM5 80GB $3.00" in text and "NVIDIA B200 (HGX, 180 GB) $6.00" in text and "NVIDIA L40S 48GB no price" in text
    assert text.count("H100") == 1  # each device once
    assert "decoding only" in text and "not prefill" in text
    assert f"`{DEFAULT_ENGINE}`" in text and f"roofline {roofline.__version__}" in text
    md = _markdown([], 1.0, lines)
    assert md.index("upper estimates.") < md.index("**Assumptions**") and "- Prices per device-hour, from the hardware profiles: NVIDIA H100 SXM5 80GB $3.00" in md
    page = _html([], {}, 1.0, lines)
    assert '<ul class="assumptions">' in page and f"<code>{DEFAULT_ENGINE}</code>" in page
    # qa281: the terms the findings use, defined in the report itself (a report.html read alone defined only α)
    assert md.index("**Assumptions**") < md.index("**Terms**") and "- tau: tokens a sequence emits an iteration" in md
    for term in ("k: the draft length", "Verify pass:", "break-even batch:", "Derated ridge point:", "Host work:"):
        assert term in md and term in page, term


@pytest.mark.slow
def test_a_report_refuses_two_scenarios_whose_names_differ_only_in_case(roofline, tmp_path):
    """qa125: Shared-Prefix beside shared-prefix wrote img/Shared-Prefix.png and img/shared-prefix.png, one file on a
    case-insensitive file system; the same name given twice ran both sweeps before it was refused."""
    from roofline.profiles import builtin_dir

    path = tmp_path / "Shared-Prefix.yaml"
    path.write_text((builtin_dir("scenario") / "shared-prefix.yaml").read_text().replace("name: shared-prefix", "name: Shared-Prefix"))
    code, _, err = roofline("report", path, "shared-prefix", "--out", tmp_path / "r")
    assert code == 2 and "name: expected each scenario once in a report (names case aside" in err and not (tmp_path / "r").exists()
    code, _, err = roofline("report", "shared-prefix", "Shared-prefix", "--out", tmp_path / "r")
    assert code == 2 and err.strip() == "error: NAMES: expected each scenario once in a report, found 'Shared-prefix' twice"


def test_a_folder_given_as_a_scenario_is_said_to_be_one(roofline, tmp_path):
    """qa125: `roofline report scen/` said 'unknown scenario' with names suggested; a folder given by path is one."""
    (tmp_path / "scen").mkdir()
    code, _, err = roofline("report", f"{tmp_path / 'scen'}/", "--out", tmp_path / "r")
    assert code == 2 and err.strip().endswith("scen: expected a scenario file, found a folder")  # as sweep says it
    code, _, err = roofline("report", "/dev/null", "--out", tmp_path / "r")  # a device: said, as sweep says it (qa126)
    assert code == 2 and "found a device" in err and "unknown scenario" not in err, err


@pytest.mark.slow
def test_two_files_whose_paths_differ_only_in_case_are_two_scenarios(roofline, tmp_path, monkeypatch):
    """qa126: cs/A.yaml (name alpha) and cs/a.yaml (name beta) were refused as one scenario given twice; qa129: so were
    the files s.txt and S.txt given from their folder (read as bare names, case aside)."""
    for stem, name in (("A.yaml", "alpha"), ("a.yaml", "beta"), ("s.txt", "gamma"), ("S.txt", "delta")):
        (tmp_path / stem).write_text(f"name: {name}\nhardware: h100-sxm\nmodel: llama-3.1-8b\naxes:\n  batch: [1]\n")
    code, _, err = roofline("report", tmp_path / "A.yaml", tmp_path / "a.yaml", "--out", tmp_path / "r")
    assert code == 0, err
    monkeypatch.chdir(tmp_path)
    code, _, err = roofline("report", "s.txt", "S.txt", "--out", tmp_path / "r2")
    assert code == 0 and {p.name for p in (tmp_path / "r2" / "tables").iterdir()} == {
        "gamma.csv", "delta.csv", "gamma.json", "delta.json"}, err


@pytest.mark.slow
def test_a_section_without_a_figure_says_why_in_both_pages(tmp_path):
    """qa126: a draft-offload sweep where no drafter fits anywhere had no figure and no word why."""
    from roofline.report import NO_FIGURE

    scenario = tmp_path / "draft-offload.yaml"
    scenario.write_text("name: draft-offload\nhardware: l4\nmodel: llama-3.1-8b\nmethod: draft\ndraft: llama-3.1-70b\n"
                        "draft_hardware: [null, a10g]\naxes:\n  batch: [1, 4]\n  context: [2048]\n  k: [1, 2]\n  alpha: [0.8]\n")
    write_report((str(scenario),), tmp_path / "rep", workers=1)
    text = (tmp_path / "rep" / "report.md").read_text()
    assert "no drafter fits at batch 1–4" in text and f"*{NO_FIGURE}*" in text and "![" not in text
    assert NO_FIGURE in (tmp_path / "rep" / "report.html").read_text() and not list((tmp_path / "rep").rglob("*.png"))


@pytest.mark.slow
def test_a_report_refuses_a_scenario_larger_than_it_holds_in_memory_before_sweeping(tmp_path):
    """qa135: 32M points (within the sweep's limit) were killed for memory after 11 minutes, leaving a folder behind."""
    scenario = tmp_path / "huge.yaml"
    scenario.write_text("name: huge\nhardware: h100-sxm\nmodel: llama-3.1-8b\n"
                        "axes: {batch: {start: 1, stop: 1000000, num: 1000000}, context: [512, 1024, 2048]}\n")
    with pytest.raises(RooflineError, match=r"huge\.yaml: axes: expected at most 2,000,000 points for a report, .* found "
                                            r"3,000,000 points \(`roofline sweep` writes larger sweeps in chunks\)"):
        write_report((str(scenario),), tmp_path / "out", workers=1)
    assert not (tmp_path / "out").exists() and not list(tmp_path.glob(".out*"))


def test_a_scenarios_description_does_not_repeat_its_name():
    """qa234: 'Scenario `be-vllm`: be-vllm: a copy of ...' (a copy's description leads with its name)."""
    from roofline.report import Section, _description

    section = Section("be-vllm", "t", "x", None, "cmd", "be-vllm: a copy of break-even-batch (serving engine: vllm)")
    assert _description(section) == "a copy of break-even-batch (serving engine: vllm)"
    assert _description(Section("s", "t", "x", None, "cmd", "be-vllm: other")) == "be-vllm: other"


@pytest.mark.slow
def test_cheapest_reads_what_a_reports_table_was_swept_with_from_the_json_beside_it(roofline, tmp_path, monkeypatch):
    """qa256: `cheapest tables/NAME.csv` of a report had no scenario.json: it dropped the per-position rates from its
    pick ('at rates ...') and could not price a speculative batch between the swept ones."""
    import json

    (tmp_path / "rates.yaml").write_text("name: rates\nhardware: h200\nmodel: llama-3.1-8b\nmethod: ngram\n"
                                         "acceptance: [0.8, 0.6, 0.45, 0.3]\naxes:\n  batch: [1, 8, 64]\n  k: [0, 2]\n")
    code, _, err = roofline("report", tmp_path / "rates.yaml", "--out", tmp_path / "r")
    assert code == 0, err
    meta = json.loads((tmp_path / "r" / "tables" / "rates.json").read_text())
    assert meta["scenario"] == "rates" and meta["acceptance"] == [0.8, 0.6, 0.45, 0.3] and "engine_values" not in meta
    code, out, err = roofline("cheapest", tmp_path / "r" / "tables" / "rates.csv", "--min-tokens-per-user", "100")
    assert "ngram k 2 at rates 0.8, 0.6, 0.45, 0.3" in out, out + err
    (tmp_path / "r" / "tables" / "rates.json").write_text(json.dumps({**meta, "scenario": "other"}))  # not this table's
    code, out, err = roofline("cheapest", tmp_path / "r" / "tables" / "rates.csv", "--min-tokens-per-user", "100")
    assert "at rates" not in out
    # qa257: a scenario named `scenario` wrote tables/scenario.json, which the report's other tables took as theirs
    (tmp_path / "scenario.yaml").write_text((tmp_path / "rates.yaml").read_text().replace("name: rates", "name: scenario")
                                            .replace("0.8, 0.6, 0.45, 0.3", "0.95, 0.9"))
    code, _, err = roofline("report", tmp_path / "scenario.yaml", tmp_path / "rates.yaml", "--out", tmp_path / "two")
    assert code == 0, err
    for name, rates in (("rates", "0.8, 0.6, 0.45, 0.3"), ("scenario", "0.95, 0.9")):
        code, out, err = roofline("cheapest", tmp_path / "two" / "tables" / f"{name}.csv", "--min-tokens-per-user", "100")
        assert f"ngram k 2 at rates {rates}" in out, (name, out + err)
    # qa263: plot reads the table's own NAME.json as cheapest does, not the report's tables/scenario.json
    from roofline.frontier import table_json

    tables = tmp_path / "two" / "tables"
    assert table_json(tables / "rates.csv")[0] == tables / "rates.json"
    assert table_json(tables / "scenario.csv")[0] == tables / "scenario.json"
    import roofline.frontier as frontier

    read = []
    checked = frontier.checked_meta
    monkeypatch.setattr(frontier, "checked_meta", lambda meta, path: (read.append(path), checked(meta, path))[1])
    code, _, err = roofline("plot", tables / "rates.csv", "--out", tmp_path / "P")
    assert code == 0 and read == [tables / "rates.json"], (read, err)
    # qa262: the tables folder read as a sweep's (a scenario named `results` its table), and --out over another table
    code, _, err = roofline("cheapest", tmp_path / "two" / "tables")
    assert code == 2 and "found a report's tables folder: name one of its tables (rates.csv, scenario.csv)" in err, err
    for command in ("cheapest", "plot"):  # qa281: the report's own folder named no table of it
        code, _, err = roofline(command, tmp_path / "two")
        assert code == 2 and err.strip().endswith(f"(a report's folder: name one of its tables, {tables}/NAME.csv: "
                                                  "rates.csv, scenario.csv)"), err
    code, _, err = roofline("cheapest", tmp_path / "two" / "tables" / "rates.csv", "--out", tmp_path / "two" / "tables" / "scenario.csv",
                            "--force")
    assert code == 2 and "scenario.csv is a report's own table: give the frontier another name" in err, err


@pytest.mark.slow
def test_a_reports_sweep_warnings_hold_its_lower_bound_and_dipping_break_evens(tmp_path):
    """qa280: the report's 'Warnings from the sweep (all its rows ...)' left out that break_even_batch is the sweep's last
    batch (a lower bound) in rows of its tables/*.csv, and where a batch below it loses, which `roofline sweep` of the
    same scenario says."""
    from roofline.report import run_scenario

    path = tmp_path / "mine.yaml"
    path.write_text("name: mine\nhardware: h100-sxm\nmodel: llama-3.1-70b\ntp: 4\nmethod: draft\ndraft: llama-3.2-1b\n"
                    "draft_hardware: l4\naxes:\n  batch: [1, 16, 32, 64, 128]\n  context: [2048]\n  k: [1]\n  alpha: [0.8]\n")
    r = run_scenario(str(path))
    assert any("break_even_batch is the sweep's last batch, 128, in" in w for w in r.warnings), r.warnings
    assert any("break_even_batch is the largest batch that pays, not the first that loses" in w for w in r.warnings)


@pytest.mark.slow
def test_a_question_finding_leaves_out_a_draft_model_of_another_tokenizer(tmp_path):
    """qa331: the break-even answer priced a draft model no engine runs (another vocabulary); it is left out as a method
    its engine refuses is, and where nothing else drafts the rows stay, said as no setup's."""
    from roofline.report import _without_refused_speculation, run_scenario

    path = tmp_path / "bev.yaml"
    path.write_text("name: bev\nquestion: break-even-batch\nhardware: h100-sxm\nmodel: llama-3.1-8b\nmethod: draft\n"
                    "draft: qwen3-0.6b\naxes:\n  batch: [1, 16]\n  context: [1024]\n  k: [0, 2]\n  alpha: [0.7]\n")
    r = run_scenario(str(path))
    kept, said, none_left = _without_refused_speculation(r.df, (), r.meta)
    assert none_left and not (kept["k"] > 0).any() and (kept["k"] == 0).all()
    assert said.startswith(" Left out, as no setup of the engine runs them: draft model qwen3-0.6b has a vocabulary")
    assert _without_refused_speculation(r.df, ())[1] == ""  # without the scenario's draft named, nothing to check


def test_a_reports_prefill_columns_price_a_drafting_row_as_its_engine_speculates(tmp_path):
    """qa356: sglang-early's speculating rows' ttft_s and draft_ttft_s were the cached prefix's, where predict gave the
    whole prompt's (its radix cache is off under EAGLE)."""
    import roofline
    from roofline.report import run_scenario

    path = tmp_path / "sp.yaml"
    path.write_text("name: sp\nhardware: h100-sxm\nmodel: llama-3.1-8b\nmethod: eagle\nengine: sglang-early\n"
                    "shared_prefix: 3000\nprompt: 4000\noutput_len: 200\naxes:\n  batch: [8]\n  k: [0, 3]\n  alpha: [0.8]\n")
    r = run_scenario(str(path), echo=False)
    plain, spec = (r.df[r.df["k"] == k].iloc[0] for k in (0, 3))
    p = roofline.predict("h100-sxm", "llama-3.1-8b", 8, engine="sglang-early", method="eagle", k=3, alpha=0.8,
                         prompt=4000, output_len=200, shared_prefix=3000)
    assert plain["ttft_s"] == pytest.approx(p["ttft_s"], rel=1e-9)  # plain decoding: the prefix cached
    assert spec["ttft_s"] + spec["draft_ttft_s"] == pytest.approx(p["ttft_with_speculation_s"], rel=1e-9)
    assert spec["ttft_s"] > 2.5 * plain["ttft_s"] and spec["draft_ttft_s"] == pytest.approx(p["draft_prefill_s"], rel=1e-9)


@pytest.mark.slow
def test_the_fast_tier_is_priced_at_the_largest_batch_that_fits_and_a_refused_drafter_said_so(tmp_path, roofline):
    """qa375: a batch axis stopping at 1,024 priced DeepSeek-V3's standard tier there, 24-51% above the largest batch that
    fits (as `cheapest` prices it), and moved every premium; the H100 panel, whose drafter fit only at pp 2, which
    vllm refuses to speculate at, said the drafter fit nowhere."""
    def tiers(name: str, body: str) -> str:  # the report of a fast-tier scenario of `body`, its Markdown
        scenario = tmp_path / f"{name}.yaml"
        scenario.write_text(f"name: {name}\nquestion: fast-tier-premium\n{body}")
        code, _, err = roofline("report", scenario, "--out", tmp_path / name)
        assert code == 0, err
        return (tmp_path / name / "report.md").read_text()

    text = tiers("tiers", "hardware: [h100-sxm, h200]\nmodel: llama-3.1-70b\nmethod: eagle\n"
                          "layouts: [{tp: 4, pp: 2}, {tp: 4}]\n"
                          "axes: {batch: [1, 8, 32, 64], context: [2048], k: [0, 3], alpha: [0.8]}\n")
    said = re.search(r"On H100 SXM5 \(8 × \$([0-9.]+) a device-hour\).*?costs \$([0-9.]+) per million tokens at ([0-9.]+) "
                     r"tokens/s per user \(batch ([0-9,]+), pp 2, no speculation; the largest batch that fits, computed now: "
                     r"the largest swept batch that fits is 64\)", text)
    assert said, text[:1500]
    batch = int(said.group(4).replace(",", ""))
    from roofline.api import predict

    p = predict("h100-sxm", "llama-3.1-70b", batch=batch, context=2048, tp=4, pp=2)
    assert p["max_batch"] == batch and p["cost_usd_per_million_tokens"] == pytest.approx(float(said.group(2)), rel=2e-3)
    # on H100 DeepSeek-V3 fits at tp 8 pp 2 alone, where vllm runs no speculation
    text = tiers("refused", "hardware: [h200, h100-sxm]\nmodel: deepseek-v3\nmethod: mtp\n"
                            "layouts: [{tp: 8}, {tp: 8, pp: 2}]\n"
                            "axes: {batch: [1, 8, 32], context: [2048], k: [0, 1], alpha: [0.8]}\n")
    assert "On H100 SXM5 the drafter fits only in rows no deployment runs" in text, text[:2000]
    assert "fits at no point swept" not in text
    # qa376: a computed tier above vllm's default 1,024 sequences, unsaid
    text = tiers("short", "hardware: h100-sxm\nmodel: qwen3-0.6b\nmethod: eagle\n"
                          "axes: {batch: [1, 8, 64, 512], context: [256], k: [0, 2], alpha: [0.8]}\n")
    said = re.search(r"\(batch ([0-9,]+), no speculation; the largest batch that fits, computed now: the largest swept "
                     r"batch that fits is 512; above the 1,024 sequences vllm runs at once by default: it assumes that cap "
                     r"raised\)", text)
    assert said and int(said.group(1).replace(",", "")) > 1024, text[:1500]


@pytest.mark.slow
def test_the_fast_tiers_say_another_engines_cheapest_tier_beside_the_one_they_price(tmp_path, roofline):
    """qa375: a report of vllm and sglang priced vllm's tiers ('engine vllm (of vllm, sglang)'), and SGLang's cheaper
    standard tier was said nowhere."""
    from roofline.api import predict

    scenario = tmp_path / "ft2.yaml"
    scenario.write_text("name: ft2\nquestion: fast-tier-premium\nhardware: h100-sxm\nmodel: llama-3.1-8b\n"
                        "engine: [vllm, sglang, ideal]\nmethod: eagle\n"
                        "axes: {batch: [1, 8, 32, 64, 256], context: [2048], k: [0, 3], alpha: [0.8]}\n")
    code, _, err = roofline("report", scenario, "--out", tmp_path / "r")
    assert code == 0, err
    text = (tmp_path / "r" / "report.md").read_text()
    mine = re.search(r"the cheapest tier without speculation costs \$([0-9.]+) per million tokens", text)
    said = re.search(r" Under sglang the cheapest tier without speculation on H100 SXM5 costs \$([0-9.]+) per million "
                     r"tokens at [0-9.]+ tokens/s per user \(batch ([0-9,]+), the largest that fits\), (\d+)% less\.", text)
    assert mine and said and "under ideal" not in text.lower(), text[:3000]
    batch = predict("h100-sxm", "llama-3.1-8b", engine="sglang", batch=1, context=2048)["max_batch"]
    theirs = predict("h100-sxm", "llama-3.1-8b", engine="sglang", batch=batch, context=2048)["cost_usd_per_million_tokens"]
    assert float(said[1]) == pytest.approx(theirs, rel=2e-3) and int(said[2].replace(",", "")) == batch
    assert abs(int(said[3]) - 100 * (1 - float(said[1]) / float(mine[1]))) <= 1  # of the 3-digit costs printed
    # qa381: an engine that prices no tier (trtllm on an MI300X) stopped the report with a KeyError
    scenario.write_text("name: ft3\nquestion: fast-tier-premium\nhardware: mi300x\nmodel: llama-3.1-8b\n"
                        "engine: [vllm, trtllm]\nmethod: eagle\n"
                        "axes: {batch: [1, 8, 64, 256], context: [2048], k: [0, 3], alpha: [0.8]}\n")
    code, _, err = roofline("report", scenario, "--out", tmp_path / "r3")
    assert code == 0, err
    assert "under trtllm" not in (tmp_path / "r3" / "report.md").read_text()


@pytest.mark.slow
def test_the_fast_tiers_price_the_batch_between_swept_ones_that_just_reaches_each_speed(tmp_path, roofline):
    """qa375's leftover: the 2x and 3x tiers were the cheapest swept point fast enough (batch 8 of 1, 8, 64, 256), the
    batch that just reaches the speed lying between two swept ones: priced now, as cheapest prices it."""
    import roofline as api

    scenario = tmp_path / "ftc.yaml"
    scenario.write_text("name: ftc\nquestion: fast-tier-premium\nhardware: h100-sxm\nmodel: llama-3.1-8b\nmethod: eagle\n"
                        "axes: {batch: [1, 8, 64, 256], context: [2048], k: [0, 3], alpha: [0.8]}\n")
    code, _, err = roofline("report", scenario, "--out", tmp_path / "r")
    assert code == 0, err
    text = (tmp_path / "r" / "report.md").read_text()
    said = re.search(r"costs \$([0-9.]+) per million tokens at ([0-9.]+) tokens/s per user .*?2× that speed costs "
                     r"([0-9.]+)× the price without speculation", text)
    assert said and "Points at batches between the swept ones are computed now" in text, text[:2500]
    every = api.sweep({"hardware": "h100-sxm", "model": "llama-3.1-8b", "axes": {"batch": list(range(1, 257)),
                                                                               "context": [2048]}})
    base = every[every["fits_in_memory"]].sort_values("cost_usd_per_million_tokens").iloc[0]
    assert float(said[1]) == pytest.approx(base["cost_usd_per_million_tokens"], rel=4e-3)  # 3 digits printed
    fast = every[every["fits_in_memory"] & (every["tokens_per_s_per_user"] >= 2 * base["tokens_per_s_per_user"])]
    tier = fast.sort_values("cost_usd_per_million_tokens").iloc[0]
    assert int(tier["batch"]) not in (1, 8, 64, 256)  # between the swept batches
    assert float(said[3]) == pytest.approx(tier["cost_usd_per_million_tokens"] / base["cost_usd_per_million_tokens"], abs=0.006)


def test_the_opening_says_an_eagle_head_is_priced_at_the_full_vocabulary_where_a_scenario_runs_one():
    """qa391: sections priced EAGLE as a full-vocabulary head (1.05 GB of LM head a draft step on Llama-3.1-8B) and never
    said so; an EAGLE-3 head of a 32k vocabulary gives 2.60x where the report said 2.26x."""
    from types import SimpleNamespace

    from roofline.report import _assumptions

    def said(*metas) -> bool:
        return any(line.startswith("An EAGLE head is priced as one decoder layer") for line in
                   _assumptions([SimpleNamespace(meta={"hardware": {}, "price_usd_per_hour": {}, **m}) for m in metas]))

    assert said({"method": "eagle"}) and said({"method": ["none", "eagle"]}) and said({"method_by_model": {"m": "eagle"}})
    assert said({"method": "draft"}, {"method": "eagle"})  # any section's
    assert not said({"method": "eagle", "draft_vocab": 32000}) and not said({"method": "mtp"}) and not said({})


def test_the_opening_gives_each_section_s_answer_in_one_sentence_linked_to_it():
    """qa391: a manager found no summary up front; the contents list each section's headline beside its link, before
    the assumptions, in the Markdown and the HTML alike."""
    from roofline.report import Section, _html, _markdown

    sections = [Section("a", "Free until compute-bound", "Long text.", None, "c", "d", (), "Pays up to batch `64`."),
                Section("b", "Shared prefix", "Other.", None, "c", "d", (), "Grows 16.5×.")]
    md = _markdown(sections, 1.0, ["An assumption."])
    assert "1. [Free until compute-bound](#1-free-until-compute-bound): Pays up to batch `64`." in md
    assert "2. [Shared prefix](#2-shared-prefix): Grows 16.5×." in md
    assert md.index("**In short**") < md.index("**Assumptions**") < md.index("## 1.")
    page = _html(sections, {}, 1.0, ["An assumption."])
    assert '<a href="#a">Free until compute-bound</a>: Pays up to batch <code>64</code>.' in page
    assert page.index("In short") < page.index("An assumption.")


def test_notes_on_the_tables_break_even_column_are_folded_below_the_warnings_a_finding_needs():
    """qa398: a section's warnings outweighed its finding, most of them notes on tables/NAME.csv's break_even_batch
    column; those fold into a <details> of their own, in the Markdown and the HTML, and the rest stay in sight."""
    from roofline.report import Section, _html, _markdown

    warned = ("a known miss of engine vllm: measured slower",
              "break_even_batch is the sweep's last batch, 16, in 3 (config, context, alpha, k) cell(s) where ...",
              "break_even_batch is the largest batch that fits (max_batch) in 2 cell(s) ...")
    section = Section("be", "Free until compute-bound", "Text.", None, "c", "d", warned, "Short.")
    md = _markdown([section], 1.0, [])
    shown = md[md.index("Warnings from the sweep"):md.index("<details>")]
    assert "- a known miss of engine vllm: measured slower" in shown and "break_even_batch" not in shown
    folded = md[md.index("<details>"):md.index("</details>")]
    assert "<summary>2 notes on the break_even_batch column of tables/be.csv (click to open)</summary>" in folded
    assert folded.count("- break_even_batch is") == 2
    page = _html([section], {}, 1.0, [])
    assert '<details class="warnings"><summary>2 notes on the break_even_batch column of tables/be.csv (click to open)</summary>' in page
    assert page.index("a known miss of engine vllm") < page.index("<details")
    only_notes = Section("be", "T", "Text.", None, "c", "d", warned[1:], "Short.")
    assert "Warnings from the sweep" not in _markdown([only_notes], 1.0, [])  # no empty list above the fold


@pytest.mark.slow
def test_a_section_without_a_headline_of_its_own_gives_its_first_sentence_in_short(tmp_path):
    """qa401: draft-offload's finding has no headline of its own; its In short entry is its text's first sentence
    (findings.headline), never empty."""
    out = tmp_path / "r"
    write_report(("draft-offload", "prefill-not-sped-up"), out, workers=1)
    md = (out / "report.md").read_text()
    line = next(x for x in md.splitlines() if x.startswith("1. [Draft on cheaper hardware]"))
    section = md[md.index("## 1. Draft on cheaper hardware"):]
    first = section.split("\n\n")[1].split(". ")[0]
    assert line.endswith(".") and not line.endswith("): ") and first in line, line
