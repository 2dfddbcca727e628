"""The contract of the metrics users bring (metaeval.measures.custom), in
process and word for word: what registering gives (every field and its
default), each refusal's whole message, the probe matrices, the contract
check's clauses at their edges, metrics of per-item terms, and the
declarations that load a user's file or module (the config's
``custom_metrics`` and the command line's ``--metric-module``)."""

from __future__ import annotations

import sys

import numpy as np
import pytest

from metaeval.measures import labels as M
from metaeval.measures import custom as CM
from metaeval.measures.custom import MetricContractError


def _acc(c):
    return np.trace(c, axis1=-2, axis2=-1) / c.sum((-2, -1))


def _message(call, error=MetricContractError) -> str:
    with pytest.raises(error) as e:
        call()
    return e.value.args[0]


@pytest.fixture(autouse=True)
def _clean():
    """Every custom metric a test registers is gone after it."""
    before, items = set(M.REGISTRY), set(M.ITEM_REGISTRY)
    yield
    for m in set(M.REGISTRY) - before:
        del M.REGISTRY[m]
    for m in set(M.ITEM_REGISTRY) - items:
        del M.ITEM_REGISTRY[m]


# -- registering ------------------------------------------------------------------------------------------------
def test_a_registered_metric_has_every_field_its_declaration_gives_and_the_defaults():
    m = CM.register_metric("acc_x", _acc)
    assert (m.id, m.name, m.latex, m.higher_is_better, m.reference, m.bounds) == (
        "acc_x", "acc_x", "acc_x", True, "", (-np.inf, np.inf))
    assert (m.ordinal, m.params, m.uses_positions, m.default) == (False, (), False, False)
    assert m.source == "_acc" and M.REGISTRY["acc_x"] is m and CM.is_custom("acc_x")
    m = CM.register_metric("acc_y", _acc, higher_is_better=0, name="Acc Y", range=(None, 1), source="f.py:acc",
                           reference="Me (2026)", needs=["positions", "weights", "positive_class"])
    assert (m.name, m.latex, m.higher_is_better, m.bounds, m.source, m.reference) == (
        "Acc Y", "Acc Y", False, (-np.inf, 1.0), "f.py:acc", "Me (2026)")
    assert (m.ordinal, m.params, m.uses_positions) == (True, ("weights", "positive"), True)
    m = CM.register_metric("acc_z", _acc, latex=r"$A_z$", name="Az", needs=["ordinal", "f_avg_classes",
                                                                          "unrelated_label"], range=[0, None])
    assert (m.name, m.latex, m.ordinal, m.uses_positions, m.params, m.bounds) == (
        "Az", r"$A_z$", True, False, ("f_avg_classes", "unrelated"), (0.0, np.inf))
    assert CM.register_metric("acc_l", lambda c: _acc(c)).source == \
        "test_a_registered_metric_has_every_field_its_declaration_gives_and_the_defaults.<locals>.<lambda>"
    assert not CM.is_custom("accuracy") and not CM.is_custom("nothing")
    CM.unregister_metric("accuracy")  # a built-in metric stays
    assert "accuracy" in M.REGISTRY
    CM.unregister_metric("acc_x")
    assert "acc_x" not in M.REGISTRY


def test_each_refusal_of_a_registration_reads_whole():
    CM.register_item_metric("item_x", lambda g, p, i: np.ones(p.shape + (1,)), lambda t: t[..., 0])
    cases = [
        (lambda: CM.register_metric("1x", _acc),
         "custom metric '1x': an id is a name of letters, digits and _, starting with a letter"),
        (lambda: CM.register_metric("_x", _acc),
         "custom metric '_x': an id is a name of letters, digits and _, starting with a letter"),
        (lambda: CM.register_metric("a-b", _acc),
         "custom metric 'a-b': an id is a name of letters, digits and _, starting with a letter"),
        (lambda: CM.register_metric(3, _acc),
         "custom metric 3: an id is a name of letters, digits and _, starting with a letter"),
        (lambda: CM.register_metric("accuracy", _acc),
         "custom metric 'accuracy': a built-in metric has this id; choose another"),
        (lambda: CM.register_metric("balanced_accuracy", _acc),
         "custom metric 'balanced_accuracy': a built-in metric has this id; choose another"),
        (lambda: CM.register_metric("span_f1", _acc),
         "custom metric 'span_f1': a built-in metric has this id; choose another"),
        (lambda: CM.register_metric("default", _acc),
         "custom metric 'default': in a list of metrics this id stands for the default candidates; choose another"),
        (lambda: CM.register_metric("item_x", _acc), "custom metric 'item_x': a metric of per-item terms has this id"),
        (lambda: CM.register_metric("m", 3), "custom metric 'm': the function is not callable (3)"),
        (lambda: CM.register_metric("m", _acc, needs=["weight", "ordinal"]),
         "custom metric 'm': unknown need(s) ['weight'] (did you mean 'weights'?); known: ordinal, positions, "
         "weights, positive_class, f_avg_classes, unrelated_label"),
        (lambda: CM.register_metric("m", _acc, range="x"),
         "custom metric 'm': range is [low, high] (null for an open end), got 'x'"),
        (lambda: CM.register_metric("m", _acc, range=("a", 1)),
         "custom metric 'm': range is [low, high] (null for an open end), got ('a', 1)"),
        (lambda: CM.register_metric("m", _acc, range=(1, 1)), "custom metric 'm': range [1, 1] is empty"),
        (lambda: CM.register_metric("m", _acc, range=(None, -np.inf)), "custom metric 'm': range [-inf, -inf] is empty"),
        (lambda: CM.register_item_metric("accuracy", _acc, _acc),
         "custom metric 'accuracy': a built-in metric has this id; choose another"),
        (lambda: CM.register_item_metric("m", None, _acc), "custom metric 'm': terms is not callable (None)"),
        (lambda: CM.register_item_metric("m", _acc, "f"), "custom metric 'm': combine is not callable ('f')"),
        (lambda: CM.register_item_metric("m", _acc, _acc, range=(2, 1)), "custom metric 'm': range [2, 1] is empty"),
    ]
    for call, message in cases:
        assert _message(call) == message
    CM.register_metric("conf_x", _acc)
    assert _message(lambda: CM.register_item_metric("conf_x", _acc, _acc)) == \
        "custom metric 'conf_x': a metric of confusion matrices has this id"
    assert "m" not in M.REGISTRY and "m" not in M.ITEM_REGISTRY
    assert CM.register_metric("m", _acc, range=(None, None)).bounds == (-np.inf, np.inf)


def test_a_metric_checked_on_registration_is_refused_with_the_probe_s_size():
    assert _message(lambda: CM.register_metric("m", lambda c: c.sum(-1), k=3, source="f.py:g")) == (
        "custom metric 'm' (f.py:g): expected one score per matrix, shape (6,) for confusion tensors of shape "
        "(6, 3, 3); found shape (6, 3) on the probe matrices of 3 classes")
    assert "m" not in M.REGISTRY
    # the probe's parameters reach a metric that needs them
    m = CM.register_metric("m", lambda c, weights, positive: _acc(c) * weights[positive] * 4, k=4,
                           needs=["weights", "positive_class"], range=(0, 1))
    assert M.REGISTRY["m"] is m


def test_the_probe_matrices_and_parameters():
    for k in (2, 3, 5):
        p = CM._probe(k)
        assert p.shape == (6, k, k) and p.dtype == np.float64
        np.testing.assert_array_equal(p, CM._probe(k))  # the same every time
        np.testing.assert_array_equal(p[0], np.eye(k) * 10)
        np.testing.assert_array_equal(p[1], np.eye(k) * 20 + 1)
        assert ((p[2] >= 1) & (p[2] <= 8)).all()
        off = ~np.eye(k, dtype=bool)
        assert ((p[3][off] >= 1) & (p[3][off] <= 8)).all() and (np.diagonal(p[3]) >= 31).all()
        assert (p[4][-1] == 0).all() and (p[4][:, -1] == 0).all() and (p[4][:-1, :-1] >= 1).all()
        assert ((p[5][0] >= 1) & (p[5][0] <= 8)).all() and (p[5][1:] == 0).all()
    want = {"weights": [0.25] * 4, "f_avg_classes": [0, 3], "unrelated": 3, "positive": 3}
    got = CM._probe_params(4)
    assert set(got) == set(want) and all(np.asarray(got[k]).tolist() == v for k, v in want.items())


# -- the contract -----------------------------------------------------------------------------------------------
def _metric(fn, bounds=(0.0, 1.0), source="f.py:m", params=()):
    return M.Metric("m", "m", "m", fn, True, bounds=bounds, source=source, params=params)


def test_each_clause_of_the_contract_reads_whole():
    c = CM._probe(3)
    head = "custom metric 'm' (f.py:m)"
    on = " on my data"

    def boom(x):
        raise ValueError("  boom \n")

    cases = [
        (boom, f"{head} raised ValueError: boom{on}, called on confusion tensors of shape (6, 3, 3)"),
        (lambda x: x.sum(-1), f"{head}: expected one score per matrix, shape (6,) for confusion tensors of shape "
                              f"(6, 3, 3); found shape (6, 3){on}"),
        (lambda x: np.full(x.shape[:-2], "a"), f"{head}: expected numbers, found <U1{on}"),
        (lambda x: np.where(x[..., 0, 0] == 21, np.nan, 0.5),  # NaN on matrix 1, where every class is present
         f"{head}: expected a number where every class is in the gold and the predictions; found NaN{on} "
         f"(matrix 1, predicted x gold: [[21, 1, 1], [1, 21, 1], [1, 1, 21]])"),
        (lambda x: np.where(x[..., 0, 0] == 10, 1.5, 0.5),
         f"{head}: expected values in its range [0, 1]; found 1.5{on} "
         f"(matrix 0, predicted x gold: [[10, 0, 0], [0, 10, 0], [0, 0, 10]])"),
        (lambda x: np.where(x[..., 0, 0] == 21, -np.inf, 0.5),
         f"{head}: expected finite values; found -inf{on} (matrix 1, predicted x gold: "
         f"[[21, 1, 1], [1, 21, 1], [1, 1, 21]])"),
        (lambda x: _acc(x) * (1 if x.ndim == 2 else 0.5),
         f"{head}: expected the same scores for a stack of matrices as for each matrix alone (a function of the "
         f"last two axes, vectorised over the others); found otherwise{on}"),
        (lambda x: _acc(x) * (0.5 if x.ndim == 4 else 1),
         f"{head}: expected the same scores for a stack of matrices as for each matrix alone (a function of the "
         f"last two axes, vectorised over the others); found otherwise{on}"),
        (lambda x: _acc(x).reshape(-1) if x.ndim == 4 else _acc(x),
         f"{head}: expected the same scores for a stack of matrices as for each matrix alone (a function of the "
         f"last two axes, vectorised over the others); found otherwise{on}"),
    ]
    for fn, message in cases:
        assert _message(lambda: CM.check(_metric(fn), c, where="my data")) == message
    # without a place, no " on ..."
    assert _message(lambda: CM.check(_metric(lambda x: x.sum(-1)), c)).endswith("found shape (6, 3)")


def test_what_the_contract_lets_through():
    c = CM._probe(3)
    # NaN where a class is missing from the gold and the predictions (matrix 4) or from one side (matrix 5)
    CM.check(_metric(lambda x: np.where(x[..., 2, 2] == 0, np.nan, 0.5)), c)
    # integers and booleans are numbers; the range's edges within 1e-9
    CM.check(_metric(lambda x: np.ones(x.shape[:-2], dtype=np.int64)), c)
    CM.check(_metric(lambda x: np.ones(x.shape[:-2], dtype=bool)), c)
    CM.check(_metric(lambda x: np.full(x.shape[:-2], 1 + 5e-10)), c)
    CM.check(_metric(lambda x: np.full(x.shape[:-2], -5e-10)), c)
    assert "found 1.00000002" in _message(lambda: CM.check(_metric(lambda x: np.full(x.shape[:-2], 1 + 2e-8)), c))
    assert "found -2e-08" in _message(lambda: CM.check(_metric(lambda x: np.full(x.shape[:-2], -2e-8)), c))
    # a batch differing below the tolerance (rtol 1e-9) is the same
    CM.check(_metric(lambda x: _acc(x) * (1 + 1e-12 * (x.ndim == 4))), c)
    # the parameters reach the function
    CM.check(_metric(lambda x, weights: _acc(x) * weights.sum(), params=("weights",)), c,
             {"weights": np.full(3, 1 / 3)})
    # a source-less metric is named by its function
    m = M.Metric("m", "m", "m", lambda x: x.sum(-1), True)
    assert "custom metric 'm' (test_what_the_contract_lets_through.<locals>.<lambda>)" in _message(
        lambda: CM.check(m, c))


def test_the_dataset_checks_hold_only_the_custom_metrics_with_the_dataset_s_parameters():
    CM.register_metric("w_m", lambda c, weights: _acc(c) * weights[0], needs=["weights"], range=(0, 1))
    params = {"weights": np.array([3.0, 0.0, 0.0]), "positive": None}
    msg = _message(lambda: CM.check_shape(["accuracy", "w_m"], 3, params, where="dataset 'd'"))
    assert msg.startswith("custom metric 'w_m' (") and msg.endswith(
        "on the probe matrices of dataset 'd' (3 classes) (matrix 0, predicted x gold: [[10, 0, 0], [0, 10, 0], "
        "[0, 0, 10]])")
    CM.check_shape(["accuracy", "w_m"], 3, {"weights": np.array([1.0, 0.0, 0.0]), "positive": None}, where="d")
    c = np.stack([np.eye(3) * 5, np.ones((3, 3))])
    msg = _message(lambda: CM.check_registered(["accuracy", "w_m"], c, params, where="the systems of 'd'"))
    assert "found 3 on the systems of 'd' (matrix 0" in msg
    CM.check_registered(["accuracy", "w_m"], c, {"weights": np.ones(3) / 3}, where="d")
    CM.check_registered(["accuracy"], c, params, where="d")  # a built-in metric is not held to it here
    assert CM.defined_on("accuracy", 1) is True


# -- metrics of per-item terms ----------------------------------------------------------------------------------
def _terms(gold, pred, items):
    right = (pred == gold[None, :]).astype(float)
    return np.stack([right, np.ones_like(right)], axis=-1)


def _ratio(t):
    return t[..., 0] / t[..., 1]


def test_a_metric_of_per_item_terms_has_its_fields_and_computes_in_float64():
    m = CM.register_item_metric("it", _terms, _ratio, range=(0, 1))
    assert (m.name, m.latex, m.higher_is_better, m.bounds, m.reference, m.direction) == (
        "it", "it", True, (0.0, 1.0), "", "higher")
    assert m.source == "_terms, _ratio" and M.ITEM_REGISTRY["it"] is m
    m2 = CM.register_item_metric("it2", _terms, _ratio, higher_is_better=False, name="It", reference="r",
                                 source="x.py")
    assert (m2.name, m2.latex, m2.direction, m2.source, m2.reference) == ("It", "It", "lower", "x.py", "r")
    assert CM.register_item_metric("it3", _terms, _ratio, name="It", latex="$I$").latex == "$I$"
    seen = {}

    def terms(gold, pred, items):
        seen.update(gold=gold.dtype, pred=pred.shape, items=items.dtype.kind)
        return _terms(gold, pred, items).astype(np.float32)

    m3 = CM.register_item_metric("it4", terms, lambda t: (t[..., 0] > 0).astype(int))
    t = m3.statistics([0, 1, 1], [0, 1, 0], [1, 2, 3])
    assert t.dtype == np.float64 and t.shape == (1, 3, 2)
    assert seen == {"gold": np.int64, "pred": (1, 3), "items": "U"}
    out = m3(t.sum(axis=1))
    assert out.dtype == np.float64 and out.tolist() == [1.0]
    CM.unregister_item_metric("it4")
    CM.unregister_item_metric("it4")  # twice: nothing to remove
    assert "it4" not in M.ITEM_REGISTRY


def test_each_clause_of_the_per_item_contract_reads_whole():
    gold, pred, items = np.array([0, 1, 1]), np.array([[0, 1, 0], [1, 1, 1]]), ["a", "b", "c"]
    head = "custom metric 'it' (src)"

    def make(terms=_terms, combine=_ratio, bounds=(0.0, 1.0)):
        return CM.ItemMetric("it", "it", "it", terms, combine, True, bounds=bounds, source="src")

    def boom(*a):
        raise KeyError("k")

    cases = [
        (make(terms=boom), f"{head}: terms raised KeyError: 'k' on d"),
        (make(combine=boom), f"{head}: combine raised KeyError: 'k' on d"),
        (make(terms=lambda g, p, i: _terms(g, p, i)[0]),
         f"{head}: expected terms of shape (systems, items, F) = (2, 3, F); found shape (3, 2) on d"),
        (make(terms=lambda g, p, i: _terms(g, p, i)[:, :2]),
         f"{head}: expected terms of shape (systems, items, F) = (2, 3, F); found shape (2, 2, 2) on d"),
        (make(terms=lambda g, p, i: np.zeros((2, 3, 0))),
         f"{head}: expected terms of shape (systems, items, F) = (2, 3, F); found shape (2, 3, 0) on d"),
        (make(terms=lambda g, p, i: _terms(g, p, i) / (g[None, :, None] - 1)),
         f"{head}: expected finite terms; found inf on d"),
        (make(combine=lambda t: t), f"{head}: expected one score per system, shape (2,), from sums of shape (2, 2); "
                                    f"found shape (2, 2) on d"),
        (make(combine=lambda t: _ratio(t) * 2),
         f"{head}: expected finite values in its range [0, 1]; found 1.3333333333333333 on d (system 0)"),
        (make(combine=lambda t: _ratio(t) / 0),
         f"{head}: expected finite values in its range [0, 1]; found inf on d (system 0)"),
        (make(combine=lambda t: _ratio(t) * (1 if t.ndim == 2 else 0.5)),
         f"{head}: expected combine to give the same scores for a stack of sums as for each alone (a function "
         f"of the last axis); found otherwise on d"),
        (make(combine=lambda t: _ratio(t).reshape(-1)),
         f"{head}: expected combine to give the same scores for a stack of sums as for each alone (a function "
         f"of the last axis); found otherwise on d"),
    ]
    for m, message in cases:
        assert _message(lambda: CM._check_item_metric(m, gold, pred, items, "d")) == message
    assert CM._check_item_metric(make(), gold, pred, items, "d") == 2
    assert CM._check_item_metric(make(bounds=(0.0, 1.0 - 5e-10)), gold, pred, items, "") == 2
    assert _message(lambda: CM._check_item_metric(make(terms=boom), gold, pred, items, "")) == \
        f"{head}: terms raised KeyError: 'k'"


# -- declarations: files and modules ------------------------------------------------------------------------------
MODULE = '''\
import numpy as np


def acc(c):
    return np.trace(c, axis1=-2, axis2=-1) / c.sum((-2, -1))


def terms(gold, pred, items):
    right = (pred == gold[None, :]).astype(float)
    return np.stack([right, np.ones_like(right)], axis=-1)


def ratio(t):
    return t[..., 0] / t[..., 1]


METRICS = {
    "mod_acc": {"function": "acc", "higher_is_better": True, "range": [0, 1], "name": "Mod Acc"},
    "mod_err": {"function": lambda c: 1 - acc(c), "higher_is_better": False},
    "mod_bare": acc,
    "mod_item": {"terms": "terms", "combine": ratio, "higher_is_better": True, "range": [0, 1]},
}
'''


def test_a_module_s_metrics_dict_registers_each_entry(tmp_path):
    (tmp_path / "mods.py").write_text(MODULE)
    ids = CM.load_module("mods.py", tmp_path)
    path = (tmp_path / "mods.py").resolve()
    assert ids == ["mod_acc", "mod_err", "mod_bare", "mod_item"]
    acc = M.REGISTRY["mod_acc"]
    assert (acc.name, acc.direction, acc.bounds, acc.source) == ("Mod Acc", "higher", (0.0, 1.0), f"{path}:acc")
    assert float(acc(np.eye(3) * 2)) == 1.0
    err = M.REGISTRY["mod_err"]
    assert (err.direction, err.source) == ("lower", f"{path}:<lambda>")
    assert float(err(np.eye(3))) == 0.0
    assert M.REGISTRY["mod_bare"].source == f"{path}:acc" and M.REGISTRY["mod_bare"].higher_is_better
    item = M.ITEM_REGISTRY["mod_item"]
    assert item.source == str(path) and item.bounds == (0.0, 1.0)
    assert item(item.statistics([0, 1], [[0, 0]], ["a", "b"]).sum(axis=1)).tolist() == [0.5]
    # an absolute path, and the same file again: its metrics again (registered afresh)
    assert CM.load_module(str(path)) == ids


def test_a_module_that_registers_when_imported_and_a_dotted_module(tmp_path, monkeypatch):
    (tmp_path / "reg_mod.py").write_text(
        "import numpy as np\nfrom metaeval.measures.custom import register_metric\n"
        "register_metric('reg_acc', lambda c: np.trace(c, axis1=-2, axis2=-1) / c.sum((-2, -1)))\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    (tmp_path / "pkg_x").mkdir()
    (tmp_path / "pkg_x" / "__init__.py").write_text("")
    (tmp_path / "pkg_x" / "metr.py").write_text(MODULE.replace("mod_", "pkg_"))
    assert CM.load_module("reg_mod.py", tmp_path) == ["reg_acc"]
    # only what this module registers, not the metrics registered before it
    assert CM.load_module("pkg_x.metr") == ["pkg_acc", "pkg_err", "pkg_bare", "pkg_item"]
    assert M.REGISTRY["pkg_acc"].source == "pkg_x.metr:acc" and M.ITEM_REGISTRY["pkg_item"].source == "pkg_x.metr"
    sys.modules.pop("pkg_x.metr", None)
    sys.modules.pop("pkg_x", None)


def test_each_refusal_of_a_metric_module_reads_whole(tmp_path):
    (tmp_path / "empty.py").write_text("X = 1\n")
    (tmp_path / "listy.py").write_text("METRICS = [1, 2]\n")
    (tmp_path / "keyed.py").write_text("METRICS = {'mk': {'function': len, 'higher': True}}\n")
    (tmp_path / "raises.py").write_text("1 / 0\n")
    path = (tmp_path / "empty.py").resolve()
    cases = [
        (lambda: CM.load_module("nowhere.py", tmp_path),
         f"metric module 'nowhere.py': no file {(tmp_path / 'nowhere.py').resolve()}"),
        (lambda: CM.load_module("empty.py", tmp_path),
         "metric module 'empty.py' defines no metric: give it a METRICS dict ({id: {'function': ..., "
         "'higher_is_better': ...}}) or call metaeval.measures.custom.register_metric when it is imported"),
        (lambda: CM.load_module("listy.py", tmp_path),
         "metric module 'listy.py': METRICS is a dict of id -> declaration, got list"),
        (lambda: CM.load_module("keyed.py", tmp_path),
         "custom metric 'mk' of 'keyed.py': unknown key(s) ['higher']; known: "
         "function, terms, combine, higher_is_better, name, latex, reference, needs, range"),
        (lambda: CM.load_module("raises.py", tmp_path),
         f"metric module 'raises.py': importing {(tmp_path / 'raises.py').resolve()} raised ZeroDivisionError: "
         "division by zero"),
        (lambda: CM.load_module("no_such_pkg_xyz.mod"),
         "metric module 'no_such_pkg_xyz.mod': importing no_such_pkg_xyz.mod raised ModuleNotFoundError: No module "
         "named 'no_such_pkg_xyz'"),
    ]
    for call, message in cases:
        assert _message(call) == message
    assert path.is_file()


def test_a_file_imports_its_neighbours_as_a_script_would(tmp_path):
    (tmp_path / "helper_nb.py").write_text("def half(x):\n    return x / 2\n")
    (tmp_path / "uses_nb.py").write_text(
        "import numpy as np\nfrom helper_nb import half\n\n"
        "def acc(c):\n    return half(2 * np.trace(c, axis1=-2, axis2=-1) / c.sum((-2, -1)))\n")
    fn, path = CM.resolve("uses_nb.py:acc", tmp_path)
    assert path == (tmp_path / "uses_nb.py").resolve() and float(fn(np.eye(2))) == 1.0
    assert str(tmp_path.resolve()) in sys.path
    sys.path.remove(str(tmp_path.resolve()))
    sys.modules.pop("helper_nb", None)


def test_each_refusal_of_a_function_entry_reads_whole(tmp_path):
    (tmp_path / "f.py").write_text("x = 3\n")
    sub = tmp_path / "sub"
    sub.mkdir()
    cases = [
        ("f.py", "function 'f.py': write path/to/file.py:function or package.module:function"),
        ("f.py:1x", "function 'f.py:1x': '1x' is not a function name"),
        ("g.py:f", f"function 'g.py:f': no file {tmp_path / 'g.py'}"),
        ("sub/f:f", f"function 'sub/f:f': no file {sub / 'f'}"),
        ("sub\\f:f", f"function 'sub\\\\f:f': no file {tmp_path / 'sub' / 'f'}".replace("sub/f", "sub\\f")),
        ("f.py:x", f"function 'f.py:x': {(tmp_path / 'f.py').resolve()} has no function 'x'"),
        ("f.py:y", f"function 'f.py:y': {(tmp_path / 'f.py').resolve()} has no function 'y'"),
        ("no_such_pkg_xyz.mod:f", "function 'no_such_pkg_xyz.mod:f': cannot find module 'no_such_pkg_xyz.mod' "
                                  "(No module named 'no_such_pkg_xyz')"),
        ("no_such_mod_xyz:f", "function 'no_such_mod_xyz:f': no module 'no_such_mod_xyz' on the Python path"),
        ("sys:nothing", "function 'sys:nothing': sys has no function 'nothing'"),
    ]
    for function, message in cases:
        assert _message(lambda: CM.resolve(function, tmp_path)) == message, function
    fn, path = CM.resolve("sys:getrecursionlimit")
    assert fn() > 0 and path is None  # a module built into the interpreter has no file
    fn, path = CM.resolve("json:dumps")
    assert fn([1]) == "[1]" and path is not None and path.name == "__init__.py"


def test_local_imports_and_the_fingerprint_follow_the_files_beside_it(tmp_path):
    (tmp_path / "main_fp.py").write_text("import helper_a\nfrom helper_b import f\nfrom . import helper_c\n"
                                         "import numpy\nimport pkg_fp.inner\n")
    (tmp_path / "helper_a.py").write_text("import helper_a\n")  # a cycle
    (tmp_path / "helper_b.py").write_text("def f(): pass\n")
    (tmp_path / "helper_c.py").write_text("def (:\n")  # not Python: listed, not followed
    (tmp_path / "pkg_fp").mkdir()
    (tmp_path / "pkg_fp" / "__init__.py").write_text("")
    (tmp_path / "unused.py").write_text("")
    got = CM.local_imports(tmp_path / "main_fp.py")
    assert [p.relative_to(tmp_path.resolve()).as_posix() for p in got] == [
        "helper_a.py", "helper_b.py", "helper_c.py", "main_fp.py", "pkg_fp/__init__.py"]
    assert got == sorted(got) and all(p.is_absolute() for p in got)
    before = CM.fingerprint(tmp_path / "main_fp.py")
    assert len(before) == 64 and before == CM.fingerprint(tmp_path / "main_fp.py")
    (tmp_path / "helper_b.py").write_text("def f(): return 1\n")
    after = CM.fingerprint(tmp_path / "main_fp.py")
    assert after != before
    (tmp_path / "unused.py").write_text("x = 1\n")
    assert CM.fingerprint(tmp_path / "main_fp.py") == after
    # the names count too: the same bytes in a renamed helper are another fingerprint
    (tmp_path / "only.py").write_text("import other_x\n")
    (tmp_path / "other_x.py").write_text("")
    one = CM.fingerprint(tmp_path / "only.py")
    (tmp_path / "only.py").write_text("import other_y\n")
    (tmp_path / "other_y.py").write_text("")
    assert CM.fingerprint(tmp_path / "only.py") != one
    # a file that does not decode is listed, its imports not followed
    (tmp_path / "latin.py").write_bytes(b"# \xe9\nimport helper_b\n")
    assert [p.name for p in CM.local_imports(tmp_path / "latin.py")] == ["latin.py"]


def test_a_declaration_is_the_plain_form_of_its_config_block(tmp_path, monkeypatch):
    (tmp_path / "mods.py").write_text(MODULE)
    path = (tmp_path / "mods.py").resolve()
    d = CM.declare("dec_acc", {"function": "mods.py:acc", "higher_is_better": 1}, tmp_path)
    assert d == {"function": f"{path}:acc", "fingerprint": CM.fingerprint(path), "higher_is_better": True,
                 "name": "dec_acc", "latex": "dec_acc", "reference": "", "needs": [], "range": None}
    m = M.REGISTRY["dec_acc"]
    assert (m.source, m.name, m.bounds) == (f"{path}:acc", "dec_acc", (-np.inf, np.inf))
    d = CM.declare("dec_w", {"function": "mods.py:acc", "higher_is_better": False, "name": "W", "reference": "R",
                             "needs": ["weights"], "range": [0, np.inf]}, tmp_path)
    assert (d["name"], d["latex"], d["reference"], d["needs"], d["range"], d["higher_is_better"]) == (
        "W", "W", "R", ["weights"], [0.0, None], False)
    assert M.REGISTRY["dec_w"].params == ("weights",) and M.REGISTRY["dec_w"].bounds == (0.0, np.inf)
    d = CM.declare("dec_l", {"function": "mods.py:acc", "higher_is_better": True, "latex": "$L$",
                             "range": [None, 1]}, tmp_path)
    assert (d["name"], d["latex"], d["range"]) == ("dec_l", "$L$", [None, 1.0])
    # a metric of per-item terms: both functions, one fingerprint for their one file
    d = CM.declare("dec_item", {"terms": "mods.py:terms", "combine": "mods.py:ratio", "higher_is_better": True,
                                "range": [0, 1]}, tmp_path)
    assert d == {"terms": f"{path}:terms", "combine": f"{path}:ratio", "fingerprint": CM.fingerprint(path),
                 "higher_is_better": True, "name": "dec_item", "latex": "dec_item", "reference": "", "needs": [],
                 "range": [0.0, 1.0]}
    assert M.ITEM_REGISTRY["dec_item"].source == f"{path}:terms, {path}:ratio"
    # a dotted module: named as given, fingerprinted by its file
    monkeypatch.syspath_prepend(str(tmp_path))
    d = CM.declare("dec_dot", {"function": "mods:acc", "higher_is_better": True}, tmp_path)
    assert d["function"] == "mods:acc" and d["fingerprint"] == CM.fingerprint(path)
    # a built-in module without a file: no fingerprint
    d = CM.declare("dec_sys", {"function": "sys:getrecursionlimit", "higher_is_better": True}, tmp_path)
    assert d["function"] == "sys:getrecursionlimit" and d["fingerprint"] == ""
    sys.modules.pop("mods", None)


def test_each_refusal_of_a_declaration_reads_whole(tmp_path):
    (tmp_path / "mods.py").write_text(MODULE)
    cases = [
        ({"function": "mods.py:acc", "higher_is_better": True, "rnage": [0, 1]},
         "custom metric 'm': unknown key(s) ['rnage'] (did you mean 'range'?); known: function, terms, combine, "
         "higher_is_better, name, latex, reference, needs, range"),
        ({"higher_is_better": True}, "custom metric 'm': function is required"),
        ({"function": "mods.py:acc"}, "custom metric 'm': higher_is_better is required"),
        ({"combine": "mods.py:ratio", "higher_is_better": True},
         "custom metric 'm': terms is required (a metric of per-item terms has terms and combine, no function)"),
        ({"terms": "mods.py:terms", "higher_is_better": True},
         "custom metric 'm': combine is required (a metric of per-item terms has terms and combine, no function)"),
        ({"terms": "mods.py:terms", "combine": "mods.py:ratio"}, "custom metric 'm': higher_is_better is required"),
        ({"terms": "mods.py:terms", "combine": "mods.py:ratio", "higher_is_better": True, "function": "mods.py:acc"},
         "custom metric 'm': a metric of per-item terms (terms, combine) has no function and no needs"),
        ({"terms": "mods.py:terms", "combine": "mods.py:ratio", "higher_is_better": True, "needs": ["weights"]},
         "custom metric 'm': a metric of per-item terms (terms, combine) has no function and no needs"),
    ]
    for block, message in cases:
        assert _message(lambda: CM.declare("m", block, tmp_path)) == message
    # needs: [] is no need
    CM.declare("m_ok", {"terms": "mods.py:terms", "combine": "mods.py:ratio", "higher_is_better": True,
                        "needs": []}, tmp_path)


def test_a_job_registers_the_declarations_its_rule_carries(tmp_path):
    """register_declared: the plain declarations (as a rule param carries
    them) register the same metrics, loaded from the files they name."""
    (tmp_path / "mods.py").write_text(MODULE)
    decl = {"rd_acc": CM.declare("rd_acc", {"function": "mods.py:acc", "higher_is_better": False, "name": "RD",
                                            "needs": ["ordinal"], "range": [0, 1]}, tmp_path),
            "rd_item": CM.declare("rd_item", {"terms": "mods.py:terms", "combine": "mods.py:ratio",
                                              "higher_is_better": True, "latex": "$R$"}, tmp_path)}
    del M.REGISTRY["rd_acc"], M.ITEM_REGISTRY["rd_item"]
    got = CM.register_declared(decl)
    assert [m.id for m in got] == ["rd_acc", "rd_item"]
    acc, item = M.REGISTRY["rd_acc"], M.ITEM_REGISTRY["rd_item"]
    assert (acc.name, acc.latex, acc.direction, acc.ordinal, acc.bounds, acc.source) == (
        "RD", "RD", "lower", True, (0.0, 1.0), decl["rd_acc"]["function"])
    assert float(acc(np.eye(2))) == 1.0
    assert (item.name, item.latex, item.direction, item.source) == (
        "rd_item", "$R$", "higher", f"{decl['rd_item']['terms']}, {decl['rd_item']['combine']}")


# -- the edges each clause draws ----------------------------------------------------------------------------------
def test_the_contract_s_tolerances_and_edges():
    """Range ends are allowed up to 1e-9 beyond; batched and one-at-a-time
    scores must agree to rtol 1e-9 and atol 1e-12; NaN is allowed exactly
    where a class is missing from the gold or from the predictions; the
    tensors reach the function as float64 (it may divide in place); float32
    scores are numbers."""
    c = CM._probe(3)
    edge_hi, edge_lo = 1 + CM._TOL, 0 - CM._TOL
    CM.check(_metric(lambda x: np.full(x.shape[:-2], edge_hi)), c)
    CM.check(_metric(lambda x: np.full(x.shape[:-2], edge_lo)), c)
    CM.check(_metric(lambda x: np.zeros(x.shape[:-2], dtype=np.float32)), c)
    stack = "expected the same scores for a stack of matrices as for each matrix alone"
    for fn in (lambda x: _acc(x) * (1 + 1e-7 * (x.ndim == 2)),  # one at a time, relatively 1e-7 off
               lambda x: _acc(x) * (1 + 1e-7 * (x.ndim == 4)),  # batched twice, relatively 1e-7 off
               lambda x: np.zeros(x.shape[:-2]) + 1e-10 * (x.ndim == 2),  # near 0, 1e-10 off
               lambda x: np.zeros(x.shape[:-2]) + 1e-10 * (x.ndim == 4)):
        assert stack in _message(lambda: CM.check(_metric(fn), c))

    def in_place(x):
        x = x.copy()
        x /= x.sum(axis=(-2, -1), keepdims=True)
        return np.trace(x, axis1=-2, axis2=-1)

    CM.check(_metric(in_place), c.astype(np.int64))
    # one matrix alone may give a score of shape (1,): read as the matrix's score
    CM.check(_metric(lambda x: np.atleast_1d(_acc(x))), c)
    # a class absent from the gold but predicted (column 2 empty), or in the gold but never predicted (row 2)
    gold_missing = np.array([[[3, 1, 0], [1, 4, 0], [2, 1, 0]]], dtype=float)
    pred_missing = np.transpose(gold_missing, (0, 2, 1))
    nan_if_missing = lambda x: np.where((x.sum(-2) == 0).any(-1) | (x.sum(-1) == 0).any(-1), np.nan, 0.5)  # noqa: E731
    CM.check(_metric(nan_if_missing), gold_missing)
    CM.check(_metric(nan_if_missing), pred_missing)
    # a class with one gold item is present: NaN there is refused
    one = np.array([[[3, 1, 0], [1, 4, 0], [0, 0, 1]]], dtype=float)
    assert "found NaN" in _message(lambda: CM.check(_metric(lambda x: np.full(x.shape[:-2], np.nan)), one))


def test_the_per_item_contract_s_edges_and_what_the_functions_receive():
    gold, pred = np.array([0, 1, 1], np.int8), np.array([[0, 1, 0], [1, 1, 1]], np.int8)
    seen = {}

    def terms(g, p, items):
        seen.update(g=g.dtype, p=p.dtype, items=items.dtype.kind)
        return (p == g[None, :]).astype(float)[..., None]  # one term per item (F = 1)

    m = CM.ItemMetric("it", "it", "it", terms, lambda t: t[..., 0] / 3, True, bounds=(0.0, 1.0), source="src")
    assert CM._check_item_metric(m, gold, pred, [10, 11, 12], "d") == 1
    assert seen == {"g": np.int64, "p": np.int64, "items": "U"}
    head = "custom metric 'it' (src)"

    def make(terms=_terms, combine=_ratio):
        return CM.ItemMetric("it", "it", "it", terms, combine, True, bounds=(0.0, 1.0), source="src")

    def first_nan(g, p, i):
        t = _terms(g, p, i)
        t[0, 1, 0], t[1, 0, 1] = np.nan, np.inf
        return t

    def stacked_raises(t):
        if t.ndim == 3:
            raise RuntimeError("no stacks")
        return _ratio(t)

    cases = [(make(terms=first_nan), f"{head}: expected finite terms; found nan on d"),
             (make(combine=lambda t: np.full(t.shape[:-1], np.nan)),
              f"{head}: expected finite values in its range [0, 1]; found nan on d (system 0)"),
             (make(combine=stacked_raises), f"{head}: combine raised RuntimeError: no stacks on d")]
    for m, message in cases:
        assert _message(lambda: CM._check_item_metric(m, gold, pred, ["a", "b", "c"], "d")) == message
    stack = "expected combine to give the same scores for a stack of sums"
    for combine in (lambda t: _ratio(t) * (1 + 1e-7 * (t.ndim == 3)),
                    lambda t: np.zeros(t.shape[:-1]) + 1e-10 * (t.ndim == 3)):
        assert stack in _message(lambda: CM._check_item_metric(make(combine=combine), gold, pred, "abc", "d"))
    for value in (1 + CM._TOL, 0 - CM._TOL, 0.0, 1.0):
        CM._check_item_metric(make(combine=lambda t: np.full(t.shape[:-1], value)), gold, pred, "abc", "d")
    # the registered metric's own calls: int64 codes, str ids, float64 sums
    seen.clear()
    got = {}
    r = CM.register_item_metric("it_r", terms, lambda t: got.setdefault("dtype", t.dtype) and t[..., 0])
    assert r.statistics(gold, pred[0], [1, 2, 3]).dtype == np.float64
    assert seen == {"g": np.int64, "p": np.int64, "items": "U"}
    r(np.array([[1, 2]], dtype=np.int64))
    assert got["dtype"] == np.float64


def test_functions_without_a_qualified_name_are_named_by_what_they_are():
    from functools import partial

    f = partial(lambda c, s: _acc(c) * s, s=1.0)
    assert CM.register_metric("part_m", f).source == repr(f)
    m = CM.register_item_metric("part_i", partial(_terms), partial(_ratio))
    assert m.source == "?, ?"
    assert "custom metric 'm' (?)" in _message(lambda: CM.check(
        M.Metric("m", "m", "m", partial(lambda c: c.sum(-1)), True), CM._probe(2)))
    assert [m for m in M.REGISTRY if CM.is_custom(m)] == ["part_m"]  # no built-in metric is custom


def test_definedness_is_remembered_per_function_and_answered_as_a_bool():
    CM.register_metric("dm", lambda c: _acc(c) * (c.shape[-1] == 3), range=(0, 1))
    assert CM.defined_on("dm", 3) is True and CM.defined_on("dm", 2) is True
    # the same id for another function: tried again, not the first one's answer
    CM.register_metric("dm", lambda c: np.where(c.shape[-1] == 2, np.nan, _acc(c)), range=(0, 1))
    assert CM.defined_on("dm", 2) is False and CM.defined_on("dm", 3) is True


PROBE_2 = [[[7, 3], [3, 2]], [[37, 4], [7, 33]], [[7, 0], [0, 0]], [[5, 6], [0, 0]]]


def test_the_probe_matrices_are_pinned():
    """The contract is tried on these matrices (a change of them changes
    which metrics are refused): pinned for three classes."""
    p = CM._probe(3)
    assert p[2].tolist() == [[7, 3, 3], [2, 7, 4], [7, 3, 7]]
    assert p[3].tolist() == [[38, 8, 2], [5, 36, 8], [7, 7, 34]]
    assert p[4].tolist() == [[1, 5, 0], [2, 5, 0], [0, 0, 0]]
    assert p[5].tolist() == [[2, 3, 4], [0, 0, 0], [0, 0, 0]]
    assert CM._probe(2)[2:].tolist() == PROBE_2


def test_files_and_modules_are_found_from_the_working_folder_and_loaded_once(tmp_path, monkeypatch):
    import hashlib
    import json

    (tmp_path / "mods.py").write_text(MODULE)
    (tmp_path / "raises.py").write_text("1 / 0\n")
    monkeypatch.chdir(tmp_path)
    assert CM.load_module("mods.py")[0] == "mod_acc"  # relative to the working folder by default
    assert CM.declare("cwd_acc", {"function": "mods.py:acc", "higher_is_better": True})["function"] == \
        f"{(tmp_path / 'mods.py').resolve()}:acc"
    fn, path = CM.resolve("mods.py:acc")
    assert fn.__module__ == "metaeval_custom_" + hashlib.sha256(str(path).encode()).hexdigest()[:12]
    assert sys.modules[fn.__module__].acc is fn
    # the module knows its file (a metric may read a table beside it)
    (tmp_path / "costs.txt").write_text("0.5\n")
    (tmp_path / "beside.py").write_text(
        "from pathlib import Path\nimport numpy as np\nW = float((Path(__file__).parent / 'costs.txt').read_text())\n"
        "def acc(c):\n    return W * np.trace(c, axis1=-2, axis2=-1) / c.sum((-2, -1))\n")
    assert float(CM.resolve("beside.py:acc")[0](np.eye(2))) == 0.5
    parent = str(path.parent)
    CM.resolve("mods.py:terms")
    assert sys.path[0] == parent and sys.path.count(parent) == 1
    # a dotted module is imported, not loaded afresh from its file
    assert CM.resolve("json:dumps")[0] is json.dumps
    assert _message(lambda: CM.resolve("raises.py:f")) == (
        f"function 'raises.py:f': importing {(tmp_path / 'raises.py').resolve()} raised ZeroDivisionError: "
        "division by zero")
    # a path whose folder holds a colon: the function is after the last one
    (tmp_path / "a:b").mkdir()
    (tmp_path / "a:b" / "m.py").write_text(MODULE)
    assert CM.resolve("a:b/m.py:acc")[1] == (tmp_path / "a:b" / "m.py").resolve()
    # a file named without .py, by a path with a slash or a backslash
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "plain").write_text(MODULE)
    (tmp_path / "we\\ird").write_text(MODULE)
    assert CM.resolve("sub/plain:acc")[0].__module__.startswith("metaeval_custom_")
    assert CM.resolve("we\\ird:acc")[0].__module__.startswith("metaeval_custom_")
    sys.path.remove(parent)


def test_a_metrics_dict_names_its_functions_or_gives_them_and_says_which_is_missing(tmp_path):
    (tmp_path / "names.py").write_text(MODULE + '''
from functools import partial as _p
METRICS = {
    "n_item": {"terms": terms, "combine": "ratio", "higher_is_better": True},
    "n_part": {"function": _p(acc), "higher_is_better": True},
}
''')
    path = (tmp_path / "names.py").resolve()
    assert CM.load_module("names.py", tmp_path) == ["n_part", "n_item"]  # the registry's order
    assert M.ITEM_REGISTRY["n_item"].combine.__name__ == "ratio"
    assert M.REGISTRY["n_part"].source == f"{path}:n_part"
    cases = [('{"x": {"function": "nope", "higher_is_better": True}}',
              "custom metric 'x' of 'bad.py': function 'nope' is not a function of the module"),
             ('{"x": {"terms": "terms", "combine": "np", "higher_is_better": True}}',
              "custom metric 'x' of 'bad.py': combine 'np' is not a function of the module"),
             ('{"x": {"terms": terms, "higher_is_better": True}}', "custom metric 'x': combine is not callable (None)"),
             ('{"x": {"combine": ratio, "higher_is_better": True}}', "custom metric 'x': terms is not callable (None)"),
             ('{"x": {"higher_is_better": True}}', "custom metric 'x': the function is not callable (None)")]
    for metrics, message in cases:
        (tmp_path / "bad.py").write_text(MODULE.split("METRICS")[0] + f"METRICS = {metrics}\n")
        assert _message(lambda: CM.load_module("bad.py", tmp_path)) == message, metrics


def test_a_declaration_of_two_files_and_its_reference_reach_the_registry(tmp_path):
    import hashlib

    (tmp_path / "t.py").write_text(MODULE)
    (tmp_path / "c.py").write_text("def ratio(t):\n    return t[..., 0] / t[..., 1]\n")
    d = CM.declare("two_f", {"terms": "t.py:terms", "combine": "c.py:ratio", "higher_is_better": True}, tmp_path)
    assert d["fingerprint"] == CM.fingerprint(tmp_path / "t.py") + "+" + CM.fingerprint(tmp_path / "c.py")
    d = CM.declare("ref_f", {"function": "t.py:acc", "higher_is_better": True, "reference": "Me 2026"}, tmp_path)
    del M.REGISTRY["ref_f"]
    CM.register_declared({"ref_f": d})
    assert M.REGISTRY["ref_f"].reference == "Me 2026"
    # the fingerprint's bytes: each file's name, a zero byte, its content, a zero byte, in local_imports' order
    h = hashlib.sha256()
    for f in CM.local_imports(tmp_path / "t.py"):
        h.update(f.name.encode() + b"\0" + f.read_bytes() + b"\0")
    assert CM.fingerprint(tmp_path / "t.py") == h.hexdigest()
