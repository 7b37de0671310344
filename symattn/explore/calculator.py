"""The calculator's states: a temperature sweep at every setting of its switches.

The calculator page (``symattn calculator``) has a slider for the temperature T,
one for d_k (the scale 1/sqrt(d_k)), and switches for the scaling and the mask.
Every position is computed here in advance, exactly, by ``explore.sweep`` (the
same derivations ``symattn sweep`` makes, with the weights kept); the page only
selects one. A setting is (scaled, d_k, masked); unscaled, d_k plays no part.

>>> import symattn
>>> calc = calculator(symattn.load_example("003-entropy-temperature"),
...                   parse_temperatures("0.3,2"), (4,))
>>> [setting.name for setting in calc.settings]
['scaled-4-plain', 'scaled-4-masked', 'plain-plain', 'plain-masked']
>>> calc.mask_kind, calc.start
('causal', Setting(scaled=True, d_k=4, masked=False))
"""

from __future__ import annotations

__all__ = ["TEMPERATURES", "D_K_CHOICES", "MAX_STATES", "Setting", "Calculator", "calculator",
           "parse_d_ks", "parse_temperatures"]

import dataclasses
from dataclasses import dataclass
from typing import Sequence

from flint import fmpq

from symattn.defaults import CALCULATOR_D_KS, CALCULATOR_TEMPERATURES
from symattn.errors import InputError
from symattn.explore.shared import mean_entropy
from symattn.explore.sweep import Sweep, parse_temperatures, sweep
from symattn.problem.limits import DEFAULT, Limits
from symattn.problem.modes import MaskKind, MaskSpec
from symattn.problem.problem import Problem
from symattn.values.entries import Entry, Symbolic
from symattn.values.exact import Exact

# The default grid (symattn.defaults): T from 0.1 to 3 in steps of 0.1, and d_k over
# powers of two (the spec's own d_k is added to them).
TEMPERATURES = CALCULATOR_TEMPERATURES
D_K_CHOICES = CALCULATOR_D_KS
# States (temperatures times settings) one page may hold: beyond it the file grows past
# a few megabytes for a 6 x 6 problem, and the precomputation past a minute.
MAX_STATES = 2000
MAX_D_K = 100_000


@dataclass(frozen=True)
class Setting:
    """One position of the switches and the d_k slider (d_k is None when unscaled)."""

    scaled: bool
    d_k: int | None
    masked: bool

    @property
    def name(self) -> str:
        """The key the page's data uses for this setting."""
        scaling = f"scaled-{self.d_k}" if self.scaled else "plain"
        return f"{scaling}-{'masked' if self.masked else 'plain'}"


@dataclass(frozen=True)
class Calculator:
    """Every state of the page: one sweep over ``temperatures`` per setting."""

    temperatures: tuple[Entry, ...]
    d_ks: tuple[int, ...]              # empty when the scores are given scaled
    mask_kind: str                     # the mask the switch applies: the spec's, else causal
    start: Setting                     # the spec's own setting
    start_temperature: int             # index into temperatures
    settings: tuple[Setting, ...]
    sweeps: tuple[Sweep, ...]          # one per setting, in the same order
    mean_entropy_max: tuple[Exact, ...]  # per setting: the mean of the rows' H_max
    scales: tuple[Exact, ...]          # 1/sqrt(d_k) for each of d_ks

    @property
    def states(self) -> int:
        return len(self.temperatures) * len(self.settings)


def parse_d_ks(text: str) -> tuple[int, ...]:
    """d_k values as written, ``1,2,4,8``: whole numbers from 1 to 100,000.

    >>> parse_d_ks("4, 1,16")
    (1, 4, 16)
    >>> parse_d_ks("0")
    Traceback (most recent call last):
    ...
    symattn.errors.InputError: --d-k: '0' is not a whole number from 1 to 100000
    """
    values = set()
    for part in (piece.strip() for piece in text.split(",")):
        if not (part.isascii() and part.isdigit() and 1 <= int(part) <= MAX_D_K):
            raise InputError(f"--d-k: {part!r} is not a whole number from 1 to {MAX_D_K}")
        values.add(int(part))
    return tuple(sorted(values))


def _start(problem: Problem, d_ks: tuple[int, ...]) -> Setting:
    masked = problem.mask.kind != MaskKind.NONE
    if not d_ks or problem.scale == 1:
        return Setting(False, None, masked)
    own = problem.d_k_value
    return Setting(True, own if own in d_ks else d_ks[0], masked)


def _settings(d_ks: tuple[int, ...]) -> tuple[Setting, ...]:
    scalings = [(True, d_k) for d_k in d_ks] + [(False, None)]
    return tuple(Setting(scaled, d_k, masked) for scaled, d_k in scalings
                 for masked in (False, True))


def _variant(problem: Problem, setting: Setting, mask: MaskSpec) -> Problem:
    scale = fmpq(1) if not setting.scaled else None
    d_k = setting.d_k if setting.scaled else problem.d_k
    return dataclasses.replace(problem, scale=scale, d_k=d_k,
                               mask=mask if setting.masked else MaskSpec())


def _scale(problem: Problem, d_k: int) -> Exact:
    value = dataclasses.replace(problem, scale=None, d_k=d_k).scale_value
    assert not isinstance(value, Symbolic)      # 1/sqrt of a whole number
    return value


def calculator(problem: Problem, temperatures: Sequence[Entry],
               d_ks: Sequence[int] = D_K_CHOICES, limits: Limits = DEFAULT) -> Calculator:
    """Every state of the calculator for ``problem``: the temperatures times the settings
    (each d_k scaled, and unscaled; the mask on and off), each derived exactly."""
    if problem.heads != 1:
        raise InputError(f"the calculator shows one head; this spec has {problem.heads} "
                         f"(options.heads)")
    given_scaled = "scaled" in problem.inputs
    own = problem.d_k_value
    grid = () if given_scaled else tuple(sorted(set(d_ks) | ({own} if own else set())))
    mask = problem.mask if problem.mask.kind != MaskKind.NONE else MaskSpec(MaskKind.CAUSAL)
    settings = _settings(grid)
    if len(temperatures) * len(settings) > MAX_STATES:
        raise InputError(f"the calculator would hold {len(temperatures)} temperatures times "
                         f"{len(settings)} settings = {len(temperatures) * len(settings):,} "
                         f"states; the limit is {MAX_STATES:,} (fewer --temperatures or --d-k)")
    sweeps = tuple(sweep(_variant(problem, setting, mask), temperatures, limits,
                         keep_weights=True)[0] for setting in settings)
    values = [t.value for t in temperatures]
    start_t = values.index(problem.temperature) if problem.temperature in values else \
        values.index(fmpq(1)) if fmpq(1) in values else 0
    return Calculator(tuple(temperatures), grid, mask.kind.value, _start(problem, grid),
                      start_t, settings, sweeps,
                      tuple(mean_entropy(result.entropy_max) for result in sweeps),
                      tuple(_scale(problem, d_k) for d_k in grid))
