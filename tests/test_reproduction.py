"""The reproduction report: Scarton et al.'s reproducible cells must match;
the papers' internal inconsistencies are found from the published data."""

from __future__ import annotations

import pandas as pd
import pytest

from metaeval.config import dataset_specs
from metaeval.reproduce import MATCH, NOT_REPRODUCIBLE, Published, ResultStore, _status, reproduce
from metaeval.workflow import experiment_settings, ingest, run_weights, score

from .conftest import ROOT

PUBLISHED = ROOT / "config" / "published" / "tables.yaml"


@pytest.fixture(scope="module")
def rumoureval_results(tmp_path_factory, project_config, data_dir):
    """scores.csv, weights.csv and dataset.json of both RumourEval datasets,
    made by the pipeline's own steps."""
    out = tmp_path_factory.mktemp("results")
    specs = dataset_specs(project_config)
    for name in ("rumoureval2017", "rumoureval2019", "semeval2016t6"):
        d = out / name
        ingest(specs[name], data_dir, d / "data.npz", d / "dataset.json")
        score(specs[name], d / "data.npz", d / "scores.csv", d / "confusion.csv")
        if len(specs[name].weights) >= 2:
            run_weights(specs[name], experiment_settings(project_config, name), d / "data.npz", d / "weights.csv",
                        d / "weights_tau.csv", d / "tables" / "weights.md")
    return out


@pytest.mark.realdata
def test_scarton_tables_2_and_3_reproducible_cells_match(rumoureval_results):
    pub = Published.load(PUBLISHED)
    store = ResultStore(rumoureval_results, {"rumoureval2017", "rumoureval2019", "semeval2016t6"})
    cells, _, _ = reproduce(pub, store)
    for table, n_rows in (("scarton2020_table2", 3), ("scarton2020_table3", 4)):
        t = cells[cells.table == table]
        reproducible = t[t.status != NOT_REPRODUCIBLE]
        assert len(reproducible) == n_rows * 6, table  # baselines (+ BUT-FIT in 2019), six metrics each
        bad = reproducible[reproducible.status != MATCH]
        assert bad.empty, bad.to_string()
        # every other cell says why
        assert (t[t.status == NOT_REPRODUCIBLE]["reason"].str.len() > 0).all()
    buts = cells[(cells.table == "scarton2020_table3") & (cells.row == "BUT-FIT") & ~cells.column.str.endswith("_rank")]
    assert (buts.status == MATCH).all() and len(buts) == 6
    k = cells[(cells.table == "kaushal2021_table3") & cells.row.str.contains("Majority") & cells.row.str.startswith("RE")]
    assert (k.status == MATCH).all() and len(k) == 6


def test_match_is_equality_at_the_printed_precision():
    assert _status(0.742, 0.74166, 3)[0] == MATCH
    assert _status(0.742, 0.7425, 3)[0] == MATCH
    assert _status(0.742, 0.74251, 3)[0] != MATCH
    assert _status(0.5, 0.4994, 3)[0] != MATCH


def test_inconsistencies_of_the_papers_are_found():
    pub = Published.load(PUBLISHED)
    _, notes, _ = reproduce(pub, ResultStore(ROOT / "no-results", set()))
    text = "\n".join(notes)
    assert "printed average of MAE^M, 0.1721, is not the mean of its row" in text
    assert "the value 0.4965 (MAE^mu, Accuracy) cannot be a Kendall tau" in text
    assert "the text says the highest tau for agree+discuss is alpha^ORD" in text
    assert "consistency ranks agree with the order of the printed values of Table 3" in text
    # consistent averages are not flagged
    assert "average of kappa" not in text and "average of CEM^ORD" not in text


def test_published_tables_are_well_formed():
    pub = Published.load(PUBLISHED)
    for t in pub.spec["tables"]:
        df = pub.table(t)
        assert len(df) > 0, t["id"]
        assert pub.source(t), f"{t['file']} has no source header"
        if t["kind"] in ("scores",) and "columns" not in t:
            for col in df.columns:
                if col != t.get("dataset_column") and not col.endswith("_rank"):
                    pub.metric(t["paper"], col)  # every column maps to a metric id
    names = pd.read_csv(PUBLISHED.parent / "amemiya_sakai_table3.csv", comment="#")["metric"]
    assert sorted(names) == sorted(pub.spec["metrics"]["amemiya_sakai"])
