# metaeval: meta-evaluation of classification metrics (see README.md).
#   snakemake --cores 8                                    all tables and figures into results/
#   snakemake --cores 8 --config data_dir=/path/to/data    another data folder
#   snakemake --cores 8 --configfile my.yaml               another config (it replaces config/config.yaml)
from pathlib import Path

import yaml
from snakemake.exceptions import WorkflowError
from snakemake.utils import min_version, validate

from metaeval.config import label_scalars, unknown_keys

min_version("9.0")


# The project's config, found beside this Snakefile (so --directory works);
# a config file given on the command line replaces it instead of being merged
# into it, so that its datasets are the only ones.
if not workflow.overwrite_configfiles:

    configfile: str(Path(workflow.basedir) / "config" / "config.yaml")


# labels that YAML read as numbers become their text; booleans are refused
# (their spelling is lost) with the advice to quote them
_labels = label_scalars(config)
if _labels:
    raise WorkflowError("Bad configuration:\n  " + "\n  ".join(_labels))
# unknown keys first, each with its place and the closest known key (the
# schema's own error for a typo prints the whole schema)
_unknown = unknown_keys(config, yaml.safe_load((Path(workflow.basedir) / "config" / "schema.yaml").read_text()))
if _unknown:
    raise WorkflowError("Bad configuration: unknown keys (config/README.md lists every key):\n  "
                        + "\n  ".join(_unknown))
validate(config, "config/schema.yaml")


# the front page of `snakemake --report results/report.html`
report: "workflow/report/workflow.rst"


include: "workflow/rules/common.smk"
include: "workflow/rules/scoring.smk"
include: "workflow/rules/experiments.smk"
include: "workflow/rules/reproduce.smk"
include: "workflow/rules/properties.smk"


# cheap steps run on the submitting node of a cluster, not as cluster jobs
localrules:
    all,
    provenance,
    overview,


rule all:
    input:
        all_targets(),
    default_target: True


onsuccess:
    report_warnings()


onerror:
    remove_stale_reports()
    report_warnings()
    report_failures()
