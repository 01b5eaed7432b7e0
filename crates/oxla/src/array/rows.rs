//! Buffers filled row by row: a loop's stacked results.

use super::Buffer;

/// A buffer filled row by row, in any order (a loop's stacked results): not cleared first,
/// since every row is written; a row left unwritten reads as zeros.
pub(crate) struct Rows {
    buf: Buffer,
    row: usize,
    written: Vec<bool>,
}

impl Rows {
    /// Room for `rows` rows of `row` bytes each.
    #[track_caller]
    pub(crate) fn new(rows: usize, row: usize) -> Rows {
        // SAFETY: `finish` clears every row not written before the buffer is handed out.
        let buf = unsafe { Buffer::uninit(rows * row) };
        Rows {
            buf,
            row,
            written: vec![false; rows],
        }
    }

    /// Writes row `i`.
    pub(crate) fn set(&mut self, i: usize, bytes: &[u8]) {
        let at = i * self.row;
        self.buf.as_mut_bytes()[at..at + self.row].copy_from_slice(bytes);
        self.written[i] = true;
    }

    /// The bytes of one row.
    pub(crate) fn row_bytes(&self) -> usize {
        self.row
    }

    /// Every row cut into pieces at the byte offsets `cuts` (from 0 to the row's length):
    /// piece `p` of each row, by row, for each `p`, to be written by a thread of its own.
    /// Each row counts as written.
    pub(crate) fn bands(&mut self, cuts: &[usize]) -> Vec<Vec<&mut [u8]>> {
        debug_assert!(cuts.first() == Some(&0) && cuts.last() == Some(&self.row) && self.row > 0);
        self.written.fill(true);
        let rows = self.written.len();
        let mut out: Vec<Vec<&mut [u8]>> =
            (1..cuts.len()).map(|_| Vec::with_capacity(rows)).collect();
        for mut row in self.buf.as_mut_bytes().chunks_exact_mut(self.row) {
            for (band, w) in out.iter_mut().zip(cuts.windows(2)) {
                let (piece, rest) = row.split_at_mut(w[1] - w[0]);
                band.push(piece);
                row = rest;
            }
        }
        out
    }

    /// The buffer, its unwritten rows cleared.
    pub(crate) fn finish(mut self) -> Buffer {
        for (i, _) in self.written.iter().enumerate().filter(|(_, &w)| !w) {
            self.buf.as_mut_bytes()[i * self.row..(i + 1) * self.row].fill(0);
        }
        self.buf
    }
}
