"""Exercise sheets with answer keys, as data.

Seeded nice numbers (``numbers``), the words tokens are named by (``words``, data
in ``words.toml``), the exercise kinds (``attention_steps``,
``transformer``, ``reasoning``, ``whatif``, ``mistakes``, listed by name in
``catalog``) built on the exercise records (``model``) and their answers read
from the engine (``answers``), lesson presets and calculator-free numbers (``presets``,
``calcfree``), the short key's line of working (``shortkey``), and a class set
with its answers (``sheet``). The LaTeX of a sheet and of its keys comes from
``symattn.render.worksheet`` and ``symattn.render.worksheet_short``.

>>> from symattn import worksheets
>>> sheets = worksheets.build(seed=7, variants=2, language="pl", kinds=("softmax_table",))
>>> [sheet.variant for sheet in sheets], worksheets.check_answers(sheets[0]) > 0
([1, 2], True)
"""

from symattn.worksheets.sheet import (DEFAULT_KINDS, KINDS, LANGUAGES, MAX_VARIANTS, Worksheet,
                                      answers_document, build, check_answers, parse_kinds)

__all__ = ["Worksheet", "build", "answers_document", "check_answers", "KINDS", "DEFAULT_KINDS",
           "LANGUAGES", "parse_kinds", "MAX_VARIANTS"]
