"""What people read: a metric's name typeset per format (``notation``),
Markdown, LaTeX and HTML tables (``tables``), figures (``plots``) and HTML
pages (``report``) of data frames.  No method lives here: the methods write
their tables through these functions, so this floor sits below them.
"""

from metaeval import _submodules  # noqa: E402

__getattr__ = _submodules(__name__)  # its modules, imported on first use
