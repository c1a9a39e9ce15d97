"""tutor.multimodal: CLIP's cosine table, logits, row and column softmax and symmetric loss; zero-shot
classification; the text-to-image cross-attention (tutor.core.attention with Q from the image and K, V
from the text); ᾱ_t of a β schedule and x_t = √ᾱ_t x₀ + √(1 − ᾱ_t) ε; classifier-free guidance — with
the named mistakes next to each formula.

Worked examples checked by hand: the demo's cosines 0.96 / 0.48 / 0.64 …, logits ÷ τ = 0.2, its row
and column softmax; the cross-attention's scores; ᾱ = 0.9, 0.72, 0.36 and x₃ = (1, 0.2); ε̂ = (1.4,
1.4). Properties with hypothesis against plain loops; bad input raises a Japanese ValueError; inputs
are never mutated.
"""
from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tutor
from tutor import multimodal as mm
from calchelpers import raises_japanese

# ---------------------------------------------------------------------------
# CLIP
# ---------------------------------------------------------------------------
def test_clip_demo_by_hand():
    b = mm.clip_batch(mm.CLIP_DEMO_IMAGES, mm.CLIP_DEMO_TEXTS)
    assert b.image_norms.tolist() == [10, 5, 10] and b.text_norms.tolist() == [5, 5, 10]
    assert np.allclose(b.cosine, [[0.96, 0.48, 0.64], [0.64, 1.0, 0.36], [0.36, 0.48, 0.96]])
    assert np.allclose(b.dots, [[48, 24, 64], [16, 25, 18], [18, 24, 96]])
    assert np.allclose(b.logits, b.cosine / 0.2) and b.temperature == 0.2
    e = np.exp([4.8, 2.4, 3.2])
    assert math.isclose(b.probs.image_to_text[0, 0], e[0] / e.sum())                 # row: image → texts
    col = np.exp([4.8, 3.2, 1.8])
    assert math.isclose(b.probs.text_to_image[0, 0], col[0] / col.sum())             # column: text → images
    assert [round(x, 3) for x in np.diag(b.probs.image_to_text)] == [0.774, 0.829, 0.877]
    assert [round(x, 3) for x in np.diag(b.probs.text_to_image)] == [0.799, 0.871, 0.799]
    assert math.isclose(b.probs.loss, (b.probs.loss_i2t + b.probs.loss_t2i) / 2)
    assert round(b.probs.loss, 3) == 0.194
    assert np.allclose(b.norm_products, np.outer([10, 5, 10], [5, 5, 10]))
    assert np.array_equal(b.probs.logits_by_text, b.logits.T)


def test_zero_shot_is_one_row_of_the_table_and_the_unnormalised_mistake_picks_the_long_vector():
    z = mm.zero_shot(mm.CLIP_DEMO_IMAGES[0], mm.CLIP_DEMO_TEXTS)
    b = mm.clip_batch(mm.CLIP_DEMO_IMAGES, mm.CLIP_DEMO_TEXTS)
    assert np.allclose(z.probs, b.probs.image_to_text[0]) and z.predicted == 0
    wrong = mm.zero_shot_unnormalised(mm.CLIP_DEMO_IMAGES[0], mm.CLIP_DEMO_TEXTS)
    assert int(np.argmax(wrong)) == 2 and wrong[2] > 0.999                           # 「車の写真」 is twice as long
    assert np.allclose(mm.clip_logits_unnormalised(mm.CLIP_DEMO_IMAGES, mm.CLIP_DEMO_TEXTS), b.dots / 0.2)
    assert np.allclose(mm.clip_logits_no_temperature(mm.CLIP_DEMO_IMAGES, mm.CLIP_DEMO_TEXTS), b.cosine)
    assert np.allclose(mm.clip_logits_times_temperature(mm.CLIP_DEMO_IMAGES, mm.CLIP_DEMO_TEXTS), b.cosine * 0.2)


def test_the_axis_mistakes_and_the_one_way_loss():
    logits = np.log([[4.0, 1.0, 2.0], [1.0, 5.0, 2.0], [3.0, 1.0, 6.0]])
    p = mm.contrastive_probs(logits)
    assert math.isclose(p.image_to_text[0, 2], 2 / 7) and math.isclose(p.text_to_image[0, 2], 2 / 10)
    assert np.allclose(mm.probs_wrong_axis(logits, "i2t"), p.text_to_image)
    assert np.allclose(mm.probs_wrong_axis(logits, "t2i"), p.image_to_text)
    assert math.isclose(mm.probs_whole_matrix(logits)[0, 2], 2 / 25)
    assert math.isclose(mm.loss_one_direction(logits), p.loss_i2t) and p.loss_i2t != p.loss_t2i
    raises_japanese(mm.probs_wrong_axis, logits, "rows")


@settings(max_examples=80, deadline=None)
@given(seed=st.integers(0, 10_000), tau=st.floats(0.02, 5.0), k=st.floats(0.1, 20.0))
def test_clip_is_a_softmax_of_cosines_that_ignores_lengths(seed, tau, k):
    rng = np.random.default_rng(seed)
    img, txt = rng.normal(size=(3, 4)), rng.normal(size=(3, 4))
    b = mm.clip_batch(img, txt, tau)
    cos = np.array([[a @ t / np.linalg.norm(a) / np.linalg.norm(t) for t in txt] for a in img])
    assert np.allclose(b.cosine, cos)
    assert np.allclose(b.probs.image_to_text.sum(axis=1), 1) and np.allclose(b.probs.text_to_image.sum(axis=0), 1)
    rows = np.array([-math.log(math.exp(cos[i, i] / tau) / sum(math.exp(c / tau) for c in cos[i])) for i in range(3)])
    assert np.allclose(b.probs.loss_rows, rows)
    longer = mm.clip_batch(k * img, txt / k, tau)
    assert np.allclose(longer.logits, b.logits)                                      # lengths do not matter


def test_a_sharper_temperature_concentrates_on_the_diagonal():
    soft, sharp = (mm.clip_batch(mm.CLIP_DEMO_IMAGES, mm.CLIP_DEMO_TEXTS, t) for t in (1.0, 0.05))
    assert (np.diag(sharp.probs.image_to_text) > np.diag(soft.probs.image_to_text)).all()
    assert sharp.probs.loss < soft.probs.loss


def test_clip_bad_input():
    assert "長さ 0" in raises_japanese(mm.clip_batch, [[0.0, 0.0, 0.0]], [[1.0, 0.0, 0.0]])
    raises_japanese(mm.clip_batch, [[1.0, 0.0]], [[1.0, 0.0, 0.0]])
    raises_japanese(mm.clip_batch, [[1.0, 0.0]], [[1.0, 0.0]], temperature=0)
    raises_japanese(mm.clip_batch, [[1.0, 0.0]], [[1.0, 0.0]], temperature=float("nan"))
    raises_japanese(mm.clip_batch, [[1.0, 0.0]], [[1.0, 0.0]], temperature=True)
    raises_japanese(mm.clip_batch, [[1.0, 0.0]], [[1.0, 0.0], [0.0, 1.0]])               # not square: no pairs
    raises_japanese(mm.clip_batch, [[1.0, float("inf")]], [[1.0, 0.0]])
    raises_japanese(mm.zero_shot, mm.CLIP_DEMO_IMAGES, mm.CLIP_DEMO_TEXTS)                  # one image only


# ---------------------------------------------------------------------------
# cross-attention: Q from the image, K and V from the text
# ---------------------------------------------------------------------------
def test_cross_attention_demo_by_hand_and_through_the_core():
    r = mm.text_image_attention(mm.CROSS_DEMO_LATENTS, mm.CROSS_DEMO_TEXT, mm.CROSS_DEMO_W_Q, mm.CROSS_DEMO_W_K,
                                mm.CROSS_DEMO_W_V)
    assert r.k.tolist() == [[2, 0], [1, 2], [0, 2]] and r.v.tolist() == [[2, 1], [1, 0], [0, 1]]
    assert r.attn.scores.tolist() == [[4, 2, 0], [-2, 3, 4], [2, 3, 2], [2, 5, 4]]
    core = tutor.attention(r.q, r.k, r.v)
    assert np.allclose(core.weights, r.weights) and np.allclose(core.output, r.output)
    assert r.weights.shape == (4, 3) and np.allclose(r.weights.sum(axis=1), 1)
    assert [int(np.argmax(row)) for row in r.weights] == [0, 2, 1, 1]               # 赤い, 夕焼け, 猫, 猫
    assert np.allclose(r.token_map(1, 2), r.weights[:, 1].reshape(2, 2))
    raises_japanese(r.token_map, 0, 3)


def test_cross_attention_widths_may_differ_and_bad_shapes_are_refused():
    rng = np.random.default_rng(0)
    z, e = rng.normal(size=(9, 5)), rng.normal(size=(4, 7))                          # image width 5, text width 7
    r = mm.text_image_attention(z, e, rng.normal(size=(5, 3)), rng.normal(size=(7, 3)), rng.normal(size=(7, 2)))
    assert r.weights.shape == (9, 4) and r.output.shape == (9, 2)
    raises_japanese(mm.text_image_attention, z, e, rng.normal(size=(4, 3)), rng.normal(size=(7, 3)), rng.normal(size=(7, 2)))
    raises_japanese(mm.text_image_attention, z, e, rng.normal(size=(5, 3)), rng.normal(size=(7, 2)), rng.normal(size=(7, 2)))


def test_cross_shapes_and_their_mistakes():
    ok = mm.cross_shapes(4096, 77, 320)
    assert ok.weights == (4096, 77) and ok.output == (4096, 320) and ok.scores == 315_392
    assert mm.cross_shapes_swapped(4096, 77, 320).weights == (77, 4096)
    assert mm.cross_shapes_swapped(4096, 77, 320).output == (77, 320)
    assert mm.cross_shapes_self(4096, 77, 320).weights == (4096, 4096)
    assert mm.latent_side(512) == 64 and mm.latent_positions(512) == 4096
    raises_japanese(mm.latent_side, 500)
    raises_japanese(mm.cross_shapes, 0, 77, 320)


# ---------------------------------------------------------------------------
# diffusion
# ---------------------------------------------------------------------------
def test_ddpm_schedule():
    b = mm.linear_betas()
    assert b.size == 1000 and b[0] == 1e-4 and math.isclose(b[-1], 0.02)
    a = mm.alpha_bars(b)
    assert (np.diff(a) < 0).all() and 0 < a[-1] < 0.001                             # almost no signal at T
    t, signal, noise = mm.schedule_curve(b)
    assert t[0] == 1 and t[-1] == 1000 and np.allclose(signal ** 2 + noise ** 2, 1)


def test_alpha_bar_and_its_mistakes_by_hand():
    betas = mm.DIFFUSION_DEMO_BETAS
    assert np.allclose(mm.alpha_bars(betas), [0.9, 0.72, 0.36])
    assert math.isclose(mm.alpha_bar_at(betas, 3), 0.36)
    assert math.isclose(mm.alpha_bar_sum(betas, 3), 0.2)
    assert math.isclose(mm.alpha_bar_beta_product(betas, 3), 0.01)
    assert math.isclose(mm.alpha_bar_last_step(betas, 3), 0.5)
    raises_japanese(mm.alpha_bar_at, betas, 4)
    raises_japanese(mm.alpha_bars, [0.1, 1.0])
    raises_japanese(mm.alpha_bars, [0.0, 0.2])


def test_add_noise_by_hand_and_back():
    r = mm.add_noise(mm.DIFFUSION_DEMO_X0, mm.DIFFUSION_DEMO_EPS, 0.36)
    assert math.isclose(r.signal, 0.6) and math.isclose(r.noise, 0.8) and np.allclose(r.x_t, [1.0, 0.2])
    assert np.allclose(mm.add_noise_swapped(mm.DIFFUSION_DEMO_X0, mm.DIFFUSION_DEMO_EPS, 0.36), [1.1, -0.2])
    assert np.allclose(mm.add_noise_no_sqrt(mm.DIFFUSION_DEMO_X0, mm.DIFFUSION_DEMO_EPS, 0.36), [0.68, 0.28])
    assert np.allclose(mm.add_noise_one_step(mm.DIFFUSION_DEMO_X0, mm.DIFFUSION_DEMO_EPS, 0.0784), [1.1, -0.68])
    assert np.allclose(mm.x0_from_noise(r.x_t, mm.DIFFUSION_DEMO_EPS, 0.36), mm.DIFFUSION_DEMO_X0)
    assert np.allclose(mm.x0_from_noise(r.x_t, mm.DIFFUSION_DEMO_EPS_HAT, 0.36), [1.0 + 0.8 * 0.1 / 0.6, -1 - 0.8 * 0.1 / 0.6])
    raises_japanese(mm.add_noise, [1.0, 2.0], [1.0], 0.5)
    raises_japanese(mm.add_noise, [1.0], [1.0], 0.0)
    raises_japanese(mm.add_noise, [1.0], [1.0], 1.5)


@settings(max_examples=100, deadline=None)
@given(seed=st.integers(0, 10_000), a=st.floats(0.001, 1.0))
def test_noise_keeps_unit_variance_and_is_undone_by_the_true_noise(seed, a):
    rng = np.random.default_rng(seed)
    x0, eps = rng.normal(size=6), mm.standard_noise(6, rng)
    r = mm.add_noise(x0, eps, a)
    assert math.isclose(r.signal ** 2 + r.noise ** 2, 1.0)
    assert np.allclose(mm.x0_from_noise(r.x_t, eps, a), x0)


def test_standard_noise_comes_from_the_passed_generator():
    a = mm.standard_noise((4, 4), np.random.default_rng(3))
    assert a.shape == (4, 4) and np.array_equal(a, mm.standard_noise((4, 4), np.random.default_rng(3)))
    raises_japanese(mm.standard_noise, (4, 4), 3)


# ---------------------------------------------------------------------------
# classifier-free guidance
# ---------------------------------------------------------------------------
def test_guidance_by_hand_and_its_mistakes():
    u, c = mm.GUIDANCE_DEMO_UNCOND, mm.GUIDANCE_DEMO_COND
    g = mm.guided(u, c, 3)
    assert np.allclose(g.difference, [0.4, 0.6]) and np.allclose(g.noise, [1.4, 1.4])
    assert np.allclose(mm.guided_noise(u, c, 0), u) and np.allclose(mm.guided_noise(u, c, 1), c)
    assert np.allclose(mm.guided_noise_swapped(u, c, 3), [-0.6, -1.6])
    assert np.allclose(mm.guided_noise_cond_only(u, c, 3), [1.8, 0.6])
    assert np.allclose(mm.guided_noise_reversed(u, c, 3), [-1.0, -2.2])
    raises_japanese(mm.guided, u, [1.0], 3)
    raises_japanese(mm.guided, u, c, -1)
    raises_japanese(mm.guided, u, c, float("nan"))


# ---------------------------------------------------------------------------
# conventions
# ---------------------------------------------------------------------------
def test_inputs_are_never_mutated():
    img, txt = np.array(mm.CLIP_DEMO_IMAGES), np.array(mm.CLIP_DEMO_TEXTS)
    z, e = np.array(mm.CROSS_DEMO_LATENTS), np.array(mm.CROSS_DEMO_TEXT)
    x0, eps = np.array(mm.DIFFUSION_DEMO_X0), np.array(mm.DIFFUSION_DEMO_EPS)
    betas = np.array(mm.DIFFUSION_DEMO_BETAS)
    arrays = (img, txt, z, e, x0, eps, betas)
    copies = [a.copy() for a in arrays]
    mm.clip_batch(img, txt)
    mm.zero_shot(img[0], txt)
    mm.text_image_attention(z, e, mm.CROSS_DEMO_W_Q, mm.CROSS_DEMO_W_K, mm.CROSS_DEMO_W_V)
    mm.add_noise(x0, eps, 0.36)
    mm.alpha_bars(betas)
    mm.guided(x0, eps, 2)
    assert all(np.array_equal(a, b) for a, b in zip(arrays, copies))
