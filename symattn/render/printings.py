"""The labels of repeated printings in a page's language.

A claim's label (``weights[3,2] @ škálování``) is the spec's own prose, in the
spec's language. A page in another language does not show it: a label that
``symattn extract`` wrote (the document line, ``řádek 75``) is written again in
the page's words (``line 75``), and any other label becomes a neutral
``printing 2``, numbered in the order the labels first appear. A spec that gives a
label's text per language (``[labels]``: ``řešení = {cs = "řešení", en = "solutions"}``)
has it shown in a page of each of those languages.

>>> from symattn import messages
>>> english = messages.load("en")
>>> page_label("řádek 75", "cs", english, 2), page_label("škálování", "cs", english, 2)
('line 75', 'printing 2')
>>> page_label("škálování", "cs", messages.load("cs"), 2), page_label("line 75", "cs", english, 2)
('škálování', 'line 75')
"""

from __future__ import annotations

__all__ = ["page_label", "labels_in"]

import dataclasses
import re

from symattn import messages
from symattn.verify.verdicts import Reason, Report


def _line_label(spec_language: str) -> re.Pattern[str] | None:
    """The pattern of an extracted label (``řádek 75`` or ``řádek 75, 2``) in a language."""
    if spec_language not in messages.LANGUAGES:
        return None
    word = messages.load(spec_language).fill("extract.line", line="\0")
    before, _, after = word.partition("\0")
    return re.compile(re.escape(before) + r"(\d+(?:, \d+)?)" + re.escape(after))


def page_label(label: str, spec_language: str, page: messages.Catalog, number: int) -> str:
    """``label`` as a page in ``page``'s language shows it; ``number``: which printing it is
    (2 for the first label), for a label that cannot be written in the page's words."""
    if not label or not spec_language or spec_language == page.language:
        return label
    own = _line_label(page.language)
    if own and own.fullmatch(label):     # already the page's words ("line 75")
        return label
    pattern = _line_label(spec_language)
    match = pattern.fullmatch(label) if pattern else None
    if match:
        return str(page.fill("extract.line", line=match.group(1)))
    return str(page.fill("claims.printing", number=str(number)))


def labels_in(report: Report, language: str) -> Report:
    """``report`` with each label as a page in ``language`` shows it: the spec's text for
    that language (``[labels]``), else ``page_label``."""
    own = {label: texts[language] for label, texts in report.labels.items()
           if texts.get(language)}
    if not own and (not report.language or report.language == language):
        return report
    page = messages.load(language)
    shown: dict[str, str] = {}
    for verdict in report.verdicts:
        label = verdict.claim.label
        if label and label not in shown:
            shown[label] = own.get(label) or page_label(label, report.language, page,
                                                        len(shown) + 2)
    verdicts = []
    for verdict in report.verdicts:
        if verdict.claim.label:
            verdict = dataclasses.replace(verdict, claim=dataclasses.replace(
                verdict.claim, label=shown[verdict.claim.label]))
        if any(reason.key == "inconsistent" for reason in verdict.reasons):
            verdict = dataclasses.replace(verdict, reasons=tuple(
                _relabelled(reason, shown) for reason in verdict.reasons))
        verdicts.append(verdict)
    return dataclasses.replace(report, verdicts=tuple(verdicts))


def _relabelled(reason: Reason, shown: dict[str, str]) -> Reason:
    """The clashing printings an ``inconsistent`` reason names, with their labels shown."""
    if reason.key != "inconsistent":
        return reason
    args = tuple((name, _each_label(value, shown) if name == "others" else value)
                 for name, value in reason.args)
    return dataclasses.replace(reason, args=args)


def _each_label(others: str, shown: dict[str, str]) -> str:
    for label, text in shown.items():
        others = others.replace(f"({label})", f"({text})")
    return others
