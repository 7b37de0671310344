"""Exact numbers and how they are written.

Rationals (``fmpq``), surds, the formal -oo and nan (``exact``); the entry
grammar (``entries``); arithmetic that stays exact (``arith``) and the exact
functions of a row of weights (``probabilities``); rounding rules
(``rules``, ``rounding``); certified decimals (``decimals``, ``enclosures``)
and the one formatter every printed number goes through (``number_format``); the
SymPy bridge (``symbolic``).
"""
