# The papers' published tables next to the reproduced values.


rule reproduce:
    """results/reproduction.md and .csv: every published cell, reproduced."""
    input:
        tables=str(PUBLISHED),
        published=published_files(),
        results=reproduction_inputs(),
    output:
        md=f"{RESULTS}/reproduction.md",
        csv=f"{RESULTS}/reproduction.csv",
        html=report(f"{RESULTS}/reproduction.html", caption="../report/reproduction.rst", category="Overview",
                    labels={"result": "published tables, reproduced"}),
    params:
        results_dir=lambda wildcards, output: str(Path(output.md).parent),
        available=REPORT_DATASETS,
        code=CODE_OF["reproduce"],
    log:
        f"{RESULTS}/logs/reproduce.log",
    resources:
        mem_mb=1000,
        runtime=10,
    script:
        "../scripts/reproduce.py"


rule overview:
    """The report's front page (the reproduction summary and the answer of
    every dataset's recommendation; workflow/report/workflow.rst includes
    it) and each dataset's summary page (Table 7 reproduced, then the same
    answer)."""
    input:
        **overview_inputs(),
    output:
        overview=OVERVIEW,
        front=FRONT,
        summaries=summary_pages(),
    params:
        datasets=overview_datasets(),
        links=overview_links(),
        summaries=summary_params(),
        code=CODE_OF["overview"],
    log:
        f"{RESULTS}/logs/overview.log",
    resources:
        mem_mb=1000,
        runtime=5,
    script:
        "../scripts/overview.py"


# Across datasets: every dataset's recommendation gathered (never recomputed).
CROSS = f"{RESULTS}/cross_dataset"
CROSS_DATASETS = sorted(d for d in DATASETS if runs_experiments(d))  # (sorted: the order of a config is no setting)
CROSS_OUTPUT = dict(
    criteria=f"{CROSS}/criteria.csv",
    replicability=f"{CROSS}/replicability.csv",
    recommendation=f"{CROSS}/recommendation.csv",
    md=f"{CROSS}/cross_dataset.md",
    html=report(f"{CROSS}/cross_dataset.html", caption="../report/cross_dataset.rst", category="Across datasets",
                labels={"result": "which metric holds up across the datasets (tables)"}),
    png=report(f"{CROSS}/figures/cross_dataset.png", caption="../report/cross_dataset_figure.rst",
               category="Across datasets", labels={"result": "the criteria on which every metric is kept, per dataset"}),
    pdf=f"{CROSS}/figures/cross_dataset.pdf",
)


rule cross_dataset:
    """Which metric holds up across the datasets (metaeval.verdict.crossdata): per
    kind of task, per criterion, the metric x dataset tables, the
    replicability counts and the answer across datasets; a dataset added to
    the config joins it."""
    input:
        recommendations=[f"{RESULTS}/{d}/recommendation.csv" for d in CROSS_DATASETS],
    output:
        **CROSS_OUTPUT,
    params:
        datasets=CROSS_DATASETS,
        kinds={d: cross_kind(d) for d in CROSS_DATASETS},
        skipped=cross_skipped(),
        verdict=lambda wildcards: cross_verdict(CROSS_DATASETS),
        test_sets=cross_test_sets(CROSS_DATASETS),
        custom_metrics=cross_custom_metrics(CROSS_DATASETS),
        code=CODE_OF["cross_dataset"],
    log:
        f"{RESULTS}/logs/cross_dataset.log",
    resources:
        mem_mb=1000,
        runtime=5,
    script:
        "../scripts/cross_dataset.py"
