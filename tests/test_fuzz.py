"""Fuzzing: whatever text or spec comes in, only results or symattn's own errors come out.

About 11,000 generated entries and specs per run (bounded per test so CI stays
fast). A SymattnError is the expected way to refuse input; any other exception
is a bug. Specs that load are also derived and checked, so the engine and the
checker are fuzzed too, and a few hundred are rendered as text, JSON, LaTeX and
Markdown at random digits or places. Some specs get an extreme entry (scores of
1e308, 1e-10000, 300-digit decimals): the answer or a clear error, never a hang.
"""

from __future__ import annotations

import json
import string

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import symattn
from symattn.values.entries import parse_entry
from symattn.errors import SymattnError
from symattn.problem.limits import Limits
from suite_profile import examples

SMALL = Limits(max_entries=64, max_symbolic_entries=16)

ADVERSARIAL = st.sampled_from([
    "-inf", "−∞", "inf", "nan", "NaN", "1e999999", "1e-999999", "0,5", "1,000.5", "2 980,5",
    "sqrt(", "sqrt(-1)", "1/0", "0/0", "((((((1))))))", "(" * 300 + "1" + ")" * 300,
    "a" * 3000, "1" * 3000, "1.", ".", "-", "--1", "+-1", "1e", "e1", "1_000", "0x10",
    "\\input{/etc/passwd}", "__import__('os')", "exec", "lambda: 1", "1;2", "1 2", "%",
    "∞∞", "2^99", "2^-65", "x^2", "sqrt(2)^64", "w_11*w_12", "é", "ß", "кот", "1/3/3",
    "", " ", "\t", "\x00", "1\n2", "٣", "１２",  # Arabic-Indic and full-width digits
])

TEXT = st.one_of(ADVERSARIAL, st.text(max_size=40),
                 st.text(alphabet=string.digits + ".,-+e/*()^ sqrtinf∞−_ab", max_size=25))


@settings(max_examples=examples(4000), deadline=None)
@given(TEXT)
def test_entry_parser_returns_or_refuses(text: str) -> None:
    try:
        entry = parse_entry(text)
    except SymattnError:
        return
    assert entry.text == text


@settings(max_examples=examples(1500), deadline=None)
@given(st.one_of(st.integers(), st.floats(), st.booleans(), st.none(), st.lists(st.integers(),
                                                                                  max_size=3)))
def test_entry_parser_refuses_non_text(value: object) -> None:
    try:
        parse_entry(value)
    except SymattnError:
        pass


NUMBER = st.one_of(st.integers(-20, 20).map(str), st.sampled_from(
    ["0.5", "-0.25", "1.0", "0.40", "-inf", "1/3", "sqrt(2)", "a", "1e-3", "0,3", "?", "x y"]))


def matrices(max_side: int = 3) -> st.SearchStrategy:
    return st.integers(1, max_side).flatmap(lambda rows: st.integers(1, max_side).flatmap(
        lambda cols: st.lists(st.lists(NUMBER, min_size=cols, max_size=cols + 1),
                              min_size=rows, max_size=rows)))


PRINTED = st.sampled_from(["0.5", "0.40", "1.000", "83.83%", "~3.997", "-inf", "?", "0,297",
                           "2", "0.333", "abc", "", "1/3", "sqrt(2)/2", "0.666...",
                           "1.5 × 10⁻³", "1e-9999"])
EXTREME = st.sampled_from(["800", "-800", "1e5", "-1e5", "1e308", "-1e308", "1e10000",
                           "1e-10000", "0." + "7" * 300, "9" * 1000, "1/3"])
GOOD_NUMBER = st.one_of(st.integers(-9, 9).map(str), st.sampled_from(
    ["0.5", "-0.25", "1.0", "0.40", "1/3", "2.5e-1", "0,3", "-1.75", "800", "-800"]))


@st.composite
def specs(draw) -> dict:  # type: ignore[no-untyped-def]
    """Mostly well-formed specs (so the engine and checker run), then maybe one mutation."""
    n, m, d = draw(st.integers(1, 4)), draw(st.integers(1, 4)), draw(st.integers(1, 3))

    def matrix(rows: int, cols: int, numbers=GOOD_NUMBER) -> list:  # type: ignore[no-untyped-def]
        return [[draw(numbers) for _ in range(cols)] for _ in range(rows)]

    shape = draw(st.sampled_from(["qkv", "x", "scores", "scaled"]))
    if shape == "qkv":
        inputs = {"Q": matrix(n, d), "K": matrix(m, d), "V": matrix(m, d)}
    elif shape == "x":
        inputs = {"X": matrix(n, d), "W_Q": "identity", "W_K": matrix(d, d), "W_V": matrix(d, 2)}
    else:
        inputs = {shape: matrix(n, m, st.one_of(GOOD_NUMBER, st.just("-inf"))),
                  "V": matrix(m, 2)}
    options: dict = {}
    if shape == "scores":
        options["d_k"] = draw(st.integers(1, 4))
    rows, keys = (n, m) if shape != "x" else (n, n)
    if draw(st.booleans()):
        options["mask"] = draw(st.sampled_from(["causal", "none"])) if rows == keys else \
            draw(st.lists(st.integers(1, keys), max_size=2))
    if draw(st.booleans()):
        options["temperature"] = draw(st.sampled_from(["0.5", "2", "1/3"]))
    if draw(st.booleans()):
        options["fully_masked"] = draw(st.sampled_from(["nan", "zeros", "error"]))
    if draw(st.booleans()):
        options["normalisation"] = draw(st.sampled_from(["softmax", "sum"]))
    steps = ["scores", "scaled", "exp", "weights", "output", "exp_sum", "masked"]
    claims = {}
    for _ in range(draw(st.integers(0, 4))):
        step = draw(st.sampled_from(steps))
        i, j = draw(st.integers(1, rows + 1)), draw(st.integers(1, keys + 1))
        form = draw(st.sampled_from(["entry", "row", "sum", "terms", "label", "divisor"]))
        printed = draw(PRINTED)
        if form == "entry":
            claims[f"{step}[{i},{j}]"] = printed
        elif form == "row":
            claims[f"{step}[{i}]"] = [printed] * draw(st.integers(1, keys + 1))
        elif form == "sum":
            claims[f"{step}[{i}].sum"] = printed
        elif form == "terms":
            claims[f"{step}[{i},{j}].terms"] = [printed] * draw(st.integers(1, d + 1))
        elif form == "label":
            claims[f"{step}[{i},{j}] @ again"] = printed
        else:
            claims["divisor"] = printed
    spec = {"inputs": inputs, "options": options, "claims": claims}
    mutation = draw(st.sampled_from(["none"] * 6 + ["entry", "ragged", "key", "option",
                                                    "empty", "drop", "extreme"]))
    if mutation == "entry":
        name = draw(st.sampled_from(sorted(inputs)))
        if isinstance(inputs[name], list):
            inputs[name][0][0] = draw(TEXT)
    elif mutation == "ragged":
        name = draw(st.sampled_from(sorted(inputs)))
        if isinstance(inputs[name], list):
            inputs[name][0] = inputs[name][0] + ["1"]
    elif mutation == "key":
        spec[draw(st.sampled_from(["input", "option", "claim", "Inputs"]))] = {}
    elif mutation == "option":
        options[draw(st.sampled_from(["d_k", "scale", "temperature", "mask", "heads"]))] = \
            draw(st.sampled_from(["0", "-1", "x", "causal", [[1]], "1e9999"]))
    elif mutation == "empty":
        inputs[draw(st.sampled_from(sorted(inputs)))] = []
    elif mutation == "drop":
        inputs.pop(draw(st.sampled_from(sorted(inputs))))
    elif mutation == "extreme":
        name = draw(st.sampled_from(sorted(inputs)))
        if isinstance(inputs[name], list):
            inputs[name][-1][-1] = draw(EXTREME)
    return spec


SPECS = specs()


def _run(mapping: dict) -> None:
    try:
        problem = symattn.Problem.from_mapping(mapping, "fuzz.toml", limits=SMALL)
        derivation = symattn.derive(problem)
        symattn.check(derivation)
        symattn.NumberFormat(digits=5).format(derivation.steps[-1].value.exact(0, 0))
    except SymattnError:
        pass


@settings(max_examples=examples(2500), deadline=None, suppress_health_check=list(HealthCheck))
@given(SPECS)
def test_spec_loader_engine_and_checker_return_or_refuse(mapping: dict) -> None:
    _run(mapping)


@settings(max_examples=examples(1500), deadline=None, suppress_health_check=list(HealthCheck))
@given(SPECS, st.sampled_from(["toml", "json"]))
def test_spec_text_round_trip(mapping: dict, kind: str) -> None:
    from symattn.problem.spec import loads

    if kind == "json":
        text = json.dumps(mapping)
    else:
        text = "\n".join(f"{k} = {json.dumps(v)}" for k, v in mapping.items()
                         if not isinstance(v, dict))
        for table, values in mapping.items():
            if isinstance(values, dict):
                text += f"\n[{table}]\n" + "\n".join(f"{json.dumps(k)} = {json.dumps(v)}"
                                                     for k, v in values.items())
    try:
        problem = loads(text, f"fuzz.{kind}", kind=kind, limits=SMALL)
        symattn.check(symattn.derive(problem))
    except SymattnError:
        pass


@settings(max_examples=examples(1500), deadline=None)
@given(st.text(max_size=200))
def test_random_spec_text(text: str) -> None:
    from symattn.problem.spec import loads

    for kind in ("toml", "json"):
        try:
            loads(text, "fuzz", kind=kind, limits=SMALL)
        except SymattnError:
            pass


@settings(max_examples=examples(250), deadline=None, suppress_health_check=list(HealthCheck))
@given(SPECS, st.integers(1, 30), st.booleans(), st.data())
def test_every_output_format_returns_or_refuses(mapping: dict, digits: int, places: bool,
                                                data: st.DataObject) -> None:
    from symattn.render import text as render_text
    from symattn.render import view
    from symattn.render import worked
    from symattn.api import render_latex
    from symattn.api import render_markdown

    number_format = symattn.NumberFormat(digits=None if places else digits,
                                         places=digits if places else None)
    try:
        derivation = symattn.derive(symattn.Problem.from_mapping(mapping, "fuzz.toml",
                                                                 limits=SMALL))
        if data.draw(st.booleans()):   # claims that fit the steps, so verdicts are laid out
            claims = {}
            for step in derivation.steps:
                if step.name in ("scaled", "exp", "exp_sum", "weights", "output"):
                    i = data.draw(st.integers(1, step.shape[0]))
                    j = data.draw(st.integers(1, step.shape[1]))
                    claims[f"{step.name}[{i},{j}]"] = data.draw(PRINTED.filter(
                        lambda text: text != "abc"))
            derivation = symattn.derive(symattn.Problem.from_mapping(
                {**mapping, "claims": claims}, "fuzz.toml", limits=SMALL))
        built = view.build_view(derivation, number_format, limit=None)
        render_text.render_text(built)
        render_text.render_json(built)
        options = worked.Options(number_format=number_format)
        render_latex(derivation, options)
        render_markdown(derivation, options)
    except SymattnError:
        pass
