"""The command line: ``metaeval score | compare | recommend | design | init | metrics | settings``.

Every subcommand reads a gold file and one prediction file per system
(``metaeval.api.read_files``), calls one function of ``metaeval.api`` and
prints its table: aligned text on a terminal, or ``--format csv | json |
markdown | latex``.  Bad data exits with status 1 and names the file, the
line and the fault; a usage error (an option, a setting) exits with 2, as
argparse's; nothing is written then.
"""

from __future__ import annotations

import argparse
import os
import sys
import threading
import time
import warnings
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Mapping

from .settings import default_of

__all__ = ["main", "build_parser"]

FORMATS_OUT = ("table", "csv", "json", "markdown", "latex")
SPAN_INPUT_FORMATS = ("semeval2020_si", "semeval2020_tc", "semeval2021_tsd")
INPUT_FORMATS = ("csv", "semeval_tsv") + SPAN_INPUT_FORMATS

EXAMPLES = {
    "leaderboard": """examples:
  metaeval leaderboard gold.csv predictions/*.csv --task-column category --no-answer none --options-column n_options
  metaeval leaderboard gold.csv runs/*.csv --input scores --format markdown -o leaderboard.md
  metaeval leaderboard gold.csv predictions/*.csv --scheme items --replicates 2000 --priority resolution
""",
    "metrics": """examples:
  metaeval metrics
  metaeval metrics --format markdown
  metaeval metrics --metric-module my_metrics.py
""",
    "settings": """examples:
  metaeval settings
  metaeval settings --format markdown
  metaeval score gold.csv predictions/*.csv --set bootstrap_replicates=2000 --set bootstrap_seed=7

Every experiment setting --set takes (the config's experiments: block), with
its default, what its value must be and what it does. --set also takes the
dataset keys of the files read (normalize_labels, label_map, ...): an
unknown key's message lists them.""",
    "score": """examples:
  metaeval score gold.csv predictions/*.csv
  metaeval score gold.tsv a.tsv b.tsv --labels neg,neu,pos --ordinal --metrics macro_f1,mae_macro
  metaeval score gold.jsonl runs/*.jsonl --group-column target --format csv -o scores.csv
  metaeval score gold.labels sys1.txt --input-format semeval2020_si --articles dev-articles/

Each file has one record per item with the columns (or JSON keys)
item_id and label (--id-column, --label-column); a system is named after
its file. Intervals: bootstrap of the items (of whole groups with
--group-column), --replicates resamples, percentile (or --interval-method
bca). Every output carries a signature line: the version, the metrics, the
resamples, seeds and interval method used.""",
    "compare": """examples:
  metaeval compare gold.csv predictions/*.csv
  metaeval compare gold.csv predictions/*.csv --test bootstrap --correction holm --pairs --format csv

Prints, per metric, the best system, the systems that cannot be told from
it, and the share of pairs told apart (discriminative power), in every
format; --pairs prints every pair with its difference and p-values instead. Null
hypothesis of the randomised Tukey HSD (default): the systems' outputs are
exchangeable item by item; its p-values are family-wise over the pairs of
a metric.""",
    "recommend": """examples:
  metaeval recommend gold.csv predictions/*.csv --labels agree,discuss,disagree --ordinal
  metaeval recommend gold.csv predictions/*.csv --set criteria_replicates=500 --format json
  metaeval recommend gold.csv predictions/*.csv --official macro_f1 --require monotonicity
  metaeval recommend gold.csv predictions/*.csv --labels agree,discuss,disagree --ordinal --priority discrimination

Which metric to report: every criterion on the real systems with its
interval, resampled two ways (the items: these systems; the items and the
systems together: new systems); per criterion the metrics the evidence
cannot tell from the best (Model Confidence Set, Bonferroni over the
criteria); the answer is the metrics kept on every criterion, or when none
is, those kept on the most, with the trade-off between the criteria said;
--priority (repeatable, most important first) declares which criterion
matters more, and the answer is then the sets intersected in that order.
Gameable metrics are not candidates. --official names the task's own metric (the
answer says where it stands); --require declares a formal property the
answer must hold (repeatable; uniform_class_change: invariance to class
priors). The majority and random baselines are ranked in a stated variant
(--baselines to change). Needs a few systems: the criteria compare
rankings.""",
    "design": """examples:
  metaeval design gold.csv predictions/*.csv
  metaeval design gold.csv predictions/*.csv --set design_power=0.9 --set design_differences=[0.01,0.03]
  metaeval design gold.csv predictions/*.csv --long --format csv -o design.csv

How large a test set must be: per metric, the smallest difference between
two systems that a two-sided z-test at alpha detects with power 0.8 with
this test set (the minimum detectable difference, MDD, from the bootstrap
variance of each pair's difference), the predicted share of pairs
separated, and the items needed for 0.01, 0.02 and 0.05 (the defaults of
design_power and design_differences). --long prints every size, by
default from 5 % of the items to four times them (design.csv), with
the swap rates on disjoint subsets. Ranks the majority and random
baselines with the systems, as the workflow does.""",
    "init": """examples:
  metaeval init mydata/            writes mydata/metaeval.yaml
  snakemake --cores 8 --configfile mydata/metaeval.yaml --directory mydata/run

Looks for a gold file (gold.csv or gold.tsv) and prediction files
(predictions/*.csv or .tsv) in DIR and writes a config that the workflow
runs as is, with the labels found in the gold.""",
}


class _Progress:
    """On a terminal, a line on stderr for work that takes more than
    ``delay`` seconds: what runs, and once the library's pass reports
    (``metaeval.engine.progress``) the pass, its fraction done, the elapsed
    time and the time left, e.g. ``scoring ... bootstrap replicates 43 %
    (430/1000) 3.2 s, about 4 s left``.  Nothing when not enabled."""

    DELAY, INTERVAL = 2.0, 0.5  # seconds before the first line, and between two lines

    def __init__(self, enabled: bool, delay: float | None = None, interval: float | None = None, stream=None):
        self.enabled, self._stream = enabled, stream
        self.delay = self.DELAY if delay is None else delay
        self.interval = self.INTERVAL if interval is None else interval
        self._pass = None  # (what, total, start, done, time of the report) of the pass that reported last
        self._start = 0.0
        self._width = 0

    @property
    def stream(self):
        return self._stream or sys.stderr

    def listen(self, done: int, total: int, what: str) -> None:
        """The library's report (``engine.progress.reporting``): a pass
        starts again when its name or total changes or its count goes
        back; it started when the pass before it last reported."""
        now, p = time.perf_counter(), self._pass
        if p is not None and (p[0], p[1]) == (what, total) and done >= p[3]:
            start = p[2]
        else:
            start = p[4] if p is not None else self._start
        self._pass = (what, total, start, done, now)

    def line(self, what: str, now: float) -> str:
        """The progress line at ``now`` (``time.perf_counter``)."""
        text = f"{what} ... "
        p = self._pass
        if p is not None and p[1] > 0:
            name, total, start, done, at = p
            text += f"{name} {100 * done / total:.0f} % ({done:,}/{total:,}) "
        text += f"{now - self._start:.1f} s"
        if p is not None and 0 < p[3] < p[1]:  # (some done, some left)
            left = max(0.0, (p[4] - p[2]) / p[3] * (p[1] - p[3]) - (now - p[4]))
            text += f", about {_duration(left)} left"
        return text

    def _write(self, text: str, end: str = "") -> None:
        self.stream.write("\r" + text.ljust(self._width) + end)  # (spaces cover a longer line before)
        self.stream.flush()
        self._width = 0 if end else len(text)

    @contextmanager
    def step(self, what: str):
        if not self.enabled:
            yield
            return
        from .engine.progress import reporting

        self._start, self._pass, done = time.perf_counter(), None, threading.Event()

        def tick():
            if done.wait(self.delay):
                return
            while not done.is_set():
                self._write(self.line(what, time.perf_counter()))
                done.wait(self.interval)

        t = threading.Thread(target=tick, daemon=True)
        t.start()
        try:
            with reporting(self.listen):
                yield
        finally:
            done.set()
            t.join()
            if time.perf_counter() - self._start > self.delay:
                self._write(f"{what} ... {time.perf_counter() - self._start:.1f} s, done", "\n")


def _duration(seconds: float) -> str:
    """``4 s``, ``2 min``, ``1.5 h``: a time left, as precise as it can be."""
    if seconds < 90:
        return f"{max(1, round(seconds))} s"
    if seconds < 5400:
        return f"{round(seconds / 60)} min"
    return f"{seconds / 3600:.1f} h"


def _csv_list(text: str | None):
    return None if text is None else [x.strip() for x in text.split(",") if x.strip()]


def _setting(text: str):
    """``KEY=VALUE`` with a YAML value (``n_splits=200``, ``criteria=[stability, power]``)."""
    import yaml

    if "=" not in text:
        raise argparse.ArgumentTypeError(f"{text!r}: expected KEY=VALUE, e.g. tukey_trials=1000")
    key, value = text.split("=", 1)
    key, value = key.strip(), yaml.safe_load(value)
    if isinstance(value, str) and "," in value and key in _list_keys():  # f_avg_classes=FAVOR,AGAINST: a list
        value = [yaml.safe_load(x) for x in value.split(",")]
    return key, value


def _list_keys() -> frozenset:
    """The settings and dataset keys whose value is a list (``--set`` reads
    ``a,b`` as ``[a, b]`` for them; a YAML list, ``[a, b]``, always works)."""
    from dataclasses import fields

    from .data.config import DatasetSpec
    from .settings import flat_fields

    return frozenset([name for name, _, f in flat_fields() if f.metadata["schema"].get("type") == "array"]
                     + [f.name for f in fields(DatasetSpec) if str(f.type).startswith("tuple")])


def _common(p: argparse.ArgumentParser, formats=True) -> None:
    p.add_argument("gold", help="the gold file (.csv, .tsv, .jsonl, .parquet; or a span format's gold file); - reads "
                                "it from standard input (CSV, or --input-format's)")
    p.add_argument("predictions", nargs="*", help="one file per system, named after the file (one of them may be -, "
                                                  "standard input, if the gold is not); none when --scores give "
                                                  "every system")
    d = p.add_argument_group("data")
    d.add_argument("--labels", help="the classes, comma-separated, in order (default: the gold's, sorted)")
    d.add_argument("--label", action="append", dest="label_list", metavar="LABEL",
                   help="one class, in order, repeated for each (for names with commas, e.g. the technique "
                        "'Name_Calling,Labeling'); instead of --labels")
    d.add_argument("--ordinal", action="store_true", help="the labels are ordered (enables the ordinal metrics)")
    d.add_argument("--metrics", help="metric ids, comma-separated ('metaeval metrics' lists them; default: those "
                                     "it marks default that apply to the labels; 'default,mcc' adds one)")
    d.add_argument("--metric-module", action="append", default=[], metavar="FILE.py|MODULE",
                   help="a Python file or module of custom metrics (its METRICS dict, as the config's "
                        "custom_metrics block; metaeval.measures.custom), then listed by id in --metrics; repeatable")
    d.add_argument("--id-column", help="column or key of the item id (default: item_id, or the input format's)")
    d.add_argument("--label-column", help="column or key of the label (default: label, or the input format's)")
    d.add_argument("--group-column", help="column of the gold giving each item's group (e.g. target): "
                                          "intervals and tests then resample whole groups (use it with 20 "
                                          "groups or more: fewer give too narrow intervals)")
    d.add_argument("--baselines", help="generated baselines, comma-separated, of majority, all_class, random "
                                       "(span identification: no_spans, whole_text, every_token, random_spans); "
                                       "default: none for score and compare, all for recommend and design (as the "
                                       "workflow, which ranks majority and random with the systems)")
    d.add_argument("--baseline-systems", metavar="NAMES", help="systems given as files that are baselines, "
                   "comma-separated names or patterns of file names without extension (e.g. 'baseline-*'): ranked "
                   "apart from the real systems, as the config's baseline_systems")
    d.add_argument("--real-systems", metavar="NAMES", help="systems named like baselines (a word of the name is "
                   "baseline, bsl, random or majority) that are real systems: silences the warning that says so, "
                   "as the config's real_systems")
    d.add_argument("--input-format", dest="input_format", choices=INPUT_FORMATS,
                   help="the files' format, the config's dataset key 'format' (--format is the output's): csv or "
                        "semeval_tsv (SemEval-2016 Task 6's tab-separated ID, Stance, Target), whatever the "
                        "files' ending; a span task's semeval2020_si, semeval2020_tc or semeval2021_tsd "
                        "(default: classification files by their ending)")
    d.add_argument("--span-format", dest="old_span_format", choices=SPAN_INPUT_FORMATS, help=argparse.SUPPRESS)
    sc = p.add_argument_group("scores and probabilities (docs: Scores and probabilities)")
    sc.add_argument("--scores", nargs="+", metavar="FILE", help="one score or probability file per system, matched "
                    "to its prediction file by name (a system may give scores only); the metrics of scores are "
                    "listed by id in --metrics (roc_auc, map, brier, ...)")
    sc.add_argument("--score-format", choices=("csv", "tsv", "semeval2016t3"),
                    help="the score files' format (default csv; semeval2016t3: the task's run files, "
                         "'question_id item_id rank score label')")
    sc.add_argument("--score-column", help="the one score column of a binary task (default: score)")
    sc.add_argument("--probability-columns", metavar="LABEL=COLUMN,...",
                    help="one probability column per class, e.g. agree=p_agree,disagree=p_disagree,...")
    sc.add_argument("--positive-class", help="the class a single score is the score of (binary tasks)")
    sc.add_argument("--score-threshold", type=float, help="a system with scores only predicts the positive class "
                                                         "at a score >= this")
    sc.add_argument("--probability-tolerance", type=float,
                    help="how far a row of class probabilities may sum from 1 (default 0.0001)")
    sc.add_argument("--normalize-probabilities", action="store_true",
                    help="divide each row of class probabilities by its sum instead of refusing it (said)")
    d.add_argument("--articles", help="the folder of article<ID>.txt texts (the 2020 span formats)")
    d.add_argument("--name", default="data", help="the dataset's name in titles (default: data)")
    o = p.add_argument_group("output")
    if formats:
        o.add_argument("--format", choices=FORMATS_OUT, default=None,
                       help="table (aligned text: the default when standard output is a terminal and no -o), csv "
                            "(the default otherwise), json, markdown, latex; each carries the signature line (the "
                            "version, metrics, resamples, seeds and interval method used; CSV: a first '# ' line, "
                            "read it with pandas.read_csv(..., comment='#'))")
    o.add_argument("-o", "--output", help="write to this file instead of standard output")
    o.add_argument("--set", dest="settings", type=_setting, action="append", default=[], metavar="KEY=VALUE",
                   help="an experiment setting ('metaeval settings' lists each with its default and meaning), "
                        "e.g. --set tukey_trials=1000, or a dataset key of the files read, e.g. --set "
                        "normalize_labels=[case], --set merge_overlapping_predictions=true, --set "
                        "documents=all_articles; repeatable; it wins over the option of the same setting "
                        "(--replicates, --trials, ...)")
    o.add_argument("--quiet", action="store_true", help="no progress line (shown only when standard error is a "
                                                        "terminal); warnings and errors are still printed")
    o.add_argument("--jobs", type=_threads, metavar="N",
                   help="threads of the resampling engine (default: the cores available to the process, or "
                        "NUMBA_NUM_THREADS / OMP_NUM_THREADS when set); never changes a number")


def _threads(text: str) -> int:
    """``--jobs``: a whole number of threads, 1 or more."""
    try:
        n = int(text)
    except ValueError:
        n = 0
    if n < 1:
        raise argparse.ArgumentTypeError(f"a whole number of threads, 1 or more, got {text!r}")
    return n


def build_parser() -> argparse.ArgumentParser:
    from . import __version__

    parser = argparse.ArgumentParser(
        prog="metaeval", description="Meta-evaluation of classification and span metrics: scores with intervals, "
                                     "significance, and which metric to report.",
        epilog="Run 'metaeval SUBCOMMAND --help' for its options and examples.")
    parser.add_argument("--version", action="version", version=f"metaeval {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="SUBCOMMAND", required=True)
    fmt = argparse.RawDescriptionHelpFormatter
    s = sub.add_parser("score", help="every metric of every system, with bootstrap intervals", epilog=EXAMPLES["score"],
                       formatter_class=fmt, description="Score every system with every metric, with intervals.")
    _common(s)
    s.add_argument("--no-intervals", action="store_true", help="scores only (no resampling)")
    # (every default below is the settings tree's: metaeval.settings, the one place it is written)
    s.add_argument("--replicates", type=int, default=default_of("bootstrap_replicates"),
                   help=f"bootstrap replicates of the intervals (default: {default_of('bootstrap_replicates')}; "
                        f"the setting bootstrap_replicates)")
    s.add_argument("--confidence", type=float, default=default_of("confidence"),
                   help=f"the intervals' level (default: {default_of('confidence')}; the setting confidence)")
    s.add_argument("--interval-method", choices=("percentile", "bca"), default=default_of("interval_method"),
                   help=f"percentile or bca: bias-corrected and accelerated (Efron & Tibshirani 1993), which adds a "
                        f"jackknife pass over the units (default: {default_of('interval_method')})")
    c = sub.add_parser("compare", help="significance of every pair of systems, per metric",
                       epilog=EXAMPLES["compare"], formatter_class=fmt,
                       description="Which systems a test can tell apart, per metric.")
    _common(c)
    c.add_argument("--test", choices=("tukey", "bootstrap"), default=default_of("significance_test"),
                   help=f"tukey (randomised Tukey HSD) or bootstrap (the paired bootstrap test) (default: "
                        f"{default_of('significance_test')})")
    c.add_argument("--trials", type=int, default=default_of("tukey_trials"),
                   help=f"permutations of the randomised Tukey HSD (default: {default_of('tukey_trials')}; the "
                        f"setting tukey_trials); its p-values are multiples of 1/trials (0: below 1/trials)")
    c.add_argument("--alpha", type=float, default=default_of("alpha"),
                   help=f"significance level: a pair is told apart when its p-value is below it (default: "
                        f"{default_of('alpha')})")
    c.add_argument("--correction", choices=("holm", "bh", "none"), default=default_of("significance_correction"),
                   help=f"multiple comparisons over each metric's pairs, for the bootstrap test only (default: "
                        f"{default_of('significance_correction')}; the Tukey test's p-values are family-wise already)")
    c.add_argument("--pairs", action="store_true", help="print every pair instead of the summary per metric")
    r = sub.add_parser("recommend", help="which metric to report, with the evidence", epilog=EXAMPLES["recommend"],
                       formatter_class=fmt, description="Which metric to report on this data, and why.")
    _common(r)
    r.add_argument("--no-properties", action="store_true",
                   help="do not check the formal properties on this data's shape (about half the time: 3.1 s "
                        "instead of 6.5 s on rumoureval2017). The answer can change: the requirement lines are "
                        "left out, --require is refused, and a metric is exempt from the class-priors criterion "
                        "only where it scores exactly the same under every shifted prior on this data, not where "
                        "it is invariant by construction")
    r.add_argument("--official", metavar="METRIC", help="the task's official metric: the answer says where it stands")
    r.add_argument("--require", metavar="PROPERTY", action="append", default=[],
                   help="a formal property the answer must hold (repeatable), e.g. monotonicity, "
                        "uniform_class_change (invariance to class priors)")
    from .settings import ALL_CRITERIA

    r.add_argument("--priority", metavar="CRITERION", action="append", default=[], choices=ALL_CRITERIA,
                   help="the criteria in the order that matters for this task, one per --priority, most important "
                        f"first ({', '.join(ALL_CRITERIA)}): when no metric is kept on every criterion, the answer "
                        "is the sequential intersection of their sets, a criterion skipped when it would leave "
                        "nothing")
    g = sub.add_parser("design", help="how large a test set must be: the difference each metric detects",
                       epilog=EXAMPLES["design"], formatter_class=fmt,
                       description="Test-set size design: the smallest difference each metric detects, and the size "
                                   "a smaller one needs.")
    _common(g)
    g.add_argument("--long", action="store_true", help="every size of the design (the workflow's design.csv) "
                                                       "instead of the summary at the test set's size")
    m = sub.add_parser("metrics", help="every metric id, its name, direction, what it needs and its reference",
                       epilog=EXAMPLES["metrics"], formatter_class=fmt,
                       description="The metric ids --metrics takes (and the config's metrics:), with their names.")
    m.add_argument("--format", choices=FORMATS_OUT, default=None, help="table (the default on a terminal), csv, "
                                                                        "json, markdown, latex")
    m.add_argument("--metric-module", action="append", default=[], metavar="FILE.py|MODULE",
                   help="list the custom metrics of this file or module too")
    m.add_argument("-o", "--output", help="write to this file instead of standard output")
    e = sub.add_parser("settings", help="every experiment setting --set takes, its default and meaning",
                       epilog=EXAMPLES["settings"], formatter_class=fmt,
                       description="The experiment settings (--set KEY=VALUE, and the config's experiments: block).")
    e.add_argument("--format", choices=FORMATS_OUT, default=None, help="table (the default on a terminal), csv, "
                                                                        "json, markdown, latex")
    e.add_argument("-o", "--output", help="write to this file instead of standard output")
    lb = sub.add_parser("leaderboard", help="a benchmark of many tasks: which aggregate to report, which ranks it "
                                            "resolves, how many questions each task needs",
                        epilog=EXAMPLES["leaderboard"], formatter_class=fmt,
                        description="A leaderboard: every system's rank confidence set (Mogstad et al. 2024), the "
                                    "tie bands, the verdict on the aggregates and the questions per task that would "
                                    "resolve each unresolved pair (docs: Leaderboards).")
    lb.add_argument("gold", help="item id, label (the right answer), task and optionally the number of options")
    lb.add_argument("predictions", nargs="+", help="one file per system: its answers (item_id,label) or per-item "
                                                   "scores (item_id,score); the system is the file name")
    lb.add_argument("--input", choices=("answers", "scores"), default="answers", help="answers (default) or scores")
    lb.add_argument("--task-column", default="task", help="the gold file's task column (default: task)")
    lb.add_argument("--id-column", default="item_id", help="the item id column (default: item_id)")
    lb.add_argument("--label-column", default="label", help="the answer column (default: label)")
    lb.add_argument("--score-column", default="score", help="the per-item score column (default: score)")
    lb.add_argument("--options-column", help="the gold file's number of options per item (enables the "
                                             "chance-corrected aggregate and --no-answer-scoring guess)")
    lb.add_argument("--no-answer", action="append", help="the answer that means none was given, e.g. none "
                    "(repeatable: systems may write it differently)")
    lb.add_argument("--no-answer-scoring", choices=("wrong", "guess"), default="wrong",
                    help="a missing answer scores 0 (wrong, default) or 1 / n_options (guess: its expected value "
                         "under a random guess)")
    lb.add_argument("--aggregates", help="the aggregates judged, comma-separated (default: all that apply)")
    lb.add_argument("--primary", default="mean_items", help="the aggregate of the leaderboard shown (default: "
                                                            "mean_items)")
    lb.add_argument("--scheme", action="append", choices=("items", "tasks", "both"), default=[],
                    help="a resampling scheme (repeatable; default: the setting leaderboard_schemes, all three)")
    lb.add_argument("--priority", action="append", default=[], metavar="CRITERION",
                    choices=("stability", "resolution", "robustness", "gameability"),
                    help="the verdict's criteria in order of importance (repeatable)")
    lb.add_argument("--require", action="append", default=[], choices=("independent_of_others",),
                    help="a property every aggregate of the answer must have")
    lb.add_argument("--replicates", type=int, default=default_of("leaderboard_replicates"),
                    help=f"replicates of the rank sets (default: {default_of('leaderboard_replicates')}; the setting "
                         f"leaderboard_replicates)")
    lb.add_argument("--alpha", type=float, default=default_of("leaderboard_alpha"),
                    help=f"1 - the rank sets' confidence, and the verdict's level (default: "
                         f"{default_of('leaderboard_alpha')}; the setting leaderboard_alpha)")
    lb.add_argument("--no-design", action="store_true", help="leave out the design (questions per task needed)")
    lb.add_argument("--name", default="leaderboard", help="the benchmark's name in titles (default: leaderboard)")
    lb.add_argument("--format", choices=("table", "csv", "json", "markdown", "latex"), default=None,
                    help="table (the answer and the leaderboard; the default on a terminal), csv (every system's "
                         "rank sets of every aggregate and scheme; the default otherwise), json (every table), "
                         "markdown (the whole page), latex (the leaderboard)")
    lb.add_argument("-o", "--output", help="write to this file instead of standard output")
    lb.add_argument("--set", dest="settings", type=_setting, action="append", default=[], metavar="KEY=VALUE",
                    help="a leaderboard setting (leaderboard_*: 'metaeval settings' lists them), repeatable")
    lb.add_argument("--quiet", action="store_true", help="no progress line")
    lb.set_defaults(input_format=None)
    i = sub.add_parser("init", help="write a workflow config for a folder of gold and prediction files",
                       epilog=EXAMPLES["init"], formatter_class=fmt,
                       description="Write a config block the workflow runs as is.")
    i.add_argument("folder", help="the folder with gold.csv (or .tsv) and predictions/")
    i.add_argument("--name", help="the dataset's name (default: the folder's name)")
    i.add_argument("--ordinal", action="store_true", help="the labels are ordered (give --labels in order)")
    i.add_argument("--labels", help="the classes, comma-separated, in order (default: the gold's, sorted)")
    i.add_argument("-o", "--output", help="the config file (default: FOLDER/metaeval.yaml)")
    i.add_argument("--force", action="store_true", help="replace the config file if it exists")
    return parser


def _labels(a):
    if a.labels and getattr(a, "label_list", None):
        raise ValueError("give the classes with --labels or with --label, not both")
    return list(a.label_list) if getattr(a, "label_list", None) else _csv_list(a.labels)


def _data_keys(a) -> dict:
    keys = {"labels": _labels(a), "ordinal": a.ordinal or None, "metrics": _csv_list(a.metrics),
            "baselines": _csv_list(a.baselines), "positive_class": getattr(a, "positive_class", None),
            **_declared_systems(a)}
    return {k: v for k, v in keys.items() if v is not None}


def _declared_systems(a) -> dict:
    """``baseline_systems`` and ``real_systems`` of ``--baseline-systems``
    and ``--real-systems``: the names of the systems (the prediction and
    score files' names without extension) that their patterns match; a
    pattern that matches none is refused."""
    import fnmatch

    names = list(dict.fromkeys(Path(f).stem for f in [*(getattr(a, "predictions", None) or ()),
                                                       *(getattr(a, "scores", None) or ())]))
    out = {}
    for key, option in (("baseline_systems", "--baseline-systems"), ("real_systems", "--real-systems")):
        patterns = _csv_list(getattr(a, key, None))
        if patterns is None:
            continue
        for pattern in patterns:
            if not fnmatch.filter(names, pattern):
                raise ValueError(f"{option}: {pattern!r} matches no system (the files' names without extension: "
                                 f"{', '.join(names)})")
        out[key] = [n for n in names if any(fnmatch.fnmatchcase(n, p) for p in patterns)]
    return out


def _split_settings(a) -> tuple[dict, dict]:
    """``--set`` pairs: the dataset keys of the files read (``read_files``),
    and the experiment settings (every other key, checked by the API)."""
    from .api import _keywords, dataset, span_dataset

    # (the dataset's name is --name; the labels --labels; no key twice)
    data = ((_keywords(span_dataset) - {"texts", "baseline_systems"} | {"documents"}) if _span_format(a) else
            _keywords(dataset) - {"groups"}) - {"name", "labels", "ordinal", "metrics", "baselines"}
    from dataclasses import fields

    from .settings import Settings
    from .measures.labels import closest

    pairs = dict(a.settings)
    known = data | {f.name for f in fields(Settings)}
    own = sorted(set(pairs) & {"name", "labels", "ordinal", "metrics", "baselines"})
    if own:
        raise ValueError(f"--set {own[0]}: give it with --{own[0]} (an option of its own)")
    unknown = sorted(set(pairs) - known)
    if unknown:  # said before any file is read
        raise ValueError(f"--set {unknown[0]}: unknown key{closest(unknown, known)}; the experiment settings are "
                         f"listed by 'metaeval settings' with their defaults and meanings, the dataset keys are "
                         f"{', '.join(sorted(data))}")
    settings = {k: v for k, v in pairs.items() if k not in data}
    if getattr(a, "group_column", None):  # --group-column: the intervals and tests resample whole groups
        settings.setdefault("resample_unit", "group")
    return {k: v for k, v in pairs.items() if k in data}, settings


def metric_table():
    """Every metric id the tool knows, one row each: ``id, name, kind
    (classification, per-item terms, scores, span), better, default (judged without a
    metrics list), needs, other names, reference``."""
    import pandas as pd

    from .measures import labels as M
    from .present.notation import unicode as unicode_name
    from .measures.scores.registry import SCORE_REGISTRY
    from .measures.spans import SPAN_REGISTRY

    other = {}
    for alias, mid in M.ALIASES.items():
        other.setdefault(mid, []).append(alias)
    rows = []
    for kind, reg in (("classification", M.REGISTRY), ("per-item terms", M.ITEM_REGISTRY),
                      ("scores", SCORE_REGISTRY), ("span", SPAN_REGISTRY)):
        for mid, m in reg.items():
            needs = (["ordered classes"] if m.ordinal else []) + [M._PARAM_KEY[p] for p in m.params]
            if kind == "scores":  # what a metric of scores needs of the files
                needs = (["probabilities"] if m.probabilities else ["scores (--scores)"]) + \
                    (["groups (--group-column)", "a positive class"] if m.kind == "groups" else [])
            rows.append({"id": mid, "name": unicode_name(m), "kind": kind, "better": m.direction,
                         "default": "yes" if m.default else "no",
                         "needs": ", ".join(needs), "other names": ", ".join(other.get(mid, []) + (
                             [m.alias] if m.alias else [])),
                         "reference": m.reference or m.source})
    return pd.DataFrame(rows)


def _metrics(a) -> str:
    from .measures.custom import load_module

    for module in a.metric_module:
        load_module(module)
    return _render(metric_table(), a.format, "metaeval metrics (ids for --metrics and the config's metrics:)")


def settings_table():
    """Every experiment setting, one row each: ``key, method (its branch of
    metaeval.settings), default, value (what it must be), meaning``: the
    table of the documentation's Configuration page, from the same
    declarations."""
    from dataclasses import fields

    import pandas as pd

    from .settings import GROUPS, _default, _default_text, describe

    return pd.DataFrame([{"key": f.name, "method": name, "default": _default_text(_default(f)), "value": describe(f),
                          "meaning": f.metadata["meaning"]} for name, cls in GROUPS.items() for f in fields(cls)])


def _settings(a) -> str:
    fmt = a.format  # (main() decides it: a table on a terminal, else CSV)
    title = "metaeval settings (--set KEY=VALUE; the config's experiments: block)"
    if fmt != "table":
        return _render(settings_table(), fmt, title)
    # a terminal: one block per setting, the meaning wrapped to the terminal's width (a table of five columns
    # ran to 341 characters a line: the long defaults padded every row)
    import shutil
    import textwrap

    width = max(40, min(100, shutil.get_terminal_size((100, 24)).columns))
    out, method = [title, ""], None
    for _, r in settings_table().iterrows():
        if r["method"] != method:
            method = r["method"]
            out += ([""] if len(out) > 2 else []) + [f"[{method}]"]
        out += textwrap.wrap(f"{r['key']} = {r['default']}   ({r['value']})", width + 4, initial_indent="  ",
                             subsequent_indent="      ")
        out += textwrap.wrap(str(r["meaning"]), width, initial_indent="      ", subsequent_indent="      ")
    return "\n".join(out) + "\n"


def _stdin_file(a, tmp) -> None:
    """``-`` among the files: standard input, saved once as a file of the
    input format (the readers name it ``stdin.<ending>`` in messages)."""
    names = [a.gold] + list(a.predictions)
    if names.count("-") > 1:
        raise ValueError("'-' (standard input) may stand for one file only")
    if "-" not in names:
        return
    ending = {"semeval_tsv": ".tsv", "semeval2021_tsd": ".csv"}.get(a.input_format or "", ".csv")
    if a.input_format in ("semeval2020_si", "semeval2020_tc"):
        ending = ".labels"
    path = Path(tmp) / f"stdin{ending}"
    text = sys.stdin.read()
    if not text.strip():
        from .data.files import DataError, Problem

        example = "- system.csv < gold.csv" if a.gold == "-" else "gold.csv - < system.csv"
        raise DataError([Problem("standard input ('-')", None, f"empty: nothing was piped in (e.g. `metaeval "
                                 f"{a.command} {example}`; or name the file instead of '-')", "file")], "the input")
    path.write_text(text, encoding="utf-8")
    if a.gold == "-":
        a.gold = str(path)
    else:
        a.predictions = [str(path) if p == "-" else p for p in a.predictions]


def _read(a, default_baselines=()):
    from .api import read_files
    from .measures.custom import load_module
    from .measures.spans import SPAN_METRIC_IDS

    for module in getattr(a, "metric_module", None) or ():
        load_module(module)
    keys = _data_keys(a)
    keys.setdefault("baselines", list(default_baselines))
    keys.update(_split_settings(a)[0])
    if _span_format(a):
        keys.pop("ordinal", None)
        if keys.get("metrics") is not None:  # span metric ids among --metrics are the span metrics
            wanted = keys.pop("metrics")
            spans = [m for m in wanted if m in SPAN_METRIC_IDS]
            if spans:
                keys.setdefault("span_metrics", spans)
            if len(spans) < len(wanted):
                keys["metrics"] = [m for m in wanted if m not in SPAN_METRIC_IDS]
        return read_files(a.gold, a.predictions, format=_span_format(a), articles=a.articles, name=a.name, **keys)
    if getattr(a, "scores", None):
        return read_files(a.gold, a.predictions, format=a.input_format, id_column=a.id_column,
                          label_column=a.label_column, group_column=a.group_column, name=a.name,
                          **{**keys, **_score_keys(a)})
    if not a.predictions:
        raise ValueError("no prediction file: give one per system, or their scores (--scores)")
    return read_files(a.gold, a.predictions, format=a.input_format, id_column=a.id_column,
                      label_column=a.label_column, group_column=a.group_column, name=a.name, **keys)


def _score_keys(a) -> dict:
    """The ``read_files`` keys of the score options."""
    fmt: dict = {}
    if a.score_format:
        fmt["format"] = a.score_format
    if a.score_column:
        fmt["column"] = a.score_column
    if a.probability_columns:
        pairs = [x.split("=", 1) for x in _csv_list(a.probability_columns)]
        bad = [x[0] for x in pairs if len(x) != 2 or not x[0] or not x[1]]
        if bad:
            raise ValueError(f"--probability-columns: LABEL=COLUMN pairs, comma-separated; got {bad[0]!r}")
        fmt["columns"] = dict(pairs)
    if a.id_column and fmt.get("format") != "semeval2016t3":
        fmt["id_column"] = a.id_column
    out = {"scores": a.scores, "score_format": fmt or None, "score_threshold": a.score_threshold,
           "probability_tolerance": a.probability_tolerance, "normalize_probabilities": a.normalize_probabilities}
    if a.positive_class:
        out["positive_class"] = a.positive_class
    return out


def _span_format(a) -> str | None:
    """The span format of the files (``--input-format``, or its old name
    ``--span-format``, which warns), or None."""
    if getattr(a, "old_span_format", None):
        if a.input_format not in (None, a.old_span_format):
            raise ValueError("--span-format is the old name of --input-format: give --input-format alone")
        warnings.warn("--span-format is now --input-format (the config's 'format'); the old name works until the "
                      "next release", FutureWarning, stacklevel=2)
        a.input_format, a.old_span_format = a.old_span_format, None
    return a.input_format if a.input_format in SPAN_INPUT_FORMATS else None


# -- the signature: what a result was computed with, in one line (as sacrebleu's) ------------------------------------
_RESAMPLING_NAMES = {"bootstrap": "bootstrap", "tukey": "Tukey trials", "criteria": "criteria resamples",
                     "half_splits": "half-splits", "noisy_golds": "noisy golds", "design_subsets": "design subsets",
                     "property_matrices": "property matrices"}


def _used(data, opts: dict):
    """The experiment settings the library resolves from ``opts`` for this
    dataset (``api._prepare``'s: a span task resamples whole documents), as
    the call that computes the result does; its notes are silenced here
    (the call says them)."""
    from .api import _prepare

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return _prepare(data, None, dict(opts))[2]


def _signature(command: str, metrics, spec, st, resampling=(), **more) -> dict:
    """The signature's values: the version, the command, the metric ids,
    the resampling unit, each resampling method used with its number of
    resamples and its seed (``(method, n, seed, extra)``), then ``more``
    (``intervals``, ``test``, ``alpha``, ...), all from the settings used."""
    from . import __version__

    unit = ("documents" if spec.span_task else "groups") if st.resample_unit == "group" else "items"
    return {"version": __version__, "command": command, "metrics": [str(m) for m in metrics], "unit": unit,
            "resampling": [{"method": m, "resamples": int(n), "seed": int(s), **extra} for m, n, s, extra in resampling],
            **more}


def signature_text(sig: dict) -> str:
    """The signature in one line: ``metaeval 0.1.0 | score | metrics
    accuracy,macro_f1 | unit items | bootstrap 1000 (seed 20210303) |
    intervals percentile 95%``."""
    parts = [f"metaeval {sig['version']}", sig["command"], "metrics " + ",".join(sig["metrics"])]
    if sig.get("criteria"):
        parts.append("criteria " + ",".join(sig["criteria"]))
    if sig.get("priorities"):  # (the answer depends on them)
        parts.append("priorities " + ",".join(sig["priorities"]))
    parts.append(f"unit {sig['unit']}" if sig["resampling"] else "no resampling")
    for r in sig["resampling"]:
        per = " per rate" if r["method"] == "noisy_golds" else ""
        each = f", {r['half_splits']} half-splits each" if "half_splits" in r else ""
        parts.append(f"{_RESAMPLING_NAMES[r['method']]} {r['resamples']}{per} (seed {r['seed']}{each})")
    if sig.get("intervals"):
        iv = sig["intervals"]
        parts.append(f"intervals {iv['method']} {iv['confidence'] * 100:g}%")
    if sig.get("test"):
        parts.append("test " + {"tukey": "randomised Tukey HSD", "bootstrap": "paired bootstrap"}[sig["test"]]
                     + (f", {sig['correction']} correction" if sig.get("correction") else ""))
    for key in ("power", "alpha", "verdict_alpha"):
        if key in sig:
            parts.append(f"{key.replace('_', ' ')} {sig[key]:g}")
    return " | ".join(parts)


def _signed(text: str, fmt: str, sig: dict | None) -> str:
    """``text`` (an output in ``fmt``) with the signature: CSV a first
    ``# `` line (``pandas.read_csv(..., comment="#")`` skips it), LaTeX a
    first ``% `` line, Markdown and the terminal table a last line (JSON:
    ``_render``)."""
    if sig is None:
        return text
    line = signature_text(sig)
    if fmt == "csv":
        return f"# {line}\n" + text
    if fmt == "latex":
        return f"% {line}\n" + text
    if fmt == "markdown":
        return text.rstrip("\n") + f"\n\n`{line}`\n"
    return text.rstrip("\n") + f"\n\n{line}\n"


def _csv(df, quote_hash: bool) -> str:
    """``df`` as CSV; with ``quote_hash``, every text cell quoted when one
    holds a ``#`` (a system named ``run#2``), so that ``pandas.read_csv(...,
    comment="#")``, which skips the signature line, keeps the cell whole."""
    import csv

    import pandas as pd

    text = [str(c) for c in df.columns] + [str(v) for c in df.columns if not pd.api.types.is_numeric_dtype(df[c])
                                           for v in df[c]]
    quoting = csv.QUOTE_NONNUMERIC if quote_hash and any("#" in x for x in text) else csv.QUOTE_MINIMAL
    return df.to_csv(index=False, lineterminator="\n", quoting=quoting)


def _p_text(df, levels):
    """``df`` with its p-value columns (``p``, ``p_*``, ``mcs_p*``) as text by ``tables.format_p``."""
    from .present.tables import format_p

    cols = [c for c in df.columns if isinstance(c, str) and (c == "p" or c.startswith("p_") or c.startswith("mcs_p"))
            and df[c].dtype.kind == "f"]
    if not cols:
        return df
    df = df.copy()
    for c in cols:
        df[c] = [format_p(v, tuple(levels)) if v == v else "" for v in df[c]]
    return df


def _render(df, fmt: str, title: str = "", sig: dict | None = None) -> str:
    import pandas as pd

    from .present.tables import latex_table, markdown_table

    if fmt == "csv":
        return _signed(_csv(df, quote_hash=sig is not None), fmt, sig)
    if fmt == "json":
        if sig is None:
            return df.to_json(orient="records", indent=2) + "\n"
        import json

        return json.dumps({"signature": signature_text(sig), "signature_fields": sig,
                           "rows": json.loads(df.to_json(orient="records"))}, indent=2) + "\n"
    # for people, a p-value by the project's one rule (tables.format_p: never rounded onto or across the level)
    df = _p_text(df, [x for x in ((sig or {}).get("alpha"), (sig or {}).get("verdict_alpha"), 0.05) if x])
    if fmt == "markdown":  # (the metrics' names typeset as in the workflow's Markdown files)
        from .present.notation import plain_markdown

        return _signed(plain_markdown((f"**{title}**\n\n" if title else "") + markdown_table(df)), fmt, sig)
    if fmt == "latex":
        return _signed(latex_table(df, caption=title), fmt, sig)
    # the terminal's table, laid out here (pandas' to_string shifted a header by one character after a text
    # column): text columns (object under pandas 2, "str" under pandas 3) read from the left, numbers from
    # the right, floats with three decimals, missing values blank
    from .present.notation import typeset_unicode

    def cell(v) -> str:  # (a metric's name in Unicode: Rᴹ, αᴺᴼᴹ)
        if v is None or (isinstance(v, float) and v != v) or v is pd.NA:
            return ""
        return f"{v:.3f}" if isinstance(v, float) else typeset_unicode(v)

    columns = []
    for c in df.columns:
        text = pd.api.types.is_object_dtype(df[c]) or pd.api.types.is_string_dtype(df[c])
        cells = [cell(v) for v in df[c]]
        width = max([len(str(c))] + [len(x) for x in cells])
        pad = str.ljust if text else str.rjust
        columns.append([pad(str(c), width)] + [pad(x, width) for x in cells])
    rows = ["  ".join(parts).rstrip() for parts in zip(*columns)] if columns else []
    return _signed((f"{title}\n\n" if title else "") + "\n".join(rows) + "\n", fmt, sig)


def _interval_cells(scores, metric_ids):
    """``value [low, high]`` per metric, for reading in a terminal."""
    import pandas as pd

    out = pd.DataFrame({"system": scores.index, "kind": scores["kind"].to_numpy()})
    for m in metric_ids:
        out[m] = [f"{v:.3f} [{lo:.3f}, {hi:.3f}]" if lo == lo else f"{v:.3f}"
                  for v, lo, hi in zip(scores[m], scores[f"{m}_low"], scores[f"{m}_high"])]
    return out


def _score(a, progress) -> str:
    from . import api
    from .measures import labels as M

    with progress.step("reading"):
        data = _read(a)
    ds, spec = data
    opts = _split_settings(a)[1]
    opts.setdefault("bootstrap_replicates", a.replicates)
    opts.setdefault("confidence", a.confidence)
    opts.setdefault("interval_method", a.interval_method)
    st = _used(data, opts)
    with progress.step(f"scoring{'' if a.no_intervals else f' with {st.bootstrap_replicates} bootstrap replicates'}"):
        scores = api.evaluate(data, intervals=not a.no_intervals, settings=api.settings(**opts))
    ids = list(spec.all_metrics)
    primary = spec.primary_metric
    # (a sort on two keys: pandas' lexicographic sort keeps ties in the given order)
    scores = scores.sort_values(["kind", primary], ascending=[False, not M.get(primary).higher_is_better])
    # what the intervals resampled: as the library resolves it (groups given: whole groups, unless told items)
    unit = spec.unit_noun(st.resample_unit)
    size = (f"{ds.spans.n_articles:,} articles" if spec.span_task else f"{ds.n_items:,} items"
            + (f" in {len(ds.group_names):,} groups" if ds.groups is not None else ""))
    title = (f"{spec.name}: {len(ds.systems)} systems, {size}"
             + ("" if a.no_intervals else f"; {st.confidence:.0%} {st.interval_method} bootstrap intervals "
                                          f"of the {unit}, {st.bootstrap_replicates} replicates"))
    sig = (_signature("score", ids, spec, st) if a.no_intervals else
           _signature("score", ids, spec, st, [("bootstrap", st.bootstrap_replicates, st.bootstrap_seed, {})],
                      intervals={"method": st.interval_method, "confidence": st.confidence}))
    if a.format == "table" and not a.no_intervals:
        return _render(_interval_cells(scores, ids), "table", title, sig)
    return _render(scores.reset_index(), a.format, title, sig)


def _compare(a, progress) -> str:
    from . import api

    with progress.step("reading"):
        data = _read(a)
    opts = _split_settings(a)[1]
    opts.setdefault("significance_test", a.test)
    opts.setdefault("tukey_trials", a.trials)
    opts.setdefault("alpha", a.alpha)
    opts.setdefault("significance_correction", a.correction)
    st = _used(data, opts)
    tukey = st.significance_test == "tukey"
    test = (f"randomised Tukey HSD, {st.tukey_trials} trials" if tukey else
            f"paired bootstrap test, {st.significance_correction} correction")
    with progress.step(f"testing every pair ({test})"):
        c = api.compare(data, settings=api.settings(**opts))
    title = f"{data[1].name}: {test}, alpha {c.alpha:g}"
    sig = _signature("compare", data[1].all_metrics, data[1], st,
                     [("tukey", st.tukey_trials, st.tukey_seed, {}) if tukey else
                      ("bootstrap", st.bootstrap_replicates, st.bootstrap_seed, {})],
                     test=st.significance_test, **({} if tukey else {"correction": st.significance_correction}),
                     alpha=st.alpha)
    if a.pairs:
        return _render(c.pairs, a.format, title, sig)
    summary = c.best.merge(c.power[["metric", "n_pairs", "n_significant", "discriminative_power"]], on="metric")
    return _render(summary, a.format, title, sig)


def _recommend(a, progress) -> str:
    from . import api
    from .verdict.sentences import answer_sentence
    from .verdict.page import criteria_table, recommendation_json, recommendation_long

    if a.require and a.no_properties:
        raise ValueError("--require needs the formal properties of this data's shape: drop --no-properties")

    with progress.step("reading"):
        data = _read(a, _workflow_baselines(a))
    opts = _split_settings(a)[1]
    st = api.settings(**opts)
    with progress.step("judging the metrics"):
        rec = api.recommend(data, properties=not a.no_properties, requirements=a.require,
                            priorities=a.priority, official_metric=a.official, settings=st)
    with progress.step("the test-set size design"):
        size = (api.size_design(data, settings=st).sentence(rec.size_metrics(), where="every size: metaeval design")
                if rec.size_metrics() else None)
    sig = _recommend_signature(a, data, _used(data, opts), rec, designed=size is not None)
    if a.format == "json":
        return recommendation_json(rec, test_set_size=size, signature=signature_text(sig), signature_fields=sig)
    if a.format == "csv":
        return _render(recommendation_long(rec), "csv", sig=sig)
    from .verdict.sentences import tradeoff_lines

    text = answer_sentence(rec) + (f" {size}" if size else "")
    trade = "\n".join(tradeoff_lines(rec)).strip()
    table = criteria_table(rec)
    if a.format == "markdown":
        from .present.notation import plain_markdown

        return plain_markdown(text + (f"\n\n{trade}" if trade else "")) + "\n\n" + _render(table, "markdown", sig=sig)
    if a.format == "latex":
        return _render(table, "latex", text, sig)
    import textwrap

    from .present.notation import typeset_unicode

    # the trade-off as plain lines: its Markdown's emphasis dropped, each line wrapped
    plain = [textwrap.fill(typeset_unicode(x.replace("**", "")), 100, subsequent_indent="  " if x.startswith("- ")
                           else "") for x in trade.split("\n")] if trade else []
    return (textwrap.fill(typeset_unicode(text), 100) + "\n\n" + ("\n".join(plain) + "\n\n" if plain else "")
            + _render(table, "table", sig=sig))


def _recommend_signature(a, data, st, rec, designed: bool) -> dict:
    """What the recommendation drew: the criteria's resamples (each with
    its half-splits), the half-splits and noisy golds of the point values,
    the gameability test's bootstrap (the design's too), the design's
    subsets, the formal properties' random matrices."""
    spec = data[1]
    draws = [("criteria", st.criteria_replicates, st.criteria_seed, {"half_splits": st.criteria_splits}),
             ("half_splits", st.n_splits, st.split_seed, {})]
    if "noise" in rec.criteria:
        draws.append(("noisy_golds", st.noise_repeats, st.noise_seed, {}))
    draws.append(("bootstrap", st.bootstrap_replicates, st.bootstrap_seed, {}))
    if designed:
        draws.append(("design_subsets", st.design_draws, st.design_seed, {}))
    if not a.no_properties and spec.k >= 2:
        from .settings import PropertySettings

        ps = PropertySettings.from_config({})
        draws.append(("property_matrices", ps.random, ps.seed, {}))
    return _signature("recommend", rec.metrics, spec, st, draws, criteria=list(rec.criteria),
                      **({"priorities": list(rec.priorities)} if getattr(rec, "priorities", ()) else {}),
                      intervals={"method": "centred percentile", "confidence": st.confidence}, alpha=st.alpha,
                      verdict_alpha=st.verdict_alpha)


def _workflow_baselines(a) -> tuple[str, ...]:
    """The baselines the workflow ranks with the systems of this format."""
    from .data.config import BASELINE_KINDS, SPAN_BASELINE_KINDS

    return SPAN_BASELINE_KINDS if _span_format(a) in ("semeval2020_si", "semeval2021_tsd") else BASELINE_KINDS


def _design(a, progress) -> str:
    from . import api

    with progress.step("reading"):
        data = _read(a, _workflow_baselines(a))
    opts = _split_settings(a)[1]
    with progress.step("the bootstrap and the disjoint subsets of the test-set size design"):
        d = api.size_design(data, settings=api.settings(**opts))
    full = d.design[d.design["fraction"] == 1.0]
    n, unit = int(full["size"].iloc[0]), full["unit"].iloc[0]
    title = (f"{data[1].name}: test-set size design, {n:,} {unit}; power {full['target_power'].iloc[0]:g} of a "
             f"two-sided z-test at alpha {full['alpha'].iloc[0]:g}")
    st = _used(data, opts)
    sig = _signature("design", data[1].all_metrics, data[1], st,
                     [("bootstrap", st.bootstrap_replicates, st.bootstrap_seed, {}),
                      ("design_subsets", st.design_draws, st.design_seed, {})], power=st.design_power, alpha=st.alpha)
    return _render(d.design if a.long else d.summary, a.format, title, sig)


def _init(a) -> str:
    import yaml

    from .data.files import DataError
    from .data.readers.labels import read_labels

    folder = Path(a.folder).resolve()
    if not folder.is_dir():
        raise DataError([_problem(str(folder), "no such folder")])
    golds = [p for p in (folder / "gold.csv", folder / "gold.tsv") if p.is_file()]
    if len(golds) != 1:
        raise DataError([_problem(str(folder), "expected one gold file, gold.csv or gold.tsv, found "
                                               + (", ".join(p.name for p in golds) or "none"))])
    gold = golds[0]
    preds = sorted(p for p in (folder / "predictions").glob(f"*{gold.suffix}") if p.is_file()) \
        if (folder / "predictions").is_dir() else []
    if not preds:
        raise DataError([_problem(str(folder / "predictions"), f"no prediction file (*{gold.suffix}) found")])
    t = read_labels(gold)
    if t.problems:
        raise DataError(t.problems, f"gold file {gold}")
    from .api import _number, gold_classes

    labels = _csv_list(a.labels) or gold_classes(t.labels, where=str(gold))
    if a.ordinal and not a.labels and not all(_number(x) is not None for x in labels):
        raise ValueError("--ordinal needs --labels in the order of the scale: text labels have no order of their "
                         "own (found " + ", ".join(labels) + ")")
    # every file read as the workflow's ingestion will read it: a fault (a missing item, an unknown label, a
    # header typo, an empty file) is named now, with its file and line, not when the run starts
    from .api import read_files

    # a file named like a baseline (Random_bsl__x: the organisers') is declared one, and said: the verdict is
    # decided on the real systems only
    marked = _named_like_baselines(preds)
    ds, _ = read_files(gold, preds, labels=labels, name=a.name or folder.name.replace(" ", "_"),
                       baseline_systems=list(marked))
    block = {"description": f"{folder.name}: written by metaeval init", "gold": gold.name,
             "predictions": [f"predictions/*{gold.suffix}"], "labels": labels, "ordinal": bool(a.ordinal)}
    if gold.suffix == ".tsv":
        block["delimiter"] = "\t"
    cfg = {"data_dir": str(folder), "datasets": {a.name or folder.name.replace(" ", "_"): block}}
    out = Path(a.output) if a.output else folder / "metaeval.yaml"
    if out.exists() and not a.force:
        raise ValueError(f"{out} exists: give --force to replace it, or -o another file")
    import shlex

    from .data.resources import snakefile

    # the installed workflow (or the checkout's, for an editable install):
    # the command runs from any folder
    run = (f"snakemake -s {shlex.quote(str(snakefile()))} --cores 8 --configfile {shlex.quote(str(out.resolve()))} "
           f"--directory {shlex.quote(str(folder / 'run'))}")
    text = ("# written by `metaeval init`; run it with\n"
            f"#   {run}\n"
            "# (--directory: the results go to its results/)\n"
            "# the experiment settings: `metaeval settings`; every key: the documentation's Configuration page\n"
            "# (labels are in the order of the scale when ordinal is true)\n"
            + yaml.safe_dump(cfg, sort_keys=False, allow_unicode=True) + _baselines_block(marked))
    from .data.files import write_text

    write_text(out, text)
    import importlib.util

    missing = ("" if importlib.util.find_spec("snakemake") else
               "Snakemake is not installed here: install the workflow first with "
               "pip install '<the metaeval checkout>[workflow]' (or pip install snakemake[reports]).\n")
    # what the reading normalised (ids or groups read without their spaces): said now, as the run will say it
    said = "".join(f"warning: {w}\n" for w in ds.info.get("warnings", []) if " had spaces around " in w)
    return f"wrote {out} ({len(preds)} systems, labels {', '.join(labels)}); run it with\n  {run}\n" \
           f"(the results go to {folder / 'run' / 'results'})\n" + _init_systems(ds, marked, out) + said + missing


def _baselines_block(marked: Mapping[str, str]) -> str:
    """The last lines of the dataset block ``metaeval init`` writes: the
    files named like baselines declared in ``baseline_systems``, with why
    and how to rank one as a real system (one line, as its output says)."""
    import glob

    from .data.config import declare_line

    if not marked:
        return ""
    return ("    # files named like baselines (a word of the name is baseline, bsl, random or majority): ranked apart\n"
            "    # from the real systems; move a name to real_systems: [...] to rank it as a real system\n"
            f"    {declare_line('baseline_systems', [glob.escape(s) for s in marked])}\n")


def _named_like_baselines(files) -> dict[str, str]:
    """``{file name without extension: the word that marks it}`` of the
    files named like baselines (``config.baseline_word``)."""
    from .data.config import baseline_word

    return {Path(f).stem: w for f in files if (w := baseline_word(Path(f).stem)) is not None}


def _init_systems(ds, marked: Mapping[str, str], config) -> str:
    """What ``metaeval init`` says of the systems: the real ones, the
    baselines (the files named like baselines, declared in
    ``baseline_systems``, and the generated ones), and how to rank a
    declared one as a real system instead."""
    import glob

    from .data.config import declare_line

    named = ds.info["systems"]
    text = f"real systems ({len(named['real'])}): {', '.join(named['real'])}\n"
    supplied = [f"{s} (named like a baseline: the word {w!r})" for s, w in marked.items()]
    generated = named["generated_baselines"]
    text += (f"baselines ({len(supplied) + len(generated)}): " + ", ".join(supplied)
             + (", and the generated " if supplied and generated else "") + ", ".join(generated) + "\n")
    if len(marked) == 1:
        stem = glob.escape(next(iter(marked)))
        text += (f"to rank {next(iter(marked))} as a real system instead, replace "
                 f"\"{declare_line('baseline_systems', [stem])}\" with \"{declare_line('real_systems', [stem])}\" "
                 f"in {config}\n")
    elif marked:
        text += (f"to rank one of them as a real system instead, move its name from baseline_systems to "
                 f"real_systems in {config} (e.g. \"{declare_line('real_systems', [glob.escape(next(iter(marked)))])}\")\n")
    return text


def _problem(path: str, message: str):
    from .data.files import Problem

    return Problem(path, None, message, "file")


def _leaderboard(a, progress) -> str:
    """``metaeval leaderboard``: every table of ``pipeline.leaderboard``, as
    the answer and the leaderboard (table), the ranks (csv), every table
    (json), the page (markdown) or the leaderboard (latex)."""
    import json

    from .pipeline.leaderboard import leaderboard

    settings = {"leaderboard_replicates": a.replicates, "leaderboard_alpha": a.alpha, **dict(a.settings)}
    if a.scheme:
        settings["leaderboard_schemes"] = list(dict.fromkeys(a.scheme))
    from .data.config import ConfigError
    from .present.leaderboard import signature_line

    files = {Path(p).stem: p for p in a.predictions}
    if len(files) != len(a.predictions):
        same = [p for p in a.predictions if sum(Path(q).stem == Path(p).stem for q in a.predictions) > 1]
        raise ValueError(f"prediction files of the same name (the system's name is the file name): {', '.join(same)}")
    no_answer = None if not a.no_answer else a.no_answer[0] if len(a.no_answer) == 1 else a.no_answer
    try:
        res = leaderboard(a.gold, files, name=a.name, task_column=a.task_column, options_column=a.options_column,
                          input=a.input, no_answer=no_answer, no_answer_scoring=a.no_answer_scoring,
                          aggregates=_csv_list(a.aggregates), primary_aggregate=a.primary, priorities=a.priority,
                          require=a.require, design=not a.no_design, id_column=a.id_column,
                          label_column=a.label_column, score_column=a.score_column, **settings)
    except ConfigError as e:  # the spec's keys in the command line's words
        text = str(e).replace(f"leaderboards.{a.name}.", "")
        for key, opt in (("primary_aggregate", "--primary"), ("no_answer_scoring", "--no-answer-scoring"),
                         ("options_column", "--options-column"), ("aggregates", "--aggregates"),
                         ("no_answer", "--no-answer"), ("experiments", "--set")):
            text = text.replace(key, opt)
        raise ConfigError(text) from None
    info = res.benchmark_info()
    sig = signature_line(info, list(res.settings.leaderboard_schemes))
    if a.format == "markdown":
        return res.markdown()
    if a.format == "latex":
        from .present.leaderboard import leaderboard_latex

        return f"% {sig}\n" + leaderboard_latex(res.ranks, res.spec.primary_aggregate, a.name,
                                                res.settings.leaderboard_alpha, info.get("caution"))
    if a.format == "csv":
        return f"# {sig}\n" + _csv(res.ranks, quote_hash=True)
    if a.format == "json":
        out = {"signature": sig, "answer": {s: v.sentence(res.spec.primary_aggregate) for s, v in res.verdicts.items()},
               "notes": info["notes"], "caution": info.get("caution"), "settings": info["settings"]}
        out.update({k.removesuffix(".csv"): json.loads(v.to_json(orient="records")) for k, v in res.tables().items()})
        return json.dumps(out, indent=1, default=list) + "\n"
    t = res.table()
    answers = [v.sentence(res.spec.primary_aggregate) for v in res.verdicts.values()]  # every scheme's
    lines = answers + ([f"Caution: {info['caution']}"] if info.get("caution") else []) + [
        "", f"{res.spec.primary_aggregate}, {res.settings.leaderboard_schemes[0]} scheme "
        f"({1 - res.settings.leaderboard_alpha:.0%} rank sets):"]
    cols = ["rank", "system", "estimate", "simultaneous_lower", "simultaneous_upper", "marginal_lower",
            "marginal_upper", "percentile_lower", "percentile_upper"]
    lines.append(t[cols].to_string(index=False, float_format=lambda x: f"{x:.4f}"))
    r = res.resolution
    row = r[(r["aggregate"] == res.spec.primary_aggregate) & (r["scheme"] == res.settings.leaderboard_schemes[0])]
    if len(row):
        lines += ["", f"tie bands: {row['tie_bands'].iloc[0] or 'none'}"]
    if len(res.settings.leaderboard_schemes) > 1:
        lines += [f"(the {res.settings.leaderboard_schemes[0]} scheme's sets; every scheme's: --format markdown)"]
    return "\n".join(lines + ["", sig]) + "\n"


def main(argv=None) -> int:
    """The ``metaeval`` command; returns the exit status (0; 1 for bad data; 2 for a usage error; 130 when
    interrupted with Ctrl-C, which leaves no output: -o is written only once the work is done)."""
    try:
        return _main(argv)
    except KeyboardInterrupt:
        sys.stderr.write("\nmetaeval: interrupted; nothing was written\n")
        return 130


def _main(argv=None) -> int:
    from .data.config import ConfigError
    from .settings import MetricFault
    from .measures.custom import MetricContractError
    from .data.files import DataError, write_text

    parser = build_parser()
    a, extra = parser.parse_known_args(argv)
    files = [x for x in extra if x == "-" or not x.startswith("-")]
    if extra and (files != extra or not hasattr(a, "predictions")):  # an unknown option: argparse's exit 2
        parser.error(f"unrecognized arguments: {' '.join(x for x in extra if x not in files) or ' '.join(extra)}")
    if files:  # prediction files after an option (score gold.csv a.csv --no-intervals b.csv): the files they are
        a.predictions = list(a.predictions) + files
    out_tty = a.__dict__.get("output") is None and sys.stdout.isatty()
    if "format" in a and a.format is None:
        a.format = "table" if out_tty else "csv"
    progress = _Progress(enabled=sys.stderr.isatty() and not a.__dict__.get("quiet", False))
    given = dict(a.__dict__.get("settings") or [])  # the keys of --set, named as given
    stdin_dir = [None]

    def say(text: str) -> str:
        text = cli_message(text, given)
        return text.replace(stdin_dir[0], "") if stdin_dir[0] else text

    unwritable = _unwritable(a.__dict__.get("output"), _inputs(a))
    if unwritable:  # said before the work, not after it
        sys.stderr.write(f"metaeval {a.command}: {unwritable}\n")
        return 2
    try:
        if a.command == "init":
            sys.stdout.write(_init(a))
            return 0
        if a.command in ("metrics", "settings"):
            text = _metrics(a) if a.command == "metrics" else _settings(a)
            (write_text(a.output, text) if a.output else sys.stdout.write(text))
            return 0
        import tempfile

        with warnings.catch_warnings(record=True) as said, tempfile.TemporaryDirectory() as tmp:
            stdin_dir[0] = tmp + os.sep  # (messages name standard input's copy stdin.<ending>, not its folder)
            warnings.simplefilter("always", UserWarning)
            warnings.simplefilter("always", FutureWarning)  # an old name, said once per use
            _stdin_file(a, tmp)
            command = {"score": _score, "compare": _compare, "recommend": _recommend, "design": _design,
                       "leaderboard": _leaderboard}[a.command]
            if a.__dict__.get("jobs") is None:
                text = command(a, progress)
            else:
                from .engine.kernels import threads

                with threads(a.jobs):
                    text = command(a, progress)
        for w in said:  # what the workflow would print on its console
            if issubclass(w.category, (UserWarning, FutureWarning)):
                sys.stderr.write(f"warning: {say(str(w.message))}\n")
    except (DataError, MetricContractError, MetricFault) as e:  # the files (or a metric's code) are at fault: 1
        sys.stderr.write(f"metaeval {a.command}: {say(str(e))}\n")
        return 1
    except (ConfigError, ValueError, TypeError) as e:  # the options are: 2, as argparse's usage errors
        sys.stderr.write(f"metaeval {a.command}: {say(str(e))}\n")
        return 2
    try:
        (write_text(a.output, text) if a.output else sys.stdout.write(text))
    except OSError as e:  # the disk filled, or the folder changed since the check
        sys.stderr.write(f"metaeval {a.command}: cannot write -o {a.output} ({e.strerror or e})\n")
        return 1
    return 0


# the command line's names of the config keys and library keywords its messages
# may name (the rest are --set KEY=VALUE)
_OPTION_OF = {"labels": "--labels", "ordinal": "--ordinal", "metrics": "--metrics", "baselines": "--baselines",
              "group_column": "--group-column", "id_column": "--id-column", "label_column": "--label-column",
              "format": "--input-format", "articles": "--articles", "scores": "--scores",
              "score_format": "--score-format", "positive_class": "--positive-class",
              "score_threshold": "--score-threshold", "probability_tolerance": "--probability-tolerance",
              "normalize_probabilities": "--normalize-probabilities", "bootstrap_replicates": "--replicates",
              "confidence": "--confidence", "interval_method": "--interval-method", "significance_test": "--test",
              "tukey_trials": "--trials", "alpha": "--alpha", "correction": "--correction",
              "baseline_systems": "--baseline-systems", "real_systems": "--real-systems", "priorities": "--priority"}
# library phrases a message may carry, in the command line's words
_PHRASES = (("ordinal=True needs labels in the order of the scale (labels=[...])",
             "--ordinal needs --labels in the order of the scale"),
            ("give metrics=[...] to read_files(), dataset() or span_dataset() to compute them",
             "list them in --metrics to compute them"),
            ("give prediction files, or scores=[...]", "give prediction files, or --scores"),
            ("(baselines=[] for none)", "(--baselines '' for none)"),
            ("resample_unit: item", "--set resample_unit=item"),
            ("name every class with labels=[...] and allow_unused_labels=True",
             "name every class with --labels and give --set allow_unused_labels=true"),
            ("name them all with labels=[...]", "name them all with --labels"),
            ("set normalize_labels=['strip']", "give --set normalize_labels=[strip]"),
            ("name the classes with labels=[...] and normalize_labels=['case']",
             "name the classes with --labels and give --set normalize_labels=[case]"),
            ("needs the classes named (labels=[...])", "needs the classes named (--labels)"),
            # a leaderboard's notes and settings
            ("declare them in no_answer (one value or a list: ", "declare them with --no-answer (repeatable: "),
            ("their scoring: no_answer_scoring)", "their scoring: --no-answer-scoring)"),
            ("(no_answer_scoring: ", "(--no-answer-scoring "),
            ("leaderboard(): unknown setting(s)", "--set: unknown setting(s)"))


def cli_message(text: str, given: Mapping[str, Any] | None = None) -> str:
    """A library or config message in the command line's words: the config
    keys (``datasets.data.labels``, ``experiments.tukey_trials``) and
    keywords (``label_map: ...``, ``min_systems=5 silences this``) become
    the options that set them (``--labels``, ``--trials``), or ``--set
    KEY`` (a key ``given`` by ``--set`` is named as it was given).

    >>> cli_message("datasets.data.labels: need at least two labels (classes), got ['a']")
    "--labels: need at least two labels (classes), got ['a']"
    >>> cli_message("experiments.tukey_trials must be an integer >= 1, got 0", {"tukey_trials": 0})
    '--set tukey_trials must be an integer >= 1, got 0'
    >>> cli_message("too few systems (min_systems=5 silences this)")
    'too few systems (--set min_systems=5 silences this)'
    >>> cli_message("too few systems (settings=metaeval.api.settings(min_systems=5) silences this)")
    'too few systems (--set min_systems=5 silences this)'
    """
    import re

    given = given or {}

    def option(key: str) -> str:
        return f"--set {key}" if key in given or key not in _OPTION_OF else _OPTION_OF[key]

    for lib, cli in _PHRASES:
        text = text.replace(lib, cli)
    text = _declare_options(text)
    text = re.sub(r"\bdatasets\.[^\s.:]+\.(\w+)", lambda m: option(m.group(1)), text)
    text = re.sub(r"\bexperiments\.(\w+)", lambda m: option(m.group(1)), text)
    text = re.sub(r"\bthe dataset key '(\w+)'", lambda m: option(m.group(1)), text)
    text = re.sub(r"\bsettings=metaeval\.api\.settings\((\w+)=([^)\s]+)\) silences this", r"\1=\2 silences this", text)
    text = re.sub(r"\b(\w+)=(\S+) silences this", lambda m: f"--set {m.group(1)}={m.group(2)} silences this", text)
    from .api import _KEYWORD_TYPES

    head = re.match(r"(\w+): ", text)
    if head and (head.group(1) in _KEYWORD_TYPES or head.group(1) in _OPTION_OF):
        text = option(head.group(1)) + text[len(head.group(1)):]
    return text


def _declare_options(text: str) -> str:
    """``baseline_systems=['x']`` and ``real_systems=['x']`` of a library
    message as the options ``--baseline-systems x`` and ``--real-systems x``.

    >>> _declare_options("give baseline_systems=['bsl_1']; real_systems=['bsl_1'] silences this")
    'give --baseline-systems bsl_1; --real-systems bsl_1 silences this'
    """
    import ast
    import re
    import shlex

    def option(m) -> str:
        try:
            names = ast.literal_eval(m.group(2))
            return f"--{m.group(1).replace('_', '-')} " + shlex.quote(",".join(names))
        except (ValueError, SyntaxError, TypeError):  # not a list of names: left as written
            return m.group(0)

    return re.sub(r"\b(baseline_systems|real_systems)=(\[[^\]]*\])", option, text)


def _inputs(a) -> list[str]:
    """The files a command reads (gold, predictions, scores, metric files)."""
    d = a.__dict__
    files = [d.get("gold"), *(d.get("predictions") or []), *(d.get("scores") or []),
             *(d.get("metric_module") or [])]
    return [str(f) for f in files if f and f != "-"]


def _unwritable(output, inputs=()) -> str | None:
    """Why ``-o output`` cannot be written (a folder, a file or folder that
    may not be written, one of the command's own input files), or None."""
    from .data.files import can_create

    if not output:
        return None
    path = Path(output)
    if any(Path(f).exists() and path.exists() and path.resolve() == Path(f).resolve() for f in inputs):
        return f"-o {output} is one of the input files: it would be overwritten; give another file name"
    if path.is_dir():
        return f"-o {output} is a folder: give a file name, e.g. -o {path / 'scores.csv'}"
    if path.exists() and not path.is_file():
        return (f"-o {output} is not a regular file (a device, pipe or socket): give a file name, or leave -o out "
                f"to write to standard output")
    path = Path(os.path.realpath(path))  # (a link is written through: its target's folder must take the file)
    folder = next(p for p in [path.parent, *path.parent.parents] if p.exists())  # ('.' or '/' at the latest)
    if not folder.is_dir():
        return f"-o {output}: {folder} is a file, not a folder"
    if (path.exists() and not os.access(path, os.W_OK)) or not can_create(folder):
        return f"-o {output} cannot be written (permission denied in {folder})"
    return None


if __name__ == "__main__":  # python -m metaeval.cli
    sys.exit(main())
