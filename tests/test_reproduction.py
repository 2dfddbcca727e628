"""The reproduction report: Scarton et al.'s reproducible cells must match;
the papers' internal inconsistencies are found from the published data."""

from __future__ import annotations

import pandas as pd
import pytest

from metaeval.data.config import dataset_specs
from metaeval.reproduction.reproduce import MATCH, NOT_REPRODUCIBLE, Published, ResultStore, _status, reproduce
from metaeval.workflow import experiment_settings, ingest, run_weights, score, write_chance

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
        write_chance(specs[name], d / "data.npz", d / "scores.csv", d / "chance.csv", d / "above_chance.csv",
                     d / "tables" / "chance.md")
        if len(specs[name].weights) >= 2:
            run_weights(specs[name], experiment_settings(project_config, name), d / "data.npz", d / "weights.csv",
                        d / "weights_tau.csv", d / "tables" / "weights.md")
    return out


@pytest.mark.realdata
def test_scarton_tables_2_and_3_reproducible_cells_match(rumoureval_results):
    pub = Published.load(PUBLISHED)
    store = ResultStore(rumoureval_results, {"rumoureval2017", "rumoureval2019", "semeval2016t6"})
    cells, notes, _ = reproduce(pub, store)
    assert any("BUT-FIT's printed wAUC is 0.689; with (1,0) we get 0.689, with (0,1) it would be 0.311 "
               "(confirming (1,0))" in n for n in notes)
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


@pytest.mark.realdata
def test_kaushal_random_rows_are_the_uniform_guessers_chance_levels(rumoureval_results):
    """Their "Random" rows are the metrics of the uniform guesser's expected
    confusion matrix (metaeval.measures.chance): 8 of the 9 cells match to the
    printed digits; RE17's F1_Wtd is printed 0.310 where the expected matrix
    gives 0.3109 (said, not hidden)."""
    pub = Published.load(PUBLISHED)
    store = ResultStore(rumoureval_results, {"rumoureval2017", "rumoureval2019", "semeval2016t6"})
    cells, _, _ = reproduce(pub, store)
    k = cells[(cells.table == "kaushal2021_table3") & cells.row.str.contains("Random")]
    assert len(k) == 9 and (k.status != NOT_REPRODUCIBLE).all()
    off = k[k.status != MATCH]
    assert len(off) == 1 and off.row.iloc[0].startswith("RE17") and off.column.iloc[0] == "F1_Wtd", off.to_string()
    assert float(off.reproduced.iloc[0]) == pytest.approx(0.31092, abs=1e-5)


def test_match_is_equality_at_the_printed_precision():
    assert _status(0.742, 0.74166, 3)[0] == MATCH
    assert _status(0.742, 0.7425, 3)[0] == MATCH
    assert _status(0.742, 0.74251, 3)[0] != MATCH
    assert _status(0.5, 0.4994, 3)[0] != MATCH


def test_inconsistencies_of_the_papers_are_found():
    pub = Published.load(PUBLISHED)
    every = {ds for t in pub.spec["tables"] for ds in pub.datasets(t)}  # every paper; no result is needed
    _, notes, _ = reproduce(pub, ResultStore(ROOT / "no-results", every))
    text = "\n".join(notes)
    assert "printed average of MAE^M, 0.1721, is not the mean of its row" in text
    assert "the value 0.4965 (MAE^mu, Accuracy) cannot be a Kendall tau" in text
    assert "the text says the highest tau for agree+discuss is alpha^ORD" in text
    assert "consistency ranks agree with the order of the printed values of Table 3" in text
    # consistent averages are not flagged
    assert "average of kappa" not in text and "average of CEM^ORD" not in text
    # ties at the extreme are named
    assert "the table's lowest value is 0.1428 (alpha^ORD and MAE^M, tied)" in text
    # Tables 4 and 5: the printed taus do not follow from the printed scores
    assert "the printed tau between the X and Y rankings, 0.8242, does not follow" in text
    assert "Kendall's tau-b of the X and Y columns is 0.8681" in text
    assert "the printed tau between the X and Y rankings, 0.4945" in text and "columns is 0.8462" in text
    assert "(0.8000, 0.4000, 1.0000 for ranks 1-5, 6-10, 11-14 on X)" in text and "1.0000, 0.8000, 1.0000" in text
    # the AUC polygon's vertex: said even without results
    assert "the vertex must be (1,0)" in text


def test_paper_table_2_clustering_against_the_stated_groups():
    from metaeval.methods.experiments import cluster_groups
    from metaeval.reproduction.reproduce import _rand_index, paper_similarity_matrix

    pub = Published.load(PUBLISHED)
    m = paper_similarity_matrix(pub)
    assert m.shape == (9, 9) and (m.to_numpy() == m.to_numpy().T).all() and m.loc["kappa", "F1"] == 0.6043
    groups, _ = cluster_groups(m, 3)
    stated = {x: g for g, ms in pub.spec["conclusions"]["groups"].items() for x in ms}
    assert round(_rand_index(stated, groups.to_dict())[0], 2) == 0.64


def test_the_report_reads_only_its_declared_inputs(tmp_path):
    from metaeval.reproduction.reproduce import required_results

    (tmp_path / "fnc1").mkdir()
    (tmp_path / "fnc1" / "scores.csv").write_text("system,kind,accuracy\na,system,0.5\n")
    store = ResultStore(tmp_path, {"fnc1"}, files={"fnc1/similarity.csv"})
    assert not store.has("fnc1", "scores.csv")
    with pytest.raises(KeyError, match="not among its declared inputs"):
        store.get("fnc1", "scores.csv")
    need = required_results(Published.load(PUBLISHED), {"fnc1", "fnc1_paper", "rumoureval2019"})
    assert {"similarity.csv", "stability.csv", "merging.csv"} <= set(need["fnc1"])
    assert "scores.csv" in need["rumoureval2019"]  # the AUC vertex check reads BUT-FIT's wAUC


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


def test_only_papers_whose_datasets_are_configured_are_reproduced(tmp_path):
    """A config of one's own: the papers none of whose datasets is configured
    are left out (their cells could only say "not configured"), and a
    published cell without a reproduced value is "not reproducible" with the
    reason, never "differs"."""
    pub = Published.load(PUBLISHED)
    cells, notes, _ = reproduce(pub, ResultStore(tmp_path, {"fnc1"}))
    assert set(cells["paper"]) == {"amemiya_sakai"} and not any("Scarton" in n for n in notes)
    assert NOT_REPRODUCIBLE in set(cells["status"]) and "differs" not in set(cells["status"])
    t4 = cells[(cells["table"] == "amemiya_sakai_table4") & (cells["view"] == "fnc1_paper")]
    assert len(t4) and t4["reproduced"].isna().all()
    # the two rows that do not depend on the split (the paper's invariant rows) said "differs" before
    assert t4["reason"].str.contains("dataset fnc1_paper is not configured").sum() == 2
    assert _status(0.5, None, 3)[0] == NOT_REPRODUCIBLE
    none, _, _ = reproduce(pub, ResultStore(tmp_path, {"my_own_dataset"}))
    assert none.empty
