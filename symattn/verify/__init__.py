"""Printed numbers to verdicts, as data: ok, propagated or wrong.

``claims`` reads what a document printed; ``checker`` judges it against the
derivation, following the document's own rounded numbers forward.
"""
