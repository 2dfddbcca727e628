# metaeval's workflow from the checkout's root: `snakemake --cores 8` runs
# workflow/Snakefile (the catalog layout: workflow/rules, workflow/scripts,
# workflow/schemas, workflow/report), with its profile (profiles/default is
# workflow/profiles/default) and its report.  `snakemake -s workflow/Snakefile`
# runs the same workflow.
include: "workflow/Snakefile"
