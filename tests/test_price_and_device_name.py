"""qa449: a price set beside new notes; a device named in capitals."""
import dataclasses

import pytest

from roofline.errors import RooflineWarning
from roofline.hardware import load_hardware


@pytest.mark.slow  # writes two profile files (about 70 ms)
def test_a_price_set_with_notes_in_the_same_edit_is_not_said_not_from_the_source(tmp_path):
    """Notes given with the price may be the price's: the source's 'No price' sentence says so, not 'not from the source'."""
    from roofline.editing import new_profile, set_fields

    with pytest.warns(RooflineWarning, match="source replaced"):
        new_profile("hardware", "l40s-own", "l40s", ["source=No price: none quoted yet. Datasheet figures."], out_dir=tmp_path)
    with pytest.warns(RooflineWarning, match="notes replaced"):
        set_fields("hardware", "l40s-own", ["price=0.95 USD/h", "notes=Rented at 0.95 USD/h from a neocloud, 2026-12."],
                   (tmp_path,))
    hw = load_hardware("l40s-own", (tmp_path,))
    assert "with the source or notes given in the same edit" in hw.source and "not from the source" not in hw.source, hw.source


@pytest.mark.slow  # runs predict (about 70 ms)
def test_a_device_named_in_capitals_is_not_said_to_be_a_copy_of_its_engine_family():
    """MI300X given as 'MI300X' is mi300x: its architecture said plainly, not 'mi300x's engine family'."""
    import roofline

    upper = dataclasses.replace(load_hardware("mi300x"), name="MI300X")
    said = [w for w in roofline.predict(upper, "gpt-oss-120b", 1)["warnings"] if w.startswith("engine vllm: ")]
    assert said and "runs on MI300X (CDNA3, gfx942)" in said[0] and "engine family" not in said[0], said
