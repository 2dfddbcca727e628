# Ingestion, scoring, score tables and confusion figures, one job per dataset.


rule ingest:
    """Read and check the gold and every prediction file of a dataset."""
    input:
        dataset_inputs,
    output:
        npz=f"{RESULTS}/{{dataset}}/data.npz",
        info=f"{RESULTS}/{{dataset}}/dataset.json",
    params:
        spec=spec_of("ingest"),
        settings=settings_of("ingest"),
        code=CODE,
        data_dir=str(DATA_DIR),
        results_dir=lambda wc: f"{RESULTS}/{wc.dataset}",
    log:
        f"{RESULTS}/logs/{{dataset}}/ingest.log",
    conda:
        "../../environment.yml"
    script:
        "../scripts/ingest.py"


rule score:
    """Every metric for every system: scores.csv and confusion.csv."""
    input:
        rules.ingest.output.npz,
    output:
        scores=f"{RESULTS}/{{dataset}}/scores.csv",
        confusion=f"{RESULTS}/{{dataset}}/confusion.csv",
    params:
        spec=spec_of("score"),
        settings=settings_of("score"),
        code=CODE,
    log:
        f"{RESULTS}/logs/{{dataset}}/score.log",
    conda:
        "../../environment.yml"
    script:
        "../scripts/score.py"


rule score_groups:
    """Scores per item group (e.g. per target), with their means."""
    input:
        rules.ingest.output.npz,
    output:
        f"{RESULTS}/{{dataset}}/scores_by_group.csv",
    params:
        spec=spec_of("score_groups"),
        settings=settings_of("score_groups"),
        code=CODE,
    log:
        f"{RESULTS}/logs/{{dataset}}/score_groups.log",
    conda:
        "../../environment.yml"
    script:
        "../scripts/score_groups.py"


rule score_tables:
    """Markdown and LaTeX tables: value and rank per metric."""
    input:
        scores=rules.score.output.scores,
        info=rules.ingest.output.info,
    output:
        md=f"{RESULTS}/{{dataset}}/tables/scores.md",
        tex=f"{RESULTS}/{{dataset}}/tables/scores.tex",
    params:
        spec=spec_of("score_tables"),
        settings=settings_of("score_tables"),
        code=CODE,
    log:
        f"{RESULTS}/logs/{{dataset}}/score_tables.log",
    conda:
        "../../environment.yml"
    script:
        "../scripts/score_tables.py"


rule confusion_figure:
    """Grid of row-normalised confusion matrices, one panel per system."""
    input:
        confusion=rules.score.output.confusion,
        scores=rules.score.output.scores,
    output:
        png=f"{RESULTS}/{{dataset}}/figures/confusion.png",
        pdf=f"{RESULTS}/{{dataset}}/figures/confusion.pdf",
    params:
        spec=spec_of("confusion_figure"),
        settings=settings_of("confusion_figure"),
        code=CODE,
    log:
        f"{RESULTS}/logs/{{dataset}}/confusion_figure.log",
    conda:
        "../../environment.yml"
    script:
        "../scripts/confusion_figure.py"


rule span_figure:
    """Span datasets: every span metric of every system, sorted by the primary metric."""
    input:
        scores=rules.score.output.scores,
    output:
        png=f"{RESULTS}/{{dataset}}/figures/span_scores.png",
        pdf=f"{RESULTS}/{{dataset}}/figures/span_scores.pdf",
    params:
        spec=spec_of("span_figure"),
        settings=settings_of("span_figure"),
        code=CODE,
    log:
        f"{RESULTS}/logs/{{dataset}}/span_figure.log",
    conda:
        "../../environment.yml"
    script:
        "../scripts/span_figure.py"


rule provenance:
    """Where a dataset's results come from: config, code, commit, seeds, input hashes."""
    input:
        dataset_inputs,
    output:
        f"{RESULTS}/{{dataset}}/provenance.json",
    params:
        config=resolved_config,
        settings=resolved_settings,
        code=CODE,
        commit=COMMIT,
        data_dir=str(DATA_DIR),
    log:
        f"{RESULTS}/logs/{{dataset}}/provenance.log",
    conda:
        "../../environment.yml"
    script:
        "../scripts/provenance.py"
