"""The generated report: named scenarios run into tables, each section a finding, a plot and a command.

`write_report(names, out_dir)` runs each scenario (all nine questions by default), computes its finding
from the results table (`roofline.findings`), draws its figure (`roofline.plots.report_figure`, in
parallel over the machine's cores) and writes into `out_dir`:

    report.md      Markdown, one section per scenario, images beside it (img/<scenario>.png)
    report.html    the same as one self-contained page (images inlined as base64; opens offline)
    img/*.png      one figure per section (and .svg when asked)
    tables/*.csv   each scenario's results table, so every number of a finding can be looked up
    tables/*.json  what each was swept with (its scenario.json: acceptance rates, drafter, prices), which `roofline
                   cheapest tables/NAME.csv` reads as it reads a sweep's scenario.json

Report columns. A report scenario is a plain scenario (lists of method, draft_hardware, shared_prefix, ...
are sweep axes, `method` may map each model to its own method); its table gains `draft_placement` (the
drafter's device, `co-located` when on the target) and `shared_prefix_tokens`, which the findings read.

Prefill columns. Every table gets `ttft_s`, the time to first token of one sequence whose prompt is the
row's `context` (the scenario's `prompt` where it gives a request: the sweep's own `ttft_s`; one prefill pass of the
target, `roofline.engine.ttft_s`, of the tokens past a shared prefix the engine caches), and `draft_ttft_s`, the
prefill the drafter needs as well before it can draft (a draft model or a head drafter reading the
target's prompt; 0 for n-gram lookup and plain decoding). They are computed once per (hardware, model,
context) with the engine's own function, vectorised over contexts.

Everything written is staged in a temporary folder and moved into place whole (`roofline.outputs`).
"""

from __future__ import annotations

import base64
import dataclasses
import html
import json
import re
import time
import warnings
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from roofline.errors import RooflineError, RooflineWarning, warn
from roofline.outputs import MARKER
from roofline.scenario import REPORT_QUESTIONS
from roofline.serving import DEFAULT_ENGINE, OPTIMISTIC

REPORT_SCENARIOS = REPORT_QUESTIONS  # the default report: each question's built-in scenario


@dataclass
class ScenarioResult:
    """One scenario of the report: its name, the stacked results table, operators table and meta."""

    name: str
    path: str
    description: str
    df: pd.DataFrame
    ops: pd.DataFrame
    meta: dict
    warnings: tuple[str, ...] = ()  # what its sweep warned about (RooflineWarning), said in its section too
    question: str = ""  # the report question it answers (Scenario.answers: its `question:` or its name), '' none


def _sweep(data: dict, where: str, extra_dirs: tuple):
    """(results, operators, meta) of one plain scenario mapping."""
    from roofline.grid import PLOT_POINTS_MAX, load_configs, operator_table, run_sweep, scenario_meta
    from roofline.scenario import scenario_from_dict

    sc = scenario_from_dict(data, where)
    if sc.points > PLOT_POINTS_MAX:  # held in memory as write_sweep holds no more to draw (qa135: 32M, OOM after 11 min)
        raise RooflineError(f"{where}: axes: expected at most {PLOT_POINTS_MAX:,} points for a report, which holds each "
                            f"scenario's table in memory to read its findings, found {sc.points:,} points (`roofline sweep` "
                            "writes larger sweeps in chunks)")
    configs = load_configs(sc, extra_dirs)
    df = run_sweep(sc, configs, extra_dirs=extra_dirs)  # the warnings list every row's (qa280: a lower-bound break-even in its tables unsaid)
    df = _with_prefill(df, sc, configs)
    meta = scenario_meta(sc, configs, len(df))  # display names of drafts and draft devices included
    meta["profiles"] = [str(d) for d in extra_dirs]  # where its models were found: the fast tiers check their layouts there
    # the engine values each config ran with (a profile of --profiles or a scenario's own folder included), for a
    # finding that quotes an engine term: keyed (engine name, hardware name); not JSON, so not in scenario.json
    meta["engine_values"] = {(c.engine.name, c.hw.name): c.engine for c in configs}
    return df, operator_table(sc, configs), meta


def _with_prefill(df: pd.DataFrame, sc, configs) -> pd.DataFrame:
    """Add ttft_s, baseline_ttft_s (plain decoding's) and draft_ttft_s (prefill of `context` prompt tokens, one sequence; of the scenario's `prompt` where it
    gives a request, the sweep's own ttft_s: qa347, a request's ttft_s replaced by the context's) per row, a drafting
    row's (k > 0) under its engine as it speculates (serving.speculating_engine: a prefix cache off then, the prefix
    prefilled whole)."""
    from roofline.engine import ttft_s
    from roofline.grid import LABEL_COLUMNS, config_labels
    from roofline.serving import speculating_engine
    from roofline.speculation import drafter_ttft_s

    contexts = np.asarray(sc.axes["context"], dtype=np.float64)
    target = np.zeros(len(df))
    plain = np.zeros(len(df))  # every row's plain decoding's, under the engine as it decodes (qa472: a drafting row's
    draft = np.zeros(len(df))  # speculating prefill, its prefix cache off, was said as plain decoding's too)
    label = {name: _text(df[name]) for name in LABEL_COLUMNS}
    layout = {name: df[name].to_numpy() for name in ("tp", "dp_attention", "ep", "pp", "shared_prefix")}
    for cfg in configs:  # a config's rows: every label and layout column its own (grid.config_labels)
        rows = np.ones(len(df), dtype=bool)
        for name, value in config_labels(cfg).items():
            rows &= label[name] == value
        for name, value in (("tp", cfg.dep.tp), ("dp_attention", cfg.dep.dp_attention), ("ep", cfg.dep.ep),
                            ("pp", cfg.dep.pp), ("shared_prefix", cfg.shared_prefix)):
            rows &= layout[name] == value
        idx = np.searchsorted(contexts, df.loc[rows, "context"].to_numpy(dtype=np.float64))
        prompts = contexts if sc.prompt is None else np.full(contexts.shape, float(sc.prompt))  # a request's prompt
        spec_engine = speculating_engine(cfg.engine)  # (qa356: a cache off while speculating, priced on)
        drafting = rows & (df["k"].to_numpy() > 0)
        plain_s = np.broadcast_to(np.atleast_1d(ttft_s(cfg.hw, cfg.model, prompts, cfg.dep, cfg.engine, cfg.shared_prefix)),
                                  contexts.shape)
        spec_s = plain_s if spec_engine is cfg.engine else np.broadcast_to(
            np.atleast_1d(ttft_s(cfg.hw, cfg.model, prompts, cfg.dep, spec_engine, cfg.shared_prefix)), contexts.shape)
        plain[rows] = plain_s[idx]
        target[rows] = np.where(drafting[rows], spec_s[idx], plain_s[idx])
        d = drafter_ttft_s(cfg.method, cfg.model, cfg.draft, sc.draft_vocab, cfg.hw, cfg.draft_hw, cfg.dep, spec_engine,
                           prompts, cfg.shared_prefix)
        if d is not None:
            draft[rows] = np.broadcast_to(np.atleast_1d(d), contexts.shape)[idx]
    return df.assign(ttft_s=target, baseline_ttft_s=plain, draft_ttft_s=np.where(df["k"].to_numpy() > 0, draft, 0.0))


def _text(column: pd.Series) -> np.ndarray:
    """column.astype(str).to_numpy(), for a categorical without converting every row: its categories as text, taken by code."""
    if isinstance(column.dtype, pd.CategoricalDtype) and not column.isna().any():
        return np.asarray(column.cat.categories.astype(str), dtype=object)[column.cat.codes.to_numpy()]
    return column.astype(str).to_numpy()


def run_scenario(name_or_path: str, extra_dirs: tuple = (), echo: bool = True) -> ScenarioResult:
    """Run one report scenario (a name on the search path or a YAML file) as one sweep. Its warnings are kept in the
    result; with `echo` they are also said again at once, each after the scenario's name (a report says them once
    all its scenarios have run: `say_grouped`)."""
    from roofline.profiles import read_yaml
    from roofline.scenario import scenario_file

    path = scenario_file(name_or_path, extra_dirs)  # sweep's rule: a folder, a device, not found (qa126)
    data = read_yaml(path)
    where = str(path)
    with warnings.catch_warnings(record=True) as caught:  # said on stderr as ever, and kept for the section
        warnings.simplefilter("always")
        df, ops, meta = _sweep(data, where, extra_dirs)
    label = str(data.get("name", path.stem)) if isinstance(data, dict) else path.stem
    own_words: list[str] = []
    for w in caught:  # on stderr each says its scenario, as the section does (two scenarios' same words read as one),
        message = str(w.message)  # by name, not by the file's path on this machine (qa101: a shared report carried it)
        if issubclass(w.category, RooflineWarning):
            own = message[len(where):].removeprefix(": ") if message.startswith(where) else message  # the section's
            own_words.append(own)  # (under the scenario's heading already)
            message = f"{label}: {own}"
            if not echo:
                continue
        warnings.warn_explicit(w.category(message) if issubclass(w.category, RooflineWarning) else w.message,
                               w.category, w.filename, w.lineno)
    said = tuple(dict.fromkeys(own_words))
    placement = df["draft_hardware"].astype(str)
    df = df.assign(draft_placement=placement.where(placement != "", "co-located"), shared_prefix_tokens=df["shared_prefix"])
    for col in ("hardware", "model", "method", "draft_placement", "engine"):
        df[col] = df[col].astype(str)
    name = str(data.get("name", path.stem))
    return ScenarioResult(name, where, str(data.get("description", "")), df, ops, meta, said, meta.get("question") or "")


def say_grouped(results: list[ScenarioResult], late: dict[str, list[str]] | None = None, written: bool = True) -> None:
    """Say each scenario's warnings once the report's sweeps have run: words several scenarios said alike once, after
    all their names ('batch-vs-speculation, kv-caps-batch: under vllm, ...'), in the order first said. The main job
    said one engine's caveat five times, once a scenario. `late`: what the report itself found of a scenario (its
    question unanswerable), said after that scenario's own."""
    said: dict[str, list[str]] = {}
    in_sections = set()  # what a section of report.md says (its sweep's warnings; not the report's own `late` ones)
    for r in results:
        for words in (*r.warnings, *(late or {}).get(r.name, ())):
            said.setdefault(words, []).append(r.name)
        in_sections.update(r.warnings)
    # two kinds said at length under each section and counted here (qa301: 35 lines on stderr, most of them these,
    # buried the few that change a reading); said whole where no report.md is written (`written` false: a later
    # scenario failed; qa304)
    counted: dict[str, list[str]] = {kind: [] for kind in SAID_IN_SECTIONS}
    for words, names in said.items():
        kind = next((k for k, test in SAID_IN_SECTIONS.items() if test(words)), None) if written and words in in_sections else None
        if kind is None:
            warn(f"{', '.join(dict.fromkeys(names))}: {words}")
        else:
            counted[kind] += names
    for kind, names in counted.items():
        if names:
            warn(f"{', '.join(dict.fromkeys(names))}: {len(names)} note{'s' if len(names) > 1 else ''} on {kind}, each under "
                 "its section in report.md")


SAID_IN_SECTIONS = {  # the warnings say_grouped counts rather than repeats: what they are about -> which words are they
    "cells whose break_even_batch is a lower bound or dips below 1": lambda w: w.startswith("break_even_batch is "),
    "engine values fitted on no row like the config (devices, model classes or methods)":
        lambda w: bool(re.search(r" (?:was|were) fitted on (?:rows|draft|eagle|mtp|ngram|none)", w)),
    "alphas taken at every draft position (best k and the gains at larger k run optimistic)":
        lambda w: "each alpha is taken at every draft position" in w,  # (qa313: nine lines of the main report's stderr)
}


@dataclass
class Section:
    """One report section: the finding, the figure's file name, the reproducing command."""

    name: str
    title: str
    text: str
    image: str | None
    command: str
    description: str
    warnings: tuple[str, ...] = ()
    headline: str = ""  # the finding in one sentence (findings.headline), beside its title in the contents


def _command(result: ScenarioResult, extra_dirs: tuple = (), out: str | None = None, force: bool = False) -> str:
    """The command that reproduces a section: the report of that scenario alone, with the profile folders it ran with,
    into `out` (the report's own folder where it has this section alone; else the report's folder and the scenario's
    name, out/report-be-vllm: not out/be-vllm, where the README's sweep of it writes, qa229, qa231), with --force where
    it is the report's own folder (qa232: refused as printed)."""
    import shlex

    builtin = Path(result.path).parent.resolve() == _builtin_scenarios()
    folders = "".join(f" --profiles {shlex.quote(str(d))}" for d in extra_dirs)
    return (f"roofline report {result.name if builtin else shlex.quote(str(result.path))}{folders} "
            f"--out {shlex.quote(out or f'out/report-{result.name}')}{' --force' if force else ''}")


def _description(section) -> str:
    """A section's scenario description without its own name leading it (a copy's reads 'be-vllm: a copy of ...', which
    'Scenario `be-vllm`:' already says; qa234)."""
    return section.description.removeprefix(f"{section.name}: ")


def _builtin_scenarios() -> Path:
    from roofline.profiles import builtin_dir

    return builtin_dir("scenario").resolve()


# How to read every section: what the findings assume, said once above them
READING = ("Acceptance is an input, not a prediction: each gain holds at the acceptance rate (α) or per-position rates its "
           "scenario names, which depend on the drafter, the workload and the sampling temperature. The model's error against published "
           f"serving measurements is in the roofline repository's docs/ACCURACY.md (`roofline accuracy` prints it); {OPTIMISTIC} (published EAGLE "
           "curves on an 8B model fall over batch 2-48, where the predicted one rises a little): read large-batch gains in every "
           "section as upper estimates.")


# The terms the findings use, defined once above them (qa281: a report.html read alone defined α alone); the roofline
# README's Glossary has each in full
TERMS = (
    "k: the draft length, tokens the drafter proposes an iteration; α: the acceptance rate, the chance a draft token is "
    "accepted given that every one before it was.",
    "tau: tokens a sequence emits an iteration, 1 + α + ... + α^k at one rate α (a draft tree's is measured, given with it), "
    "the bonus token (the target's own, after the last accepted draft) included; speedup: tokens per second with "
    "speculation over plain decoding's, at the same batch.",
    "Verify pass: the target's pass over each sequence's k draft tokens and the token before them (k + 1 tokens; a tree's N "
    "nodes and that token, N + 1), about "
    "one decode step's cost while it is memory-bound; break-even batch: the largest batch at which speculation still "
    "pays (speedup >= 1).",
    "Derated ridge point: the compute ceiling over the memory ceiling, in FLOP/B, each ceiling a peak times its "
    "achievable fraction (the ridge point is the peaks' ratio); an operator of fewer FLOPs a byte is memory-bound, of "
    "more compute-bound.",
    "Host work: the serving engine's CPU time a step (scheduling, sampling), a fixed part and a part a sequence; an "
    "engine that does not overlap it adds it to every step, and speculation pays it once an iteration of tau tokens.",
)


def _assumptions(results) -> list[str]:
    """The opening's assumptions, one Markdown line each: the price per device-hour of every device the report's
    scenarios use (from its hardware profile; 'no price' where it has none), that costs count decoding only, the
    default serving engine and the tool's version."""
    from roofline import __version__
    from roofline.frontier import price_is_users
    from roofline.profiles import recorded_files
    from roofline.serving import DEFAULT_ENGINE
    from roofline.units import format_usd_per_hour

    names, prices, hand = {}, {}, set()
    for r in results:
        names.update({k: v for k, v in (r.meta.get("hardware") or {}).items() if k not in names})
        prices.update({k: v for k, v in (r.meta.get("price_usd_per_hour") or {}).items() if k not in prices})
        with recorded_files(r.meta.get("profile_files")):  # a profile the sweep named by path (qa284), as cheapest
            hand |= {h for h, p in (r.meta.get("price_usd_per_hour") or {}).items()  # qa283: said as market rates
                     if p is not None and price_is_users(h, p, tuple(r.meta.get("profiles") or ()))}
    given = {h for h, p in prices.items() if p is not None}
    priced = [f"{names.get(h, h)} {f'${format_usd_per_hour(p)}' if p is not None else 'no price'}"
              + (" (yours)" if h in hand and hand != given else "") for h, p in prices.items()]
    rates = ("The prices are your own" if hand and hand == given else
             "Those marked yours are your own; the others are market rates to an order of magnitude (each profile gives "
             "its sources and their dates)" if hand else
             "The prices are market rates to an order of magnitude (each profile gives its sources and their dates)")
    return [f"Prices per device-hour, from the hardware profiles: {', '.join(priced) or 'none used'}; a cost pays every "
            f"device of its deployment (a drafter's own device too, all the time where it speculates). {rates}; price your own with "
            "`roofline hw new NAME --from DEVICE --set price='2.5 USD/h'`.",
            "Costs count decoding only, not prefill: each is the devices' rent over the tokens they decode, the devices "
            "busy all the time (full utilisation). Speeds are steady decoding's too: where requests come and go, each "
            "arriving prompt's prefill stalls the batch (`roofline predict --prompt P --output-len O` prints a point's "
            "serving TPOT and its cost at it; a scenario's `prompt` and `output_len` add its serving columns to a sweep).",
            f"Serving engine: `{DEFAULT_ENGINE}`{_with_version(DEFAULT_ENGINE, ()).removeprefix(DEFAULT_ENGINE)} unless a "
            "scenario names another (each section's scenario line says which, with the versions its profile describes).",
            *([_EAGLE_HEAD] if any(_prices_full_eagle_head(r.meta) for r in results) else []),
            f"Computed by roofline {__version__}."]


# qa391: 2.26x said of a head whose LM head reads 1.05 GB a draft step, where a 32k-vocabulary EAGLE-3 head gives 2.60x
_EAGLE_HEAD = ("An EAGLE head is priced as one decoder layer of the target's shapes with an LM head of the target's full "
               "vocabulary (EAGLE-1's shape, and EAGLE-3's without a reduced vocabulary); an EAGLE-3 head of a 32k draft "
               "vocabulary reads less a draft step and pays more: a scenario's `draft_vocab: 32000` (predict's "
               "`--draft-vocab 32000`) prices it.")


def _prices_full_eagle_head(meta: dict) -> bool:
    """Whether a report scenario's sweep ran EAGLE (its `method`, a list of them, or a model's in method_by_model) with
    no draft_vocab: a head of the target's full vocabulary."""
    methods = meta.get("method")
    methods = [methods] if isinstance(methods, str) else list(methods or [])
    methods += list((meta.get("method_by_model") or {}).values())
    return "eagle" in methods and not meta.get("draft_vocab")


def _inline(text: str) -> str:
    """Report text as HTML: escaped, and Markdown's inline code spans (`...`) as <code>, as report.md shows them."""
    return re.sub(r"`([^`]+)`", r"<code>\1</code>", html.escape(text))


GENERATED = ("Generated by `roofline report` from the analytical roofline model: every finding below is computed from its "
             "scenario's results table (in `tables/`) and, where it says \"computed now\", from points between the swept "
             "batches that it computes with the same model (not in the tables: `roofline predict` gives each), so it "
             "changes when the model, a profile or a scenario does.")  # report.md's and report.html's (qa449: the page's
# header said the tables alone)

IN_SHORT = ("each section's answer at its own scenario's points, under the serving engine its section names, "
            f"`{DEFAULT_ENGINE}` where none is named; costs count decoding only, the devices busy all the time: the "
            "assumptions below")  # (qa398: the engine and the cost basis said only below the answers)


def _markdown(sections: list[Section], seconds: float, assumptions: list[str] | tuple = ()) -> str:
    lines = [
        "# What speculative decoding buys, and when",
        "",
        GENERATED,
        f"{len(sections)} scenario{'s' if len(sections) != 1 else ''}, computed and drawn in {seconds:.1f} s.",
        "",
        *([f"**In short** ({IN_SHORT})", "",
           *(f"{i}. [{s.title}](#{i}-{_slug(s.title)}): {s.headline}" for i, s in enumerate(sections, 1)), ""]
          if len(sections) > 1 else []),
        READING,
        "",
        *(["**Assumptions**", "", *(f"- {line}" for line in assumptions), ""] if assumptions else []),
        "**Terms** (the roofline README's Glossary has each in full)", "", *(f"- {line}" for line in TERMS), "",
    ]
    for i, s in enumerate(sections, 1):
        lines += [f"## {i}. {s.title}", "", s.text, ""]
        said, table_notes = _warnings_and_table_notes(s.warnings)
        if said:  # what the sweep warned about: the finding reads rows these apply to
            lines += ["Warnings from the sweep (all its rows, not only those the answer reads):", "", *(f"- {w}" for w in said), ""]
        if table_notes:  # folded: of the table's column, not of the finding (qa398: they outweighed the findings)
            lines += [f"<details><summary>{_table_notes_title(table_notes, s.name)}</summary>", "", *(f"- {w}" for w in table_notes),
                      "", "</details>", ""]
        lines += [f"![{s.title}](img/{s.image})" if s.image else f"*{NO_FIGURE}*", ""]
        lines += [f"Scenario `{s.name}`: {_description(s)}", "", "```bash", s.command, "```", ""]
    return "\n".join(lines)


def _warnings_and_table_notes(warnings) -> tuple[list[str], list[str]]:
    """A section's sweep warnings in two: those a reader of its finding needs (known misses, estimates, caps, what-ifs)
    and the notes on its table's break_even_batch column (a lower bound where the sweep or memory ends it), which
    describe rows of tables/NAME.csv and are folded away (qa398: 17 warnings, 1,048 words, beside a 335-word finding)."""
    notes = [w for w in warnings if w.startswith("break_even_batch ")]
    return [w for w in warnings if w not in notes], notes


def _table_notes_title(notes: list[str], name: str) -> str:
    return f"{len(notes)} note{'s' if len(notes) != 1 else ''} on the break_even_batch column of tables/{name}.csv (click to open)"


def _slug(title: str) -> str:
    """A heading's anchor as GitHub writes it for Markdown ('Free until compute-bound' -> 'free-until-compute-bound')."""
    return re.sub(r"\s", "-", re.sub(r"[^\w\s-]", "", title.lower()).strip())


NO_FIGURE = ("No figure: this section has no point to plot (nothing fits, has a price, or runs under its engine); its "
             "finding says which.")  # qa126: a section without its figure and without a word why; qa133: nor one reason
PAGE_WIDTH_PX = 1120  # the page's text width (CSS max-width, 70rem): every report figure is drawn this wide (report_figures)
_CSS = ("body{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;max-width:" + f"{PAGE_WIDTH_PX}px" + """;margin:2rem auto;
padding:0 1rem;color:#222;line-height:1.45}h1{font-size:1.6rem}h2{font-size:1.25rem;margin-top:2.2rem;border-bottom:1px solid #ddd}
img{max-width:100%;height:auto;border:1px solid #eee;box-sizing:border-box}pre{background:#f5f5f5;padding:.6rem;overflow-x:auto}
p.finding{font-size:1.05rem}ul.warnings,p.warnings,details.warnings{color:#8a5300;font-size:.9rem}p.scenario{color:#555;font-size:.9rem}
ul.assumptions{font-size:.95rem}
div.figure{overflow-x:auto}div.figure img{min-width:720px}nav ol{font-size:.95rem}
section,figure,img,pre{break-inside:avoid}h2,p.finding,p.warnings{break-after:avoid}""")  # print: a section's heading,
# finding and figure on one page where it fits


def _html(sections: list[Section], images: dict, seconds: float, assumptions: list[str] | tuple = ()) -> str:
    out = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
           '<meta name="viewport" content="width=device-width, initial-scale=1">',
           "<title>roofline report</title>", f"<style>{_CSS}</style></head><body>",
           "<h1>What speculative decoding buys, and when</h1>",
           f"<p>{_inline(GENERATED)} "
           f"{len(sections)} scenario{'s' if len(sections) != 1 else ''}, computed and drawn in {seconds:.1f} s.</p>",
           ]
    if len(sections) > 1:  # each section's answer, linked (a report of one section goes straight to it)
        out.append(f"<nav><p><strong>In short</strong> ({_inline(IN_SHORT)})</p><ol>" + "".join(
            f'<li><a href="#{html.escape(s.name)}">{html.escape(s.title)}</a>: {_inline(s.headline)}</li>' for s in sections)
                   + "</ol></nav>")
    out.append(f"<p>{_inline(READING)}</p>")
    if assumptions:
        out.append('<p class="assumptions"><strong>Assumptions</strong></p><ul class="assumptions">'
                   + "".join(f"<li>{_inline(line)}</li>" for line in assumptions) + "</ul>")
    out.append('<p class="assumptions"><strong>Terms</strong> (the roofline README\'s Glossary has each in full)</p>'
               '<ul class="assumptions">' + "".join(f"<li>{_inline(line)}</li>" for line in TERMS) + "</ul>")
    for i, s in enumerate(sections, 1):
        out.append(f'<section id="{html.escape(s.name)}"><h2>{i}. {html.escape(s.title)}</h2>')
        out.append(f'<p class="finding">{_inline(s.text)}</p>')
        said, table_notes = _warnings_and_table_notes(s.warnings)
        if said:
            out.append('<p class="warnings">Warnings from the sweep (all its rows, not only those the answer reads):</p>'
                       '<ul class="warnings">'
                       + "".join(f"<li>{_inline(w)}</li>" for w in said) + "</ul>")
        if table_notes:
            out.append(f'<details class="warnings"><summary>{html.escape(_table_notes_title(table_notes, s.name))}</summary>'
                       '<ul class="warnings">' + "".join(f"<li>{_inline(w)}</li>" for w in table_notes) + "</ul></details>")
        if s.image:
            data = base64.b64encode(images[s.image]).decode("ascii")
            out.append(f'<div class="figure"><img alt="{html.escape(s.title)}" src="data:image/png;base64,{data}"></div>')
        else:
            out.append(f'<p class="figure"><em>{html.escape(NO_FIGURE)}</em></p>')
        out.append(f'<p class="scenario">Scenario <code>{html.escape(s.name)}</code>: {_inline(_description(s))}</p>')
        out.append(f"<pre><code>{html.escape(s.command)}</code></pre></section>")
    out.append("</body></html>")
    return "\n".join(out)


def write_report(names: list[str] | tuple[str, ...] = (), out_dir: Path = Path("out/report"), force: bool = False,
                 extra_dirs: tuple = (), formats: tuple[str, ...] = ("png",), workers: int | None = None) -> list[Path]:
    """Run the named scenarios (all of REPORT_SCENARIOS when none), write report.md, report.html, img/ and tables/
    into `out_dir` (whole or not at all; an existing non-empty folder only with `force`); return the files written."""
    from roofline.outputs import staged_dir
    from roofline.plot_jobs import FigurePool

    out_dir = Path(out_dir)
    t0 = time.perf_counter()
    _check_scenarios(names, extra_dirs)  # a scenario's fault before the output folder's (qa284, as sweep since qa283)
    # the drawers import matplotlib while the scenarios run (this module has imported pandas, which they inherit:
    # the scenarios keep this process busy, so forking earlier would only add an import), and stop before the
    # folder is kept or removed
    with staged_dir(out_dir, force, "report") as tmp, FigurePool(len(names or REPORT_SCENARIOS), workers) as pool:
        written = _write_report(tmp, names, extra_dirs, formats, pool, t0, out_dir)
    return [out_dir / p for p in written]


def _check_scenarios(names, extra_dirs: tuple) -> None:
    """Read each scenario as run_scenario will (its file, its fields, its profiles), raising its one-line fault; its
    warnings are left to the run, which says them once."""
    from roofline.grid import load_configs
    from roofline.profiles import read_yaml
    from roofline.scenario import scenario_file, scenario_from_dict

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name in names or REPORT_SCENARIOS:
            path = scenario_file(name, extra_dirs)
            load_configs(scenario_from_dict(read_yaml(path), str(path)), extra_dirs)


def _without_refused_speculation(df, extra_dirs: tuple, meta: dict | None = None) -> tuple:
    """(`df` less its speculative rows of a method or layout the engine refuses to speculate with, or of a draft model of
    another tokenizer (the scenario's `meta`: frontier.mismatched_drafts, qa331), ' Left out: ...' for the finding or '',
    whether no speculative row is left to answer with): frontier.refused_methods, as cheapest and the fast tiers leave
    them out (qa219: a finding gave 4.54x for Medusa under trtllm, which has no Medusa drafter, and a figure drew SGLang's
    Medusa bars the highest);
    the plain points those rows carry stay in their k = 0 rows, and where every row is refused (no k = 0 swept) the rows
    stay and the sentence says so."""
    from roofline.frontier import mismatched_drafts, refused_methods, refused_rows

    refused = refused_methods(df, extra_dirs) + mismatched_drafts(df, meta, extra_dirs)
    rows = refused_rows(df, refused) if refused else None
    if rows is None or not rows.any():
        return df, "", False
    named = "; ".join(dict.fromkeys(e["note"] for e in refused))
    if rows.all():  # qa220: nothing left (no k = 0 swept) failed the report; the rows stay, said as what they are
        return df, (f" Every row here speculates as no setup of its engine does ({named}): the figures are the sweep's, "
                    "which no deployment runs."), True
    kept = df[~rows]
    return kept, f" Left out, as no setup of the engine runs them: {named}.", not (kept["k"] > 0).any()


def _left_out_on(before, after) -> list[str]:
    """The hardware of the speculative rows that fit in `before` and were left out of `after`."""
    gone = before[~before.index.isin(after.index) & before["fits_in_memory"].astype(bool) & (before["k"] > 0)]
    return sorted(set(gone["hardware"].astype(str)))


def _tier_points_between(df, meta: dict, extra_dirs: tuple):
    """A fast-tier question's rows with each device's points at batches not swept that reach 2x and 3x its cheapest
    tier's speed at the least cost (frontier.points_between_for_speeds: the tiers were priced at swept batches only,
    the batch that just reaches a speed usually lying between two of them)."""
    from roofline.findings import TIER_SPEEDS, tier_prices
    from roofline.frontier import points_between_for_speeds

    tiers = tier_prices(df, meta=meta)
    speeds = {hw: [m * float(tiers.loc[hw, "base_tokens_per_s_per_user"]) for m in TIER_SPEEDS] for hw in tiers.index}
    return points_between_for_speeds(df, speeds, meta, extra_dirs)



def _with_version(engine: str, extra_dirs: tuple) -> str:
    """'vllm (0.8-0.17)': an engine's name with the versions its profile describes (qa454: the report said 'vllm' where
    predict says which releases); the name alone where the profile gives none or does not load."""
    from roofline.serving import load_engine

    try:
        version = load_engine(engine, extra_dirs).version
    except RooflineError:
        return engine
    return f"{engine} ({version})" if version else engine

def _other_engine_base_costs(r: ScenarioResult, held: set[str], extra_dirs: tuple) -> dict[str, dict[str, tuple]]:
    """{engine: {hardware: its cheapest tier without speculation: (cost, tokens/s per user, batch)}} of each serving
    engine of a fast-tier scenario's sweep but those `held` (the finding's) and ideal (the bound), each read as the
    question reads its own rows (question_rows; at the most that fit, plain_at_largest_fit): the finding says them
    beside its own (qa375)."""
    from roofline.findings import base_tier_costs, question_rows
    from roofline.frontier import plain_at_largest_fit

    out = {}
    for engine in dict.fromkeys(r.df["engine"].astype(str)):
        if engine in held or engine == "ideal":
            continue
        df, _, meta, _ = question_rows("fast-tier-premium", r.df[r.df["engine"].astype(str) == engine],
                                       r.ops[r.ops["engine"].astype(str) == engine], r.meta)
        costs = base_tier_costs(plain_at_largest_fit(df, meta, extra_dirs), meta)
        if costs:
            out[engine] = costs
    return out


def _run_sections(names, extra_dirs: tuple, formats: tuple[str, ...], pool, tmp: Path, results: list, found: list,
                  late: dict[str, list[str]]) -> None:
    """Run each scenario, appending its result to `results`, its finding to `found` and what the report finds of it to
    `late` (by scenario name), and give its figure to `pool`."""
    from roofline.findings import finding, main_engine, question_rows
    from roofline.plot_jobs import report_job
    from roofline.profiles import builtin_dir

    for name in names or REPORT_SCENARIOS:  # each figure goes to the drawers as soon as its scenario has run
        r = run_scenario(name, extra_dirs, echo=False)
        twin = next((done for done in results if r.name.lower() == done.name.lower()), None)  # its files' names: one
        if twin is not None:  # on a case-insensitive file system whatever their case (qa125: Shared-Prefix, shared-prefix)
            said = repr(r.name) + (f" and {twin.name!r}" if twin.name != r.name else "")
            raise RooflineError(f"{r.path}: name: expected each scenario once in a report (names case aside: they name its "
                                f"files), found {said} twice")
        results.append(r)
        # a question's finding and figure read its own config of a sweep that varies others (question_rows); figures
        # show the section's main engine, while a finding may compare it with `ideal` from the question's rows
        question = r.question or "generic"  # a copy of a question's scenario answers it too (its `question:`)
        df, ops, meta, note = question_rows(question, r.df, r.ops, r.meta)
        if question == "shared-prefix":  # each end's best at the most that fits, where the batch axis stops short (qa391:
            # 1.62x at the swept batches 8 and 128, 1.40x at the 12 and 189 that fit)
            from roofline.findings import shared_prefix_headline
            from roofline.frontier import fastest_at_largest_fit

            meta = {**meta, "shared_prefix_at_largest_fit": {
                int(p): fastest_at_largest_fit(g, meta, extra_dirs)
                for p, g in shared_prefix_headline(df).groupby("shared_prefix_tokens")}}
        if question == "batch-vs-speculation":  # batching alone's best at the most that fits, where the batch axis
            from roofline.frontier import plain_at_largest_fit  # stops short (qa445: 'at least 9,156' at 512, 855 fit)

            grown = plain_at_largest_fit(df, meta, extra_dirs)
            if "computed_now" in grown:
                meta = {**meta, "plain_at_largest_fit": grown[grown["computed_now"].astype(bool)].to_dict("records")}
        if question == "fast-tier-premium":  # the cheapest tier at the most that fits, where the batch axis stops short
            from roofline.frontier import plain_at_largest_fit

            df = _tier_points_between(plain_at_largest_fit(df, meta, extra_dirs), meta, extra_dirs)
            meta = {**meta, "other_engine_base_costs": _other_engine_base_costs(r, set(df["engine"].astype(str)), extra_dirs)}
        before = df
        df, left_out, refused_all = _without_refused_speculation(df, extra_dirs, meta)
        note += left_out
        if left_out:  # the devices whose drafter fit only in rows left out: their tiers say why (qa375: 'fits nowhere')
            meta = {**meta, "speculation_left_out_on": _left_out_on(before, df)}
        engine = main_engine(df)
        builtin = Path(r.path).resolve().parent == builtin_dir("scenario").resolve()  # else a fallback, not a traceback
        if refused_all and question != "generic":  # qa224: a speculation finding stated of rows no deployment runs, or
            # with them left out, the question's own 'needs a drafting method' where k > 0 was swept: the generic
            # finding, and why (qa226: not said of a section with no question)
            late.setdefault(r.name, []).append(f"the {question} question is not answered: every speculative row is of a "
                                               f"method or draft model its engine has no setup of ({r.path})")
            question = "generic"
        f = finding(question, df, ops, meta, strict=builtin)  # first: a section falls back to generic as a whole
        fallback = f.numbers.get("fallback")
        if fallback:
            late.setdefault(r.name, []).append(f"the {question} question cannot be answered from this sweep ({fallback}): "
                                               f"its section has the generic finding and figure ({r.path})")
        job = report_job("generic" if fallback else question, df[df["engine"] == engine], ops[ops["engine"].astype(str) == engine],
                         {**meta, "engine": [engine], "strict": builtin}, tmp / "img" / r.name, formats)
        pool.submit(job)
        found.append(dataclasses.replace(f, text=f.text + note) if note else f)


def _write_report(tmp: Path, names, extra_dirs: tuple, formats: tuple[str, ...], pool, t0: float,
                  out_dir: Path = Path("out/report")) -> list[Path]:
    """write_report's work in the staged folder `tmp`, the figure pool started; the files written, relative to `tmp`."""
    from roofline.findings import headline
    from roofline.outputs import write_csv
    from roofline.scenario import scenario_file

    results: list[ScenarioResult] = []
    found = []
    (tmp / "img").mkdir()
    (tmp / "tables").mkdir()
    # each by the file it is found as (sweep's rule): a name as the search path finds it, a file by its path (qa126:
    # cs/A.yaml and cs/a.yaml are two; qa129: so are the files s.txt and S.txt, once compared as names case aside)
    given = [scenario_file(str(n), extra_dirs).resolve() for n in names or ()]
    twice = next((i for i, n in enumerate(given) if n in given[:i]), None)
    if twice is not None:  # before any sweep runs (qa125: refused only after running both, every warning said twice)
        raise RooflineError(f"NAMES: expected each scenario once in a report, found {str(names[twice])!r} twice")
    late: dict[str, list[str]] = {}
    try:
        _run_sections(names, extra_dirs, formats, pool, tmp, results, found, late)
    except BaseException:  # what the scenarios that ran warned about, said whole where a later one fails
        say_grouped(results, late, written=False)
        raise
    say_grouped(results, late)
    for r in results:  # while the figures are drawn; beside each table what it was swept with, as a sweep's
        write_csv(r.df, tmp / "tables" / f"{r.name}.csv")  # scenario.json (cheapest reads it: qa256, per-position rates)
        scenario = {k: v for k, v in r.meta.items() if k not in ("engine_values", "profiles")}  # scenario.json's keys
        (tmp / "tables" / f"{r.name}.json").write_text(json.dumps(scenario, indent=2))
    drawn = pool.collect()
    sections = []
    for r, f, paths in zip(results, found, drawn):
        png = next((p.name for p in paths if p.suffix == ".png"), None)
        engines = ", ".join(_with_version(e, extra_dirs) for e in sorted(r.df["engine"].astype(str).unique()))
        described = f"{r.description} (serving engine: {engines})" if r.description else f"serving engine {engines}"
        alone = len(results) == 1  # the report's own folder, replaced (qa232: refused as printed), or one beside it
        out = str(out_dir) if alone else f"{str(out_dir).rstrip('/')}-{r.name}"
        sections.append(Section(r.name, f.title, f.text, png, _command(r, extra_dirs, out, force=alone), described,
                                r.warnings, headline(f)))
    seconds = time.perf_counter() - t0
    images = {p.name: p.read_bytes() for paths in drawn for p in paths if p.suffix == ".png"}
    assumptions = _assumptions(results)
    (tmp / "report.md").write_text(_markdown(sections, seconds, assumptions), encoding="utf-8")
    (tmp / "report.html").write_text(_html(sections, images, seconds, assumptions), encoding="utf-8")
    return sorted(p.relative_to(tmp) for p in tmp.rglob("*") if p.is_file() and p.name != MARKER)
