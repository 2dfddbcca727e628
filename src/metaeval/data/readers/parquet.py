"""Parquet label files, with pandas' Parquet engine (``pip install
'metaeval[parquet]'``); every fault with its row (1-based)."""

from __future__ import annotations

from .labels import LabelTable, _records_table, empty_table

__all__ = ["read_parquet"]


def read_parquet(path: str, *, id_column: str = "item_id", label_column: str = "label",
                 group_column: str | None = None) -> LabelTable:
    """A Parquet label file: a missing column, an empty id or label, a
    duplicated id: every fault, with its row."""
    table, fault = empty_table(path, group_column)

    try:
        import pandas as pd  # (here, not at the top: importing pandas takes about 1 s on a 2-core machine, which --help would pay)

        df = pd.read_parquet(path)
    except ImportError:
        fault(None, "reading Parquet needs pyarrow: pip install 'metaeval[parquet]'", "file")
        return table
    except FileNotFoundError:
        fault(None, "file not found", "file")
        return table
    except Exception as e:  # a damaged or foreign file: pyarrow's own words
        fault(None, f"cannot read as Parquet ({type(e).__name__}: {e})", "file")
        return table
    missing = [c for c in [id_column, label_column] + ([group_column] if group_column else []) if c not in df]
    if missing:
        fault(None, f"missing column(s) {', '.join(map(repr, missing))}; found {', '.join(map(repr, df.columns))}",
              "header")
        return table
    cols = [id_column, label_column] + ([group_column] if group_column else [])
    records = ((row, dict(zip(cols, values))) for row, values in enumerate(df[cols].itertuples(index=False), 1))
    return _records_table(path, records, id_column, label_column, group_column, table)
