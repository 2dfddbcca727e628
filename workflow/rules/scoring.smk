# Ingestion, provenance and scoring: few jobs per dataset (each Python job
# costs about a second to start), each reading the settings of all its parts.


rule ingest:
    """Read and check the gold and every prediction file of a dataset."""
    output:
        npz=f"{RESULTS}/{{dataset}}/data.npz",
        info=f"{RESULTS}/{{dataset}}/dataset.json",
    params:
        spec=spec_of("ingest"),
        settings=settings_of("ingest"),
        code=CODE_OF["ingest"],
        # the files' contents, not their folder: a Path is not a value Snakemake records (only plain
        # values are), so moving or copying the data folder reruns nothing (tests/test_workflow.py)
        data=data_fingerprint_of,
        data_dir=DATA_DIR,
        results_dir=lambda wc: f"{RESULTS}/{wc.dataset}",
        logs_dir=lambda wc: f"{RESULTS}/logs/{wc.dataset}",
    log:
        f"{RESULTS}/logs/{{dataset}}/ingest.log",
    # every dataset's jobs wait for its ingest, which reads no input file: the greedy scheduler's tie-break (the
    # larger inputs first) put it after every scoring job, and the last dataset's chain ran alone on one core at
    # the end of the run (semeval2020t11_tc's, 35 s of 314, benchmarks/README.md); the kernels job still first
    priority: 15
    resources:
        mem_mb=4000,
        runtime=20,
    script:
        "../scripts/ingest.py"


rule provenance:
    """Where a dataset's results come from: config, code, commit, seeds, input hashes
    (after ingestion: no provenance of a dataset whose input was refused)."""
    input:
        checked=rules.ingest.output.npz,
    output:
        f"{RESULTS}/{{dataset}}/provenance.json",
    params:
        config=resolved_config,
        settings=resolved_settings,
        properties=PROPERTY_SETTINGS,
        code=CODE,
        commit=COMMIT,
        data=data_fingerprint_of,
        data_dir=DATA_DIR,  # not recorded (a Path): see rule ingest
    log:
        f"{RESULTS}/logs/{{dataset}}/provenance.log",
    resources:
        mem_mb=500,
        runtime=5,
    script:
        "../scripts/provenance.py"


# The outputs of the scoring job; its variants add or drop the figures.
SCORE_OUTPUT = dict(
    scores=f"{RESULTS}/{{dataset}}/scores.csv",
    confusion=f"{RESULTS}/{{dataset}}/confusion.csv",
    md=f"{RESULTS}/{{dataset}}/tables/scores.md",
    tex=f"{RESULTS}/{{dataset}}/tables/scores.tex",
    html=reported(f"{RESULTS}/{{dataset}}/tables/scores.html", "scores_table", "1 Scores", "score table"),
    gameability=f"{RESULTS}/{{dataset}}/gameability.csv",
    gameability_md=f"{RESULTS}/{{dataset}}/tables/gameability.md",
    gameability_html=reported(f"{RESULTS}/{{dataset}}/tables/gameability.html", "gameability", "1 Scores",
                              "gameability: degenerate systems against the real ones"),
)
CONFUSION_FIGURE = dict(
    confusion_png=reported(f"{RESULTS}/{{dataset}}/figures/confusion.png", "confusion", "1 Scores",
                           "confusion matrices"),
    confusion_pdf=f"{RESULTS}/{{dataset}}/figures/confusion.pdf",
)
# classification metrics only: span identification has no classes
CHANCE_OUTPUT = dict(
    chance=f"{RESULTS}/{{dataset}}/chance.csv",
    above_chance=f"{RESULTS}/{{dataset}}/above_chance.csv",
    chance_md=f"{RESULTS}/{{dataset}}/tables/chance.md",
    chance_html=reported(f"{RESULTS}/{{dataset}}/tables/chance.html", "chance", "1 Scores", "chance levels"),
)
SPAN_FIGURE = dict(
    span_png=reported(f"{RESULTS}/{{dataset}}/figures/span_scores.png", "span_scores", "1 Scores",
                      "span metrics"),
    span_pdf=f"{RESULTS}/{{dataset}}/figures/span_scores.pdf",
)


rule score:
    """Every metric for every system, the score tables, the confusion figure and
    the chance levels."""
    input:
        npz=rules.ingest.output.npz,
        info=rules.ingest.output.info,
    output:
        **SCORE_OUTPUT,
        **CONFUSION_FIGURE,
        **CHANCE_OUTPUT,
    params:
        spec=spec_of("score"),
        settings=settings_of("score"),
        code=CODE_OF["score"],
    log:
        f"{RESULTS}/logs/{{dataset}}/score.log",
    wildcard_constraints:
        dataset=dataset_pattern("classification"),
    resources:
        mem_mb=2000,
        runtime=20,
    script:
        "../scripts/score.py"


use rule score as score_tc with:
    output:
        **SCORE_OUTPUT,
        **CONFUSION_FIGURE,
        **SPAN_FIGURE,
        **CHANCE_OUTPUT,
    log:
        f"{RESULTS}/logs/{{dataset}}/score.log",
    wildcard_constraints:
        dataset=dataset_pattern("tc"),


use rule score as score_si with:
    output:
        **SCORE_OUTPUT,
        **SPAN_FIGURE,
    log:
        f"{RESULTS}/logs/{{dataset}}/score.log",
    wildcard_constraints:
        dataset=dataset_pattern("si"),


rule official:
    """The task's official figures (official_results, a file of the data) beside the dataset's scores."""
    input:
        scores=f"{RESULTS}/{{dataset}}/scores.csv",
    output:
        csv=f"{RESULTS}/{{dataset}}/official.csv",
        md=f"{RESULTS}/{{dataset}}/tables/official.md",
        html=reported(f"{RESULTS}/{{dataset}}/tables/official.html", "official", "1 Scores",
                      "the official figures reproduced"),
    params:
        spec=spec_of("official"),
        settings=settings_of("official"),
        code=CODE_OF["official"],
        data=data_fingerprint_of,  # the official table is a file of the data: its content, not its path
        data_dir=DATA_DIR,
    log:
        f"{RESULTS}/logs/{{dataset}}/official.log",
    resources:
        mem_mb=1000,
        runtime=5,
    script:
        "../scripts/official.py"


rule score_groups:
    """Scores per item group (e.g. per target), with their means."""
    input:
        rules.ingest.output.npz,
    output:
        csv=f"{RESULTS}/{{dataset}}/scores_by_group.csv",
        md=f"{RESULTS}/{{dataset}}/tables/scores_by_group.md",
        html=reported(f"{RESULTS}/{{dataset}}/tables/scores_by_group.html", "scores_by_group", "1 Scores",
                      "scores per group"),
    params:
        spec=spec_of("score_groups"),
        settings=settings_of("score_groups"),
        code=CODE_OF["score_groups"],
    log:
        f"{RESULTS}/logs/{{dataset}}/score_groups.log",
    resources:
        mem_mb=2000,
        runtime=10,
    script:
        "../scripts/score_groups.py"
