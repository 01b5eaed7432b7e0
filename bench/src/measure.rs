//! What a run measures, how it travels from the child process that ran it, and how the
//! JAX scripts' outputs are read.

/// One measurement: seconds, a checksum to compare between the two sides, peak RSS.
#[derive(Clone, Debug, PartialEq)]
pub struct Measure {
    pub seconds: f64,
    pub checksum: Option<f64>,
    pub rss_mib: Option<u64>,
}

impl Measure {
    pub fn new(seconds: f64, checksum: Option<f64>) -> Measure {
        Measure {
            seconds,
            checksum,
            rss_mib: None,
        }
    }

    /// One line for the parent process.
    pub fn encode(&self, rss_mib: u64) -> String {
        let sum = self.checksum.map_or("-".to_string(), |c| c.to_string());
        format!("seconds={} checksum={sum} rss_mib={rss_mib}", self.seconds)
    }

    /// The line `encode` wrote.
    pub fn decode(text: &str) -> Option<Measure> {
        let line = text.lines().find(|l| l.starts_with("seconds="))?;
        let get = |key: &str| {
            line.split_whitespace()
                .find_map(|t| t.strip_prefix(key)?.strip_prefix('='))
        };
        Some(Measure {
            seconds: get("seconds")?.parse().ok()?,
            checksum: get("checksum")?.parse().ok(),
            rss_mib: get("rss_mib")?.parse().ok(),
        })
    }
}

/// How a workload's time reads best.
#[derive(Clone, Copy)]
pub enum Unit {
    Seconds,
    Micros,
}

impl Unit {
    pub fn show(self, seconds: f64) -> String {
        match self {
            Unit::Micros => format!("{:.2} µs", seconds * 1e6),
            Unit::Seconds if seconds < 1.0 => format!("{:.1} ms", seconds * 1e3),
            Unit::Seconds => format!("{seconds:.2} s"),
        }
    }
}

/// The number after `key` in `text` (`key value` pairs separated by spaces).
pub fn field(text: &str, key: &str) -> Option<f64> {
    let mut tokens = text.split_whitespace();
    tokens.find(|t| *t == key)?;
    tokens.next()?.parse().ok()
}

pub fn rss(text: &str) -> Option<u64> {
    field(text, "peak_rss_mib").map(|v| v as u64)
}

pub fn parse_lbm(text: &str) -> Option<Measure> {
    Some(Measure {
        rss_mib: rss(text),
        ..Measure::new(field(text, "run2_s")?, field(text, "max"))
    })
}

pub fn parse_affinity(text: &str) -> Option<Measure> {
    Some(Measure {
        rss_mib: rss(text),
        ..Measure::new(field(text, "second_s")?, field(text, "checksum"))
    })
}

pub fn parse_pegrad(text: &str, which: &str) -> Option<Measure> {
    let line = text.lines().find(|l| l.starts_with(which))?;
    Some(Measure {
        rss_mib: rss(text),
        ..Measure::new(field(line, "steady_ms")? * 1e-3, None)
    })
}

/// The first call's time on a script's `<which> first_s .. checksum ..` line.
pub fn parse_first(text: &str, which: &str) -> Option<Measure> {
    let line = text.lines().find(|l| l.starts_with(which))?;
    Some(Measure {
        rss_mib: rss(text),
        ..Measure::new(field(line, "first_s")?, field(line, "checksum"))
    })
}

/// A script's `<which> first_s .. steady_ms .. checksum ..` line.
pub fn parse_steady(text: &str, which: &str) -> Option<Measure> {
    let line = text.lines().find(|l| l.starts_with(which))?;
    Some(Measure {
        rss_mib: rss(text),
        ..Measure::new(field(line, "steady_ms")? * 1e-3, field(line, "checksum"))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn measures_survive_the_trip_between_processes() {
        let m = Measure::new(0.25, Some(-3.5));
        let back = Measure::decode(&m.encode(42)).expect("decodes");
        assert_eq!(
            (back.seconds, back.checksum, back.rss_mib),
            (0.25, Some(-3.5), Some(42))
        );
        let none = Measure::decode(&Measure::new(1.0, None).encode(1)).expect("decodes");
        assert_eq!(none.checksum, None);
    }

    #[test]
    fn the_scripts_outputs_are_read() {
        let lbm = "compile_s 0.17 temp_bytes 16704000000\nrun1_s 25.6 run2_s 14.0 max 513.0\npeak_rss_mib 16827\n";
        assert_eq!(
            parse_lbm(lbm),
            Some(Measure {
                seconds: 14.0,
                checksum: Some(513.0),
                rss_mib: Some(16827)
            })
        );
        let aff = "matmul first_s 13.5 second_s 13.1 checksum 39382.74609375\npeak_rss_mib 1800\n";
        let m = parse_affinity(aff).expect("parses");
        assert_eq!((m.seconds, m.checksum), (13.1, Some(39382.74609375)));
        let pe = "per_example first_s 0.9 steady_ms 176.0\nmean first_s 0.2 steady_ms 14.5\npeak_rss_mib 3500\n";
        assert_eq!(parse_pegrad(pe, "mean").map(|m| m.seconds), Some(0.0145));
        assert_eq!(
            parse_pegrad(pe, "per_example").map(|m| m.seconds),
            Some(0.176)
        );
        let draws = "normal_eager first_s 2.1 steady_ms 300.5 checksum 7249.39\nnormal_jit first_s 1.3 steady_ms 290.0 checksum 7249.39\npeak_rss_mib 573\n";
        let jitted = parse_steady(draws, "normal_jit").expect("parses");
        assert_eq!((jitted.seconds, jitted.rss_mib), (0.29, Some(573)));
        assert_eq!(
            parse_steady(draws, "normal_eager").map(|m| m.seconds),
            Some(0.3005)
        );
        assert_eq!(
            field("compile_first_ms 40.1 dispatch_us 5.7", "dispatch_us"),
            Some(5.7)
        );
    }
}
