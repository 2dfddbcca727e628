"""Readers: one module per family of formats, each naming file, line and
fault (``metaeval.data.files.Problem``).

* ``labels``: label files (csv, tsv, jsonl, parquet, SemEval-2016 TSV);
* ``spans``: span files (SemEval-2020 Task 11 SI/TC/FLC, SemEval-2021 Task 5);
* ``alignment``: a technique-classification submission paired with the gold;
* ``scores``: files of per-item scores and probabilities.
"""
