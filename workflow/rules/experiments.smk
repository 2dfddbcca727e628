# Meta-evaluation experiments, for datasets that rank enough systems: the
# random half-splits in shards (the large, vectorised part, one job per shard),
# then one job per dataset for all the rest.


rule kernels:
    """Compile the resampling engine's numba kernels once, into the cache of
    their version (metaeval.engine.kernel_cache: a fresh clone of the same
    code loads them), before the experiments jobs load them: otherwise each
    of them would compile them itself (about 15 s each, all at once). Lists
    what it compiled or loaded."""
    output:
        f"{RESULTS}/logs/kernels.txt",
    params:
        code=CODE_OF["kernels"],
    log:
        f"{RESULTS}/logs/kernels.log",
    priority: 20  # the experiments wait for it
    resources:
        mem_mb=1000,
        runtime=10,
    script:
        "../scripts/kernels.py"


rule stability_shard:
    """Rank stability on one shard of the random half-splits."""
    input:
        rules.ingest.output.npz,
        rules.kernels.output,
    output:
        f"{RESULTS}/{{dataset}}/stability/shard{{shard}}of{{n}}.npz",
    params:
        spec=spec_of("stability_shard"),
        settings=settings_of("stability_shard"),
        code=CODE_OF["stability_shard"],
    log:
        f"{RESULTS}/logs/{{dataset}}/stability_shard{{shard}}of{{n}}.log",
    threads: 2
    resources:
        mem_mb=4000,
        runtime=60,
        cpus_per_task=2,
    script:
        "../scripts/stability_shard.py"


rule criteria_shard:
    """One shard of the recommendation's criteria resamples (criteria_shards >= 2)."""
    input:
        rules.ingest.output.npz,
        rules.kernels.output,
    output:
        f"{RESULTS}/{{dataset}}/criteria/shard{{shard}}of{{n}}.npz",
    params:
        spec=spec_of("criteria_shard"),
        settings=settings_of("criteria_shard"),
        code=CODE_OF["criteria_shard"],
    log:
        f"{RESULTS}/logs/{{dataset}}/criteria_shard{{shard}}of{{n}}.log",
    priority: 10  # beside the experiments: the recommendation waits for both
    resources:
        mem_mb=4000,
        runtime=60,
    script:
        "../scripts/criteria_shard.py"


# The experiments of a dataset in two jobs: the computations (files only),
# then (the recommendation job) label noise and class priors (seconds: they
# read the Tukey trials the significance experiment leaves in trials.npz, so
# that a noise setting reruns neither the bootstrap nor the trials), the
# figures and tables, drawn from the files (so that a figure's look reruns
# none of the experiments' resampling), and the recommendation. Two jobs,
# not one per part: a job costs one to two seconds of Python start-up and
# imports (numba, pandas, matplotlib).
# Variants: two classes (no merging), span identification (no merging, no
# classes to flip or re-weight).
_D = f"{RESULTS}/{{dataset}}"
EXPERIMENT_OUTPUT = dict(
    similarity=f"{_D}/similarity.csv",
    groups=f"{_D}/similarity_groups.csv",
    stability=f"{_D}/stability.csv",
    stability_splits=f"{_D}/stability_splits.csv",
    intervals=f"{_D}/intervals.csv",
    similarity_intervals=f"{_D}/similarity_intervals.csv",
    bootstrap=f"{_D}/bootstrap.npz",
    significance=f"{_D}/significance.csv",
    significance_best=f"{_D}/significance_best.csv",
    power=f"{_D}/discriminative_power.csv",
    summary=f"{_D}/summary.csv",
)
MERGING_OUTPUT = dict(
    merging=f"{_D}/merging.csv",
    merging_balanced=f"{_D}/merging_balanced.csv",
)
# the Tukey trials' confusion tensors, for label noise (datasets with classes)
TRIALS_OUTPUT = dict(trials=f"{_D}/trials.npz")
SENSITIVITY_OUTPUT = dict(
    noise=f"{_D}/noise.csv",
    priors=f"{_D}/priors.csv",
)
FIGURE_OUTPUT = dict(
    similarity_png=reported(f"{_D}/figures/similarity.png", "similarity", "2 Ranking similarity",
                            "Kendall's tau between metrics"),
    similarity_pdf=f"{_D}/figures/similarity.pdf",
    stability_png=reported(f"{_D}/figures/stability.png", "stability", "3 Rank stability",
                           "tau between the rankings on random halves"),
    stability_pdf=f"{_D}/figures/stability.pdf",
    intervals_md=f"{_D}/tables/intervals.md",
    intervals_tex=f"{_D}/tables/intervals.tex",
    intervals_html=reported(f"{_D}/tables/intervals.html", "intervals_table", "5 Confidence intervals",
                            "scores with intervals (table)"),
    scores_png=reported(f"{_D}/figures/scores.png", "intervals", "5 Confidence intervals",
                        "scores with intervals (figure)"),
    scores_pdf=f"{_D}/figures/scores.pdf",
    power_png=reported(f"{_D}/figures/discriminative_power.png", "discriminative_power", "6 Significance",
                       "achieved significance levels"),
    power_pdf=f"{_D}/figures/discriminative_power.pdf",
    significance_md=f"{_D}/tables/significance.md",
    significance_html=reported(f"{_D}/tables/significance.html", "significance_table", "6 Significance",
                               "discriminative power and p-values (tables)"),
)
MERGING_FIGURE_OUTPUT = dict(
    merging_png=reported(f"{_D}/figures/merging.png", "merging", "4 Class merging",
                         "tau after merging two classes"),
    merging_pdf=f"{_D}/figures/merging.pdf",
)
SENSITIVITY_FIGURE_OUTPUT = dict(
    sensitivity_md=f"{_D}/tables/sensitivity.md",
    sensitivity_html=reported(f"{_D}/tables/sensitivity.html", "sensitivity", "8 Label noise and priors",
                              "rank changes under label noise and shifted priors (table)"),
    noise_png=reported(f"{_D}/figures/noise.png", "noise", "8 Label noise and priors", "tau under label noise"),
    noise_pdf=f"{_D}/figures/noise.pdf",
    priors_png=reported(f"{_D}/figures/priors.png", "priors", "8 Label noise and priors",
                        "tau under shifted class priors"),
    priors_pdf=f"{_D}/figures/priors.pdf",
)


rule experiments:
    """The experiments' computations: similarity, stability (gathering the
    shards), class merging, bootstrap intervals, significance and
    discriminative power, and the Table-7 summary; CSV and NPZ files only."""
    input:
        npz=rules.ingest.output.npz,
        shards=lambda wc: stability_shards(wc.dataset),
        kernels=rules.kernels.output,
    output:
        **EXPERIMENT_OUTPUT,
        **MERGING_OUTPUT,
        **TRIALS_OUTPUT,
    params:
        spec=spec_of("experiments"),
        settings=settings_of("experiments"),
        code=CODE_OF["experiments"],
    log:
        f"{RESULTS}/logs/{{dataset}}/experiments.log",
    wildcard_constraints:
        dataset=dataset_pattern("merging"),
    # The longest jobs of a run start first and the short ones fill the gaps.
    # One thread: a job that asks for two never starts while single-thread
    # jobs are ready (a freed core goes to one of them), so it waited for all
    # scoring to end.
    priority: 10
    threads: 1
    resources:
        mem_mb=4000,
        runtime=60,
        cpus_per_task=2,
    script:
        "../scripts/experiments.py"


use rule experiments as experiments_no_merging with:
    output:
        **EXPERIMENT_OUTPUT,
    wildcard_constraints:
        dataset=dataset_pattern("no_merging"),


use rule experiments as experiments_two_classes with:
    output:
        **EXPERIMENT_OUTPUT,
        **TRIALS_OUTPUT,
    wildcard_constraints:
        dataset=dataset_pattern("two_classes"),


rule weights:
    """Weighted metrics under every class-weight set (Scarton et al. Table 4)."""
    input:
        rules.ingest.output.npz,
    output:
        csv=f"{RESULTS}/{{dataset}}/weights.csv",
        tau=f"{RESULTS}/{{dataset}}/weights_tau.csv",
        md=f"{RESULTS}/{{dataset}}/tables/weights.md",
        html=reported(f"{RESULTS}/{{dataset}}/tables/weights.html", "weights", "7 Class weights",
                      "weighted metrics under every weight set"),
    params:
        spec=spec_of("weights"),
        settings=settings_of("weights"),
        code=CODE_OF["weights"],
    log:
        f"{RESULTS}/logs/{{dataset}}/weights.log",
    resources:
        mem_mb=2000,
        runtime=10,
    script:
        "../scripts/weights.py"



rule recommendation:
    """After the experiments' computations, in one process: label noise and
    class priors (datasets with classes: seconds, reusing the significance
    experiment's Tukey trials and power), every figure and table of the
    experiments (drawn from their files), and which metric to report
    (metaeval.verdict.recommendation: every criterion on the real systems, resampling the
    test units alone and with the systems, the Model Confidence Set per
    criterion, the answer and the variant with the ranked baselines). A noise
    setting or a figure's look reruns this job, never the experiments'
    resampling."""
    input:
        **recommendation_inputs(),
        **EXPERIMENT_OUTPUT,
        **MERGING_OUTPUT,
        **TRIALS_OUTPUT,
    output:
        **RECOMMENDATION_OUTPUT,
        **SENSITIVITY_OUTPUT,
        **FIGURE_OUTPUT,
        **MERGING_FIGURE_OUTPUT,
        **SENSITIVITY_FIGURE_OUTPUT,
    params:
        spec=spec_of("recommendation"),
        settings=settings_of("recommendation"),
        code=CODE_OF["recommendation"],
    log:
        f"{RESULTS}/logs/{{dataset}}/recommendation.log",
    wildcard_constraints:
        dataset=dataset_pattern("merging"),
    priority: 5
    resources:
        mem_mb=4000,
        runtime=30,
    script:
        "../scripts/recommendation.py"


use rule recommendation as recommendation_no_merging with:
    input:
        **recommendation_inputs(),
        **EXPERIMENT_OUTPUT,
    output:
        **RECOMMENDATION_OUTPUT,
        **FIGURE_OUTPUT,
    wildcard_constraints:
        dataset=dataset_pattern("no_merging"),


use rule recommendation as recommendation_two_classes with:
    input:
        **recommendation_inputs(),
        **EXPERIMENT_OUTPUT,
        **TRIALS_OUTPUT,
    output:
        **RECOMMENDATION_OUTPUT,
        **SENSITIVITY_OUTPUT,
        **FIGURE_OUTPUT,
        **SENSITIVITY_FIGURE_OUTPUT,
    wildcard_constraints:
        dataset=dataset_pattern("two_classes"),
