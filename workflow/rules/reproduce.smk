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
    conda:
        "../../environment.yml"
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
        summaries=summary_pages(),
    params:
        datasets=overview_datasets(),
        summaries=summary_params(),
        code=CODE_OF["overview"],
    log:
        f"{RESULTS}/logs/overview.log",
    resources:
        mem_mb=1000,
        runtime=5,
    conda:
        "../../environment.yml"
    script:
        "../scripts/overview.py"
