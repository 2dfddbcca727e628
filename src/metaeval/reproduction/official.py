"""A task's official figures beside the ones metaeval computes: each
official cell (a run's MAP, as the task's results table prints it)
compared with the dataset's own score to the digits printed.

The official table is a file of the data (``official_results`` of a
dataset: ``file``, its ``system_column``, the ``columns`` that are metrics
and the ``scale`` a column is printed at, e.g. MRR times 100), read as text
so that the printed digits decide the comparison: a cell matches when
``|reproduced * scale - official| <= 0.5 * 10**-decimals`` (decimals: the
cell's own).

"""

from __future__ import annotations

from typing import Any, Mapping

import numpy as np
import pandas as pd

__all__ = ["compare_official", "official_markdown", "STATUSES"]

STATUSES = ("match", "differs", "not scored")


def _decimals(text: str) -> int:
    t = text.strip()
    return len(t.split(".")[1]) if "." in t else 0


def compare_official(scores: pd.DataFrame, official: pd.DataFrame, spec: Mapping[str, Any]) -> pd.DataFrame:
    """One row per official cell: ``system, column, metric, official,
    reproduced (at the column's scale), decimals, difference, status``
    (``match``, ``differs``, or ``not scored``: a run the dataset does not
    hold); a cell the official table leaves empty has no row.

    Examples
    --------
    >>> import pandas as pd
    >>> scores = pd.DataFrame({"system": ["a", "b"], "map": [0.77331, 0.5], "mrr": [0.8391, 0.6]})
    >>> official = pd.DataFrame({"run": ["a", "b", "c"], "MAP": ["0.7733", "0.51", "0.2"], "MRR": ["83.91", "60", ""]})
    >>> spec = {"system_column": "run", "columns": {"MAP": "map", "MRR": "mrr"}, "scale": {"MRR": 100}}
    >>> t = compare_official(scores, official, spec)
    >>> t[["system", "column", "status"]].values.tolist()  # doctest: +NORMALIZE_WHITESPACE
    [['a', 'MAP', 'match'], ['a', 'MRR', 'match'], ['b', 'MAP', 'differs'], ['b', 'MRR', 'match'],
     ['c', 'MAP', 'not scored']]
    """
    by_system = scores.set_index("system")
    scale = {str(k): float(v) for k, v in (spec.get("scale") or {}).items()}
    rows = []
    for _, r in official.iterrows():
        system = str(r[spec["system_column"]])
        for col, metric in spec["columns"].items():
            text = str(r[col]).strip()
            if not text:  # a cell the table leaves empty (a run without labels has no accuracy)
                continue
            d = _decimals(text)
            value = float(text)
            got = by_system.at[system, metric] * scale.get(col, 1.0) if system in by_system.index else np.nan
            if np.isnan(got):
                status, diff = "not scored", np.nan
            else:
                diff = got - value
                status = "match" if abs(diff) <= 0.5 * 10.0 ** -d + 1e-12 else "differs"
            rows.append({"system": system, "column": col, "metric": metric, "official": text, "reproduced": got,
                         "decimals": d, "difference": diff, "status": status})
    return pd.DataFrame(rows, columns=["system", "column", "metric", "official", "reproduced", "decimals",
                                       "difference", "status"])


def official_markdown(table: pd.DataFrame, title: str, source: str = "") -> str:
    """The comparison as a page: a count per status, then one row per run
    with each column's official and reproduced value (✔ when they match to
    the printed digits).

    >>> t = pd.DataFrame({"system": ["a"], "column": ["MAP"], "metric": ["map"], "official": ["0.7733"],
    ...                   "reproduced": [0.77331], "decimals": [4], "difference": [1e-5], "status": ["match"]})
    >>> print(official_markdown(t, "runs").splitlines()[2])
    1 of 1 official figures reproduced to the printed digits.
    """
    from ..present.tables import markdown_table, md_escape

    counts = table["status"].value_counts()
    n = len(table)
    head = (f"# {md_escape(title)}\n\n" + (f"{md_escape(source)}\n\n" if source else "")
            + f"{int(counts.get('match', 0))} of {n} official figures reproduced to the printed digits"
            + (f"; {int(counts.get('differs', 0))} differ" if counts.get("differs", 0) else "")
            + (f"; {int(counts.get('not scored', 0))} of runs the dataset does not hold" if counts.get(
                "not scored", 0) else "") + ".\n\n")
    wide = []
    for system, g in table.groupby("system", sort=False):
        row = {"run": system}
        for _, c in g.iterrows():
            rep = "" if np.isnan(c["reproduced"]) else f"{c['reproduced']:.{int(c['decimals'])}f}"
            mark = {"match": "✔ ", "differs": "✘ ", "not scored": ""}[c["status"]]
            row[c["column"]] = f"{mark}{c['official']} / {rep}" if rep else f"{c['official']} / not scored"
        wide.append(row)
    cells = pd.DataFrame(wide).fillna("no official figure")  # (a run without labels has no accuracy)
    return head + "Each cell: official / reproduced.\n\n" + markdown_table(cells) + "\n"
