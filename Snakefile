# metaeval: meta-evaluation of classification metrics (see README.md).
#   snakemake --cores 8                       all tables and figures into results/
#   snakemake --cores 8 --config data_dir=... another data folder
from snakemake.utils import min_version, validate

min_version("9.0")


configfile: "config/config.yaml"


validate(config, "config/schema.yaml")


include: "workflow/rules/common.smk"
include: "workflow/rules/scoring.smk"
include: "workflow/rules/experiments.smk"
include: "workflow/rules/reproduce.smk"


rule all:
    input:
        all_targets(),
    default_target: True
