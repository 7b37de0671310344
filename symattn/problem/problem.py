"""A validated attention problem: input matrices and options, shapes checked.

``Problem.from_mapping`` takes the plain mapping a spec file holds (numbers
still as their printed text) and returns a frozen ``Problem``, or raises
``InputError`` naming the key, row and column at fault. The next stage is
``pipeline.derive``.

The record sits above its readers (``read``, ``options``) and its checks
(``shapes``), so that ``from_mapping`` can stay a classmethod without an
import cycle; the records they produce (``MaskSpec``, the layer tables) sit
below them.

>>> problem = Problem.from_mapping({"inputs": {"Q": [[1, 0]], "K": [[1, 0], [0, 1]],
...                                            "V": [[1], [2]]}})
>>> problem.shape("Q"), problem.d_k_value
((1, 2), 2)
"""

from __future__ import annotations

__all__ = ["Problem", "EntryMatrix", "MaskSpec", "INPUT_NAMES", "OPTION_NAMES"]

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Mapping

from flint import fmpq

from symattn.defaults import DIGITS, POSITION_BASE, ROUNDING
from symattn.errors import InputError, Location
from symattn.problem import shapes
from symattn.problem.comparisons import Comparison
from symattn.problem.layer_config import FeedForward, Readout, Vocabulary
from symattn.problem.limits import DEFAULT as DEFAULT_LIMITS
from symattn.problem.limits import Limits, check_positions, check_problem
from symattn.problem.modes import FullyMasked, MaskSpec, Normalisation, Positions
from symattn.problem.options import OPTION_NAMES
from symattn.problem.read import INPUT_NAMES, TOP_LEVEL_NAMES, read_spec
from symattn.problem.tables import EntryMatrix, check_keys, entry_values
from symattn.problem.symbols import SymbolQuestions
from symattn.problem.variants import Variant
from symattn.values.entries import Symbolic
from symattn.values.exact import NEG_INF, Exact, Surd, surd_sqrt
from symattn.values.rules import Rounding


def prose_for(texts: Mapping[str, str], language: str) -> str:
    """Of a spec's texts by language ("" for a text whose language is unknown), the one a
    page in ``language`` shows, or "" (a page never mixes languages)."""
    return texts.get(language) or texts.get("", "")


@dataclass(frozen=True)
class Problem:
    """Everything needed to derive one attention computation."""

    inputs: Mapping[str, EntryMatrix]
    title: str = ""
    description: str = ""
    language: str = ""                      # the reader's language (messages.LANGUAGES); "" unset
    # title and description by language ("" for a text of no known language): prose_in
    prose: Mapping[str, Mapping[str, str]] = field(default_factory=dict, compare=False)
    # each claim label (the text after "@") by language, from [labels]: Report.label_in
    labels: Mapping[str, Mapping[str, str]] = field(default_factory=dict, compare=False)
    written_language: str = ""              # the spec's language when it has no catalog ("pt")
    tokens: tuple[str, ...] = ()
    d_k: int | None = None
    scale: Exact | Symbolic | None = None          # None: 1/sqrt(d_k)
    temperature: Exact | Symbolic = fmpq(1)
    mask: MaskSpec = MaskSpec()
    normalisation: Normalisation = Normalisation.SOFTMAX
    fully_masked: FullyMasked = FullyMasked.ERROR
    query_positions: tuple[int, ...] | None = None  # 1-based positions of the query rows
    digits: int = DIGITS
    rounding: Rounding = Rounding(ROUNDING)
    claims: Mapping[str, Any] = field(default_factory=dict)
    source: str | None = None
    vocabulary: Vocabulary | None = None
    sequence: tuple[int, ...] = ()          # token ids when X comes from the vocabulary
    ffn: FeedForward | None = None
    readout: Readout | None = None
    heads: int = 1
    kv_heads: int | None = None             # grouped-query attention: K/V heads shared
    positions: Positions = Positions.NONE   # sinusoidal: added to X; rope: rotates Q, K
    position_base: int = POSITION_BASE      # the 10000 in the sinusoid / RoPE frequencies
    diagnostics: tuple[str, ...] = ()       # extra steps: entropy, jacobian, variance
    max_shift: bool | None = None           # None: only where e^z would pass about 10^6
    compare: tuple[Comparison, ...] = ()    # side-by-side variants (derivation.compare)
    number_format: str = ""                 # how printed claims group digits: "1,234.5", ...
    order: tuple[str, ...] = ()             # the document's order on the scores (derivation.order)
    variants: tuple[Variant, ...] = ()      # [[variants]]: other settings, own claims
    variant: str = ""                       # the name of the variant this problem is, if one
    precision: str = "exact"                # or the float format a framework computed in
    rounded_inputs: tuple[str, ...] = ()    # inputs printed rounded (inputs_printed)
    symbols: SymbolQuestions = SymbolQuestions()   # [symbols]: limits, derivative, subs
    # the 1-based line of each [claims] key in the spec file (``spec.claim_lines``)
    claim_lines: Mapping[str, int] = field(default_factory=dict, compare=False)

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any], source: str | None = None,
                     limits: Limits = DEFAULT_LIMITS) -> Problem:
        """Validate a spec mapping (as read from TOML or JSON) into a Problem."""
        where = Location(file=source)
        problem = cls(source=source, **read_spec(data, where, limits))
        inputs, heads = problem.inputs, problem.heads
        shapes.check_inputs(inputs, heads, problem.scale is not None or problem.d_k is not None,
                            where)
        shapes.check_sources_used(inputs, problem.positions != Positions.NONE or bool(
            problem.ffn and problem.ffn.residual), where)
        shapes.check_heads(inputs, heads, problem.kv_heads, where)
        n, m = problem.score_shape()
        shapes.check_queries(problem.mask, problem.query_positions, problem.tokens, (n, m), where)
        shapes.check_layer(inputs, problem.ffn, problem.readout, problem.vocabulary,
                           problem.query_positions, where)
        check_problem(n, m, heads, problem.needs_sympy, limits, where.at(key="inputs"),
                      problem.score_terms())
        if problem.positions != Positions.NONE:
            check_positions(max(n, m), problem.position_width, limits,
                            where.at(key="options.positions"))
        return problem

    @classmethod
    def from_arrays(cls, **arrays_and_options: Any) -> Problem:
        """A Problem from Python values: inputs by name (``Q``, ``K``, ``V``, ``X``,
        ``W_Q`` ..., ``scores``, ``scaled``) as NumPy arrays, SymPy matrices or nested
        lists of ints, floats, Fractions, Decimals, SymPy numbers or text; spec keys
        (``title``, ``tokens``, ``claims`` ...) and options (``mask="causal"``,
        ``temperature`` ...) by name. Floats are read by their shortest repr (0.1 is
        1/10; docs/python.md has the rules).

        >>> import numpy as np
        >>> p = Problem.from_arrays(Q=np.array([[0.5, 1.0], [0.1, 0]]), K=[[1, 0], [0, 1]],
        ...                         V=[[1], [2]], mask="causal", tokens=["a", "b"])
        >>> p.inputs["Q"][0][0].value, p.mask.kind.value
        (1/2, 'causal')
        """
        data: dict[str, Any] = {"inputs": {}, "options": {}}
        for name, value in arrays_and_options.items():
            if name in INPUT_NAMES:
                data["inputs"][name] = value
            elif name in OPTION_NAMES:
                data["options"][name] = value
            elif name in TOP_LEVEL_NAMES and name not in ("inputs", "options"):
                data[name] = list(value) if name == "tokens" and \
                    isinstance(value, tuple) else value
            else:
                check_keys({name: value}, (*INPUT_NAMES, *OPTION_NAMES, *TOP_LEVEL_NAMES),
                           Location(key="from_arrays"))
        return cls.from_mapping(data)

    def __repr__(self) -> str:
        title = f" {self.title!r}" if self.title else ""
        source = f" from {self.source}" if self.source else ""
        n, m = self.score_shape()
        return (f"<Problem{title}{source}: {n} queries x {m} keys, inputs "
                f"{', '.join(self.inputs)}, {len(self.claims)} claim tables>")

    @cached_property
    def is_symbolic(self) -> bool:
        """True when some input is not rational, or with positions: not the rational core."""
        return self.positions != Positions.NONE or self.needs_sympy

    @cached_property
    def needs_sympy(self) -> bool:
        """True when an input, the scale or the temperature has a symbol or a root: the
        SymPy path (positions alone take the fast position path)."""
        if isinstance(self.scale, Symbolic) or isinstance(self.temperature, Symbolic):
            return True
        kinds = {kind for matrix in self.inputs.values()
                 for kind in map(type, entry_values(matrix))}
        return any(issubclass(kind, (Symbolic, Surd)) for kind in kinds)

    @property
    def position_width(self) -> int:
        """The width positions act on: d_model of X (and X_kv) for sinusoidal, d_k for RoPE."""
        if self.positions == Positions.ROPE:   # d_k (given scores have none: refused later)
            inputs = self.inputs
            return self.projected_shape("Q")[1] if "Q" in inputs or "W_Q" in inputs and \
                "X" in inputs else 0
        return max((self.shape(name)[1] for name in ("X", "X_kv") if name in self.inputs),
                   default=0)

    def shape(self, name: str) -> tuple[int, int]:
        """(rows, columns) of the input ``name``."""
        return shapes.matrix_shape(self.inputs, name)

    def projected_shape(self, name: str) -> tuple[int, int]:
        """Shape of Q, K or V, given directly or as X @ W (X_kv @ W for K and V)."""
        return shapes.projected_shape(self.inputs, name)

    def prose_in(self, key: str, language: str) -> str:
        """The ``title`` or ``description`` a page in ``language`` shows: the spec's text
        in that language, a text whose language the spec does not say as it is, else ""
        (a page never mixes languages).

        >>> spec = Problem(inputs={}, title="kočka", language="cs")
        >>> spec.prose_in("title", "cs"), spec.prose_in("title", "en")
        ('kočka', '')
        >>> Problem(inputs={}, title="cat").prose_in("title", "pl")
        'cat'
        """
        own = str(getattr(self, key))
        return prose_for(self.prose.get(key) or ({self.language: own} if own else {}),
                         language)

    def score_shape(self) -> tuple[int, int]:
        """(queries, keys): the shape of the scores, given or computed."""
        return shapes.score_shape(self.inputs)

    def score_terms(self) -> int:
        """The products a score sums: d_k (1 for scores given directly)."""
        if "scaled" in self.inputs or "scores" in self.inputs:
            return 1
        return max(1, self.projected_shape("Q")[1] // self.heads)

    @property
    def d_k_value(self) -> int | None:
        """d_k as used for the default scale (explicit, else the columns of K)."""
        if self.d_k is not None:
            return self.d_k
        if "scaled" in self.inputs or "scores" in self.inputs:
            return None
        return self.projected_shape("Q")[1] // self.heads

    @property
    def scale_value(self) -> Exact | Symbolic:
        """The scale of the scores: options.scale, else 1/sqrt(d_k)."""
        if self.scale is not None:
            return self.scale
        d_k = self.d_k_value
        if d_k is None:     # from_mapping refuses scores without d_k or a scale
            raise InputError("scores are given directly, so d_k is unknown: set "
                             "options.d_k or options.scale", Location(file=self.source))
        return surd_sqrt(fmpq(1, d_k))

    def allowed(self) -> list[list[bool]]:
        """For each query row and key column, whether attention is allowed."""
        n, m = self.score_shape()
        positions = self.query_positions or tuple(range(1, n + 1))
        allowed = [self.mask.allowed_row(i, positions[i], m) for i in range(n)]
        for name in ("scaled", "scores"):
            for i, row in enumerate(self.inputs.get(name, ())):
                for j, entry in enumerate(row):
                    if entry.value is NEG_INF:
                        allowed[i][j] = False
        return allowed
