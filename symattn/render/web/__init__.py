"""HTML pages: self-contained files that read offline (``--format html``, notebooks)."""
