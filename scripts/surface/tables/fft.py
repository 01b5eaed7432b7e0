"""`jax.numpy.fft` and complex numbers (the table `crates/oxla/tests/surface/fft.rs`).

Complex results are returned as their real and imaginary parts; complex inputs are made
from two real inputs with `lax.complex`, so every leaf is real."""

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from registry import case, f32, f64


def ri(z):
    return jnp.real(z), jnp.imag(z)


def two(shape):
    return lambda rng: [f32(rng, shape), f32(rng, shape)]


@case("fft_even", lambda rng: [f32(rng, (3, 8))])
def _(x):
    return ri(jnp.fft.fft(x))


@case("fft_pad_odd", lambda rng: [f32(rng, (2, 5))])
def _(x):
    return ri(jnp.fft.fft(x, n=7))


@case("fft_truncate_axis0_ortho", lambda rng: [f32(rng, (6, 3))])
def _(x):
    return ri(jnp.fft.fft(x, n=4, axis=0, norm="ortho"))


@case("ifft_complex_forward", two((3, 6)))
def _(x, y):
    return ri(jnp.fft.ifft(lax.complex(x, y), norm="forward"))


@case("ifft_complex", two((2, 5)))
def _(x, y):
    return ri(jnp.fft.ifft(lax.complex(x, y)))


@case("rfft_even", lambda rng: [f32(rng, (3, 8))])
def _(x):
    return ri(jnp.fft.rfft(x))


@case("rfft_odd_pad_ortho", lambda rng: [f32(rng, (2, 7))])
def _(x):
    return ri(jnp.fft.rfft(x, n=9, norm="ortho"))


@case("irfft_default", two((3, 5)))
def _(x, y):
    return jnp.fft.irfft(lax.complex(x, y))


@case("irfft_odd_forward", two((2, 4)))
def _(x, y):
    return jnp.fft.irfft(lax.complex(x, y), n=7, norm="forward")


@case("irfft_truncate_axis0", two((5, 3)))
def _(x, y):
    return jnp.fft.irfft(lax.complex(x, y), n=4, axis=0)


@case("fft2_s", lambda rng: [f32(rng, (2, 4, 6))])
def _(x):
    return ri(jnp.fft.fft2(x, s=(3, 8)))


@case("ifft2_complex", two((3, 4)))
def _(x, y):
    return ri(jnp.fft.ifft2(lax.complex(x, y)))


@case("rfft2", lambda rng: [f32(rng, (2, 4, 6))])
def _(x):
    return ri(jnp.fft.rfft2(x))


@case("irfft2_s", two((4, 3)))
def _(x, y):
    return jnp.fft.irfft2(lax.complex(x, y), s=(4, 5))


@case("fftn_axes_ortho", lambda rng: [f32(rng, (3, 4, 5))])
def _(x):
    return ri(jnp.fft.fftn(x, axes=(0, 2), norm="ortho"))


@case("ifftn_s", two((3, 4)))
def _(x, y):
    return ri(jnp.fft.ifftn(lax.complex(x, y), s=(5, 3)))


@case("rfftn", lambda rng: [f32(rng, (3, 4, 6))])
def _(x):
    return ri(jnp.fft.rfftn(x))


@case("irfftn_axes", two((3, 4, 4)))
def _(x, y):
    return jnp.fft.irfftn(lax.complex(x, y), axes=(0, 2))


@case("hfft", two((3, 4)))
def _(x, y):
    return jnp.fft.hfft(lax.complex(x, y), n=6)


@case("ihfft_odd", lambda rng: [f32(rng, (3, 7))])
def _(x):
    return ri(jnp.fft.ihfft(x))


@case("fftfreq_rfftfreq", lambda rng: [f32(rng, (7,)), f32(rng, (5,))])
def _(x, y):
    return jnp.fft.fftfreq(7, 0.5) * x, jnp.fft.rfftfreq(8) * y


@case("fftshift_ifftshift", lambda rng: [f32(rng, (5, 6))])
def _(x):
    return jnp.fft.fftshift(x), jnp.fft.ifftshift(x, axes=0)


@case("complex_parts_abs", two((3, 4)))
def _(x, y):
    z = lax.complex(x, y)
    w = z * z - jnp.conj(z) / (z + 2.0)
    return jnp.real(w), jnp.imag(w), jnp.abs(z), jnp.real(jnp.exp(z) * jnp.sqrt(z))


@case("complex_matmul_sum", lambda rng: [f32(rng, (3, 4)), f32(rng, (3, 4)), f32(rng, (4, 2))])
def _(x, y, m):
    z = lax.complex(x, y)
    p = z @ m.astype(jnp.complex64)
    return ri(jnp.sum(p, axis=0) + jnp.sum(z))


@case("rfft2_f64_forward", lambda rng: [f64(rng, (2, 5, 6))], x64=True)
def _(x):
    return ri(jnp.fft.rfft2(x, norm="forward"))


@case("irfftn_f64_3axes_odd", lambda rng: [f64(rng, (2, 3, 4)), f64(rng, (2, 3, 4))], x64=True)
def _(x, y):
    return jnp.fft.irfftn(lax.complex(x, y), s=(2, 3, 7))


@case("fftn_4axes", lambda rng: [f32(rng, (2, 3, 2, 4))])
def _(x):
    return ri(jnp.fft.fftn(x))


@case("ifftn_4axes_ortho", two((2, 2, 3, 2)))
def _(x, y):
    return ri(jnp.fft.ifftn(lax.complex(x, y), norm="ortho"))


@case("rfftn_4axes_odd", lambda rng: [f32(rng, (2, 3, 2, 5))])
def _(x):
    return ri(jnp.fft.rfftn(x))


@case("irfftn_4axes_even", two((2, 2, 3, 3)))
def _(x, y):
    return jnp.fft.irfftn(lax.complex(x, y))


@case("fft_axis_middle_f64", lambda rng: [f64(rng, (3, 5, 2))], x64=True)
def _(x):
    return ri(jnp.fft.fft(x, axis=1, norm="forward"))


@case("angle_complex_and_real", two((3, 4)))
def _(x, y):
    return jnp.angle(lax.complex(x, y)), jnp.angle(x, deg=True)
