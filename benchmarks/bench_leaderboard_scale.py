"""A leaderboard at scale through the workflow: SYSTEMS systems answering
ITEMS questions in TASKS tasks (synthetic), run by Snakemake on 2 cores
with the leaderboard settings at their defaults; the wall time of the run,
of each job (from the jobs' logs) and the peak memory (the largest resident
set of any process of the run, GNU time's ``%M`` of the Snakemake call:
``ru_maxrss`` of its children).

    python benchmarks/bench_leaderboard_scale.py --systems 300 --items 100000 --tasks 50 --out /tmp/lb_scale

The synthetic benchmark: each task has its own difficulty, each system a
skill and a strength per task, so that systems differ by task (the
aggregates then disagree) and close systems exist (the rank sets have
bands); answers are letters among 4 to 10 options, 2 % of them `none`.
Writes the data, the config and a JSON line of figures (``scale.json``);
prints the spin test first (benchmarks/README.md).
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]


def spin() -> float:
    t0 = time.perf_counter()
    s = 0
    for i in range(20_000_000):
        s += i
    return time.perf_counter() - t0


def write_data(folder: Path, systems: int, items: int, tasks: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "predictions").mkdir(exist_ok=True)
    task = np.sort(rng.integers(0, tasks, items))
    n_options = rng.choice([4, 5, 8, 10, 10, 10], items)
    gold = (rng.random(items) * n_options).astype(np.int64)
    letters = np.array(list("ABCDEFGHIJ"))
    ids = np.char.add("q", np.arange(items).astype(str))
    with open(folder / "gold.csv", "w") as f:
        f.write("item_id,label,task,n_options\n")
        f.write("".join(f"{i},{letters[g]},t{t:02d},{n}\n" for i, g, t, n in zip(ids, gold, task, n_options)))
    difficulty = rng.normal(0, 0.8, items) + rng.normal(0, 0.5, tasks)[task]
    skill = np.sort(rng.normal(0, 1, systems))[::-1]
    for s in range(systems):
        strength = rng.normal(0, 0.3, tasks)[task]
        p = 1 / (1 + np.exp(-(skill[s] + strength - difficulty)))
        right = rng.random(items) < p
        guess = (rng.random(items) * n_options).astype(np.int64)
        answer = np.where(right, gold, np.where(guess == gold, (guess + 1) % n_options, guess))
        out = letters[answer].astype(object)
        out[rng.random(items) < 0.02] = "none"
        with open(folder / "predictions" / f"sys{s:03d}.csv", "w") as f:
            f.write("item_id,label\n")
            f.write("".join(f"{i},{a}\n" for i, a in zip(ids, out)))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--systems", type=int, default=300)
    ap.add_argument("--items", type=int, default=100_000)
    ap.add_argument("--tasks", type=int, default=50)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", default="/tmp/lb_scale")
    ap.add_argument("--cores", type=int, default=2)
    a = ap.parse_args()
    out = Path(a.out)
    data = out / "data"
    print(f"spin {spin():.2f} s", flush=True)
    t0 = time.perf_counter()
    if not (data / "scale" / "gold.csv").is_file():
        write_data(data / "scale", a.systems, a.items, a.tasks, a.seed)
    print(f"data written in {time.perf_counter() - t0:.1f} s", flush=True)
    cfg = out / "config.yaml"
    cfg.write_text(f"data_dir: {data}\nleaderboards:\n  scale:\n    description: synthetic, {a.systems} systems, "
                   f"{a.items} items, {a.tasks} tasks\n    gold: scale/gold.csv\n    predictions: [scale/predictions/*.csv]\n"
                   "    options_column: n_options\n    no_answer: none\nproperties: {enabled: false}\n"
                   "reproduction: {enabled: false}\n")
    work = out / "work"
    work.mkdir(exist_ok=True)
    t0 = time.perf_counter()
    res = subprocess.run(["/usr/bin/time", "-f", "%M", sys.executable, "-m", "snakemake", "-s",
                          str(ROOT / "workflow" / "Snakefile"), "--configfile", str(cfg), "--directory", str(work),
                          "--cores", str(a.cores), "results/scale/leaderboard.md"],
                         capture_output=True, text=True)
    wall = time.perf_counter() - t0
    peak_kb = int(res.stderr.strip().splitlines()[-1]) if res.stderr.strip().splitlines()[-1].isdigit() else -1
    jobs = {}
    for log in sorted((work / "results" / "logs" / "scale").glob("*.log")):
        m = re.search(r"done in ([\d.]+) s", log.read_text())
        if m:
            jobs[log.stem] = float(m.group(1))
    figures = {"systems": a.systems, "items": a.items, "tasks": a.tasks, "rc": res.returncode, "wall_s": round(wall, 1),
               "peak_rss_mb": round(peak_kb / 1024), "jobs_s": jobs}
    (out / "scale.json").write_text(json.dumps(figures) + "\n")
    print(json.dumps(figures))
    if res.returncode:
        print(res.stderr[-3000:])


if __name__ == "__main__":
    main()
