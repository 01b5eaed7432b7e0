//! The schedule of a kernel, decided when it is compiled: the order of its loops, the one
//! walked in blocks of lanes, the rows of a short innermost loop walked together, and the
//! nodes evaluated at each loop.

use super::ir::{Kernel, NodeOp};
use crate::prims::SHORT_RUN;

/// Lanes per block. Each node's lanes are 4 KiB of `f32`, so a kernel's working set stays
/// in the core's caches, and the dispatch per node and block is spread over many lanes.
pub(super) const LANES: usize = 1024;

/// Bytes of operands a tile of the outermost loop keeps in cache (half a core's L2).
const TILE_BYTES: usize = 1 << 20;

/// How the loops are walked.
#[derive(Clone, Debug)]
pub(super) struct Order {
    /// Loop indices, outermost first.
    pub(super) loops: Vec<usize>,
    /// The vectorised loop.
    pub(super) vector: usize,
    /// Iterations of the innermost loop walked together in one block, side by side after
    /// the vector loop's lanes (1: one at a time); see [`rows`].
    pub(super) rows: usize,
    /// The nodes evaluated on entering each loop position.
    pub(super) at: Vec<Vec<usize>>,
    /// The nodes that depend on no loop, evaluated once.
    pub(super) once: Vec<usize>,
    /// Whether the innermost loop is a reduction only the root (a load) depends on, whose
    /// lanes each reduce a strided run of the buffer directly.
    pub(super) strided: bool,
}

/// Chooses the vector loop: the one most nodes depend on, preferring loops along which
/// loads and stores are contiguous and long loops.
pub(super) fn order(k: &Kernel) -> Order {
    let n = k.loops.len();
    // The lanes of a block along `d`: short last loops walk several rows per block when
    // the kernel allows it (see [`rows`]), the loop before them giving the rows.
    // A reduction's short kept loop walks rows of its innermost reduced loop.
    let lanes = |d: usize| {
        let e = k.loops[d];
        let rows_of = match &k.reduce {
            None if d + 1 == n && d > 0 => Some(d - 1),
            Some((_, flags)) if !flags[d] => flags.iter().rposition(|&f| f).filter(|&u| long(k, u)),
            _ => None,
        };
        match rows_of {
            Some(u) if e <= LANES / 2 && rowwise(k) => (e * k.loops[u]).min(LANES),
            _ => e.min(LANES),
        }
    };
    let score = |d: usize| {
        let mut s = 0.0;
        for node in &k.nodes {
            if node.deps & (1 << d) != 0 {
                s += 1.0;
            }
            if let NodeOp::Load { offset, .. } | NodeOp::Gather { window: offset, .. } = &node.op {
                if offset.coef[d] == 1 {
                    s += 2.0;
                }
            }
        }
        // Without a reduction, a result is stored per point: contiguously along the last
        // loop.
        if k.reduce.is_none() && d + 1 == n {
            s += 4.0;
        }
        s * (lanes(d) as f64).sqrt()
    };
    let vector = (0..n)
        .max_by(|&a, &b| score(a).total_cmp(&score(b)).then(b.cmp(&a)))
        .unwrap_or(0);
    let mut loops: Vec<usize> = Vec::with_capacity(n);
    if n > 0 && !k.reduced(vector) {
        loops.push(vector);
    }
    loops.extend((0..n).filter(|&d| d != vector && !k.reduced(d)));
    loops.extend((0..n).filter(|&d| d != vector && k.reduced(d)));
    if n > 0 && k.reduced(vector) {
        loops.push(vector);
    }
    Order::new(k, vector, loops)
}

/// Rows of the innermost loop to walk in one block: a short vector loop (a bias added to
/// rows of 256) would otherwise run a block of few lanes per row, and pay each node's
/// dispatch per row. Lane `r * e + c` of a block is then row `r`, element `c` of the
/// vector loop (of extent `e`). A node of the vector loop alone is tiled across the rows
/// once, where it is evaluated; a node of the rows alone (a value per row, broadcast
/// along the vector loop) holds every lane, its value repeated along each row.
///
/// A reduction over its innermost loop with a short kept vector loop (a bias gradient:
/// the sum over positions of rows of 8 features) walks rows of the reduced loop: lane
/// `r * e + c` accumulates the rows `r` apart, and the rows are combined when the
/// reduced loops end. Its groups of rows are made even, so that none is nearly empty.
/// (Only a long reduced loop: see [`long`].)
pub(super) fn rows(k: &Kernel, order: &Order) -> usize {
    let (Some(&u), v) = (order.loops.last(), order.vector) else {
        return 1;
    };
    let e = k.loops[v];
    if !rowwise(k) || u == v || e == 0 || e > LANES / 2 {
        return 1;
    }
    let most = (LANES / e).min(k.loops[u]).max(1);
    match &k.reduce {
        None => most,
        Some(_) => {
            let root = k.nodes.last().map_or(0, |node| node.deps);
            if order.strided || k.reduced(v) || root & (1 << v) == 0 || !long(k, u) {
                return 1;
            }
            k.loops[u].div_ceil(k.loops[u].div_ceil(most))
        }
    }
}

/// Whether reduced loop `u` is long enough to walk in rows. A short one gains little, and
/// keeps its schedule: a row sum of a few elements stays folded across a block's lanes,
/// as an eager sum folds a run (the same sums, bit for bit).
fn long(k: &Kernel, u: usize) -> bool {
    k.loops[u] >= SHORT_RUN
}

/// Whether a kernel may walk several rows per block: one without a gather.
fn rowwise(k: &Kernel) -> bool {
    !k.nodes
        .iter()
        .any(|node| matches!(node.op, NodeOp::Gather { .. }))
}

impl Order {
    /// The order walking `loops` (outermost first) with `vector` vectorised.
    pub(super) fn new(k: &Kernel, vector: usize, loops: Vec<usize>) -> Order {
        let n = k.loops.len();
        let pos: Vec<usize> = (0..n)
            .map(|d| {
                loops
                    .iter()
                    .position(|&l| l == d)
                    .expect("every loop placed")
            })
            .collect();
        let mut at = vec![Vec::new(); n.max(1)];
        let mut once = Vec::new();
        for (i, node) in k.nodes.iter().enumerate() {
            let level = (0..n)
                .filter(|&d| node.deps & (1 << d) != 0)
                .map(|d| pos[d])
                .max();
            match level {
                Some(p) => at[p].push(i),
                None => once.push(i),
            }
        }
        let root = k.nodes.len().saturating_sub(1);
        let strided = loops.last().is_some_and(|&d| {
            let runs = matches!(
                k.nodes.last().map(|node| &node.op),
                Some(NodeOp::Load { .. } | NodeOp::Gather { .. })
            );
            runs && k.reduced(d) && d != vector && at[n - 1] == [root]
        });
        Order {
            loops,
            vector,
            rows: 1,
            at,
            once,
            strided,
        }
    }

    /// The order in words: `k`'s loops, the reduced ones, the order they are walked in and
    /// the block of lanes of the vector loop.
    pub(super) fn describe(&self, k: &Kernel) -> String {
        let reduced: Vec<usize> = (0..k.loops.len()).filter(|&d| k.reduced(d)).collect();
        let lanes = k.loops.get(self.vector).map_or(1, |&e| e.min(LANES));
        let mut s = format!("loops {:?}", k.loops);
        if !reduced.is_empty() {
            s += &format!(", reducing {reduced:?}");
        }
        s += &format!(
            ", walked {:?}, loop {} in blocks of {lanes} lanes",
            self.loops, self.vector
        );
        if let (true, Some(u)) = (self.rows > 1, self.loops.last()) {
            s += &format!(" times {} rows of loop {u}", self.rows);
        }
        if self.strided {
            s += ", the innermost loop's runs folded from memory";
        }
        s
    }

    /// The steps one iteration of loop `d` takes: a block of lanes of the vector loop, a
    /// group of rows of the innermost loop, else one.
    pub(super) fn step(&self, d: usize) -> usize {
        if d == self.vector {
            LANES
        } else if self.rows > 1 && self.loops.last() == Some(&d) {
            self.rows
        } else {
            1
        }
    }

    /// A tile size for the outermost loop, when the two outermost loops are kept (not
    /// reduced or vectorised), the second one's operands are too large to stay in cache
    /// across iterations of the first, and the first one's are small: walking a tile of
    /// the first loop inside the second reads each of the second's operands once per tile
    /// (from memory) and the tile's operands from cache.
    pub(super) fn tile(&self, k: &Kernel) -> Option<usize> {
        let [a, b, ..] = self.loops[..] else {
            return None;
        };
        if [a, b].iter().any(|&d| k.reduced(d) || d == self.vector) {
            return None;
        }
        // Bytes one iteration of a loop reads through loads that depend on it and not on
        // the other one.
        let row = |this: usize, other: usize| -> usize {
            k.nodes
                .iter()
                .filter(|n| matches!(n.op, NodeOp::Load { .. } | NodeOp::Gather { .. }))
                .filter(|n| n.deps & (1 << this) != 0 && n.deps & (1 << other) == 0)
                .map(|n| {
                    let inner: usize = self.loops[2..]
                        .iter()
                        .filter(|&&d| n.deps & (1 << d) != 0)
                        .map(|&d| k.loops[d])
                        .product();
                    inner.saturating_mul(n.dtype.size())
                })
                .fold(0, usize::saturating_add)
        };
        let (row_a, row_b) = (row(a, b), row(b, a));
        let tile = TILE_BYTES / row_a.max(1);
        let streamed = row_b.saturating_mul(k.loops[b]) > TILE_BYTES;
        (row_a > 0 && streamed && tile >= 2 && tile < k.loops[a]).then_some(tile)
    }
}
