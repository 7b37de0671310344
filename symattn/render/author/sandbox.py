"""The Jinja sandbox of document templates, with every operation bounded.

Jinja's immutable sandbox stops a template reaching Python's internals, but
not work: ``2**(2**34)``, ``"a" * 10**10`` or two nested loops over a
million characters would run on for as long and as large as they like. Here
every arithmetic operator goes through ``Budget.binop``; every call through
``call`` (methods of strings, numbers and lists: only those whose result is no
larger than their input, or whose size is checked first); ``str.format`` and
``%`` formatting check each field's width; every ``for`` loop and every ``~``
pass through the environment (the parsed template is rewritten), so loops
count against the iteration budget and joined strings against the length
limit; and ``finalize`` counts what is printed.

>>> env = BoundedEnvironment(TemplateLimits(max_length=10), finalize=str)
>>> env.from_string("{{ 'ab' * 5 }}").render()
'ababababab'
>>> env.from_string("{{ 'ab' ~ 'c' * 9 }}").render()  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
symattn.render.author.budget.LimitError: the template made a string or list longer than 10 ...
"""

from __future__ import annotations

__all__ = ["BoundedEnvironment", "TemplateLimits"]

import math
import re
import types
from functools import update_wrapper
from typing import Any, Callable, Iterable, Iterator

from jinja2 import TemplateSyntaxError, nodes
from jinja2.sandbox import ImmutableSandboxedEnvironment, SandboxedFormatter
from jinja2.visitor import NodeTransformer

from symattn.errors import InputError
from symattn.render.author.budget import Budget, TemplateLimits

# Methods of built-in values whose result is at most a few times their input.
_SAFE_METHODS = frozenset(
    "capitalize casefold count endswith find index isalnum isalpha isascii isdecimal "
    "isdigit isidentifier islower isnumeric isprintable isspace istitle isupper lower "
    "lstrip partition removeprefix removesuffix rfind rindex rpartition rsplit rstrip "
    "split splitlines startswith strip swapcase title upper encode decode hex "
    "bit_length bit_count conjugate is_integer as_integer_ratio get items keys values "
    "copy".split())
_WIDTH_METHODS = frozenset(("center", "ljust", "rjust", "zfill"))
_VALUES = (str, bytes, int, float, complex, list, tuple, dict)
_DIGITS = re.compile(r"\d+")


class _Rewrite(NodeTransformer):
    """Every ``for`` loop's iterable through ``bounded_iter``, every ``~`` through
    ``bounded_concat``."""

    def visit_For(self, node: nodes.For) -> nodes.Node:
        self.generic_visit(node)
        text = sum(len(data.data) for part in node.body for data in
                   part.find_all(nodes.TemplateData))
        node.iter = nodes.Call(nodes.EnvironmentAttribute("bounded_iter"),
                               [node.iter, nodes.Const(text)], [], None, None,
                               lineno=node.lineno)
        return node

    def visit_Const(self, node: nodes.Const) -> nodes.Node:
        if isinstance(node.value, float) and not math.isfinite(node.value):
            raise TemplateSyntaxError(f"the number {node.value} is beyond 1.8e308",
                                      node.lineno)
        return node

    def visit_Concat(self, node: nodes.Concat) -> nodes.Node:
        self.generic_visit(node)
        return nodes.Call(nodes.EnvironmentAttribute("bounded_concat"), node.nodes, [],
                          None, None, lineno=node.lineno)


class _BoundedFormatter(SandboxedFormatter):
    """``str.format`` whose every field's width and precision, and whose whole
    result, stay within the length limit."""

    def __init__(self, env: BoundedEnvironment) -> None:
        super().__init__(env)
        self._budget, self._made = env.budget, 0

    def format_field(self, value: Any, format_spec: str) -> Any:
        for digits in _DIGITS.findall(format_spec):
            self._budget.length(int(digits[:18]))     # 18 digits: past any limit
        text = super().format_field(self._budget.scalar(value), format_spec)
        self._made += len(text)
        self._budget.length(self._made)
        return text


class BoundedEnvironment(ImmutableSandboxedEnvironment):
    """The sandbox with the limits of ``TemplateLimits``; one per render."""

    intercepted_binops = frozenset(("+", "-", "*", "/", "//", "%", "**"))
    intercepted_unops = frozenset(("+", "-"))

    def __init__(self, limits: TemplateLimits, finalize: Callable[[Any], str],
                 **options: Any) -> None:
        self.budget, self._text = Budget(limits), finalize

        def counted(value: Any) -> str:
            text = finalize(self.budget.checked(value))
            self.budget.tick(0, len(text))
            return text

        super().__init__(finalize=counted, **options)

    def _parse(self, source: str, name: str | None, filename: str | None) -> nodes.Template:
        template = super()._parse(source, name, filename)
        rewritten: nodes.Template = _Rewrite().visit(template)
        return rewritten

    def call_binop(self, context: Any, operator: str, left: Any, right: Any) -> Any:
        return self.budget.binop(operator, left, right)

    def call_unop(self, context: Any, operator: str, arg: Any) -> Any:
        return self.budget.unop(operator, arg)

    def bounded_iter(self, iterable: Iterable[Any], text: int) -> Iterator[Any]:
        """The loop's items, each counted with the ``text`` its body holds."""
        for item in iterable:
            self.budget.tick(1, text)
            yield item

    def bounded_concat(self, *parts: Any) -> str:
        """``a ~ b ~ ...``: the parts as text, joined within the length limit."""
        texts = [part if isinstance(part, str) else self._text(part) for part in parts]
        self.budget.length(sum(map(len, texts)))
        return "".join(texts)

    def call(__self, __context: Any, __obj: Any, *args: Any,  # noqa: N805 - Jinja's own
             **kwargs: Any) -> Any:
        """Call ``__obj``; a built-in method only when its result is bounded."""
        __self.budget.tick()
        if isinstance(__obj, (types.BuiltinMethodType, types.BuiltinFunctionType)):
            for internal in ("_loop_vars", "_block_vars"):   # what Jinja passes its own calls
                kwargs.pop(internal, None)
            return __self.budget.checked(__self._builtin(__obj, args, kwargs))
        return super().call(__context, __obj, *args, **kwargs)

    def _builtin(self, method: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        owner, name = getattr(method, "__self__", None), method.__name__
        if not isinstance(owner, _VALUES) or not (
                name in _SAFE_METHODS or name in _WIDTH_METHODS or
                name in ("expandtabs", "replace", "join")):
            raise InputError(f"the template called {name}, which a document template "
                             "cannot use")
        budget = self.budget
        if name in _WIDTH_METHODS and args and isinstance(args[0], int):
            budget.length(args[0])
        elif name == "expandtabs" and isinstance(owner, str):
            tab = args[0] if args else kwargs.get("tabsize", 8)
            budget.length(len(owner) + owner.count("\t") * max(int(tab), 0))
        elif name == "replace" and isinstance(owner, str) and len(args) >= 2:
            old, new = str(args[0]), str(args[1])
            budget.length(len(owner) + (owner.count(old) if old else len(owner) + 1) *
                          max(len(new) - len(old), 0))
        elif name == "join" and isinstance(owner, (str, bytes)):
            items = list(args[0]) if args else []
            budget.length(len(items))
            budget.length(sum(len(x) for x in items if isinstance(x, (str, bytes))) +
                          len(owner) * len(items))
            args = (items,)
        return method(*args, **kwargs)

    def wrap_str_format(self, value: Any) -> Callable[..., str] | None:
        """``str.format`` and ``format_map`` through ``_BoundedFormatter``."""
        if not isinstance(value, (types.MethodType, types.BuiltinMethodType)) or \
                value.__name__ not in ("format", "format_map") or \
                not isinstance(value.__self__, str):
            return None
        form, mapping = value.__self__, value.__name__ == "format_map"

        def bounded(*args: Any, **kwargs: Any) -> str:
            if mapping and (kwargs or len(args) != 1):
                raise TypeError("format_map() takes exactly one argument")
            fields = args[0] if mapping else kwargs
            return str(_BoundedFormatter(self).vformat(form, () if mapping else args, fields))

        return update_wrapper(bounded, value)
