"""speedup_vs_context shifts each batch's markers where two batches' points lie within a marker of each other, not
only where they are equal (qa481: a point 0.02% above another's hid under it, unshifted and unsaid)."""
import warnings

import numpy as np
import pytest
from matplotlib import rc_context

from roofline import plots
from roofline.grid import load_configs, operator_table, run_sweep, scenario_meta
from roofline.scenario import scenario_from_dict

pytestmark = pytest.mark.slow

DATA = {"name": "meet", "hardware": "h100-sxm", "model": "llama-3.1-70b", "tp": 8, "method": "draft",
        "draft": "llama-3.2-1b", "axes": {"batch": [1, 16, 64], "context": [1024, 8192], "k": [2, 4], "alpha": [0.6]}}


@pytest.fixture(scope="module")
def table():
    sc = scenario_from_dict(DATA)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        configs = load_configs(sc)
        df = run_sweep(sc, configs)
    return df, operator_table(sc, configs), scenario_meta(sc, configs, len(df))


def _legend_title(df, ops, meta) -> str:
    with rc_context(plots.STYLE):
        fig = plots.PLOTTERS["speedup_vs_context"](df, ops, meta)
        plots.arrange(fig)
    return fig.legends[0].get_title().get_text(), fig


def _moved_onto(df, batch: int, onto: int, by: float):
    """`df` with batch `onto`'s speedups at context 8192 set to 1.2004 and batch `batch`'s `by` above them (every k):
    1.2004 and 1.2008 round to 1.2 and 1.201, apart to three decimals, one spot on the figure."""
    out = df.copy()
    at = out["context"] == 8192
    out.loc[at & (out["batch"] == onto), "speedup"] = 1.2004
    out.loc[at & (out["batch"] == batch), "speedup"] = 1.2004 + by
    return out


def test_points_apart_are_not_shifted(table):
    df, ops, meta = table
    title, _ = _legend_title(df, ops, meta)
    assert not title  # the table's own points lie apart


@pytest.mark.parametrize("by", [0.0, 0.0004, 0.004])
def test_two_batches_within_a_marker_are_shifted_and_said(table, by):
    df, ops, meta = table
    moved = _moved_onto(df, 16, 64, by)
    title, fig = _legend_title(moved, ops, meta)
    assert "markers shifted" in title, (by, title)
    (ax,) = [a for a in fig.axes if a.get_subplotspec() is not None and a.get_visible()]
    xs = {line.get_label(): np.asarray(line.get_xdata(), dtype=float) for line in ax.get_lines()
          if line.get_label().startswith("batch")}
    assert not np.allclose(xs["batch 16"], xs["batch 64"][: len(xs["batch 16"])])  # side by side, not on one spot


def test_points_meet_within_the_share_of_the_span_and_not_beyond():
    import pandas as pd

    span = 2.0 - 1.0  # the break-even line at 1 is in the span
    near = pd.DataFrame({"context": [1024, 1024, 1024], "speedup": [2.0, 1.5, 1.5 + 0.019 * span]})
    far = pd.DataFrame({"context": [1024, 1024, 1024], "speedup": [2.0, 1.5, 1.5 + 0.021 * span]})
    other_context = pd.DataFrame({"context": [1024, 8192], "speedup": [1.5, 1.5]})
    assert plots._points_meet(near, "context", "speedup")
    assert not plots._points_meet(far, "context", "speedup")
    assert not plots._points_meet(other_context, "context", "speedup")
