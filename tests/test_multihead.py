"""Multi-head, grouped-query and cross-attention against independent references.

numpy float64 is the reference here (written below, not taken from symattn);
PyTorch's own attention is compared too when torch is installed.
"""

from __future__ import annotations

import json
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import symattn
from symattn.values.number_format import NumberFormat
from suite_profile import examples

DIGITS = NumberFormat(digits=14)


def as_floats(grid) -> np.ndarray:  # type: ignore[no-untyped-def]
    rows, columns = grid.shape
    return np.array([[float(DIGITS.format(grid.exact(i, j))) for j in range(columns)]
                     for i in range(rows)])


def reference(x, w_q, w_k, w_v, w_o, heads, kv_heads, causal, x_kv=None):  # type: ignore[no-untyped-def]
    x_kv = x if x_kv is None else x_kv
    q, k, v = x @ w_q, x_kv @ w_k, x_kv @ w_v
    d_k = q.shape[1] // heads
    d_v = v.shape[1] // kv_heads
    group = heads // kv_heads
    outs = []
    for h in range(heads):
        g = h // group
        qh = q[:, h * d_k:(h + 1) * d_k]
        kh, vh = k[:, g * d_k:(g + 1) * d_k], v[:, g * d_v:(g + 1) * d_v]
        s = qh @ kh.T / np.sqrt(d_k)
        if causal:
            s = np.where(np.tril(np.ones(s.shape, bool)), s, -np.inf)
        w = np.exp(s - s.max(axis=1, keepdims=True))
        w /= w.sum(axis=1, keepdims=True)
        outs.append(w @ vh)
    concat = np.hstack(outs)
    return concat @ w_o if w_o is not None else concat


def spec(**matrices) -> dict:  # type: ignore[no-untyped-def]
    options = matrices.pop("options", {})
    inputs = {k: [[str(Fraction(x).limit_denominator(1000)) for x in row] for row in v]
              for k, v in matrices.items()}
    return {"inputs": inputs, "options": options}


small = st.integers(-9, 9).map(lambda n: n / 4)


@settings(max_examples=examples(12), deadline=None)
@given(st.data())
def test_multi_head_with_w_o_matches_numpy(data) -> None:  # type: ignore[no-untyped-def]
    heads = data.draw(st.sampled_from([1, 2, 4]))
    kv_heads = data.draw(st.sampled_from([h for h in (1, 2, 4) if heads % h == 0]))
    d_model, n = 4, data.draw(st.integers(1, 4))
    d_k = d_model // heads
    causal = data.draw(st.booleans())

    def matrix(rows: int, columns: int) -> np.ndarray:
        return np.array([[data.draw(small) for _ in range(columns)] for _ in range(rows)])

    x = matrix(n, d_model)
    w_q, w_k, w_v = matrix(d_model, d_model), matrix(d_model, kv_heads * d_k), \
        matrix(d_model, kv_heads * d_k)
    w_o = matrix(heads * d_k, d_model)
    mapping = spec(X=x, W_Q=w_q, W_K=w_k, W_V=w_v, W_O=w_o,
                   options={"heads": heads, "kv_heads": kv_heads,
                            "mask": "causal" if causal else "none"})
    derivation = symattn.derive(symattn.Problem.from_mapping(mapping))
    expected = reference(x, w_q, w_k, w_v, w_o, heads, kv_heads, causal)
    np.testing.assert_allclose(as_floats(derivation["output"].value), expected,
                               rtol=1e-10, atol=1e-12)
    assert f"head{heads}.weights" in derivation


def test_cross_attention_has_its_own_lengths() -> None:
    x = np.array([[1.0, 0.5], [0.0, 2.0]])                     # 2 queries
    memory = np.array([[1.0, 0.0], [0.5, 0.5], [0.0, 1.0]])    # 3 keys/values
    w = np.array([[1.0, 0.0], [0.0, 1.0]])
    mapping = spec(X=x, X_kv=memory, W_Q=w, W_K=w, W_V=np.array([[0.0, 1.0], [1.0, 0.0]]))
    derivation = symattn.derive(symattn.Problem.from_mapping(mapping))
    assert derivation["scores"].shape == (2, 3)
    expected = reference(x, w, w, np.array([[0.0, 1.0], [1.0, 0.0]]), None, 1, 1, False,
                         x_kv=memory)
    np.testing.assert_allclose(as_floats(derivation["output"].value), expected, rtol=1e-12)


def test_grouped_query_heads_share_keys_exactly() -> None:
    mapping = spec(X=np.eye(4), W_Q=np.eye(4), W_K=np.eye(4)[:, :2], W_V=np.eye(4)[:, :2],
                   options={"heads": 2, "kv_heads": 1})
    derivation = symattn.derive(symattn.Problem.from_mapping(mapping))
    k1, k2 = derivation["head1.K"].value, derivation["head2.K"].value
    assert all(k1.exact(i, j) == k2.exact(i, j) for i in range(4) for j in range(2))


def test_wrong_head_split_is_a_clear_error() -> None:
    mapping = spec(X=np.eye(3), W_Q=np.eye(3), W_K=np.eye(3), W_V=np.eye(3),
                   options={"heads": 2})
    with pytest.raises(symattn.InputError, match="do not split into 2 heads"):
        symattn.Problem.from_mapping(mapping)


def test_head_claims_are_checked() -> None:
    # Two heads of d_k = 1 on X = I: head 1 scores q1.k = (1, 0) / 1, so its first row of
    # weights is e/(e+1), 1/(e+1) = 0.7311, 0.2689.
    mapping = spec(X=np.eye(2), W_Q=np.eye(2), W_K=np.eye(2), W_V=np.eye(2),
                   options={"heads": 2})
    mapping["claims"] = {"head1.weights[1]": ["0.7311", "0.2689"],
                         "head2.weights[1]": ["0.5", "0.5"]}
    report = symattn.check(symattn.derive(symattn.Problem.from_mapping(mapping)))
    verdicts = {v.position: v.verdict for v in report.verdicts}
    assert verdicts == {"head1.weights[1,1]": "ok", "head1.weights[1,2]": "ok",
                        "head2.weights[1,1]": "ok", "head2.weights[1,2]": "ok"}


def test_multi_head_json_names_every_head_step(capsys, tmp_path) -> None:  # type: ignore[no-untyped-def]
    from symattn.cli.app import main

    path = tmp_path / "mh.json"
    path.write_text(json.dumps(spec(X=np.eye(2), W_Q=np.eye(2), W_K=np.eye(2), W_V=np.eye(2),
                                    W_O=np.eye(2), options={"heads": 2})), encoding="utf-8")
    assert main(["derive", str(path), "--format", "json"]) == 0
    names = [step["name"] for step in json.loads(capsys.readouterr().out)["steps"]]
    assert names[-2:] == ["concat", "output"] and "head2.exp_sum" in names


def test_against_pytorch() -> None:
    torch = pytest.importorskip("torch")
    x = np.array([[1.0, 0.5, -0.25, 0.0], [0.0, 2.0, 1.0, -1.0], [0.5, 0.5, 0.5, 0.5]])
    w_q = np.array([[1, 0, 0.5, 0], [0, 1, 0, 0], [0, 0, 1, 0.25], [0.5, 0, 0, 1]], float)
    w_k, w_v, w_o = w_q.T.copy(), np.eye(4)[::-1].copy(), np.eye(4) * 0.5
    mapping = spec(X=x, W_Q=w_q, W_K=w_k, W_V=w_v, W_O=w_o,
                   options={"heads": 2, "mask": "causal"})
    ours = as_floats(symattn.derive(symattn.Problem.from_mapping(mapping))["output"].value)
    layer = torch.nn.MultiheadAttention(4, 2, bias=False, batch_first=True, dtype=torch.float64)
    with torch.no_grad():
        layer.in_proj_weight.copy_(torch.tensor(np.vstack([w_q.T, w_k.T, w_v.T])))
        layer.out_proj.weight.copy_(torch.tensor(w_o.T))
    inputs = torch.tensor(x).unsqueeze(0)
    mask = torch.triu(torch.ones(3, 3, dtype=torch.bool), diagonal=1)
    theirs, _ = layer(inputs, inputs, inputs, attn_mask=mask, need_weights=False)
    np.testing.assert_allclose(ours, theirs[0].numpy(), rtol=1e-12)
    single = spec(Q=x, K=x, V=x, options={"mask": "causal"})
    ours_single = as_floats(symattn.derive(symattn.Problem.from_mapping(single))["output"].value)
    t = torch.tensor(x).unsqueeze(0)
    sdpa = torch.nn.functional.scaled_dot_product_attention(t, t, t, is_causal=True)
    np.testing.assert_allclose(ours_single, sdpa[0].numpy(), rtol=1e-12)
