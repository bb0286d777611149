"""qa449: plots._panels leaving out a panel where nothing fits, on a table built by hand (no sweep)."""
import pandas as pd

from roofline import plots

META = {"scenario": "t", "hardware": {"h100-sxm": "NVIDIA H100 SXM5 80GB"},
        "model": {"deepseek-v3": "DeepSeek-V3", "llama-3.1-70b": "Llama 3.1 70B"}}


def _table() -> pd.DataFrame:
    """DeepSeek-V3 at DP-attention 8 fits nowhere on H100, Llama 3.1 70B at TP 8 does, at two contexts."""
    rows = []
    for context in (4096, 8192):
        rows.append({"hardware": "h100-sxm", "model": "deepseek-v3", "context": context, "tp": 1, "dp_attention": 8,
                     "ep": 8, "pp": 1, "batch": 1, "fits_in_memory": False})
        rows.append({"hardware": "h100-sxm", "model": "llama-3.1-70b", "context": context, "tp": 8, "dp_attention": 1,
                     "ep": 1, "pp": 1, "batch": 1, "fits_in_memory": True})
    return pd.DataFrame(rows)


def test_an_empty_panel_left_out_at_two_contexts_is_said_once():
    """The same model and device left out at two contexts is one name in the note, not two."""
    by, keys, note = plots._panels(_table(), ("hardware", "model", "context"), META)
    assert {key[by.index("model")] for key in keys} == {"llama-3.1-70b"}
    assert note.count("DeepSeek-V3 on NVIDIA H100 SXM5 80GB") == 1, note


def test_a_report_figure_led_by_its_headline_keeps_its_empty_panels():
    """headline_first (the report's generic figure greys a panel without a fit, as its text says it): nothing left out."""
    by, keys, note = plots._panels(_table(), ("hardware", "model", "context"), {**META, "headline_first": True})
    assert len(keys) == 4 and "not drawn" not in note, (keys, note)


def test_panels_without_a_device_axis_keep_a_model_where_nothing_fits():
    """Panels of model and context alone (no hardware among them) leave none out, and name no device."""
    by, keys, note = plots._panels(_table(), ("model", "context"), META)
    assert len(keys) == 4 and "not drawn" not in note, (keys, note)
