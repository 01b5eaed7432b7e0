//! Reading a large `.npy` file costs the array and nothing of its size besides: the data
//! is read straight into the array's buffer. One test in its own process, so that the
//! peak resident memory is its own.
//!
//! The file is `OXLA_NPY_RSS_MIB` MiB of f32 (256 by default, to keep CI short; the
//! 2 GiB figure of issue 17 is `OXLA_NPY_RSS_MIB=2048`), written to the temp dir in small
//! chunks and deleted after.

mod rss;

use std::io::Write;

use oxla::{memory, Tensor};
use rss::{peak_rss, reset_peak_rss};

const MIB: usize = 1 << 20;

/// A file under the temp dir, removed when dropped.
struct TempFile(std::path::PathBuf);

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

#[test]
fn reading_a_large_npy_peaks_at_its_size() {
    let mib: usize = std::env::var("OXLA_NPY_RSS_MIB").ok().map_or(256, |v| {
        v.parse().expect("OXLA_NPY_RSS_MIB is a number of MiB")
    });
    let n = mib * MIB / 4;
    let file =
        TempFile(std::env::temp_dir().join(format!("oxla-npy-rss-{}.npy", std::process::id())));
    {
        let mut w = std::io::BufWriter::new(std::fs::File::create(&file.0).unwrap());
        let dict = format!("{{'descr': '<f4', 'fortran_order': False, 'shape': ({n},), }}");
        let len = (10 + dict.len() + 1).next_multiple_of(64) - 10;
        w.write_all(b"\x93NUMPY\x01\x00").unwrap();
        w.write_all(&(len as u16).to_le_bytes()).unwrap();
        let width = len - 1;
        w.write_all(format!("{dict:width$}\n").as_bytes()).unwrap();
        let chunk: Vec<u8> = (0..MIB / 4)
            .flat_map(|i| (i as f32).to_le_bytes())
            .collect();
        for _ in 0..mib {
            w.write_all(&chunk).unwrap();
        }
        w.flush().unwrap();
    }
    memory::release_held();
    let before = reset_peak_rss();
    let t = Tensor::read_npy(&file.0).unwrap();
    let peak = peak_rss();
    let size = t.array().nbytes();
    assert_eq!(size, mib * MIB);
    eprintln!(
        "read {} MiB: resident before {} MiB, peak {} MiB ({:.3}x the file's data)",
        size / MIB,
        before / MIB,
        peak / MIB,
        peak as f64 / size as f64
    );
    // The old reader held the whole file, then a second buffer: three times the data.
    assert!(
        peak <= size + size / 10,
        "the peak was {} MiB for {} MiB of data",
        peak / MIB,
        size / MIB
    );
    let v = t.array().as_slice::<f32>();
    assert_eq!((v[0], v[7], v[MIB / 4 + 3]), (0.0, 7.0, 3.0));
    assert_eq!(v[n - 1], (MIB / 4 - 1) as f32);
}
