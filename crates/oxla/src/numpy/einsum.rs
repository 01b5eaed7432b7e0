//! `einsum`: Einstein summation over subscripts such as `"ij,jk->ik"`.
//!
//! Each operand first loses its size-1 dimensions that broadcast against a larger size,
//! then its repeated labels (a diagonal: the other elements masked to zero with `select_n`,
//! then summed, as JAX does) and the labels no other operand nor the output has (a sum).
//! The operands are then contracted pairwise, left to right, each pair by one
//! `dot_general` whose batch dimensions are the labels both share and a later operand or
//! the output still needs; a final `transpose` orders the output. JAX picks the pairs by
//! opt_einsum's cost model instead; the values agree up to rounding.

use std::collections::BTreeMap;

use super::{promote_dtypes, scalar_tensor, Operand};
use crate::array::DType;
use crate::core::Tensor;
use crate::ops as lax;
use crate::prims::ReduceOp;

/// A label: a letter's code, or `ELLIPSIS + j` for the `j`-th dimension `...` stands for.
type Label = u32;
const ELLIPSIS: Label = 1 << 16;

/// One term of the subscripts: its letters, and where `...` stands among them.
struct Term {
    letters: Vec<Label>,
    ellipsis: Option<usize>,
}

/// Parses one term (`"ij"`, `"...ij"`), panicking at the caller's line on other characters.
#[track_caller]
fn parse_term(s: &str, spec: &str) -> Term {
    let bad = |why: &str| -> ! {
        panic!(
            "einsum: {why} in the subscripts {spec:?}\n  at {}",
            std::panic::Location::caller()
        )
    };
    let (mut letters, mut ellipsis) = (Vec::new(), None);
    let mut rest = s;
    while let Some(c) = rest.chars().next() {
        if let Some(r) = rest.strip_prefix("...") {
            if ellipsis.is_some() {
                bad("more than one ellipsis in a term");
            }
            ellipsis = Some(letters.len());
            rest = r;
        } else if c.is_ascii_alphabetic() {
            letters.push(c as Label);
            rest = &rest[1..];
        } else {
            bad(&format!("invalid character {c:?}"));
        }
    }
    Term { letters, ellipsis }
}

impl Term {
    /// The labels of a rank-`ndim` operand, `...` standing for the last of `width` ellipsis
    /// labels (aligned at the end, as broadcasting aligns shapes).
    #[track_caller]
    fn labels(&self, ndim: usize, width: usize, spec: &str) -> Vec<Label> {
        let k = self.letters.len();
        let Some(at) = self.ellipsis else {
            if k != ndim {
                panic!(
                    "einsum: the term {:?} of {spec:?} has {k} labels for an operand of rank \
                     {ndim}\n  at {}",
                    self.text(),
                    std::panic::Location::caller()
                );
            }
            return self.letters.clone();
        };
        if k > ndim {
            panic!(
                "einsum: the term {:?} of {spec:?} has {k} labels for an operand of rank \
                 {ndim}\n  at {}",
                self.text(),
                std::panic::Location::caller()
            );
        }
        let e = ndim - k;
        let mut v = self.letters[..at].to_vec();
        v.extend((width - e..width).map(|j| ELLIPSIS + j as Label));
        v.extend_from_slice(&self.letters[at..]);
        v
    }

    fn text(&self) -> String {
        let mut s: String = self.letters.iter().map(|&l| l as u8 as char).collect();
        if let Some(at) = self.ellipsis {
            s.insert_str(at, "...");
        }
        s
    }
}

/// Einstein summation of `operands` by `subscripts`, as `jnp.einsum`: explicit
/// (`"ij,jk->ik"`) or implicit output (`"ij,jk"`: the labels used once, in alphabetical
/// order), `...` for broadcast dimensions, repeated labels for diagonals (`"ii->i"`) and
/// traces (`"ii"`). The operands promote to one dtype.
///
/// ```
/// use oxla::numpy as jnp;
/// let a = jnp::arange(6.0).reshape(&[2, 3]);
/// let b = jnp::ones(&[3, 4]);
/// assert_eq!(jnp::einsum("ij,jk->ik", &[a.clone(), b]).shape(), &[2, 4]);
/// assert_eq!(jnp::einsum("ij->", &[a]).item(), 15.0);
/// ```
#[track_caller]
pub fn einsum(subscripts: &str, operands: &[Tensor]) -> Tensor {
    let _line = crate::core::user_line();
    let spec: String = subscripts.chars().filter(|c| !c.is_whitespace()).collect();
    let (lhs, rhs) = match spec.split_once("->") {
        Some((l, r)) => (l, Some(r)),
        None => (spec.as_str(), None),
    };
    let mut terms = Vec::new();
    for s in lhs.split(',') {
        terms.push(parse_term(s, &spec));
    }
    if terms.len() != operands.len() {
        panic!(
            "einsum: the subscripts {spec:?} name {} operands, got {}\n  at {}",
            terms.len(),
            operands.len(),
            std::panic::Location::caller()
        );
    }
    let ops: Vec<Operand> = operands.iter().map(Operand::from).collect();
    let ts = promote_dtypes("einsum", &ops);
    let width = terms
        .iter()
        .zip(&ts)
        .filter(|(term, _)| term.ellipsis.is_some())
        .map(|(term, t)| t.ndim().saturating_sub(term.letters.len()))
        .max()
        .unwrap_or(0);
    let mut labels: Vec<Vec<Label>> = Vec::new();
    for (term, t) in terms.iter().zip(&ts) {
        labels.push(term.labels(t.ndim(), width, &spec));
    }
    // Each label's size: equal across operands, or 1 where it broadcasts.
    let mut size: BTreeMap<Label, usize> = BTreeMap::new();
    for (ls, t) in labels.iter().zip(&ts) {
        for (&l, &n) in ls.iter().zip(t.shape()) {
            let m = size.entry(l).or_insert(n);
            if *m != n && *m != 1 && n != 1 {
                panic!(
                    "einsum: the label {} has sizes {m} and {n} in {spec:?} (shapes {})\n  at {}",
                    name(l),
                    shapes(&ts),
                    std::panic::Location::caller()
                );
            }
            *m = (*m).max(n);
        }
    }
    let out: Vec<Label> = match rhs {
        Some(r) => {
            let term = parse_term(r, &spec);
            let mut v = term.letters[..term.ellipsis.unwrap_or(0)].to_vec();
            if term.ellipsis.is_some() {
                v.extend((0..width).map(|j| ELLIPSIS + j as Label));
            }
            v.extend_from_slice(&term.letters[term.ellipsis.unwrap_or(0)..]);
            for (i, l) in v.iter().enumerate() {
                if v[..i].contains(l) || !size.contains_key(l) {
                    panic!(
                        "einsum: the output label {} of {spec:?} is repeated or names no input \
                         dimension\n  at {}",
                        name(*l),
                        std::panic::Location::caller()
                    );
                }
            }
            v
        }
        None => {
            let mut count: BTreeMap<Label, usize> = BTreeMap::new();
            for &l in labels.iter().flatten() {
                *count.entry(l).or_default() += 1;
            }
            let mut v: Vec<Label> = (0..width).map(|j| ELLIPSIS + j as Label).collect();
            v.extend(
                count
                    .iter()
                    .filter(|&(&l, &c)| c == 1 && l < ELLIPSIS)
                    .map(|(&l, _)| l),
            );
            v
        }
    };
    let dtype = ts[0].dtype();
    let squeezed: Vec<(Tensor, Vec<Label>)> = ts
        .iter()
        .zip(&labels)
        .map(|(t, ls)| squeeze_broadcast(t, ls, &size))
        .collect();
    let mut parts: Vec<(Tensor, Vec<Label>)> = Vec::new();
    for (i, (t, ls)) in squeezed.iter().enumerate() {
        let others = |l: Label| {
            out.contains(&l)
                || squeezed
                    .iter()
                    .enumerate()
                    .any(|(j, (_, o))| j != i && o.contains(&l))
        };
        parts.push(simplify(t, ls, others));
    }
    let mut parts = parts.into_iter();
    let (mut acc, mut acc_labels) = parts.next().expect("one operand at least");
    let rest: Vec<(Tensor, Vec<Label>)> = parts.collect();
    for (k, (b, b_labels)) in rest.iter().enumerate() {
        let needed =
            |l: &Label| out.contains(l) || rest[k + 1..].iter().any(|(_, o)| o.contains(l));
        let shared: Vec<Label> = acc_labels
            .iter()
            .filter(|l| b_labels.contains(l))
            .copied()
            .collect();
        let (batch, contract): (Vec<Label>, Vec<Label>) =
            shared.into_iter().partition(|l| needed(l));
        let pos = |ls: &[Label], want: &[Label]| -> Vec<usize> {
            want.iter()
                .map(|l| ls.iter().position(|m| m == l).expect("a shared label"))
                .collect()
        };
        acc = lax::dot_general(
            &acc,
            b,
            (&pos(&acc_labels, &contract), &pos(b_labels, &contract)),
            (&pos(&acc_labels, &batch), &pos(b_labels, &batch)),
            Some(dtype),
        );
        let free = |ls: &[Label]| -> Vec<Label> {
            ls.iter()
                .filter(|l| !batch.contains(l) && !contract.contains(l))
                .copied()
                .collect()
        };
        acc_labels = [batch.clone(), free(&acc_labels), free(b_labels)].concat();
    }
    let perm: Vec<usize> = out
        .iter()
        .map(|l| {
            acc_labels
                .iter()
                .position(|m| m == l)
                .expect("an output label")
        })
        .collect();
    if perm.iter().enumerate().all(|(i, &p)| i == p) {
        acc
    } else {
        lax::transpose(&acc, &perm)
    }
}

/// One operand with its size-1 dimensions that broadcast against a larger size squeezed
/// away, and its remaining labels.
fn squeeze_broadcast(
    t: &Tensor,
    labels: &[Label],
    size: &BTreeMap<Label, usize>,
) -> (Tensor, Vec<Label>) {
    let ones: Vec<usize> = (0..t.ndim())
        .filter(|&d| t.shape()[d] == 1 && size[&labels[d]] > 1)
        .collect();
    if ones.is_empty() {
        return (t.clone(), labels.to_vec());
    }
    let ls = (0..labels.len())
        .filter(|d| !ones.contains(d))
        .map(|d| labels[d])
        .collect();
    (lax::squeeze(t, &ones), ls)
}

/// One operand with its repeated labels reduced to their diagonal, and the labels `others`
/// does not keep summed.
fn simplify(t: &Tensor, labels: &[Label], others: impl Fn(Label) -> bool) -> (Tensor, Vec<Label>) {
    let mut t = t.clone();
    let mut ls = labels.to_vec();
    // Repeated labels: keep the diagonal (the first occurrence's axis), sum the rest.
    let mut i = 0;
    while i < ls.len() {
        let l = ls[i];
        let axes: Vec<usize> = (0..ls.len()).filter(|&d| ls[d] == l).collect();
        if axes.len() > 1 {
            let first = lax::iota(DType::I32, t.shape(), axes[0]);
            let mut mask = None;
            for &d in &axes[1..] {
                let eq = lax::eq(&first, &lax::iota(DType::I32, t.shape(), d));
                mask = Some(match mask {
                    None => eq,
                    Some(m) => lax::and(&m, &eq),
                });
            }
            let zero = lax::broadcast_in_dim(&scalar_tensor(0.0, t.dtype()), t.shape(), &[]);
            let masked = lax::select_n(&mask.expect("two axes at least"), &[zero, t]);
            t = lax::reduce(&masked, ReduceOp::Sum, &axes[1..]);
            ls = (0..ls.len())
                .filter(|d| !axes[1..].contains(d))
                .map(|d| ls[d])
                .collect();
        }
        i += 1;
    }
    let gone: Vec<usize> = (0..ls.len()).filter(|&d| !others(ls[d])).collect();
    if !gone.is_empty() {
        t = lax::reduce(&t, ReduceOp::Sum, &gone);
        ls = (0..ls.len())
            .filter(|d| !gone.contains(d))
            .map(|d| ls[d])
            .collect();
    }
    (t, ls)
}

/// A label as written: its letter, or `...[j]`.
fn name(l: Label) -> String {
    if l >= ELLIPSIS {
        format!("...[{}]", l - ELLIPSIS)
    } else {
        format!("{:?}", l as u8 as char)
    }
}

fn shapes(ts: &[Tensor]) -> String {
    let v: Vec<String> = ts.iter().map(|t| format!("{:?}", t.shape())).collect();
    v.join(", ")
}
