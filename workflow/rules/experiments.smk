# Meta-evaluation experiments, for datasets that rank enough systems: the
# random half-splits in shards (the large, vectorised part, one job per shard),
# then one job per dataset for all the rest.


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
    threads: 2
    resources:
        mem_mb=4000,
        runtime=60,
        cpus_per_task=2,
    conda:
        "../../environment.yml"
    script:
        "../scripts/stability_shard.py"


rule experiments:
    """Similarity, stability (gathering the shards), class merging,
    bootstrap intervals, significance, discriminative power and the summary."""
    input:
        npz=rules.ingest.output.npz,
        shards=lambda wc: stability_shards(wc.dataset),
    output:
        similarity=f"{RESULTS}/{{dataset}}/similarity.csv",
        groups=f"{RESULTS}/{{dataset}}/similarity_groups.csv",
        similarity_png=f"{RESULTS}/{{dataset}}/figures/similarity.png",
        similarity_pdf=f"{RESULTS}/{{dataset}}/figures/similarity.pdf",
        stability=f"{RESULTS}/{{dataset}}/stability.csv",
        stability_splits=f"{RESULTS}/{{dataset}}/stability_splits.csv",
        stability_png=f"{RESULTS}/{{dataset}}/figures/stability.png",
        stability_pdf=f"{RESULTS}/{{dataset}}/figures/stability.pdf",
        merging=f"{RESULTS}/{{dataset}}/merging.csv",
        merging_balanced=f"{RESULTS}/{{dataset}}/merging_balanced.csv",
        merging_png=f"{RESULTS}/{{dataset}}/figures/merging.png",
        merging_pdf=f"{RESULTS}/{{dataset}}/figures/merging.pdf",
        intervals=f"{RESULTS}/{{dataset}}/intervals.csv",
        similarity_intervals=f"{RESULTS}/{{dataset}}/similarity_intervals.csv",
        bootstrap=f"{RESULTS}/{{dataset}}/bootstrap.npz",
        intervals_md=f"{RESULTS}/{{dataset}}/tables/intervals.md",
        intervals_tex=f"{RESULTS}/{{dataset}}/tables/intervals.tex",
        scores_png=f"{RESULTS}/{{dataset}}/figures/scores.png",
        scores_pdf=f"{RESULTS}/{{dataset}}/figures/scores.pdf",
        significance=f"{RESULTS}/{{dataset}}/significance.csv",
        significance_best=f"{RESULTS}/{{dataset}}/significance_best.csv",
        power=f"{RESULTS}/{{dataset}}/discriminative_power.csv",
        power_png=f"{RESULTS}/{{dataset}}/figures/discriminative_power.png",
        power_pdf=f"{RESULTS}/{{dataset}}/figures/discriminative_power.pdf",
        summary=f"{RESULTS}/{{dataset}}/summary.csv",
        summary_md=f"{RESULTS}/{{dataset}}/tables/summary.md",
    params:
        spec=spec_of("experiments"),
        settings=settings_of("experiments"),
        code=CODE,
    log:
        f"{RESULTS}/logs/{{dataset}}/experiments.log",
    wildcard_constraints:
        dataset=dataset_pattern("merging"),
    threads: 2
    resources:
        mem_mb=4000,
        runtime=60,
        cpus_per_task=2,
    conda:
        "../../environment.yml"
    script:
        "../scripts/experiments.py"


use rule experiments as experiments_no_merging with:
    output:
        similarity=f"{RESULTS}/{{dataset}}/similarity.csv",
        groups=f"{RESULTS}/{{dataset}}/similarity_groups.csv",
        similarity_png=f"{RESULTS}/{{dataset}}/figures/similarity.png",
        similarity_pdf=f"{RESULTS}/{{dataset}}/figures/similarity.pdf",
        stability=f"{RESULTS}/{{dataset}}/stability.csv",
        stability_splits=f"{RESULTS}/{{dataset}}/stability_splits.csv",
        stability_png=f"{RESULTS}/{{dataset}}/figures/stability.png",
        stability_pdf=f"{RESULTS}/{{dataset}}/figures/stability.pdf",
        intervals=f"{RESULTS}/{{dataset}}/intervals.csv",
        similarity_intervals=f"{RESULTS}/{{dataset}}/similarity_intervals.csv",
        bootstrap=f"{RESULTS}/{{dataset}}/bootstrap.npz",
        intervals_md=f"{RESULTS}/{{dataset}}/tables/intervals.md",
        intervals_tex=f"{RESULTS}/{{dataset}}/tables/intervals.tex",
        scores_png=f"{RESULTS}/{{dataset}}/figures/scores.png",
        scores_pdf=f"{RESULTS}/{{dataset}}/figures/scores.pdf",
        significance=f"{RESULTS}/{{dataset}}/significance.csv",
        significance_best=f"{RESULTS}/{{dataset}}/significance_best.csv",
        power=f"{RESULTS}/{{dataset}}/discriminative_power.csv",
        power_png=f"{RESULTS}/{{dataset}}/figures/discriminative_power.png",
        power_pdf=f"{RESULTS}/{{dataset}}/figures/discriminative_power.pdf",
        summary=f"{RESULTS}/{{dataset}}/summary.csv",
        summary_md=f"{RESULTS}/{{dataset}}/tables/summary.md",
    log:
        f"{RESULTS}/logs/{{dataset}}/experiments.log",
    wildcard_constraints:
        dataset=dataset_pattern("no_merging"),


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
    resources:
        mem_mb=2000,
        runtime=10,
    conda:
        "../../environment.yml"
    script:
        "../scripts/weights.py"
