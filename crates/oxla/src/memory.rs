//! Memory you can see: the static memory plan of a compiled program, reported before it runs.

use crate::source::Source;
use std::fmt;

use crate::array::Aval;
use crate::error::LargestBuffer;

pub use crate::array::limit::{
    device_memory_limit, memory_limit, set_device_memory_limit, set_memory_limit,
};
pub use crate::env::format_bytes;

pub use crate::error::BufferKind;

/// One buffer of a memory plan, traced to the equation and source line that made it.
#[derive(Clone, Debug)]
pub struct BufferInfo {
    /// Size in bytes.
    pub bytes: usize,
    /// Dtype and shape.
    pub aval: Aval,
    /// What the buffer holds.
    pub kind: BufferKind,
    /// The primitive that computes it (empty for arguments and constants).
    pub primitive: &'static str,
    /// The index of that equation in the compiled jaxpr.
    pub equation: Option<usize>,
    /// The user's source line of that equation.
    pub source: Option<Source>,
}

/// The memory plan of a compiled program: known before it runs, exact for the plan.
///
/// ```
/// use oxla::{jit, numpy as jnp, Tensor};
/// let f = jit(|x: Tensor| (jnp::exp(&x) * 2.0).sum(None));
/// let compiled = f.lower(&jnp::ones(&[1000])).compile();
/// let m = compiled.memory_analysis();
/// assert_eq!(m.argument_bytes, 4000);
/// assert_eq!(m.output_bytes, 4);
/// println!("{m}");
/// ```
#[derive(Clone, Debug, Default)]
pub struct MemoryAnalysis {
    /// Bytes of the arguments.
    pub argument_bytes: usize,
    /// Bytes of the results.
    pub output_bytes: usize,
    /// Bytes of constants held by the program.
    pub constant_bytes: usize,
    /// Most bytes of intermediate values live at one time (not counting
    /// [`scratch_bytes`](Self::scratch_bytes)).
    pub temp_bytes: usize,
    /// Most bytes live at one time: arguments, constants, intermediates, results and the
    /// working memory of the step running then. An upper bound of what a call allocates.
    pub peak_bytes: usize,
    /// Working memory of the step at the peak beyond its operands and results (a kernel's
    /// lane buffers, a sort's merge buffer, `gemm`'s packed panels), counted in the peak.
    pub scratch_bytes: usize,
    /// The equation at which the peak is reached.
    pub peak_equation: Option<usize>,
    /// The largest buffers live at the peak, largest first.
    pub largest: Vec<BufferInfo>,
    /// Results written into the buffer of an input that dies with them.
    pub in_place_results: usize,
    /// Results written into a buffer the step before freed.
    pub reused_buffers: usize,
    /// Bytes live during each step of the program, in order (the peak is their maximum).
    pub live_bytes: Vec<usize>,
    /// The primitive each step computes (a fused kernel's root), in the same order.
    pub step_primitives: Vec<&'static str>,
    /// The chunked maps of the program (`vmap(f).chunk_size(k)` and the like): their chunk
    /// sizes and what one chunk holds.
    pub chunks: Vec<ChunkPlan>,
    /// Each device's plan in the program's maps over devices (`pmap`, `shard_map`,
    /// `vmap(f).devices`), device by device.
    pub devices: Vec<DevicePlan>,
}

/// What one device of a map over devices plans to hold while it runs its block.
#[derive(Clone, Debug)]
pub struct DevicePlan {
    /// The device, counted over every process the map spans, rank by rank.
    pub device: usize,
    /// The processes (MPI ranks) whose devices the map spans; 1 within this process.
    pub processes: usize,
    /// The length of its block along the mapped dimension (for `vmap(f).devices`, its
    /// examples).
    pub rows: usize,
    /// The most bytes its program holds at once: its blocks, the operands it shares with
    /// the other devices, its intermediates and its results.
    pub peak_bytes: usize,
    /// Of those, the operands every device shares (held once, not per device).
    pub shared_bytes: usize,
    /// Its largest buffer at its peak, with the equation and the user's line that make it.
    pub largest: Option<BufferInfo>,
    /// A chunk size for its block under which it fits the device limit, when the map is a
    /// `vmap(f).devices` planned under one.
    pub fitting_chunk_size: Option<usize>,
    /// The user's source line of the map.
    pub source: Source,
    /// The step of the program that runs the map.
    pub step: usize,
}

impl DevicePlan {
    /// The error for a call in which this device's plan exceeds `limit` bytes.
    pub(crate) fn out_of_memory(&self, limit: usize) -> crate::Error {
        let advice = self.fitting_chunk_size.map_or(String::new(), |k| {
            format!(
                "; device {} fits its block in chunks of {k} (vmap(..).devices(..).chunk_size({k}) \
                 or .memory_budget)",
                self.device
            )
        });
        crate::Error::OutOfMemory {
            needed: self.peak_bytes,
            limit: Some(limit),
            refused: None,
            largest: self.largest.as_ref().map(LargestBuffer::from_info),
            fitting_chunk_size: self.fitting_chunk_size,
            advice,
            device: Some(self.device),
        }
    }
}

/// What one chunked map of a program plans to hold while it runs.
#[derive(Clone, Debug)]
pub struct ChunkPlan {
    /// The number of examples.
    pub length: usize,
    /// Examples per chunk.
    pub chunk: usize,
    /// Bytes the map holds beyond its operands and results while a chunk runs.
    pub chunk_bytes: usize,
    /// The user's source line of the map.
    pub source: Source,
    /// The step of the program that runs the map.
    pub step: usize,
    /// Bytes live while the map runs that are not its own (neither its operands, its
    /// results nor a chunk's working memory).
    pub outside_bytes: usize,
}

thread_local! {
    /// The chunked map whose chunk size an out-of-memory error is checking, and the
    /// budget it is being planned under instead of its own chunk size.
    static REPLAN: std::cell::Cell<Option<(Source, usize)>> =
        const { std::cell::Cell::new(None) };
}

/// Runs `f` (a trace of the user's function) with the chunked map staged at `source`
/// sized by `budget` instead of its own chunk size.
pub(crate) fn with_budget<T>(source: Source, budget: usize, f: impl FnOnce() -> T) -> T {
    crate::env::scoped(&REPLAN, Some((source, budget)), f)
}

/// The budget the chunked map staged at `here` is being planned under, if an out-of-memory
/// error's advice is planning it (see [`with_budget`]).
pub(crate) fn replanned_budget(here: Source) -> Option<usize> {
    REPLAN
        .get()
        .and_then(|(source, budget)| (source == here).then_some(budget))
}

fn xml_escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

impl LargestBuffer {
    /// The buffer `b` of a plan, as an error names it.
    fn from_info(b: &BufferInfo) -> Box<LargestBuffer> {
        Box::new(LargestBuffer {
            bytes: b.bytes,
            dtype: b.aval.dtype.short_name(),
            shape: b.aval.shape.to_vec(),
            kind: b.kind,
            primitive: b.primitive,
            equation: b.equation,
            source: b.source,
        })
    }
}

impl fmt::Display for MemoryAnalysis {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "memory plan")?;
        writeln!(f, "  arguments  {:>12}", format_bytes(self.argument_bytes))?;
        writeln!(f, "  constants  {:>12}", format_bytes(self.constant_bytes))?;
        writeln!(f, "  temporary  {:>12}", format_bytes(self.temp_bytes))?;
        writeln!(f, "  outputs    {:>12}", format_bytes(self.output_bytes))?;
        if self.scratch_bytes > 0 {
            writeln!(
                f,
                "  scratch    {:>12}  (at the peak)",
                format_bytes(self.scratch_bytes)
            )?;
        }
        write!(f, "  peak       {:>12}", format_bytes(self.peak_bytes))?;
        if let Some(e) = self.peak_equation {
            write!(f, "  (at equation {e})")?;
        }
        if self.in_place_results + self.reused_buffers > 0 {
            write!(
                f,
                "\n  reuse      {} results in place, {} in freed buffers",
                self.in_place_results, self.reused_buffers
            )?;
        }
        for d in &self.devices {
            write!(
                f,
                "\n  device {:<3} {} rows, peak {} ({} shared){} at {}",
                d.device,
                d.rows,
                format_bytes(d.peak_bytes),
                format_bytes(d.shared_bytes),
                d.largest.as_ref().map_or(String::new(), |b| format!(
                    ", largest {} {}{}",
                    format_bytes(b.bytes),
                    b.aval,
                    b.source
                        .map_or(String::new(), |l| format!(" ({}:{})", l.file(), l.line()))
                )),
                d.source
            )?;
        }
        for c in &self.chunks {
            write!(
                f,
                "\n  chunked   {} examples in chunks of {} ({} per chunk) at {}",
                c.length,
                c.chunk,
                format_bytes(c.chunk_bytes),
                c.source
            )?;
        }
        if self.largest.is_empty() {
            return Ok(());
        }
        writeln!(f, "\n  largest buffers live at the peak:")?;
        writeln!(
            f,
            "  {:>12}  {:<22} {:<10} {:<22} {:>5}  source",
            "bytes", "aval", "kind", "primitive", "eqn"
        )?;
        for (i, b) in self.largest.iter().enumerate() {
            let kind = match b.kind {
                BufferKind::Argument => "argument",
                BufferKind::Constant => "constant",
                BufferKind::Temporary => "temporary",
                BufferKind::Output => "output",
            };
            let eqn = b.equation.map_or("-".to_string(), |e| e.to_string());
            let src = b.source.map_or("-".to_string(), |l| l.to_string());
            write!(
                f,
                "  {:>12}  {:<22} {:<10} {:<22} {:>5}  {src}",
                format_bytes(b.bytes),
                b.aval.to_string(),
                kind,
                if b.primitive.is_empty() {
                    "-"
                } else {
                    b.primitive
                },
                eqn
            )?;
            if i + 1 < self.largest.len() {
                writeln!(f)?;
            }
        }
        Ok(())
    }
}

/// Bytes of freed large buffers (1 MiB and more) that oxla holds for reuse.
///
/// A program called again allocates the same large results as before; the buffers the
/// caller dropped are handed out again, their pages already mapped, instead of memory
/// fresh from the system that must be faulted in and cleared page by page. Holding raises
/// the peak of large buffers by an eighth at most: an allocation of 1 MiB or more that no
/// held buffer fits first releases the smallest held ones until the held and the live
/// large buffers together take no more than the most that were ever alive at once, and an
/// eighth of that (room for a program whose buffers are not all alive at its peak). The held
/// bytes stay resident, outside every plan, and [`release_held`] returns them. While a memory limit is in force
/// ([`set_memory_limit`], `OXLA_MEMORY_LIMIT`) nothing is held.
///
/// ```
/// use oxla::{jit, memory, numpy as jnp, Tensor};
/// let f = jit(|x: Tensor| &x * 2.0);
/// drop(f.call(jnp::ones(&[1 << 21]))?); // an 8 MiB result, dropped
/// assert!(memory::held_bytes() >= 8 << 20);
/// memory::release_held();
/// assert_eq!(memory::held_bytes(), 0);
/// # Ok::<(), oxla::Error>(())
/// ```
pub fn held_bytes() -> usize {
    crate::array::held_bytes()
}

/// Returns the buffers counted by [`held_bytes`] to the system.
pub fn release_held() {
    crate::array::release_held()
}

/// A size such as `"2GiB"`, `"2Gi"`, `"1.5 GB"`, `"2G"`, `"640k"`, `"2e9"` or `"1000000"`
/// in bytes. Units are case-insensitive, with or without a final `B`: `k`, `M`, `G`, `T`
/// are powers of 1000 (as JAX and the SI write them), `Ki`, `Mi`, `Gi`, `Ti` powers of
/// 1024. A fraction of a byte is dropped; a size below one byte other than 0 (`"0.5"`) is
/// not a size.
///
/// ```
/// use oxla::memory::parse_bytes;
/// assert_eq!(parse_bytes("2Gi"), Some(2 << 30));
/// assert_eq!(parse_bytes("2G"), Some(2_000_000_000));
/// assert_eq!(parse_bytes("0.5"), None);
/// ```
pub fn parse_bytes(s: &str) -> Option<usize> {
    crate::env::bytes(s).ok()
}

impl MemoryAnalysis {
    /// The error for a call whose plan exceeds `limit` bytes: its peak and its largest
    /// buffer, with the equation and source line that make it (and no advice).
    pub(crate) fn out_of_memory(&self, limit: usize) -> crate::Error {
        crate::Error::OutOfMemory {
            needed: self.peak_bytes,
            limit: Some(limit),
            refused: None,
            largest: self.largest_buffer(),
            // Advice is given by `jit`, which can plan the program again to check it.
            fitting_chunk_size: None,
            advice: String::new(),
            device: None,
        }
    }

    /// The error for a call of this plan whose allocation of `bytes` the system refused.
    pub(crate) fn refused(&self, bytes: usize) -> crate::Error {
        crate::Error::OutOfMemory {
            needed: self.peak_bytes,
            limit: memory_limit(),
            refused: Some(bytes),
            largest: self.largest_buffer(),
            fitting_chunk_size: None,
            advice: String::new(),
            device: None,
        }
    }

    /// The largest buffer at the peak, with the equation and source line that make it.
    pub(crate) fn largest_buffer(&self) -> Option<Box<LargestBuffer>> {
        self.largest.first().map(LargestBuffer::from_info)
    }

    /// An SVG chart of the live bytes over the program's steps, the peak step marked and
    /// labelled with its largest buffer and source line (`--memory-svg` in the examples).
    pub fn to_svg(&self) -> String {
        let (w, h, top, left) = (900.0, 360.0, 50.0, 80.0);
        let steps = self.live_bytes.len().max(1);
        let max = self.live_bytes.iter().copied().max().unwrap_or(0).max(1) as f64;
        let bar = (w - left - 20.0) / steps as f64;
        let plot = h - top - 40.0;
        let mut svg = format!(
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" \
             font-family=\"monospace\" font-size=\"12\">\n\
             <rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n\
             <text x=\"{left}\" y=\"20\" font-size=\"14\">live bytes per step: peak {} \
             at step {}</text>\n",
            format_bytes(self.peak_bytes),
            self.peak_equation.map_or("-".into(), |e| e.to_string()),
        );
        if let Some(b) = self.largest.first() {
            let at = b
                .source
                .map_or("-".into(), |l| format!("{}:{}", l.file(), l.line()));
            svg += &format!(
                "<text x=\"{left}\" y=\"38\">largest there: {} {} ({}) at {}</text>\n",
                format_bytes(b.bytes),
                b.aval,
                if b.primitive.is_empty() {
                    "argument"
                } else {
                    b.primitive
                },
                xml_escape(&at)
            );
        }
        for (i, &bytes) in self.live_bytes.iter().enumerate() {
            let bh = plot * bytes as f64 / max;
            let fill = if Some(i) == self.peak_equation {
                "#d62728"
            } else {
                "#1f77b4"
            };
            svg += &format!(
                "<rect x=\"{:.2}\" y=\"{:.2}\" width=\"{:.2}\" height=\"{:.2}\" \
                 fill=\"{fill}\"><title>step {i} ({}): {}</title></rect>\n",
                left + i as f64 * bar,
                top + plot - bh,
                (bar * 0.9).max(0.5),
                bh,
                self.step_primitives.get(i).copied().unwrap_or("-"),
                format_bytes(bytes)
            );
        }
        svg += &format!(
            "<text x=\"4\" y=\"{:.0}\">{}</text>\n<text x=\"4\" y=\"{:.0}\">0</text>\n\
             <text x=\"{left}\" y=\"{:.0}\">step (0 .. {})</text>\n</svg>\n",
            top + 10.0,
            format_bytes(max as usize),
            top + plot,
            h - 12.0,
            steps - 1
        );
        svg
    }

    /// The memory budget under which a chunked map of the program fits `limit`, with that
    /// map: the limit less what is live beside the map while it runs. `None` unless the
    /// program has a chunked map, every other step fits, and the map's operands and
    /// results leave room for a chunk. A map given that budget
    /// (`vmap(..).memory_budget(bytes)`) plans its chunk sizes and takes the largest
    /// whose plan fits it, so the program then fits the limit.
    pub fn fitting_budget(&self, limit: usize) -> Option<(usize, &ChunkPlan)> {
        let c = self.chunks.iter().max_by_key(|c| c.chunk_bytes)?;
        let others_fit = self
            .live_bytes
            .iter()
            .enumerate()
            .all(|(i, &b)| i == c.step || b <= limit);
        let live = *self.live_bytes.get(c.step)?;
        // The map's operands and results, which no chunk size changes.
        let fixed = live.saturating_sub(c.outside_bytes + c.chunk_bytes);
        let budget = limit.checked_sub(c.outside_bytes)?;
        (others_fit && budget > fixed).then_some((budget, c))
    }
}
