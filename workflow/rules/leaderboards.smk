# Leaderboards (config key `leaderboards:`): many systems on a benchmark of
# many tasks. One job reads and checks the benchmark; per resampling scheme,
# one job for the rank sets and one for the verdict on the aggregates; one
# job for the other experiments, one for the design, one for the page.
# Every job's params are its leaderboard's spec, the `leaderboards` branch of
# the settings, the data's fingerprint (new or changed prediction files rerun
# this leaderboard's jobs, no other) and the step code's fingerprint
# (workflow/rules/leaderboard_common.smk sets them up).


rule leaderboard_data:
    """Read and check a leaderboard's gold file and every prediction file."""
    output:
        npz=f"{LB}/benchmark.npz",
        info=f"{LB}/dataset.json",
    params:
        spec=lb_spec("leaderboard_data"),
        data=lambda wc: _lb_fingerprint(wc.leaderboard),
        data_dir=DATA_DIR,  # not recorded (a Path): the fingerprint is
        code=CODE_OF["leaderboard"],
    log:
        f"{RESULTS}/logs/{{leaderboard}}/leaderboard_data.log",
    priority: 15
    resources:
        mem_mb=4000,
        runtime=20,
    script:
        "../scripts/leaderboard_data.py"


rule leaderboard_ranks:
    """Rank confidence sets of every aggregate under one resampling scheme."""
    input:
        rules.leaderboard_data.output.npz,
        rules.kernels.output,
    output:
        ranks=f"{LB}/ranks_{{scheme}}.csv",
        resolution=f"{LB}/resolution_{{scheme}}.csv",
    params:
        spec=lb_spec("leaderboard_ranks"),
        settings=lb_settings("leaderboard_ranks"),
        code=CODE_OF["leaderboard"],
    log:
        f"{RESULTS}/logs/{{leaderboard}}/leaderboard_ranks_{{scheme}}.log",
    resources:
        mem_mb=4000,
        runtime=30,
    script:
        "../scripts/leaderboard_ranks.py"


rule leaderboard_experiments:
    """Agreement, rank stability (every scheme), robustness, degenerate systems, the scores per task."""
    input:
        rules.leaderboard_data.output.npz,
        rules.kernels.output,
    output:
        agreement=f"{LB}/agreement.csv",
        stability=f"{LB}/stability.csv",
        robustness=f"{LB}/robustness.csv",
        gameability=f"{LB}/gameability.csv",
        task_scores=f"{LB}/task_scores.csv",
    params:
        spec=lb_spec("leaderboard_experiments"),
        settings=lb_settings("leaderboard_experiments"),
        code=CODE_OF["leaderboard"],
    log:
        f"{RESULTS}/logs/{{leaderboard}}/leaderboard_experiments.log",
    resources:
        mem_mb=4000,
        runtime=30,
    script:
        "../scripts/leaderboard_experiments.py"


rule leaderboard_verdict:
    """The verdict on the aggregates under one resampling scheme."""
    input:
        rules.leaderboard_data.output.npz,
        rules.kernels.output,
    output:
        f"{LB}/verdict_{{scheme}}.csv",
    params:
        spec=lb_spec("leaderboard_verdict"),
        settings=lb_settings("leaderboard_verdict"),
        code=CODE_OF["leaderboard"],
    log:
        f"{RESULTS}/logs/{{leaderboard}}/leaderboard_verdict_{{scheme}}.log",
    resources:
        mem_mb=4000,
        runtime=30,
    script:
        "../scripts/leaderboard_verdict.py"


rule leaderboard_design:
    """Questions per task and tasks that would resolve each unresolved adjacent pair."""
    input:
        rules.leaderboard_data.output.npz,
        rules.kernels.output,
    output:
        f"{LB}/design.csv",
    params:
        spec=lb_spec("leaderboard_design"),
        settings=lb_settings("leaderboard_design"),
        code=CODE_OF["leaderboard"],
    log:
        f"{RESULTS}/logs/{{leaderboard}}/leaderboard_design.log",
    resources:
        mem_mb=4000,
        runtime=30,
    script:
        "../scripts/leaderboard_design.py"


rule leaderboard_page:
    """The leaderboard's page (Markdown, HTML), LaTeX table and rank-set figure."""
    input:
        info=rules.leaderboard_data.output.info,
        ranks=lambda wc: expand(f"{RESULTS}/{wc.leaderboard}/ranks_{{scheme}}.csv", scheme=lb_schemes(wc)),
        resolution=lambda wc: expand(f"{RESULTS}/{wc.leaderboard}/resolution_{{scheme}}.csv", scheme=lb_schemes(wc)),
        verdict=lambda wc: expand(f"{RESULTS}/{wc.leaderboard}/verdict_{{scheme}}.csv", scheme=lb_schemes(wc)),
        agreement=rules.leaderboard_experiments.output.agreement,
        stability=rules.leaderboard_experiments.output.stability,
        robustness=rules.leaderboard_experiments.output.robustness,
        gameability=rules.leaderboard_experiments.output.gameability,
        task_scores=rules.leaderboard_experiments.output.task_scores,
        design=rules.leaderboard_design.output,
    output:
        md=report(f"{LB}/leaderboard.md", category="Leaderboards", caption="../report/leaderboard.rst"),
        html=f"{LB}/leaderboard.html",
        tex=f"{LB}/leaderboard.tex",
        png=report(f"{LB}/figures/rank_sets.png", category="Leaderboards",
                   caption="../report/leaderboard_figure.rst"),
        pdf=f"{LB}/figures/rank_sets.pdf",
        json=f"{LB}/leaderboard.json",  # what the front page says of it
    params:
        spec=lb_spec("leaderboard_page"),
        settings=lb_settings("leaderboard_page"),
        code=CODE_OF["leaderboard_page"],
    log:
        f"{RESULTS}/logs/{{leaderboard}}/leaderboard_page.log",
    resources:
        mem_mb=2000,
        runtime=10,
    script:
        "../scripts/leaderboard_page.py"
