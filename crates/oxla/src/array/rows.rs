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

    /// The buffer, its unwritten rows cleared.
    pub(crate) fn finish(mut self) -> Buffer {
        for (i, _) in self.written.iter().enumerate().filter(|(_, &w)| !w) {
            self.buf.as_mut_bytes()[i * self.row..(i + 1) * self.row].fill(0);
        }
        self.buf
    }
}
