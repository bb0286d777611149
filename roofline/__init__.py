"""roofline: an analytical roofline model of LLM decoding, with and without speculative decoding.

The library is a set of flat modules, one concept each:

    units        "3.35 TB/s" -> 3.35e12, with the unit checked
    errors       the one exception type the CLI turns into a one-line message and exit code 2
    profiles     finding and reading YAML profiles (hardware, model, scenario) on the search path
    hardware     HardwareSpec: a device's peaks, efficiencies, overheads (SI units)
    model        ModelSpec: a transformer's architecture; parameter and KV-cache counts
    costs        FLOPs and bytes per operator of one forward pass (B sequences, q query tokens, context S)
    engine       roofline time per operator and per step, MBU, MFU, capacity, TTFT
    speculation  tau, draft/verify/iteration time, speedup, best k, break-even batch
    scenario     scenario files: hardware, model, method and axes, validated
    sweep        scenarios -> broadcast grids -> one tidy DataFrame, streamed in chunks
    plots        figures drawn from the written tables only
    tables       the terminal tables of predict, hw and models
    outputs      output folders written whole or not at all
    bench        the sweep engine's points/s and peak memory
    harness      (torch extra) the real runs, behind one door: runtime (device, timing), decoder,
                 specloop, calibrate, validate; no module above imports it or torch
"""

__version__ = "0.1.0"
