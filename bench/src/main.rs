//! The side-by-side runner: every seed workload in oxla and in JAX on this machine,
//! alternating, with medians, ratios, peak memory and whether the results agree.
//!
//! `cargo run --release -p oxla-bench -- all [--quick] [--repeat K] [--python PATH]`
//! (workloads that take under 30 s get up to 3K runs: the short ones are the noisiest)
//!
//! Each measurement runs in a child process of its own, so that its peak RSS is its own.
//! The JAX side runs the scripts in `bench/jax/` (copies of `shared/jax-reference/`).

#[path = "../../crates/oxla/examples/cli/mod.rs"]
mod cli;
mod cnn;
#[path = "../../crates/oxla/examples/seeds/mod.rs"]
mod seeds;

mod measure;
mod surface;
mod workloads;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use clap::{Arg, ArgAction};

use workloads::{Measure, Workload, WORKLOADS};

fn main() {
    let cli = clap::Command::new("oxla-bench")
        .about("Seed workloads in oxla and JAX, side by side")
        .arg(
            Arg::new("workloads")
                .num_args(0..)
                .help("`all`, or workload names (see --list)"),
        )
        .arg(Arg::new("quick").long("quick").action(ArgAction::SetTrue))
        .arg(Arg::new("list").long("list").action(ArgAction::SetTrue))
        .arg(
            Arg::new("repeat")
                .long("repeat")
                .default_value("3")
                .value_parser(clap::value_parser!(usize))
                .help(
                    "alternating runs of each side (short workloads get up to three times as many)",
                ),
        )
        .arg(
            Arg::new("python")
                .long("python")
                .help("python with jax (default: a venv in target/jaxenv, created on first use)"),
        )
        .arg(
            Arg::new("one")
                .long("one")
                .hide(true)
                .help("run one workload's oxla side in this process"),
        )
        .get_matches();
    let quick = cli.get_flag("quick");
    if let Some(name) = cli.get_one::<String>("one") {
        let w = find(name);
        let m = (w.oxla)(quick);
        println!("{}", m.encode(cli::peak_rss_mib()));
        return;
    }
    if cli.get_flag("list") {
        for w in WORKLOADS {
            println!("{:<14} {}", w.name, w.about);
        }
        return;
    }
    let names: Vec<String> = cli
        .get_many::<String>("workloads")
        .map(|v| v.cloned().collect())
        .unwrap_or_default();
    let chosen: Vec<&Workload> = if names.is_empty() || names.iter().any(|n| n == "all") {
        WORKLOADS.iter().collect()
    } else {
        names.iter().map(|n| find(n)).collect()
    };
    let python = cli
        .get_one::<String>("python")
        .map(PathBuf::from)
        .unwrap_or_else(default_python);
    let repeat = *cli.get_one::<usize>("repeat").expect("defaulted");
    let scripts = Path::new(env!("CARGO_MANIFEST_DIR")).join("jax");
    println!(
        "{:<14} {:>12} {:>12} {:>7} {:>5} {:>10} {:>10}  agree  target",
        "workload", "oxla", "JAX", "ratio", "runs", "oxla RSS", "JAX RSS"
    );
    for w in chosen {
        let mut ours = Vec::new();
        let mut theirs = Vec::new();
        let start = Instant::now();
        while more_runs(ours.len(), repeat, start.elapsed()) {
            ours.push(run_oxla(w, quick));
            theirs.push(run_jax(w, quick, &python, &scripts));
        }
        print_row(w, &mut ours, &mut theirs);
    }
}

/// Seconds of alternating runs under which a workload is run again past `--repeat`.
const SHORT_WORKLOAD: Duration = Duration::from_secs(30);

/// Whether a workload gets another pair of runs, after `done` pairs that took `spent`:
/// at least `repeat`, and up to three times as many while they take under
/// [`SHORT_WORKLOAD`]. The short workloads (gradients, dispatch) swing most with the
/// machine, and a median of more pairs costs them a few seconds.
fn more_runs(done: usize, repeat: usize, spent: Duration) -> bool {
    done < repeat || (done < 3 * repeat && spent < SHORT_WORKLOAD)
}

fn find(name: &str) -> &'static Workload {
    WORKLOADS
        .iter()
        .find(|w| w.name == name)
        .unwrap_or_else(|| panic!("no workload {name:?}; see --list"))
}

/// The oxla side of `w`, in a child process.
fn run_oxla(w: &Workload, quick: bool) -> Measure {
    let exe = std::env::current_exe().expect("this program's path");
    let mut cmd = Command::new(exe);
    cmd.args(["--one", w.name]);
    if quick {
        cmd.arg("--quick");
    }
    let out = cmd.output().expect("the runner starts itself");
    let text = String::from_utf8_lossy(&out.stdout);
    Measure::decode(&text).unwrap_or_else(|| {
        panic!(
            "{}: oxla side failed:\n{text}\n{}",
            w.name,
            String::from_utf8_lossy(&out.stderr)
        )
    })
}

/// The JAX side of `w`: its script, parsed.
fn run_jax(w: &Workload, quick: bool, python: &Path, scripts: &Path) -> Measure {
    let (script, args) = (w.jax)(quick);
    let out = Command::new(python)
        .arg(scripts.join(script))
        .args(&args)
        .env("JAX_PLATFORMS", "cpu")
        .output()
        .unwrap_or_else(|e| panic!("running {}: {e}", python.display()));
    let text = String::from_utf8_lossy(&out.stdout);
    (w.parse)(&text).unwrap_or_else(|| {
        panic!(
            "{}: could not read JAX's output:\n{text}\n{}",
            w.name,
            String::from_utf8_lossy(&out.stderr)
        )
    })
}

/// A venv with JAX under `target/`, made on first use.
fn default_python() -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let venv = root.join("target").join("jaxenv");
    let python = venv.join("bin").join("python");
    if !python.exists() {
        eprintln!("creating {} with jax (once)", venv.display());
        let ok = Command::new("python3")
            .args(["-m", "venv"])
            .arg(&venv)
            .status()
            .is_ok_and(|s| s.success())
            && Command::new(venv.join("bin").join("pip"))
                .args(["install", "--quiet", "jax"])
                .status()
                .is_ok_and(|s| s.success());
        assert!(ok, "could not install jax; pass --python PATH");
    }
    python
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn print_row(w: &Workload, ours: &mut [Measure], theirs: &mut [Measure]) {
    let mut a: Vec<f64> = ours.iter().map(|m| m.seconds).collect();
    let mut b: Vec<f64> = theirs.iter().map(|m| m.seconds).collect();
    let (a, b) = (median(&mut a), median(&mut b));
    let rss = |ms: &[Measure]| {
        ms.iter()
            .filter_map(|m| m.rss_mib)
            .max()
            .map_or("-".to_string(), |r| format!("{r} MiB"))
    };
    let agree = match (&ours[0].checksum, &theirs[0].checksum) {
        (Some(x), Some(y)) => {
            let close = (x - y).abs() <= 1e-3 * (1.0 + y.abs());
            if close { "yes" } else { "NO" }.to_string()
        }
        _ => "-".to_string(),
    };
    println!(
        "{:<14} {:>12} {:>12} {:>7.3} {:>5} {:>10} {:>10}  {:<5}  <= {}",
        w.name,
        w.unit.show(a),
        w.unit.show(b),
        a / b,
        ours.len(),
        rss(ours),
        rss(theirs),
        agree,
        w.target
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_workloads_run_up_to_three_times_the_repeats() {
        let s = Duration::from_secs;
        assert!(more_runs(2, 3, s(100)), "--repeat is a minimum");
        assert!(more_runs(3, 3, s(10)));
        assert!(!more_runs(3, 3, s(31)), "a long workload stops at --repeat");
        assert!(!more_runs(9, 3, s(1)), "at most three times --repeat");
    }
}
