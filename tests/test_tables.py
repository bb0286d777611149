"""Terminal tables (tables.py): what `predict` prints, warnings first."""

import roofline
from roofline.tables import predict_table


def test_the_predict_table_names_engine_layout_and_weight_dtypes_and_warns_first():
    p = roofline.predict("h200", "deepseek-v3", 4096, 32768, dp_attention=8, ep=8, method="mtp", k=2)
    text = predict_table(p)
    assert text.startswith("WARNING: does not fit in memory")
    assert "engine vllm" in text and "dp-attention 8, ep 8" in text and "experts fp8" in text and "embedding bf16" in text
    assert "all-to-all" in text and "MTP module reused" in text
