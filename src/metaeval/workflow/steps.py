"""The plumbing of the workflow's job scripts, kept light (no pandas, no
matplotlib): running a step with its log and clear failures, ending the
job's process when it is done, the warnings a step gives, and the
provenance record.  Cheap jobs (``provenance``) import
only this module: a Python job's start-up is most of its time.
``metaeval.workflow`` re-exports everything here."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Mapping

from ..data.files import DataError, write_text

__all__ = ["run_step", "end_job", "warn", "note", "timed", "write_provenance"]


def run_step(smk, step) -> None:
    """Run ``step()`` for a Snakemake script: log its outcome to
    ``smk.log[0]``; on bad input or config, print the message (which names
    file, line and fault) and exit non-zero without a traceback.  A step
    that succeeds ends its process (``end_job``): call this last."""
    import sys
    import time
    import traceback

    log = Path(smk.log[0]) if len(smk.log) else None
    if log:
        log.parent.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    try:
        step()
    except Exception as e:
        from ..data.config import ConfigError  # here, not above: config imports numpy and the metrics
        from ..measures.custom import MetricContractError

        # bad input, a bad config, a custom metric that breaks its contract on the data (its message names the
        # metric, its file and function, and the dataset): said without a traceback, as the command line says it
        if not isinstance(e, (DataError, ConfigError, MetricContractError)):
            if log:
                log.write_text(traceback.format_exc(), encoding="utf-8")
            raise
        msg = f"ERROR in rule {smk.rule} ({', '.join(f'{k}={v}' for k, v in smk.wildcards.items())}):\n{e}\n"
        if log:
            log.write_text(msg, encoding="utf-8")
        sys.stderr.write(msg)
        sys.exit(1)
    if log:
        wild = ", ".join(f"{k}={v}" for k, v in smk.wildcards.items())
        log.write_text(f"rule {smk.rule}" + (f" ({wild})" if wild else "") + "\n"
                       + "".join(f"  {n}\n" for n in _NOTES) + "".join(f"WARNING: {w}\n" for w in _WARNINGS)
                       + f"ok: done in {time.perf_counter() - t0:.1f} s\n", encoding="utf-8")
    end_job()


def end_job() -> None:
    """End a finished job's process at once, as ``multiprocessing`` ends its
    workers: the exit handlers run (``atexit``: logging flushes, matplotlib
    removes the temporary config folder it makes when the home one cannot
    be written), the streams are flushed, then ``os._exit``.  Every output
    is written and closed by then; what is skipped is the interpreter's
    teardown, which would only free, one by one, the modules and objects of
    pandas, matplotlib, scipy and numba that the operating system reclaims
    anyway: 0.1 to 0.6 s of CPU per job, several seconds per pipeline run.
    Under a debugger or a coverage tracer (``sys.gettrace()``) the process
    exits normally, so they can write their data."""
    import atexit
    import os
    import sys

    if sys.gettrace() is not None:
        return
    atexit._run_exitfuncs()  # noqa: SLF001 (public in effect: what exit runs; os._exit would skip them)
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (AttributeError, OSError, ValueError):  # closed or replaced streams
            pass
    os._exit(0)


def warn(message: str) -> None:
    """A warning of a step: printed now, and written to its log by ``run_step``."""
    import sys

    _WARNINGS.append(message)
    sys.stderr.write(f"WARNING: {message}\n")


_WARNINGS: list[str] = []
_NOTES: list[str] = []


def note(message: str) -> None:
    """What a step did (items, systems, settings, time): written to its job's
    log by ``run_step``, not printed."""
    _NOTES.append(message)


class timed:
    """``with timed("bootstrap, 1000 replicates"):`` notes the part's time."""

    def __init__(self, what: str):
        self.what = what

    def __enter__(self):
        import time

        self.t0 = time.perf_counter()
        return self

    def __exit__(self, *exc):
        import time

        if exc[0] is None:
            note(f"{self.what}: {time.perf_counter() - self.t0:.2f} s")
        return False


def write_provenance(out_json, dataset: str, config_block: Mapping, settings: Mapping, code: str,
                     commit: str | None, data_dir, inputs: Mapping[str, str],
                     properties: Mapping | None = None) -> dict:
    """``provenance.json`` of a dataset's results: the dataset's resolved
    config and experiment settings, the settings of the formal property
    checks (its recommendation counts them; None when they are off), the
    package version and source hash, the workflow's git commit, the seeds,
    and ``inputs``, the SHA-256 of every input file by its path relative to
    ``data_dir`` (of a folder: of its article texts' names and contents;
    ``metaeval.workflow.params.data_fingerprint``)."""
    import platform

    seeds = {k: v for k, v in {**config_block, **settings}.items() if k.endswith("seed")}
    if isinstance(config_block.get("synthetic"), Mapping):
        seeds["synthetic.seed"] = config_block["synthetic"].get("seed")
    doc = {"dataset": dataset, "metaeval": code, "workflow_commit": commit, "python": platform.python_version(),
           "config": dict(config_block), "experiments": dict(settings),
           "properties": dict(properties) if properties is not None else None, "seeds": seeds,
           "data_dir": str(data_dir), "inputs": dict(sorted(inputs.items()))}
    write_text(out_json, json.dumps(doc, indent=2, sort_keys=False) + "\n")
    note(f"hashed {len(doc['inputs'])} inputs of {dataset}")
    return doc
