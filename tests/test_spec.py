"""Spec loading (symattn.problem.spec) and validation (symattn.problem.problem)."""

from __future__ import annotations

import json
from fractions import Fraction

import pytest
from flint import fmpq

import symattn
from symattn import loads
from symattn.values.entries import Symbolic
from symattn.errors import InputError, ShapeError
from symattn.values.exact import NEG_INF, Surd
from symattn.problem.problem import Problem
from symattn.problem.spec import PrintedNumber, load, read_mapping


def frac(value) -> Fraction:
    assert isinstance(value, fmpq), value
    return Fraction(int(value.p), int(value.q))


def entries(problem, name):
    return [[entry for entry in row] for row in problem.inputs[name]]


def error_of(text, source="spec.toml", kind=None) -> InputError:
    with pytest.raises(InputError) as info:
        loads(text, source, kind)
    message = str(info.value)
    assert "\n" not in message
    assert message.startswith(source)
    return info.value


# ------------------------------------------------------------------ reading
def test_toml_floats_keep_their_printed_digits():
    problem = loads("[inputs]\nscaled = [[0.40, 0.855, 1e-3, 2.5E+4, 7, -inf]]\n", "a.toml")
    row = entries(problem, "scaled")[0]
    assert [frac(e.value) for e in row[:5]] == [Fraction(2, 5), Fraction(171, 200),
                                               Fraction(1, 1000), Fraction(25000), Fraction(7)]
    assert [e.places for e in row[:5]] == [2, 3, 3, -3, 0]
    assert row[5].value is NEG_INF
    # 0.855 is the rational 171/200, not the float just below it
    assert frac(row[1].value) != Fraction(0.855)


def test_toml_strings_and_numbers_read_the_same():
    a = loads('[inputs]\nscaled = [[0.40, "0,309", "1/3", "sqrt(2)"]]\n', "a.toml")
    row = entries(a, "scaled")[0]
    assert frac(row[0].value) == Fraction(2, 5) and row[0].places == 2
    assert frac(row[1].value) == Fraction(309, 1000) and row[1].places == 3
    assert frac(row[2].value) == Fraction(1, 3)
    assert isinstance(row[3].value, Surd)


def test_json_numbers_keep_their_printed_digits():
    text = '{"inputs": {"scaled": [[0.40, -Infinity, 1e-3, 3, "-\u221e"]]}}'
    row = entries(loads(text, "a.json"), "scaled")[0]
    assert frac(row[0].value) == Fraction(2, 5) and row[0].places == 2
    assert row[1].value is NEG_INF
    assert frac(row[2].value) == Fraction(1, 1000) and row[2].places == 3
    assert frac(row[3].value) == 3
    assert row[4].value is NEG_INF


def test_read_mapping_hands_floats_over_as_text():
    data = read_mapping("x = 0.10\ny = 3", "a.toml")
    assert isinstance(data["x"], PrintedNumber) and data["x"] == "0.10"
    assert data["y"] == 3
    data = read_mapping('{"x": 0.10}', "a.json")
    assert isinstance(data["x"], PrintedNumber) and data["x"] == "0.10"


def test_kind_is_guessed_from_the_text_without_a_suffix():
    assert read_mapping('{"x": 1}', "spec") == {"x": 1}
    assert read_mapping("x = 1", "spec") == {"x": 1}


def test_flat_list_is_one_row():
    problem = loads("[inputs]\nscaled = [3.2, 4.0, 1.0]\n", "a.toml")
    assert problem.shape("scaled") == (1, 3)


def test_identity_takes_its_size_from_x():
    problem = loads('[inputs]\nX = [[1, 2, 3]]\nW_Q = "identity"\nW_K = "identity"\n'
                    'W_V = "Identity"\n', "a.toml")
    for name in ("W_Q", "W_K", "W_V"):
        values = [[frac(e.value) for e in row] for row in entries(problem, name)]
        assert values == [[1, 0, 0], [0, 1, 0], [0, 0, 1]]


def test_defaults_d_k_and_scale():
    problem = Problem.from_mapping({"inputs": {"Q": [[1, 0, 0]], "K": [[1, 0, 0], [0, 1, 0]],
                                               "V": [[1], [2]]}})
    assert problem.d_k_value == 3            # the columns of K
    scale = problem.scale_value              # 1/sqrt(3) = sqrt(3)/3
    assert isinstance(scale, Surd)
    assert frac(scale.coefficient) ** 2 * scale.radicand == Fraction(1, 3)
    assert problem.normalisation == "softmax" and problem.fully_masked == "error"
    assert problem.digits == 6 and problem.rounding == "half-up"
    four = Problem.from_mapping({"inputs": {"Q": [[1] * 4], "K": [[1] * 4]}})
    assert frac(four.scale_value) == Fraction(1, 2)


@pytest.mark.parametrize("options, factor", [
    ({"scale": "none"}, Fraction(1)),
    ({"scale": "0.5"}, Fraction(1, 2)),
    ({"scale": 2}, Fraction(2)),
    ({"d_k": 9}, Fraction(1, 3)),
])
def test_explicit_scale_and_d_k(options, factor):
    problem = Problem.from_mapping({"inputs": {"Q": [[1, 0]], "K": [[1, 0]]},
                                    "options": options})
    assert frac(problem.scale_value) == factor


def test_symbolic_options_are_kept():
    problem = Problem.from_mapping({"inputs": {"Q": [[1, 0]], "K": [[1, 0]]},
                                    "options": {"temperature": "t"}})
    assert isinstance(problem.temperature, Symbolic)


@pytest.mark.parametrize("spelling", ["normalisation", "normalization"])
def test_normalisation_both_spellings(spelling):
    problem = Problem.from_mapping({"inputs": {"scaled": [[1, 2]]},
                                    "options": {spelling: "Sum"}})
    assert problem.normalisation == "sum"


def test_masks():
    def allowed(mask, shape=(2, 3), **options):
        n, m = shape
        mapping = {"inputs": {"scaled": [[1] * m for _ in range(n)]},
                   "options": {"mask": mask, **options}}
        return Problem.from_mapping(mapping).allowed()

    assert allowed("none") == [[True] * 3] * 2
    assert allowed("causal", (3, 3)) == [[True, False, False], [True, True, False],
                                         [True, True, True]]
    assert allowed("causal", query_positions=[1, 3]) == [[True, False, False],
                                                         [True, True, True]]
    assert allowed([2]) == [[True, False, True]] * 2
    assert allowed([[0, "-inf", 0], ["-inf", 0, 0]]) == [[True, False, True],
                                                         [False, True, True]]
    # -inf entries in the scores mask too
    problem = loads("[inputs]\nscaled = [[1, -inf], [2, 3]]\n", "a.toml")
    assert problem.allowed() == [[True, False], [True, True]]


def test_boolean_mask_matrix():
    problem = Problem.from_mapping({"inputs": {"scaled": [[1, 2, 3], [4, 5, 6]]},
                                    "options": {"mask": [[1, 0, 1], [0, 1, 1]]}})
    assert problem.allowed() == [[True, False, True], [False, True, True]]


def test_load_file_and_bom(tmp_path):
    path = tmp_path / "spec.toml"
    path.write_bytes(b"\xef\xbb\xbf" + "title = \"ko\u010dka\"\n[inputs]\nscaled = [[1, 2]]\n"
                     .encode("utf-8"))
    problem = load(path)
    assert problem.title == "ko\u010dka"
    assert problem.source == str(path)


def test_load_example():
    problem = symattn.load_example("000-cat-chases-mouse")
    assert problem.title == "cat chases mouse"
    assert problem.tokens == ("cat", "chases", "mouse")
    assert problem.mask.kind == "causal"


# ------------------------------------------------------------------- errors
def test_missing_file(tmp_path):
    with pytest.raises(InputError, match="no such file"):
        load(tmp_path / "nope.toml")


def test_directory(tmp_path):
    with pytest.raises(InputError, match="directory"):
        load(tmp_path)


def test_not_utf8(tmp_path):
    path = tmp_path / "latin1.toml"
    path.write_bytes('title = "ko\u010dka"\n'.encode("cp1250"))
    with pytest.raises(InputError) as info:
        load(path)
    message = str(info.value)
    assert str(path) in message and "UTF-8" in message
    assert "byte 12" in message   # len('title = "ko') == 11 and "0xe8" in message


@pytest.mark.parametrize("text, where", [
    ("[inputs\nX = 1", "line 1"),
    ("[inputs]\nscaled = [[1, 2]\n", "Unclosed array"),
    ("[inputs]\nscaled = [[1]]\nscaled = [[2]]\n", "Cannot overwrite"),
])
def test_invalid_toml(text, where):
    error = error_of(text)
    assert "not valid TOML" in str(error) and where in str(error)


@pytest.mark.parametrize("text, key", [
    ('{"inputs": {"scaled": [[1, 2]], "scaled": [[3, 4]]}}', "scaled"),
    ('{"title": "a", "title": "b", "inputs": {"scaled": [[1]]}}', "title"),
])
def test_duplicate_json_keys(text, key):
    error = error_of(text, "spec.json")
    assert f"duplicate key `{key}`" in str(error)


@pytest.mark.parametrize("text, message", [
    ('{"inputs": {"scaled": [[1, 2]]', "not valid JSON"),
    ("[1, 2]", "must be an object"),
    ("[" * 100_000 + "]" * 100_000, "nested too deeply"),
])
def test_invalid_json(text, message):
    assert message in str(error_of(text, "spec.json"))


SCALED = "[inputs]\nscaled = [[1, 2]]\n"


@pytest.mark.parametrize("text, parts", [
    # unknown keys, with the suggestion
    ('titel = "x"\n' + SCALED, ["titel", "did you mean `title`"]),
    (SCALED + "[options]\ntemprature = 2\n", ["options.temprature", "`temperature`"]),
    (SCALED + "[options]\nnormalisaton = \"sum\"\n", ["`normalisation`"]),
    ("[inputs]\nscaled = [[1, 2]]\nQQQQ = 1\n", ["unknown key `QQQQ`", "known keys"]),
    # matrices
    ('[inputs]\nX = [[1, 0], [1]]\nW_Q = "identity"\nW_K = "identity"\n',
     ["inputs.X", "row 2", "ragged"]),
    ('[inputs]\nQ = [[1, "1..2"]]\nK = [[1, 0]]\n',
     ["inputs.Q", "row 1", "column 2", "'1..2'"]),
    ('[inputs]\nscaled = [[1, "abc("]]\n', ["inputs.scaled", "row 1", "column 2"]),
    ("[inputs]\nscaled = []\n", ["inputs.scaled", "empty"]),
    ("[inputs]\nscaled = [[]]\n", ["row 1", "empty"]),
    ("[inputs]\nscaled = [[1], 2]\n", ["mixes rows"]),
    ('[inputs]\nscaled = "abc"\n', ["expected a matrix"]),
    ("[inputs]\nscaled = [[true, 2]]\n", ["column 1", "bool"]),
    ("[inputs]\nscaled = [[1979-05-27, 2]]\n", ["column 1", "date"]),
    ('[inputs]\nQ = [[1, "-inf"]]\nK = [[1, 0]]\n', ["inputs.Q", "column 2", "-inf"]),
    # shapes
    ('[inputs]\nX = [[1, 0], [0, 1]]\nW_Q = [[1, 0, 0], [0, 1, 0], [0, 0, 1]]\n'
     'W_K = "identity"\n', ["inputs.W_Q", "2 rows", "3x3"]),
    ("[inputs]\nQ = [[1, 2]]\nK = [[1, 2, 3]]\n", ["same number of columns", "1x2", "1x3"]),
    ("[inputs]\nQ = [[1, 2]]\nK = [[1, 2]]\nV = [[1], [2]]\n", ["one row per key", "2x1"]),
    ("[inputs]\nscaled = [[1, 2]]\nV = [[1]]\n", ["inputs.V", "2 rows"]),
    ("[inputs]\nscores = [[1, 2]]\nscaled = [[1, 2]]\n", ["not both"]),
    ("[inputs]\nscaled = [[1, 2]]\nQ = [[1]]\n", ["inputs.Q", "not used"]),
    ("[inputs]\nQ = [[1]]\nX = [[1]]\nW_Q = [[1]]\nK = [[1]]\n", ["W_Q", "not both"]),
    ("[inputs]\nscores = [[1, 2]]\n", ["d_k is unknown"]),
    ('[inputs]\nQ = [[1]]\nK = [[1]]\nW_V = "identity"\n', ["inputs.W_V", "needs X"]),
    ('[inputs]\nX = [[1]]\nQ = "identity"\nW_K = "identity"\n', ["inputs.Q", "only W_Q"]),
    ("[inputs]\nQ = [[1]]\n", ["missing input K"]),
    ("[inputs]\nX = [[1]]\nW_Q = [[1]]\n", ["missing input W_K"]),
    ('title = "x"\n', ["missing [inputs]"]),
    # options
    (SCALED + "[options]\nd_k = 0\n", ["options.d_k", "positive whole number"]),
    (SCALED + "[options]\nd_k = 1.5\n", ["options.d_k", "'1.5'"]),
    (SCALED + "[options]\nd_k = -2\n", ["options.d_k"]),
    (SCALED + "[options]\ntemperature = 0\n", ["options.temperature", "positive"]),
    (SCALED + "[options]\ntemperature = \"-sqrt(2)\"\n", ["options.temperature"]),
    (SCALED + "[options]\ntemperature = -inf\n", ["options.temperature"]),
    (SCALED + "[options]\nscale = -0.5\n", ["options.scale", "positive"]),
    (SCALED + "[options]\nscale = \"x(\"\n", ["options.scale"]),
    (SCALED + "[options]\nmask = \"future\"\n", ["options.mask", "unknown mask"]),
    (SCALED + "[options]\nmask = [[0, -inf], [0, 0]]\n", ["options.mask", "1x2"]),
    (SCALED + "[options]\nmask = [[1, 2]]\n", ["options.mask", "column 2", "0/1"]),
    ("[inputs]\nscaled = [[1, 2, 3]]\n[options]\nmask = [[0, -inf, 1]]\n",
     ["options.mask", "column 3", "0/-inf"]),
    (SCALED + "[options]\nmask = [[2, 1]]\n", ["options.mask", "column 1"]),
    (SCALED + "[options]\nmask = [3]\n", ["options.mask", "padded key position 3"]),
    (SCALED + "[options]\nmask = [0]\n", ["options.mask", "column 1"]),
    (SCALED + "[options]\nmask = 3\n", ["options.mask", "unknown mask"]),
    (SCALED + "[options]\nmask = \"causal\"\n", ["options.mask", "query_positions"]),
    (SCALED + "[options]\nquery_positions = [1, 2]\n", ["options.query_positions", "2 entries"]),
    (SCALED + "[options]\nquery_positions = [3]\n", ["query position 3"]),
    (SCALED + "[options]\nquery_positions = []\n", ["options.query_positions"]),
    (SCALED + "[options]\nnormalisation = \"max\"\n", ["options.normalisation", "'max'"]),
    (SCALED + "[options]\nfully_masked = \"ignore\"\n", ["options.fully_masked", "'ignore'"]),
    (SCALED + "[options]\nrounding = \"up\"\n", ["options.rounding", "'up'"]),
    (SCALED + "[options]\ndigits = 0\n", ["options.digits"]),
    ("options = 3\n" + SCALED, ["options", "must be a table"]),
    ("claims = 3\n" + SCALED, ["claims", "must be a table"]),
    # top level
    ("title = 3\n" + SCALED, ["title", "must be text"]),
    ('tokens = "abc"\n' + SCALED, ["tokens", "list of strings"]),
    ('tokens = ["a", "b", "c"]\n' + SCALED, ["tokens", "3 names"]),
])
def test_validation_errors(text, parts):
    message = str(error_of(text))
    for part in parts:
        assert part in message, (part, message)


def test_shape_errors_are_shape_errors():
    with pytest.raises(ShapeError):
        loads("[inputs]\nQ = [[1, 2]]\nK = [[1, 2, 3]]\n", "a.toml")
    with pytest.raises(ShapeError):
        loads('[inputs]\nX = [[1, 0], [1]]\nW_Q = "identity"\nW_K = "identity"\n', "a.toml")


def test_json_errors_name_the_file_and_position():
    text = json.dumps({"inputs": {"Q": [[1, 0], [0, "x y"]], "K": [[1, 0]]}})
    message = str(error_of(text, "spec.json"))
    assert "inputs.Q" in message and "row 2" in message and "column 2" in message


# A key differing only in case is the one meant (W_q was once matched to W_V).
@pytest.mark.parametrize("wrong, right", [
    ("W_q", "W_Q"),
    ("W_k", "W_K"),
    ("w_k", "W_K"),
    ("W_v", "W_V"), ("q", "Q"),
])
def test_unknown_key_suggests_the_case_insensitive_match(wrong, right):
    text = f'[inputs]\nX = [[1, 0]]\n{wrong} = "identity"\n'
    if wrong == "q":
        text = "[inputs]\nq = [[1, 0]]\nK = [[1, 0]]\n"
    message = str(error_of(text))
    assert f"unknown key `{wrong}`; did you mean `{right}`?" in message


def test_toml_float_with_underscores():
    problem = loads("[inputs]\nscaled = [[1_000.5, 1.0]]\n", "a.toml")
    assert frac(entries(problem, "scaled")[0][0].value) == Fraction(2001, 2)


def test_negative_closed_form_scale_is_refused():
    with pytest.raises(InputError, match="positive"):
        loads('[inputs]\nQ = [[1, 0]]\nK = [[1, 0], [0, 1]]\n[options]\n'
              'scale = "sqrt(2) - sqrt(3)"\n', "a.toml")


def test_rows_of_known_texts_read_as_the_texts_say():
    # the second row repeats texts of the first (read from what was seen), the third
    # mixes a printed number, an int and a new text; a bad entry is still located
    rows = [["0.5", "-1/4", "2"], ["2", "0.5", "-1/4"],
            [PrintedNumber("0.50"), 3, "sqrt(4)"]]
    problem = Problem.from_mapping({"inputs": {"scaled": rows}})
    values = [[entry.value for entry in row] for row in problem.inputs["scaled"]]
    assert values == [[fmpq(1, 2), fmpq(-1, 4), 2], [2, fmpq(1, 2), fmpq(-1, 4)],
                      [fmpq(1, 2), 3, 2]]
    assert problem.inputs["scaled"][2][0].places == 2
    with pytest.raises(InputError) as caught:
        Problem.from_mapping({"inputs": {"scaled": [["0.5", "1"], ["1", "0.5.5"]]}})
    assert (caught.value.location.row, caught.value.location.column) == (2, 2)


@pytest.mark.parametrize("bad", [{}, [1], {"a": 1}])
def test_an_unhashable_entry_is_refused_where_it_is(bad):
    with pytest.raises(InputError) as caught:
        Problem.from_mapping({"inputs": {"scaled": [["0.5", "1"], ["1", bad]]}})
    assert (caught.value.location.row, caught.value.location.column) == (2, 2)


@pytest.mark.parametrize(("inputs", "expected"), [
    ('X = [[1, 0]]\nQ = [[1, 0]]\nK = [[1, 0]]\nV = [[1, 0]]\n',
     "inputs.X: X is given, but Q, K and V are given directly, so X is not used; remove X, "
     "or give W_Q, W_K and W_V instead of Q, K and V"),
    ('X = [[1, 0]]\nX_kv = [[1, 0]]\nW_Q = "identity"\nK = [[1, 0]]\nV = [[1, 0]]\n',
     "inputs.X_kv: X_kv is given, but K and V are given directly"),
])
def test_an_input_that_feeds_nothing_is_an_error_naming_both(inputs, expected):
    assert expected in str(error_of("[inputs]\n" + inputs))


def test_x_beside_q_k_v_is_kept_for_a_residual():
    text = ("[inputs]\nX = [[1, 0], [0, 1]]\nQ = [[1, 0], [0, 1]]\nK = [[1, 0], [0, 1]]\n"
            "V = [[1, 0], [0, 1]]\n[ffn]\nW_1 = [[1, 0], [0, 1]]\nW_2 = [[1, 0], [0, 1]]\n"
            "residual = true\n")
    assert "X" in loads(text, "a.toml").inputs


@pytest.mark.parametrize(("option", "suggestion"), [
    ('mask = "casual"', "did you mean `causal`?"),
    ('precision = "flaot32"', "did you mean `float32`?"),
    ('number_format = "1,234,5"', "did you mean"),
])
def test_option_values_get_a_did_you_mean(option, suggestion):
    assert suggestion in str(error_of(SCALED + "[options]\n" + option + "\n"))
