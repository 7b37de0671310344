"""Printed numbers to verdicts, as data: ok, propagated or wrong.

From the bottom up: ``claims`` reads what a document printed (the records
``Printed``, ``Target``, ``Claim``); ``verdicts`` holds the records of a check
(``Verdict``, ``Report``); ``targets`` gives a claim's exact value and
position; ``recompute`` follows the document's own rounded numbers forward;
``hints`` names what a wrong number matches; ``consistency`` flags printings
of one quantity that clash; ``checker.check`` judges every claim.
"""
