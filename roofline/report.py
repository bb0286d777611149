"""Text tables for the terminal: unit conversion happens here, at the edge, never in the physics."""

from __future__ import annotations

from roofline.units import format_seconds, format_si


def predict_table(point: dict) -> str:
    """The human-readable `roofline predict` output: summary, per-operator lines, speculation."""
    p = point
    lines = [
        f"{p['model']} on {p['hardware']}  batch {p['batch']}  context {p['context']}  tp {p['tp']}  "
        f"weights {p['weight_dtype']}  KV {p['kv_dtype']}",
        "",
        f"  step time            {format_seconds(p['step_time_s'])}   ({p['bound']}-bound)",
        f"  tokens/s (batch)     {p['tokens_per_s']:,.1f}",
        f"  tokens/s per user    {p['tokens_per_s_per_user']:,.1f}",
        f"  MBU / MFU            {p['mbu']:.1%} / {p['mfu']:.1%}",
        f"  intensity / ridge    {p['arithmetic_intensity_flops_per_byte']:.1f} / {p['derated_ridge_point_flops_per_byte']:.1f} FLOP/byte (derated ceilings)",
        f"  weights              {format_si(p['weight_bytes'], 'B')}",
        f"  KV cache             {format_si(p['kv_bytes'], 'B')}",
        f"  fits in memory       {'yes' if p['fits_in_memory'] else 'NO'}  ({format_si(p['memory_needed_bytes'], 'B')} of {format_si(p['usable_memory_bytes'], 'B')} usable; max batch {p['max_batch']:,})",
    ]
    if p["tp"] > 1:
        lines.append(f"  all-reduce time      {format_seconds(p['comm_time_s'])}")
    lines.append(f"  fixed overhead       {format_seconds(p['overhead_s'])}")
    if "ttft_s" in p:
        lines.append(f"  TTFT                 {format_seconds(p['ttft_s'])}   (prefill of {p['prompt']:,} tokens, one sequence)")
    lines += ["", f"  {'operator':<16}{'time':>10}{'share':>8}{'FLOPs':>14}{'bytes':>12}{'FLOP/B':>9}  bound"]
    total = p["step_time_s"]
    for name, op in p["operators"].items():
        intensity = op["flops"] / op["bytes"] if op["bytes"] else float("inf")
        lines.append(
            f"  {name:<16}{format_seconds(op['time_s']):>10}{op['time_s'] / total:>8.1%}"
            f"{format_si(op['flops'], 'FLOP'):>14}{format_si(op['bytes'], 'B'):>12}{intensity:>9.1f}  {op['bound']}"
        )
    spec = p.get("spec")
    if spec:
        be = spec["break_even_batch"]
        lines += [
            "",
            f"  speculation: {spec['method']}  k {spec['k']}  " + (f"alpha {spec['alpha']}" if spec.get("alpha") is not None else f"acceptance {spec.get('acceptance')}"),
            f"    tau (tokens/iter)  {spec['tau']:.3f}",
            f"    iteration          {format_seconds(spec['iteration_time_s'])} = draft {format_seconds(spec['draft_time_s'])}"
            f" + verify {format_seconds(spec['verify_time_s'])} + other {format_seconds(spec['transfer_time_s'] + spec['overhead_time_s'])}",
            f"    tokens/s (batch)   {spec['tokens_per_s']:,.1f}",
            f"    tokens/s per user  {spec['tokens_per_s_per_user']:,.1f}",
            f"    speedup            {spec['speedup']:.3f}x",
            f"    best k here        {spec['best_k']}",
            f"    break-even batch   {'none' if be is None else f'{be:,}'}",
            f"    fits in memory     {'yes' if spec['fits_in_memory'] else 'NO'}",
        ]
    return "\n".join(lines)
