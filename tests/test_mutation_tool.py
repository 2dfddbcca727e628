"""tools/mutation.py's bookkeeping (the mutation run itself needs mutmut and
hours; these parts do not): the results kept in git restore the scratch
copy's record exactly, and the tally counts what it says."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture()
def tool(tmp_path, monkeypatch):
    spec = importlib.util.spec_from_file_location("mutation_tool", ROOT / "tools" / "mutation.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    monkeypatch.setattr(mod, "SCRATCH", tmp_path / "scratch")
    monkeypatch.setattr(mod, "STATE", tmp_path / "state")
    monkeypatch.setattr(mod, "EQUIVALENT", tmp_path / "none.toml")  # no equivalents: no diffs to read
    return mod


def _write_meta(tool, module, codes, hashes, tests="abc"):
    meta = tool._meta(module)
    meta.parent.mkdir(parents=True)
    meta.write_text(json.dumps({"exit_code_by_key": codes, "hash_by_function_name": hashes,
                                "type_check_error_by_key": {}, "durations_by_key": {},
                                "estimated_durations_by_key": {}}))
    # where run() writes the hash of the tests: the module's scratch folder (for a module in a subfolder too)
    (tool.SCRATCH / tool._slug(module) / "tests.sha256").write_text(tests)


@pytest.mark.parametrize("module", ["engine/ranking.py", "ranking.py"])
def test_the_kept_results_restore_the_record_of_a_fresh_clone(tool, module):
    stem = "metaeval." + module.removesuffix(".py").replace("/", ".")
    codes = {f"{stem}.x_rank__mutmut_1": 1, f"{stem}.x_rank__mutmut_2": 0,
             f"{stem}.x_rank__mutmut_3": None, f"{stem}.xǁBoxǁopen__mutmut_1": 33,
             f"{stem}.x_rank__mutmut_10": 3}
    hashes = {"x_rank": "0123456789ab", "xǁBoxǁopen": "ba9876543210"}
    _write_meta(tool, module, codes, hashes)
    tool.save_state(module)
    kept = json.loads((tool.STATE / f"{tool._slug(module)}.json").read_text(encoding="utf-8"))
    assert kept["exit_codes"]["x_rank"] == [1, 0, None, None, None, None, None, None, None, 3]
    assert kept["tests_sha256"] == "abc" and kept["hash_by_function_name"] == hashes
    before = tool.tally(module)
    import shutil

    shutil.rmtree(tool.SCRATCH)
    tool.restore_state(module)
    back = json.loads(tool._meta(module).read_text())
    # the gaps (mutants 4-9, never recorded) come back as not checked; the rest exactly
    assert {k: v for k, v in back["exit_code_by_key"].items() if k in codes} == codes
    assert back["hash_by_function_name"] == hashes
    assert (tool.SCRATCH / tool._slug(module) / "tests.sha256").read_text() == "abc"
    after = tool.tally(module)
    assert {k: after[k] for k in ("killed", "survived", "equivalent")} == {
        k: before[k] for k in ("killed", "survived", "equivalent")} == {"killed": 2, "survived": 2, "equivalent": 0}
    assert before["not_checked"] == 1 and after["not_checked"] == 7
    # a scratch copy with its own record is never overwritten
    tool._meta(module).write_text(json.dumps({"exit_code_by_key": {}}))
    tool.restore_state(module)
    assert json.loads(tool._meta(module).read_text()) == {"exit_code_by_key": {}}


def test_mutants_are_named_as_the_equivalence_file_names_them(tool):
    assert tool._function("metaeval.api.x__read_files__mutmut_12") == "_read_files"
    assert tool._function("metaeval.api.xǁMetaEvaluationǁwrite__mutmut_3") == "MetaEvaluation.write"
