# Leaderboards' set-up (config key `leaderboards:`): their specs and
# settings from the validated config, and the input functions of their rules
# (workflow/rules/leaderboards.smk).
from metaeval.data.leaderboard_spec import leaderboard_settings, leaderboard_specs
from metaeval.workflow.leaderboards import leaderboard_fingerprint, leaderboard_params

try:
    LEADERBOARD_SPECS = leaderboard_specs(config, CONFIG_DIR)
    from metaeval.pipeline.leaderboard import check_spec

    for _lb in LEADERBOARD_SPECS.values():
        check_spec(_lb)
        _lb.prediction_files(DATA_DIR)  # a glob that matches nothing stops the run here
        if not _lb.gold_path(DATA_DIR).is_file():
            raise ConfigError(f"leaderboards.{_lb.name}.gold: no file {_lb.gold_path(DATA_DIR)}")
    LEADERBOARD_SETTINGS = {n: leaderboard_settings(config, n) for n in LEADERBOARD_SPECS}
except ConfigError as e:
    raise WorkflowError(f"Bad configuration: {e}")

LEADERBOARDS = list(LEADERBOARD_SPECS)
# which systems each leaderboard ranks and how it judges them, said at every start (as the datasets' lines)
from metaeval.workflow.leaderboards import leaderboard_line

for _lb in LEADERBOARD_SPECS.values():
    from snakemake.logging import logger

    logger.info(leaderboard_line(_lb, LEADERBOARD_SETTINGS[_lb.name], _lb.prediction_files(DATA_DIR)))
LEADERBOARD_PARAMS = {n: leaderboard_params(LEADERBOARD_SPECS[n], LEADERBOARD_SETTINGS[n]) for n in LEADERBOARDS}
LB = f"{RESULTS}/{{leaderboard}}"


wildcard_constraints:
    leaderboard="|".join(map(re.escape, LEADERBOARDS)) if LEADERBOARDS else "NO_LEADERBOARD",
    scheme="items|tasks|both",


def lb_spec(step):
    return lambda wc: LEADERBOARD_PARAMS[wc.leaderboard][step]["spec"]


def lb_settings(step):
    return lambda wc: LEADERBOARD_PARAMS[wc.leaderboard][step]["settings"]


def lb_schemes(wc):
    return list(LEADERBOARD_SETTINGS[wc.leaderboard].leaderboard_schemes)


@functools.cache
def _lb_fingerprint(name):
    return leaderboard_fingerprint(LEADERBOARD_SPECS[name], DATA_DIR)


def leaderboard_targets():
    out = []
    for n in LEADERBOARDS:
        out += [f"{RESULTS}/{n}/leaderboard.md", f"{RESULTS}/{n}/leaderboard.html", f"{RESULTS}/{n}/leaderboard.tex",
                f"{RESULTS}/{n}/figures/rank_sets.png"]
    return out


def leaderboard_page_files(name):
    """What a leaderboard's page job writes (read by the front page)."""
    d = f"{RESULTS}/{name}"
    return [f"{d}/leaderboard.md", f"{d}/leaderboard.html", f"{d}/leaderboard.tex", f"{d}/leaderboard.json",
            f"{d}/figures/rank_sets.png", f"{d}/figures/rank_sets.pdf"]


def leaderboard_tables(name):
    """What a leaderboard's computing jobs write from its benchmark.npz."""
    d = f"{RESULTS}/{name}"
    return [f"{d}/design.csv",
            *(f"{d}/{kind}_{s}.csv" for kind in ("ranks", "resolution", "verdict")
              for s in LEADERBOARD_SETTINGS[name].leaderboard_schemes),
            *(f"{d}/{f}.csv" for f in ("agreement", "stability", "robustness", "gameability", "task_scores"))]


def remove_stale_leaderboard_files():
    """After a failed run, what no longer tells of a leaderboard's current
    input is removed (`onerror`): every table and page when its data job
    failed (Snakemake removed benchmark.npz), a table older than
    benchmark.npz (computed from the previous input, its own job not run
    again yet), and the page, LaTeX, figure and leaderboard.json when a
    table is missing, and with them the front page (their reader)."""
    for name in LEADERBOARDS:
        npz = Path(f"{RESULTS}/{name}/benchmark.npz")
        tables = [Path(f) for f in leaderboard_tables(name)]
        since = npz.stat().st_mtime if npz.exists() else None
        for f in tables:
            if f.exists() and (since is None or f.stat().st_mtime < since):
                f.unlink()
        if since is None or not all(f.exists() for f in tables):
            for f in leaderboard_page_files(name):
                Path(f).unlink(missing_ok=True)
