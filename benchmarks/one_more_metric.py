"""The project's config with one more metric judged on every dataset with
classes: a custom metric (the worst per-class recall, docs/custom-metrics.md)
listed beside each dataset's default metrics. What judging one extra metric
costs the whole run (benchmarks/README.md):

    python benchmarks/one_more_metric.py /tmp/extra
    bash benchmarks/whole_run.sh . extra1 /tmp/extra/config.yaml
"""

from __future__ import annotations

import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]

METRIC = '''import numpy as np


def worst_recall(c):
    tp = np.diagonal(c, axis1=-2, axis2=-1)
    gold = c.sum(axis=-2)
    recall = np.divide(tp, gold, out=np.ones_like(tp), where=gold > 0)
    return recall.min(axis=-1)
'''


def main(out: Path) -> None:
    cfg = yaml.safe_load((ROOT / "config" / "config.yaml").read_text())
    cfg["custom_metrics"] = {"worst_recall": {"function": "my_metrics.py:worst_recall", "higher_is_better": True,
                                              "range": [0, 1], "name": "min-R"}}
    for block in cfg["datasets"].values():
        if block.get("format") not in ("semeval2020_si", "semeval2021_tsd"):  # (span identification: no classes)
            block["metrics"] = list(block.get("metrics") or ["default"]) + ["worst_recall"]
    if cfg.get("reproduction", {}).get("published"):  # (relative to the project, not to this config)
        cfg["reproduction"]["published"] = str(ROOT / cfg["reproduction"]["published"])
    out.mkdir(parents=True, exist_ok=True)
    (out / "my_metrics.py").write_text(METRIC)
    (out / "config.yaml").write_text(yaml.safe_dump(cfg, sort_keys=False))
    print(out / "config.yaml")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
