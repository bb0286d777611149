"""roofline command line: a thin shell over the library (parse, call one function, print or write).

Run as `roofline ...` after `pip install .`, or `python cli.py ...` from a checkout.
Every bad input ends with one line on stderr and exit code 2.
"""

from __future__ import annotations

if __name__ == "__main__":  # `python cli.py`: a Ctrl-C while this file imports and defines its commands (about 80 ms,
    import signal as _signal  # before roofline.launch takes over) ends with one line, as the installed executable's does,
    import sys as _sys  # not a traceback (qa376); launch.run puts Python's own handler back

    def _interrupted_while_loading(signum, frame):
        _sys.stderr.write("interrupted\n")
        raise SystemExit(130)

    if _signal.getsignal(_signal.SIGINT) is _signal.default_int_handler:  # ignored (a background job) stays ignored
        _signal.signal(_signal.SIGINT, _interrupted_while_loading)

import errno
import json
import math
import os
import re
import sys
from pathlib import Path
from typing import Annotated, Optional

import typer

from roofline.errors import RooflineError
from roofline.limits import BATCH_MAX, CONTEXT_MAX, DEGREE_MAX, DRAFT_VOCAB_MAX, GPUS_MAX, K_MAX, TREE_NODES_MAX, USERS_MAX


def _compact_help_types() -> None:
    """Typer 0.29 shows flags as `--force <bool>`, which reads as if they took a value (`--force true` is refused):
    show none for a flag, as click does. And a bounded number as `<int> [1..4096]`, not `<int range>
    [1<=x<=4096]`, which took a third of `predict --help`'s width from its help column. Left alone where Typer's
    help has no such hooks."""
    option = getattr(typer.core, "TyperOption", None)
    shown = getattr(option, "display_type_rich", None)
    ranged = getattr(option, "_get_number_range_help_str", None)
    if shown is None or ranged is None or getattr(shown, "_flag_aware", False):
        return

    def display_type_rich(self, ctx):
        if getattr(self, "is_flag", False) and self.metavar is None:
            return None
        text = shown(self, ctx)
        return text.replace(" range>", ">") if isinstance(text, str) and self.metavar is None else text

    def number_range(self):
        low, high = getattr(self, "min", None), getattr(self, "max", None)
        if getattr(self, "count", False) or (low is None and high is None):
            return ranged(self)
        if low is not None and high is not None:
            return f"{low}..{high}"
        return f">={low}" if low is not None else f"<={high}"

    display_type_rich._flag_aware = True
    option.display_type_rich = display_type_rich
    option._get_number_range_help_str = number_range
    argument = getattr(typer.core, "TyperArgument", None)
    if argument is not None and hasattr(argument, "_usage_display_name"):
        argument._usage_display_name = _usage_name


def _usage_name(self) -> str:
    """An argument on the usage line as click writes it: SCENARIO required, [SCENARIO] optional, `...` repeated
    (Typer 0.29 writes a required one `{scenario}`, read as a placeholder to fill or a set to pick from, qa383)."""
    name = (self.metavar or self.name).upper()
    return (name if self.required else f"[{name}]") + ("..." if self.nargs != 1 else "")


_compact_help_types()
app = typer.Typer(add_completion=False, no_args_is_help=True, rich_markup_mode="markdown", help="Roofline model of LLM decode throughput, with and without speculative decoding.")
hw_app = typer.Typer(no_args_is_help=True, help="Hardware profiles.")
models_app = typer.Typer(no_args_is_help=True, help="Model profiles.")
app.add_typer(hw_app, name="hw")
app.add_typer(models_app, name="models")
scenarios_app = typer.Typer(no_args_is_help=True, help="Scenario files (sweeps and report sections).")
app.add_typer(scenarios_app, name="scenarios")
engines_app = typer.Typer(no_args_is_help=True, help="Serving-engine profiles (ideal, vllm, vllm-v0, sglang, sglang-early, trtllm).")
app.add_typer(engines_app, name="engines")
measurements_app = typer.Typer(no_args_is_help=True, help="Serving measurements: convert benchmark output into rows for fit and accuracy.")
app.add_typer(measurements_app, name="measurements")

ProfilesOpt = Annotated[Optional[list[Path]], typer.Option("--profiles", metavar="DIR", help="Extra folder of YAML profiles (repeatable; also ROOFLINE_PATH).")]
_state: dict = {"profiles": ()}


# roofline.fit.PARAMETERS' keys, written out: importing roofline.fit (numpy, pandas) to build the help would slow
# every command's start (a test holds the two equal)
FIT_PARAMETER_NAMES = ("kernel_latency", "host_per_step", "host_per_sequence", "allreduce_latency", "all_to_all_latency",
                       "spec_per_draft_step", "spec_per_iteration", "spec_per_iteration_per_sequence",
                       "quantised_moe_efficiency", "weight_only_efficiency", "overlap_exponent")


def _version(value: bool) -> None:
    if value:
        from importlib.metadata import version

        typer.echo(f"roofline {version('roofline')}")
        raise typer.Exit()


@app.callback()
def _root(profiles: ProfilesOpt = None,
          version: Annotated[bool, typer.Option("--version", callback=_version, is_eager=True, help="Print the version and exit.")] = False) -> None:
    _state["profiles"] = tuple(profiles or ())


def _dirs() -> tuple:
    return _state["profiles"]


def _echo_json(obj: dict) -> None:
    typer.echo(json.dumps(obj, indent=2, default=_json_default))


def _json_default(value):
    import numpy as np

    if isinstance(value, np.generic):
        return value.item()
    raise TypeError(f"not JSON serialisable: {type(value).__name__}")


LAYOUT_PANEL, REQUESTS_PANEL, SPECULATION_PANEL = "Layout and precision", "Requests", "Speculation"  # predict --help's
# groups (qa459: 28 options in one panel of 220 lines read as a wall)


@app.command()
def predict(
    hardware: Annotated[str, typer.Option(help="Hardware profile name (roofline hw list; case-insensitive, aliases like H100).")] = "h100-sxm",
    model: Annotated[str, typer.Option(help="Model profile name (roofline models list; case-insensitive, aliases like llama3.1-8b).")] = "llama-3.1-8b",
    batch: Annotated[int, typer.Option(min=1, max=BATCH_MAX, help="Sequences decoded together (the replica's batch).")] = 1,
    context: Annotated[Optional[int], typer.Option(min=0, max=CONTEXT_MAX, help="Tokens already in each sequence's KV cache (the decode position; memory holds context + 1, the step's own token too; --prompt prices the prefill). Default 1024, or with --prompt and --output-len the request's mean context, prompt + output-len / 2. Past the model's trained positions (its max_context_tokens) it is priced as asked, with a warning.")] = None,
    engine: Annotated[Optional[str], typer.Option(help="Serving engine profile: vllm (default) | vllm-v0 | sglang | sglang-early | trtllm | ideal (the roofline bound at the hardware profile's derated ceilings; its only fixed costs: the hardware's step overhead and link latency); `roofline engines list`.")] = None,
    tp: Annotated[int, typer.Option(rich_help_panel=LAYOUT_PANEL, min=1, max=DEGREE_MAX, help="Tensor-parallel degree: each matrix of the attention and dense layers split over tp devices (routed experts over all tp x dp-attention devices of a stage, --ep of those ways by whole experts). Devices = tp x dp-attention x pp.")] = 1,
    dp_attention: Annotated[int, typer.Option(rich_help_panel=LAYOUT_PANEL, min=1, max=DEGREE_MAX, help="Attention data-parallel groups of tp devices each: each holds and reads only its sequences' KV cache. Multiplies the devices: SGLang's DP attention with --tp 8 --dp 8 on 8 GPUs is --tp 1 --dp-attention 8 (its dense MLP, shared experts and LM head still split over all 8: the engine's dp_attention_stage_split).")] = 1,
    ep: Annotated[int, typer.Option(rich_help_panel=LAYOUT_PANEL, min=1, max=DEGREE_MAX, help="Expert-parallel degree (MoE): experts spread over devices; with --dp-attention tokens reach their experts as the engine sends them (its moe_dispatch), without it the combine rides on tp's all-reduce.")] = 1,
    pp: Annotated[int, typer.Option(rich_help_panel=LAYOUT_PANEL, min=1, max=DEGREE_MAX, help="Pipeline stages.")] = 1,
    weight_dtype: Annotated[Optional[str], typer.Option(rich_help_panel=LAYOUT_PANEL, help="Override every weight class: bf16 | fp16 | fp32 | fp8 | int8 (W8A8) | w8a16 (int8 weight-only) | int4 | fp4 (MXFP4) | nvfp4; a quantised one leaves the embedding, LM head and router at their native dtype (default: the checkpoint's native precision).")] = None,
    expert_dtype: Annotated[Optional[str], typer.Option(rich_help_panel=LAYOUT_PANEL, help="Override the routed and shared experts' dtype only.")] = None,
    kv_dtype: Annotated[str, typer.Option(rich_help_panel=LAYOUT_PANEL, help="KV-cache dtype: bf16 | fp16 | fp32 | fp8 | int8.")] = "bf16",
    prompt: Annotated[Optional[int], typer.Option(rich_help_panel=REQUESTS_PANEL, min=1, max=CONTEXT_MAX, help="Prompt length in tokens: adds time to first token (one prefill; with speculation, the drafter's too).")] = None,
    output_len: Annotated[Optional[int], typer.Option(rich_help_panel=REQUESTS_PANEL, min=1, max=CONTEXT_MAX, help="With --prompt: tokens each request generates; adds the time per output token a serving benchmark reads with --batch requests in flight, the arriving requests' prefills included (priced at the request's mean context, prompt + output_len / 2, where --context is left out).")] = None,
    shared_prefix: Annotated[int, typer.Option(rich_help_panel=REQUESTS_PANEL, min=0, max=CONTEXT_MAX, help="Tokens of the context shared by every sequence, at most --context (and --prompt where given) (stored once and, with --prompt, not prefilled again where the engine caches prefixes: its prefix_cached, and while speculating its prefix_cached_speculating; read once where its attention kernel can).")] = 0,
    method: Annotated[str, typer.Option(rich_help_panel=SPECULATION_PANEL, help="Speculation: none | draft | mtp | eagle | medusa | ngram")] = "none",
    draft: Annotated[Optional[str], typer.Option(rich_help_panel=SPECULATION_PANEL, help="Draft model name (method draft).")] = None,
    k: Annotated[Optional[int], typer.Option(rich_help_panel=SPECULATION_PANEL, min=0, max=K_MAX, help="Draft tokens per iteration (bonus token excluded); default 4 with a method (a tree: at most its nodes). The output's best k is searched over 0-64 whatever --k is (memory respected), except for a tree, whose tau is known at its depth alone.")] = None,
    alpha: Annotated[Optional[float], typer.Option(rich_help_panel=SPECULATION_PANEL, help="Per-token acceptance probability in [0, 1], given the drafts before it were accepted (default: the method's published per-position rates; methods draft and medusa have none and need --alpha, --acceptance or --acceptance-length).")] = None,
    acceptance: Annotated[Optional[str], typer.Option(rich_help_panel=SPECULATION_PANEL, help="Per-position conditional acceptance rates a1,a2,... (instead of --alpha): each the chance a position is accepted given the one before was (vLLM's per-position rates are unconditional: divide each by the one before); positions past the list reuse its last rate; rates past --k are used only where the best k is searched.")] = None,
    acceptance_length: Annotated[Optional[float], typer.Option(rich_help_panel=SPECULATION_PANEL, help="Instead: a measured acceptance length at this --k (tokens an iteration, bonus included: vLLM's 'Mean acceptance length', SGLang's 'accept len' in its log, 'Accept length' from bench_serving), taken as the alpha that gives it.")] = None,
    draft_hardware: Annotated[Optional[str], typer.Option(rich_help_panel=SPECULATION_PANEL, help="Run the drafter on this device (a hardware profile; default: on the target's own devices).")] = None,
    no_overlap: Annotated[bool, typer.Option("--no-overlap", rich_help_panel=SPECULATION_PANEL, help="With --draft-hardware and a draft model: take turns drafting and verifying (default: draft one half of the batch while verifying the other, where that is faster).")] = False,
    draft_vocab: Annotated[Optional[int], typer.Option(rich_help_panel=SPECULATION_PANEL, min=1, max=DRAFT_VOCAB_MAX, help="An EAGLE or Medusa head's reduced vocabulary, in tokens (EAGLE-3's draft_vocab_size, Medusa's truncated_vocab_size; default: the target's full vocabulary).")] = None,
    tree_nodes: Annotated[Optional[int], typer.Option(rich_help_panel=SPECULATION_PANEL, min=1, max=TREE_NODES_MAX, help="Tree verification: draft nodes per sequence (root excluded), with --tree-tau; k is the tree depth.")] = None,
    tree_tau: Annotated[Optional[float], typer.Option(rich_help_panel=SPECULATION_PANEL, min=1.0, help="Tree verification: measured tokens per iteration (bonus included), with --tree-nodes.")] = None,
    json_out: Annotated[bool, typer.Option("--json", help="Print one JSON object (SI units).")] = False,
) -> None:
    """Predict one decode point: step time, tokens/s, MBU/MFU, bound, memory, layout; optionally speculation."""
    from roofline.api import errors_named
    from roofline.api import predict as predict_point

    with errors_named("command line"):
        point = predict_point(
            hardware, model, batch, context, tp=tp, dp_attention=dp_attention, ep=ep, pp=pp, weight_dtype=weight_dtype,
            expert_dtype=expert_dtype, kv_dtype=kv_dtype, engine=engine, method=method, k=k, alpha=alpha,
            acceptance=_parse_rates(acceptance) if acceptance is not None else None, acceptance_length=acceptance_length,
            draft=draft, draft_hardware=draft_hardware,
            overlap=not no_overlap, draft_vocab=draft_vocab, tree_nodes=tree_nodes, tree_tau=tree_tau, prompt=prompt,
            output_len=output_len, shared_prefix=shared_prefix, profiles=_dirs(),
        )
    for line in point["warnings"]:  # first, on stderr, whichever the output (JSON also carries them in "warnings")
        typer.echo(f"warning: {line}", err=True)
    if json_out:
        _echo_json(point)
    else:
        from roofline.tables import predict_table

        typer.echo(predict_table(point))


def _parse_rates(text: str) -> list[float]:
    parts = text.split(",")
    if not text.strip():
        return []  # speculation.check_options says an empty list is not a rate
    try:
        if any(not x.strip() for x in parts):  # '0.8,,0.7': a rate left out, not a rate of nothing
            raise ValueError
        from roofline.units import plain_float

        return [plain_float(x) for x in parts]  # (qa289: 0.7_5 and full-width digits were read as 0.75)
    except ValueError:
        raise RooflineError(f"command line: --acceptance: expected comma-separated rates like 0.8,0.7,0.6, found {text!r}") from None


@hw_app.command("list")
def hw_list() -> None:
    """List hardware profiles: memory, bandwidth, bf16 peak, ridge point, the link two devices share (achievable), price."""
    from roofline.hardware import load_hardware
    from roofline.profiles import list_names
    from roofline.tables import hardware_list

    _report_untold("hardware")
    _list_each(hardware_list, load_hardware, list_names("hardware", _dirs()), "hardware")


def _list_each(table, loader, names: list[str], kind: str) -> None:
    """A list command's table of every profile that loads, a note for each user file standing in for a built-in (qa91:
    a shadowing h100-sxm was told only by its display name); then one line per file that does not load (exit code 2):
    one bad file in a user folder must not hide the rest."""
    from roofline.errors import RooflineError
    from roofline.profiles import shadow_note

    loaded, errors, shadows = [], [], []
    for name in names:
        try:
            loaded.append(loader(name, _dirs()))
            shadows.append(shadow_note(kind, name, _dirs()) if kind != "scenario" else "")  # loading one says it already
        except RooflineError as err:
            errors.append(str(err))
    typer.echo(table(loaded))
    for note in filter(None, shadows):
        typer.echo(f"note: {note}")
    for line in errors:
        typer.echo(f"error: {line}", err=True)
    if errors:
        raise typer.Exit(2)


def _report_untold(kind: str) -> None:
    """User files whose kind cannot be told: one warning line each on stderr (they are not listed)."""
    from roofline.profiles import problems

    for line in problems(kind, _dirs()):
        typer.echo(f"warning: {line}", err=True)


@hw_app.command("show")
def hw_show(name: Annotated[str, typer.Argument(help="Hardware profile name, alias or YAML path.")], json_out: Annotated[bool, typer.Option("--json", help="Print JSON (SI units).")] = False) -> None:
    """Show one hardware profile."""
    from roofline.hardware import load_hardware
    from roofline.profiles import is_profile_path, shadowed_paths

    hw = load_hardware(name, _dirs())
    shadows = [] if is_profile_path(name) else [str(p) for p in shadowed_paths("hardware", name, _dirs())]
    if json_out:
        from roofline.tables import _set_by_hand  # (qa311: the text's `set by hand` line, absent from the JSON)

        _echo_json({**hw.to_json(), "file": hw.path, "set_by_hand": _set_by_hand(hw.path), "shadows": shadows})
        return
    from roofline.tables import hardware_table

    typer.echo(hardware_table(hw))
    typer.echo(f"file: {hw.path}")
    for path in shadows:
        typer.echo(f"shadows: {path}")


@models_app.command("list")
def models_list() -> None:
    """List model profiles: parameters, active parameters, KV bytes per token."""
    from roofline.model import load_model
    from roofline.profiles import list_names
    from roofline.tables import model_list

    _report_untold("model")
    _list_each(model_list, load_model, list_names("model", _dirs()), "model")


@models_app.command("show")
def models_show(name: Annotated[str, typer.Argument(help="Model profile name or YAML path.")], json_out: Annotated[bool, typer.Option("--json", help="Print JSON (SI units).")] = False) -> None:
    """Show one model profile with its computed parameter counts and KV size."""
    from roofline.model import load_model
    from roofline.profiles import find_profile, is_profile_path, shadowed_paths

    m = load_model(name, _dirs())
    path = str(find_profile("model", name, _dirs()))
    shadows = [] if is_profile_path(name) else [str(p) for p in shadowed_paths("model", name, _dirs())]
    if json_out:
        from roofline.tables import _set_by_hand

        _echo_json({**m.to_json(), "file": path, "set_by_hand": _set_by_hand(path), "shadows": shadows})
        return
    from roofline.tables import model_table

    typer.echo(model_table(m))
    typer.echo(f"file: {path}")
    for shadowed in shadows:
        typer.echo(f"shadows: {shadowed}")


def _warn_if_builtin_name(kind: str, path: Path) -> None:
    """A new profile named like a built-in one (written with --force) shadows it wherever its folder is on the search
    path: say so."""
    from roofline.profiles import builtin_shadowed

    hidden = builtin_shadowed(kind, path)
    if hidden:
        typer.echo(f"warning: {path} has the name of {hidden}: where {path.parent} is on the search path, {path.stem} "
                   "means this file, not the built-in", err=True)


def _say_where_found(kind: str, name: str, path: Path) -> None:
    """After a profile is written: a folder off the search path (qa98: `hw show NAME` then failed until --profiles was
    given; qa359: `fit --out` there under a built-in's name shadowed nothing, unsaid), or a file of that name earlier on
    it (qa182: it hid the new one, unsaid)."""
    from roofline.errors import RooflineError
    from roofline.profiles import builtin_dir, find_profile, user_dirs

    searched = {d.resolve() for d in (*user_dirs(_dirs()), builtin_dir(kind))}
    if path.parent.resolve() not in searched:
        import shlex

        typer.echo(f"note: {path.parent} is not on the profile search path: name it with --profiles {shlex.quote(str(path.parent))} "
                   f"(or in ROOFLINE_PATH) for `{name}` to be found", err=True)
        return
    try:
        first = find_profile(kind, name, _dirs())
    except RooflineError:  # written and on the path: found, but a note must not turn a write into a failure
        return
    if first.resolve() != path.resolve():
        typer.echo(f"warning: {first} comes first on the search path: `{name}` names that file, not {path} (give "
                   "this one another name, or name it by its path)", err=True)


SET_EXAMPLES = {  # a dotted FIELD=VALUE of each kind's own fields, for `new --set` help
    "hardware": "dotted: peak_flops.bf16='148 TFLOPS', efficiency.memory=0.8",
    "model": "ffn_size=16384, dotted: moe.experts=64 from an MoE model",
    "engine": "host_per_sequence='40 us', dotted: kernels_per_layer.mlp=3, overrides.0.kernel_latency='5 us'",
    "scenario": "engine=sglang, hardware='[h100-sxm, b200]', dotted: axes.batch='[1, 8, 64]'",
}


def _editing_commands(group: typer.Typer, kind: str, what: str) -> None:
    """`new`, `set`, `edit` and `remove` of `group`'s profiles (hw, models, engines, scenarios): roofline.editing's
    functions told the kind; `what` names one in the help ('hardware profile', 'scenario')."""
    noun = "scenario" if kind == "scenario" else "profile"  # qa192: a scenario was called a profile, or a 'file file'
    force_remove = ("Remove it anyway: a file that is no valid " + what
                    + ("." if kind == "scenario" else ", or one a scenario names"
                       + (" or another engine takes its costs from" if kind == "engine" else "")
                       + ", where no other file of that name takes its place."))

    @group.command("new")
    def new(
        name: str = typer.Argument(..., help=f"Name of the new {noun} (its file is NAME.yaml).", show_default=False),
        from_: str = typer.Option(..., "--from", help=f"Existing {what} to start from.", show_default=False),
        set_: Optional[list[str]] = typer.Option(None, "--set", metavar="FIELD=VALUE",  # a default: the help names this kind's
                                                 help=f"FIELD=VALUE to change (repeatable; {SET_EXAMPLES[kind]}).",  # fields
                                                 show_default=False),
        dir_: Annotated[Optional[Path], typer.Option("--dir", help="Folder to write to (default: the user profile folder).")] = None,
        force: bool = typer.Option(False, "--force", help=f"Overwrite an existing file, or take a built-in {noun}'s name (shadowing it)."),
    ) -> None:
        from roofline.editing import new_profile

        path = new_profile(kind, name, from_, set_ or [], dir_, force, _dirs())
        typer.echo(f"wrote {path}")
        _warn_if_builtin_name(kind, path)
        _say_where_found(kind, name, path)

    @group.command("set")
    def set_(
        name: str = typer.Argument(..., help=f"The {what} to change (a user {noun}).", show_default=False),
        assignments: list[str] = typer.Argument(..., help="FIELD=VALUE ... (dotted fields; FIELD=null removes an optional one).",
                                                show_default=False),
        force: bool = typer.Option(False, "--force", help=f"Allow changing a built-in {noun}'s file."),
    ) -> None:
        from roofline.editing import set_fields

        typer.echo(f"wrote {set_fields(kind, name, assignments, _dirs(), force)}")

    @group.command("edit")
    def edit(
        name: str = typer.Argument(..., help=f"The {what} to edit (a user {noun}).", show_default=False),
        force: bool = typer.Option(False, "--force", help=f"Allow editing a built-in {noun}'s file."),
    ) -> None:
        from roofline.editing import edit_profile

        path, changed = edit_profile(kind, name, _dirs(), force)
        typer.echo(f"{'wrote' if changed else 'unchanged'} {path}")

    @group.command("remove")
    def remove(
        name: str = typer.Argument(..., help=f"The {what} to delete (a user {noun}; built-in ones are refused).", show_default=False),
        force: bool = typer.Option(False, "--force", help=force_remove),
    ) -> None:
        from roofline.editing import remove_profile

        path, now, link = remove_profile(kind, name, _dirs(), force)
        said = ("" if not link else f" (a link: {link}, where it pointed, is kept)" if os.path.exists(link)
                else f" (a link to {link}, which does not exist)")  # qa193: a dangling link's target 'kept'
        typer.echo(f"removed {path}{said}")
        if now is not None:
            typer.echo(f"note: `{path.stem}` now names {now}", err=True)

    new.__doc__ = f"Create a {what} from an existing one, with fields changed; validated, written atomically."
    remove.__doc__ = f"Delete a user {what}: the file NAME finds on the search path; built-in ones are refused."
    set_.__doc__ = "Change fields in place, keeping comments, key order and formatting; refused if the result is invalid."
    edit.__doc__ = f"Open the {noun} in $VISUAL/$EDITOR; reopened with the error on top while invalid, never saved invalid."


_editing_commands(hw_app, "hardware", "hardware profile")


def _validate_command(kind: str, paths: list[Path] | None) -> None:
    from roofline.editing import validate_paths

    results = validate_paths(kind, list(paths or []), _dirs())
    for path, error in results:
        typer.echo(f"ok    {path}" if error is None else f"FAIL  {error}")
    errors = [error for _, error in results if error is not None]
    if errors:  # the first cause on stderr too, where a job that keeps stderr alone reads it (qa340)
        raise RooflineError(f"{len(errors)} of {len(results)} files failed validation"
                            + (f": {errors[0]}" if len(errors) == 1 else f" (the first: {errors[0]})"))


@hw_app.command("validate")
def hw_validate(paths: Annotated[Optional[list[Path]], typer.Argument(help="Files or profile names to check (default: every hardware profile on the search path).")] = None) -> None:
    """Check profile files: one line per file, exit code 2 if any is invalid."""
    _validate_command("hardware", paths)


@hw_app.command("diff")
def hw_diff(
    a: Annotated[str, typer.Argument(help="First hardware profile.")],
    b: Annotated[str, typer.Argument(help="Second hardware profile.")],
    model: Annotated[str, typer.Option(help="Reference model for the decode points.")] = "llama-3.1-8b",
    tp: Annotated[int, typer.Option(min=1, max=DEGREE_MAX, help="Tensor-parallel degree of the reference model.")] = 1,
    dp_attention: Annotated[int, typer.Option(min=1, max=DEGREE_MAX, help="Attention data-parallel groups (devices = tp x dp-attention).")] = 1,
    ep: Annotated[int, typer.Option(min=1, max=DEGREE_MAX, help="Expert-parallel degree (MoE).")] = 1,
    pp: Annotated[int, typer.Option(min=1, max=DEGREE_MAX, help="Pipeline stages (devices = tp x dp-attention x pp).")] = 1,
    weight_dtype: Annotated[Optional[str], typer.Option(help="Weight dtype of the reference model (default: its native precision).")] = None,
    expert_dtype: Annotated[Optional[str], typer.Option(help="Dtype of the routed experts only (MoE; default: as --weight-dtype).")] = None,
) -> None:
    """Two hardware profiles side by side: every field, the ridge points, a reference model's decode points.

    The reference points (batch 1 at a 1,024-token context and batch 64 at 4,096) are on the ideal engine (the silicon's
    bound; `roofline predict --hardware NAME --engine vllm` gives a serving engine's, each)."""
    from roofline.editing import diff_hardware

    typer.echo(diff_hardware(a, b, _dirs(), model, tp, dp_attention, ep, weight_dtype, pp, expert_dtype))


@hw_app.command("schema")
def hw_schema() -> None:
    """Print the JSON Schema of hardware profiles (docs/hardware.schema.json is this output)."""
    from roofline.schema import schema_text

    typer.echo(schema_text("hardware"), nl=False)


_editing_commands(models_app, "model", "model profile")


@models_app.command("schema")
def models_schema() -> None:
    """Print the JSON Schema of model profiles."""
    from roofline.schema import schema_text

    typer.echo(schema_text("model"), nl=False)


@models_app.command("validate")
def models_validate(paths: Annotated[Optional[list[Path]], typer.Argument(help="Files or profile names to check (default: every model profile on the search path).")] = None) -> None:
    """Check model profile files: one line per file, exit code 2 if any is invalid."""
    _validate_command("model", paths)


@models_app.command("diff")
def models_diff(
    a: Annotated[str, typer.Argument(help="First model profile.")],
    b: Annotated[str, typer.Argument(help="Second model profile.")],
    hardware: Annotated[str, typer.Option(help="Hardware of the reference decode points.")] = "h100-sxm",
    tp: Annotated[int, typer.Option(min=1, max=DEGREE_MAX, help="Tensor-parallel degree of the reference points.")] = 1,
) -> None:
    """Two model profiles side by side: shape, parameters, KV bytes a token, reference decode points.

    The reference decode points (batch 1 at a 1,024-token context and batch 64 at 4,096) are each model's on the ideal
    engine."""
    from roofline.editing import diff_models

    typer.echo(diff_models(a, b, _dirs(), hardware, tp))


@models_app.command("import")
def models_import(
    config: Annotated[Path, typer.Argument(help="A Hugging Face config.json.")],
    name: Annotated[str, typer.Option(help="Profile name (file NAME.yaml).")],
    display_name: Annotated[Optional[str], typer.Option(help="Human-readable name.")] = None,
    published_params: Annotated[Optional[float], typer.Option(min=1e4, max=1e16, help="Published total parameter count (14.8e9 for 14.8 billion), checked against the computed one.")] = None,
    published_active_params: Annotated[Optional[float], typer.Option("--published-active", min=1e4, max=1e16, help="Published active parameter count (MoE), checked against the computed one.")] = None,
    source: Annotated[Optional[str], typer.Option(help="Where the config comes from (URL), written as the profile's source.")] = None,
    tokenizer: Annotated[Optional[str], typer.Option(help="Tokenizer family (llama-3, qwen3, ...): a draft model of another is warned about.")] = None,
    dir_: Annotated[Optional[Path], typer.Option("--dir", help="Folder to write to (default: the user profile folder).")] = None,
    force: Annotated[bool, typer.Option("--force", help="Overwrite an existing file, or take a built-in profile's name (shadowing it).")] = False,
    old_published_active: Annotated[Optional[float], typer.Option("--published-active-params", hidden=True, min=1e4, max=1e16)] = None,
) -> None:
    """Build a model profile from a Hugging Face config.json (dense, GQA, MoE, MLA, sliding window)."""
    # --published-active-params: the option's name until session 14, kept working (hidden: two names cut the help at 80 columns)
    published_active_params = published_active_params if published_active_params is not None else old_published_active
    import shlex

    from roofline.hfimport import import_hf_config
    from roofline.profiles import user_dir

    given = [("--display-name", display_name), ("--published-params", published_params),
             ("--published-active", published_active_params), ("--source", source), ("--tokenizer", tokenizer)]
    command = " ".join(["roofline models import", shlex.quote(str(config)), "--name", shlex.quote(name),  # every option, the
                        # config as given (qa477: its file name alone could not be run again from another folder)
                        *(f"{flag} {shlex.quote(f'{value:g}'.replace('e+0', 'e').replace('e+', 'e') if isinstance(value, float) else str(value))}"  # (qa403: the
                          for flag, value in given if value is not None)])  # folder and options were dropped)
    path, line = import_hf_config(config, name, dir_ if dir_ is not None else user_dir(), force,
                                  command=command,
                                  published_params=published_params, published_active_params=published_active_params,
                                  source=source or "", display_name=display_name, tokenizer=tokenizer or "")
    typer.echo(f"wrote {path}: {line}")
    _warn_if_builtin_name("model", path)


@engines_app.command("list")
def engines_list() -> None:
    """List serving-engine profiles with their main costs (the default engine is marked)."""
    from roofline.serving import engine_names, load_engine
    from roofline.tables import engine_list

    _report_untold("engine")  # qa182: a file that is not valid YAML was left out of the list unsaid
    _list_each(engine_list, load_engine, engine_names(_dirs()), "engine")


@engines_app.command("show")
def engines_show(name: Annotated[str, typer.Argument(help="Engine profile name or YAML path.")], json_out: Annotated[bool, typer.Option("--json", help="Print JSON (SI units).")] = False) -> None:
    """Show one serving-engine profile: every cost term, its overrides and its sources."""
    from roofline.profiles import is_profile_path, shadowed_paths
    from roofline.serving import load_engine

    eng = load_engine(name, _dirs())
    shadows = [] if is_profile_path(name) else [str(p) for p in shadowed_paths("engine", name, _dirs())]
    if json_out:
        from roofline.tables import _set_by_hand

        _echo_json({**eng.to_json(), "file": eng.path, "source": eng.source, "notes": eng.notes,
                    "set_by_hand": _set_by_hand(eng.path), "shadows": shadows})
        return
    from roofline.tables import engine_table

    typer.echo(engine_table(eng))
    for path in shadows:  # a fitted copy named like a built-in: which file is in use, and which it hides
        typer.echo(f"shadows: {path}")


_editing_commands(engines_app, "engine", "serving-engine profile")


@engines_app.command("diff")
def engines_diff(
    a: Annotated[str, typer.Argument(help="First engine profile.")],
    b: Annotated[str, typer.Argument(help="Second engine profile.")],
    model: Annotated[str, typer.Option(help="Model of the reference decode points.")] = "llama-3.1-8b",
    hardware: Annotated[str, typer.Option(help="Hardware the costs are read on (its family's overrides applied).")] = "h100-sxm",
    tp: Annotated[int, typer.Option(min=1, max=DEGREE_MAX, help="Tensor-parallel degree of the reference points.")] = 1,
    dp_attention: Annotated[int, typer.Option(min=1, max=DEGREE_MAX, help="Attention data-parallel groups (devices = tp x dp-attention).")] = 1,
    ep: Annotated[int, typer.Option(min=1, max=DEGREE_MAX, help="Expert-parallel degree (MoE).")] = 1,
    pp: Annotated[int, typer.Option(min=1, max=DEGREE_MAX, help="Pipeline stages (devices = tp x dp-attention x pp).")] = 1,
) -> None:
    """Two engine profiles side by side: costs on a device, kernel counts, overrides, fits, a reference step.

    Every cost as it applies on the device, and what a reference model's decode step takes under each, in the layout
    given (attention DP and EP, where the engines differ most for a MoE model)."""
    from roofline.editing import diff_engines

    typer.echo(diff_engines(a, b, _dirs(), model, hardware, tp, dp_attention, ep, pp))


@engines_app.command("schema")
def engines_schema() -> None:
    """Print the JSON Schema of serving-engine profiles (docs/engine.schema.json is this output)."""
    from roofline.schema import schema_text

    typer.echo(schema_text("engine"), nl=False)


@engines_app.command("validate")
def engines_validate(paths: Annotated[Optional[list[Path]], typer.Argument(help="Files or profile names to check (default: every engine profile on the search path).")] = None) -> None:
    """Check engine profiles: one line per file, exit code 2 if any is invalid."""
    _validate_command("engine", paths)


@measurements_app.command("convert")
def measurements_convert(
    files: Annotated[list[Path], typer.Argument(metavar="FILE", help="Result files of `vllm bench serve` / benchmark_serving.py (JSON) or SGLang bench_serving (JSONL).")],
    hardware: Annotated[str, typer.Option(help="Hardware profile the server ran on.")],
    model: Annotated[str, typer.Option(help="Model profile the server ran.")],
    out: Annotated[Path, typer.Option(help="Measurements CSV to write (its columns: the README in measurements/).")],
    tp: Annotated[int, typer.Option(min=1, max=DEGREE_MAX, help="Tensor-parallel degree of the server.")] = 1,
    ep: Annotated[int, typer.Option(min=1, max=DEGREE_MAX, help="Expert-parallel degree.")] = 1,
    dp_attention: Annotated[int, typer.Option(min=1, max=DEGREE_MAX, help="Attention data-parallel degree.")] = 1,
    gpus: Annotated[Optional[int], typer.Option(min=1, max=GPUS_MAX, help="GPUs of the deployment (default tp x dp-attention).")] = None,
    weight_dtype: Annotated[Optional[str], typer.Option(help="Weight dtype the server ran (default: the checkpoint as published, the dtype of most of the model's weight bytes).")] = None,
    kv_dtype: Annotated[str, typer.Option(help="KV-cache dtype the server ran: bf16 | fp16 | fp8 | ...; auto (vLLM's and SGLang's default, the model's own dtype) is read as bf16.")] = "bf16",
    method: Annotated[str, typer.Option(help="Speculation method of the server: none | draft | mtp | eagle | medusa | ngram, or the "
                                        "server's own name (eagle3, draft_model, standalone, deepseek_mtp, nextn).")] = "none",
    k: Annotated[int, typer.Option(min=0, max=K_MAX, help="Draft length (speculative tokens per step; a tree's depth).")] = 0,
    draft_tokens: Annotated[int, typer.Option(min=0, max=TREE_NODES_MAX + 1, help="Tree drafting: tokens verified per sequence (SGLang's option named speculative num draft tokens); 0 for a chain.")] = 0,
    draft: Annotated[str, typer.Option(help="Draft model profile, with --method draft.")] = "",
    draft_vocab: Annotated[Optional[int], typer.Option(min=1, max=DRAFT_VOCAB_MAX, help="With --method eagle: the vocabulary the head drafts over (EAGLE-3 heads: "
                                                       "32000; its config's draft_vocab_size). Default: the target's.")] = None,
    engine: Annotated[Optional[str], typer.Option(help="Engine: vllm | sglang | trtllm (default: the result's backend, else the "
                                                  "benchmark that wrote it, told by its fields).")] = None,
    engine_version: Annotated[str, typer.Option(help="Engine version: it picks the profile rows are predicted and fitted with (vLLM below 0.8: vllm-v0; SGLang below 0.4.5: sglang-early).")] = "",
    split: Annotated[str, typer.Option(help="fit | heldout: the half these rows belong to.")] = "fit",
    source_id: Annotated[Optional[str], typer.Option(help="Source of every row (default: each file's name). One server's runs "
                                                      "under one id are one source to `fit --cv`, which leaves a source out.")] = None,
    batch: Annotated[Optional[int], typer.Option(min=1, max=BATCH_MAX, help="Client concurrency the runs used, for results that do not "
                                                 "record max_concurrency (refused beside one that records another).")] = None,
    eager: Annotated[bool, typer.Option("--eager", help="The server ran without CUDA / HIP graphs (vLLM --enforce-eager, SGLang "
                                        "--disable-cuda-graph): the rows' graphs column says false, and they are predicted so.")] = False,
    force: Annotated[bool, typer.Option("--force", help="Overwrite an existing --out file.")] = False,
    append: Annotated[bool, typer.Option("--append", help="Add the rows to an existing --out measurements file (speculative "
                                         "runs beside plain ones: one file to fit), or write it where there is none.")] = False,
) -> None:
    """Convert serving-benchmark results into measurement rows (mean TPOT and output throughput per result)."""
    from roofline.hardware import load_hardware
    from roofline.measurements import convert_benchmark, write_measurements
    from roofline.model import load_model
    from roofline.yamlio import check_file_target

    if append and force:
        raise RooflineError("--append: expected without --force (one adds rows to --out, the other replaces it)")
    check_file_target(out, force or (append and out.is_file()))  # before anything is read: a folder, or an existing
    # file without --force (or --append)
    same = next((f for f in files if f.exists() and out.exists() and os.path.samefile(f, out)), None)  # hard links too
    if same is not None:  # --force would replace the benchmark output being converted
        raise RooflineError(f"--out: expected a file other than the results being converted, found {same} among them")
    from roofline.measurements import option_profile

    option_profile("--hardware", load_hardware, hardware, _dirs())  # the names must be profiles fit and accuracy load
    option_profile("--model", load_model, model, _dirs())
    import warnings

    with warnings.catch_warnings(record=True) as held:  # said once the rows are written: a fault of the files or of
        warnings.simplefilter("always")  # --out is one line alone (qa312: two warnings, one saying 'written', then it)
        rows = convert_benchmark(files, hardware=hardware, model=model, tp=tp, ep=ep, dp_attention=dp_attention, gpus=gpus,
                                 weight_dtype=weight_dtype, kv_dtype=kv_dtype, method=method, k=k, engine=engine,
                                 engine_version=engine_version, split=split, draft_tokens=draft_tokens, draft=draft,
                                 draft_vocab=draft_vocab, profiles=_dirs(), source_id=source_id, batch=batch,
                                 graphs=not eager)
        appended = append and out.is_file()
        written = write_measurements(rows, out, force, append)
    for w in held:
        warnings.showwarning(w.message, w.category, w.filename, w.lineno)
    typer.echo(f"{len(rows)} rows from {len(files)} file(s) {'appended to' if appended else '->'} {written}")
    if weight_dtype is None and len(rows):  # qa178: the dtype chosen for the user, said
        typer.echo(f"note: weight dtype {rows['weight_dtype'].iloc[0]}: {model}'s checkpoint as published (the dtype of most of "
                   "its weight bytes); --weight-dtype names another", err=True)


_editing_commands(scenarios_app, "scenario", "scenario")


@scenarios_app.command("list")
def scenarios_list() -> None:
    """List scenarios on the search path: name, configs, points, description (format: docs/PROFILES.md)."""
    from roofline.profiles import list_names
    from roofline.tables import scenario_list

    _report_untold("scenario")
    _list_each(scenario_list, _scenario_that_loads, list_names("scenario", _dirs()), "scenario")


def _scenario_that_loads(name: str, dirs: tuple):
    """The scenario `name`, every profile it names loaded once (beside the scenario first, as a sweep looks; qa222: a
    scenario naming a removed device was listed as fine, exit 0; qa226: one naming a file that does not load, too), its
    warnings left to `show`, `validate` and `sweep`."""
    import warnings

    from roofline.errors import RooflineError, field_line
    from roofline.grid import load_configs
    from roofline.hardware import load_hardware
    from roofline.model import load_model
    from roofline.profiles import is_profile_path
    from roofline.scenario import load_scenario
    from roofline.serving import load_engine

    sc = load_scenario(name, dirs)
    beside = Path(sc.path).parent if sc.path else None
    named = (("hardware", (*sc.hardware, *(d for d in sc.draft_hardware if d))), ("model", (*sc.model, *((sc.draft,) if sc.draft else ()))),
             ("engine", tuple(e for e in sc.engine if e)))
    loaders = {"hardware": load_hardware, "model": load_model, "engine": load_engine}
    for kind, names in named:
        for n in dict.fromkeys(names):
            local = beside / n if beside is not None and is_profile_path(n) and (beside / n).is_file() else None
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    loaders[kind](str(local or n), dirs)
            except RooflineError as exc:
                line = field_line(str(sc.path), "draft" if kind == "model" and n == sc.draft else
                                  "draft_hardware" if kind == "hardware" and n not in sc.hardware else kind)
                raise RooflineError(f"{sc.path}: {f'line {line}: ' if line else ''}{kind}: {exc}") from None
    try:  # its configs, as a sweep makes them (qa242: mtp on a model without MTP modules, ep on a dense model, listed
        # as fine; about 0.1 s for every built-in scenario together)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            load_configs(sc, dirs)
    except RooflineError as exc:
        raise RooflineError(str(exc) if str(exc).startswith(str(sc.path)) else f"{sc.path}: {exc}") from None
    return sc


@scenarios_app.command("show")
def scenarios_show(name: Annotated[str, typer.Argument(help="Scenario name or YAML file.")]) -> None:
    """One scenario: its file, config keys, axes and the points they make (the file itself: docs/PROFILES.md)."""
    from roofline.editing import warnings_named
    from roofline.grid import load_configs
    from roofline.scenario import load_scenario
    from roofline.tables import scenario_table

    sc = load_scenario(name, _dirs())
    with warnings_named(sc.path):  # the file named in front, as validate says them (qa140)
        configs = load_configs(sc, _dirs())  # its profiles loaded as a sweep would: an unknown name is one line, as in
    typer.echo(scenario_table(sc, len(configs)))  # validate; the configs it runs counted (qa322: pairs it drops)


@scenarios_app.command("validate")
def scenarios_validate(paths: Annotated[Optional[list[Path]], typer.Argument(help="Files or scenario names to check (default: every scenario on the search path).")] = None) -> None:
    """Check scenario files: one line per file, exit code 2 if any is invalid."""
    _validate_command("scenario", paths)


@app.command()
def sweep(
    scenario: Annotated[str, typer.Argument(help="Scenario name (built-in, or of your user folder or --profiles) or YAML file.")],
    out: Annotated[Path, typer.Option(help="Output folder (results table, operators.csv, plots).")] = Path("out/sweep"),
    force: Annotated[bool, typer.Option("--force", help="Replace an existing output folder (one roofline wrote).")] = False,
    no_plots: Annotated[bool, typer.Option("--no-plots", help="Write the tables only, no figures.")] = False,
    svg: Annotated[bool, typer.Option("--svg", help="Write each plot as SVG beside the PNG.")] = False,
    format_: Annotated[str, typer.Option("--format", help="Results table: csv | parquet | both.")] = "both",
    chunk_points: Annotated[int, typer.Option(min=1000, max=100_000_000, help="Rows computed per chunk (bounds memory).")] = 1_000_000,
) -> None:
    """Run a scenario sweep: results.csv / results.parquet, operators.csv, scenario.json, plots (PNG; SVG with --svg; a
    scenario with prompt and output_len adds serving_vs_batch, a serving benchmark's time per output token; a sweep of
    two contexts or more, speedup_vs_context).

    A figure of too many panels keeps one TP, context, engine or dtype (its title says which): plot --where draws another.
    A question scenario's own figure (flops-vs-time's FLOPs and time per token, kv-caps-batch's caps against context) and
    its finding are drawn by `roofline report NAME`."""
    from roofline.outputs import check_format, staged_dir
    from roofline.plot_jobs import PLOT_NAMES, early_or_new, not_drawn

    # the figure workers started before typer and pandas were imported (roofline.launch), or start now, before
    # pandas (roofline's API loads on first use): their imports of pandas and matplotlib (about 1 s here) then
    # overlap this process's, where a small sweep, computed and written in 0.1 s, would otherwise wait for them
    # (`roofline report` computes for seconds: it forks later)
    plots = not no_plots
    if svg and not plots:  # qa114: accepted in silence
        raise RooflineError("--svg: expected with the plots, found --no-plots beside it (no figure to write as SVG)")
    format_ = format_.strip().lower()  # CSV as csv, as dtypes and names are taken in any case (qa112)
    check_format(format_)  # before the sweep computes and warns (qa95)
    import warnings

    from roofline.grid import load_configs, write_sweep
    from roofline.scenario import load_scenario

    with warnings.catch_warnings(record=True) as held:  # its faults before the output folder's (qa283: --out's said
        sc = load_scenario(scenario, _dirs())  # first), its warnings after it: a fault of either is one line alone
        configs = load_configs(sc, _dirs())
    from roofline.errors import RooflineWarning

    with staged_dir(out, force, "sweep") as tmp, early_or_new(len(PLOT_NAMES) if plots else 1) as pool:
        for w in held:  # each named with the scenario's file, as validate and show name them (qa319)
            text = str(w.message)
            named = sc.path and issubclass(w.category, RooflineWarning) and not text.startswith(str(sc.path))
            warnings.showwarning(RooflineWarning(f"{sc.path}: {text}") if named else w.message, w.category, w.filename,
                                 w.lineno)
        summary = write_sweep(sc, configs, tmp, plots=plots, chunk_points=chunk_points, fmt=format_, svg=svg,
                              progress=sys.stderr.isatty() or sc.points > 200_000, pool=pool, extra_dirs=_dirs())
    plotted = f", plotted in {summary['plot_s']:.2f} s" if plots else ""
    typer.echo(f"{sc.name}: {summary['points']:,} point{'' if summary['points'] == 1 else 's'}, engine {', '.join(dict.fromkeys(c.engine.name for c in configs))}: "
               f"computed in {summary['compute_s']:.2f} s, written in {summary['write_s']:.2f} s{plotted} -> {out}/")
    for name in summary["files"]:
        typer.echo(f"  {out / name}")
    contexts = len(sc.axes.get("context", ())) > 1
    if plots and not summary["plots_skipped"] and not_drawn(summary["files"], sc.prompt is not None, contexts):
        typer.echo(not_drawn(summary["files"], sc.prompt is not None, contexts))
    if plots and not summary["plots_skipped"]:
        from roofline.plot_jobs import MAX_PANELS

        narrowed = dict(summary.get("narrowed") or {})  # what a figure of too many panels cuts (its title says which)
        devices = narrowed.pop("hardware", ())  # the first panels leave a device out (qa245: said of none)
        first = (f"where a title says 'first {MAX_PANELS} of N panels', `roofline plot {out} --where "
                 f"hardware={devices[-1]} --out DIR` draws one left out" if devices else "")
        if narrowed:  # say how to draw another
            key, values = next(iter(narrowed.items()))
            typer.echo(f"note: where a figure keeps a subset of {', '.join(narrowed)} (its title says which), `roofline "
                       f"plot {out} --where {key}={values[-1]} --out DIR` draws another" + (f" ({first})" if first else ""),
                       err=True)
        elif first:
            typer.echo(f"note: {first}", err=True)
        contexts = list(dict.fromkeys(sc.axes.get("context", [])))
        if len(contexts) > 1 and any(Path(f).stem == "roofline" for f in summary["files"]):  # qa393: 'plot --where
            # context=...' said to draw what operators.csv cannot
            typer.echo(f"note: the roofline figure is at the first context swept, {int(contexts[0]):,}: operators.csv holds "
                       "that one only, so `plot --where context=...` redraws the other figures, not it (a sweep with another "
                       "context first draws it there)", err=True)
    if sc.answers:  # qa495: flops-vs-time's own figure looked for among the sweep's, where only the report draws it
        what = "is a report question" if sc.answers == sc.name else f"answers the report question {sc.answers}"
        typer.echo(f"note: {sc.name} {what}: `roofline report {scenario}` draws its figure and states its finding",
                   err=True)
    if summary["plots_skipped"]:
        from roofline.grid import PLOT_POINTS_MAX

        typer.echo(f"plots skipped: {summary['points']:,} points are more than a sweep keeps in memory while it writes "
                   f"({PLOT_POINTS_MAX:,}); `roofline plot {out}` draws them from the written table (it reads the whole "
                   f"table into memory), or draw a smaller sweep", err=True)


@app.command()
def report(
    scenarios: Annotated[Optional[list[str]], typer.Argument(metavar="SCENARIO", help="Scenario names or YAML files (default: the nine questions; `roofline scenarios list` shows every one on the search path).")] = None,
    out: Annotated[Path, typer.Option(help="Output folder: report.md, report.html, img/, tables/.")] = Path("out/report"),
    force: Annotated[bool, typer.Option("--force", help="Replace an existing output folder (one roofline wrote).")] = False,
    svg: Annotated[bool, typer.Option("--svg", help="Write each figure as SVG beside the PNG.")] = False,
) -> None:
    """Run named scenarios and write one report: a finding, a figure and a command per section (Markdown + one-file HTML).

    Each section runs the engine its scenario names and says which: break-even-batch ideal, verify-mini-prefill vllm and ideal.

    The rest run the default engine (vllm); ideal is the derated roofline, without a serving engine's costs."""
    from roofline.report import write_report

    for path in write_report(tuple(scenarios or ()), out, force, _dirs(), ("png", "svg") if svg else ("png",)):
        typer.echo(str(path))


@app.command()
def plot(
    table: Annotated[Path, typer.Argument(help="A sweep output folder or its results.csv / results.parquet.")],
    out: Annotated[Optional[Path], typer.Option(help="Folder for the plots (default: the table's folder).")] = None,
    force: Annotated[bool, typer.Option("--force", help="Overwrite the plots in the table's folder; with --out, replace that folder (one roofline wrote).")] = False,
    svg: Annotated[bool, typer.Option("--svg", help="Write each plot as SVG beside the PNG.")] = False,
    where: Annotated[Optional[list[str]], typer.Option(metavar="COLUMN=VALUE", help="Draw only rows where COLUMN is VALUE (repeatable): tp=8, context=32768, engine=sglang, draft_hardware=none (a drafter on the target).")] = None,
) -> None:
    """Re-draw the standard plots from a written table, without recomputing anything (serving_vs_batch too, where the
    table holds a request's serving columns).

    Each config a panel cannot hold is shown at its first value that fits (titles say which): --where draws another,
    but for the roofline figure's context and verify pass: operators.csv holds the first context swept only (a sweep
    with another context first draws it there) and the largest k swept's verify pass (said where --where asks another k).
    """
    from roofline.plot_jobs import (
        PLOT_NAMES,
        early_or_new,
        not_drawn,
        plot_from_table,
        table_gives_request,
        table_sweeps_contexts,
    )
    from roofline.yamlio import check_text_table

    csv_path = table / "results.csv" if table.is_dir() and not (table / "results.parquet").exists() else table
    if csv_path.suffix == ".csv" and csv_path.is_file():
        check_text_table(csv_path)
    # the figure workers started before this process imported pandas, as in `sweep`: their imports overlap its own
    with early_or_new(len(PLOT_NAMES)) as pool:
        import pandas as pd

        try:
            paths = plot_from_table(table, out, force, formats=("png", "svg") if svg else ("png",), pool=pool,
                                    where=tuple(where or ()), extra_dirs=_dirs())
        except (pd.errors.EmptyDataError, pd.errors.ParserError) as exc:  # a CSV pandas cannot read as a table
            raise RooflineError(f"{csv_path}: expected a sweep results table (CSV), found {str(exc).splitlines()[0][:120]}") from None
    for path in paths:
        typer.echo(str(path))
    missing = not_drawn(paths, table_gives_request(table), table_sweeps_contexts(table))
    if missing:
        typer.echo(missing)


def _check_engine_option(engine: str) -> None:
    """--engine of fit and accuracy, looked up first: an unknown name said as the option's, as predict says it
    (qa426: 'unknown engine ...' named no option)."""
    from roofline.serving import load_engine

    try:
        load_engine(engine, _dirs())
    except RooflineError as exc:
        if str(exc).startswith("unknown engine"):
            raise RooflineError(f"command line: --engine: {exc}") from None
        raise


def _write_frontier(out: Path, frontier, picks: dict | None, force: bool, serving: bool = False,
                    found: dict | None = None, fleet: dict | None = None, users: int | None = None) -> None:
    """The frontier's rows as CSV, the table's pick of each kind marked (qa112: a script reading the file could not find
    the answer printed); into a sweep's own folder, so a later sweep --force may replace it. `ranked_by`: `serving`
    where the speed and cost columns are a serving benchmark's (--serving: frontier.serving_view), else `decoding`.
    `found`: each kind's point computed now between the swept batches, which the command answers with: a row of its
    own, `computed_now` true, and `answer` marks the row answered with of each kind (qa399: a plan exported from the
    file took the dearer swept pick, the printed answer absent). `fleet` (--users: frontier.answer's): each kind's
    fleet row a row of its own, `fleet` true, and its fleet_replicas, fleet_devices, fleet_usd_per_hour for
    fleet_users, which each answer row carries too, for the same users (qa418: the fleet was in the text alone)."""
    import pandas as pd

    from roofline.frontier import as_written, devices_in_use
    from roofline.outputs import add_to_marker
    from roofline.yamlio import write_text_atomic

    found = {kind: row for kind, row in (found or {}).items() if row is not None}
    picked = [(kind, row.name) for kind, row in (picks or {}).items() if row is not None]
    pick = [(kind, index) in picked for kind, index in zip(frontier["decoding"], frontier.index)]
    frontier = frontier.assign(pick=pick, computed_now=False,
                               answer=[p and kind not in found for p, kind in zip(pick, frontier["decoding"])])
    if found:
        now = pd.DataFrame([row for row in found.values()]).assign(decoding=list(found), pick=False, computed_now=True,
                                                                   answer=True)
        frontier = pd.concat([frontier, _without_sweep_axis_figures(now)[[c for c in frontier.columns if c in now]]],
                             ignore_index=True)
    if fleet is not None:
        frontier = _with_fleet(frontier, fleet, users)
    frontier = as_written(frontier).assign(devices_in_use=devices_in_use(frontier),  # qa268: a drafter's own device too
                                           ranked_by="serving" if serving else "decoding")
    from roofline.outputs import csv_bytes

    write_text_atomic(out, csv_bytes(frontier).decode(), force)  # as results.csv spells it (qa408: True, 0.0)
    add_to_marker(out.parent, {out.name})
    typer.echo(str(out))


def _without_sweep_axis_figures(now):
    """Rows computed now between the swept batches with their sweep axis's figures (best_k, break-even) left empty:
    those are of the short sweep that computed the point, not of the table's (qa424: a fleet row said break-even 410
    where the table's said 128)."""
    return now.assign(**{c: None for c in ("best_k", "break_even_batch", "break_even_at_memory_limit",
                                           "break_even_at_last_batch") if c in now})


def _with_fleet(frontier, fleet: dict, users: int):
    """_write_frontier's rows and each kind's fleet row appended (`fleet` true, `computed_now` where the fleet computed
    its batch), the fleet_* columns on those and on each answer row (the per-token pick's fleet, f['pick'])."""
    import numpy as np
    import pandas as pd

    sizes = ("replicas", "devices", "usd_per_hour")
    frontier = frontier.assign(fleet=False, fleet_users=np.nan, **{f"fleet_{n}": np.nan for n in sizes})
    rows = []
    for kind, f in fleet.items():
        if f is None:
            continue
        pick = f.get("pick")
        at = (frontier["decoding"] == kind) & frontier["answer"].astype(bool)
        if pick is not None and at.any():
            frontier.loc[at, ["fleet_users", *(f"fleet_{n}" for n in sizes)]] = [users, *(pick[n] for n in sizes)]
        row = f["row"].to_frame().T.assign(decoding=kind, pick=False, answer=False, computed_now=f["computed_now"],
                                           fleet=True, fleet_users=users, **{f"fleet_{n}": f[n] for n in sizes})
        rows.append(_without_sweep_axis_figures(row) if f["computed_now"] else row)
    if rows:
        now = pd.concat(rows, ignore_index=True)
        frontier = pd.concat([frontier, now[[c for c in frontier.columns if c in now]]], ignore_index=True)
    return frontier.astype({"fleet_users": "Int64", "fleet_replicas": "Int64", "fleet_devices": "Int64"})


@app.command()
def cheapest(
    table: Annotated[Path, typer.Argument(help="A sweep output folder or its results.csv / results.parquet.")],
    min_tokens_per_user: Annotated[Optional[float], typer.Option("--min-tokens-per-user", min=0.0, help="A speed to reach: the cheapest row of each kind (plain, speculation) at least this many tokens/s per user.")] = None,
    where: Annotated[Optional[list[str]], typer.Option(metavar="COLUMN=VALUE", help="Only rows where COLUMN is VALUE (repeatable): alpha=0.8, context=4096, engine=sglang, draft_hardware=none (a drafter on the target).")] = None,
    out: Annotated[Optional[Path], typer.Option(help="Also write the frontier's rows as CSV to this file (its `pick` column marks the table's pick of each kind at --min-tokens-per-user; `devices_in_use` counts a drafter's own device, `devices` the target's; `ranked_by` says whether it was ranked by decoding's speeds and costs or, with --serving, by a serving benchmark's, written beside them as serving_*; with --users, each kind's fleet is a row of its own, `fleet` true, with fleet_replicas, fleet_devices and fleet_usd_per_hour for fleet_users, which each answer row carries too).")] = None,
    force: Annotated[bool, typer.Option("--force", help="Overwrite --out.")] = False,
    serving: Annotated[bool, typer.Option("--serving", help="Rank by what a serving benchmark reads: the time per output token and the cost with the other requests' prefills (a sweep of a scenario with prompt and output_len: its serving columns).")] = False,
    users: Annotated[Optional[int], typer.Option(min=1, max=USERS_MAX, help="With --min-tokens-per-user: also the cheapest fleet that serves this many users at once at that speed, replicas of one configuration, of every row and the batches between the swept ones it needs (the pick by cost per token can need more devices for these users than a slower row): replicas = ceil(users / batch), their devices and USD an hour. For an aggregate rate, users = tokens/s wanted / --min-tokens-per-user (20,000 tokens/s at 40 a user: 500).")] = None,
) -> None:
    """The cheapest configuration for a speed per user: a sweep's cost frontier, plain and with speculation.

    Without --min-tokens-per-user it prints the frontier of each kind alone, fastest first. Rows that fit, are priced and can run (whose layouts and speculative methods the engines take, on devices the
    engines run on), ideal's (the roofline bound) left out beside serving engines' (--where engine=ideal compares it alone); a row
    stays where none is as fast and cheaper. With a speed, the batches between the swept ones (where the
    batch that just reaches it usually is; above the largest, and below the smallest where none is fast enough) are
    computed now, and a cheaper point there is printed under the pick, at the table's prices.

    Speeds and costs are steady decoding's: the prefills of arriving requests are in neither (`roofline predict --prompt
    P --output-len O` prints a point's serving TPOT and its cost at it), but with --serving on a sweep of a scenario
    with prompt and output_len: a serving benchmark's, from its serving columns. Prices are those the sweep read from the
    hardware profiles (a note says where a profile's price has changed since). Exit code 1 where no row is left to compare (none fits with a cost at a layout that
    runs), with the notes saying why, and where with a speed no row of either kind reaches it.
    """
    from roofline.frontier import check_frontier_out, check_table, scenario_json
    from roofline.plot_jobs import read_results, select_rows
    from roofline.profiles import recorded_files

    if force and out is None:  # qa114: accepted in silence
        raise RooflineError("--force: expected with --out FILE (it allows replacing that file), found no --out")
    if users is not None and min_tokens_per_user is None:  # a fleet is sized for a speed
        raise RooflineError(f"command line: --users: expected with --min-tokens-per-user SPEED (the speed each user gets), "
                            f"found --users {users} alone")
    if min_tokens_per_user is not None and not math.isfinite(min_tokens_per_user):
        from types import SimpleNamespace

        typed = _value_given(SimpleNamespace(opts=["--min-tokens-per-user"]), sys.argv[1:])  # as typed (qa336: 1e400 said inf)
        shown = typed if typed is not None else str(min_tokens_per_user)
        raise RooflineError("command line: --min-tokens-per-user: expected a finite number of at least 0 (tokens/s), found "
                            f"{shown!r}")  # (qa307: the other number options' form, the value quoted as they quote it)
    if out is not None:
        check_frontier_out(out, force, table)
    path, df = read_results(table)
    check_table(df, str(path))
    if df.empty:  # qa114: 'no row of this kind fits' and exit 0 for a table of no rows
        raise RooflineError(f"{path}: expected a sweep results table with at least one row, found none")
    df = select_rows(df, tuple(where or ()), str(path))
    meta = scenario_json(path)
    if serving:
        from roofline.frontier import serving_view

        df = serving_view(df, str(path))
    with recorded_files((meta or {}).get("profile_files")):  # profiles the sweep named by path (qa205)
        _cheapest_of(df, path, meta, where, min_tokens_per_user, out, force, serving, users)


def _cheapest_of(df, path, meta, where, min_tokens_per_user, out, force, serving=False, users=None) -> None:
    """`cheapest` once its table is read and selected (`meta`: its scenario.json or None): the frontier, the picks, the
    points between swept batches; `serving`: the table is frontier.serving_view's."""
    from roofline.frontier import answer
    from roofline.tables import frontier_table, speculation_text, varied_dtypes

    # the batches between the swept ones, unless --where chose the batches (qa94: batch=16 priced batch 80)
    batch_chosen = any(w.split("=", 1)[0].strip() == "batch" for w in where or ())
    got = answer(df, min_tokens_per_user, meta, _dirs(), serving, path, refine_batches=not batch_chosen, users=users)
    df, frontier, picks, refined, notes = got["table"], got["frontier"], got["picks"], got["refined"], got["notes"]
    found = {kind: r["row"] for kind, r in refined.items() if r["row"] is not None}
    meta = meta or {}
    speculative_rows = int(((df["method"].astype(str) != "none") & (df["k"] > 0)).sum()) if "method" in df else 0
    typer.echo(frontier_table(frontier, notes, picks, min_tokens_per_user,
                              {kind: (r["row"], r["place"]) for kind, r in refined.items()}, varied_dtypes(df),
                              unpriced=any(r["notes"] for r in refined.values()), draft=meta.get("draft"),
                              kind_rows={"speculation": speculative_rows}, selected=bool(where), how=speculation_text(meta),
                              overlap=meta.get("overlap"), request=_request_of(df, meta, serving), fleet=got["fleet"],
                              users=users, fleet_computed=not batch_chosen))
    if not len(frontier):  # qa214: no answer, exit 0, and a script could not tell (--out not written: nothing in it)
        raise typer.Exit(1)
    if out is not None:
        _write_frontier(out, frontier, picks, force, serving, found, got["fleet"], users)
    reached = any(row is not None for row in (picks or {}).values()) or bool(found)
    if min_tokens_per_user is not None and not reached:  # qa241: 'no row reaches it' exited 0 (--out: the frontier, no pick)
        raise typer.Exit(1)


def _request_of(df, meta: dict, serving: bool) -> dict | None:
    """What cheapest's header says of speeds (tables.frontier_table's `request`): {'prompt', 'output_len', 'serving'}
    where the table holds a request's serving columns (its scenario.json gives the request), else None."""
    from roofline.frontier import SERVING_SOURCES

    if not all(c in df for c in SERVING_SOURCES):
        return None
    return {"prompt": meta.get("prompt"), "output_len": meta.get("output_len"), "serving": serving}


@app.command()
def bench(
    points: Annotated[list[int], typer.Option(metavar="N", min=1000, max=100_000_000, help="Sweep sizes to time (repeatable), each rounded to whole grids of 40,960 points (16 k x 20 alpha x 128 batch per context): 1,000,000 runs 983,040; the JSON line gives the points run.")] = [1_000_000],  # noqa: B006
    chunk_points: Annotated[int, typer.Option(min=1000, max=100_000_000, help="Rows per chunk.")] = 1_000_000,
    format_: Annotated[list[str], typer.Option("--format", metavar="FORMAT", help="Output formats to time end to end: csv | parquet | both, as sweep takes them (repeatable).")] = ["both"],  # noqa: B006
    repeats: Annotated[int, typer.Option(min=1, max=20, help="Interleaved rounds after an untimed run; medians and ranges reported.")] = 3,
    jobs: Annotated[bool, typer.Option("--jobs", help="Instead: time the README's main jobs (report; sweep with its seven plots) end to end, each a fresh process.")] = False,
) -> None:
    """Benchmark sweeps: points/s computing only and end to end to each format, the ratios, peak memory; one JSON line per size."""
    from roofline.bench import points_run, run_bench, run_jobs

    if jobs:  # the README's jobs, as they are: the sweep options do not apply (qa114: --format xml ran and exited 0)
        given = [flag for flag, value, default in (("--points", points, [1_000_000]), ("--chunk-points", chunk_points, 1_000_000),
                                                   ("--format", format_, ["both"])) if value != default]
        if given:
            raise RooflineError(f"--jobs: times the README's main jobs as they are, which {' and '.join(given)} "
                                f"{'does' if len(given) == 1 else 'do'} not change: leave {'it' if len(given) == 1 else 'them'} out")
        typer.echo(json.dumps(run_jobs(repeats)))
        return
    format_ = [fmt.strip().lower() for fmt in format_]
    for fmt in format_:
        if fmt not in ("csv", "parquet", "both"):
            raise RooflineError(f"--format: expected csv, parquet or both, found {fmt!r}")
    formats = tuple(f for f in ("parquet", "csv") if any(asked in (f, "both") for asked in format_))
    timed: dict[int, int] = {}  # points run -> the size asked that runs them
    for n in points:
        if points_run(n) in timed:  # qa288: 1000 and 2000 both run one grid, which was timed twice
            typer.echo(f"note: --points {n:,} given twice: timed once" if timed[points_run(n)] == n else
                       f"note: --points {n:,} runs {points_run(n):,} points, as --points {timed[points_run(n)]:,} does: "
                       "timed once", err=True)
            continue
        timed[points_run(n)] = n
        typer.echo(json.dumps(run_bench(n, chunk_points, formats, repeats)))


@app.command()
def fit(
    file: Annotated[Path, typer.Argument(help="Measurements CSV (measurements/README.md); its split = fit rows are fitted.")],
    engine: Annotated[str, typer.Option(help="Engine profile whose parameters are fitted: vllm | vllm-v0 | sglang | sglang-early | trtllm, a profile of your own (by name on the search path, or a path; it fits the rows of the engine it descends from).")] = "vllm",
    out: Annotated[Optional[Path], typer.Option(help="Write the fitted profile here (YAML; comments and sources kept).")] = None,
    force: Annotated[bool, typer.Option("--force", help="Overwrite an existing --out file.")] = False,
    loss: Annotated[str, typer.Option(help="Loss on ln(predicted / measured): cauchy (default: rows the model cannot reach fade) | soft_l1 | linear.")] = "cauchy",
    fix: Annotated[Optional[list[str]], typer.Option(metavar="NAME", help="Keep this parameter at its sourced start value (repeatable): " + " | ".join(FIT_PARAMETER_NAMES) + ".")] = None,
    per_family: Annotated[Optional[list[str]], typer.Option(metavar="NAME", help="Fit this parameter per hardware family with 5 or more rows (repeatable): kernel_latency | quantised_moe_efficiency | weight_only_efficiency; written as overrides.")] = None,
    cv: Annotated[bool, typer.Option("--cv", help="Instead: leave one source out (fit on the other sources, predict it); per-source errors beside the in-sample ones, one JSON line last.")] = False,
) -> None:
    """Fit an engine profile's physical parameters to measurements (bounded least squares); print each parameter and row residual."""
    from roofline.fit import (
        check_fit_out,
        check_loss,
        cross_validate,
        cross_validation_report,
        fit_report,
        run_fit,
        write_fitted_profile,
    )

    check_loss(loss)  # before a --cv or an --out is looked at
    _check_engine_option(engine)
    if force and out is None:  # as cheapest (qa288: ignored here)
        raise RooflineError("--force: expected with --out FILE (it allows replacing that file), found no --out")
    if cv:
        if out is not None:
            raise RooflineError("--out: expected no profile to write with --cv (it fits once per source left out), found one")
        result = cross_validate(file, engine, _dirs(), loss=loss, fixed=tuple(fix or ()), per_family=tuple(per_family or ()))
        typer.echo(cross_validation_report(result))
        typer.echo(json.dumps(result["overall"]))
        return
    if out is not None:
        check_fit_out(out, force)  # before the fit, not after it
    result = run_fit(file, engine, _dirs(), loss=loss, fixed=tuple(fix or ()), per_family=tuple(per_family or ()))
    typer.echo(fit_report(result))
    if out is not None:
        written = write_fitted_profile(result, out, force)
        typer.echo(f"wrote {written}")
        _warn_if_builtin_name("engine", written)
        _say_where_found("engine", written.stem, written)


@app.command()
def accuracy(
    measurements: Annotated[Optional[Path], typer.Argument(metavar="FILE", help="Measurements CSV: the same as --file (give one of the two; fit takes its file as FILE too).", show_default=False)] = None,
    engine: Annotated[Optional[str], typer.Option(help="Predict every row with this engine (default: each row's own profile by engine and version: vllm, vllm-v0, sglang, sglang-early, trtllm; else the default engine).")] = None,
    file: Annotated[Optional[Path], typer.Option(help="Measurements CSV (default: measurements/published.csv).")] = None,
    out: Annotated[Path, typer.Option(help="Output folder: accuracy.csv, summary.json, predicted_vs_measured.png.")] = Path("out/accuracy"),
    split: Annotated[str, typer.Option(help="Rows to predict: heldout | fit | all.")] = "heldout",
    force: Annotated[bool, typer.Option("--force", help="Replace an existing output folder (one roofline wrote).")] = False,
) -> None:
    """Predict held-out published measurements with an engine and with ideal: errors overall, per source and regime; plot; one JSON line last."""
    from roofline.accuracy import report_text, write_accuracy

    if measurements is not None and file is not None and measurements.resolve() != file.resolve():  # qa325, qa328
        raise RooflineError(f"FILE: expected one measurements file, found {measurements} and --file {file}")
    if engine is not None:
        _check_engine_option(engine)
    summary = write_accuracy(out, force, file or measurements, engine, _dirs(), split)
    typer.echo(report_text(summary))
    for path in summary["files"]:
        typer.echo(f"  {path}")
    typer.echo(json.dumps(summary["headline"]))


CUDA_GRAPHS_HELP = ("With --device cuda: replay every forward pass from a CUDA graph, as serving engines run decode, so a "
                    "pass costs its kernels on the GPU, not the host's eager dispatch of each operator.")


@app.command()
def calibrate(
    device: Annotated[str, typer.Option(help="cpu | cuda")] = "cpu",
    out: Annotated[Optional[Path], typer.Option(help="Write the measured hardware profile here (YAML; without it, the YAML goes to stdout).")] = None,
    force: Annotated[bool, typer.Option("--force", help="Overwrite an existing file.")] = False,
    dtype: Annotated[str, typer.Option(help="bf16 | fp32: the dtype of the GEMMs, attention and operators measured; on a device without fast bf16 units give fp32 (bf16 is refused there).")] = "bf16",
    cuda_graphs: Annotated[bool, typer.Option("--cuda-graphs", help=CUDA_GRAPHS_HELP)] = False,
) -> None:
    """Measure this machine (bandwidth, GEMM FLOP/s, GEMV bandwidth, overhead) into a hardware profile."""
    from roofline.hardware import hardware_from_dict
    from roofline.harness.calibrate import profile_to_yaml, run_calibrate
    from roofline.harness.runtime import check_cuda_graphs, check_device_name
    from roofline.yamlio import check_file_out, write_text_atomic

    check_device_name(device)  # before PyTorch is looked for
    check_cuda_graphs(cuda_graphs, device)

    if out is not None:  # before minutes of measuring: a path that cannot be written fails now, not after them
        from roofline.profiles import PROFILE_SUFFIXES, check_profile_name

        if out.suffix not in PROFILE_SUFFIXES:
            raise RooflineError(f"--out: expected a profile file NAME.yaml, found {str(out)!r}")
        check_profile_name(out.stem, "--out")
        from roofline.editing import check_no_other_file

        check_no_other_file(out, force, "hardware", "calibrate")  # a model or engine profile of that name is not replaced (qa102)
        check_file_out(out, force)
    profile = run_calibrate(device, dtype=dtype, cuda_graphs=cuda_graphs)
    if out is not None:  # a profile file is found by its name, which must be the file's (hw validate, --profiles)
        profile["name"] = out.stem
    hardware_from_dict(profile, "<calibration>")  # the profile must load like any other
    text = profile_to_yaml(profile)
    if out is None:
        typer.echo(text)
    else:
        write_text_atomic(out, text, force)
        typer.echo(f"wrote {out}")


@app.command()
def validate(
    device: Annotated[str, typer.Option(help="cpu | cuda")] = "cpu",
    quick: Annotated[bool, typer.Option("--quick", help="Fewer points and repeats (3 to 6 minutes on 2 cores, longer on a busy machine; about a minute on an H200, 20-30 s with --cuda-graphs).")] = False,
    out: Annotated[Path, typer.Option(help="Output folder: table, plots, profile.")] = Path("out/validate"),
    hardware: Annotated[Optional[str], typer.Option(help="Use this (calibrated) hardware profile instead of calibrating now.")] = None,
    force: Annotated[bool, typer.Option("--force", help="Replace an existing output folder (one roofline wrote).")] = False,
    dtype: Annotated[str, typer.Option(help="bf16 | fp32: weights, KV cache and activations, measured and predicted; on a device without fast bf16 units give fp32 (bf16 is refused there).")] = "bf16",
    cuda_graphs: Annotated[bool, typer.Option("--cuda-graphs", help=CUDA_GRAPHS_HELP)] = False,
) -> None:
    """Run the real PyTorch decoder and speculative loop, and report predicted against measured."""
    from roofline.harness.runtime import check_cuda_graphs, check_device_name
    from roofline.harness.validate import run_validate
    from roofline.outputs import staged_dir

    check_device_name(device)  # before PyTorch is looked for
    check_cuda_graphs(cuda_graphs, device)

    hw = None
    if hardware:
        from roofline.hardware import load_hardware

        hw = load_hardware(hardware, _dirs())
    with staged_dir(out, force, "validation") as tmp:
        summary = run_validate(device=device, quick=quick, out_dir=tmp, progress=True, hardware=hw, dtype=dtype, shown_dir=out,
                               cuda_graphs=cuda_graphs)
    for path in sorted(p for p in out.iterdir() if p.is_file() and not p.name.startswith(".")):  # what it wrote, as
        typer.echo(f"  {path}")  # accuracy lists its files (qa378: validation.md, which explains the run, unnamed)
    typer.echo(json.dumps(summary))


PROFILES_EPILOG = ("Every command takes --profiles DIR (repeatable; before or after the command; also the "
                   "ROOFLINE_PATH variable): an extra folder of YAML profiles, searched before the built-ins. Terms "
                   "(MBU, MFU, tau, alpha, break-even batch, GQA, MLA, attention DP): README.md, Glossary.")  # (qa208)
for _typer in (app, hw_app, models_app, scenarios_app, engines_app, measurements_app):
    for _info in _typer.registered_commands:  # the option is the root's (hoist_profiles): each command's help names it
        _info.epilog = _info.epilog or PROFILES_EPILOG


_CLICK = None


def _click_command():
    """The click command Typer builds from `app` (what `app(...)` builds on every call, about 80 ms of reading
    signatures): built once per process, so that in-process callers (the tests' CLI fixture) pay it once."""
    global _CLICK
    if _CLICK is None:
        import typer.main

        _CLICK = typer.main.get_command(app)
    return _CLICK


def _unknown_option_text(exc) -> str:
    """'command line: --dp: expected an option of `roofline predict`, found none of that name (did you mean
    --dp-attention?)': click's NoSuchOption in the house form, offering the command's options that begin with the name
    given before click's close matches."""
    name = exc.option_name
    ctx = getattr(exc, "ctx", None)
    command = ctx.command_path if ctx is not None else "roofline"
    options = [o for param in (ctx.command.params if ctx is not None else ()) for o in getattr(param, "opts", ())
               if o.startswith("--")]
    offered = list(dict.fromkeys([*(o for o in options if o.startswith(name) and o != name), *(exc.possibilities or ())]))[:4]
    return (f"command line: {name}: expected an option of `{command}`, found none of that name"
            + (f" (did you mean {' or '.join(offered)}?)" if offered else f" (`{command} --help` lists them)"))


COMMAND_ALIASES = {"hardware": "hw", "gpu": "hw", "gpus": "hw", "model": "models", "engine": "engines",
                   "scenario": "scenarios", "measurement": "measurements", "plots": "plot", "reports": "report"}


def _unknown_command_text(exc, name: str) -> str:
    """'command line: hardware: expected a command of `roofline` (...), found none of that name (did you mean hw?)'."""
    from roofline.errors import closest_names

    ctx = getattr(exc, "ctx", None)
    command = ctx.command_path if ctx is not None else "roofline"
    names = list(ctx.command.list_commands(ctx)) if ctx is not None and hasattr(ctx.command, "list_commands") else []
    nested = []  # a group's own command typed at the top ('roofline convert' for 'roofline measurements convert')
    for group in names:
        sub = ctx.command.get_command(ctx, group)
        if hasattr(sub, "list_commands") and name in sub.list_commands(ctx):
            nested.append(f"{group} {name}")
    aliased = [COMMAND_ALIASES[near] for near in closest_names(name, list(COMMAND_ALIASES), 1)]  # 'hardwar': hw
    offered = list(dict.fromkeys([*nested, *[alias for alias in aliased if alias in names],
                                  *closest_names(name, names, 3)]))  # the project's one did-you-mean rule
    if not name:  # an empty word (a script's unset $CMD, qa394)
        return (f"command line: expected a command of `{command}`" + (f" ({', '.join(names)})" if names else "")
                + ", found an empty word")
    return (f"command line: {name}: expected a command of `{command}`" + (f" ({', '.join(names)})" if names else "")
            + ", found none of that name" + (f" (did you mean {' or '.join(offered)}?)" if offered else ""))


def _with_row_line(exc: RooflineError) -> RooflineError:
    """A measurements file's 'FILE.csv: row N: ...' with the line row N starts on (measurements._with_file_line), where
    the error came after the file loaded (a row's unknown hardware, its layout: qa359, qa360 named only the row)."""
    found = re.match(r"(.+?\.csv): row \d+: ", str(exc))
    if not found or not Path(found.group(1)).is_file():
        return exc
    from roofline.measurements import _with_file_line

    return _with_file_line(exc, Path(found.group(1)))


SIGPIPE_EXIT = 141  # 128 + SIGPIPE: stdout's reader closed the pipe before the command had printed everything


def main() -> None:
    """Console entry point: bad input becomes one line on stderr and exit code 2."""
    import warnings

    from roofline.errors import RooflineWarning

    said: set[str] = set()

    def _show(message, category, *args, **kwargs):
        if issubclass(category, RooflineWarning):
            if str(message) not in said:  # once a command (qa312: a profile loaded six times by cheapest warned six)
                said.add(str(message))
                typer.echo(f"warning: {message}", err=True)
        else:
            _default_show(message, category, *args, **kwargs)

    _default_show = warnings.showwarning
    warnings.showwarning = _show
    try:
        refuse_undecodable_words(sys.argv[1:])
        args = drop_default_flags(hoist_profiles(sys.argv[1:]))
        group = _click_command()
        refuse_repeated_options(group, args)
        refuse_unreadable_values(group, args)
        try:
            code = group(args=args, prog_name="roofline", standalone_mode=False)
        except SystemExit as exc:  # typer's EPIPE path: the reader of stdout stopped early (`| head -1`), exit 1, as
            if exc.code == 1 and type(sys.stdout).__name__ == "PacifyFlushWrapper":  # cheapest's 'no row' (qa394):
                sys.exit(SIGPIPE_EXIT)  # the shell's code for a command a closed pipe stops, as `yes | head` gives
            raise
        if isinstance(code, int) and code:  # typer returns an exit code instead of raising: 130 for Ctrl-C
            if code == 130:
                typer.echo("interrupted", err=True)
            sys.exit(code)
    except RooflineError as exc:
        typer.echo(f"error: {as_flags(str(_with_row_line(exc)))}", err=True)
        sys.exit(2)
    except typer.Abort:
        typer.echo("aborted", err=True)
        sys.exit(1)
    except MemoryError:  # a traceback ending in numpy's _ArrayMemoryError (qa99: a sweep under a 9 GB limit)
        typer.echo("error: out of memory: ask for less at once (fewer axis values or rows; a sweep takes a smaller "
                   "--chunk-points)", err=True)
        sys.exit(2)
    except Exception as exc:
        # click's usage errors (vendored by recent typer): unknown option, value out of range, missing argument
        if type(exc).__name__ == "NoArgsIsHelpError" and getattr(exc, "ctx", None) is not None:
            sys.exit(0)  # `roofline` alone, or a group without a command: typer printed its help (qa101: printing
            # exc.ctx.get_help() again, which rich prints itself, showed it twice)
        if hasattr(exc, "format_message") and isinstance(getattr(exc, "exit_code", None), int):
            found = _value_given(getattr(exc, "param", None), sys.argv[1:])
            number = _number_refused(exc, found) if type(exc).__name__ == "BadParameter" else None
            if number is not None:  # said as the library's errors are, not in the wording of click's version
                typer.echo(f"error: {number}", err=True)
                sys.exit(exc.exit_code)
            if type(exc).__name__ == "NoSuchOption":  # house form, and an option the name begins (qa333: --dp was
                typer.echo(f"error: {_unknown_option_text(exc)}", err=True)  # not offered --dp-attention)
                sys.exit(exc.exit_code)
            extra = re.match(r"Got unexpected extra argument(?:s|\(s\))? \((.+)\)", exc.format_message())
            if type(exc).__name__ == "MissingParameter" or extra:  # house form (qa339)
                ctx = getattr(exc, "ctx", None)
                command = ctx.command_path if ctx is not None else "roofline"
                param = getattr(exc, "param", None)
                opts = [o for o in getattr(param, "opts", None) or [] if o.startswith("-")]
                # an option by its flag, an argument as --help shows it (qa341: 'from_', its Python name)
                name = opts[0] if opts else str(getattr(param, "metavar", None) or getattr(param, "name", None)
                                                or "argument").upper()
                typer.echo(f"error: command line: {extra.group(1).split()[0] if extra else name}: " + (
                    f"expected no further argument of `{command}`, found {extra.group(1)!r}" if extra else
                    f"expected a value for `{command}`'s {name}, found none (`{command} --help` says it)"), err=True)
                sys.exit(exc.exit_code)
            unknown = re.match(r"No such command '(.*)'\.", exc.format_message())  # '' too (qa394)
            if unknown or (type(exc).__name__ == "BadOptionUsage" and "requires an argument" in exc.format_message()):
                text = (_unknown_command_text(exc, unknown.group(1)) if unknown else  # house form (qa335)
                        f"command line: {exc.option_name}: expected a value after it, found none")
                typer.echo(f"error: {text}", err=True)
                sys.exit(exc.exit_code)
            message = exc.format_message()
            said = found is not None and repr(found) in message  # click named the value itself (qa114: 'is not
            typer.echo(f"error: {message.rstrip('.') if found is not None and not said else message}"  # readable., found')
                       + (f", found {found!r}" if found is not None and not said else ""), err=True)
            sys.exit(exc.exit_code)
        if isinstance(exc, OSError):  # a path the user gave that the system refused (a file where a folder must be, ...)
            where = f"{exc.filename}: " if exc.filename else ""
            full = exc.errno in (errno.ENOSPC, getattr(errno, "EDQUOT", errno.ENOSPC))  # a write fails with no file name
            during = " (while writing the command's output: free space, or give --out elsewhere)" if full and not exc.filename else ""
            typer.echo(f"error: {where}{exc.strerror or exc}{during}", err=True)
            sys.exit(2)
        if isinstance(exc, RuntimeError) and str(exc).startswith("Symlink loop from "):  # pathlib's resolve() before
            # Python 3.13 (an OSError since): an output path in a loop of links (qa246: a traceback, exit 1)
            typer.echo(f"error: {str(exc).removeprefix('Symlink loop from ').strip(chr(39))}: Too many levels of symbolic "
                       "links", err=True)
            sys.exit(2)
        raise


def _number_refused(exc, found: str | None) -> str | None:
    """'command line: --batch: expected a whole number from 1 to 100,000,000, found '0'' for a value a number option's
    type or range refused, in the library's own form (qa297: click's 'Invalid value for ...: Input should be ...' beside
    'command line: ...', its wording changing with typer's version); None for any other option or error. The type
    and range are the command function's annotation (`Annotated[int, typer.Option(min=1, max=...)]`); of a repeated
    option's values, the first refused is named. A whole number written with an exponent says its digits."""
    import decimal
    import re
    import typing

    from roofline.units import PLAIN_NUMBER, count_spelling_hint

    param, ctx = getattr(exc, "param", None), getattr(exc, "ctx", None)
    callback = getattr(getattr(ctx, "command", None), "callback", None)
    if param is None or callback is None or found is None:
        return None
    try:
        hint = typing.get_type_hints(callback, include_extras=True).get(param.name)
    except Exception:  # an annotation this module cannot resolve: click's own message stands
        return None
    info = next((m for m in getattr(hint, "__metadata__", ()) if hasattr(m, "min") and hasattr(m, "max")), None)
    base = getattr(hint, "__origin__", hint)  # Annotated[X, ...]'s X
    while typing.get_origin(base) in (typing.Union, list) or type(base).__name__ == "UnionType":
        base = next(a for a in typing.get_args(base) if a is not type(None))
    if base not in (int, float) or info is None:
        return None
    low, high = info.min, info.max

    def shown(v) -> str:  # 100,000,000 of an int; 0.5 or 1e16 of a float
        return f"{int(v):,}" if base is int else f"{v:g}".replace("e+", "e")

    expected = "a whole number" if base is int else "a number"
    if low is not None and high is not None:
        expected += f" from {shown(low)} to {shown(high)}"
    elif low is not None:
        expected += f" of at least {shown(low)}"
    elif high is not None:
        expected += f" of at most {shown(high)}"

    def takes(text: str) -> bool:  # as click reads the option: an int's digits (a '.0' after them too), a float's number
        t = text.strip()
        if not PLAIN_NUMBER.fullmatch(t) or (base is int and not re.fullmatch(r"[-+]?[0-9]+(\.0*)?", t)):
            return False
        value = int(float(t)) if base is int else float(t)
        return (low is None or value >= low) and (high is None or value <= high)

    values = found.split(", ") if getattr(param, "multiple", False) else [found]
    bad = next((v for v in values if not takes(v)), found)
    digits = None  # 1e3: a whole number in range, written with an exponent (in decimal: 1e23 is 10^23, not its float)
    exact = decimal.Decimal(bad.strip()) if PLAIN_NUMBER.fullmatch(bad.strip()) else None
    if (base is int and exact is not None and exact == exact.to_integral_value() and abs(exact) < 10**15
            and takes(str(int(exact)))):
        digits = int(exact)
    opts = [n for n in getattr(param, "opts", None) or [] if n.startswith("--")]
    people = bool(set(opts) & {"--users", "--gpus", "--points"})  # counted in thousands, never 1,024s (qa431)
    hint = (f" (write {digits})" if digits is not None else  # 32k, 1,024 (qa421)
            count_spelling_hint(bad, lambda n: takes(str(n)), binary=not people) if base is int else "")
    return f"command line: {opts[0] if opts else param.name}: expected {expected}, found {bad!r}{hint}"


def _value_given(param, args: list[str]) -> str | None:
    """What the command line gave an option a usage error names (`--tp 0`, `--tp=0`: the last one given, the one an
    option of one value takes; every one given, comma-separated, for a repeatable option), else None."""
    found = []
    for i, arg in enumerate(args):
        for name in [n for n in getattr(param, "opts", None) or [] if n.startswith("-")]:
            if arg == name and i + 1 < len(args):
                found.append(args[i + 1])
            elif arg.startswith(name + "="):
                found.append(arg[len(name) + 1:])
    if not found:
        return None
    return ", ".join(found) if getattr(param, "multiple", False) else found[-1]


def run() -> None:
    """The `roofline` executable: `main()`, then, once the command has succeeded, leave without the interpreter's
    teardown. Unloading pandas, pyarrow and matplotlib takes about 0.2 s on a 2-core machine and does nothing a
    finished command needs: by then every file it wrote is closed and every worker process joined. A failed
    command exits through `main()` as before; in-process callers (tests, notebooks) call `main()`."""
    from roofline.launch import remove_matplotlib_config

    main()
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except OSError:  # a closed pipe: let the interpreter's exit report it as it always has
        return
    remove_matplotlib_config()  # what the interpreter's teardown would have run: launch.run's finally is skipped
    os._exit(0)


def as_flags(message: str) -> str:
    """An error the library raised for options given on the command line ('command line: tree_tau: expected ...'),
    with the field named as its flag is spelled ('--tree-tau'): the library names API fields."""
    import re

    match = re.match(r"command line: ([a-z][a-z_]*)(?: (and|or) ([a-z][a-z_]*))?: ", message)
    if not match:
        return message
    fields = [match.group(1), *([match.group(3)] if match.group(3) else [])]
    flags = f" {match.group(2)} ".join("--" + name.replace("_", "-") for name in fields)
    body = re.sub(r"\b(" + "|".join(FLAG_FIELDS) + r")\b", lambda m: "--" + m.group(1).replace("_", "-"), message[match.end():])
    return f"command line: {flags}: " + body


# API fields with an underscore that a body of an error may name, spelled as their flags on the command line
FLAG_FIELDS = ("acceptance_length", "tree_nodes", "tree_tau", "draft_vocab", "draft_hardware", "dp_attention",
               "weight_dtype", "expert_dtype", "kv_dtype", "shared_prefix")


# flags that spell out a default, each command's (their pairs were one `--x/--no-x` option before session 18, which
# took a help column of its own): dropped before parsing, so that scripts naming them still run; beside the flag
# that turns the default off, refused
DEFAULT_FLAGS = {"predict": {"--overlap": "--no-overlap"}, "sweep": {"--plots": "--no-plots", "--no-svg": "--svg"},
                 "report": {"--no-svg": "--svg"}, "plot": {"--no-svg": "--svg"}, "validate": {"--no-quick": "--quick"}}


def drop_default_flags(argv: list[str]) -> list[str]:
    """`argv` without the flags of DEFAULT_FLAGS that its command takes; one of them beside its opposite is an error."""
    from roofline.launch import command_of

    flags = DEFAULT_FLAGS.get(command_of(argv) or "", {})
    end = argv.index("--") if "--" in argv else len(argv)  # after `--`, words are arguments
    words = argv[:end]
    for flag, opposite in flags.items():
        if flag in words and opposite in words and "--help" not in words:
            raise RooflineError(f"{flag} and {opposite}: expected one of them, found both")
    return [word for word in words if word not in flags] + argv[end:]


def refuse_repeated_options(group, argv: list[str]) -> None:
    """One line for a single-value option given twice with two values (`--hardware h100 --hardware h200` ran h200 in
    silence): the command's options are read from click, its subcommand path from the words before the options."""
    command, rest = _command_and_rest(group, argv)
    names = {name: param for param in getattr(command, "params", ()) if not getattr(param, "multiple", False)
             and not getattr(param, "is_flag", False) and getattr(param, "param_type_name", "") == "option"
             for name in param.opts}
    seen: dict[str, tuple[str, str]] = {}
    for i, word in enumerate(rest):
        if word == "--":
            break
        name, _, value = word.partition("=")
        if name not in names or (not value and i + 1 >= len(rest)):
            continue
        value = value or rest[i + 1]
        key = names[name].name
        if key in seen and seen[key][1] != value:
            raise RooflineError(f"command line: {name}: expected once, found {seen[key][1]} and {value}")
        seen[key] = (name, value)


def _command_and_rest(group, argv: list[str]):
    """(the command `argv` runs, the words after its name), --profiles (the group's, hoisted to the front) left out."""
    command, rest = group, []
    words = iter(argv)
    for word in words:
        if word == "--profiles":
            next(words, None)
        elif not word.startswith("--profiles="):
            rest.append(word)
    while rest and hasattr(command, "commands"):
        names = [w for w in rest if not w.startswith("-")]
        if not names or names[0] not in command.commands:
            return command, rest
        rest = rest[rest.index(names[0]) + 1:]
        command = command.commands[names[0]]
    return command, rest


def refuse_undecodable_words(argv: list[str]) -> None:
    """One line for a word of the command line that the locale's encoding could not decode: Python keeps its bytes as
    lone surrogates (a UTF-8 path such as `--out résultats` under LC_ALL=C with PYTHONUTF8=0, where the encoding is
    ASCII), which Arrow, YAML and the terminal cannot encode again (qa394: a Parquet writer's traceback)."""
    for word in argv:
        try:
            word.encode("utf-8")
        except UnicodeEncodeError:
            shown = word.encode(sys.getfilesystemencoding(), "surrogateescape").decode("ascii", "backslashreplace")
            raise RooflineError(f"command line: '{shown}': expected text the locale's encoding "
                                f"({sys.getfilesystemencoding()}) can read, found bytes it cannot; run under a UTF-8 "
                                "locale (LC_ALL=C.UTF-8) or with PYTHONUTF8=1") from None


def refuse_unreadable_values(group, argv: list[str]) -> None:
    """One line for an empty path (`--out ""`, `fit ""`: Path('') is the working folder, which a file option then named
    '.', and `--dir ""` wrote into; qa246), as --profiles '' is refused: the command's path parameters are those its
    function annotates with Path, options by their names, arguments by their order. And for a number option's value
    written with an underscore or non-ASCII digits (`--batch 1_000`), which click would read."""
    import inspect
    import re

    command, rest = _command_and_rest(group, argv)
    callback = getattr(command, "callback", None)
    if callback is None:
        return
    annotations = {n: str(p.annotation) for n, p in inspect.signature(callback).parameters.items()}
    params = getattr(command, "params", ())
    is_path = {p.name: "Path" in annotations.get(p.name, "") for p in params}
    is_number = {p.name: re.search(r"\b(int|float)\b", annotations.get(p.name, "").partition("typer.")[0]) is not None
                 for p in params}  # the type before typer.Option(...): its help may say 'int'
    valued = {name: p for p in params if getattr(p, "param_type_name", "") == "option" and not getattr(p, "is_flag", False)
              for name in p.opts}
    flags = {name for p in params if getattr(p, "is_flag", False) for name in (*p.opts, *getattr(p, "secondary_opts", ()))}
    arguments = [p for p in params if getattr(p, "param_type_name", "") == "argument"]
    i, position, only_arguments = 0, 0, False
    while i < len(rest):
        word = rest[i]
        if word == "--" and not only_arguments:  # what follows is arguments alone, a '-' first or not
            only_arguments = True
            i += 1
            continue
        name, eq, value = word.partition("=")
        if not only_arguments and name in valued:
            value = value if eq else (rest[i + 1] if i + 1 < len(rest) else None)
            if value is not None and is_path[valued[name].name] and not value.strip():
                raise RooflineError(f"command line: {name}: expected a path, found an empty string{_dot_hint(valued[name])}")
            if value is not None and is_number[valued[name].name] and not (value.isascii() and "_" not in value):
                # Python's int() and float() read 1_000 and full-width digits, which no other field takes (qa288)
                raise RooflineError(f"command line: {name}: expected a number in plain ASCII digits, found {value!r}")
            i += 1 if eq else 2
            continue
        if not only_arguments and (word in flags or word.startswith("-")):
            i += 1
            continue
        if position < len(arguments):
            argument = arguments[position]
            if is_path[argument.name] and not word.strip():
                shown = argument.metavar or argument.name.upper()  # as --help names it (qa329: MEASUREMENTS for FILE)
                raise RooflineError(f"command line: {shown}: expected a path, found an empty string"
                                    f"{_dot_hint(argument)}")
            if getattr(argument, "nargs", 1) == 1:
                position += 1
        i += 1


DOT_TAKEN = ("dir_", "table")  # the path parameters '.' is a valid value of: a folder to write profiles to, a sweep's to read


def _dot_hint(param) -> str:
    """The hint for an empty path where '.' is a valid value (DOT_TAKEN): not for a file (qa288), nor for an output
    folder, which refuses the working folder (qa289: `sweep --out ''` was told to write '.', then refused it)."""
    return " (write '.' for the working folder)" if getattr(param, "name", "") in DOT_TAKEN else ""


def hoist_profiles(argv: list[str]) -> list[str]:
    """Move every `--profiles DIR` / `--profiles=DIR` to the front, so it works before or after the command; an empty
    DIR refused (it would read as the working folder)."""
    front: list[str] = []
    rest: list[str] = []
    i = 0
    while i < len(argv):
        arg = argv[i]
        if arg == "--":
            rest.extend(argv[i:])
            break
        if arg == "--profiles" and i + 1 < len(argv) or arg.startswith("--profiles="):
            value = argv[i + 1] if arg == "--profiles" else arg.split("=", 1)[1]
            if not value.strip():  # Path('') is '.': an unset "$DIR" searched the working folder in silence (qa114)
                raise RooflineError("--profiles: expected a folder, found an empty string (write '.' for the working folder)")
        if arg == "--profiles" and i + 1 < len(argv):
            front += argv[i:i + 2]
            i += 2
            continue
        if arg.startswith("--profiles="):
            front.append(arg)
        else:
            rest.append(arg)
        i += 1
    return front + rest


if __name__ == "__main__":  # `python cli.py ...` from a checkout: as the installed `roofline` runs (roofline.launch)
    from roofline.launch import run as launch

    launch(sys.modules[__name__])
