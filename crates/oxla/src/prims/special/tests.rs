//! The special functions against XLA:CPU's values.

use super::*;

/// FNV-1a 64 over little-endian bytes (used to compare long outputs).
fn fnv1a(bytes: impl Iterator<Item = u8>) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in bytes {
        h ^= b as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}
pub(crate) fn fnv_u32(v: &[u32]) -> u64 {
    fnv1a(v.iter().flat_map(|w| w.to_le_bytes()))
}
pub(crate) fn fnv_u64(v: &[u64]) -> u64 {
    fnv1a(v.iter().flat_map(|w| w.to_le_bytes()))
}

#[test]
fn xla_log_spot_values() {
    // jnp.log on f32 under jit (XLA:CPU); see spec for where these come from.
    assert_eq!(xla_log_f32(1.0).to_bits(), 0);
    assert_eq!(xla_log_f32(0.0), f32::NEG_INFINITY);
    assert_eq!(xla_log_f32(f32::INFINITY), f32::INFINITY);
    assert!(xla_log_f32(-1.0).is_nan());
    assert_eq!(xla_log_f32(1e-40), f32::NEG_INFINITY);
    let ins = [2.0f32, 0.5, 0.1, 1e-3, 3.0, 0.75];
    let outs = [
        0x3f317218u32,
        0xbf317218,
        0xc0135d8e,
        0xc0dd0c55,
        0x3f8c9f54,
        0xbe934b11,
    ];
    for (x, b) in ins.iter().zip(outs.iter()) {
        assert_eq!(xla_log_f32(*x).to_bits(), *b, "log({x})");
    }
    // Coefficient bit patterns for log1p match XLA's emitted constants.
    for (c, b) in LOG1P_NUM_F64.iter().zip(LOG1P_NUM_F32.iter()) {
        assert_eq!((*c as f32).to_bits(), *b);
    }
    for (c, b) in LOG1P_DEN_F64.iter().zip(LOG1P_DEN_F32.iter()) {
        assert_eq!((*c as f32).to_bits(), *b);
    }
    assert_eq!((LOG1P_SMALL_F64 as f32).to_bits(), LOG1P_SMALL_F32);
}

#[test]
fn erf_inv_f32_spot_values() {
    // jax.scipy.special.erfinv(float32) on XLA:CPU.
    assert_eq!(erf_inv_f32(0.0).to_bits(), 0);
    assert_eq!(erf_inv_f32(0.5).to_bits(), 0x3ef4_30fe);
    assert_eq!(erf_inv_f32(-0.5).to_bits(), 0xbef4_30fe);
    assert_eq!(erf_inv_f32(0.999).to_bits(), 0x4014_e999);
    assert_eq!(erf_inv_f32(0.9999999).to_bits(), 0x406f_9c68);
    assert_eq!(erf_inv_f32(1e-30).to_bits(), 0x0d8f_cc6c);
    assert_eq!(erf_inv_f32(1.0), f32::INFINITY);
    assert_eq!(erf_inv_f32(-1.0), f32::NEG_INFINITY);
    assert!(erf_inv_f32(1.5).is_nan());
}

#[test]
fn erf_inv_f32_sweep_matches_xla() {
    // Inputs: bit patterns k*251 below 1.0, then every f32 in [0x3f7e0000, 1.0).
    let mut out = Vec::new();
    let mut b: u32 = 0;
    while b < 0x3f80_0000 {
        out.push(erf_inv_f32(f32::from_bits(b)).to_bits());
        b += 251;
    }
    for b in 0x3f7e_0000u32..0x3f80_0000 {
        out.push(erf_inv_f32(f32::from_bits(b)).to_bits());
    }
    assert_eq!(out.len(), 4_375_508);
    assert_eq!(fnv_u32(&out), 0x7996db378225592d);
}

#[test]
fn erf_inv_f64_sweep_matches_xla() {
    let mut out = Vec::new();
    for k in 0..(1u64 << 20) {
        out.push(erf_inv_f64(k as f64 / (1u64 << 20) as f64).to_bits());
    }
    for k in 1..(1u64 << 16) {
        out.push(erf_inv_f64(1.0 - k as f64 * 2f64.powi(-40)).to_bits());
    }
    for k in 1..(1u64 << 12) {
        out.push(erf_inv_f64(1.0 - k as f64 * 2f64.powi(-52)).to_bits());
    }
    assert_eq!(out.len(), 1_118_206);
    assert_eq!(fnv_u64(&out), 0x4567cf0e737bf23f);
}
