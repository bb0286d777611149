"""Harness tests. Modules that import torch at their top are marked slow as a whole; when slow tests are
deselected (`pytest -m "not slow"`, the quick loop) they are not even imported, so the quick loop never
pays for importing torch."""

import ast

TORCH_AT_IMPORT = ("test_decoder.py", "test_specloop.py")


def deselects_slow(markexpr: str) -> bool:
    """True when a test marked only `slow` fails the -m expression ('not slow': True; 'slow', '': False).

    The expression (and, or, not, parentheses, marker names) is evaluated with `slow` true and every
    other marker false; anything else is left to pytest (False: collect as usual).
    """
    if not markexpr.strip():
        return False
    try:
        tree = ast.parse(markexpr, mode="eval")
    except SyntaxError:
        return False

    def value(node) -> bool:
        if isinstance(node, ast.Name):
            return node.id == "slow"
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            return not value(node.operand)
        if isinstance(node, ast.BoolOp):
            parts = [value(v) for v in node.values]
            return all(parts) if isinstance(node.op, ast.And) else any(parts)
        raise ValueError(ast.dump(node))

    try:
        return not value(tree.body)
    except ValueError:
        return False


def pytest_ignore_collect(collection_path, config):
    if collection_path.name in TORCH_AT_IMPORT and deselects_slow(config.getoption("markexpr") or ""):
        return True
    return None
