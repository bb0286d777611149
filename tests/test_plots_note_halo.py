"""The step-time figure's verify notes sit on a halo above the curves (qa485: 'verify compute-bound from 2,048 tokens
(past the memory cap...)' struck through by the faded curves of the passes that do not fit, which run up to it)."""
import warnings

import pytest
from matplotlib import rc_context

from roofline import plots
from roofline.grid import load_configs, operator_table, run_sweep, scenario_meta
from roofline.scenario import scenario_from_dict

pytestmark = pytest.mark.slow


@pytest.mark.parametrize("model, note", [("llama-3.1-8b", "verify compute-bound"),
                                         ("qwen3-30b-a3b", "verify memory-bound at every")])
def test_the_verify_note_is_drawn_on_a_halo_over_every_line(model, note):
    batches = [1, 16, 256, 1024] if model == "llama-3.1-8b" else [1, 4]
    sc = scenario_from_dict({"name": "n", "hardware": "h100-sxm", "model": model, "method": "eagle",
                             "axes": {"batch": batches, "context": [1024], "k": [0, 3], "alpha": [0.7]}})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        configs = load_configs(sc)
        df = run_sweep(sc, configs)
    with rc_context(plots.STYLE):
        fig = plots.PLOTTERS["step_time_vs_tokens"](df, operator_table(sc, configs), scenario_meta(sc, configs, len(df)))
        plots.arrange(fig)
    (ax,) = [a for a in fig.axes if a.get_subplotspec() is not None and a.get_visible()]
    (text,) = [t for t in ax.texts if t.get_text().startswith(note)]
    halo = text.get_bbox_patch()
    assert halo is not None and halo.get_facecolor()[:3] == (1.0, 1.0, 1.0)
    assert text.get_zorder() > max(line.get_zorder() for line in ax.get_lines())
