"""roofline: an analytical roofline model of LLM decoding, with and without speculative decoding.

    import roofline
    roofline.predict("h100-sxm", "llama-3.1-8b", batch=8, context=4096, method="eagle", k=4)   # one point, a dict
    roofline.sweep("eagle-on-hopper")                                                          # a DataFrame

The public API is `predict`, `sweep`, `cheapest`, `load_hardware`, `load_model`, `load_engine` (docs/API.md).
The library is a set of flat modules, one concept each:

    units        "3.35 TB/s" -> 3.35e12, with the unit checked
    errors       the one exception type the CLI turns into a one-line message and exit code 2
    api          the public entry points: predict, sweep, cheapest, load_hardware, load_model, load_engine
    profiles     finding and reading YAML profiles (hardware, model, scenario, engine) on the search path
    hardware     HardwareSpec: a device's peaks, efficiencies, links, overheads (SI units)
    model        ModelSpec: a transformer's architecture; parameter counts per weight class, KV-cache size
    layout       Deployment: TP, attention DP, EP, PP and the dtype of each weight class, checked against the model
    serving      ServingEngine: kernel latencies, collective latency, host and speculation costs (engine_profiles/)
    costs        FLOPs and bytes per operator of one forward pass on the busiest device of a deployment
    engine       roofline time per operator and per step, collectives, pipeline, host work, MBU, MFU, TTFT
    capacity     memory needed, whether it fits, the largest batch that fits
    speculation  tau, draft/verify/iteration time, speedup, best k, break-even batch, default acceptance
    scenario     scenario files: configs (lists of hardware, model, engine, layout, method...) and axes, validated
    grid         sweeps: scenario configs x numeric axes -> one tidy table, streamed in chunks to CSV and Parquet
    plot_jobs    which figures to draw, the worker processes that draw them (started before matplotlib is imported),
                 and re-drawing a written sweep's plots
    plots        figures drawn from the written tables only
    findings     each report question's finding, computed from its results table
    report       the generated report: Markdown and one-file HTML, a finding, a figure and a command per section
    report_figures  the report's figures, one per question (drawn by plot_jobs.FigurePool)
    tables       the terminal tables of predict, hw, models, engines and scenarios
    outputs      output folders and files written whole or not at all; CSV/Parquet writer; the progress bar
    bench        sweeps' points/s computing and end to end to each format, peak memory; the README's jobs end to end
    launch       the `roofline` executable: figure workers first for the commands that draw, then cli.py
    yamlio       the bounded safe YAML reader (aliases, depth, duplicate keys) and atomic writes
    editing      hw new / set / edit / validate / diff (comments kept)
    schema       the JSON Schema of hardware and model profiles
    hfimport     model profiles from Hugging Face config.json
    measurements published serving measurements: load, predict each row, convert benchmark output
    fit          engine parameters fitted to measurements by bounded least squares
    accuracy     held-out error of an engine against ideal, per source and regime
    harness      (torch extra) the real runs, behind one door: runtime (device, timing), decoder,
                 specloop, calibrate, validate; no module above imports it or torch
"""

__version__ = "0.2.0"

import typing as _typing

from roofline import errors  # noqa: F401  `roofline.errors.RooflineError` after a bare `import roofline` (qa101); light

if _typing.TYPE_CHECKING:  # for type checkers and editors; at run time `__getattr__` below imports them on first use
    from roofline.api import cheapest, load_engine, load_hardware, load_model, predict, sweep

__all__ = ["predict", "sweep", "cheapest", "load_hardware", "load_model", "load_engine"]
_HOME = {name: "roofline.api" for name in __all__}


def __getattr__(name: str):
    """The public API, imported on first use (PEP 562): `import roofline.errors` or `roofline --help` then
    costs no numpy and pandas (about half a second on a small machine), and the CLI can start its figure
    workers before it imports them."""
    if name in _HOME:
        import importlib

        value = getattr(importlib.import_module(_HOME[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'roofline' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
