"""Readers: one module per family of formats, each naming file, line and
fault (``metaeval.data.files.Problem``).

* ``labels``: delimited label files (csv, tsv, SemEval-2016 TSV) and
  ``read_labels``, which reads a label file by its ending with the reader
  registered for it (``formats``: the registry); ``jsonl``, ``parquet``:
  the other built-in label formats;
* ``spans``: span files (SemEval-2020 Task 11 SI/TC/FLC, SemEval-2021 Task 5);
* ``alignment``: a technique-classification submission paired with the gold;
* ``scores``: files of per-item scores and probabilities.
"""

from . import jsonl, labels, parquet
from .formats import LABEL_READERS, register_reader, unregister_reader

__all__ = ["LABEL_READERS", "register_reader", "unregister_reader"]

# the built-in label formats, by file ending
for _suffix, _reader in ((".csv", labels.read_csv), (".tsv", labels.read_tsv), (".jsonl", jsonl.read_jsonl),
                         (".ndjson", jsonl.read_jsonl), (".parquet", parquet.read_parquet)):
    register_reader(_suffix, _reader)

from metaeval import _submodules  # noqa: E402

__getattr__ = _submodules(__name__)  # its modules, imported on first use
