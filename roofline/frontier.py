"""The cheapest way to serve a speed: a sweep's cost frontier (`roofline cheapest`).

Of a results table's rows that fit in memory and have a cost (every device they run on priced), a row is on the
frontier when no other row is at least as fast per user and cheaper:

    sorted by tokens_per_s_per_user, fastest first (the cheaper first among equals), a row is kept where its
    cost_usd_per_million_tokens is below the cost of every row before it

The frontier is taken twice, over plain decoding (k = 0 or method none) and over speculation (k > 0), so the two
can be read side by side; cheapest(df, speed) is, for each, the cheapest row at least `speed` tokens/s per user.
Costs are the tables' own: decoding only (no prefill), the profiles' prices a device-hour times the devices the row
runs on (a drafter's device included while it drafts). A speculative row's speed rests on its acceptance (alpha),
an input: a table of several alphas mixes assumptions, which frontier_notes says.
"""

from __future__ import annotations

import pandas as pd

from roofline.errors import RooflineError
from roofline.findings import OPTIMISTIC, OPTIMISTIC_BATCH, optimistic
from roofline.layout import describe_layout

SPEED = "tokens_per_s_per_user"
COST = "cost_usd_per_million_tokens"
REQUIRED = (SPEED, COST, "fits_in_memory", "method", "k", "hardware", "model", "engine", "batch", "context", "tp")
KINDS = ("plain", "speculation")


def _reachable(df: pd.DataFrame) -> pd.DataFrame:
    """Rows that fit in memory and have a cost, with a `decoding` column: plain or speculation."""
    fits = df["fits_in_memory"].astype(bool) & df[COST].notna() & df[SPEED].notna()
    out = df[fits].copy()
    plain = (out["method"] == "none") | (out["k"] == 0)
    out["decoding"] = plain.map({True: "plain", False: "speculation"})
    return out


def cost_frontier(df: pd.DataFrame) -> pd.DataFrame:
    """The frontier rows of each decoding kind (module docstring), fastest first, with `decoding` and `layout`."""
    parts = []
    for _, rows in _reachable(df).groupby("decoding", sort=False):
        rows = rows.sort_values([SPEED, COST], ascending=[False, True], kind="stable")
        before = rows[COST].cummin().shift(1, fill_value=float("inf"))
        parts.append(rows[rows[COST] < before])
    if not parts:
        return df.iloc[0:0].assign(decoding=pd.Series(dtype=str), layout=pd.Series(dtype=str))
    out = pd.concat(parts).sort_values(["decoding", SPEED], ascending=[True, False], kind="stable")
    return out.assign(layout=[_layout(row) for row in out.itertuples(index=False)])


def _layout(row) -> str:
    return describe_layout(row.tp, getattr(row, "dp_attention", 1), getattr(row, "ep", 1), getattr(row, "pp", 1))


def cheapest(df: pd.DataFrame, min_tokens_per_s_per_user: float) -> dict[str, pd.Series | None]:
    """{'plain': row, 'speculation': row}: the cheapest reachable row of each kind at least this fast per user (None
    where no row is)."""
    frontier = cost_frontier(df)
    out: dict[str, pd.Series | None] = {}
    for kind in KINDS:
        rows = frontier[(frontier["decoding"] == kind) & (frontier[SPEED] >= min_tokens_per_s_per_user)]
        out[kind] = rows.sort_values(COST, kind="stable").iloc[0] if len(rows) else None
    return out


def frontier_notes(df: pd.DataFrame) -> list[str]:
    """What a reader of the frontier must know about the table: rows left out, speculative rows in the range whose
    gains run optimistic (findings.OPTIMISTIC), and acceptance mixed across alphas."""
    notes = []
    unfit = int((~df["fits_in_memory"].astype(bool)).sum())
    unpriced = int((df["fits_in_memory"].astype(bool) & df[COST].isna()).sum())
    if unfit:
        notes.append(f"{unfit:,} of {len(df):,} rows do not fit in memory: left out")
    if unpriced:
        devices = sorted(df.loc[df[COST].isna(), "hardware"].astype(str).unique())
        notes.append(f"{unpriced:,} rows have no cost (no price in the profile of {', '.join(devices)}): left out; "
                     "give one with roofline hw new NAME --from DEVICE --set price='2.5 USD/h'")
    speculative = df[(df["method"] != "none") & (df["k"] > 0)]
    on_frontier = cost_frontier(df)
    on_frontier = on_frontier[on_frontier["decoding"] == "speculation"]
    large = [optimistic(b, e) for b, e in zip(on_frontier["batch"], on_frontier["engine"])]
    if any(large):
        notes.append(f"{sum(large)} speculative frontier {'row is' if sum(large) == 1 else 'rows are'} at batch {OPTIMISTIC_BATCH} or more under a serving "
                     f"engine: {OPTIMISTIC} (docs/ACCURACY.md), so {'its cost is a lower estimate' if sum(large) == 1 else 'their costs are lower estimates'}")
    if "alpha" in df and speculative["alpha"].nunique() > 1:
        alphas = ", ".join(f"{a:g}" for a in sorted(speculative["alpha"].dropna().unique()))
        notes.append(f"speculative rows at several acceptance rates (alpha {alphas}) share one frontier: "
                     "--where alpha=VALUE keeps one assumption")
    return notes


def check_table(df: pd.DataFrame, where: str) -> None:
    """One line naming the columns a results table lacks for a frontier."""
    missing = [c for c in REQUIRED if c not in df]
    if missing:
        raise RooflineError(f"{where}: expected a sweep results table with column(s) {', '.join(missing)}, found "
                            f"{', '.join(map(str, df.columns[:8]))}{' ...' if len(df.columns) > 8 else ''}")
