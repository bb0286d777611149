"""A context of 0 in speedup_vs_context: left out and said, not a numpy warning and a 0 on a log axis (qa486)."""
import warnings

import numpy as np
import pytest
from matplotlib import rc_context

from roofline import plots
from roofline.grid import load_configs, operator_table, run_sweep, scenario_meta
from roofline.plot_jobs import PLOT_NEEDS
from roofline.scenario import scenario_from_dict

pytestmark = pytest.mark.slow


def _figure(contexts):
    sc = scenario_from_dict({"name": "c", "hardware": "h200", "model": "llama-3.1-8b", "method": "eagle",
                             "axes": {"batch": [1, 8], "context": contexts, "k": [2], "alpha": 0.7}})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        configs = load_configs(sc)
        df = run_sweep(sc, configs)
    with warnings.catch_warnings(), rc_context(plots.STYLE):
        warnings.simplefilter("error", RuntimeWarning)  # 'divide by zero encountered in scalar divide'
        fig = plots.PLOTTERS["speedup_vs_context"](df, operator_table(sc, configs), scenario_meta(sc, configs, len(df)))
        if fig is not None:
            plots.arrange(fig)
    return fig


def test_a_zero_context_is_left_out_and_said():
    fig = _figure([0, 1024, 4096])
    (ax,) = [a for a in fig.axes if a.get_subplotspec() is not None and a.get_visible()]
    xs = np.concatenate([np.asarray(line.get_xdata(), dtype=float) for line in ax.get_lines()
                         if line.get_label().startswith("batch")])
    assert set(xs) == {1024.0, 4096.0}
    assert list(ax.get_xticks()) == [1024.0, 4096.0]
    assert "context 0 left out (a log axis has no 0)" in fig._suptitle.get_text().replace("\n", " ")
    assert "context 0 left out" not in _figure([1024, 4096])._suptitle.get_text().replace("\n", " ")


def test_one_context_above_zero_draws_nothing_and_the_skip_says_why():
    assert _figure([0, 4096]) is None
    assert "two contexts above 0" in PLOT_NEEDS["speedup_vs_context"]
