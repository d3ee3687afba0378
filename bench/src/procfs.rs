//! What the driver reads about a server process from `/proc`.

use std::io;
use std::process::Command;

/// Clock ticks per second (`getconf CLK_TCK`), the unit of utime/stime in
/// `/proc/<pid>/stat`.
pub(crate) fn clock_ticks_per_second() -> u64 {
    let ticks = Command::new("getconf")
        .arg("CLK_TCK")
        .output()
        .ok()
        .filter(|out| out.status.success())
        .and_then(|out| String::from_utf8(out.stdout).ok())
        .and_then(|text| text.trim().parse::<u64>().ok())
        .filter(|&ticks| ticks > 0);
    ticks.unwrap_or_else(|| {
        eprintln!("warning: `getconf CLK_TCK` failed; assuming 100 ticks per second");
        100
    })
}

/// utime + stime of the process, in clock ticks (all its threads, live or
/// exited).
pub(crate) fn cpu_ticks(pid: u32) -> io::Result<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat"))?;
    // The command name (field 2) is in parentheses and may contain spaces:
    // count fields from the last ')'. After it come field 3 (state) onwards,
    // so utime (field 14) and stime (field 15) are at indexes 11 and 12.
    let rest = stat
        .rsplit_once(')')
        .map(|(_, rest)| rest)
        .ok_or_else(|| invalid(format!("unexpected /proc/{pid}/stat: {stat}")))?;
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let field = |index: usize| -> io::Result<u64> {
        fields
            .get(index)
            .and_then(|field| field.parse().ok())
            .ok_or_else(|| invalid(format!("unexpected /proc/{pid}/stat: {stat}")))
    };
    Ok(field(11)? + field(12)?)
}

/// Peak resident set size (`VmHWM`) of the process, in KiB.
pub(crate) fn peak_rss_kib(pid: u32) -> io::Result<u64> {
    status_kib(pid, "VmHWM:")
}

/// Current resident set size (`VmRSS`) of the process, in KiB.
pub(crate) fn rss_kib(pid: u32) -> io::Result<u64> {
    status_kib(pid, "VmRSS:")
}

/// A `kB` field of `/proc/<pid>/status`, such as `VmRSS:`.
fn status_kib(pid: u32, field: &str) -> io::Result<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status"))?;
    status
        .lines()
        .find_map(|line| line.strip_prefix(field))
        .and_then(|value| value.trim().trim_end_matches("kB").trim().parse().ok())
        .ok_or_else(|| invalid(format!("no {field} in /proc/{pid}/status")))
}

fn invalid(message: String) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, message)
}
