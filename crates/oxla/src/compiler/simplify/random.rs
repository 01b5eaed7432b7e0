//! Random bits: where a program reads a `threefry2x32`'s words as `y0 ^ y1` (JAX's 32
//! random bits), or one word at a time (its 64 random bits), the cipher computes just that
//! word where it is read. The one-word cipher is elementwise, so it fuses into the kernel
//! that turns the bits into values: they are never stored.

use super::Pass;
use crate::core::{Atom, Eqn, Prim};
use crate::prims::BinaryOp;
use crate::prims::ThreefryWords;

impl Pass {
    /// The two-word cipher that computes `a`, and which of its words `a` is.
    fn cipher_word(&self, a: &Atom) -> Option<(Eqn, usize)> {
        let Atom::Var(v) = a else { return None };
        let e = self.producer.get(&v.id)?;
        if e.prim
            != (Prim::Threefry2x32 {
                words: ThreefryWords::Both,
            })
        {
            return None;
        }
        let i = e.outputs.iter().position(|o| o.id == v.id)?;
        Some((e.clone(), i))
    }

    /// `xor(y0, y1)` of one cipher's two words is the cipher's `xor` word.
    pub(super) fn cipher_xor(&mut self, e: &Eqn) -> bool {
        if e.prim != Prim::Binary(BinaryOp::Xor) {
            return false;
        }
        let (Some((c, i)), Some((d, j))) = (
            self.cipher_word(&e.inputs[0]),
            self.cipher_word(&e.inputs[1]),
        ) else {
            return false;
        };
        if c.outputs[0].id != d.outputs[0].id || i == j {
            return false;
        }
        self.changed = true;
        self.rewrite(Eqn {
            prim: Prim::Threefry2x32 {
                words: ThreefryWords::Xor,
            },
            inputs: c.inputs,
            outputs: e.outputs.clone(),
            source: e.source,
        });
        true
    }

    /// An equation reading one word of a two-word cipher reads that word computed alone
    /// (the high or the low one), so that the cipher fuses into it.
    pub(super) fn cipher_words_apart(&mut self, e: &Eqn) -> bool {
        if matches!(e.prim, Prim::Threefry2x32 { .. }) {
            return false;
        }
        let mut inputs = e.inputs.clone();
        let mut apart = false;
        for a in inputs.iter_mut() {
            let Some((c, i)) = self.cipher_word(a) else {
                continue;
            };
            let words = if i == 0 {
                ThreefryWords::Hi
            } else {
                ThreefryWords::Lo
            };
            let out = self.fresh(crate::array::DType::U32, &c.outputs[i].aval.shape);
            self.rewrite(Eqn {
                prim: Prim::Threefry2x32 { words },
                inputs: c.inputs,
                outputs: vec![out.clone()],
                source: c.source,
            });
            *a = self.sub(&Atom::Var(out));
            apart = true;
        }
        if !apart {
            return false;
        }
        self.changed = true;
        self.rewrite(Eqn {
            prim: e.prim.clone(),
            inputs,
            outputs: e.outputs.clone(),
            source: e.source,
        });
        true
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::assert_simplifies;
    use crate::array::{Array, DType};
    use crate::core::Tensor;
    use crate::ops as lax;

    fn words() -> Tensor {
        Tensor::new(Array::zeros(DType::U32, &[8]))
    }

    #[test]
    fn the_xor_of_both_words_is_the_xor_word() {
        assert_simplifies(
            |(k, x): (Tensor, Tensor)| {
                let (y0, y1) = lax::threefry2x32(&k, &k, &x, &x);
                lax::xor(&y0, &y1)
            },
            (words(), words()),
            "\
{ lambda ; a:u32[8] b:u32[8]. let
    c:u32[8] d:u32[8] = threefry2x32 a a b b
    e:u32[8] = xor c d
  in (e,) }",
            "\
{ lambda ; a:u32[8] b:u32[8]. let
    c:u32[8] = threefry_bits[word=xor] a a b b
  in (c,) }",
        );
    }

    #[test]
    fn words_read_apart_are_computed_apart_and_both_words_kept_for_outputs() {
        assert_simplifies(
            |(k, x): (Tensor, Tensor)| {
                let (y0, y1) = lax::threefry2x32(&k, &k, &x, &x);
                (lax::add(&y0, &y0), lax::bitwise_not(&y1), y1)
            },
            (words(), words()),
            "\
{ lambda ; a:u32[8] b:u32[8]. let
    c:u32[8] d:u32[8] = threefry2x32 a a b b
    e:u32[8] = add c c
    f:u32[8] = not d
  in (e, f, d) }",
            "\
{ lambda ; a:u32[8] b:u32[8]. let
    c:u32[8] d:u32[8] = threefry2x32 a a b b
    e:u32[8] = threefry_bits[word=hi] a a b b
    f:u32[8] = add e e
    g:u32[8] = threefry_bits[word=lo] a a b b
    h:u32[8] = not g
  in (f, h, d) }",
        );
    }
}
