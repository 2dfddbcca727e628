# Meta-evaluation experiments, one set of jobs per dataset with enough systems.


rule similarity:
    """Ranking agreement: Kendall's tau between every pair of metrics."""
    input:
        rules.ingest.output.npz,
    output:
        csv=f"{RESULTS}/{{dataset}}/similarity.csv",
        groups=f"{RESULTS}/{{dataset}}/similarity_groups.csv",
        png=f"{RESULTS}/{{dataset}}/figures/similarity.png",
        pdf=f"{RESULTS}/{{dataset}}/figures/similarity.pdf",
    params:
        spec=spec_of("similarity"),
        settings=settings_of("similarity"),
        code=CODE,
    log:
        f"{RESULTS}/logs/{{dataset}}/similarity.log",
    conda:
        "../../environment.yml"
    script:
        "../scripts/similarity.py"


rule stability_shard:
    """Rank stability on one shard of the random half-splits."""
    input:
        rules.ingest.output.npz,
    output:
        f"{RESULTS}/{{dataset}}/stability/shard{{shard}}of{{n}}.npz",
    params:
        spec=spec_of("stability_shard"),
        settings=settings_of("stability_shard"),
        code=CODE,
    log:
        f"{RESULTS}/logs/{{dataset}}/stability_shard{{shard}}of{{n}}.log",
    conda:
        "../../environment.yml"
    script:
        "../scripts/stability_shard.py"


rule stability:
    """Gather the shards: per-metric summary, per-split taus, figure."""
    input:
        lambda wc: stability_shards(wc.dataset),
    output:
        csv=f"{RESULTS}/{{dataset}}/stability.csv",
        splits=f"{RESULTS}/{{dataset}}/stability_splits.csv",
        png=f"{RESULTS}/{{dataset}}/figures/stability.png",
        pdf=f"{RESULTS}/{{dataset}}/figures/stability.pdf",
    params:
        spec=spec_of("stability"),
        settings=settings_of("stability"),
        code=CODE,
    log:
        f"{RESULTS}/logs/{{dataset}}/stability.log",
    conda:
        "../../environment.yml"
    script:
        "../scripts/stability.py"


rule merging:
    """Class merging, on all items and on class-balanced subsamples."""
    input:
        rules.ingest.output.npz,
    output:
        csv=f"{RESULTS}/{{dataset}}/merging.csv",
        balanced=f"{RESULTS}/{{dataset}}/merging_balanced.csv",
        png=f"{RESULTS}/{{dataset}}/figures/merging.png",
        pdf=f"{RESULTS}/{{dataset}}/figures/merging.pdf",
    params:
        spec=spec_of("merging"),
        settings=settings_of("merging"),
        code=CODE,
    log:
        f"{RESULTS}/logs/{{dataset}}/merging.log",
    conda:
        "../../environment.yml"
    script:
        "../scripts/merging.py"


rule weights:
    """Weighted metrics under every class-weight set (Scarton et al. Table 4)."""
    input:
        rules.ingest.output.npz,
    output:
        csv=f"{RESULTS}/{{dataset}}/weights.csv",
        tau=f"{RESULTS}/{{dataset}}/weights_tau.csv",
        md=f"{RESULTS}/{{dataset}}/tables/weights.md",
    params:
        spec=spec_of("weights"),
        settings=settings_of("weights"),
        code=CODE,
    log:
        f"{RESULTS}/logs/{{dataset}}/weights.log",
    conda:
        "../../environment.yml"
    script:
        "../scripts/weights.py"


rule summary:
    """Per metric: similarity group, stability rank, discrimination rank."""
    input:
        unpack(summary_inputs),
    output:
        csv=f"{RESULTS}/{{dataset}}/summary.csv",
        md=f"{RESULTS}/{{dataset}}/tables/summary.md",
    params:
        spec=spec_of("summary"),
        settings=settings_of("summary"),
        code=CODE,
    log:
        f"{RESULTS}/logs/{{dataset}}/summary.log",
    conda:
        "../../environment.yml"
    script:
        "../scripts/summary.py"


rule bootstrap:
    """Bootstrap intervals of every score and of the taus between metrics."""
    input:
        rules.ingest.output.npz,
    output:
        intervals=f"{RESULTS}/{{dataset}}/intervals.csv",
        similarity=f"{RESULTS}/{{dataset}}/similarity_intervals.csv",
        npz=f"{RESULTS}/{{dataset}}/bootstrap.npz",
        md=f"{RESULTS}/{{dataset}}/tables/intervals.md",
        tex=f"{RESULTS}/{{dataset}}/tables/intervals.tex",
        png=f"{RESULTS}/{{dataset}}/figures/scores.png",
        pdf=f"{RESULTS}/{{dataset}}/figures/scores.pdf",
    params:
        spec=spec_of("bootstrap"),
        settings=settings_of("bootstrap"),
        code=CODE,
    log:
        f"{RESULTS}/logs/{{dataset}}/bootstrap.log",
    conda:
        "../../environment.yml"
    script:
        "../scripts/bootstrap.py"


rule significance:
    """Every pair of systems tested, discriminative power of every metric."""
    input:
        unpack(significance_inputs),
    output:
        pairs=f"{RESULTS}/{{dataset}}/significance.csv",
        best=f"{RESULTS}/{{dataset}}/significance_best.csv",
        power=f"{RESULTS}/{{dataset}}/discriminative_power.csv",
        png=f"{RESULTS}/{{dataset}}/figures/discriminative_power.png",
        pdf=f"{RESULTS}/{{dataset}}/figures/discriminative_power.pdf",
    params:
        spec=spec_of("significance"),
        settings=settings_of("significance"),
        code=CODE,
    log:
        f"{RESULTS}/logs/{{dataset}}/significance.log",
    conda:
        "../../environment.yml"
    script:
        "../scripts/significance.py"
