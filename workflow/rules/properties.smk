# Formal properties of the metrics: one job for the whole registry (it does
# not depend on any dataset), on generated confusion matrices.


rule properties:
    """Every classification metric against every formal property
    (metaeval.measures.properties): results/properties.csv, tables and a figure."""
    output:
        csv=f"{RESULTS}/properties.csv",
        md=f"{RESULTS}/tables/properties.md",
        tex=f"{RESULTS}/tables/properties.tex",
        html=report(f"{RESULTS}/tables/properties.html", caption="../report/properties.rst",
                    category="Metric properties", subcategory="Formal properties",
                    labels={"result": "metric x property (table)"}),
        png=report(f"{RESULTS}/figures/properties.png", caption="../report/properties.rst",
                   category="Metric properties", subcategory="Formal properties",
                   labels={"result": "metric x property (figure)"}),
        pdf=f"{RESULTS}/figures/properties.pdf",
    params:
        settings=PROPERTY_SETTINGS,
        code=CODE_OF["properties"],
    log:
        f"{RESULTS}/logs/properties.log",
    # no input: it can run while the datasets are read and scored, instead of
    # after the experiments, where it would lengthen the run's tail
    priority: 5
    resources:
        mem_mb=2000,
        runtime=10,
    script:
        "../scripts/properties.py"


rule dataset_properties:
    """The formal properties on one dataset's own shape (its classes, order,
    class weights and class sizes): results/<dataset>/properties.csv, the
    requirements its recommendation offers and checks."""
    input:
        npz=rules.ingest.output.npz,
    output:
        csv=f"{RESULTS}/{{dataset}}/properties.csv",
    params:
        spec=spec_of("dataset_properties"),
        properties=DATASET_PROPERTY_SETTINGS,
        code=CODE_OF["dataset_properties"],
    log:
        f"{RESULTS}/logs/{{dataset}}/dataset_properties.log",
    priority: 5
    resources:
        mem_mb=2000,
        runtime=10,
    script:
        "../scripts/dataset_properties.py"
