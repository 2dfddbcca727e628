"""The published tables of the papers and their mapping (``config/published/tables.yaml``): which tables
there are, on which datasets, and which result files the reproduction report reads.  Apart from
``reproduce`` so that the workflow, which asks at every start which files the report reads, imports no
pandas for it."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Mapping

__all__ = ["Published", "required_results"]


@dataclass
class Published:
    """The published tables and their mapping (``tables.yaml``)."""

    spec: dict
    folder: Path

    @classmethod
    def load(cls, path: str | Path) -> "Published":
        from ..data.config import yaml_load

        path = Path(path)
        return cls(yaml_load(path.read_text(encoding="utf-8")), path.parent)

    def table(self, t: Mapping):
        """A published table (a pandas DataFrame indexed by its first column, or ``t["index"]``)."""
        import pandas as pd  # (reading the spec, as the workflow does at every start, needs no pandas)

        df = pd.read_csv(self.folder / t["file"], comment="#", dtype=str, keep_default_na=False)
        return df.set_index(t.get("index", df.columns[0]))

    def source(self, t: Mapping) -> str:
        """The header comment of a table file (its source)."""
        lines = []
        for line in (self.folder / t["file"]).read_text(encoding="utf-8").splitlines():
            if not line.startswith("#"):
                break
            lines.append(line.lstrip("# ").rstrip())
        return " ".join(lines)

    def metric(self, paper: str, name: str) -> str:
        return self.spec["metrics"][paper][name]

    def system(self, paper: str, name: str, table: Mapping) -> str | None:
        over = table.get("systems") or {}
        if name in over:
            return over[name]
        return (self.spec["systems"].get(paper) or {}).get(name)

    def reason(self, key: str) -> str:
        return self.spec["reasons"].get(key, key)

    def for_datasets(self, available: set[str] | None) -> "Published":
        """The papers of which at least one table is computed on a dataset of
        ``available`` (None: every paper): their tables, claims, conclusions
        and notes; a paper none of whose datasets is configured is left out
        (its cells could only say "dataset not configured")."""
        if available is None:
            return self
        papers = {t["paper"] for t in self.spec["tables"] if set(self.datasets(t)) & set(available)}
        spec = {**self.spec, "tables": [t for t in self.spec["tables"] if t["paper"] in papers]}
        for key in ("claims", "conclusions"):
            if key in spec and spec[key].get("paper") not in papers:
                del spec[key]
        tables = {t["id"] for t in spec["tables"]}
        if "auc_vertex" in spec and spec["auc_vertex"]["table"] not in tables:
            del spec["auc_vertex"]
        return Published(spec, self.folder)

    def papers(self) -> list[str]:
        """The papers of the tables, in order."""
        return list(dict.fromkeys(t["paper"] for t in self.spec["tables"]))

    def datasets(self, table: Mapping) -> list[str]:
        if "views" in table:
            return list(table["views"])
        if "datasets" in table:
            return list(table["datasets"].values())
        if table.get("kind") == "class_counts":
            return list(table["columns"].values())
        return [table["dataset"]]


# result files each kind of published table is compared with
_RESULT_FILES = {
    "scores": ["scores.csv", "weights.csv", "chance.csv"], "class_counts": ["dataset.json"],
    "similarity": ["similarity.csv"], "stability": ["stability.csv"], "split_scores": ["scores.csv"],
    "merging": ["merging.csv"], "merging_balanced": ["merging_balanced.csv"],
    "summary": ["similarity.csv", "stability.csv", "merging.csv"],
}
# what the conclusions of Amemiya & Sakai 5.4 are judged on, per view
_CONCLUSION_FILES = ["similarity.csv", "stability.csv", "merging.csv"]


def required_results(published: Published, available: set[str]) -> dict[str, list[str]]:
    """Result files (relative to the results folder) the report reads, per
    dataset, for the datasets that are configured.  The report reads nothing
    else (``ResultStore`` refuses it), so a workflow that declares these as
    inputs runs the report after every file it needs."""
    need: dict[str, set[str]] = {}

    def add(ds, files):
        if ds in available:
            need.setdefault(ds, set()).update(files)

    for t in published.spec["tables"]:
        for ds in published.datasets(t):
            add(ds, _RESULT_FILES[t["kind"]])
    if published.spec.get("conclusions"):
        for view in published.spec["conclusions"]["views"]:
            add(view, _CONCLUSION_FILES)
    if published.spec.get("auc_vertex"):
        add(published.spec["auc_vertex"]["dataset"], ["scores.csv"])
    return {ds: sorted(files) for ds, files in need.items()}
