"""Generated bad input (hypothesis) over every loader and the CLI: no traceback, no hang, no memory blow-up.

Each generated input runs under a guard: a hard time limit (SIGALRM), a bound on the memory Python
and numpy allocate (tracemalloc peak), and a check of the outcome: it either works, or fails with
one RooflineError line (through the CLI: exit code 2 and one `error:` line). Anything else is a
finding, and hypothesis shrinks it to the smallest input that shows it.

Inputs: hardware, model and scenario profiles with one or more fields replaced by nasty values
(1e400, NaN, huge integers, deep lists, non-string keys, wrong units, unicode), raw YAML text
mutations (anchors, aliases, brackets, tabs, duplicated lines), structural bombs (nesting,
alias expansion, 10^12-point sweeps), Hugging Face configs, results tables for `roofline plot`
(empty, non-UTF-8, random bytes), and command lines with extreme option values and paths under files.

Fast (CI): `python -m pytest tests/test_fuzz.py -m "not slow" -s` (a few seconds; prints the count).
Large:     `ROOFLINE_FUZZ_EXAMPLES=400 python -m pytest tests/test_fuzz.py -m slow -s --hypothesis-seed=0`.
"""

import contextlib
import io
import json
import os
import signal
import sys
import tempfile
import tracemalloc
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import cli
from roofline.editing import validate_text
from roofline.errors import RooflineError
from roofline.hfimport import profile_from_hf_config
from roofline.units import parse_quantity
from roofline.yamlio import read_yaml_file

# Import what the commands import, once and outside the memory tracing (tracing makes imports slow).
for _module in ("roofline.engine", "roofline.speculation", "roofline.grid", "roofline.plots", "roofline.tables", "roofline.editing"):
    __import__(_module)

ROOT = Path(__file__).resolve().parent.parent
TIME_LIMIT_S = 20          # per input: far above any legitimate run, far below "hangs"
MEMORY_LIMIT_BYTES = 512 * 2**20
FAST = settings(max_examples=6, deadline=None, suppress_health_check=list(HealthCheck), database=None)
SLOW = settings(max_examples=int(os.environ.get("ROOFLINE_FUZZ_EXAMPLES", "40")), deadline=None,
                suppress_health_check=list(HealthCheck), database=None)

TALLY = {"inputs": 0, "ok": 0, "one_line_error": 0, "tracebacks": 0, "hangs": 0, "memory_blowups": 0}


class Hang(Exception):
    pass


def _alarm(signum, frame):
    raise Hang()


def guarded(action):
    """Run `action()`; count the outcome; fail on a traceback, a hang or a memory blow-up."""
    TALLY["inputs"] += 1
    previous = signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(TIME_LIMIT_S)
    tracemalloc.start()
    tracemalloc.reset_peak()
    try:
        action()
        TALLY["ok"] += 1
    except RooflineError as exc:
        assert "\n" not in str(exc), f"a multi-line error: {exc}"
        TALLY["one_line_error"] += 1
    except Hang:
        TALLY["hangs"] += 1
        raise AssertionError(f"no result within {TIME_LIMIT_S} s") from None
    except Exception:
        TALLY["tracebacks"] += 1
        raise
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    if peak > MEMORY_LIMIT_BYTES:
        TALLY["memory_blowups"] += 1
        raise AssertionError(f"allocated {peak / 2**20:.0f} MiB")


def run_cli(args: list[str], env: dict | None = None) -> None:
    """cli.main() in-process; a usage or input error must be exit code 2 with one `error:` line, never a traceback."""
    out, err = io.StringIO(), io.StringIO()
    saved = {k: os.environ.get(k) for k in (env or {})}
    os.environ.update(env or {})
    old_argv = sys.argv
    sys.argv = ["roofline", *args]
    code = 0
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            cli.main()
    except SystemExit as exc:
        code = exc.code or 0
    finally:
        sys.argv = old_argv
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    text = err.getvalue()
    assert "Traceback" not in text + out.getvalue()
    if code not in (0,):
        assert code == 2, (args, code, text[-500:])
        errors = [line for line in text.splitlines() if line.startswith("error:")]
        assert len(errors) == 1, (args, text[-500:])
        raise RooflineError(errors[0])


@pytest.fixture(scope="module", autouse=True)
def _report_tally():
    yield
    print(f"\nfuzz: {json.dumps(TALLY)}", file=sys.stderr)


@pytest.fixture(autouse=True)
def _isolated(monkeypatch, tmp_path_factory):
    monkeypatch.setenv("ROOFLINE_USER_DIR", str(tmp_path_factory.mktemp("user")))
    monkeypatch.delenv("ROOFLINE_PATH", raising=False)
    monkeypatch.setenv("ROOFLINE_MAX_POINTS", "20000")   # keeps accepted sweeps small; larger ones must be refused


# ---------------------------------------------------------------- strategies

UNITS = ["GB", "GiB", "TB/s", "GB/s", "TFLOPS", "TFLOP/s", "TOPS", "us", "µs", "ms", "Gb/s", "USD/h", "B", "", "FLOP", "parsec"]
numbers = st.one_of(
    st.integers(min_value=-(10**30), max_value=10**30), st.integers(min_value=10**300, max_value=10**400),
    st.floats(allow_nan=True, allow_infinity=True), st.sampled_from([0, -1, 1e400, 1e-400, 2**63, 1e308]),
)
quantities = st.builds(lambda n, u, sep: f"{n}{sep}{u}", st.one_of(numbers, st.just("1e400"), st.just("nan"), st.just(".5")),
                       st.sampled_from(UNITS), st.sampled_from([" ", "", "  "]))
scalars = st.one_of(st.none(), st.booleans(), numbers, quantities, st.text(max_size=30),
                    st.sampled_from(["BF16", "FP8", "bfloat16", "fp9", "gpu", "GPU", "h100", "H100", "null", "~", "yes", "2024-01-01"]))
nasty = st.recursive(
    scalars,
    lambda inner: st.one_of(st.lists(inner, max_size=4),
                            st.dictionaries(st.one_of(st.text(max_size=8), st.integers(), st.booleans()), inner, max_size=4)),
    max_leaves=12,
)


def _base(kind: str) -> dict:
    name = {"hardware": "h100-sxm", "model": "deepseek-v3", "scenario": "eagle-on-hopper"}[kind]
    folder = {"hardware": "hardware_profiles", "model": "model_profiles", "scenario": "scenarios"}[kind]
    return read_yaml_file(ROOT / folder / f"{name}.yaml")  # a fresh copy each call


BASES = {kind: _base(kind) for kind in ("hardware", "model", "scenario")}
# a second scenario to mutate: whole layouts side by side and a measured acceptance length (session 18's keys)
LAYOUTS_SCENARIO = {"name": "layouts", "hardware": "h200", "model": "deepseek-v3", "method": "mtp",
                    "layouts": [{"tp": 8}, {"dp_attention": 8, "ep": 8}], "acceptance_length": {"tau": 2.4, "k": 2},
                    "axes": {"batch": [8, 64], "context": [4096], "k": [1, 2]}}


def _paths(data, prefix=()):
    yield prefix
    if isinstance(data, dict):
        for key, value in data.items():
            yield from _paths(value, (*prefix, key))
    elif isinstance(data, list):  # an entry of a list of mappings (layouts[1].ep)
        for i, value in enumerate(data):
            if isinstance(value, dict):
                yield from _paths(value, (*prefix, i))


@st.composite
def mutated_profile(draw, kind):
    base = draw(st.sampled_from([BASES[kind], LAYOUTS_SCENARIO])) if kind == "scenario" else BASES[kind]
    data = json.loads(json.dumps(base))
    paths = [p for p in _paths(data) if p]
    for _ in range(draw(st.integers(min_value=1, max_value=3))):
        path = draw(st.sampled_from(paths))
        node = data
        for part in path[:-1]:
            node = (node.get(part) if isinstance(node, dict) else
                    node[part] if isinstance(node, list) and isinstance(part, int) and part < len(node) else None)
        if not isinstance(node, dict):
            continue
        action = draw(st.sampled_from(["replace", "delete", "rename", "add"]))
        key = path[-1]
        if action == "replace":
            node[key] = draw(nasty)
        elif action == "delete":
            node.pop(key, None)
        elif action == "rename" and key in node:
            node[draw(st.one_of(st.text(max_size=12), st.just(str(key) + "s"), st.integers()))] = node.pop(key)
        else:
            node[draw(st.one_of(st.text(max_size=12), st.integers(), st.booleans()))] = draw(nasty)
    return yaml.safe_dump(data, allow_unicode=True, sort_keys=False)


SNIPPETS = ["&a ", "*a", "*zz", "[", "]", "{", "}", ": ", "\t", "- ", "!!python/object:os.system ", "'", '"', "\n  x: 1", "<<: *a",
            "\x00", "\ufeff", "%YAML 1.1\n", "---\n", "...\n", "? ", "|\n", ">-\n", "1e400", ".nan", "0x1F", "0o17"]


@st.composite
def mutated_text(draw, kind):
    text = yaml.safe_dump(BASES[kind], sort_keys=False)
    lines = text.splitlines(keepends=True)
    for _ in range(draw(st.integers(min_value=1, max_value=4))):
        op = draw(st.sampled_from(["insert", "duplicate", "drop"]))
        i = draw(st.integers(min_value=0, max_value=len(lines) - 1))
        if op == "insert":
            pos = draw(st.integers(min_value=0, max_value=len(lines[i])))
            lines[i] = lines[i][:pos] + draw(st.sampled_from(SNIPPETS)) + lines[i][pos:]
        elif op == "duplicate":
            lines.insert(i, lines[i])
        elif len(lines) > 1:
            lines.pop(i)
    return "".join(lines)


@st.composite
def bombs(draw):
    kind = draw(st.sampled_from(["nest", "alias", "wide", "points"]))
    n = draw(st.integers(min_value=1, max_value=3000))
    if kind == "nest":
        return "x_deep: " + "[" * n + "]" * n + "\n"
    if kind == "alias":
        width = draw(st.integers(min_value=2, max_value=12))
        levels = draw(st.integers(min_value=1, max_value=12))
        lines = ["x_l0: &l0 [" + ", ".join(["x"] * width) + "]"]
        lines += [f"x_l{i}: &l{i} [" + ", ".join([f"*l{i - 1}"] * width) + "]" for i in range(1, levels)]
        return "\n".join(lines) + "\n"
    if kind == "wide":
        return "x_wide: [" + ", ".join(["1"] * n) + "]\n"
    exponent = draw(st.integers(min_value=3, max_value=13))
    return f"axes:\n  batch: {{start: 1, stop: 1000, num: {10 ** exponent}}}\n  k: {{start: 0, stop: 64, num: {10 ** (exponent // 2)}}}\n"


# ---------------------------------------------------------------- the fuzz tests

def _check_profile_text(kind: str, text: str) -> None:
    name = {"hardware": "h100-sxm", "model": "deepseek-v3", "scenario": "eagle-on-hopper"}[kind]
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / f"{name}.yaml"
        path.write_text(text, encoding="utf-8", errors="replace")
        guarded(lambda: validate_text(kind, path.read_text(encoding="utf-8"), path))
        sub = {"hardware": ["hw", "validate"], "model": ["models", "validate"], "scenario": ["hw", "validate"]}[kind]
        if kind != "scenario":
            guarded(lambda: run_cli([*sub, str(path)]))


def _profile_cases(settings_, name):
    @settings_
    @given(kind=st.sampled_from(["hardware", "model", "scenario"]), data=st.data())
    def case(kind, data):
        text = data.draw(st.one_of(mutated_profile(kind), mutated_text(kind)))
        _check_profile_text(kind, text)
    case.__name__ = name
    return case


test_generated_profiles_never_crash = _profile_cases(FAST, "test_generated_profiles_never_crash")
test_generated_profiles_never_crash_large = pytest.mark.slow(_profile_cases(SLOW, "test_generated_profiles_never_crash_large"))


def _bomb_case(settings_):
    @settings_
    @given(bomb=bombs(), kind=st.sampled_from(["hardware", "scenario"]))
    def case(bomb, kind):
        data = dict(BASES[kind])
        if bomb.startswith("axes:"):
            kind, data = "scenario", {k: v for k, v in BASES["scenario"].items() if k != "axes"}
        text = yaml.safe_dump(data, sort_keys=False) + bomb
        name = "h100-sxm" if kind == "hardware" else "eagle-on-hopper"
        guarded(lambda: validate_text(kind, text, Path(f"/nonexistent/{name}.yaml")))
    return case


test_structural_bombs_are_refused_quickly = _bomb_case(FAST)
test_structural_bombs_are_refused_quickly_large = pytest.mark.slow(_bomb_case(SLOW))


def _quantity_case(settings_):
    @settings_
    @given(text=st.one_of(quantities, st.text(max_size=80)), kind=st.sampled_from(["bytes", "bytes_per_s", "flops_per_s", "seconds", "usd_per_hour"]))
    def case(text, kind):
        def parse():
            try:
                value = parse_quantity(text, kind)
            except ValueError as exc:
                raise RooflineError(str(exc)) from None
            assert value > 0 and value != float("inf")
        guarded(parse)
    return case


test_quantities_parse_or_say_why = _quantity_case(settings(FAST, max_examples=40))


def _hf_case(settings_):
    keys = ["num_hidden_layers", "hidden_size", "num_attention_heads", "num_key_value_heads", "head_dim", "intermediate_size",
            "vocab_size", "num_experts", "num_experts_per_tok", "moe_intermediate_size", "kv_lora_rank", "sliding_window",
            "layer_types", "interleave_moe_layer_step", "first_k_dense_replace", "text_config", "tie_word_embeddings"]

    @settings_
    @given(changes=st.dictionaries(st.sampled_from(keys), nasty, max_size=4), drop=st.lists(st.sampled_from(keys), max_size=3))
    def case(changes, drop):
        config = json.loads((ROOT / "tests" / "data" / "hf" / "qwen3-30b-a3b.json").read_text())
        config.update(changes)
        for key in drop:
            config.pop(key, None)

        def build():
            from roofline.model import model_from_dict

            model_from_dict(profile_from_hf_config(config, "fuzz", "fuzz.json"), "fuzz")
        guarded(build)
    return case


test_generated_hf_configs_never_crash = _hf_case(settings(FAST, max_examples=20))
test_generated_hf_configs_never_crash_large = pytest.mark.slow(_hf_case(SLOW))

OPTION_VALUES = st.one_of(st.integers(min_value=-5, max_value=10**12).map(str), st.sampled_from(
    ["1000000000", "1000000", "0", "-1", "nan", "inf", "1e400", "", "BF16", "FP8", "fp9", "H100", "h20", "nosuch", "0.5", "1.5"]))


@st.composite
def command_lines(draw, tmp: str):
    blocker = f"{tmp}/a-file"
    choice = draw(st.sampled_from(["predict", "predict-file", "plot", "new", "import", "diff", "sweep", "show"]))
    if choice == "predict-file":
        kind = draw(st.sampled_from(["hardware", "model"]))
        Path(f"{tmp}/p.yaml").write_text(draw(mutated_profile(kind)), encoding="utf-8", errors="replace")
        option = "--hardware" if kind == "hardware" else "--model"
        extra = draw(st.sampled_from([[], ["--method", "eagle", "--alpha", "0.8"], ["--batch", "256", "--context", "131072"],
                                      ["--tp", "8", "--weight-dtype", "fp8"]]))
        return ["predict", option, f"{tmp}/p.yaml", "--json", *extra]
    if choice == "predict":
        args = ["predict"]
        for option in draw(st.lists(st.sampled_from(["--k", "--tp", "--batch", "--context", "--weight-dtype", "--kv-dtype", "--hardware",
                                                     "--model", "--alpha", "--prompt", "--method", "--tree-nodes"]), max_size=4, unique=True)):
            args += [option, draw(OPTION_VALUES)]
        return args
    if choice == "plot":
        content = draw(st.one_of(st.binary(max_size=200), st.just(b""), st.just(b"batch,caf\xe9\n1,2\n"),
                                 st.text(max_size=200).map(lambda t: t.encode("utf-8"))))
        Path(f"{tmp}/results.csv").write_bytes(content)
        return ["plot", f"{tmp}/results.csv", "--out", draw(st.sampled_from([f"{tmp}/plots", f"{blocker}/plots"]))]
    if choice == "new":
        return ["hw", "new", draw(st.sampled_from(["x", "../x", "", "h20"])), "--from", draw(OPTION_VALUES), "--dir",
                draw(st.sampled_from([f"{tmp}/p", f"{blocker}/p"])), "--set", draw(st.text(max_size=20))]
    if choice == "import":
        Path(f"{tmp}/config.json").write_bytes(draw(st.binary(max_size=100)))
        return ["models", "import", f"{tmp}/config.json", "--name", "z", "--dir", draw(st.sampled_from([f"{tmp}/m", f"{blocker}/m"]))]
    if choice == "diff":
        return ["hw", "diff", draw(OPTION_VALUES), draw(OPTION_VALUES)]
    if choice == "show":
        return [draw(st.sampled_from(["hw", "models"])), "show", draw(OPTION_VALUES), "--profiles", draw(st.sampled_from([tmp, blocker]))]
    scenario = draw(mutated_profile("scenario"))
    Path(f"{tmp}/s.yaml").write_text(scenario, encoding="utf-8")
    return ["sweep", f"{tmp}/s.yaml", "--no-plots", "--out", draw(st.sampled_from([f"{tmp}/out", f"{blocker}/out"]))]


def _cli_case(settings_):
    @settings_
    @given(data=st.data())
    def case(data):
        with tempfile.TemporaryDirectory() as tmp:
            Path(f"{tmp}/a-file").write_text("a regular file\n")
            args = data.draw(command_lines(tmp))
            guarded(lambda: run_cli(args))
    return case


test_generated_command_lines_never_crash = _cli_case(settings(FAST, max_examples=4))
test_generated_command_lines_never_crash_large = pytest.mark.slow(_cli_case(SLOW))
