"""tutor.generation: GAN's value, losses and gradients, the optimal discriminator and the equilibrium
(−log 4); DCGAN's transposed convolutions (4 → 64); Pix2Pix's L_cGAN + λ·L1; CycleGAN's cycle-consistency
loss; NeRF's volume rendering and positional encoding; WaveNet's receptive field and μ-law — with the
named mistakes next to each formula.

Worked examples checked by hand (the page's): V = ½(ln 0.9 + ln 0.8) + ½(ln 0.9 + ln 0.8), D* = (0.8, 0.6,
0.4, 0.2); 4 → 8 → 16 → 32 → 64; L_cyc = 1 + 1 = 2; α = (0, 0.5, 0.8, 0.75), T = (1, 1, 0.5, 0.1), w = (0,
0.5, 0.4, 0.075); 1,024 samples = 64 ms; F(15/255) = 0.5. Properties with hypothesis against plain loops;
bad input raises a Japanese ValueError; inputs are never mutated.
"""
from __future__ import annotations

import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from tutor import generation as gen
from calchelpers import raises_japanese


# ---------------------------------------------------------------------------
# GAN
# ---------------------------------------------------------------------------
def test_gan_demo_by_hand():
    r = gen.gan_losses(gen.GAN_DEMO_REAL, gen.GAN_DEMO_FAKE)
    want = (math.log(0.9) + math.log(0.8)) / 2 + (math.log(0.9) + math.log(0.8)) / 2
    assert math.isclose(r.value, want) and math.isclose(r.loss_d, -want)
    assert math.isclose(r.loss_g_saturating, (math.log(0.9) + math.log(0.8)) / 2)
    assert math.isclose(r.loss_g_nonsat, -(math.log(0.1) + math.log(0.2)) / 2)
    assert np.allclose(r.grad_saturating, [-0.1, -0.2]) and np.allclose(r.grad_nonsat, [-0.9, -0.8])
    assert np.allclose(r.fake_complement, [0.9, 0.8]) and np.allclose(r.nonsat_magnitude, [0.9, 0.8])


@settings(max_examples=60, deadline=None)
@given(a=st.floats(-6, 6))
def test_the_gradients_through_the_logit_are_the_derivatives(a):
    d = 1 / (1 + math.exp(-a))
    h = 1e-6
    sat = (math.log(1 - 1 / (1 + math.exp(-(a + h)))) - math.log(1 - 1 / (1 + math.exp(-(a - h))))) / (2 * h)
    non = (-math.log(1 / (1 + math.exp(-(a + h)))) + math.log(1 / (1 + math.exp(-(a - h))))) / (2 * h)
    assert math.isclose(gen.saturating_gradient(d)[0], sat, abs_tol=1e-5)
    assert math.isclose(gen.nonsaturating_gradient(d)[0], non, abs_tol=1e-5)
    assert math.isclose(gen.gradient_wrt_probability(d, saturating=False)[0], -1 / d)


def test_the_non_saturating_loss_keeps_a_gradient_when_the_discriminator_wins():
    d, sat, non = gen.gradient_curves(99)
    assert d[0] == 0.01 and d[-1] == 0.99 and sat.shape == non.shape == (99,)
    assert sat[0] < 0.02 and non[0] > 0.98 and np.allclose(sat + non, 1)


def test_optimal_discriminator_demo_and_equilibrium():
    r = gen.optimal_discriminator(gen.GAN_DEMO_P_DATA, gen.GAN_DEMO_P_G)
    assert np.allclose(r.d_star, [0.8, 0.6, 0.4, 0.2])
    by_loop = sum(p * math.log(d) + q * math.log(1 - d) for p, q, d in zip(gen.GAN_DEMO_P_DATA, gen.GAN_DEMO_P_G, r.d_star))
    assert math.isclose(r.value, by_loop) and r.value > gen.EQUILIBRIUM_VALUE and r.jsd > 0
    eq = gen.optimal_discriminator(gen.GAN_DEMO_P_DATA, gen.GAN_DEMO_P_DATA)
    assert np.allclose(eq.d_star, 0.5) and math.isclose(eq.value, -math.log(4)) and abs(eq.jsd) < 1e-12
    assert np.allclose(gen.optimal_d_swapped(gen.GAN_DEMO_P_DATA, gen.GAN_DEMO_P_G), [0.2, 0.4, 0.6, 0.8])
    assert np.allclose(gen.optimal_d_unnormalised(gen.GAN_DEMO_P_DATA, gen.GAN_DEMO_P_G), gen.GAN_DEMO_P_DATA)
    assert np.allclose(gen.optimal_d_half(gen.GAN_DEMO_P_DATA, gen.GAN_DEMO_P_G), 0.5)


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10_000))
def test_d_star_maximises_the_value_pointwise(seed):
    rng = np.random.default_rng(seed)
    p, q = rng.dirichlet(np.ones(4)), rng.dirichlet(np.ones(4))
    r = gen.optimal_discriminator(p, q)
    for d in rng.uniform(0.01, 0.99, size=(20, 4)):
        assert float(p @ np.log(d) + q @ np.log(1 - d)) <= r.value + 1e-12
    assert r.jsd >= -1e-12


def test_zero_mass_points_and_bad_gan_input():
    r = gen.optimal_discriminator([0.5, 0.5, 0.0], [0.5, 0.0, 0.5])
    assert np.allclose(r.d_star, [0.5, 1.0, 0.0]) and math.isfinite(r.value)
    raises_japanese(gen.gan_losses, [0.9, 1.0], [0.1])                  # log(1 − 1) would be −∞
    raises_japanese(gen.gan_losses, [0.9], [0.0])
    raises_japanese(gen.gan_losses, [float("nan")], [0.1])
    raises_japanese(gen.gan_losses, [], [0.1])
    raises_japanese(gen.optimal_discriminator, [0.5, 0.6], [0.5, 0.5])   # not a distribution
    raises_japanese(gen.optimal_discriminator, [1.0], [0.5, 0.5])        # different supports
    raises_japanese(gen.optimal_discriminator, [[0.5, 0.5]], [0.5, 0.5])
    raises_japanese(gen.optimal_discriminator, [1.5, -0.5], [0.5, 0.5])


# ---------------------------------------------------------------------------
# DCGAN, Pix2Pix
# ---------------------------------------------------------------------------
def test_dcgan_sizes_and_the_mistakes():
    assert gen.dcgan_sizes() == (4, 8, 16, 32, 64)
    assert gen.tconv_size(4, 4, 2, 1) == 8 and gen.conv_size(64, 4, 2, 1) == 32
    assert gen.tconv_size_no_padding(4, 4, 2, 1) == 10 and gen.tconv_size_forgot_minus_one(4, 4, 2, 1) == 10
    assert gen.tconv_size_conv_formula(11, 3, 2, 1) == gen.conv_size(11, 3, 2, 1) == 6
    assert np.allclose(gen.latent_arithmetic(*(gen.LATENT_DEMO[k] for k in ("笑顔の女性", "無表情の女性", "無表情の男性"))),
                       gen.LATENT_DEMO["笑顔の男性"])


@settings(max_examples=80, deadline=None)
@given(n=st.integers(1, 40), k=st.integers(1, 7), s=st.integers(1, 4), p=st.integers(0, 3))
def test_transposed_convolution_undoes_the_shape_of_a_convolution(n, k, s, p):
    """A convolution with the same (k, s, p) takes the transposed convolution's output back to n."""
    if (n - 1) * s - 2 * p + k < 1:
        raise_ok = raises_japanese(gen.tconv_size, n, k, s, p)
        assert "パディング" in raise_ok
        return
    out = gen.tconv_size(n, k, s, p)
    assert gen.conv_size(out, k, s, p) == n
    assert out == len(range(0, (n - 1) * s + k)) - 2 * p                      # spread n pixels s apart, kernel k


def test_bad_convolution_and_pix2pix_input():
    raises_japanese(gen.tconv_size, 0, 4, 2, 1)
    raises_japanese(gen.tconv_size, 4, 4, 2, -1)
    raises_japanese(gen.tconv_size, 4, 4, 2, 1.5)
    raises_japanese(gen.tconv_size, 4, True, 2, 1)
    raises_japanese(gen.dcgan_sizes, 4, 13)
    raises_japanese(gen.conv_size, 2, 7, 1, 0)
    raises_japanese(gen.latent_arithmetic, [1, 2], [1, 2, 3], [1, 2])
    r = gen.pix2pix_loss([[1.0, 0.0]], [[0.5, 0.5]], 0.7)
    assert math.isclose(r.l1, 0.5) and math.isclose(r.total, 0.7 + 100 * 0.5)
    raises_japanese(gen.pix2pix_loss, [1.0, 0.0], [0.5], 0.7)
    raises_japanese(gen.pix2pix_loss, [1.0], [0.5], float("inf"))


# ---------------------------------------------------------------------------
# CycleGAN
# ---------------------------------------------------------------------------
def test_cycle_demo_by_hand_and_the_mistakes():
    c = gen.cycle_loss(gen.CYCLE_DEMO_X, gen.CYCLE_DEMO_Y, gen.CYCLE_DEMO_G, gen.CYCLE_DEMO_F)
    assert c.g_x.tolist() == [2, 2] and c.f_g_x.tolist() == [1, 3] and c.f_y.tolist() == [1, 0] and c.g_f_y.tolist() == [2, 0]
    assert (c.forward, c.backward, c.total, c.weighted) == (1.0, 1.0, 2.0, 20.0)
    args = (gen.CYCLE_DEMO_X, gen.CYCLE_DEMO_Y, gen.CYCLE_DEMO_G, gen.CYCLE_DEMO_F)
    assert gen.cycle_loss_forward_only(*args) == 1.0 and gen.cycle_loss_squared(*args) == 2.0
    assert gen.cycle_loss_no_return(*args) == 1 + 0 + 1 + 1                   # |2−1|+|2−2| + |1−2|+|0+1|
    assert gen.cycle_loss([1, 2], [3, 4], 2.0, 0.5).total == 0               # F undoes G exactly


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10_000))
def test_cycle_loss_against_a_plain_loop(seed):
    rng = np.random.default_rng(seed)
    x, y, g, f = rng.normal(size=3), rng.normal(size=3), rng.normal(size=(3, 3)), rng.normal(size=(3, 3))
    fg = [sum(f[i][j] * sum(g[j][k] * x[k] for k in range(3)) for j in range(3)) for i in range(3)]
    gf = [sum(g[i][j] * sum(f[j][k] * y[k] for k in range(3)) for j in range(3)) for i in range(3)]
    want = sum(abs(a - b) for a, b in zip(fg, x)) + sum(abs(a - b) for a, b in zip(gf, y))
    assert math.isclose(gen.cycle_loss(x, y, g, f).total, want, rel_tol=1e-9, abs_tol=1e-12)


def test_bad_cycle_input_and_inputs_kept():
    raises_japanese(gen.cycle_loss, [1, 2], [1, 2, 3], 1.0, 1.0)
    raises_japanese(gen.cycle_loss, [1, 2], [1, 2], [[1, 0, 0]], 1.0)
    raises_japanese(gen.cycle_loss, [1, 2], [1, 2], 1e7, 1.0)
    raises_japanese(gen.cycle_loss, [1, float("nan")], [1, 2], 1.0, 1.0)
    x = np.array([1.0, 2.0])
    gen.cycle_loss(x, x, np.eye(2), np.eye(2))
    assert x.tolist() == [1.0, 2.0]


# ---------------------------------------------------------------------------
# NeRF
# ---------------------------------------------------------------------------
def test_nerf_demo_by_hand_and_the_mistakes():
    r = gen.render_ray(gen.NERF_DEMO_SIGMA, gen.NERF_DEMO_DELTA, gen.NERF_DEMO_COLORS)
    assert np.allclose(r.alpha, [0, 0.5, 0.8, 0.75]) and np.allclose(r.transmittance, [1, 1, 0.5, 0.1])
    assert np.allclose(r.weights, [0, 0.5, 0.4, 0.075]) and math.isclose(r.opacity, 0.975)
    assert np.allclose(r.color, [0.5, 0.075, 0.4])
    grey = (0.0, 10.0, 20.0, 40.0)
    assert math.isclose(float(gen.render_no_transmittance(gen.NERF_DEMO_SIGMA, 1.0, grey)), 0.5 * 10 + 0.8 * 20 + 0.75 * 40)
    assert math.isclose(float(gen.render_inclusive_transmittance(gen.NERF_DEMO_SIGMA, 1.0, grey)),
                        0.5 * 0.5 * 10 + 0.1 * 0.8 * 20 + 0.025 * 0.75 * 40)
    back = gen.render_reversed(gen.NERF_DEMO_SIGMA, 1.0, grey)
    assert math.isclose(float(back), 0.75 * 40 + 0.25 * 0.8 * 20 + 0.05 * 0.5 * 10)


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(1, 6))
def test_rendering_against_a_plain_loop(seed, n):
    rng = np.random.default_rng(seed)
    sigma, delta, colors = rng.uniform(0, 3, n), rng.uniform(0.1, 1, n), rng.uniform(0, 1, (n, 3))
    r = gen.render_ray(sigma, delta, colors)
    left, want = 1.0, np.zeros(3)
    for s, d, c in zip(sigma, delta, colors):
        a = 1 - math.exp(-s * d)
        want += left * a * c
        left *= 1 - a
    assert np.allclose(r.color, want) and math.isclose(r.opacity, 1 - left)
    assert (np.diff(r.transmittance) <= 1e-15).all() and (r.weights >= 0).all()


def test_positional_encoding_of_nerf():
    e = gen.nerf_encoding([0.25, 0.5], 2)
    assert e.shape == (2, 4)
    assert np.allclose(e[0], [math.sin(math.pi / 4), math.cos(math.pi / 4), 1, 0], atol=1e-12)
    assert gen.nerf_encoding_width(gen.NERF_L_POSITION) == 60 and gen.nerf_encoding_width(gen.NERF_L_DIRECTION) == 24
    raises_japanese(gen.nerf_encoding, [0.1], 17)


def test_bad_ray_input():
    raises_japanese(gen.render_ray, [-1.0, 1.0], 1.0, [0.0, 1.0])
    raises_japanese(gen.render_ray, [1.0, 1.0], 0.0, [0.0, 1.0])
    raises_japanese(gen.render_ray, [1.0, 1.0], [1.0], [0.0, 1.0])
    raises_japanese(gen.render_ray, [1.0, 1.0], 1.0, [0.0, 1.0, 2.0])
    raises_japanese(gen.render_ray, [1e300, 1.0], 1.0, [0.0, 1.0])
    raises_japanese(gen.render_ray, [[1.0]], 1.0, [0.0])


# ---------------------------------------------------------------------------
# WaveNet
# ---------------------------------------------------------------------------
def test_wavenet_receptive_field_by_hand_and_the_mistakes():
    one = gen.wavenet_dilations()
    assert one == (1, 2, 4, 8, 16, 32, 64, 128, 256, 512) and gen.dilation_total(one) == 1023
    assert gen.receptive_field(one) == 1024 and gen.milliseconds(1024) == 64.0
    assert gen.fields_by_layer(one).tolist() == [2, 4, 8, 16, 32, 64, 128, 256, 512, 1024]
    three = gen.wavenet_dilations(10, 3)
    assert gen.receptive_field(three) == 3 * 1023 + 1 and gen.receptive_field(three, 3) == 2 * 3 * 1023 + 1
    assert gen.receptive_field_no_dilation(three) == 31 and gen.receptive_field_forgot_one(three) == 3069
    assert gen.receptive_field_per_stack(three, 2, 3) == 3 * 1024
    raises_japanese(gen.receptive_field_per_stack, three, 2, 4)
    raises_japanese(gen.receptive_field, [1, 0.5])
    raises_japanese(gen.wavenet_dilations, 21)


def test_a_receptive_field_is_the_set_of_samples_one_output_reaches():
    """By walking the taps back layer by layer: the offsets reachable are 0 … field − 1."""
    dil, k = (1, 2, 4, 1, 2, 4), 3
    reach = {0}
    for d in reversed(dil):
        reach = {r + j * d for r in reach for j in range(k)}
    assert reach == set(range(gen.receptive_field(dil, k)))


def test_mu_law_by_hand_and_the_mistakes():
    m = gen.mu_law(gen.MU_DEMO)
    assert np.allclose(m.companded, [0.5, -0.75]) and m.index.tolist() == [191, 32]
    assert m.linear_index.tolist() == [135, 96] and np.allclose(m.restored, gen.MU_DEMO, atol=0.01)
    assert np.allclose(gen.mu_law_no_normalisation(gen.MU_DEMO), [math.log(16), -math.log(64)])
    assert np.allclose(gen.mu_law_unsigned(gen.MU_DEMO), [0.5, 0.75])
    x, f = gen.mu_law_curve(5)
    assert x.tolist() == [-1, -0.5, 0, 0.5, 1] and f[0] == -1 and f[2] == 0 and f[-1] == 1


@settings(max_examples=60, deadline=None)
@given(x=st.floats(-1, 1), mu=st.integers(1, 1000))
def test_mu_law_is_odd_bounded_and_inverted(x, mu):
    m = gen.mu_law([x, -x], mu)
    assert abs(m.companded[0] + m.companded[1]) < 1e-12 and abs(m.companded[0]) <= 1
    assert math.isclose(gen.mu_law_expand(m.companded, mu)[0], x, abs_tol=1e-9)
    assert 0 <= m.index.min() and m.index.max() <= mu


def test_bad_audio_input():
    raises_japanese(gen.mu_law, [1.5])
    raises_japanese(gen.mu_law, [0.5], 0)
    raises_japanese(gen.mu_law, [float("inf")])
    raises_japanese(gen.milliseconds, 0)
