"""Strings only: derivations, reports and worksheets as LaTeX, Markdown, text
and JSON. A renderer receives what it lays out; it never computes or checks.
"""
