"""Self-contained HTML pages that read offline: ``--format html``, notebooks, the calculator
and the page of ``symattn serve``."""
