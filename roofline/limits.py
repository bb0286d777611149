"""The bounds of every count a user gives (CLI options, scenario files, the API, measurement files), written once.

Imported by the CLI to build its option ranges, so it imports nothing: `roofline --help` stays fast.
"""

BATCH_MAX = 10**8        # sequences decoded together
CONTEXT_MAX = 10**9      # tokens in a sequence's KV cache, a prompt or a shared prefix
K_MAX = 64               # draft tokens per iteration
DEGREE_MAX = 4096        # a parallel degree (tp, dp_attention, ep, pp): beyond any scale-up domain built
GPUS_MAX = 65536         # devices of one deployment (a measurement's gpus)
DRAFT_VOCAB_MAX = 10**7  # rows of an EAGLE head's reduced vocabulary
TREE_NODES_MAX = 4096    # draft nodes of a speculation tree
USERS_MAX = 1_000_000_000  # users a fleet is sized for (cheapest --users, roofline.cheapest's users)
