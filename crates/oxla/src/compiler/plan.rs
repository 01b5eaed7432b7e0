//! The memory plan: every value's last use is data in the plan, so the live bytes at each
//! step — and so the peak — are known before anything runs.
//!
//! The plan is over the program's steps (fused kernels and primitives run alone), so values
//! kept inside a kernel take no memory at all. Values are freed right after their last
//! use; results of `reshape` and `squeeze`, and leading rows sliced off a value
//! (`row_view.rs`), share their operand's buffer and extend its life instead of taking
//! bytes of their own.

use std::collections::HashMap;

use super::fuse::Step;
use super::row_view::{row_view, RowView};
use crate::core::prim::Kind;
use crate::core::{Atom, ClosedJaxpr, Prim};
use crate::memory::{BufferInfo, BufferKind, ChunkPlan, DevicePlan, MemoryAnalysis};

/// The lifetime facts the executor follows.
#[derive(Debug)]
pub(crate) struct Plan {
    /// For each step, the variables whose last use it is (freed after it runs).
    pub(crate) frees: Vec<Vec<u32>>,
    /// For each kernel step, the input slot whose buffer (dying there) takes its result.
    pub(crate) in_place: Vec<Option<usize>>,
    /// For each kernel step, a buffer of its result's size freed by the step before,
    /// which the result takes instead of a new one.
    pub(crate) reuse: Vec<Option<u32>>,
    /// For each kernel step that only slices leading rows, those rows (shared, not copied).
    pub(crate) row_views: Vec<Option<RowView>>,
    /// The report.
    pub(crate) analysis: MemoryAnalysis,
}

/// How many buffers the report lists.
const LARGEST: usize = 8;

/// The buffer a variable's bytes live in: its own, or (for views) its operand's.
fn owner(aliases: &HashMap<u32, u32>, mut id: u32) -> u32 {
    while let Some(&o) = aliases.get(&id) {
        id = o;
    }
    id
}

pub(crate) fn plan(cj: &ClosedJaxpr, steps: &[Step]) -> Plan {
    let j = &cj.jaxpr;
    let n = steps.len();
    let end = n; // "used by the caller": past the last equation
    let mut aliases: HashMap<u32, u32> = HashMap::new();
    let mut info: HashMap<u32, BufferInfo> = HashMap::new();
    let mut born: HashMap<u32, usize> = HashMap::new();
    let mut last: HashMap<u32, usize> = HashMap::new();
    let buffer = |aval: &crate::core::Aval, kind, primitive, equation, source| BufferInfo {
        bytes: aval.nbytes(),
        aval: aval.clone(),
        kind,
        primitive,
        equation,
        source,
    };
    for v in &j.constvars {
        info.insert(v.id, buffer(&v.aval, BufferKind::Constant, "", None, None));
        born.insert(v.id, 0);
        last.insert(v.id, end);
    }
    for v in &j.invars {
        info.insert(v.id, buffer(&v.aval, BufferKind::Argument, "", None, None));
        born.insert(v.id, 0);
        last.insert(v.id, end);
    }
    // Every step holds working memory while it runs, beyond its operands and results: a
    // kernel its lane buffers, a primitive its kernel's scratch, a loop one step's (or
    // chunk's) buffers.
    let mut transient = vec![0usize; n];
    let mut scratch = vec![0usize; n];
    let mut transient_buffers: HashMap<usize, Vec<BufferInfo>> = HashMap::new();
    let mut chunk_plans = Vec::new();
    let mut device_plans = Vec::new();
    for (i, step) in steps.iter().enumerate() {
        if let Step::Kernel(k) = step {
            scratch[i] = super::kernel::scratch_bytes(k);
        }
        if let Step::Prim(e) = step {
            let e = &j.eqns[*e];
            let avals: Vec<_> = e.inputs.iter().map(|a| a.aval()).collect();
            scratch[i] = e.prim.scratch_bytes(&avals);
            if let Prim::Control(c) = &e.prim {
                let (bytes, largest) = c.working_bytes();
                transient[i] = bytes;
                let per_chunk = largest.into_iter().map(|b| BufferInfo {
                    equation: Some(i),
                    ..b
                });
                transient_buffers.insert(i, per_chunk.collect());
                let plan = c.chunk_plan(e.source);
                chunk_plans.extend(plan.map(|c| ChunkPlan { step: i, ..c }));
                let devices = c.device_plans(e.source);
                device_plans.extend(devices.into_iter().map(|d| DevicePlan { step: i, ..d }));
            }
        }
    }
    let row_views: Vec<Option<RowView>> = steps
        .iter()
        .map(|s| match s {
            Step::Kernel(k) => row_view(k, j),
            Step::Prim(_) => None,
        })
        .collect();
    let mut step_primitives = Vec::with_capacity(n);
    for (i, step) in steps.iter().enumerate() {
        for id in step.reads(cj) {
            let o = owner(&aliases, id);
            let l = last.entry(o).or_insert(i);
            *l = (*l).max(i);
        }
        // The operand a view's result shares.
        let (prim, source, shared) = match step {
            Step::Prim(e) => {
                let e = &j.eqns[*e];
                let view = matches!(e.prim.kind(), Kind::View);
                let src = e.inputs.first().and_then(Atom::var).filter(|_| view);
                (e.prim.name(), e.source, src.map(|v| v.id))
            }
            Step::Kernel(k) => {
                let root = &j.eqns[k.eqns[0]];
                let src = row_views[i].as_ref().map(|_| k.inputs[0].id);
                (root.prim.name(), k.source, src)
            }
        };
        step_primitives.push(prim);
        for o in step.writes(cj) {
            if let Some(src) = shared {
                aliases.insert(o.id, owner(&aliases, src));
            } else {
                let b = buffer(&o.aval, BufferKind::Temporary, prim, Some(i), Some(source));
                info.insert(o.id, b);
                born.insert(o.id, i);
                last.insert(o.id, i);
            }
        }
    }
    let mut output_bytes: usize = 0;
    for a in &j.outvars {
        if let Atom::Var(v) = a {
            let o = owner(&aliases, v.id);
            last.insert(o, end);
            if let Some(b) = info.get_mut(&o) {
                if b.kind == BufferKind::Temporary {
                    b.kind = BufferKind::Output;
                }
            }
        }
        output_bytes = output_bytes.saturating_add(a.aval().nbytes());
    }
    // Live bytes at each step: buffers born at or before it and last used at or after it.
    let mut analysis = MemoryAnalysis {
        argument_bytes: saturating_sum(j.invars.iter().map(|v| v.aval.nbytes())),
        constant_bytes: saturating_sum(j.constvars.iter().map(|v| v.aval.nbytes())),
        output_bytes,
        chunks: chunk_plans,
        devices: device_plans,
        step_primitives,
        ..MemoryAnalysis::default()
    };
    // Sums of many buffers are taken in u128 and saturate at usize::MAX when reported: a
    // plan over the address space still reads as one that no limit or system can meet.
    let base = analysis.argument_bytes as u128 + analysis.constant_bytes as u128;
    analysis.peak_bytes = saturating(base);
    let mut frees = vec![Vec::new(); n];
    let mut delta_in = vec![0u128; n + 1];
    let mut delta_out = vec![0u128; n + 1];
    let mut temp_in = vec![0u128; n + 1];
    let mut temp_out = vec![0u128; n + 1];
    for (&id, b) in &info {
        if matches!(b.kind, BufferKind::Argument | BufferKind::Constant) {
            continue;
        }
        let (s, l) = (born[&id], last[&id]);
        delta_in[s] += b.bytes as u128;
        delta_out[l.min(n)] += b.bytes as u128;
        if b.kind == BufferKind::Temporary {
            temp_in[s] += b.bytes as u128;
            temp_out[l.min(n)] += b.bytes as u128;
            frees[l].push(id);
        }
    }
    // In place: a kernel overwrites an input that dies with it; the two share bytes.
    let mut in_place = vec![None; n];
    let mut consumed: HashMap<u32, usize> = HashMap::new();
    for (i, step) in steps.iter().enumerate() {
        let Step::Kernel(k) = step else { continue };
        let owners: Vec<u32> = k.inputs.iter().map(|v| owner(&aliases, v.id)).collect();
        in_place[i] = k.in_place_slots().into_iter().find(|&s| {
            let id = k.inputs[s].id;
            owners.iter().filter(|&&o| o == id).count() == 1
                && last.get(&id) == Some(&i)
                && info
                    .get(&id)
                    .is_some_and(|b| b.kind == BufferKind::Temporary)
        });
        if let Some(s) = in_place[i] {
            let (x, o) = (&info[&k.inputs[s].id], &info[&k.out.id]);
            consumed.insert(k.inputs[s].id, i);
            delta_in[i] -= o.bytes as u128;
            delta_out[i] -= x.bytes as u128;
            if o.kind == BufferKind::Temporary {
                temp_in[i] -= o.bytes as u128;
                temp_out[i] -= x.bytes as u128;
            }
        }
    }
    // Reuse: a kernel's result takes a buffer of its size that the step before freed.
    let mut reuse = vec![None; n];
    let mut reused: std::collections::HashSet<u32> = std::collections::HashSet::new();
    for i in 1..n {
        let Step::Kernel(k) = &steps[i] else { continue };
        if in_place[i].is_some() {
            continue;
        }
        let Some(bytes) = info.get(&k.out.id).map(|b| b.bytes) else {
            continue;
        };
        reuse[i] = frees[i - 1].iter().copied().find(|id| {
            !consumed.contains_key(id)
                && !reused.contains(id)
                && info
                    .get(id)
                    .is_some_and(|b| b.kind == BufferKind::Temporary && b.bytes == bytes)
        });
        reused.extend(reuse[i]);
    }
    analysis.in_place_results = in_place.iter().flatten().count();
    analysis.reused_buffers = reuse.iter().flatten().count();
    for (&view, &o) in &aliases {
        if info
            .get(&o)
            .is_some_and(|b| b.kind == BufferKind::Temporary)
        {
            frees[last[&o]].push(view);
        }
    }
    let (mut live, mut temp) = (0u128, 0u128);
    for i in 0..n {
        live += delta_in[i];
        temp += temp_in[i];
        let working = transient[i] as u128 + scratch[i] as u128;
        let now = saturating(base + live + working);
        analysis.live_bytes.push(now);
        if now > analysis.peak_bytes {
            analysis.peak_bytes = now;
            analysis.peak_equation = Some(i);
            analysis.scratch_bytes = scratch[i];
        }
        analysis.temp_bytes = analysis
            .temp_bytes
            .max(saturating(temp + transient[i] as u128));
        live -= delta_out[i];
        temp -= temp_out[i];
    }
    // What is live while each map runs, beyond its operands, results and chunk.
    for c in &mut analysis.chunks {
        let own: usize = steps[c.step]
            .reads(cj)
            .iter()
            .chain(steps[c.step].writes(cj).iter().map(|v| &v.id))
            .map(|&id| owner(&aliases, id))
            .collect::<std::collections::HashSet<_>>()
            .into_iter()
            .filter_map(|id| info.get(&id))
            .map(|b| b.bytes)
            .sum();
        let live = analysis.live_bytes[c.step] - transient[c.step] - scratch[c.step];
        c.outside_bytes = live.saturating_sub(own);
    }
    let at = analysis.peak_equation.unwrap_or(0);
    let mut live_at: Vec<BufferInfo> = info
        .iter()
        .filter(|(id, _)| born[*id] <= at && last[*id] >= at && consumed.get(*id) != Some(&at))
        .map(|(_, b)| b.clone())
        .chain(transient_buffers.remove(&at).unwrap_or_default())
        .collect();
    live_at.sort_by(|a, b| b.bytes.cmp(&a.bytes).then(a.equation.cmp(&b.equation)));
    live_at.truncate(LARGEST);
    analysis.largest = live_at;
    Plan {
        frees,
        in_place,
        reuse,
        row_views,
        analysis,
    }
}

/// A byte count in `usize`, `usize::MAX` when it does not fit.
fn saturating(bytes: u128) -> usize {
    usize::try_from(bytes).unwrap_or(usize::MAX)
}

/// The sum of byte counts, `usize::MAX` when it does not fit.
fn saturating_sum(bytes: impl Iterator<Item = usize>) -> usize {
    bytes.fold(0, usize::saturating_add)
}
