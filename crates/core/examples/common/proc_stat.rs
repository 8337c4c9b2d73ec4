//! Figures of a process read from `/proc` (Linux), shared by the benchmarks.

/// CPU seconds (user and system) process `pid` has used (`self` for this one), from
/// `/proc/PID/stat` (USER_HZ ticks, 100 a second on Linux).
pub fn cpu(pid: &str) -> f64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    let after_name = stat.rsplit_once(')').map_or("", |(_, rest)| rest);
    // Fields 14 and 15 of the line: the 12th and 13th after the name.
    let ticks: u64 = after_name
        .split_whitespace()
        .skip(11)
        .take(2)
        .filter_map(|f| f.parse::<u64>().ok())
        .sum();
    ticks as f64 / 100.0
}
