"""`roofline report` behaviour (report.py) the earlier tests left open, found by mutation testing (qa472)."""

import warnings

import pytest

pytestmark = pytest.mark.slow  # each runs a scenario or draws a figure: 0.1-1 s a test


def _quiet_run(path):
    from roofline.report import run_scenario

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return run_scenario(str(path), echo=False)


def test_plain_decoding_rows_need_no_drafter_prefill(tmp_path):
    """report.py's docstring: draft_ttft_s is the drafter's own prefill, 0 for n-gram lookup and plain decoding. A k = 0 row
    of a draft-model sweep drafts nothing, so it prefills no drafter; its k > 0 rows do, as predict says."""
    import roofline

    path = tmp_path / "d.yaml"
    path.write_text("name: d\nhardware: h100-sxm\nmodel: llama-3.1-70b\ntp: 4\nmethod: draft\ndraft: llama-3.2-1b\n"
                    "axes:\n  batch: [1]\n  context: [8192]\n  k: [0, 3]\n  alpha: [0.8]\n")
    r = _quiet_run(path)
    plain, spec = (r.df[r.df["k"] == k].iloc[0] for k in (0, 3))
    assert plain["draft_ttft_s"] == 0.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        p = roofline.predict("h100-sxm", "llama-3.1-70b", 1, context=8192, tp=4, method="draft", draft="llama-3.2-1b",
                             k=3, alpha=0.8, prompt=8192, output_len=100)
    assert p["draft_prefill_s"] > 0 and spec["draft_ttft_s"] == pytest.approx(p["draft_prefill_s"], rel=1e-9)


def test_each_shared_prefixs_rows_get_their_own_time_to_first_token(tmp_path):
    """_with_prefill matches a config's rows on its shared prefix too: a sweep of shared_prefix [0, 3000] under vllm
    (which caches the prefix) prefills 4,000 prompt tokens without sharing and the 1,000 past the prefix with it, each
    as predict gives it."""
    import roofline

    path = tmp_path / "sp.yaml"
    path.write_text("name: sp\nhardware: h100-sxm\nmodel: llama-3.1-8b\nengine: vllm\nshared_prefix: [0, 3000]\n"
                    "prompt: 4000\noutput_len: 200\naxes:\n  batch: [8]\n")
    r = _quiet_run(path)
    for prefix in (0, 3000):
        row = r.df[r.df["shared_prefix"] == prefix]
        assert len(row) == 1
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            want = roofline.predict("h100-sxm", "llama-3.1-8b", 8, engine="vllm", prompt=4000, output_len=200,
                                    shared_prefix=prefix)["ttft_s"]
        assert row["ttft_s"].iloc[0] == pytest.approx(want, rel=1e-9), prefix
    ttft = r.df.set_index("shared_prefix")["ttft_s"]
    assert ttft[3000] < ttft[0] / 2  # 1,000 tokens prefilled against 4,000


def test_a_warning_its_sweep_said_twice_is_kept_once_for_its_section(tmp_path, monkeypatch):
    """run_scenario keeps each of its sweep's warnings once (in the order first said): a caveat said of two configs alike
    is one line under its section, not two."""
    import roofline.report as report
    from roofline.errors import warn

    real = report._sweep

    def twice(data, where, extra_dirs):
        warn("the same caveat")
        warn("another caveat")
        warn("the same caveat")
        return real(data, where, extra_dirs)

    monkeypatch.setattr(report, "_sweep", twice)
    path = tmp_path / "w.yaml"
    path.write_text("name: w\nhardware: h100-sxm\nmodel: llama-3.1-8b\naxes:\n  batch: [1]\n")
    r = _quiet_run(path)
    assert r.warnings == ("the same caveat", "another caveat")


def test_a_report_of_one_section_has_no_in_short_list_and_goes_straight_to_it():
    """_html's comment: a report of one section goes straight to it; the Markdown alike. Two sections get the list."""
    from roofline.report import Section, _html, _markdown

    one = [Section("a", "Free until compute-bound", "Long text.", None, "c", "d", (), "Pays up to batch 64.")]
    md, page = _markdown(one, 1.0, ["An assumption."]), _html(one, {}, 1.0, ["An assumption."])
    assert "In short" not in md and "Pays up to batch 64." not in md and "## 1. Free until compute-bound" in md
    assert "In short" not in page and "<nav>" not in page and "<h2>1. Free until compute-bound</h2>" in page
    assert md.count("1 scenario,") == 1 and "1 scenarios" not in md and "1 scenario," in page
    two = one + [Section("b", "Shared prefix", "Other.", None, "c", "d", (), "Grows.")]
    assert "**In short**" in _markdown(two, 1.0, []) and "<nav>" in _html(two, {}, 1.0, [])
    assert "2 scenarios," in _markdown(two, 1.0, []) and "2 scenarios," in _html(two, {}, 1.0, [])


def test_each_in_short_link_of_the_html_page_lands_on_its_section():
    """The In short list links each section's answer to it: every href="#X" of the nav is the id of a <section>."""
    import re

    from roofline.report import Section, _html

    sections = [Section("be-vllm", "Free until compute-bound", "T.", None, "c", "d", (), "One."),
                Section("shared-prefix", "Shared prefix", "T.", None, "c", "d", (), "Two.")]
    page = _html(sections, {}, 1.0, [])
    links = re.findall(r'<a href="#([^"]+)">', page)
    ids = re.findall(r'<section id="([^"]+)">', page)
    assert links == ids == ["be-vllm", "shared-prefix"], (links, ids)


def test_the_markdown_points_each_figure_at_its_file_in_img():
    """report.md sits beside img/, where each section's figure is written (img/<scenario>.png)."""
    from roofline.report import Section, _markdown

    md = _markdown([Section("kv", "The KV cache caps the batch", "T.", "kv.png", "c", "d")], 1.0, [])
    assert "![The KV cache caps the batch](img/kv.png)" in md


def test_the_page_is_as_wide_as_the_report_figures_are_drawn():
    """report.PAGE_WIDTH_PX: the page's text width (CSS max-width), at which every report figure is drawn."""
    import re

    from roofline.report import _CSS, PAGE_WIDTH_PX

    body = re.search(r"body\{([^}]*)\}", _CSS).group(1)
    assert f"max-width:{PAGE_WIDTH_PX}px" in body.replace(" ", "")


@pytest.mark.slow
def test_a_report_of_one_scenario_reproduces_into_its_own_folder_and_its_json_carries_no_local_folder(tmp_path):
    """A section's figure is its PNG (svg drawn too), its scenario line the description and the engine with its versions;
    _command: where the report has this section alone, its command writes into the report's own folder with --force
    (qa232: refused as printed); tables/NAME.json holds scenario.json's keys, not the profile folders of this machine
    (meta["profiles"], left out as engine_values is)."""
    import json
    import shlex

    from roofline.report import _with_version, write_report

    (tmp_path / "s.yaml").write_text("name: s\ndescription: mine\nhardware: h100-sxm\nmodel: llama-3.1-8b\n"
                                     "axes:\n  batch: [1, 8]\n  context: [512]\n")
    folder = tmp_path / "my profiles"
    folder.mkdir()
    out = tmp_path / "rep"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        write_report([str(tmp_path / "s.yaml")], out, extra_dirs=(folder,), formats=("svg", "png"), workers=1)
    md = (out / "report.md").read_text()
    assert {p.name for p in (out / "img").iterdir()} == {"s.svg", "s.png"}
    assert "![" in md and "](img/s.png)" in md  # the page's image is the PNG, whichever format is drawn first
    assert '<img alt="' in (out / "report.html").read_text()
    assert f"Scenario `s`: mine (serving engine: {_with_version('vllm', ())})" in md  # its description and its engine
    command = md[md.index("```bash\n") + 8:].split("\n")[0]
    assert command == (f"roofline report {shlex.quote(str(tmp_path / 's.yaml'))} --profiles {shlex.quote(str(folder))} "
                       f"--out {shlex.quote(str(out))} --force"), command
    meta = json.loads((out / "tables" / "s.json").read_text())
    assert "profiles" not in meta and "engine_values" not in meta and str(folder) not in json.dumps(meta), sorted(meta)


@pytest.mark.slow
def test_the_shared_prefix_section_quotes_each_end_at_the_largest_batch_that_fits(tmp_path):
    """qa391: the built-in shared-prefix sweep's batch axis stops short of each end's largest fitting batch; its section
    quotes each end's best there, computed now: the best over k of the throughput at that k's largest batch that fits
    (predict's max_batch), as predict gives it."""
    import re

    import roofline
    from roofline.report import write_report

    out = tmp_path / "r"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        write_report(("shared-prefix",), out, workers=1)
    text = (out / "report.md").read_text()
    said = re.search(r"from ([0-9,]+) to ([0-9,]+) tokens/s \([0-9.]+×; at batch ([0-9,]+) and ([0-9,]+), each the "
                     r"largest that fits, computed now\)", text)
    assert said, text[text.index("## 1."):][:1200]
    for prefix, tps, batch in ((0, said[1], said[3]), (32768, said[2], said[4])):
        best = (0.0, 0)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for k in range(6):
                kw = dict(context=34816, method="eagle", k=k, alpha=0.8, shared_prefix=prefix)
                spec = "spec" if k else None  # speculation's figures at k > 0 (predict's `spec`), plain decoding's at k = 0
                one = roofline.predict("h100-sxm", "llama-3.1-8b", 1, **kw)
                cap = (one[spec] if spec else one)["max_batch"]
                at = roofline.predict("h100-sxm", "llama-3.1-8b", cap, **kw)
                best = max(best, ((at[spec] if spec else at)["tokens_per_s"], cap))
        assert int(batch.replace(",", "")) == best[1], (prefix, batch, best)
        assert float(tps.replace(",", "")) == pytest.approx(best[0], rel=1e-3), (prefix, tps, best)


def _jobs(monkeypatch) -> list:
    """The figure jobs a report gives its drawers, recorded as report_job makes them."""
    import roofline.plot_jobs as plot_jobs

    made, real = [], plot_jobs.report_job
    monkeypatch.setattr(plot_jobs, "report_job", lambda *a, **kw: made.append(real(*a, **kw)) or made[-1])
    return made


@pytest.mark.slow
def test_a_section_whose_question_falls_back_draws_the_generic_figure_of_its_main_engine(tmp_path, monkeypatch):
    """_run_sections: a section whose finding fell back to the generic one gets the generic figure too (not its question's
    figure beside a generic text), and every figure shows the section's main engine alone."""
    from roofline.findings import main_engine
    from roofline.report import run_scenario, write_report

    made = _jobs(monkeypatch)
    path = tmp_path / "sp.yaml"  # a shared-prefix question with no shared prefix swept: unanswerable
    path.write_text("name: sp\nquestion: shared-prefix\nhardware: h100-sxm\nmodel: llama-3.1-8b\nmethod: eagle\n"
                    "engine: [vllm, ideal]\naxes:\n  batch: [1, 8]\n  k: [0, 2]\n  alpha: [0.7]\n")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        write_report([str(path)], tmp_path / "out", workers=1)
        engine = main_engine(run_scenario(str(path), echo=False).df)
    assert "so it is the generic finding" in (tmp_path / "out" / "report.md").read_text()
    (job,) = made
    assert job[0] == "report:generic", job[0]
    assert set(job[1]["engine"].astype(str)) == {engine} and set(job[2]["engine"].astype(str)) == {engine}


@pytest.mark.slow
def test_two_scenarios_named_alike_but_for_case_are_both_named_in_the_refusal(roofline, tmp_path):
    """qa125: the refusal names both spellings ('Mine' and 'mine'), so the reader knows which two files clash."""
    for stem, name in (("one", "Mine"), ("two", "mine")):
        (tmp_path / f"{stem}.yaml").write_text(f"name: {name}\nhardware: h100-sxm\nmodel: llama-3.1-8b\naxes:\n  batch: [1]\n")
    code, _, err = roofline("report", tmp_path / "one.yaml", tmp_path / "two.yaml", "--out", tmp_path / "r")
    assert code == 2 and err.strip().endswith("found 'mine' and 'Mine' twice"), err
    assert not (tmp_path / "r").exists()


@pytest.mark.slow
def test_a_generic_sections_figure_shows_its_main_engine_alone(tmp_path, monkeypatch):
    """_run_sections: figures show the section's main engine (findings.main_engine), while its finding may compare it
    with `ideal`: a sweep of engine [vllm, ideal] draws vllm's rows alone."""
    from roofline.report import write_report

    made = _jobs(monkeypatch)
    path = tmp_path / "two.yaml"
    path.write_text("name: two\nhardware: h100-sxm\nmodel: llama-3.1-8b\nmethod: eagle\nengine: [vllm, ideal]\n"
                    "axes:\n  batch: [1, 8]\n  k: [0, 2]\n  alpha: [0.7]\n")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        write_report([str(path)], tmp_path / "out", workers=1)
    (job,) = made
    assert job[0] == "report:generic"
    assert set(job[1]["engine"].astype(str)) == {"vllm"} and set(job[2]["engine"].astype(str)) == {"vllm"}
    assert job[3]["engine"] == ["vllm"]


def test_the_devices_left_out_are_those_whose_fitting_speculative_rows_went():
    """_left_out_on: the hardware of the speculative rows (k > 0) that fit in `before` and are not in `after`; a left-out
    row that does not fit, or a k = 0 row, names no device."""
    import pandas as pd

    from roofline.report import _left_out_on

    before = pd.DataFrame({"hardware": ["a", "b", "c", "d", "e"], "k": [2, 2, 0, 2, 2],
                           "fits_in_memory": [True, False, True, True, True]})
    after = before.iloc[[3]]
    assert _left_out_on(before, after) == ["a", "e"]


@pytest.mark.slow
def test_a_question_whose_every_speculative_row_is_refused_is_said_unanswered_and_gets_the_generic_section(tmp_path):
    """qa224/qa331: a break-even question whose only drafter is a draft model of another tokenizer (no engine runs it):
    its section is the generic finding, and the report says why after the scenario's name."""
    from roofline.report import write_report

    path = tmp_path / "bev.yaml"
    path.write_text("name: bev\nquestion: break-even-batch\nhardware: h100-sxm\nmodel: llama-3.1-8b\nmethod: draft\n"
                    "draft: qwen3-0.6b\naxes:\n  batch: [1, 16]\n  context: [1024]\n  k: [0, 2]\n  alpha: [0.7]\n")
    with pytest.warns(Warning) as caught:
        write_report([str(path)], tmp_path / "out", workers=1)
    said = [str(w.message) for w in caught]
    assert f"bev: the break-even-batch question is not answered: every speculative row is of a method or draft model its " \
           f"engine has no setup of ({path})" in said, said
    md = (tmp_path / "out" / "report.md").read_text()
    assert "## 1. Free until" not in md and "Left out, as no setup of the engine runs them: draft model qwen3-0.6b" in md


@pytest.mark.slow
def test_a_note_counted_under_its_section_is_said_whole_where_a_later_scenario_fails(tmp_path):
    """qa304: where a later scenario fails no report.md is written, so an earlier one's notes (here EAGLE's 'each alpha is
    taken at every draft position', counted on stderr when the report is written) are said whole."""
    from roofline.errors import RooflineError
    from roofline.report import write_report

    (tmp_path / "first.yaml").write_text("name: first\nhardware: h100-sxm\nmodel: llama-3.1-8b\nmethod: eagle\n"
                                        "axes:\n  batch: [1, 8]\n  k: [1, 2]\n  alpha: [0.7]\n")
    (tmp_path / "second.yaml").write_text("name: second\nhardware: h100-sxm\nmodel: llama-3.1-8b\naxes:\n"
                                         "  batch: {start: 1, stop: 4096, num: 4096}\n  context: {start: 128, stop: 4096, num: 600}\n")
    with pytest.warns(Warning) as caught, pytest.raises(RooflineError, match="expected at most 2,000,000 points"):
        write_report([str(tmp_path / "first.yaml"), str(tmp_path / "second.yaml")], tmp_path / "out", workers=1)
    said = [str(w.message) for w in caught]
    assert any(w.startswith("first: eagle: each alpha is taken at every draft position") for w in said), said
    assert not any("each under its section" in w for w in said), said


def test_prices_all_of_the_users_own_are_said_so_beside_a_device_without_a_price(roofline, tmp_path, monkeypatch):
    """_assumptions: where every priced device's price is the user's own (hw new --set price), the line says 'The prices
    are your own' and marks none '(yours)': a device with no price is no market rate."""
    from types import SimpleNamespace

    from roofline.report import _assumptions

    monkeypatch.setenv("ROOFLINE_USER_DIR", str(tmp_path))
    assert roofline("hw", "new", "mine", "--from", "h100-sxm", "--set", "price=2 USD/h")[0] == 0
    lines = _assumptions([SimpleNamespace(meta={"hardware": {"mine": "My H100", "l40s": "NVIDIA L40S 48GB"},
                                                "price_usd_per_hour": {"mine": 2.0, "l40s": None}})])
    prices = lines[0]
    assert "My H100 $2.00, NVIDIA L40S 48GB no price;" in prices and "(yours)" not in prices, prices
    assert "The prices are your own;" in prices, prices



@pytest.mark.slow
def test_a_built_in_scenarios_finding_or_figure_that_fails_fails_the_report_not_a_silent_fallback(tmp_path, monkeypatch):
    """finding(strict=builtin) and the figure job's meta 'strict': a user's scenario of another shape falls back to the
    generic finding and figure, but a built-in scenario whose finding or figure raises is a fault of the tool, said as
    one, not hidden behind a generic section."""
    import roofline.findings as findings
    import roofline.report_figures as report_figures
    from roofline.report import write_report

    def broken(*args, **kwargs):
        raise KeyError("broken")

    monkeypatch.setitem(findings.FINDINGS, "flops-vs-time", broken)
    with warnings.catch_warnings(), pytest.raises(KeyError, match="broken"):
        warnings.simplefilter("ignore")
        write_report(("flops-vs-time",), tmp_path / "a", workers=1)
    monkeypatch.undo()
    monkeypatch.setitem(report_figures.REPORT_PLOTTERS, "flops-vs-time", broken)
    with warnings.catch_warnings(), pytest.raises(Exception, match="broken"):
        warnings.simplefilter("ignore")
        write_report(("flops-vs-time",), tmp_path / "b", workers=1)
    assert not (tmp_path / "a").exists() and not (tmp_path / "b").exists()


def _prefill_finding(tmp_path, text: str):
    from roofline.findings import prefill_not_sped_up

    path = tmp_path / "pf.yaml"
    path.write_text(text)
    r = _quiet_run(str(path))
    return r, prefill_not_sped_up(r.df, r.ops, r.meta)


def test_the_prefill_finding_reads_plain_decodings_own_prefill_and_says_a_later_answer_is_later(tmp_path):
    """qa472: under sglang-early (its prefix cache off while speculating) plain decoding's prefill was said to be the
    speculating one, 0.0956 s 'with or without speculation', and the answer 1.96x sooner (2.95 s where plain decoding
    takes 0.0322 + 256 / 89.55 = 2.89 s: 1.92x); a 128k prompt's answer 0.13 s later with a draft model was said
    '0.994x sooner'."""
    r, f = _prefill_finding(tmp_path, "name: pfs\nquestion: prefill-not-sped-up\nhardware: h100-sxm\nmodel: llama-3.1-8b\n"
                                      "method: eagle\nengine: sglang-early\nshared_prefix: 3000\naxes: {batch: [8], context: "
                                      "[4000], k: [0, 3], alpha: [0.8]}\n")
    spec = r.df[r.df["k"] == 3].iloc[0]
    plain = r.df[r.df["k"] == 0].iloc[0]
    assert spec["baseline_ttft_s"] == pytest.approx(plain["ttft_s"]) and spec["ttft_s"] > 2 * plain["ttft_s"]
    answer_plain = plain["ttft_s"] + 256 / spec["baseline_tokens_per_s_per_user"]
    answer_spec = spec["ttft_s"] + spec["draft_ttft_s"] + 256 / spec["tokens_per_s_per_user"]
    assert f.numbers["answer_speedup"] == pytest.approx(answer_plain / answer_spec)
    assert "takes 0.0322 s without speculation and 0.0956 s with it (its engine's prefix cache off while speculating)" in f.text
    assert f"arrives {answer_plain / answer_spec:.2f}× sooner" in f.text, f.text
    _, later = _prefill_finding(tmp_path, "name: pf\nquestion: prefill-not-sped-up\nhardware: h100-sxm\nmodel: llama-3.1-70b\n"
                                          "tp: 4\nmethod: draft\ndraft: llama-3.1-8b\naxes: {batch: [1], context: [2048, 131072], "
                                          "k: [0, 4], alpha: [0.8]}\n")
    assert later.numbers["answer_speedup"] < 1 and "arrives later with it" in later.text and "sooner" not in later.text


def test_the_kv_caps_figure_draws_five_devices_each_apart_and_its_title_says_a_trees_acceptance(tmp_path):
    """qa472: a fifth device raised a KeyError (four line styles), the report falling back in silence; the title said
    'per-position rates' of a tree its finding called 'tree of 24 nodes, tau 3.2'."""
    from roofline.report_figures import REPORT_PLOTTERS

    path = tmp_path / "kv5.yaml"
    path.write_text("name: kv5\nquestion: kv-caps-batch\nhardware: [h100-sxm, h200, a100-sxm-80gb, b200, l40s]\n"
                    "model: llama-3.1-8b\nmethod: eagle\naxes: {batch: [1, 16, 256], context: [4096, 32768], k: [1, 2], "
                    "alpha: [0.8]}\n")
    r = _quiet_run(str(path))
    fig = REPORT_PLOTTERS["kv-caps-batch"](r.df, r.ops, r.meta)
    lines = [line for line in fig.axes[0].get_lines() if line.get_label() and not line.get_label().startswith("_")]
    assert len(lines) == 5 and len({(line.get_color(), line.get_linestyle()) for line in lines}) == 5
    from roofline.plots import _alpha_label

    tree = {**r.meta, "tree_nodes": 24, "tree_tau": 3.2}
    assert _alpha_label(float("nan"), tree) in REPORT_PLOTTERS["kv-caps-batch"](r.df.assign(alpha=float("nan")), r.ops,
                                                                                 tree)._suptitle.get_text()
