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
    params:
        results_dir=lambda wildcards, output: str(Path(output.md).parent),
        available=REPORT_DATASETS,
        code=CODE,
    log:
        f"{RESULTS}/logs/reproduce.log",
    conda:
        "../../environment.yml"
    script:
        "../scripts/reproduce.py"
