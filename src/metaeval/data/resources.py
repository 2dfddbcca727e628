"""Where the Snakemake workflow and the config's schema are, in a checkout
and in an installed package.

The workflow (``workflow/`` in the repository: the Snakefile, its rules,
scripts, report captions, the config's JSON schema and the default profile)
is shipped inside the package as ``metaeval/_workflow`` (``pyproject.toml``
maps the folder), so that ``metaeval init`` prints a command that runs after
a plain ``pip install``, outside any checkout.  An editable install
(``pip install -e .``) has no copy: the checkout's folder is used.
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["workflow_dir", "snakefile", "config_schema", "in_checkout"]

_HERE = Path(__file__).resolve().parents[1]  # the package (this module is in its data/ folder)


def _candidates() -> list[Path]:
    # the installed copy first: a wheel installed from a checkout must not
    # run the checkout's (possibly newer) files
    return [_HERE / "_workflow", _HERE.parents[1] / "workflow"]


def workflow_dir() -> Path:
    """The folder of the workflow's ``Snakefile``."""
    for d in _candidates():
        if (d / "Snakefile").is_file():
            return d
    raise FileNotFoundError("metaeval's Snakemake workflow is not installed: looked in "
                            + " and ".join(str(d) for d in _candidates())
                            + " (reinstall the package: pip install <the metaeval checkout>)")


def in_checkout() -> bool:
    """Whether the workflow used is a checkout's (an editable install), whose
    root also holds ``config/config.yaml``."""
    return workflow_dir() == _HERE.parents[1] / "workflow"


def snakefile() -> Path:
    """The workflow's ``Snakefile`` (``snakemake -s`` takes it)."""
    return workflow_dir() / "Snakefile"


def config_schema() -> Path:
    """The JSON schema of the config (YAML), which the workflow validates
    against and ``metaeval.data.config.load_config`` uses by default."""
    return workflow_dir() / "schemas" / "config.schema.yaml"
