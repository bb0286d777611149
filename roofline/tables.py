"""Text tables for the terminal (predict, hw list/show, models list/show): unit conversion happens here,
at the edge, never in the physics."""

from __future__ import annotations

import numbers
from pathlib import Path

from roofline.hardware import peak_unit
from roofline.profiles import command_name
from roofline.serving import (
    DP_GATHER,
    H100_EAGER_LAUNCH_S,
    MOE_DISPATCH,
    OPTIMISTIC_BATCH,
    PP_REMAINDERS,
    drafting_word,
    family_of,
    optimistic,
    shares_text,
)
from roofline.units import (
    format_binary,
    format_given,
    format_seconds,
    format_si,
    format_significant,
    format_usd_per_hour,
    spoken_list,
)


def predict_table(point: dict) -> str:
    """The human-readable `roofline predict` output: summary, weights per class, operators, speculation (the CLI writes
    the point's warnings on stderr before it)."""
    p = point
    lay = p["layout"]
    ridge_of = "the experts'" if p["expert_dtype"] else "the MLP's"  # api.predict: the main GEMM's dtype
    lines = [
        f"{p['model']} on {p['devices']} x {p['hardware']} ({_layout(lay)}"
        + (f"; {p['scale_up_domains']} scale-up domains, linked by the scale-out link" if p.get("scale_up_domains", 1) > 1 else "")
        + f")  engine {p['engine']}{_engine_version(p)}  batch {p['batch']:,}  "
        f"context {p['context']:,}  KV {p['kv_dtype']}" + (f"  shared prefix {p['shared_prefix']:,} ("
        # held once where the engine caches prefixes (qa354: vllm-v0's said as the others')
        + ("" if (p.get("engine_values") or {}).get("prefix_cached", True) else "held by each sequence, ")
        + ("read once a step)" if p.get("shared_prefix_read_once") else "read by each sequence)") if p.get("shared_prefix") else ""),
        "",
        f"  step time            {format_seconds(p['step_time_s'])}   ("
        + ("host-bound, the device's work " if _host_sets_step(p) else
           f"launch-bound: run eagerly, its {p['launch_kernels']:,} kernels launched by the host take "
           f"{format_seconds(p['launch_time_s'])}" + _with_host_text(p) + ", longer than the device's work, which is "
           if p.get("launch_bound") else
           # qa280: 'memory-bound' of a step whose bytes take a tenth of it, read as such by one scanning the line
           "overhead-bound: its operators are " if _overhead_bound(p) else "") + f"{p['bound']}-bound"
        + (f": {p['compute_bound_share']:.0%} of its operators' time in compute-bound operators"
           if p.get("compute_bound_share") is not None and 0.05 < p["compute_bound_share"] < 0.95 else "")
        + (f"; its bytes {_bytes_verb(p)} {format_seconds(_memory_time_s(p))}{'' if _bytes_take(p) else ' of the step'}"
           f"{_bytes_bandwidth_text(p)}, and "
           f"twice the bandwidth gives {format_seconds(p['step_time_at_2x_bandwidth_s'])}"
           + (f": {_rest_text(p)})"
              if p["step_time_at_2x_bandwidth_s"] > OVERHEAD_LEFT_AT_2X * p["step_time_s"] else ")")
           if p["bound"] == "memory" and _memory_time_s(p) < BYTES_SHARE_SAID * p["step_time_s"] else _step_aside(p) + ")"),
        f"  tokens/s (batch)     {_rate(p['tokens_per_s'])}   ({_rate(p['tokens_per_s_per_device'])} per device"
        + (f"; no {p['engine']} setup runs it" if p.get("engine_refuses") else "") + ")",  # (qa479: untagged beside per user)
        f"  tokens/s per user    {_rate(p['tokens_per_s_per_user'])}"
        + ("   (not reachable: fits in memory NO, below)" if not p["fits_in_memory"] else "")  # (qa377: quoted bare)
        + (f"   (no {p['engine']} setup runs it: the warning that says so tells why)" if p.get("engine_refuses") else ""),
        f"  cost                 {_cost_text(p['cost_usd_per_million_tokens'], priceless=p['hardware'])}"
        + (f"  ({p['devices']} x ${format_usd_per_hour(p['price_usd_per_hour_per_device'])}/h; decoding only"
           + ("; not reachable: fits in memory NO, below" if not p["fits_in_memory"] else "")
           + (f"; no {p['engine']} setup runs it: the warning that says so tells why" if p.get("engine_refuses") else "")
           + ")"  # (qa379: said beside the speculative lines only)
           if p.get("price_usd_per_hour_per_device") is not None and p["cost_usd_per_million_tokens"] is not None else ""),
        f"  MBU / MFU            {p['mbu']:.1%} / {p['mfu']:.1%}",
        f"  bytes / FLOPs        {format_si(p['bytes'], 'B')} / {format_si(p['flops'], 'FLOP')} a step on the busiest device "
        "(the embedding's rows gathered, not streamed"
        + (f"; {_padded_flops_text(p)} alone take {format_seconds(p['flops_time_s'])} at the derated peaks of their dtypes"
           if "flops_time_s" in p else "") + ")",
        *([f"  experts a MoE layer  {_experts_text(e, p)}"] if (e := p.get("experts_busiest_rank")) else []),
        f"  intensity / ridge    {p['arithmetic_intensity_flops_per_byte']:.1f} / {p['derated_ridge_point_flops_per_byte']:.1f} FLOP/byte (derated; "
        f"the ridge of {p['ridge_point_dtype']}, {ridge_of} "
        + ("dtype)" if p["ridge_point_dtype"] == p["main_gemm_weight_dtype"] else
           f"compute dtype: {p['main_gemm_weight_dtype']} weights "
           + ("run weight-only)" if p.get("main_gemm_weight_only") else f"compute in {p['ridge_point_dtype']})"))
        + _other_ridges_text(p),
        *([_compute_bound_text(p)] if "compute_bound" in p else []),
        f"  weights per device   {format_si(p['weight_bytes'], 'B')} ({format_binary(p['weight_bytes'])})   "
        + ", ".join(f"{c} {v['dtype']} {format_si(v['bytes_per_device'], 'B')}"
                    + (f" ({format_si(v['bf16_copy_bytes_per_device'], 'B')} of it a bf16 copy of MLA's up-projections"
                       + ("; on ROCm vLLM's AITER fp8 / fp4 bmm may keep them quantised: not modelled"  # qa287
                          if family_of(str(p.get("hardware_family") or p["hardware"])) == "AMD Instinct" else "") + ")"
                       if v.get("bf16_copy_bytes_per_device") else "") for c, v in p["weight_classes"].items()),
        *([_pipeline_text(p)] if p.get("pipeline") else []),
        f"  KV cache per device  {format_si(p['kv_bytes'], 'B')} ({format_binary(p['kv_bytes'])})   (read per step: {format_si(p['kv_read_bytes_per_device'], 'B')}"
        + (" by the busiest stage" if p.get("pipeline") and p["pipeline"]["memory_stage"] != p["pipeline"]["busiest_stage"] else "")
        + (f"; {p['engine']}'s window pool holds the sliding layers at {r:g} x a sequence's tokens, not their window)"
           if (r := p.get("kv_window_pool_ratio")) is not None else ")"),
        f"  fits in memory       {'yes' if p['fits_in_memory'] else 'NO'}  ({_needed_of_usable(p)} usable, {format_binary(p['memory_needed_bytes'])} of {format_binary(p['usable_memory_bytes'])}: {p['usable_memory_text']}; max batch {p['max_batch']:,}{_max_batch_stage_text(p)}{_sequence_cap_text(p['max_batch'], p)})",
        f"  operators            {format_seconds(p['operator_time_s'])}"
        + (f"   (of which kernel latencies {format_seconds(p['kernel_latency_time_s'])}: {p['engine']}'s kernels x layers x "
           f"its kernel_latency{_quant_kernels_text(p)})" if p.get("kernel_latency_time_s") else ""),
    ]
    for key, label in (("allreduce_time_s", "tp collectives"), ("all_to_all_time_s", "expert dispatch"),
                       ("moe_gather_time_s", "MoE gather/scatter"), ("dp_gather_time_s", "DP gather/scatter"),
                       ("p2p_time_s", "pipeline p2p"),
                       ("host_time_s", "host work")):
        if p.get(key):
            note = (f"   ({_host_overlap_text(p)}{_host_work_text(p)})"
                    if key == "host_time_s" else
                    ("   (two all-reduces: moe_dispatch allgather, dp_gather allreduce)"  # qa146: said as all-gathers
                     if p.get("moe_dispatch") == "allgather" and p.get("dp_gather") == "allreduce" else
                     f"   ({MOE_DISPATCH[p['moe_dispatch']][0]}: moe_dispatch {p['moe_dispatch']})")
                    if key == "all_to_all_time_s" and p.get("moe_dispatch") in MOE_DISPATCH else
                    f"   ({_tp_messages_text(p)}tp {p['tp']} over {format_si(p['tp_link_bytes_per_s'], 'B/s')} a device"
                    + (f" inside a domain and {format_si(p['tp_scale_out_bytes_per_s'], 'B/s')} across, the scale-out link"
                       if p.get("tp_scale_out_bytes_per_s") else "") + ", achievable"
                    + _collective_latency_text(p) + ")"
                    if key == "allreduce_time_s" and p.get("tp_link_bytes_per_s") else "")
            lines.append(f"  {label:<20} {format_seconds(p[key])}{note}")
    if p.get("graphs") is False:  # an eager engine: its host's launches, the pass's floor
        amd = (family_of(str(p.get("hardware_family") or p["hardware"])) == "AMD Instinct"  # (qa395: said nowhere)
               and abs(p["eager_launch_s"] - H100_EAGER_LAUNCH_S) < 1e-12)  # the shipped figure, not one set for AMD
        lines.append(f"  eager launches       {format_seconds(p['launch_time_s'])}   ({p['launch_kernels']:,} kernels x "
                     f"{format_seconds(p['eager_launch_s'])}, {p['engine']}'s eager_launch"
                     + (", an H100 host's CUDA launches (its source): HIP's are not measured here" if amd else "")
                     + f": {_launches_fate_text(p)})")
    lines.append(f"  fixed overhead       {format_seconds(p['overhead_s'])}")
    if p.get("engine_fitted"):  # qa426: a fitted copy was named in the header, its fit said only by `engines show`
        fit = p["engine_fitted"]
        file = (p.get("profile_files") or {}).get("engine")
        shown = command_name("engine", file) if file else p["engine"]  # a file off the search path by its path (qa427)
        lines.append(f"  engine fit           {fit.get('file') or 'a file not recorded'}: {fit.get('rows') or 'rows not recorded'}"
                     + (f" ({fit['date']})" if fit.get("date") else "")
                     + (f"; set by hand since, not the fit's: {', '.join(edited)}" if (edited := fit.get("set_by_hand_since"))
                        else "") + f"   (roofline engines show {shown})")
    if "ttft_s" in p:
        cached = p.get("prompt_cached_tokens") or 0
        lines.append(f"  TTFT                 {format_seconds(p['ttft_s'])}   (prefill of "
                     + (f"{p['prompt'] - cached:,} of its {p['prompt']:,} tokens, one sequence: the shared prefix's {cached:,} "
                        f"cached by {p['engine']} (prefix_cached)" if cached else f"{p['prompt']:,} tokens, one sequence") + ")")
        drafter_s = p.get("draft_prefill_s") or 0.0  # a drafter model's own prefill (none for n-gram or plain decoding)
        uncached = bool(cached and "prompt_cached_tokens" in (p.get("spec") or {}) and not p["spec"]["prompt_cached_tokens"])
        if drafter_s or (uncached and p.get("ttft_with_speculation_s") is not None):  # (qa353: n-gram's, said nowhere)
            whole = p["ttft_with_speculation_s"] - drafter_s  # the target's prefill while speculating
            clauses = ([f"the prompt prefilled whole while speculating, {format_seconds(whole)}: {p['engine']}'s cache is off "
                        "then, prefix_cached_speculating false"] if uncached else []) + (
                [f"+ the drafter's own prefill {format_seconds(drafter_s)}"
                 + (f" on {p['spec']['draft_hardware']}: an upper estimate, as that device could prefill beside the "
                    "target's" if (p.get("spec") or {}).get("draft_hardware") else "")] if drafter_s else [])
            lines.append(f"  {'TTFT with drafter' if drafter_s else 'TTFT speculating':<20} "
                         f"{format_seconds(p['ttft_with_speculation_s'])}   ({'; '.join(clauses)})")
    if "serving_time_per_output_token_s" in p:
        if p["batch"] > 1 and p.get("serving_ttft_s") is not None:  # (qa342: TTFT alone read as the one users see)
            how = ("mixed into a step of the others' decode" if p.get("prefill_mixed", True) else
                   "a pass of its own between two of the others' decode steps")  # (qa349: 'mixed' under sglang too)
            lines.append(f"  serving TTFT         {format_seconds(p['serving_ttft_s'])}   (at {p['batch']:,} in flight: its prefill "
                         f"{how}, the step {format_seconds(p['step_time_s'])} + the prefill's stall "
                         f"{format_seconds(p['prefill_stall_s'])})")
        lines.append(f"  serving TPOT         {format_seconds(p['serving_time_per_output_token_s'])}   ({_serving_text(p, p)})")
        if p.get("serving_cost_usd_per_million_tokens") is not None:  # qa294: the decode-only cost alone, above
            lines.append(f"  serving cost         {_cost_text(p['serving_cost_usd_per_million_tokens'])}  (the rent over the "
                         "device time a token takes with every request's prefill, its own included; each user sees "
                         f"{_rate(1 / p['serving_time_per_output_token_s'])} tokens/s after its first token"
                         + ("; not reachable: fits in memory NO" if not p["fits_in_memory"] else "")
                         + (f"; no {p['engine']} setup runs it" if p.get("engine_refuses") else "") + ")")  # (qa381)
    lines += [""]
    if lay.get("pp", 1) > 1:  # engine.step_metrics: a round trip over the pp stages, or m passes of the busiest stage
        lines.append(f"  operators of the busiest pipeline stage's pass over one micro-batch; a step runs the longer of one "
                     f"micro-batch's round trip (every layer, the embedding and the LM head once) and min(batch, {lay['pp']}) "
                     "passes of this stage")
    latencies = any(op.get("kernel_latency_s") for op in p["operators"].values())  # qa286: 'memory' of a row mostly latency
    # each cell after a space of its own (qa421: '4.6e+09 s 100.0%5.24e+04 EFLOP' at absurd sizes)
    lines += [f"  {'operator':<16} {'dtype':>5} {'time':>9} {'share':>7}" + (f" {'latencies':>9}" if latencies else "")
              + f" {'FLOPs':>13} {'bytes':>11} {'FLOP/B':>8}  bound"]
    total = sum(op["time_s"] for op in p["operators"].values()) or 1.0  # shares of the pass the rows describe
    padded_rows = []
    for name, op in p["operators"].items():
        intensity = op["flops"] / op["bytes"] if op["bytes"] else float("inf")
        padded = op.get("padded_flops", op["flops"])  # qa286: 266.6 FLOP/B read 'compute' below a ridge of 278
        if op["bytes"] and padded > op["flops"] * (1 + 1e-9):
            padded_rows.append(f"{name} {padded / op['bytes']:.1f}")
        lines.append(
            f"  {name:<16} {op.get('weight_dtype') or '':>5} {format_seconds(op['time_s']):>9} {op['time_s'] / total:>7.1%}"
            + (f" {format_seconds(op.get('kernel_latency_s', 0.0)):>9}" if latencies else "")
            + f" {format_si(op['flops'], 'FLOP'):>13} {format_si(op['bytes'], 'B'):>11} {intensity:>8.1f}  {op['bound']}"
            # against its own dtype's ridge where that is not the headline's (qa302: attention's 228 FLOP/B 'compute'
            # under a headline ridge of fp8's 354, its dtype cell blank: bf16's 194 said only in the header)
            + (f" ({op['compute_dtype']}'s ridge)" if op.get("compute_dtype") not in (None, p["ridge_point_dtype"]) else "")
        )
    if padded_rows:  # each row's bound is read off its FLOPs with its rows padded to the engine's GEMM tile
        lines.append(f"  bound with rows padded to the {p['engine_values'].get('gemm_tile_rows')}-row GEMM tile (FLOP/B): "
                     + ", ".join(padded_rows))
    spec = p.get("spec")
    if spec:
        be = spec["break_even_batch"]
        given = (f"alpha {spec['alpha']:.4g} (acceptance length {spec['acceptance_length_given']:g} at k {spec['k']})"
                 if spec.get("acceptance_length_given") is not None else
                 f"alpha {spec['alpha']}" if spec.get("alpha") is not None else
                 f"tree of {spec['tree_nodes']} node{'s' if spec['tree_nodes'] != 1 else ''}, tau {spec['tree_tau']:g} (given)" if spec.get("tree_nodes") is not None else
                 f"acceptance {spec.get('acceptance')}")
        drafts = spec["k"] > 0  # k 0 drafts nothing: no acceptance is used, so none is shown (qa105)
        lines += [
            "",
            f"  speculation: {spec['method']}  k {spec['k']}" + (f"  {given}" if drafts else "  (nothing drafted: plain decoding)")
            + (f"  ({spec['acceptance_source']})" if drafts and spec.get("acceptance_source") not in (None, "given") else ""),
            f"    tau (tokens/iter)  {spec['tau']:.3f}",
            f"    iteration          {_iteration_text(spec)}",
            f"    verify pass        {_verify_text(spec, p)}",
            *([f"    experts a layer    {_verify_experts_text(v, p)}"] if (v := spec.get("verify_experts_busiest_rank")) else []),
            f"    tokens/s (batch)   {_rate(spec['tokens_per_s'])}   ({_rate(spec['tokens_per_s_per_device'])} per device"
            + (", the drafter's included" if spec.get("drafter_device_max_batch") is not None else "")
            + (f"; no {p['engine']} setup runs it" if spec.get("engine_refuses") or p.get("engine_refuses") else "") + ")",
            f"    tokens/s per user  {_rate(spec['tokens_per_s_per_user'])}" + (_unreachable_text(spec, p) if (
                spec.get("engine_refuses") or p.get("engine_refuses")) else ""),  # (qa381: untagged beside its speedup)
            f"    speedup            {_speedup_text(spec['speedup'])}" + _unreachable_text(spec, p),
            *([f"    serving TTFT       {format_seconds(spec['serving_ttft_s'])}   (at {p['batch']:,} in flight: the iteration "
               f"{format_seconds(spec['iteration_time_s'])} + the prefill's stall {format_seconds(spec['prefill_stall_s'])}"
               + _drafter_stall_text(spec) + f"; plain's {format_seconds(p['serving_ttft_s'])})"]
              if spec.get("serving_ttft_s") is not None and p["batch"] > 1 and spec["k"] > 0 else []),
            *([f"    serving TPOT       {format_seconds(spec['serving_time_per_output_token_s'])}   ({_serving_text(spec, p)}; "
               f"plain's {format_seconds(p['serving_time_per_output_token_s'])} is "
               f"{p['serving_time_per_output_token_s'] / spec['serving_time_per_output_token_s']:.3f}x this)"
               + (_unreachable_text(spec, p) if spec.get("engine_refuses") or p.get("engine_refuses") else "")]  # (qa299,
              # qa381: untagged beside tagged lines)
              if "serving_time_per_output_token_s" in spec else []),
            # at k 0 the drafter does not run, and its device is not charged (qa118: 'included' where it was not)
            f"    cost               {_cost_text(spec['cost_usd_per_million_tokens'], spec.get('draft_hardware') if spec['k'] else None, spec.get('draft_price_usd_per_hour'), p['hardware'] if p.get('price_usd_per_hour_per_device') is None else None)}"
            + (_unreachable_text(spec, p) if spec["cost_usd_per_million_tokens"] is not None else ""),
            *([f"    serving cost       {_cost_text(spec['serving_cost_usd_per_million_tokens'])}  (as above"
               + (", the drafter's device too" if spec["k"] and spec.get("draft_hardware") else "")  # qa297: none co-located
               + f", each user at {_rate(1 / spec['serving_time_per_output_token_s'])} tokens/s after its first token"
               + ")" + _unreachable_text(spec, p)]
              if spec.get("serving_cost_usd_per_million_tokens") is not None else []),
            f"    best k here        {(best := _best_k_text(spec))}"
            + ("" if "no setup of the engine runs it" in best else _refused_tag(spec, p)),  # (qa479: untagged)
            f"    break-even batch   {_break_even_value(be, spec)}"
            f" at k {spec['k']}" + (" (nothing drafted)" if spec["k"] == 0 else "")  # qa286: a number read as where it
            # stops paying, where memory stops the search first; qa317: 'none at k 0' read as never paying
            + (f", {_speedup_text(spec['break_even_speedup'])} there" if be is not None and spec.get("break_even_speedup") else "")
            # within a percent of 1 the batch is not sharp (qa299: 72 paid by 0.12%, its neighbours lost)
            + (" (within 1% of 1: a tie at the model's accuracy, the batch not sharp)"
               if be is not None and spec.get("break_even_speedup") and spec["break_even_speedup"] < 1.01 else "")
            + ("  (the largest batch that fits: memory ends the search, speculation still paying)"
               if spec.get("break_even_at_memory_limit") else "")
            + (": no batch fits with the drafter (max batch 0), whatever the speedup"  # qa299: read as never paying
               if be is None and spec.get("max_batch") == 0 else
               ": speculation pays at no batch that fits"  # qa378: "none" said no why
               if be is None and spec["k"] > 0 else "")
            + _capped_break_even_text(be, p) + _refused_tag(spec, p),
            *([f"    below it           speedup < 1 at batch {gap[0]:,} alone: the curve {_dip_shape(gap)}" if gap[0] == gap[1] else
               f"    below it           speedup < 1 at batches from {gap[0]:,} to {gap[1]:,}"
               + {True: " (each of them)", False: " (the first and the last that lose; some between them pay)"}.get(
                   spec.get("not_paying_every_batch_between"), " (the first and the last that lose)")  # None: an older JSON's
               + f": the curve {_dip_shape(gap)}"]
              if (gap := spec.get("not_paying_below_break_even")) else []),
            # after the break-even's own dip (qa461: 'below it' read as the longer-paying k's, which paid there)
            *([f"    pays longest       {text}" + _refused_tag(spec, p)] if (text := _pays_longest_text(spec, p)) else []),
            *(["    drafter memory     none (n-gram drafts by looking up the context)"  # qa176: it said '0 B per device'
               if spec["method"] == "ngram" else
               f"    drafter memory     {format_si(spec['drafter_memory_bytes'], 'B')}"
               + (f" on the draft device, of {format_si(spec['drafter_usable_memory_bytes'], 'B')} usable there"
                  if spec.get("draft_hardware") and spec.get("drafter_usable_memory_bytes")
                  else " on the draft device" if spec.get("draft_hardware") else " per device")  # qa361: the share unsaid
               # the figure is the drafter's weights and its KV cache, not its weights alone (session 36's note)
               + (f": its weights ({spec['drafter_weight_dtype']}, "
                  + (f"{spec['drafter_expert_dtype']} experts, " if spec.get("drafter_expert_dtype") not in (None, spec["drafter_weight_dtype"])
                     and spec["method"] != "draft" else "")
                  + ("the target's attention dtype)" if spec["method"] == "draft" else
                     "as the target's LM head)" if spec["method"] == "medusa" else
                     # qa273: MTP's eh_proj (EAGLE's fc) is a plain linear layer, unquantised (costs' input_proj)
                     "as the target's; its input projection unquantised)" if spec["drafter_weight_dtype"] not in ("bf16", "fp16", "fp32")
                     else "as the target's)")
                  + ((f", {spec['k']} heads of a block and an LM head each" if spec["k"] != 1 else ", 1 head of a block and an "
                      "LM head") + "; no KV cache" if spec["method"] == "medusa"  # (qa462: '1 heads')
                     else " and its KV cache") if spec.get("drafter_weight_dtype") else ""),
               f"    fits in memory     {'yes' if spec['fits_in_memory'] else 'NO'}  (max batch {spec['max_batch']:,}"
               + f" {_fit_with(spec)}{_caps_text(spec)}"
               # qa354: a halved batch blamed on the drafter, where the prefix held a sequence took the memory
               + (f", and the shared prefix held by each sequence while speculating: {format_si(spec['memory_needed_bytes'], 'B')}"
                  " per device" if p.get("shared_prefix") and (p.get("engine_values") or {}).get("prefix_cached")
                  and not (p.get("engine_values") or {}).get("prefix_cached_speculating", True) else "") + ")"]
              if spec["k"] > 0 else  # k 0 drafts nothing and holds no drafter (qa101: 'drafter memory 0 B', 'with the drafter')
              [f"    fits in memory     {'yes' if spec['fits_in_memory'] else 'NO'}  (max batch {spec['max_batch']:,}: k 0 holds no drafter)"]),
        ]
        if spec.get("drafter_waits_for_target"):
            lines.append("    no overlap         the head drafter needs the verified hidden states before it drafts")
        if spec.get("mtp_module_reused"):
            from roofline.speculation import mtp_reused_text

            lines.append(f"    MTP module reused  k exceeds the trained MTP modules: {mtp_reused_text(spec.get('mtp_modules') or 1)}, "
                         + ("and the default rates accept later positions less often" if spec.get("acceptance_source") not in (None, "given")
                            else "at the acceptance given (a reused module accepts less in practice)"))
    return "\n".join(lines)


def _pays_longest_text(spec: dict, p: dict) -> str:
    """'k 1, to batch 431 at least, of k = 1-64 (1.214x there: the largest batch that fits at k 1, speculation still
    paying)': the k that pays up to the largest batch, where it is not the k asked and pays at least PAYS_LONGER_FACTOR
    times as far (qa454: the report's break-even is at that k, predict's at the asked one); '' otherwise."""
    from roofline.speculation import K_SEARCH, PAYS_LONGER_FACTOR

    longest = spec.get("pays_longest")
    if (not longest or longest["k"] == spec["k"] or longest["batch"] <= (spec["break_even_batch"] or 0)
            or longest["batch"] < PAYS_LONGER_FACTOR * (spec["break_even_batch"] or 0)):
        return ""
    return (f"k {longest['k']}, to batch {longest['batch']:,}{' at least' if longest['at_memory_limit'] else ''}, "
            f"of k = {int(K_SEARCH[1])}-{int(K_SEARCH[-1])} ({_speedup_text(longest['speedup'])} there"  # as the break-even's line (qa461: 1.00037 said 1.000x)
            + (f": the largest batch that fits at k {longest['k']}, speculation still paying)" if longest["at_memory_limit"] else
               ": within 1% of 1, the batch not sharp)" if longest["speedup"] < 1.01 else ")")
            + _longest_cap_text(spec, longest, p))


def _longest_cap_text(spec: dict, longest: dict, p: dict) -> str:
    """The pays-longest batch's engine cap, as the break-even's line says it (qa461: said of the break-even alone), or
    '; past the same cap' where that line has just said it."""
    text = _capped_break_even_text(longest["batch"], p)
    return "; past the same cap" if text and text == _capped_break_even_text(spec["break_even_batch"], p) else text


def _break_even_value(be, spec: dict) -> str:
    """The break-even batch as predict says it: 'n/a' at k 0, 'none' where no batch pays, 'at least N' where memory
    ends the search, else N."""
    if be is None:
        return "n/a" if spec["k"] == 0 else "none"
    return f"at least {be:,}" if spec.get("break_even_at_memory_limit") else f"{be:,}"


def _speedup_text(speedup: float) -> str:
    """'1.584x'; a speedup that rounds to 1.000x on the side of 1 it is not said with the digits that tell (qa313: a point
    that loses, 0.99958, printed 1.000x above 'speedup < 1')."""
    text = f"{speedup:.3f}x"
    if text == "1.000x" and speedup != 1.0:
        text = next((t for d in range(4, 10) if (t := f"{speedup:.{d}f}x") != "1." + "0" * d + "x"), text)
    return text


TEXT_WIDTH = 116  # a profile's free text wrapped to this many characters a line (qa454: vllm's source one line of 11,504)


def _text_block(label: str, text: object) -> str:
    """'  LABEL: first line' and every further line of a profile's free text indented under it (4 spaces), whatever
    indent the YAML gave it; a line longer than TEXT_WIDTH wrapped at its spaces (a folded YAML scalar is one line)."""
    import textwrap

    lines = [line.strip() for line in str(text).strip().splitlines()] or [""]
    head = f"  {label}: "
    wrapped = textwrap.wrap(lines[0], TEXT_WIDTH - len(head), break_long_words=False, break_on_hyphens=False) or [""]
    rest = [part for line in lines[1:] if line
            for part in textwrap.wrap(line, TEXT_WIDTH - 4, break_long_words=False, break_on_hyphens=False)]
    return "\n".join([head + wrapped[0], *(f"    {line}" for line in [*wrapped[1:], *rest])])


def _pipeline_text(p: dict) -> str:
    """'  pipeline stages      31 / 30 layers (vllm's split, pp_remainder before_last); memory set by stage 2 of 2 (its
    weights and KV cache shown), the operators below the busiest's, stage 2' under pp (stages counted from 1 here, from
    0 in the JSON; qa233: the weights and KV cache shown were one stage's and the KV read another's, unsaid)."""
    pipe = p["pipeline"]
    memory, busiest, n = pipe["memory_stage"] + 1, pipe["busiest_stage"] + 1, len(pipe["stage_layers"])
    split = (f"{p['engine']} has no pipeline parallelism: split as `last`" if pipe["pp_remainder"] == "none" else
             f"{p['engine']}'s split, pp_remainder {pipe['pp_remainder']}")
    which = (f"stage {memory} of {n} sets memory and is the busiest (its weights, KV cache and operators shown)"
             if memory == busiest else
             f"memory set by stage {memory} of {n} (its weights and KV cache shown), the operators the busiest's, stage {busiest}")
    return f"  pipeline stages      {' / '.join(str(c) for c in pipe['stage_layers'])} layers ({split}); {which}"


def _refused_tag(spec: dict, p: dict) -> str:
    """'  (no ENGINE setup runs it)' beside a speculative finding (best k, break-even) of a point no setup of its engine
    runs, '' otherwise."""
    return f"  (no {p['engine']} setup runs it)" if spec.get("engine_refuses") or p.get("engine_refuses") else ""


def _unreachable_text(spec: dict, p: dict) -> str:
    """'  (not reachable: fits in memory NO with the drafter, below)' or '  (no sglang setup runs it: ...)' beside
    a speculative figure no deployment reaches (qa231: a speedup of 2.55x and its cost read as a gain)."""
    if spec.get("engine_refuses") or p.get("engine_refuses"):  # the speculation refused, or the whole point (qa379)
        return f"  (no {p['engine']} setup runs it: the warning that says so tells why)"
    if spec["k"] > 0 and not spec["fits_in_memory"]:
        return f"  (not reachable: fits in memory NO {_fit_with(spec)}, below)"
    return ""


def _fit_with(spec: dict) -> str:
    """What a speculative point's memory holds beyond plain decoding's: 'with the drafter', 'with the drafter on its own
    device' where that device's cap is the lower one, so sets the max batch (qa316, qa343), or 'with the KV of the k + 1
    tokens a pass verifies' where no drafter is on the target's devices (n-gram; a drafter on its own device that holds
    more sequences than the target's: qa315)."""
    drafter_cap, target_cap = spec.get("drafter_device_max_batch"), spec.get("target_max_batch")
    if spec.get("draft_hardware") and (drafter_cap < target_cap if drafter_cap is not None and target_cap is not None
                                       else not spec.get("drafting_fits", True)):  # an older JSON: no caps
        return f"with the drafter on {spec['draft_hardware']}"
    verified = f"N + 1 = {spec['tree_nodes'] + 1}" if spec.get("tree_nodes") else "k + 1"  # a tree's (qa346)
    return (f"with the KV of the {verified} tokens a pass verifies" if spec["method"] == "ngram" or spec.get("draft_hardware")
            else "with the drafter")


def _caps_text(spec: dict) -> str:
    """With a drafter on its own device, each side's cap and which one sets the max batch: '; the target's devices
    hold 62, l4 holds the drafter for 71' (qa343: the target's cap was said as the drafter device's); '' otherwise."""
    drafter_cap, target_cap = spec.get("drafter_device_max_batch"), spec.get("target_max_batch")
    if spec.get("draft_hardware") and drafter_cap is None and target_cap is not None and spec.get("k", 0) > 0:
        return (f": the target's devices hold {target_cap:,} sequences; {spec['draft_hardware']} holds the drafter, "
                "which keeps no KV cache, for any number")  # (qa374: 4,611,686,018,427,387,904)
    if not spec.get("draft_hardware") or drafter_cap is None or target_cap is None:
        return ""
    return (f": the target's devices hold {target_cap:,} sequences, {spec['draft_hardware']} holds the drafter's KV cache "
            f"for {drafter_cap:,}")


def _speeds_text(request: dict | None) -> str:
    """What cheapest's speeds and costs are: steady decoding's (where a request's serving columns are, --serving ranks by
    them: qa347, a 50 ms TPOT budget read at 3x the concurrency a benchmark gives), or a serving benchmark's."""
    if request is None:
        return ("steady decoding: speeds and costs count decode steps only, not the prefills of arriving requests (roofline "
                "predict --prompt P --output-len O gives a point's serving TPOT and its cost at it)")
    tokens = (f"{request['prompt']:,}-token prompts and {request['output_len']:,} output tokens each"
              if request.get("prompt") and request.get("output_len") else "the sweep's request")
    if request.get("serving"):
        return (f"a serving benchmark's: tokens/s per user 1 / the time per output token with the other requests' prefills "
                f"({tokens}), costs at that pace")
    return ("steady decoding: speeds and costs count decode steps only, not the prefills of arriving requests; --serving "
            f"ranks by this table's serving columns ({tokens})")


def _cost_text(usd: float | None, drafter: str | None = None, drafter_price: float | None = None,
               priceless: str | None = None) -> str:
    """'$0.175 per million tokens', or which device has no price (the target's `priceless`, else the drafter's)."""
    if usd is None:
        device = priceless or drafter or "the device"
        return (f"unknown: {device} has no price in its profile (give one: roofline hw new NAME --from {device} "
                f"--set price='2.5 USD/h')")
    return f"${format_significant(usd)} per million tokens" + (
        f" (the drafter's device included: + ${format_usd_per_hour(drafter_price)}/h)" if drafter and drafter_price else
        " (the drafter's device included)" if drafter else "")


def _iteration_text(spec: dict) -> str:
    """The iteration time as the sum it is: draft + verify + the parts beside them, each named where it is not zero
    (qa186: one 'other' held both): the link round trip to a drafter on another device, and the engine's bookkeeping
    an iteration (its spec_per_iteration and spec_per_iteration_per_sequence: rejection sampling, KV bookkeeping). With
    a draft model overlapped, the first term is the larger of the two devices' busy times (two half batches each, one
    drafted while the other is verified). A drafter of k passes says one pass and c, a pass over the plain decode step
    (spec's draft_cost_ratio, the c of Leviathan et al.'s speedup; qa374: a researcher divided by k)."""
    if spec["k"] == 0:  # qa215: 'draft 0 s + verify' beside 'verify pass none (k 0: plain decoding)'
        return f"{format_seconds(spec['iteration_time_s'])} = one decode step (k 0: nothing drafted or verified)"
    draft, verify = format_seconds(spec["draft_busy_time_s"]), format_seconds(spec["verify_busy_time_s"])
    rest = "".join(f" + {name} {format_seconds(spec[key])}" for name, key in
                   (("link", "transfer_time_s"), ("bookkeeping", "overhead_time_s")) if spec[key])
    if spec.get("drafter_overlaps"):  # the busy times: two half-batch passes on each device
        return (f"{format_seconds(spec['iteration_time_s'])} = max(draft busy {draft}, verify busy {verify}){rest}"  # qa286:
                "  (each device busy with two half batches: one drafted while the other is verified)")  # read as the passes
    launched = " (its eager passes launch-bound)" if spec.get("draft_launch_bound") else ""  # qa326: unsaid
    if spec.get("draft_cost_ratio") is not None:  # api.predict's c (None for Medusa's k heads in one pass, n-gram)
        one = spec["draft_time_s"] / spec["k"]
        kept = spec.get("draft_bookkeeping_time_s", 0.0) / spec["k"]  # the engine's bookkeeping a draft step, within `one`
        launched += (f" ({spec['k']} pass{'es' if spec['k'] != 1 else ''} of {format_seconds(one)}"  # (qa378: '1 passes')
                     + (f", {'each ' if spec['k'] != 1 else ''}with {format_seconds(kept)} of the engine's bookkeeping"
                        if kept > 0 else "")  # (qa496: '1 pass of 10.3 ms, each with')
                     + f", c = {spec['draft_cost_ratio']:.3g} of a decode step"
                     + (f", {spec['draft_pass_cost_ratio']:.3g} for the drafter's pass alone" if kept > 0 else "") + ")")
        # (qa396: c of the pass and the engine's spec_per_draft_step read as the drafter's pass alone)
    if spec["draft_busy_time_s"] == 0:  # n-gram lookup: no device pass to time (qa374: 'draft 0 s' beside ms)
        return (f"{format_seconds(spec['iteration_time_s'])} = verify {verify}{rest}  (its drafts looked up in the "
                "context, no pass of a drafter; the lookup's host time is in the bookkeeping, and a sequence whose "
                "context holds no match drafts nothing: α stands for the workload's repetition on average)")
        # (qa433: 'pays at α = 0.2' read as a claim about drafters; the lookup and its misses unsaid)
    return f"{format_seconds(spec['iteration_time_s'])} = draft {draft}{launched} + verify {verify}{rest}"


def _tp_messages_text(p: dict) -> str:
    """'160 all-reduces a pass of 131 kB each, the embedding's of 131 kB, the LM head's logits 513 kB a device; ' (the
    tp collectives' count and message sizes, predict's tp_collectives), '' where an older JSON lacks them."""
    c = p.get("tp_collectives")
    if not c or not c.get("count"):
        return ""
    stage = " of the busiest stage" if p.get("pipeline") else ""
    size = format_si(c["allreduce_message_bytes"], "B")
    spm = c.get("sequence_parallel_moe") if isinstance(c.get("sequence_parallel_moe"), dict) else None
    qk = c.get("qk_norm") if isinstance(c.get("qk_norm"), dict) else None
    reduces = c["count"] - (spm["count"] if spm else 0) - (qk["count"] if qk else 0)
    parts = [f"{reduces:,} all-reduces a pass{stage} of {size} each"]
    if qk:  # (qa447: MiniMax's QK norm over all heads, one a layer, said as the layers' M)
        parts.append(f"{qk['count']:,} more of the QK norm's sums of squares, {format_si(qk['message_bytes'], 'B')} each")
    if spm and spm["kind"] == "reduce_scatter":  # (qa417: said as collectives of the all-reduce's bytes each)
        parts[0] += (f" ({spm['count']:,} of them, a MoE layer's first, a reduce-scatter and an all-gather: vLLM's "
                     "sequence-parallel MoE on MLA, one latency more each)")
    elif spm:
        parts.append(f"{spm['count']:,} all-gathers of the MoE output, {size} each gathered (vLLM's sequence-parallel MoE)")
    if c.get("embedding_allreduce_message_bytes"):
        parts.append(f"the embedding's of {format_si(c['embedding_allreduce_message_bytes'], 'B')}")
    if c.get("lm_head_gather_message_bytes"):
        parts.append(f"the LM head's logit gather {format_si(c['lm_head_gather_message_bytes'], 'B')} a device")
    text = ", ".join(parts) + "; "
    return text + ("the time: every pass of the step, micro-batches or stages; " if p.get("pipeline") else "")


def _collective_latency_text(p: dict) -> str:
    """'; each collective at least 7.5 us, sglang's allreduce_latency on this device', or where the link's own latency
    is the larger (the scale-out link's where the group spans scale-up domains, else the scale-up link's), that one
    (qa397: the engine's 5 us said where 20 us was paid; qa417: 6 us said over a PCIe link's 15 us); under an engine
    of none (ideal) the link's; '' where neither is known (an older JSON)."""
    engine_s = (p.get("engine_values") or {}).get("allreduce_latency_s") or 0.0
    out_s = p.get("tp_scale_out_latency_s") or 0.0
    link_s, which = (out_s, "the scale-out link's") if out_s else (p.get("tp_link_latency_s") or 0.0, "the link's")
    if link_s > engine_s:
        return (f"; each collective at least {format_seconds(link_s)}, {which} latency"
                + (f", the larger: {p['engine']}'s allreduce_latency ({format_seconds(engine_s)}) does not move it"
                   if engine_s else ""))
    return f"; each collective at least {format_seconds(engine_s)}, {p['engine']}'s allreduce_latency on this device" if engine_s else ""


def _other_ridges_text(p: dict) -> str:
    """'; bf16's 194.0 for attention, lm_head' for each other dtype the step's operators compute in (predict's
    derated_ridge_points_flops_per_byte: a row of the operators' table is bound against its own dtype's ridge), '' where
    they compute in the headline's alone or an older JSON lacks them."""
    ridges, ops = p.get("derated_ridge_points_flops_per_byte") or {}, p.get("operators_by_compute_dtype") or {}
    return "".join(f"; {d}'s {r:.1f} for {', '.join(ops.get(d, []))}" for d, r in ridges.items() if d != p["ridge_point_dtype"])


def _needed_of_usable(p: dict) -> str:
    """'19 GB of 69.3 GB': the memory a point needs and what its devices give, with digits enough to tell them apart
    (qa361: 'NO (122 GB of 122 GB usable)' at the edge, 122.30 against 122.11)."""
    needed, usable = p["memory_needed_bytes"], p["usable_memory_bytes"]
    digits = 3
    while digits < 8 and format_si(needed, "B", digits) == format_si(usable, "B", digits) and needed != usable:
        digits += 1
    a, b = format_si(needed, "B", digits), format_si(usable, "B", digits)
    return f"{_same_decimals(a, b)} of {_same_decimals(b, a)}"


def _same_decimals(text: str, other: str) -> str:
    """'77 GB' as '77.0 GB' beside '77.1 GB' (qa481: 'NO (77.1 GB of 77 GB usable', the warning's '77.0 GB'): the
    decimals `other` shows, where both are in one unit and `text` rounded to fewer."""
    (num, unit), (other_num, other_unit) = text.split(" ", 1), other.split(" ", 1)
    want = len(other_num.partition(".")[2])
    have = len(num.partition(".")[2])
    if unit != other_unit or have >= want:
        return text
    return f"{num}{'' if '.' in num else '.'}{'0' * (want - have)} {unit}"


def _above_their_ridges(p: dict, cb: dict) -> str:
    """'mlp and lm_head are above it', or of operators computing in another dtype than the headline ridge's, 'attention is
    above bf16's 194.0' (qa360: MLA attention at 240 FLOP/B said above fp8's 354.1): the operators compute-bound where
    the step turns so, each against its own compute dtype's ridge (_other_ridges_text's)."""
    names = cb.get("compute_bound_operators_at_first") or ["its GEMMs"]  # an older JSON: the usual ones (qa357)
    ridges, by_dtype = p.get("derated_ridge_points_flops_per_byte") or {}, p.get("operators_by_compute_dtype") or {}
    dtype_of = {op: d for d, ops in by_dtype.items() for op in ops}
    groups: dict[str, list[str]] = {}
    for name in names:
        d = dtype_of.get(name, p.get("ridge_point_dtype"))
        groups.setdefault(d if d != p.get("ridge_point_dtype") and d in ridges else "", []).append(name)
    parts = [f"{spoken_list(ops)} {'is' if len(ops) == 1 else 'are'} above " + (f"{d}'s {ridges[d]:.1f}" if d else "it")
             for d, ops in groups.items()]
    return "; ".join(parts)


def _compute_bound_text(p: dict) -> str:
    """'  compute-bound from   batch 314 at context 256 (...)', or none to the search's end with the intensity there,
    or where the flag zigzags the first batch, the first memory-bound one past it and where it stays compute-bound:
    the batch where the decode step turns compute-bound, which the ridge is not (the step's intensity counts
    attention's KV reads, which grow with the batch, and its operators turn compute-bound one by one)."""
    cb, at, end = p["compute_bound"], f"at context {p['context']:,}", p["compute_bound_search_max_batch"]
    if cb["first_batch"] is None:
        held = cb.get("memory_bound_operators_at_end") or []
        named = f", {_operator_shares_text(held)}" if held else ""  # qa459: unnamed, GQA attention's KV reads at 70%
        fits = p.get("max_batch")
        return (f"  compute-bound at     no batch to {end:,} {at} (at batch {end:,} its memory-bound operators still take "
                f"most of the operator time{named}; the step's intensity there is {cb['intensity_at_end_flops_per_byte']:.1f} FLOP/byte)"
                + ("; no batch fits in memory" if fits == 0 else
                   f"; the search runs past what fits: {fits:,} fit in memory" if fits is not None and fits < end else ""))
    first, fits = cb["first_batch"], p.get("max_batch")
    below = cb["intensity_at_first_flops_per_byte"] < p.get("derated_ridge_point_flops_per_byte", 0.0)  # (qa317: read as a
    intensity = (f"(most of the operators' time in compute-bound operators; intensity at batch {first:,} "  # contradiction)
                 f"{cb['intensity_at_first_flops_per_byte']:.1f} FLOP/byte"
                 + (f", the step's mean, below the ridge where {_above_their_ridges(p, cb)}" if below else "") + ")")
    if cb["memory_bound_again"] is None:
        text = f"  compute-bound from   batch {first:,} {at} {intensity}"
    elif fits is not None and first > fits:  # past every batch that fits: where its runs lie is no batch served (qa371:
        span = (f"for good from {cb['from_batch']:,}" if cb["from_batch"] is not None  # 5 runs listed)
                else f"in runs apart to {cb['runs'][-1][1]:,}")
        text = f"  compute-bound from   batch {first:,} {at}, {span} {intensity}"
    else:  # qa304, qa306: runs of compute-bound batches apart (tile padding, kernel latencies)
        runs = [f"{a:,}" if a == b else f"{a:,}-{b:,}" for a, b in cb["runs"]]
        shown = runs if len(runs) <= 6 else [*runs[:5], f"{len(runs) - 5} more runs"]
        last = cb["runs"][-1]
        listed = spoken_list(shown)  # (qa308: ' and 100-200')
        gaps = [f"{b + 1:,}" if a - 1 == b + 1 else f"{b + 1:,}-{a - 1:,}"  # qa327: named, not 'the batches between'
                for (_, b), (a, _) in zip(cb["runs"], cb["runs"][1:])]
        if len(gaps) > 4:
            gaps = ["the batches between them"]
        past = [] if cb["from_batch"] is not None else [f"past {last[1]:,} to {end:,}, the search's end"]
        spans = [*gaps, *past]  # (qa328: 'at 605-608 and 625-640 and past 644')
        listed_spans = spoken_list(spans)
        text = (f"  compute-bound at     batches {listed} {at} {intensity}, memory-bound "
                + ("at " if gaps else "") + listed_spans)
    return text + (f"; {fits:,} fit in memory" if fits is not None and first > fits else "")


SHARE_NAMES = {"attention": "attention's KV reads"}  # what a memory-bound operator's time is spent on, where the name hides it


def _operator_shares_text(shares: list) -> str:
    """"attention's KV reads 70% of it, mlp 12%": the largest memory-bound operators at a search's end, as many as
    make up half the operator time (at most three)."""
    said, total = [], 0.0
    for name, share in shares[:3]:
        said.append((name, share))
        total += share
        if total > 0.5:
            break
    words = [f"{SHARE_NAMES.get(name, name)} {100 * share:.0f}%" for name, share in said]
    return words[0] + " of it" + "".join(f", {w}" for w in words[1:])


BYTES_SHARE_SAID = 0.5  # a memory-bound step whose bytes take less of it says what else does
OVERHEAD_LEFT_AT_2X = 0.8  # and where twice the bandwidth leaves more of it, its overheads set it (_rest_text)


def _padded_flops_text(p: dict) -> str:
    """'the FLOPs', or 'the step's FLOPs padded to the GEMM tile, 247 GFLOP,' where tile padding adds over 1% (flops_time_s
    prices the padded FLOPs; qa390: 127 GFLOP said beside the 312 us of 247)."""
    operators = (p.get("operators") or {}).values()
    padded = sum(float(op.get("padded_flops", op.get("flops", 0.0))) for op in operators)
    raw = sum(float(op.get("flops", 0.0)) for op in operators)
    padded *= float(p["flops"]) / raw if raw > 0 else 1.0  # the operators are one micro-batch's pass, a step m of them (pp)
    return (f"the step's FLOPs padded to the GEMM tile, {format_si(padded, 'FLOP')}," if padded > 1.01 * float(p["flops"])
            else "the FLOPs")


def _memory_time_s(p: dict) -> float:
    """The part of the step its bytes set, at the bandwidth their kernels reach (memory_time_s: engine.bytes_set_time_s,
    the engine's efficiencies below the derated ceiling included), about twice what twice the bandwidth saves;
    bytes_time_s in a point written before it."""
    return p.get("memory_time_s", p["bytes_time_s"])


OVERLAP_SAID_BELOW = 0.98  # the bytes' share of the step said beside their whole time where it is below this of it


def _bytes_bandwidth_text(p: dict) -> str:
    """' at the derated bandwidth' (with the kernels' efficiencies below it), or where the engine's smooth overlap
    hides part of the bytes' time under compute (engine.bytes_set_time_s: t_m (t_m / t_op)^(p - 1), below t_m),
    ' (of the 18 ms they take at the derated bandwidth; the rest overlaps compute)': bytes / derated bandwidth, the
    time one works out by hand, said beside the part that sets the step (qa495: 16.5 ms read as a wrong division of
    51.3 GB by 2.85 TB/s)."""
    efficiencies = _efficiencies_text(p)
    whole_s = p.get("bytes_time_s")
    if efficiencies or _bytes_take(p) or not whole_s or _memory_time_s(p) >= OVERLAP_SAID_BELOW * whole_s:
        return f" at the derated bandwidth{efficiencies}"
    return f" (of the {format_seconds(whole_s)} they take at the derated bandwidth; the rest overlaps compute)"


def _bytes_take(p: dict) -> bool:
    """Whether the host (its work, or an eager pass's launches) sets the step: its bytes then take their time on the
    device but set none of the step (qa341: 'its bytes set 112 us of it' of a host-bound step)."""
    return bool(_host_sets_step(p) or p.get("launch_bound"))


def _bytes_verb(p: dict) -> str:
    return "take" if _bytes_take(p) else "set"


def _step_aside(p: dict) -> str:
    """What the step line says where it gives no bytes' time (qa337): a memory-bound step's kernels below the derated
    bandwidth ('; its kernels reach less than the derated bandwidth (mlp at 0.714 of that bandwidth: vllm's efficiency)'),
    a compute-bound one's host work where it is over half the step, added to the device's time."""
    if p["bound"] == "memory" and not p.get("launch_bound") and not _host_sets_step(p) and _efficiencies_text(p):
        return f"; its kernels reach less than the derated bandwidth{_efficiencies_text(p)}"
    added = p.get("host_on_path_s") or 0.0
    if p["bound"] == "compute" and not _host_sets_step(p) and added > BYTES_SHARE_SAID * p["step_time_s"]:  # (qa339: a
        # host-bound step's overlapped host work said as added)
        return f"; host work, added to the device's time, is {format_seconds(added)} of it ({added / p['step_time_s']:.0%})"
    return ""


def _efficiencies_text(p: dict) -> str:
    """' (experts at 0.704 of that bandwidth: sglang's efficiency)' where operators' kernels reach less than the derated
    bandwidth, by the engine's efficiencies (memory_efficiencies) or the hardware profile's operator ceilings
    (memory_ceilings_measured, qa335), so that what twice the bandwidth saves reads as half the time said (qa333; qa428:
    'of it' and 'for it' read as three different things)."""
    def said(below: dict, whose: str) -> str:
        by_share: dict[float, list[str]] = {}
        for name, share in below.items():
            by_share.setdefault(share, []).append(name.replace("_", " "))
        parts = [f"{spoken_list(names)} at {format_significant(share)}" for share, names in by_share.items()]
        return f"{', '.join(parts)} of that bandwidth: {whose}"  # ', ' within a group, '; ' between them (qa339)

    engine, device = p.get("memory_efficiencies") or {}, p.get("memory_ceilings_measured") or {}
    parts = ([said(engine, f"{p['engine']}'s efficienc{'ies' if len(set(engine.values())) > 1 else 'y'}")] if engine else []) + (
        [said(device, f"the hardware profile's operator ceiling{'s' if len(device) > 1 else ''}")] if device else [])
    return f" ({'; '.join(parts)})" if parts else ""


def _overhead_bound(p: dict) -> bool:
    """Whether a memory-bound step is set by its overheads (kernel latencies, collectives, host work) more than by its
    bytes: they take under BYTES_SHARE_SAID of the step, and twice the bandwidth leaves over OVERHEAD_LEFT_AT_2X of it
    (as _rest_text says); or a compute-bound one by host work added to the device's time, over BYTES_SHARE_SAID of it
    (_step_aside says how much; qa357: 'compute-bound' of a step 62% host work read as a saturated GPU)."""
    if _host_sets_step(p) or p.get("launch_bound"):
        return False
    if p["bound"] == "compute":
        return (p.get("host_on_path_s") or 0.0) > BYTES_SHARE_SAID * p["step_time_s"]
    return (p["bound"] == "memory" and _memory_time_s(p) < BYTES_SHARE_SAID * p["step_time_s"]
            and p["step_time_at_2x_bandwidth_s"] > OVERHEAD_LEFT_AT_2X * p["step_time_s"])


def _launches_fate_text(p: dict) -> str:
    """What an eager step's launches do to it: set it (with the host's other work on one thread, where overlapped), hide
    behind the host's work that sets it (qa328) or behind the device's, or, with no eager_launch, nothing."""
    if not p.get("eager_launch_s"):
        return "0 s, so priced as in graphs"
    fate = ("longer than its work: they set the step" if p.get("launch_bound") else
            "hidden behind the host's work, which sets the step" if _host_sets_step(p) else
            "shorter than its work: hidden behind it")
    return "launched by the host ahead of the device, " + ("with the host work above, " if _launches_with_host(p) else "") + fate


def _launches_with_host(p: dict) -> bool:
    """Whether the host does its overlapped work and an eager pass's launches on one thread, so that the two together
    bound the step (engine.step_metrics at pp 1)."""
    return bool(p.get("host_overlapped") and p.get("graphs") is False and p.get("launch_time_s") and p.get("host_time_s")
                and p["layout"].get("pp", 1) == 1)


def _with_host_text(p: dict) -> str:
    """', 9.36 ms with the host's other work on the same thread' where that is what the step waits for."""
    return (f", {format_seconds(p['launch_time_s'] + p['host_time_s'])} with the host's other work on the same thread"
            if _launches_with_host(p) else "")


def _host_sets_step(p: dict) -> bool:
    """Whether overlapped host work outlasts the device's time and so is the step (engine.host_sets_step)."""
    from roofline.engine import host_sets_step

    return bool(host_sets_step(bool(p.get("host_overlapped")), p.get("host_time_s") or 0.0, p["step_time_s"]))


def _rest_text(p: dict) -> str:
    """What a memory-bound step spends beyond its bytes' time, largest named first: 'host work 17.3 ms, collectives 4.72
    ms, kernel latencies and compute' (host work and collectives where each is over 5% of the step; host work that
    grows with the batch is not a fixed cost). Host work an engine overlaps adds nothing unless it outlasts the device:
    then it sets the whole step."""
    host = p.get("host_time_s") or 0.0
    added_s = p.get("host_on_path_s", 0.0 if p.get("host_overlapped") else host)  # what it adds (under pp: qa244, qa245)
    with_host = _launches_with_host(p)
    # host work added to an eager floor is named beside it (qa326: 21% of a step left unnamed); with the launches on
    # one thread it is part of the floor
    beside = (f"host work {format_seconds(added_s)}, " if not with_host and added_s > 0.05 * p["step_time_s"] else "")
    launch_text = (f"the host's eager launches ({format_seconds(p['launch_time_s'] + (host if with_host else 0.0))}"
                   + (" with its other work" if with_host else ""))
    if p.get("launch_bound"):
        return f"{beside}{launch_text}) set the step, more bandwidth buys nothing here"
    if _host_sets_step(p):
        return f"host work ({format_seconds(host)}, overlapped, longer than the device's time) sets the step, more bandwidth buys nothing here"
    parts = sorted(((added_s, "host work"), (p.get("comm_time_s") or 0.0, "collectives")), reverse=True)
    named = [f"{name} {format_seconds(t)}" for t, name in parts if t > 0.05 * p["step_time_s"]]
    # an eager step whose launches (with the host's other work on the same thread, where overlapped) bound it at twice
    # the bandwidth: they, not the kernels or the collectives under them, set the rest (qa325, qa326)
    launches = (p.get("launch_time_s") or 0.0) + (host if with_host else 0.0)
    if p.get("graphs") is False and launches and launches >= 0.98 * (
            p["step_time_at_2x_bandwidth_s"] - (0.0 if with_host else added_s) - p["overhead_s"]):
        return f"{beside}{launch_text}, their floor) set the rest, more bandwidth buys little here"
    floor = (f"; the overlapped host work, {format_seconds(host)}, is its floor"
             if p.get("host_overlapped") and host >= 0.98 * p["step_time_at_2x_bandwidth_s"] else "")
    return ", ".join([*named, "kernel latencies and compute"]) + f" set the rest, more bandwidth buys little here{floor}"


def _experts_text(e: dict, p: dict) -> str:
    """'the busiest rank reads 11.4 of its 32 (13.2 token-expert pairs; 8 ranks)', or without expert parallelism 'the
    pass reads 82.4 of the 128 routed experts (each split over the 8 devices; ...)'; per micro-batch under pp."""
    lay = p["layout"]
    pairs = f"{format_significant(e['token_expert_pairs'])} token-expert pairs"
    mean = float(e["sequences_a_pass"])
    per_pass = (f"; micro-batches of {f'{mean:g}' if mean.is_integer() else format_significant(mean)} sequence{'' if mean == 1 else 's'}"
                " on average, B / min(B, pp)"  # (qa466: 1.04918 said)
                if lay.get("pp", 1) > 1 else "")
    devices = p["devices"] // lay.get("pp", 1)
    if lay.get("ep", 1) > 1:  # qa266: each expert split over D / ep devices where ep < D was unsaid (layout.expert_tp)
        split = f", each expert split over {devices // lay['ep']} devices" if devices > lay["ep"] else ""
        return (f"the busiest rank reads {format_significant(e['touched'])} of its {e['experts']:,} ({pairs}; "
                f"{lay['ep']} ranks{split}{per_pass})")
    split = f"each split over the {devices} devices of a stage; " if devices > 1 else ""
    return f"a pass reads {format_significant(e['touched'])} of the {e['experts']:,} routed experts ({split}{pairs}{per_pass})"


def _verify_experts_text(v: dict, p: dict) -> str:
    """'the busiest rank reads 5.98 of its 32 (5.98 token-expert pairs of 3 tokens; 3.01 a decode step)': the routed
    experts the verify pass reads a MoE layer, beside the decode step's (experts_busiest_rank), each token routed on
    its own: said, as a sequence's consecutive tokens share experts more often (qa433: unsaid where it sets the cost)."""
    e = p["experts_busiest_rank"]
    whose = "the busiest rank reads" if p["layout"].get("ep", 1) > 1 else "the pass reads"
    of = f"of its {v['experts']:,}" if p["layout"].get("ep", 1) > 1 else f"of the {v['experts']:,} routed experts"
    micro = (" a micro-batch, B / min(B, pp) sequences x q" if p["layout"].get("pp", 1) > 1 else "")  # (qa471: 8 tokens
    # said under a 16-token pass, unexplained)
    return (f"{whose} {format_significant(v['touched'])} {of} ({format_significant(v['token_expert_pairs'])} token-expert "
            f"pairs of {v['tokens_a_pass']:g} tokens{micro}; {format_significant(e['touched'])} a decode step; each token "
            "routed on its own: an upper estimate where a sequence's tokens share experts)")


def _dip_shape(gap) -> str:
    """How the speedup curve goes below a break-even whose batches `gap` (first, last) lose: from batch 1 it starts
    under 1 and rises (qa280: a draft model's 0.993x at batch 1 was said to dip), else it dips and recovers."""
    return "starts below 1 and rises" if gap[0] == 1 else "dips and recovers"


def _verify_text(spec: dict, p: dict) -> str:
    """'39.4 ms  (memory-bound; 320 tokens a pass, 1.28x the decode step)': the pass that checks the draft, what bounds
    it, and how far it is from the one decode step it costs while memory-bound (docs: a mini-prefill)."""
    if not spec.get("k"):
        return "none (k 0: plain decoding)"
    per_sequence = spec["tree_nodes"] + 1 if spec.get("tree_nodes") is not None else spec["k"] + 1
    added = ("; host work added: the engine does not overlap it while speculating"
             if p.get("host_overlapped") and not p.get("host_overlapped_speculating", True) else "")
    c = p.get("tp_collectives") or {}
    messages = (f"; its tp all-reduces of {format_si(c['allreduce_message_bytes'] * per_sequence, 'B')} each, {per_sequence} x "
                "the decode step's" if c.get("allreduce_message_bytes") else "")  # (qa417: M = B_a q h a, q its tokens)
    return (f"{format_seconds(spec['verify_time_s'])}  ({_verify_overhead_bound(spec, p)}{spec['verify_bound']}-bound; "
            f"{p['batch'] * per_sequence:,} tokens a pass, {spec['verify_time_s'] / p['step_time_s']:.2f}x the decode step"
            f"{_verify_edge_text(spec, per_sequence)}{messages}{added})")


def _verify_edge_text(spec: dict, per_sequence: int) -> str:
    """'; compute-bound from batch 73, 292 tokens a pass': where this k's verify pass turns compute-bound
    (speculation.verify_compute_bound_batches), the mini-prefill's edge (qa495: bisected by hand); a run before the
    last said beside it ('(and at batch 117 before it)', qa496: said as a run from 117 to 117, memory-bound again from
    118 'its KV reads', where from 121 on it is compute-bound again); where it ends memory-bound, the runs and where it
    turns memory-bound again; 'memory-bound at every batch to 4,096' where it never is; whether it fits."""
    edge = spec.get("verify_compute_bound")
    if not edge:
        return ""
    first, runs = edge["first_batch"], [tuple(r) for r in edge.get("runs") or []]
    if first is None:
        return f"; memory-bound at every batch to {edge['searched_to']:,}"

    def span(run: tuple) -> str:
        return f"{run[0]:,}" if run[0] == run[1] else f"{run[0]:,}-{run[1]:,}"

    def listed(spans: list) -> str:
        shown = [span(r) for r in spans[:3]] + ([f"{len(spans) - 3} more"] if len(spans) > 3 else [])
        word = "batch" if len(spans) == 1 and spans[0][0] == spans[0][1] else "batches"
        return f"{word} {spoken_list(shown)}"

    start = edge.get("from_batch")
    if start is not None:
        before = [r for r in runs if r[1] < start]
        text = (f"; compute-bound from batch {start:,}, {start * per_sequence:,} tokens a pass"
                + (f" (and at {listed(before)} before it)" if before else ""))
    else:
        text = (f"; compute-bound at {listed(runs)} (from {first * per_sequence:,} tokens a pass), memory-bound again from "
                f"{runs[-1][1] + 1:,} (its KV reads grow with the batch)")
    return text + (f", past the {spec['max_batch']:,} that fit" if first > spec.get("max_batch", first) else "")


def _verify_overhead_bound(spec: dict, p: dict) -> str:
    """'overhead-bound: its operators are ' where the decode step is overhead-bound (_overhead_bound) and so is the verify
    pass by the same rule, its bytes' time bounded from above by the step's plus all the time the pass adds, t_b + (t_v
    - t_s) (what it adds is at least its added bytes' time): under half of t_v, and t_v less half of it over 80% of t_v
    (qa286: the step said overhead-bound beside a verify pass of 1.05 steps said memory-bound); '' otherwise, and
    under pp (the step's bytes are one stage's there)."""
    t_s, t_v = p["step_time_s"], spec["verify_time_s"]
    if spec["verify_bound"] != "memory" or p["layout"].get("pp", 1) > 1 or not _overhead_bound(p):
        return ""
    bytes_s = _memory_time_s(p) + max(t_v - t_s, 0.0)
    return ("overhead-bound: its operators are "
            if bytes_s < BYTES_SHARE_SAID * t_v and t_v - bytes_s / 2 > OVERHEAD_LEFT_AT_2X * t_v else "")


def _rate(tokens_per_s: float) -> str:
    """Tokens/s as read: whole tokens from 100 up (4,930, not 4,930.0), one decimal from 10 (37.1), three significant
    digits below 10 (3.86: qa303, 3.9 for 3.864; 0.0217: qa288, a billion-token context's rate printed 0.0)."""
    if 0 < tokens_per_s < 0.9995:  # each bound where the next form's rounding starts (qa306: 0.99951 read 1.000)
        return format_significant(tokens_per_s)
    if tokens_per_s < 9.995:
        return f"{tokens_per_s:.2f}"
    return f"{tokens_per_s:,.0f}" if tokens_per_s >= 99.95 else f"{tokens_per_s:,.1f}"


def _max_batch_stage_text(p: dict) -> str:
    """', set by stage 2 of 4' where max batch is another stage's than the one whose figures the line shows (qa251)."""
    stage, pipeline = p.get("max_batch_stage"), p.get("pipeline") or {}
    if stage is None or not pipeline or stage == pipeline.get("memory_stage"):
        return ""
    return f", set by stage {stage + 1} of {len(pipeline.get('stage_layers') or [])}"


def _capped_break_even_text(break_even, p: dict) -> str:
    """'; above the 48 sequences sglang runs at once while speculating by default ...' where the break-even batch lies
    past the engine's own cap while speculating (predict's speculating_cap: serving.running_cap_speculating; qa264: said
    only of a --batch above it), '' otherwise."""
    cap = p.get("speculating_cap")
    if break_even is not None and cap is not None and break_even > cap:
        return (f"; above the {cap:,} sequences {p['engine']} runs at once while speculating by default (its "
                "max_running_requests_speculating: a batch past it assumes the cap raised)")
    return _sequence_cap_text(break_even, p)


def _sequence_cap_text(batch, p: dict) -> str:
    """'; above the 1,024 sequences vllm runs at once by default ...' where `batch` (a break-even or max batch) lies past
    the sequences the engine runs at once whether or not it speculates (predict's sequence_cap: vLLM's max_num_seqs;
    qa285: a break-even of 21,713 said nothing of it, where a --batch above it was warned), '' otherwise."""
    cap = p.get("sequence_cap")
    if batch is None or not cap or batch <= cap:
        return ""
    return (f"; above the {cap:,} sequences {p['engine']} runs at once by default (its max_num_seqs: a batch past it "
            "assumes the cap raised)")


def _host_overlap_text(p: dict) -> str:
    """How the host work line enters the step (engine.step_metrics): 'overlapped: the step is the larger of it and the
    device time; ', under pp 'at pp 2 a micro-batch's own share, 1.93 ms, lies on its round trip and the others' beside
    it, the step at least the whole: 1.69 ms added to the device time; ' (qa244: said 'overlapped' alone), or 'added to
    the device time, not overlapped; '."""
    pp, batch = p["layout"].get("pp", 1), int(p["batch"])
    if pp > 1 and min(batch, pp) >= 2:
        share_s = p["host_microbatch_s"]  # the busiest micro-batch's own (engine.microbatch_host_time_s)
        added_s = p.get("host_on_path_s", share_s)
        return (f"at pp {pp} a micro-batch's own share, {format_seconds(share_s)}, lies on its round trip and the others' "
                f"beside it, the step at least the whole: {format_seconds(added_s) if added_s > 0 else 'nothing'} added to "
                "the device time; ")
    if pp > 1:  # one micro-batch: scheduled again once its tokens are back, nothing beside it (qa251: unsaid)
        return f"at pp {pp} one micro-batch, scheduled again once its tokens are back: all of it added; "
    if p.get("host_overlapped") and p.get("graphs") is False and p.get("launch_time_s"):  # one thread launches eager kernels
        return ("overlapped with the device, but on the thread that launches the eager kernels: the step is the larger "
                "of the device time and it plus the launches; ")
    return ("overlapped: the step is the larger of it and the device time; " if p.get("host_overlapped") else
            "added to the device time, not overlapped; ")  # (qa309: only a sum of the lines said it)


def _host_work_text(p: dict) -> str:
    """'vllm: 0 s a step + 60.2 us a sequence x 128': what the host work line is made of (engine.host_time_s; under
    attention DP the sequences of the busiest group; under pp the fixed part once a micro-batch, qa244)."""
    values, groups = p.get("engine_values") or {}, p["layout"].get("dp_attention", 1)
    step, per_sequence = values.get("host_per_step_s", 0.0), values.get("host_per_sequence_s", 0.0)
    from roofline.costs import sequences_per_group
    from roofline.layout import Deployment

    sequences = int(sequences_per_group(int(p["batch"]), Deployment(dp_attention=groups)))  # B_a, as host_time_s takes it
    m = min(int(p["batch"]), p["layout"].get("pp", 1))
    fixed = (f"{m} micro-batches x {format_seconds(step)} a step" if m > 1 and step else
             f"{format_seconds(step) if step else '0 s'} a step")
    return (f"{p['engine']}: {fixed} + {format_seconds(per_sequence)} a sequence x "
            f"{sequences:,}" + (f" (the busiest of {groups} attention-DP groups)" if groups > 1 else ""))


def _drafter_stall_text(spec: dict) -> str:
    """' (what the drafter's own prefill of it adds, 2.65 ms, in it)' where a drafter model prefills an arriving prompt
    beside the target (api._serving_terms' prefill_stall_drafter_s: what it adds to a batched pass, below its lone
    prefill, draft_prefill_s, under mixed_prefill; qa355), else ''."""
    drafter_s = spec.get("prefill_stall_drafter_s")
    return f" (what the drafter's own prefill of it adds, {format_seconds(drafter_s)}, in it)" if drafter_s else ""


def _serving_text(part: dict, p: dict) -> str:
    """'a serving benchmark's time per output token at 32 in flight: + 31 prefills of 1,000 tokens, 1.2 ms each, over
    200 tokens' (api._serving_terms)."""
    b = p["batch"]
    fits = part.get("fits_in_memory", p["fits_in_memory"])
    unreachable = "; not reachable: fits in memory NO" if not fits else ""  # (qa204: 2,000 in flight where 398 fit)
    if b <= 1:  # no other request's prefill lands in a lone request's decode (qa347: '+ 0 arriving prefills, each ...')
        return "a serving benchmark's time per output token at 1 in flight: its decode alone, no other request's prefill" + unreachable
    # a cached shared prefix is not prefilled (qa349: '4,000 tokens' of 1,000); the part's own where it differs (spec's,
    # under an engine whose cache is off while it speculates)
    cached = part.get("prompt_cached_tokens", p.get("prompt_cached_tokens")) or 0
    new = p["prompt"] - cached
    tokens = (f"{new:,} token{'' if new == 1 else 's'} (the {cached:,} of the shared prefix cached)" if cached
              else f"{p['prompt']:,} tokens")  # (qa354: '1 tokens')
    one = b - 1 == 1  # (qa496: '+ 1 arriving prefills')
    return (f"a serving benchmark's time per output token at {b:,} in flight: + {b - 1:,} arriving prefill{'' if one else 's'} of "
            f"{tokens}, {'' if one else 'each '}adding {format_seconds(part['prefill_stall_s'])}{_drafter_stall_text(part)} to the batch's decode, over "
            f"{p['output_len']:,} tokens"  # (qa297: '108 ms each' beside a TTFT of 126 ms read as the prefill's time)
            + unreachable)


def _best_k_text(spec: dict) -> str:
    """Best k, or why there is none: a tree (its tau at another depth is unknown: not reported), or no k fits."""
    if spec["best_k"] is not None:
        from roofline.speculation import K_SEARCH

        at_cap = spec["best_k"] == int(K_SEARCH[-1])  # the largest k searched: a larger one may be better still
        gives = (f"{spec['best_k_speedup']:.3f}x, {_rate(spec['best_k_tokens_per_s_per_user'])} tokens/s per user"
                 if spec.get("best_k_speedup") is not None else "")
        why = ""  # qa230: 'best k 0' under a speedup of 1.98x, the reason (no drafter fits) further down
        if spec["best_k"] == 0 and spec["k"] > 0:
            why = ("; no k >= 1 fits in memory with the drafter" if spec.get("drafting_fits") is False
                   else "; no k >= 1 is faster than plain decoding")  # qa232: whichever k fits, not the asked one
        if spec["k"] == 0 and spec.get("engine_refuses"):  # qa236: a best k the engine refuses, named at k 0
            why = "; no setup of the engine runs it: the warning says why"
        searched = f"the best of k = 0-{int(K_SEARCH[-1])}"  # qa273: a sweep's best_k is of its swept k alone, unsaid here
        return (f">= {spec['best_k']} (the largest k searched{'; ' + gives if gives else ''}{why})" if at_cap else
                f"{spec['best_k']}" + (f"  ({gives}, {searched}{why})" if gives else f"  ({searched})"))
    return f"{'not reported' if spec['tree_nodes'] is not None else 'none'} ({spec['best_k_unknown_because']})"


def _layout(lay: dict) -> str:
    parts = [f"tp {lay['tp']}"] + [f"{k.replace('_', '-')} {lay[k]}" for k in ("dp_attention", "ep", "pp") if lay[k] > 1]
    return ", ".join(parts)


def hardware_list(specs: list) -> str:
    """`roofline hw list`: one line per device with memory (GiB, as device names give it), bandwidth, bf16 peak, the
    ridge point at the peaks (predict reports the derated one, at the achievable ceilings), the link two devices
    share, derated as collectives are priced (achievable bytes/s one direction and latency, `link_for(2)`: qa157,
    h100-pcie and its no-P2P copy read alike without it; '-' for a calibrated profile, whose link is a placeholder)
    and the price ('-': none)."""
    lines = [f"{'name':<16}{'memory GiB':>11}{'bandwidth TB/s':>16}{'bf16 dense TFLOP/s':>20}{'peak ridge FLOP/B':>19}"
             f"{'2-device link GB/s achievable':>31}{'latency us':>12}{'price USD/h':>13}  display name"]
    for hw in specs:
        dtype = hw.compute_dtype("bf16")  # what bf16 weights compute in: fp16 on a V100 or T4 (qa279: fp32's, 8x less)
        no_bf16 = "" if dtype == "bf16" else f"  (no bf16 units: {dtype} peak and ridge)"  # fp32: a calibrated CPU
        lines.append(
            f"{hw.name:<16}{_gib(hw.mem_bytes):>11}{hw.mem_bw_bytes_per_s / 1e12:>16.2f}"
            f"{hw.peak_flops_per_s[dtype] / 1e12:>20.1f}{hw.ridge_point_flops_per_byte(dtype):>19.0f}"
            + (f"{'-':>31}{'-':>12}" if hw.measured else f"{hw.link_for(2)[0] / 1e9:>31.1f}{_us(hw.link_for(2)[1]):>12}")
            + f"{'-' if hw.price_usd_per_hour is None else format_usd_per_hour(hw.price_usd_per_hour):>13}  {hw.display_name}{no_bf16}"
        )
    return "\n".join(lines)


def _us(latency_s: float) -> str:
    """`hw list`'s latency in us: three digits, whole with separators from 1,000 (qa406, qa409: 3 ms as 3e+03)."""
    us = latency_s * 1e6
    return f"{us:,.0f}" if us >= 1000 else f"{us:.3g}"


def _gib(size_bytes: float) -> str:
    """`hw list`'s memory in GiB: whole GiB, or two digits below one (qa406: 80 MB, a slip, as 0)."""
    gib = size_bytes / 2**30
    return f"{gib:.0f}" if gib >= 1 else f"{gib:.2g}"


def _share(fraction: float) -> str:
    """An achievable fraction as a profile gives it: two decimals at least, four at most (0.80, 0.776, 0.8035)."""
    text = f"{fraction:.4f}".rstrip("0")
    return text + "0" * max(0, 2 - len(text.split(".")[1]))


def hardware_table(hw) -> str:
    """`roofline hw show NAME`: every field of one device, with units."""
    family = ("" if hw.engine_family == hw.name.lower() else
              f", engine family {hw.engine_family}: engine profiles give it that device's values")
    lines = [
        f"{hw.display_name} ({hw.name}, {hw.kind}{family})"
        f"{'  [measured]' if hw.measured else ''}",
        f"  memory            {format_si(hw.mem_bytes, 'B')} ({hw.mem_bytes / 2**30:,.1f} GiB; {hw.usable_memory_fraction:.0%} usable, "
        + ("what its GPU may wire of the unified memory: an engine's own share is taken of that)" if hw.kind == "soc" else
           "where the engine sets no share of its own: of the built-ins ideal and sglang-early)"),
        f"  bandwidth         {format_si(hw.mem_bw_bytes_per_s, 'B/s')} x {_share(hw.mem_efficiency)} achievable",
    ]
    for dtype, flops in hw.peak_flops_per_s.items():
        unit = peak_unit(dtype)
        formats = f"  ({', '.join(f.upper() for f in hw.fp4_formats)} weights)" if dtype == "fp4" else ""
        lines.append(f"  {dtype:<6} dense     {format_si(flops, unit)}  peak ridge {flops / hw.mem_bw_bytes_per_s:.0f}, "
                     f"derated {hw.ridge_point_flops_per_byte(dtype, derated=True):.0f} "  # what predictions use (qa337)
                     f"{unit[:-2]}/byte{formats}")
    lines += [
        f"  compute achievable x {_share(hw.compute_efficiency)}"  # as the profile gives it (qa315: 0.776 shown 0.78)
        + "".join(f", {d} x {_share(e)}" + ("" if d in hw.peak_flops_per_s else f" (unused: no {d} peak)")  # (qa447:
                  for d, e in hw.compute_efficiency_by_dtype.items())  # said beside a peak set to null)
        + "".join(f", {d} x {_share(hw.compute_efficiency_for(d))} (borrowed from {hw.efficiency_dtype(d)}, whose peak it "
                  "shares: no measurement of its own)"  # qa459: "(fp8's: the same peak)" read as cryptic
                  for d in hw.peak_flops_per_s  # qa281: '(as the same peak's)' named no dtype
                  if d not in hw.compute_efficiency_by_dtype and hw.efficiency_dtype(d) is not None)
        + (f", {spoken_list(fallback)} x "
           f"{_share(hw.compute_efficiency)} (borrowed from the general figure: no measurement of "
           f"{'its' if len(fallback) == 1 else 'their'} own)"  # qa287: MI355X's fp8 and fp4 took bf16's 0.62 unsaid
           if (fallback := [d for d in hw.peak_flops_per_s if d in ("fp8", "fp4", "int8")
                            and d not in hw.compute_efficiency_by_dtype and hw.efficiency_dtype(d) is None]) else ""),
        f"  on-chip cache     {format_si(hw.on_chip_cache_bytes, 'B')} ({format_binary(hw.on_chip_cache_bytes)})",
        f"  link              {format_si(hw.link_bw_bytes_per_s, 'B/s')} one direction x {_share(hw.link_efficiency)}, latency {format_seconds(hw.link_latency_s)}"
        f", {hw.scale_up_domain} {'device' if hw.scale_up_domain == 1 else 'devices'} per domain"
        + (f" (a mesh: {hw.mesh_links} links of {format_si(hw.link_bw_bytes_per_s / hw.mesh_links, 'B/s')}, one per peer)"
           if hw.mesh_links else "")
        + (f" ({'an' if str(hw.torus_shape[0]).startswith(('8', '11', '18')) else 'a'} {'x'.join(map(str, hw.torus_shape))} torus: {2 * len(hw.torus_shape)} ports of "
           f"{format_si(hw.link_bw_bytes_per_s / (2 * len(hw.torus_shape)), 'B/s')}; a group drives those its slice spans, "
           "two an axis it wraps around, one an axis it does not)"
           if hw.torus_shape else ""),
    ]
    if hw.scale_out_bw_bytes_per_s is not None:
        lines.append(f"  scale-out link    {format_si(hw.scale_out_bw_bytes_per_s, 'B/s')} one direction per device x {_share(hw.scale_out_link_efficiency)}"
                     + (" (efficiency.link's)" if hw.scale_out_efficiency is None else "") + ", "
                     f"latency {format_seconds(hw.scale_out_latency_s)}")
    lines += [
        f"  step overhead     {format_seconds(hw.step_overhead_s)}"
        + (f", {format_seconds(hw.layer_overhead_s)} per layer" if hw.layer_overhead_s else ""),
    ]
    if hw.overlap_exponent is not None:  # a calibrated profile's: predictions use them, so the table shows them
        lines.append(f"  overlap exponent  {hw.overlap_exponent:.3g} (compute and memory time combined as a {hw.overlap_exponent:.3g}-norm)")
    for label, value, unit in (("attention compute", hw.attention_compute_flops_per_s, "FLOP/s"),
                               ("attention memory", hw.attention_memory_bytes_per_s, "B/s"),
                               ("attention stream", hw.attention_stream_bytes_per_s, "B/s"),
                               ("elementwise mem.", hw.elementwise_memory_bytes_per_s, "B/s")):
        if value is not None:
            lines.append(f"  {label:<17} {format_si(value, unit)} (measured ceiling)")
    by_hand = _set_by_hand(hw.path)
    if hw.price_usd_per_hour is not None:
        lines.append(f"  price             {format_usd_per_hour(hw.price_usd_per_hour)} USD/h"
                     + ("  (set by hand)" if "price" in by_hand else ""))
    if by_hand:  # qa214: a copy re-priced by hw set printed its source's price reasoning below, unmarked
        lines.append(f"  set by hand       {', '.join(by_hand)} (hw new --set / set / edit)"
                     + _provenance_said(_with_rewritten("hardware", hw.path, by_hand)))
    lines += [_text_block("source", hw.source), _text_block("notes", hw.notes)]
    return "\n".join(lines)


def _provenance_said(by_hand: list[str], texts: tuple[str, ...] = ("source", "notes")) -> str:
    """': the source and notes below are of the values the copy was made from', or where some of `texts` were written by
    hand (among `by_hand`) ': the notes below are of the values ...; the source was written with them' (qa265, qa463:
    engines and models show said a replaced source was the parent's)."""
    def named(keys: list[str], verb: tuple[str, str], below: str = " below") -> str:
        return f"the {' and '.join(keys)}{below} {verb[1] if len(keys) > 1 or keys == ['notes'] else verb[0]}"

    own = [k for k in texts if k in by_hand]
    of_copy = [k for k in texts if k not in by_hand]
    parts = ([f"{named(of_copy, ('is', 'are'))} of the values the copy was made from"] if of_copy else []) + (
        [f"{named(own, ('was', 'were'), '' if of_copy else ' below')} written with them"] if own else [])
    return ": " + "; ".join(parts)


def _with_rewritten(kind: str, path: str | None, by_hand: list[str]) -> list[str]:
    """`by_hand`, with the copy's source and notes that differ from its parent's (editing.rewritten_texts)."""
    from roofline.editing import rewritten_texts
    from roofline.errors import RooflineError
    from roofline.yamlio import read_text

    try:
        text = read_text(Path(path)) if path else None
    except (RooflineError, OSError):
        text = None
    return list(dict.fromkeys([*by_hand, *(rewritten_texts(kind, text, Path(path)) if text else [])]))


def _set_by_hand(path: str) -> list[str]:
    """The fields a profile file's header says were set by hand (editing.HAND_SET), [] for a file without one."""
    from roofline.editing import hand_set_fields

    try:
        return hand_set_fields(Path(path).read_text(encoding="utf-8")) if path else []
    except (OSError, UnicodeDecodeError):
        return []


def _attention_label(m) -> str:
    """A model's attention as `models list` names it: its kv_layout, 'mha' for GQA with a KV head per query head (qa101:
    Llama 2 and Vicuna read 'gqa')."""
    return "mha" if m.kv_layout == "gqa" and m.kv_heads == m.heads else m.kv_layout


def model_list(specs: list) -> str:
    """`roofline models list`: parameters, active parameters, KV bytes per token in bf16 at a 4k and a 128k context
    (the whole context's KV over its tokens: windows, compression and indexer keys applied)."""
    lines = [f"{'name':<20}{'params':>10}{'active':>10}{'KV per token, bf16':>23}  attention",  # billions, not bytes
             f"{'':<20}{'billions':>10}{'billions':>10}{'4k context':>13}{'128k':>10}"]  # (qa403: 671.03B; qa421: bf16)
    for m in specs:
        kinds = "+".join(sorted({g.kind for g in m.groups}))
        lines.append(
            f"{m.name:<20}{m.params / 1e9:>10.2f}{m.active_params / 1e9:>10.2f}{m.kv_bytes_per_token_at(4096) / 1024:>10.1f}KiB"
            f"{m.kv_bytes_per_token_at(131072) / 1024:>7.1f}KiB  {_attention_label(m)} {kinds}{' moe' if m.moe else ''}"
        )
    # qa327: gpt-oss-120b's 5.71B read as a slip beside its card's 5.1B (the input embedding's 0.58B)
    lines.append("active: the parameters a token uses, its top-k routed experts of a MoE and the whole input embedding "
                 "(a model card's count often leaves the embedding out; a decode step gathers its rows, not streams it)")
    return "\n".join(lines)


def _index_keys_text(index_key_bytes) -> str:
    """', index keys of 132 B (whatever the KV dtype)' where every KV dtype's key is one size (qa131: said once per
    dtype, five times), else each dtype's: ', index keys of 256 B (bf16), index keys of 132 B (fp8)'."""
    sizes = {n for _, n in index_key_bytes}
    if len(sizes) == 1 and len(index_key_bytes) > 1:
        return f", index keys of {sizes.pop()} B (whatever the KV dtype)"
    return "".join(f", index keys of {n} B ({d})" for d, n in index_key_bytes)


def _kv_shape(m) -> str:
    """What one layer stores per token: 'mla latent 512 + rope 64', '2 x 8 KV heads x 128'."""
    if m.kv_layout == "mla":
        return f"mla latent {m.mla.kv_lora_rank} + rope {m.mla.qk_rope_head_dim} per layer"
    return f"{'1 (shared K = V)' if m.kv_layout == 'shared_kv' else '2'} x {m.kv_heads} KV heads x {m.head_dim} per layer"


def _precision_text(m) -> str:
    """'fp8; bf16: router, embedding, lm_head' (the dtype of most parameters first, the others by class)."""
    dtypes = dict(m.native_precision) or {"all": "bf16"}
    params = m.params_by_class()
    counts = {d: sum(params.get(c, 0) for c, v in dtypes.items() if v == d) for d in dtypes.values()}
    main = max(counts, key=counts.get)
    others = {}
    for cls, d in dtypes.items():
        if d != main and (params.get(cls, 0) or cls not in params):  # a class without parameters (no MTP) goes unsaid
            others.setdefault(d, []).append(cls)
    return main + "".join(f"; {d}: {', '.join(classes)}" for d, classes in others.items())


def model_table(m) -> str:
    """`roofline models show NAME`: architecture, computed parameter counts (in billions: 'B' is bytes everywhere else,
    qa317), KV size and the checkpoint's precision."""
    published = f" (published {m.published_params / 1e9:.3f} billion)" if m.published_params else " (no published figure)"
    embedded = m.embedding_params + (0 if m.tied_embeddings else m.lm_head_params)
    lines = [
        f"{m.display_name} ({m.name})",
        f"  parameters       {m.params / 1e9:.3f} billion{published}",
        f"  active           {m.active_params / 1e9:.3f} billion"
        # publishers count it without the input embedding too (OpenAI, DeepSeek; import's check_params): both said
        # (qa121: gpt-oss-20b's 4.186 B beside a published 3.610 B read as 16% apart, 3.606 B without it)
        + (f", {(m.active_params - m.embedding_params) / 1e9:.3f} billion without the input embedding" if not m.tied_embeddings else "")
        + (f" (published {m.published_active_params / 1e9:.3f} billion)" if m.published_active_params else "")
        + (f"; counts the embedding and LM head ({embedded / 1e9:.2f} billion)" if not m.tied_embeddings
           else f"; counts the tied embedding once ({embedded / 1e9:.2f} billion)"),
        f"  KV per token     {m.kv_bytes_per_token_at(4096):,.0f} B at 4k context, {m.kv_bytes_per_token_at(131072):,.0f} B at 128k"
        + (f" (past its trained {m.max_context_tokens:,})" if 0 < m.max_context_tokens < 131072 else "")
        + " (bf16; the context's KV over its tokens"
        + (f"; fp8 {m.kv_bytes_per_token_at(131072, 'fp8'):,.0f} B at 128k; a layer's entry as the profile gives it: " + ", ".join(
            f"{n} B ({d})" for d, n in m.kv_entry_bytes) + _index_keys_text(m.index_key_bytes)
            + ")" if m.kv_entry_bytes else ")") + f"; {_kv_shape(m)}",
        f"  precision        {_precision_text(m)}  ({format_si(m.weight_bytes_as_released, 'B')} of weights as released"
        + (", MTP included)" if m.mtp_modules else ")"),
    ]
    for key in ("layers", "hidden_size", "heads", "kv_heads", "head_dim", "ffn_size", "vocab_size"):
        lines.append(f"  {key:<16} {getattr(m, key)}")
    lines.append(f"  {'ffn_gated':<16} {str(m.ffn_gated).lower()}")
    lines.append(f"  {'tied_embeddings':<16} {str(m.tied_embeddings).lower()}")
    if m.qk_norm_all_heads:  # (qa447: its per-layer all-reduce under tp, said where it applies)
        lines.append(f"  {'qk_norm_all_heads':<16} true: q and k normed over all heads, an all-reduce a layer under tp")
    if m.mla is not None:
        lines.append(f"  MLA: q_lora_rank {m.mla.q_lora_rank}, kv_lora_rank {m.mla.kv_lora_rank}, qk_nope_head_dim "
                     f"{m.mla.qk_nope_head_dim}, qk_rope_head_dim {m.mla.qk_rope_head_dim}, v_head_dim {m.mla.v_head_dim} "
                     "(head_dim and kv_heads above do not set the KV cache)")
    if m.q_lora_rank or m.o_lora_rank:
        lines.append(f"  low rank: q_lora_rank {m.q_lora_rank}, o_lora_rank {m.o_lora_rank}, o_groups {m.o_groups}")
    for g in m.groups:
        lines.append(f"  layers {g.layers:>3}: {g.kind}" + (f" window {g.window}" if g.window else "")
                     + (f" ratio {g.ratio}" if g.ratio > 1 else "") + (f" reads <= {g.read_tokens}" if g.read_tokens else "")
                     + (f" indexer {g.index_heads} heads x {g.index_dim}" if g.index_dim else "")
                     + (f", state {g.state_bytes:,} B a layer and sequence" if g.state_bytes else ""))
    if m.moe:
        lines.append(f"  MoE: {m.moe.experts} experts top-{m.moe.top_k}, expert ffn {m.moe.expert_ffn_size}, "
                     f"shared {m.moe.shared_experts}, dense layers {m.moe.dense_layers}"
                     + (f" ({m.moe.dense_placement})" if m.moe.dense_layers else "")
                     + (f", routed within {m.moe.groups_per_token} of {m.moe.groups} groups a token" if m.moe.grouped else "")
                     + ("; no sequence-parallel MoE block (moe.sequence_parallel: false)" if not m.moe.sequence_parallel else ""))
    if m.mtp_modules:
        lines.append(f"  MTP modules      {m.mtp_modules} ({m.mtp_params / 1e9:.2f} B params)")
    lines.append(f"  trained context  {m.max_context_tokens:,} tokens (max_context_tokens)" if m.max_context_tokens else
                 "  trained context  not given (max_context_tokens): a longer context is not warned")
    lines.append(f"  tokenizer        {m.tokenizer}" if m.tokenizer else
                 "  tokenizer        not given: a draft model is compared by vocabulary size only")
    if by_hand := _set_by_hand(m.path):  # qa222: a copy's layers 40 printed under the source's '61 layers', unmarked
        lines.append(f"  set by hand      {', '.join(by_hand)} (models new --set / set / edit)"
                     + _provenance_said(_with_rewritten("model", m.path, by_hand)))
    lines.append(_text_block("source", m.source))
    if m.notes:
        lines.append(_text_block("notes", m.notes))
    return "\n".join(lines)


def scenario_list(scenarios: list) -> str:
    """`roofline scenarios list`: one line per scenario with its configs, points and description."""
    lines = [f"{'name':<24}{'configs':>8}{'points':>10}  description"]
    for sc in scenarios:  # the name a command takes is the file's; a `name:` inside that differs is said beside it
        called = Path(sc.path).stem if sc.path else sc.name
        inner = f" (its name: field says {sc.name!r})" if called.lower() != sc.name.lower() else ""  # (as validate: qa322)
        lines.append(f"{called:<24}{sc.configs:>8}{sc.points:>10,}  {sc.description}{inner}")
    return "\n".join(lines)


def scenario_table(sc, configs: int | None = None) -> str:
    """`roofline scenarios show NAME`: the file, what each config key and axis holds, and the points it makes
    (`configs`: those the sweep runs, grid.load_configs' count, where the caller has it; else sc.configs, which counts a
    dense model's expert dtype and a dtype beside its native one as configs of their own)."""
    from roofline.scenario import CONFIG_KEYS, LAYOUT_KEYS, request_context
    from roofline.serving import DEFAULT_ENGINE

    def shown(values, key: str) -> str:
        default = f"{DEFAULT_ENGINE} (the default)" if key == "engine" else "default"  # every output names its engine
        return ", ".join(default if v is None else str(v) for v in values)

    lines = [f"{sc.name}  ({sc.path})", f"  {sc.description}" if sc.description else "  (no description)", ""]
    for key in CONFIG_KEYS:
        values = getattr(sc, key)
        if sc.layouts and key in LAYOUT_KEYS:
            if key == "tp":
                lines.append(f"  {'layouts':<16}" + "; ".join(", ".join(f"{k} {v}" for k, v in zip(LAYOUT_KEYS, layout) if v > 1 or k == "tp")
                                                              for layout in sc.layouts))
            continue
        if key == "method" and sc.method_by_model:
            lines.append(f"  {'method':<16}" + ", ".join(f"{m}: {meth}" for m, meth in sc.method_by_model))
        elif tuple(values) not in ((None,), (1,), (0,), ("bf16",)) or key in ("hardware", "model", "method", "engine"):
            lines.append(f"  {key:<16}{shown(values, key)}")
    for key, label in (("draft", "draft model"), ("acceptance", "acceptance"), ("tree_nodes", "tree nodes"), ("tree_tau", "tree tau"),
                       ("draft_vocab", "draft vocab"), ("question", "question")):  # (qa319: the last two left out, each of
        if getattr(sc, key) not in (None, ""):  # which changes what the sweep or report gives)
            value = getattr(sc, key)
            lines.append(f"  {label:<16}" + (f"{value:,} tokens" if key == "draft_vocab" else f"{value}"))
    if sc.prompt is not None:  # it adds the serving columns and sets the context axis (qa346: unsaid)
        lines.append(f"  {'request':<16}prompt {sc.prompt:,} and output_len {sc.output_len:,} tokens: the serving columns "
                     f"(mean context {request_context(sc.path or sc.name, sc.prompt, sc.output_len):,})")
    if sc.overlap is False:  # its default, true, unsaid (as the file leaves it out)
        lines.append(f"  {'overlap':<16}false (a drafter on its own device drafts in series with the verify pass)")
    if sc.acceptance_length is not None:  # the alpha axis below is the alpha that gives it
        tau, k_measured = sc.acceptance_length
        lines.append(f"  {'acceptance':<16}length {tau:g} measured at k = {k_measured}: alpha {float(sc.axes['alpha'][0]):.4g}")
    lines.append("")
    for axis, values in sc.axes.items():
        vals = [v for v in values if v == v]  # NaN: the axis is not swept (per-position rates, a tree)
        if not vals:
            continue
        head = ", ".join(f"{v:g}" for v in (vals if len(vals) <= 10 else vals[:8])) + (f", ... {vals[-1]:g}" if len(vals) > 10 else "")
        lines.append(f"  axis {axis:<11}{len(vals):>4} value{'s' if len(vals) > 1 else ' '}: {head}")
    grid = sc.points // max(sc.configs, 1)
    n = sc.configs if configs is None else configs
    lines.append(f"\n  {n} config{'' if n == 1 else 's'} x {grid:,} grid point{'' if grid == 1 else 's'} "
                 f"= {n * grid:,} point{'' if n * grid == 1 else 's'}")
    return "\n".join(lines)


def engine_list(engines: list) -> str:
    """`roofline engines list`: one line per serving engine with its main cost terms and its overlap exponent
    (p of the smooth roofline; "hardware": the hardware profile's, the max form where it sets none, as `ideal` does)."""
    from roofline.serving import DEFAULT_ENGINE

    w = max([10] + [len(e.name) + 2 for e in engines])
    lines = [f"{'name':<{w}}{'kernel latency':>14}{'host/step':>11}{'host/seq':>10}{'all-reduce':>12}{'overlap p':>11}"
             f"  host overlap  display name"]
    for e in engines:
        p = "hardware" if e.overlap_exponent is None else f"{e.overlap_exponent:.3g}"
        lines.append(f"{e.name:<{w}}{format_seconds(e.kernel_latency_s):>14}{format_seconds(e.host_per_step_s):>11}"
                     f"{format_seconds(e.host_per_sequence_s):>10}{format_seconds(e.allreduce_latency_s):>12}{p:>11}  "
                     f"{'yes' if e.host_overlap else 'no':<12}  {e.display_name}{'  (default)' if e.name == DEFAULT_ENGINE else ''}")
    import textwrap

    lines += ["", *textwrap.wrap("overlap p: how an operator's compute and memory times combine, (t_c^p + t_m^p)^(1/p) "
                                 "(1: their sum; large: their max, the bare roofline; hardware: the device profile's p, else "
                                 "the max). host overlap: host work hidden behind the device's step. Per-family values and "
                                 "the rest: `roofline engines show NAME`.", 100)]
    return "\n".join(lines)


def _kernel_counts(counts: dict) -> str:
    """{operator: kernels} as 'qkv_proj 2, attention 1, ...' (or 'none')."""
    return ", ".join(f"{k} {v:g}" for k, v in counts.items()) or "none"


def _override_value(key: str, value) -> str:
    if key.endswith("_s"):
        return format_seconds(value)
    if key.endswith("_bytes"):
        return format_si(value, "B")
    if value is None:  # a value unset for the family (window_kv_pool_ratio: null, window-capped)
        return "null"
    if isinstance(value, bool):  # a flag as YAML writes it (qa143: 'False')
        return str(value).lower()
    if key == "memory_fraction_by_devices":  # ((N, f), ...): as engines show says the profile's (qa360: a tuple)
        return shares_text(value) or "none"
    if isinstance(value, (tuple, list)):  # a list field (dp_attention_stage_split) as YAML writes it (qa137: a tuple)
        return "[" + ", ".join(map(str, value)) + "]"
    return f"({_kernel_counts(value)})" if isinstance(value, dict) else f"{value:g}" if isinstance(value, float) else str(value)


ATTENTION_DP_FIELDS = ("DP gather", "stage split under DP", "whole under DP", "sequence-parallel MoE")  # engine_table's


def _engine_version(p: dict) -> str:
    """' (0.8-0.17)': the releases the engine profile describes, beside its name in predict's header (qa405: said only by
    `engines show`)."""
    version = (p.get("engine_values") or {}).get("version")
    return f" ({version})" if version not in (None, "") else ""


def _quant_kernels_text(p: dict) -> str:
    """', with 1 kernel quantising the activations of each fp8 GEMM' where the engine's quant_kernels_per_gemm adds
    kernels to this point's quantised GEMMs (qa405: the counts `engines show` listed did not give the time)."""
    n = (p.get("engine_values") or {}).get("quant_kernels_per_gemm") or 0
    dtypes = list(dict.fromkeys(op.get("compute_dtype") for op in (p.get("operators") or {}).values()  # as the GEMMs
                                if op.get("compute_dtype") in ("fp8", "fp4", "int8")))  # compute (qa409: an A100's fp8
    # weights, weight-only there, were said to quantise their activations)
    return (f", with {n:g} kernel{'s' if n != 1 else ''} quantising the activations of each {'/'.join(dtypes)} GEMM "
            "(its quant_kernels_per_gemm)") if n and dtypes else ""


def engine_table(e) -> str:
    """`roofline engines show NAME`: every cost term of one engine, with units."""
    fields = [
        ("kernel latency", format_seconds(e.kernel_latency_s)),
        ("kernels per layer", _kernel_counts(e.kernels_per_layer)),
        ("kernels per MLA layer", _kernel_counts(e.kernels_per_layer_mla) + " (the rest as above)"),
        ("quantisation kernels", f"{e.quant_kernels_per_gemm:g} per GEMM whose weights compute in fp8 / fp4 / int8 (it "
                                 "quantises the GEMM's activations; added to the counts above)"),
        ("quantised MoE efficiency", f"{e.quantised_moe_efficiency:g} (routed experts in fp8 / fp4 / int8; the lower of it and the next where they dequantise)"),
        ("weight-only efficiency", f"{e.weight_only_efficiency:g} (w8a16 / int4 weights dequantised in the GEMM)"),
        ("all-reduce latency", format_seconds(e.allreduce_latency_s) + " (never below the link's)"),
        ("all-to-all latency", format_seconds(e.all_to_all_latency_s) + (
            " (DeepEP's dispatch and combine, moe_dispatch per_rank or per_pair: not this profile's allgather, whose "
            "collectives pay the all-reduce latency)" if e.moe_dispatch == "allgather" else
            " (its expert dispatch's and combine's fixed cost each)")),  # (qa379: read as the allgather dispatch's)
        ("MoE dispatch", f"{e.moe_dispatch}: " + ("every rank's tokens gathered to every rank by an all-reduce and the "
                                                   "outputs all-reduced (dp_gather allreduce)"  # qa148
                                                   if e.moe_dispatch == "allgather" and e.dp_gather == "allreduce"
                                                   else MOE_DISPATCH[e.moe_dispatch][1])),
        ("DP gather", f"{e.dp_gather}: {DP_GATHER[e.dp_gather]}"),
        ("stage split under DP", ", ".join(e.dp_attention_stage_split) + ": split over every device of a stage, on every "
         "attention group's tokens gathered (dp_attention_stage_split)" if e.dp_attention_stage_split else
         "none: each attention group holds its own dense MLP, shared experts and LM head"),
        ("whole under DP", ", ".join(e.dp_attention_whole) + ": whole on every device under attention DP, whatever its tp "
         "(dp_attention_whole)" if e.dp_attention_whole else "none"),
        ("sequence-parallel MoE", "at tp > 1 with attention DP and EP: router and shared experts whole on every device, "
         "each tp rank running 1/tp of its group's tokens, a MoE layer reduce-scattering and all-gathering "
         "(sequence_parallel_moe)" if e.sequence_parallel_moe and e.expert_parallel else "no"),  # (it needs EP: qa298)
        ("uneven pipeline split", "none: it has no pipeline parallelism (pp_remainder none: pp > 1 warned, left out by "
         "cheapest)" if e.pp_remainder == "none" else
         f"the layers left over on {PP_REMAINDERS[e.pp_remainder]} (pp_remainder {e.pp_remainder})"),
        ("layouts it runs", "; ".join(t for t in (
            "no attention DP (attention_dp false: dp_attention > 1 warned, left out by cheapest)" if not e.attention_dp else "",
            "no expert parallelism (expert_parallel false: ep > 1 warned, left out by cheapest)" if not e.expert_parallel else "",
            "attention DP with one device a group (dp_attention_tp1: tp > 1 with it warned, left out by cheapest)"
            if e.dp_attention_tp1 else "",
            "ep 1 or every device of a stage (ep_spans_stage: one between warned, left out by cheapest)"
            if e.ep_spans_stage and e.expert_parallel else "") if t) or "any tp, dp_attention and ep"),  # (qa293: both said)
        ("while speculating", "; ".join(t for t in (
            f"at most {e.max_running_requests_speculating:,} sequences at once, its own cap left as it is "
            "(max_running_requests_speculating: a larger batch warned"
            + (f"; {e.max_running_requests_flag} raises it" if e.max_running_requests_flag else "") + ")"
            if e.max_running_requests_speculating is not None else "",
            f"no {' or '.join(e.speculation_refused)} drafting (speculation_refused: warned, left out by cheapest and the report)"
            if e.speculation_refused else "",
            f"no {' or '.join(map(drafting_word, e.speculation_refused_with_dp_attention))} drafting under attention DP "
            "(speculation_refused_with_dp_attention: warned, left out by cheapest)" if e.speculation_refused_with_dp_attention else "",
            "no speculation at pp > 1 (speculation_refused_with_pp: warned, left out by cheapest)"
            if e.speculation_refused_with_pp else "",
            *(f"{method}: {note} (speculation_caveats: warned; cheapest keeps the point)" for method, note in e.speculation_caveats)) if t)
         or "no cap of its own on the batch, and every method under any layout"),
        ("host work per step", format_seconds(e.host_per_step_s)),
        ("host work per sequence", format_seconds(e.host_per_sequence_s)),
        ("host work overlapped", ("yes" if e.host_overlap else "no (added to the device time)")
         + (", but not while speculating" if e.host_overlap and not e.host_overlap_speculating else "")
         + ("; at pp > 1, whatever this says, each micro-batch's own host work adds to its round trip and the others' "
            "runs beside it (one micro-batch: all of it adds)" if e.pp_remainder != "none" else "")),
        ("decode passes", "replayed from CUDA / HIP graphs (graphs: true; " + (
            f"run eagerly, each kernel would take {format_seconds(e.eager_launch_s)} of the host's time to launch: "
            "eager_launch)" if e.eager_launch_s else "no eager_launch: graphs false would price no launch)") if e.graphs else
         (f"run eagerly (graphs: false): the host launches each kernel, {format_seconds(e.eager_launch_s)} each "
          "(eager_launch), a pass no faster than its launches" if e.eager_launch_s else
          "run eagerly (graphs: false), but with no eager_launch: priced as in graphs (an override may give one)")),
        ("per draft step", f"{format_seconds(e.spec_per_draft_step_s)} + {format_seconds(e.spec_per_draft_step_per_sequence_s)} per sequence"),
        ("per speculative iteration", f"{format_seconds(e.spec_per_iteration_s)} + {format_seconds(e.spec_per_iteration_per_sequence_s)} per sequence"),
        ("overlap exponent", "max (none)" if e.overlap_exponent is None else f"{e.overlap_exponent:g}"),
        ("GEMM tile rows", str(e.gemm_tile_rows or "none")),
        ("shared prefix read once", "yes" if e.prefix_read_once else "no"),
        ("attention splits keys", "yes" if e.attention_splits_keys else "no (a hardware attention_stream caps it)"),
        ("memory for weights + KV", _memory_share_text(e)),
        ("sliding-window KV", "each sequence's window" if e.window_kv_pool_ratio is None else
         f"a pool of {e.window_kv_pool_ratio:g} x the full layers' tokens (a model with full and sliding layers)"),
        ("prefill", "inside a decode step, its tokens sharing the pass (mixed_prefill)" if e.mixed_prefill
         else "a pass of its own between decode steps (mixed_prefill: false)"),
        ("shared prefix's prefill", ("skipped: an arriving request prefills the rest of its prompt, the prefix's KV cache held "
         "(prefix_cached)" + ("; but not while speculating, when its cache is off and each sequence holds the prefix "
                              "(prefix_cached_speculating: false)" if not e.prefix_cached_speculating else ""))
         if e.prefix_cached else "recomputed: every prompt prefilled whole (prefix_cached: false)"),
        ("MLA up-projections", "a 16-bit copy read in decode, held beside a quantised checkpoint's (mla_absorbed_bf16)"
         if e.mla_absorbed_bf16 else "in the weights' dtype (mla_absorbed_bf16: false)"),
        ("runs on", "NVIDIA GPUs only (nvidia_only: warned on another device, left out by cheapest)" if e.nvidia_only
         else "not limited to NVIDIA GPUs (nvidia_only: false)"),
    ]
    if not e.attention_dp:  # what it would do under attention DP, where it runs none (qa240: vllm-v0's listed as it ran)
        fields = [(k, "none: no attention DP (attention_dp false)" if k in ATTENTION_DP_FIELDS else v) for k, v in fields]
    lines = [f"{e.display_name} ({e.name}{', ' + e.version if e.version else ''})"]
    if e.costs_from:
        lines.append(f"  costs of {Path(e.costs_from).stem} ({e.costs_from}): costs_from in {e.path}")
    lines += [f"  {k:<26}{v}" for k, v in fields]
    for glob, changes in e.overrides:
        lines.append(f"  override for {glob}: " + ", ".join(f"{k.removesuffix('_s').removesuffix('_bytes')} {_override_value(k, v)}"
                                                           for k, v in changes.items()))
    lines += _fitted_lines(e.fitted, _overrides_set_by_hand(e))
    if by_hand := _set_by_hand(e.path):  # every field a copy was given (qa222: the fitted ones alone were said)
        lines.append(f"  set by hand               {', '.join(by_hand)} (engines new --set / set / edit)"
                     + _provenance_said(_with_rewritten("engine", e.path, by_hand), ("source",)))
    import textwrap

    def batches(low: int, high: int | None) -> str:  # batch 1; batch 64 and up; batch 4 to 128
        return f"{low:,}" if low == high else f"{low:,} and up" if high is None else f"{low:,} to {high:,}"

    for miss in e.known_misses:  # said by predict, sweeps and cheapest where a point matches (serving.known_miss_notes)
        where = "; ".join(f"{k} " + (v if isinstance(v, str) else batches(*v) if k == "batch" else  # a layout's own
                                      " / ".join(v) if k == "layouts" else ", ".join(v))  # commas (qa379)
                          for k, v in miss.items() if k != "note")
        lines += textwrap.wrap(f"known miss ({where or 'every point'}): {miss['note']}", 100, initial_indent="  ",
                               subsequent_indent="    ", break_on_hyphens=False)
    from roofline.serving import cost_sharers

    for other, how in cost_sharers(e):  # their misses are said under this engine too (qa368: listed nowhere here)
        if other.known_misses:
            count = len(other.known_misses)
            lines.append(f"  known misses of {other.name}, {how}: {count} (said under {e.name} too; engines show {other.name})")
    lines += [f"  file: {e.path}", _text_block("source", e.source)]
    return "\n".join(lines)


def _memory_share_text(e) -> str:
    """`engines show`'s memory line: the engine's share of a device's memory and its reserve (capacity.py)."""
    if e.memory_fraction is None:
        return "the hardware profile's usable_memory_fraction (memory_fraction: null)"
    share = (f"{e.memory_fraction:g} of the memory left beside the weights" if e.memory_fraction_of == "free"
             else f"{e.memory_fraction:g} of the memory")
    if e.memory_fraction_by_devices:  # SGLang 0.4's share by tp size
        share += f" ({shares_text(e.memory_fraction_by_devices)})"
    held = [format_si(b, "B") + what for b, what in ((e.memory_before_share_bytes, " (its GPU context)"),
                                                   (e.memory_before_share_parallel_bytes, " (its communicators) more on a "
                                                    "stage of more than one device" if e.memory_before_share_bytes else
                                                    " (its communicators) on a stage of more than one device")) if b]
    if held:  # C (capacity.py): held before the engine measures the memory its share is of: f (M - C) (qa369: read f M - C)
        share = share.replace(" of the memory", " of (the memory less what it holds before measuring it: "
                              + ", ".join(held) + ")", 1)
    parts = [format_si(b, "B") + what for b, what in ((e.memory_reserved_bytes, ""),
                                                    (e.memory_reserved_parallel_bytes, " more on a stage of more than one device")) if b]
    if e.sampler_logit_copies and (e.sampler_sequences or e.sampler_sequences_small):
        parts.append(f"{e.sampler_logit_copies:g} float32 logit rows of the vocabulary for each of {e.sampler_sequences} "
                     f"sequences ({e.sampler_sequences_small} on a device under 70 GiB or an A100)")
    layout = [format_si(b, "B") + what for b, what in ((e.memory_reserved_per_device_bytes, " for each device of the replica past the first"),
                                                     (e.memory_reserved_per_dp_group_bytes, " for each attention-DP group at dp_attention > 1")) if b]
    if e.memory_fraction_of == "free":  # f (M - W - R): the reserve inside the share's base, not taken after it
        kept = ", ".join(parts + layout)
        return share + (f" and a reserve ({kept})" if kept else "")
    return (share + (", less " + " + ".join(parts) + " reserved" if parts else "")
            + ("; less " + ", ".join(layout) if layout else ""))


def _overrides_set_by_hand(e) -> list[str]:
    """'kernel_latency on mi*' for each `overrides.N.FIELD` the profile file's header says was set by hand (editing's
    HAND_SET line; qa203: `engines show` listed the general fields set since the fit, not a family's), and for each
    fitted field of every entry where `overrides` was set whole (qa340)."""
    fitted = {str(p) for p in ((e.fitted or {}).get("start") or {})}  # a fit parameter's, as the general fields (qa212)
    out = []
    hand = _set_by_hand(e.path)
    for field in hand:
        parts = field.split(".")
        if len(parts) == 3 and parts[0] == "overrides" and parts[1].isdigit() and int(parts[1]) < len(e.overrides):
            glob, changes = e.overrides[int(parts[1])]
            key = parts[2]
            if key in fitted and any(k.removesuffix("_s").removesuffix("_bytes") == key for k in changes):  # still set there
                out.append(f"{key} on {glob}")
    if "overrides" in hand:  # the list set whole: every fitted value in it is the user's
        out += [f"{k.removesuffix('_s').removesuffix('_bytes')} on {glob}" for glob, changes in e.overrides for k in changes
                if k.removesuffix("_s").removesuffix("_bytes") in fitted]
    return list(dict.fromkeys(out))


def fit_edited(e) -> list[str]:
    """The fitted values of engine `e` set by hand since its fit (its general fields out of `fitted.parameters`, and a
    family's overrides): the fit's RMS error is not this profile's where any is (`engines show`, `engines diff`)."""
    fitted = e.fitted or {}
    still = set(fitted.get("parameters") or ())
    return [str(p) for p in (fitted.get("start") or {}) if str(p) not in still] + _overrides_set_by_hand(e)


def _fitted_lines(fitted: dict | None, overrides_by_hand: list[str] | None = None) -> list[str]:
    """The `fitted:` block `roofline fit` wrote, as the warnings of predict and sweeps cite it: its rows, the RMS log
    error, the model classes and device families it saw, and the parameters its rows left undetermined or at a bound;
    the values set by hand since, a family's override among them (`overrides_by_hand`)."""
    if not fitted:
        return ["  fitted                    no (every value as its source gives it)"]
    still = set(fitted.get("parameters") or ())  # a value set by hand since (engines new --set) is the user's, not the fit's
    listed = {key: ", ".join(str(p) for p in fitted.get(key) or ()
                             if key not in ("not_determined_by_rows", "bounds_hit", "kept_from_earlier_fit")
                             or str(p).split(" [")[0] in still) or "none"
              for key in ("parameters", "model_classes", "hardware_families", "not_determined_by_rows", "bounds_hit", "fixed",
                          "kept_from_earlier_fit")}
    rms = fitted.get("rms_log_error")
    start = fitted.get("rms_log_error_at_start")
    return [f"  fitted                    {fitted.get('rows', '?')} of {fitted.get('file', '?')} ({fitted.get('date', 'no date')}"
            + (f"; RMS log error {start:g} -> {rms:g}" if isinstance(rms, (int, float)) and isinstance(start, (int, float)) else "") + ")",
            f"    parameters of the fit   {listed['parameters']}" + (f" (held at their start: {listed['fixed']})" if fitted.get("fixed") else ""),
            f"    model classes           {listed['model_classes']}",
            f"    device families         {listed['hardware_families']}",
            *([f"    sequences at once       {fitted['batches'][0]:g}-{fitted['batches'][1]:g} (a replica's, over its rows; "
               "predict warns past twice the most or under half the fewest)"] if fitted.get("batches") else []),
            f"    determined by no row    {listed['not_determined_by_rows']}",
            *([f"    kept from earlier fit   {listed['kept_from_earlier_fit']} (its rows determined them, not these)"]
              if listed["kept_from_earlier_fit"] != "none" else []),
            f"    at a bound              {listed['bounds_hit']}"] + [  # qa290: fitted_on, which predict cites, was in the YAML alone
            f"    {'rows of each' if i == 0 else '':<24}{name}: {', '.join(entry.get('devices') or ())}; "
            f"{', '.join(entry.get('models') or ())}; {', '.join('plain' if m == 'none' else m for m in entry.get('methods') or ())}"
            for i, (name, entry) in enumerate((fitted.get("fitted_on") or {}).items())] + (
            [f"    set by hand after fit   {', '.join(edited)} (the RMS error above is of the fitted values, not of these)"]
            if (edited := list(dict.fromkeys([str(p) for p in (fitted.get("start") or {}) if str(p) not in still]
                                             + list(overrides_by_hand or []))))
            else [])


def _drafter(row) -> bool:
    """Whether a results row's drafter runs on a device of its own (draft_hardware set)."""
    value = row.get("draft_hardware")
    return isinstance(value, str) and value != ""


def _is_number(value) -> bool:
    """A table cell that holds a number (not None or NaN)."""
    return value is not None and value == value


def _frontier_header(widths: dict) -> str:
    """The frontier table's column heads, the text columns as wide as their widest entry (`widths`)."""
    return (f"{'tok/s/user':>10}  {'$/M tok':>8}  {'tok/s/dev':>9}  {'hardware':<{widths['hardware']}} {'dev':>3}  "
            f"{'layout':<{widths['layout']}} {'engine':<{widths['engine']}} {'method':<6} {'k':>2}  {'batch':>5}  "
            f"{'context':>7}  {'alpha':>5}")


def _frontier_hardware(row) -> str:
    """The hardware column: a drafter on its own device named beside the target's."""
    return str(row["hardware"]) + (f" +{row['draft_hardware']}" if row["decoding"] == "speculation" and _drafter(row) else "")


def _frontier_widths(frontier) -> dict:
    """Each text column's width: its widest entry, at least the width it had (14 / 22 / 12) so short tables keep
    their look (a layout of 'tp 1, dp-attention 8, ep 8' ran past its 22 and pushed the row out of line)."""
    rows = [row for _, row in frontier.iterrows()]
    return {"hardware": max([14, *(len(_frontier_hardware(r)) for r in rows)]),
            "layout": max([22, *(len(str(r["layout"])) for r in rows)]),
            "engine": max([12, *(len(str(r["engine"])) for r in rows)])}


def _dtype_of(row, column: str) -> str:
    """A row's dtype label, '' where it has none (a dense model's experts: '' from Parquet, NaN from CSV; qa133: 'nan')."""
    value = row.get(column, "")
    return "" if value is None or (isinstance(value, float) and value != value) or str(value) in ("", "nan") else str(value)


def _dtype_columns(varied: set[str] | None) -> list[tuple[str, str]]:
    """The frontier table's dtype columns, and its shared prefix's: one per column the table varies (qa132: a frontier
    of int4 and fp8 rows, or of fp8 KV picked from a table of two, looked alike row by row)."""
    return [(c, label) for c, label in (*DTYPE_LABELS, ("shared_prefix", "prefix tokens")) if varied and c in varied]


def _config_value(row, column: str) -> str:
    """A row's value of a config column as text that compares alike however the table was read: '' for none (a dense
    model's expert dtype: '' from Parquet, NaN from CSV), a number as its value (4 and 4.0 alike) (qa436: a point
    computed now said 'another configuration' of the pick read from results.csv)."""
    value = row.get(column)
    if isinstance(value, numbers.Real) and not isinstance(value, bool) and value == value:
        return f"{float(value):g}"
    return _dtype_of(row, column)


def _column_text(row, column: str) -> str:
    """A frontier row's entry of an extra column (_dtype_columns): a dtype's label, a shared prefix's tokens."""
    if column == "shared_prefix":
        return f"{int(row[column]):,}" if _is_number(row.get(column)) else ""
    return _dtype_of(row, column)


def _speed_text(speed: float, min_speed: float | None) -> str:
    """A frontier row's tokens/s per user, to as many digits as keep a speed under `min_speed` from reading as reaching
    it (qa145: 149.957 printed as 150 beside a pick at --min-tokens-per-user 150, the row looking cheaper and enough)."""
    text = format_significant(speed)
    digits = 4
    while min_speed is not None and speed < min_speed <= float(text.replace(",", "")) and digits <= 12:
        text, digits = f"{speed:.{digits}g}", digits + 1
    return text


def _picks_differ(plain, speculation, which: str = "the picks") -> str:
    """'; the picks differ in layout (plain tp 8, speculation dp attention 8, ep 8)' where the two picks run another
    model, on other hardware, engines, layouts, dtypes or contexts (qa214: a 0.036x ratio was one layout's speculation
    against another's plain decoding, unsaid; qa436: Llama's plain pick against MiniMax's speculative one, unsaid), else
    ''; `which`: 'the swept picks' where points computed now are printed beside them (qa423)."""
    names = {"weight_dtype": "weight dtype", "expert_dtype": "expert dtype", "kv_dtype": "KV dtype"}
    keys = [k for k in ("model", "hardware", "engine", "layout", "weight_dtype", "expert_dtype", "kv_dtype", "context")
            if k in plain and k in speculation and _column_text(plain, k) != _column_text(speculation, k)
            and (k != "expert_dtype" or (_column_text(plain, k) and _column_text(speculation, k)))]  # (a dense model: none)
    if not keys:
        return ""
    def shown(row) -> str:
        return ", ".join(_column_text(row, k) or "none" for k in keys)
    return (f"; {which} differ in {spoken_list([names.get(k, k) for k in keys])} (plain {shown(plain)}, speculation "
            f"{shown(speculation)}): the ratio is of the two, not of one deployment with and without speculation")


def _frontier_row(row, several_models: bool, widths: dict, dtypes: list[tuple[str, str]] = (),
                  min_speed: float | None = None) -> str:
    """One frontier row: a plain one's method is none whatever config it came from; a drafter on its own device is
    named beside the hardware and counted in the devices; its speed never rounded up to `min_speed` (_speed_text)."""
    speculative = row["decoding"] == "speculation"
    drafter = speculative and _drafter(row)
    per_device = format_significant(row["tokens_per_s_per_device"]) if "tokens_per_s_per_device" in row else "-"
    alpha = f"{row['alpha']:g}" if speculative and _is_number(row.get("alpha")) else "-"
    devices = int(row.get("devices", row["tp"])) + (1 if drafter else 0)  # frontier.devices_in_use, the CSV's column
    return (f"{_speed_text(row['tokens_per_s_per_user'], min_speed):>10}  {format_significant(row['cost_usd_per_million_tokens']):>8}  "
            f"{per_device:>9}  {_frontier_hardware(row):<{widths['hardware']}} {devices:>3}  {row['layout']:<{widths['layout']}} "
            f"{str(row['engine']):<{widths['engine']}} {str(row['method']) if speculative else 'none':<6} {int(row['k']) if speculative else 0:>2}  "
            f"{int(row['batch']):>5}  {int(row['context']):>7}  {alpha:>5}"
            + "".join(f"  {_column_text(row, c) or '-':>{max(7, len(label))}}" for c, label in dtypes)
            + (f"  {row['model']}" if several_models else ""))


DTYPE_LABELS = (("weight_dtype", "weights"), ("expert_dtype", "experts"), ("kv_dtype", "KV"))  # a pick line's dtypes


def varied_dtypes(df) -> set[str]:
    """The dtype columns a results table holds more than one value of, and `context`, `model` and `shared_prefix` where
    it holds more than one: the frontier table gives a column to each dtype of them (qa132), to the shared prefix (a
    frontier over two prefixes told its rows apart nowhere) and its model column (qa112: a frontier of one model, from
    a table of several, said none); a pick line names its experts' dtype where they hold it (its
    context and weight and KV dtypes always, qa132)."""
    return {c for c in (*(c for c, _ in DTYPE_LABELS), "context", "model", "shared_prefix")
            if c in df and df[c].astype(str).nunique() > 1}


def _fleet_lines(fleet: dict, users: int, min_speed: float, frontier, varied: set[str], draft: str | None,
                 how: str, overlap: bool | None, computed: bool = True, kind_rows: dict | None = None,
                 rows_named: str = "the table has") -> list[str]:
    """cheapest --users: the cheapest fleet of each kind for `users` sequences at once at `min_speed` or faster
    (frontier.fleet_picks), its replicas, devices and dollars an hour, and where the pick by cost per token (its
    `pick`, priced by frontier.answer as the fleet is) needs a dearer fleet for the same users, that one; `computed`:
    batches between the swept ones were swept for it (not where --where chose the batches); `kind_rows` the table's rows
    of each kind (0: it has none, said as the pick line says it, qa455: 'no row ... reaches this speed' read as rows too
    slow)."""
    users_text = f"{users:,} {'user' if users == 1 else 'users'}"
    where = "swept batches and those a fleet needs, computed now" if computed else "swept batches alone (--where chose them)"
    lines = [f"cheapest fleet for {users_text} at once at {format_given(min_speed)} tokens/s per user or faster (replicas of one "
             f"configuration, ceil(users / batch), each renting its devices all the time; at the {where}; USD an hour):"]
    for kind in ("plain", "speculation"):
        f = fleet.get(kind)
        if f is None:
            lines.append(f"  {kind:<12} " + (f"{rows_named} no speculative rows (method none, or k 0 alone)"
                                             if kind == "speculation" and (kind_rows or {}).get(kind) == 0 else
                                             "no row of this kind that fits, is priced and loads reaches this speed"))
            continue
        row = f["row"]
        lines.append(f"  {kind:<12} ${_usd_per_hour(f['usd_per_hour'])} an hour, {f['replicas']:,} "
                     f"{'replica' if f['replicas'] == 1 else 'replicas'}, {_devices(f['devices'])}, each: "
                     + _pick_text(kind, row, frontier[frontier["decoding"] == kind], varied, draft, how=how, overlap=overlap)
                     + _fewer_than_batch_text(users, f["replicas"], int(row["batch"])))
        pick = f.get("pick")
        if pick is not None and (pick["usd_per_hour"], pick["devices"]) != (f["usd_per_hour"], f["devices"]):
            lines.append(f"  {'':<12} the pick by cost per token above ({format_significant(pick['row']['tokens_per_s_per_user'])} "
                         f"tokens/s per user) needs {pick['replicas']:,} {'replica' if pick['replicas'] == 1 else 'replicas'} "
                         f"of batch {int(pick['row']['batch']):,}, {_devices(pick['devices'])}, "
                         f"${_usd_per_hour(pick['usd_per_hour'])} an hour for these users")
    if fleet.get("plain") is not None and fleet.get("speculation") is not None:
        lines.append(f"  speculation costs {_ratio(fleet['speculation']['usd_per_hour'] / fleet['plain']['usd_per_hour'])}x "
                     "plain decoding's for these users")
    return lines


def _devices(n: int) -> str:
    """'1 device', '1,024 devices' (qa416: '1 devices')."""
    return f"{n:,} device" + ("" if n == 1 else "s")


def _fewer_than_batch_text(users: int, replicas: int, batch: int) -> str:
    """' (each replica runs 33 or 34 of the 200 users, fewer than this batch: ...)' where a fleet's replicas run fewer
    sequences than the row's batch, '' otherwise (qa418: one replica; qa428: six replicas of batch 38 for 200 users
    ran 33-34 each, unsaid); ' (2 of the 3 replicas run this batch, 1 runs 21: ...)' where the busiest run it and the
    others one fewer (qa431: unsaid). Faster a user (a step never shortens as the batch grows), but not said dearer a
    token: a batch past a GEMM tile's edge pads its rows, so one fewer sequence can cost less a token (qa455: 128 at
    $0.507, 129 at $0.511)."""
    most, fewest = -(-users // replicas), users // replicas
    if most >= batch:
        if fewest == most:
            return ""
        busiest = users - fewest * replicas  # the replicas that run `most`, the batch; the rest run one fewer
        rest = replicas - busiest
        return (f" ({busiest:,} of the {replicas:,} replicas {'runs' if busiest == 1 else 'run'} this batch, {rest:,} "
                f"{'runs' if rest == 1 else 'run'} {fewest:,}: a little faster a user there)")
    users_text = f"{users:,} {'user' if users == 1 else 'users'}"
    runs = (f"the replica runs the {users_text}" if replicas == 1 else
            f"each replica runs {fewest:,}{'' if fewest == most else f' or {most:,}'} of the {users_text}")
    return f" ({runs}, fewer than this batch: faster a user than this row)"


def _usd_per_hour(usd_per_hour: float) -> str:
    """Dollars an hour to the cent: 136.80, 1,234.56."""
    return f"{usd_per_hour:,.2f}"


def _pick_text(kind: str, row, of_kind, varied: set[str] | None = None, draft: str | None = None,
               table_kind_rows: int | None = None, rows_named: str = "the table has", how: str = "",
               overlap: bool | None = None) -> str:
    """The cheapest row of a kind at the speed asked, or why there is none (the kind's rows: `of_kind`; the table's
    rows of the kind: `table_kind_rows`, 0 where it has none); its context and weight and KV dtypes always named, its
    experts' where they differ from its weights' or `varied` holds them (default: the kind's rows'); a draft model's name (`draft`, scenario.json's) with method draft; `how` the
    acceptance of a row without alpha (a tree, per-position rates: speculation_text); `overlap` scenario.json's (False:
    a draft model on its own device drafted without overlapping, said)."""
    if row is None:
        if len(of_kind):
            return f"no row that fits reaches it (the fastest: {format_significant(of_kind['tokens_per_s_per_user'].max())} tokens/s per user)"
        if kind == "speculation" and table_kind_rows == 0:  # qa112: a table of plain decoding alone
            return f"{rows_named} no speculative rows (method none, or k 0 alone)"
        return "no row of this kind fits, is priced and loads" + (" (plain: k = 0 or method none)" if kind == "plain" else "")
    speculative = kind == "speculation"
    text = (f"${format_significant(row['cost_usd_per_million_tokens'])} at {format_significant(row['tokens_per_s_per_user'])} "
            f"tokens/s per user: {row['model']} on {row['hardware']} x {int(row.get('devices', row['tp']))} ({row['layout']})")
    if speculative and _drafter(row):
        text += f" + a drafter's {row['draft_hardware']}"
    text += f", {row['engine']}" + (" (the roofline bound: no serving engine's costs, a cost none reaches)"
                                    if str(row["engine"]) == "ideal" else "") + f", batch {int(row['batch'])}"  # qa112
    varied = varied_dtypes(of_kind) if varied is None else varied
    # the context and the weight and KV dtypes always (qa132: a table of fp8 weights at 128k alone named neither, and
    # predict from the line gave another answer), the experts' where they differ from the weights' or the rows do
    if _is_number(row.get("context")):
        text += f", context {int(row['context']):,}"
    for column, label in DTYPE_LABELS:  # qa95, qa96: a frontier of one KV dtype picked from a table of two said neither
        shown = _dtype_of(row, column)
        if shown and (column != "expert_dtype" or column in varied or shown != _dtype_of(row, "weight_dtype")):
            text += f", {label} {shown}"
    if _is_number(row.get("shared_prefix")) and row["shared_prefix"] > 0:
        text += f", shared prefix {int(row['shared_prefix']):,}"
    if speculative:
        drafter = f" {draft}" if draft and str(row["method"]) == "draft" else ""  # qa112: the draft model was named nowhere
        text += f", {row['method']}{drafter} k {int(row['k'])}" + (f" at alpha {row['alpha']:g}" if _is_number(row.get("alpha")) else
                                                                   f" {how}" if how else "")
        if overlap is False and _drafter(row) and str(row["method"]) == "draft":  # qa132: predict overlaps by default:
            text += ", drafting not overlapped (--no-overlap)"  # without this, another answer (qa133: after the method)
        if optimistic(row["batch"], row["engine"]):  # the pick itself, not only a count in the notes (qa105)
            text += f" (batch {OPTIMISTIC_BATCH} or more under a serving engine: its cost is a lower estimate)"
    cap = row.get("max_batch" if speculative else "baseline_max_batch", row.get("max_batch"))
    if _is_number(cap) and int(row["batch"]) >= int(cap) > 0:  # qa294: faster than asked because memory stops the batch
        drafter = " with the drafter" if speculative and str(row["method"]) != "ngram" else ""  # qa327: n-gram has none
        text += f" (the largest batch that fits{drafter}: memory caps it)"
    return text


def _cost(points: dict, kind: str) -> float:
    return float(points[kind]["cost_usd_per_million_tokens"])


def _ratio(x: float) -> str:
    """A cost ratio in 3 significant digits, or as many more as it takes not to read 1 where it is not (qa105: a
    speculation 0.5% dearer than plain decoding was '1x'), the zeros kept (qa241: 2.004 was '2x', read as exact, beside
    0.384 printed '0.38x')."""
    text = f"{x:#.3g}"
    for digits in (4, 5, 6):
        if float(text) != 1.0 or x == 1.0:
            break
        text = f"{x:#.{digits}g}"
    return text.rstrip(".")


def speculation_text(meta: dict) -> str:
    """How a sweep's rows without an alpha accept, from its scenario.json: 'as a tree of 15 nodes, tau 3.2', 'at rates 0.9,
    0.7, 0.5', 'at acceptance length 3.1', or '' (qa116: a pick on a tree or on per-position rates named neither)."""
    if meta.get("tree_nodes"):
        return f"as a tree of {meta['tree_nodes']} node{'s' if meta['tree_nodes'] != 1 else ''}, tau {meta.get('tree_tau'):g}" if meta.get("tree_tau") else \
            f"as a tree of {meta['tree_nodes']} nodes"
    if meta.get("acceptance"):
        return "at rates " + ", ".join(f"{a:g}" for a in meta["acceptance"])
    if meta.get("acceptance_length"):
        return f"at acceptance length {meta['acceptance_length'].get('tau'):g}"
    if meta.get("default_rates"):
        return "at the method's published rates"
    return ""


def frontier_table(frontier, notes: list[str], picks: dict | None = None, min_speed: float | None = None,
                   refined: dict | None = None, varied: set[str] | None = None, unpriced: bool = False,
                   draft: str | None = None, kind_rows: dict | None = None, selected: bool = False,
                   how: str = "", overlap: bool | None = None, request: dict | None = None,
                   fleet: dict | None = None, users: int | None = None, fleet_computed: bool = True) -> str:
    """`roofline cheapest`: the cost frontier of each decoding kind (frontier.cost_frontier), fastest first, and with a
    speed the cheapest row of each kind that reaches it (and under it, `refined`'s cheaper point between swept
    batches, above the largest or below the smallest: {kind: (row or None, place)}, frontier.refine), then the notes;
    a pick names its context and dtypes (_pick_text; `varied`: the table's varied_dtypes, default the frontier's, which
    also give the frontier a column per dtype they vary), the draft model `draft` (scenario.json's), `how` a row without
    alpha accepts (speculation_text) and `overlap` (scenario.json's: False said of a drafter elsewhere); `kind_rows`: the table's
    rows of each kind (`selected`: the rows --where chose); `unpriced`: refine left gaps that could win unpriced, so no
    ratio with the points computed now is given; `request`: a request's table ({prompt, output_len, serving}: speeds
    and costs a serving benchmark's where `serving`, else steady decoding's beside serving columns it could rank by);
    `fleet` (frontier.fleet_picks) the cheapest fleet of each kind for `users` at once, after the picks
    (`fleet_computed`: with the batches it needs between the swept ones computed)."""
    varied = varied_dtypes(frontier) if varied is None else varied
    several_models = bool(len(frontier)) and (frontier["model"].nunique() > 1 or "model" in varied)
    lines = []
    refined = refined or {}
    if picks is not None and min_speed is not None:
        lines.append(f"cheapest at {format_given(min_speed)} tokens/s per user or faster ({_speeds_text(request)}; USD per million "
                     "tokens):")  # as asked
        # (qa288: 191.449 said as 191; qa294: a budget read the speed as a served user's, 2-3x off at 2k-token prompts)
        for kind in ("plain", "speculation"):
            lines.append(f"  {kind:<12} " + _pick_text(kind, picks.get(kind), frontier[frontier["decoding"] == kind], varied,
                                                       draft, (kind_rows or {}).get(kind),
                                                       "the rows --where selects have" if selected else "the table has", how,
                                                       overlap))
            point, place = refined.get(kind) or (None, "")
            if point is not None:
                where = {"above": "above the largest swept batch", "below": "below the smallest swept batch"}.get(
                    place, "between swept batches")
                swept = picks.get(kind)
                c_new = float(point["cost_usd_per_million_tokens"])
                c_swept = float(swept["cost_usd_per_million_tokens"]) if swept is not None else float("nan")
                alike = swept is not None and format_significant(c_new) == format_significant(c_swept)  # qa392: '$0.118'
                # twice, 0.59% apart, read as no gain
                from roofline.frontier import CONFIG  # what one point is, its batch and context aside

                other = swept is not None and any(_config_value(point, c) != _config_value(swept, c) for c in CONFIG
                                                  if c not in ("batch", "context") and c in point.index and c in swept.index)
                where += ", another configuration" if other else ""  # (qa431: read as the pick above refined)
                lines.append(f"  {'':<12} {where}, computed now: " + _pick_text(kind, point, frontier, varied, draft, how=how,
                                                                                overlap=overlap)
                             + (f" ({1 - c_new / c_swept:.2%} below the swept pick's cost)" if alike else ""))
        point = {k: (refined.get(k) or (None, ""))[0] for k in ("plain", "speculation")}  # computed now, or None
        exact = {k: point[k] if point[k] is not None else picks.get(k) for k in point}
        whole = not unpriced  # refine priced every gap that could win (its notes say which it could not; qa102: matched
        # by their words before)
        from roofline.frontier import mixes

        what = mixes(notes)
        mixed = f"; read it with the notes below: the table mixes {' and '.join(what)}" if what else ""
        row = exact.get("speculation")
        assumed = row.get("alpha") if row is not None and "acceptance rates" in what else None
        if assumed is not None and assumed == assumed:  # qa301: a 60x headline at the most favourable alpha, said below alone
            mixed += f", and the speculative pick assumes alpha {assumed:g} (--where alpha=VALUE compares at one)"
        if picks.get("plain") is not None and picks.get("speculation") is not None:  # the table's picks, then with the
            cost = {kind: picks[kind]["cost_usd_per_million_tokens"] for kind in point}  # points computed now
            computed = any(p is not None for p in point.values())  # (qa423: the swept picks' ratio and engines read as
            # those of the points computed now, printed just above)
            lines.append(f"  speculation costs {_ratio(cost['speculation'] / cost['plain'])}x plain decoding's to reach this speed "
                         + ("(each kind's cheapest swept row at it or faster)" if computed else "(each kind's cheapest at it or faster)")
                         + ((f" ({_ratio(_cost(exact, 'speculation') / _cost(exact, 'plain'))}x with the points computed now)"
                             if whole else " (the points computed now above not compared: batches between the swept ones "
                                          "were not all priced, notes below)") if computed else "")
                         + _picks_differ(picks["plain"], picks["speculation"], "the swept picks" if computed else "the picks")
                         + mixed)
        elif whole and all(p is not None for p in exact.values()):  # a kind's only point is one computed now (qa96)
            lines.append(f"  speculation costs {_ratio(_cost(exact, 'speculation') / _cost(exact, 'plain'))}x plain decoding's to reach "
                         "this speed, with the points computed now" + mixed)
        lines.append("")
        if fleet is not None and users is not None:
            lines += _fleet_lines(fleet, users, min_speed, frontier, varied, draft, how, overlap, fleet_computed,
                                  kind_rows, "the rows --where selects have" if selected else "the table has") + [""]
    widths, dtypes = _frontier_widths(frontier), _dtype_columns(varied)
    if len(frontier) and (picks is None or min_speed is None):  # the pick header says it otherwise (qa296: unsaid here)
        said = _speeds_text(request)  # (qa383: 'speeds and costs: steady decoding: speeds and costs count ...')
        lines += [said[0].upper() + said[1:] if said.startswith("steady decoding") else f"speeds and costs: {said}", ""]
    for kind in ("plain", "speculation"):
        rows = frontier[frontier["decoding"] == kind]
        if len(rows):
            lines += [f"{kind}: {len(rows)} row{'' if len(rows) == 1 else 's'} on the frontier (no other row fits, is as fast per user and cheaper)",
                      _frontier_header(widths) + "".join(f"  {label:>{max(7, len(label))}}" for _, label in dtypes)
                      + ("  model" if several_models else "")]
            lines += [_frontier_row(row, several_models, widths, dtypes, min_speed) for _, row in rows.iterrows()] + [""]
        elif len(frontier) and (kind_rows or {}).get(kind):  # qa268: the table has rows of it, none left: said, not omitted
            lines += [f"{kind}: no row on the frontier (none of its {kind_rows[kind]:,} rows fits, is priced and loads: the "
                      "notes below say why)", ""]
    if not len(frontier):
        lines.append("no row fits in memory with a cost at a layout the engines load and run: nothing to compare")
    lines += [f"note: {n}" for n in notes]
    return "\n".join(lines).rstrip("\n")
