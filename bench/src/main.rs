//! The side-by-side runner: every seed workload in oxla and in JAX on this machine,
//! alternating, with medians, ratios, peak memory and whether the results agree.
//!
//! `cargo run --release -p oxla-bench -- all [--quick] [--repeat K] [--python PATH]
//! [--json PATH]` (workloads that take under 30 s get up to 3K runs: the short ones are
//! the noisiest). A line on standard error tells which workload runs; `--json` also
//! writes the table as JSON, rewritten after every row.
//!
//! The `limit` column is the machine's lower bound for the workload's least work (its
//! flops at the rate of a large product, or its bytes at the rate of a large copy, both
//! measured at start-up: `limits.rs`), and `share` is that bound over oxla's time.
//!
//! Each measurement runs in a child process of its own, so that its peak RSS is its own.
//! The JAX side runs the scripts in `bench/jax/` (copies of `shared/jax-reference/`).

#[path = "../../crates/oxla/examples/cli/mod.rs"]
mod cli;
mod cnn;
mod deep;
#[path = "../../crates/oxla/examples/seeds/mod.rs"]
mod seeds;

mod limits;
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
            Arg::new("json")
                .long("json")
                .help("also write the table to this file as JSON"),
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
    let json = cli.get_one::<String>("json").map(PathBuf::from);
    let machine = limits::measure();
    println!(
        "machine: {:.0} GFLOP/s (f32 product), {:.1} GB/s (copy)",
        machine.flops_per_s / 1e9,
        machine.bytes_per_s / 1e9
    );
    println!(
        "{:<14} {:>12} {:>12} {:>7} {:>5} {:>10} {:>10}  agree  {:<9} {:>10} {:>6}",
        "workload",
        "oxla",
        "JAX",
        "ratio",
        "runs",
        "oxla RSS",
        "JAX RSS",
        "target",
        "limit",
        "share"
    );
    let began = Instant::now();
    let mut rows = Vec::new();
    for (i, w) in chosen.iter().enumerate() {
        eprintln!(
            "[{}/{}] {} ({:.0} s so far): {}",
            i + 1,
            chosen.len(),
            w.name,
            began.elapsed().as_secs_f64(),
            w.about
        );
        let mut ours = Vec::new();
        let mut theirs = Vec::new();
        let start = Instant::now();
        while more_runs(ours.len(), repeat, start.elapsed()) {
            ours.push(run_oxla(w, quick));
            theirs.push(run_jax(w, quick, &python, &scripts));
        }
        let row = Row::of(w, &mut ours, &mut theirs, (w.work)(quick).limit(&machine));
        println!("{}", row.text(w));
        rows.push(row);
        if let Some(path) = &json {
            let text = Row::json(&rows, &machine);
            std::fs::write(path, text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        }
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

/// One row of the table.
#[derive(Clone, Debug, PartialEq)]
struct Row {
    name: &'static str,
    /// Medians of oxla's and JAX's times, in seconds.
    oxla: f64,
    jax: f64,
    runs: usize,
    /// The largest peak RSS of each side's runs.
    oxla_rss_mib: Option<u64>,
    jax_rss_mib: Option<u64>,
    /// Whether the checksums agree, when both sides have one.
    agree: Option<bool>,
    target: &'static str,
    /// The machine's lower bound, in seconds.
    limit: Option<f64>,
}

impl Row {
    fn of(w: &Workload, ours: &mut [Measure], theirs: &mut [Measure], limit: Option<f64>) -> Row {
        let mut a: Vec<f64> = ours.iter().map(|m| m.seconds).collect();
        let mut b: Vec<f64> = theirs.iter().map(|m| m.seconds).collect();
        let rss = |ms: &[Measure]| ms.iter().filter_map(|m| m.rss_mib).max();
        let agree = match (&ours[0].checksum, &theirs[0].checksum) {
            (Some(x), Some(y)) => Some((x - y).abs() <= 1e-3 * (1.0 + y.abs())),
            _ => None,
        };
        Row {
            name: w.name,
            oxla: median(&mut a),
            jax: median(&mut b),
            runs: ours.len(),
            oxla_rss_mib: rss(ours),
            jax_rss_mib: rss(theirs),
            agree,
            target: w.target,
            limit,
        }
    }

    /// The row as the table prints it.
    fn text(&self, w: &Workload) -> String {
        let mib = |r: Option<u64>| r.map_or("-".to_string(), |r| format!("{r} MiB"));
        let agree = self.agree.map_or("-", |a| if a { "yes" } else { "NO" });
        let limit = self.limit.map_or("-".to_string(), |l| w.unit.show(l));
        let share = self.limit.map_or("-".to_string(), |l| {
            format!("{:.0}%", 100.0 * l / self.oxla)
        });
        format!(
            "{:<14} {:>12} {:>12} {:>7.3} {:>5} {:>10} {:>10}  {:<5}  <= {:<6} {:>10} {:>6}",
            self.name,
            w.unit.show(self.oxla),
            w.unit.show(self.jax),
            self.oxla / self.jax,
            self.runs,
            mib(self.oxla_rss_mib),
            mib(self.jax_rss_mib),
            agree,
            self.target,
            limit,
            share
        )
    }

    /// The rows and the machine's rates as a JSON object.
    fn json(rows: &[Row], m: &limits::Machine) -> String {
        let num = |v: Option<f64>| {
            v.filter(|v| v.is_finite())
                .map_or("null".to_string(), |v| format!("{v:e}"))
        };
        let int = |v: Option<u64>| v.map_or("null".to_string(), |v| v.to_string());
        let rows: Vec<String> = rows
            .iter()
            .map(|r| {
                format!(
                    "    {{\"workload\": \"{}\", \"oxla_s\": {}, \"jax_s\": {}, \"ratio\": {}, \"runs\": {}, \"oxla_rss_mib\": {}, \"jax_rss_mib\": {}, \"agree\": {}, \"target\": \"{}\", \"limit_s\": {}}}",
                    r.name,
                    num(Some(r.oxla)),
                    num(Some(r.jax)),
                    num(Some(r.oxla / r.jax)),
                    r.runs,
                    int(r.oxla_rss_mib),
                    int(r.jax_rss_mib),
                    r.agree.map_or("null".to_string(), |a| a.to_string()),
                    r.target,
                    num(r.limit)
                )
            })
            .collect();
        format!(
            "{{\n  \"flops_per_s\": {},\n  \"bytes_per_s\": {},\n  \"rows\": [\n{}\n  ]\n}}\n",
            num(Some(m.flops_per_s)),
            num(Some(m.bytes_per_s)),
            rows.join(",\n")
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_print_their_limit_and_go_to_json() {
        let w = find("matmul");
        let row = Row {
            name: w.name,
            oxla: 4.0,
            jax: 10.0,
            runs: 3,
            oxla_rss_mib: Some(779),
            jax_rss_mib: None,
            agree: Some(true),
            target: w.target,
            limit: Some(2.0),
        };
        let text = row.text(w);
        assert!(text.starts_with("matmul"), "{text}");
        assert!(
            text.contains(" 0.400 ") && text.ends_with("2.00 s    50%"),
            "{text}"
        );
        let machine = limits::Machine {
            flops_per_s: 2e11,
            bytes_per_s: 1.5e10,
        };
        let json = Row::json(&[row.clone(), row], &machine);
        assert!(
            json.contains("\"workload\": \"matmul\", \"oxla_s\": 4e0"),
            "{json}"
        );
        assert!(json.contains("\"jax_rss_mib\": null") && json.contains("\"limit_s\": 2e0"));
        assert_eq!(json.matches("{\"workload\"").count(), 2);
    }

    #[test]
    fn short_workloads_run_up_to_three_times_the_repeats() {
        let s = Duration::from_secs;
        assert!(more_runs(2, 3, s(100)), "--repeat is a minimum");
        assert!(more_runs(3, 3, s(10)));
        assert!(!more_runs(3, 3, s(31)), "a long workload stops at --repeat");
        assert!(!more_runs(9, 3, s(1)), "at most three times --repeat");
    }
}
