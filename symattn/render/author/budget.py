"""The limits of a document template's work, and the operations that keep to them.

A template is untrusted text run on every site build, so what it computes is
bounded before it is computed: an integer's digits, a string's (or list's)
length and a repetition count, loop iterations with macro calls, the characters
printed, and the seconds the render takes. Each limit has its option
(``--template-max-digits`` ... of ``symattn render``, ``template_max_digits`` ...
of the MkDocs plugin) and its default in ``symattn.defaults``.

>>> budget = Budget(TemplateLimits(max_digits=5))
>>> budget.binop("*", 3, 4), budget.binop("**", 10, 4)
(12, 10000)
>>> budget.binop("**", 10, 5)  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
symattn.render.author.budget.LimitError: the template made a number of more than 5 digits ...
"""

from __future__ import annotations

__all__ = ["TemplateLimits", "Budget", "LimitError", "OPTIONS"]

import math
import operator
import re
import time
from dataclasses import dataclass
from typing import Any, Callable, Mapping

from symattn import defaults
from symattn.errors import InputError

# Each limit's option on the command line (the MkDocs plugin's key is the same with _).
OPTIONS = {"max_digits": "--template-max-digits", "max_length": "--template-max-length",
           "max_iterations": "--template-max-iterations",
           "max_output": "--template-max-output", "max_seconds": "--template-max-seconds"}


class LimitError(InputError):
    """A template went past one of its limits (the message names the limit's option)."""


@dataclass(frozen=True)
class TemplateLimits:
    """How much one render may compute (docs/author.md, "Limits")."""

    max_digits: int = defaults.TEMPLATE_MAX_DIGITS
    max_length: int = defaults.TEMPLATE_MAX_LENGTH
    max_iterations: int = defaults.TEMPLATE_MAX_ITERATIONS
    max_output: int = defaults.TEMPLATE_MAX_OUTPUT
    max_seconds: float = defaults.TEMPLATE_MAX_SECONDS

    def __post_init__(self) -> None:
        for name, option in OPTIONS.items():
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
                raise InputError(f"{option} must be a positive number, got {value!r}")


_BINOPS: Mapping[str, Callable[[Any, Any], Any]] = {
    "+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv,
    "//": operator.floordiv, "%": operator.mod, "**": operator.pow}
_SIZED = (str, bytes, list, tuple)
# A printf conversion: %(key)flags width .precision length type.
_PRINTF = re.compile(r"%(?:\(([^)]*)\))?([-#0 +]*)(\*|\d+)?(?:\.(\*|\d+))?[hlL]?([a-zA-Z%])")


class Budget:
    """The limits of one render, and what it has used of them."""

    def __init__(self, limits: TemplateLimits) -> None:
        self.limits = limits
        self._bits = math.ceil(limits.max_digits * math.log2(10)) + 1
        self._started = time.monotonic()
        self.iterations = 0
        self.output = 0

    def _stop(self, what: str, limit: str) -> LimitError:
        return LimitError(f"the template {what} (limit {OPTIONS[limit]})")

    def tick(self, count: int = 1, printed: int = 0) -> None:
        """``count`` loop iterations or calls, printing ``printed`` characters."""
        self.iterations += count
        self.output += printed
        if self.iterations > self.limits.max_iterations:
            raise self._stop(f"ran more than {self.limits.max_iterations:,} loop iterations "
                             "and calls", "max_iterations")
        if self.output > self.limits.max_output:
            raise self._stop(f"printed more than {self.limits.max_output:,} characters",
                             "max_output")
        if time.monotonic() - self._started > self.limits.max_seconds:
            raise self._stop(f"ran for more than {self.limits.max_seconds:g} s", "max_seconds")

    def checked(self, value: Any) -> Any:
        """``value``, refused when it is an integer or a sequence past the limits."""
        if isinstance(value, int) and value.bit_length() > self._bits - 5 and (
                value.bit_length() > self._bits or abs(value) >= 10 ** self.limits.max_digits):
            raise self._too_many_digits()
        if isinstance(value, float) and not math.isfinite(value):
            raise InputError("the template's arithmetic overflowed (a number beyond "
                             "1.8e308, or not a number)")
        if isinstance(value, (*_SIZED, dict)) and len(value) > self.limits.max_length:
            raise self._too_long()
        return value

    def _too_many_digits(self) -> LimitError:
        return self._stop(f"made a number of more than {self.limits.max_digits:,} digits",
                          "max_digits")

    def _too_long(self) -> LimitError:
        return self._stop(f"made a string or list longer than {self.limits.max_length:,}",
                          "max_length")

    @staticmethod
    def scalar(value: Any) -> Any:
        """``value``, refused when it is a container (its text may be far longer than
        its length: a list of a million references to one long string)."""
        if isinstance(value, (list, tuple, dict, set, frozenset)):
            raise InputError("the template formatted a list or a mapping as text; format "
                             "its items one by one")
        return value

    def length(self, size: int) -> None:
        """Refuse a string, list or repetition count of ``size`` past the limit."""
        if size > self.limits.max_length:
            raise self._too_long()

    def binop(self, operation: str, left: Any, right: Any) -> Any:
        """``left operation right``, refused before it is computed when too large."""
        self.tick(0)
        if operation == "**":
            self._power(left, right)
        elif operation == "*":
            self._product(left, right)
        elif operation == "%" and isinstance(left, str):
            return self.printf(left, right)
        try:
            result = _BINOPS[operation](left, right)
        except ZeroDivisionError:
            raise InputError("division by zero in the template") from None
        except OverflowError:
            raise InputError("the template's arithmetic overflowed (a number beyond "
                             "1.8e308)") from None
        if isinstance(left, float) and isinstance(right, float) and \
                not (math.isfinite(left) and math.isfinite(right)):
            return result       # inf or nan in, inf or nan out: no overflow of its own
        return self.checked(result)

    def unop(self, operation: str, value: Any) -> Any:
        """``+value`` or ``-value``."""
        return self.checked(+value if operation == "+" else -value)

    def _power(self, base: Any, exponent: Any) -> None:
        if isinstance(base, int) and isinstance(exponent, int) and exponent > 0:
            if (base.bit_length() - 1) * exponent > self._bits:
                raise self._too_many_digits()

    def _product(self, left: Any, right: Any) -> None:
        if isinstance(left, int) and isinstance(right, int):
            if left.bit_length() + right.bit_length() > self._bits + 1:
                raise self._too_many_digits()
            return
        for items, count in ((left, right), (right, left)):
            if isinstance(items, _SIZED) and isinstance(count, int):
                self.length(count)
                self.length(len(items) * max(count, 0))

    def printf(self, form: str, values: Any) -> str:
        """``form % values``, one conversion at a time, each bounded."""
        pieces: list[str] = []
        used = position = made = 0
        args = values if isinstance(values, tuple) else (values,)
        for match in _PRINTF.finditer(form):
            key, width, precision, kind = match.group(1, 3, 4, 5)
            if "*" in (width, precision):
                raise InputError("the template's % formatting takes no * width; write the "
                                 "width in the format")
            self.length(int(width or 0) + int(precision or 0))
            before = len(pieces)
            pieces.append(form[position:match.start()])
            position = match.end()
            spec = match.group().replace(f"({key})", "") if key is not None else match.group()
            if kind == "%":
                pieces.append("%")
            elif key is not None:
                pieces.append(spec % (self.scalar(values[key]),))
            elif used < len(args):
                pieces.append(spec % (self.scalar(args[used]),))
                used += 1
            else:
                raise InputError("not enough values for the template's % formatting")
            made += sum(map(len, pieces[before:]))
            self.length(made)
        pieces.append(form[position:])
        return str(self.checked("".join(pieces)))
