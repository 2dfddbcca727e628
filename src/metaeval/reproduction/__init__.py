"""The papers' published tables against ours (``reproduce``) and a task's
official figures against the dataset's scores (``official``): apart from the
core, no method reads them.
"""
