# metaeval's workflow from the checkout's root: `snakemake --cores 8` runs
# workflow/Snakefile (the catalog layout: workflow/rules, workflow/scripts,
# workflow/schemas, workflow/report), with its profile (profiles/default is
# workflow/profiles/default) and its report.  `snakemake -s workflow/Snakefile`
# runs the same workflow.
include: "workflow/Snakefile"


# Snakemake takes the default target from this file only (an included file's
# first rule or `default_target` is not), so this rule asks for what the
# workflow's own `all` asks for
rule default:
    input:
        rules.all.input,
    default_target: True
    localrule: True
