"""The PyTorch harness: real runs on the machine at hand, behind one door (the `torch` extra).

The analytical core (every other module of `roofline`) never imports this package or torch; the
harness imports the core, to predict what it measures with the same functions a sweep uses.

    runtime    torch on demand, the device, synchronisation, timing (median of repeats, interleaved
               A/B rounds, quartiles)
    decoder    a Llama-style decoder with a preallocated per-sequence KV cache
    specloop   the real speculative decoding loop (draft k, verify k + 1, ragged rollback)
    calibrate  this machine's ceilings (`Calibration`, SI units) and the hardware profile built from them
    validate   real runs against predictions: table, summary, plots

Importing this package, `runtime`, `calibrate` or `validate` does not import torch; `decoder` and
`specloop` do. Without torch, `roofline calibrate` and `roofline validate` fail with one line
saying how to install it.
"""
