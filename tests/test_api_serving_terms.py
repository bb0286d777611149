"""roofline.predict's request terms (prompt, output_len) that the suite did not pin (api.py), found by mutation testing (qa475)."""

import pytest

import roofline

pytestmark = pytest.mark.slow  # each predicts: 50-500 ms a test


def test_a_request_counts_its_output_tokens_in_the_memory_it_needs_alone():
    """llama-3.1-8b on an L4 (20.8 GB usable under vllm): a request of 30,000 prompt and 10,000 output tokens holds
    40,000 tokens of KV at its end, 40,000 x 131,072 B = 5.24 GB beside 16.06 GB of bf16 weights, 21.3 GB: it does not
    fit even alone, though its 30,000-token prompt alone (19.99 GB) would."""
    p = roofline.predict("l4", "llama-3.1-8b", 1, prompt=30000, output_len=10000)
    assert 20.0e9 < p["usable_memory_bytes"] < 21.3e9
    said = [w for w in p["warnings"] if w.startswith("a request of 30,000 prompt and 10,000 output tokens does not fit")]
    assert len(said) == 1 and "need 21.3 GB per device of 20.8 GB usable" in said[0]


def test_a_prompt_past_an_explicit_context_with_an_output_length_is_said_once_as_the_requests_mean_context():
    """With output_len the request's mean context (prompt + output_len / 2 = 8,050) is what a context of 1,024 is told
    against (far_from_request); the plain 'prompt is longer than the context' line is for a prompt alone."""
    p = roofline.predict("h100-sxm", "llama-3.1-8b", 8, 1024, prompt=8000, output_len=100)
    assert any(w.startswith("serving time per output token at context 1,024: a request of 8,000 prompt and 100 output "
                            "tokens decodes at 8,050 on average") for w in p["warnings"])
    assert not any("is longer than the context" in w for w in p["warnings"])
    alone = roofline.predict("h100-sxm", "llama-3.1-8b", 8, 1024, prompt=8000)
    assert any(w.startswith("prompt 8,000 is longer than the context 1,024 the step is priced at") for w in alone["warnings"])


def test_an_engine_that_drops_its_prefix_cache_while_speculating_says_nothing_of_a_prefix_not_given():
    """sglang-early turns its prefix cache off under EAGLE (prefix_cached_speculating false): said where a shared
    prefix is given (test_api's qa354 test); with no shared prefix there is nothing it would have cached, so no note
    (it would speak of 'the shared prefix of 0 tokens')."""
    p = roofline.predict("h100-sxm", "llama-3.1-8b", 16, engine="sglang-early", method="eagle", k=3, alpha=0.7,
                         prompt=3000, output_len=300)
    assert not [w for w in p["warnings"] if "turns its prefix cache off" in w]


def test_a_trees_prefill_stall_meets_the_nodes_it_verifies_not_its_depth():
    """engine.arrival_stall_s: an arriving prefill joins a pass of B x q decoding tokens, q = k + 1 for a chain and a
    tree's nodes + 1 for a tree (its docstring). At depth 4, a tree of 4 nodes verifies what a chain of k = 4 does (5
    tokens a sequence), so their stalls are equal; trees of 10 and 30 nodes verify 11 and 31, so theirs grow."""
    point = dict(batch=32, method="eagle", k=4, prompt=2000, output_len=200)
    chain = roofline.predict("h100-sxm", "llama-3.1-8b", alpha=0.7, **point)["spec"]["prefill_stall_s"]
    trees = [roofline.predict("h100-sxm", "llama-3.1-8b", tree_nodes=n, tree_tau=3.0, **point)["spec"]["prefill_stall_s"]
             for n in (4, 10, 30)]
    assert trees[0] == pytest.approx(chain, rel=1e-12)
    assert trees[0] < trees[1] < trees[2]


def test_the_mean_context_note_names_the_keyword_to_a_library_caller_and_the_flag_to_the_command_line(request):
    roofline_cli = request.getfixturevalue("roofline")  # the CLI fixture, named like the module imported here
    api = [w for w in roofline.predict("h100-sxm", "llama-3.1-8b", 8, 1024, prompt=8000, output_len=100)["warnings"]
           if w.startswith("serving time per output token at context 1,024")]
    assert len(api) == 1 and api[0].endswith("(leave context out to price it at 8,050, a benchmark's mean context)")
    code, out, err = roofline_cli("predict", "--batch", 8, "--context", 1024, "--prompt", 8000, "--output-len", 100)
    assert code == 0 and "(leave --context out to price it at 8,050, a benchmark's mean context)" in out + err

