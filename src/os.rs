//! Process-level knobs from the operating system: the open-file limit (every socket is a file,
//! so ten thousand connections need it raised), a process's resident memory, CPU time and
//! context switches (what `senet loadgen` reports of the server it loads), a thread's CPU time
//! (a pairing's cost), and the memory this
//! process may use (what `/metrics` compares its resident memory with), and the free space on a
//! filesystem (SQLite's readiness).

use std::io;
use std::time::Duration;

/// Raises this process's soft limit on open files to its hard limit and returns the new soft
/// limit. Raising a soft limit up to the hard one needs no privilege.
pub fn raise_fd_limit() -> io::Result<u64> {
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: `limit` is a valid, writable rlimit for the duration of the call.
    if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) } != 0 {
        return Err(io::Error::last_os_error());
    }
    if limit.rlim_cur < limit.rlim_max {
        limit.rlim_cur = limit.rlim_max;
        // SAFETY: `limit` is a valid rlimit read just above.
        if unsafe { libc::setrlimit(libc::RLIMIT_NOFILE, &limit) } != 0 {
            return Err(io::Error::last_os_error());
        }
    }
    Ok(limit.rlim_cur)
}

/// The bytes an unprivileged process may still write on the filesystem holding `path`.
pub fn free_space(path: &std::path::Path) -> io::Result<u64> {
    use std::os::unix::ffi::OsStrExt;
    let path = std::ffi::CString::new(path.as_os_str().as_bytes())?;
    let mut stat = std::mem::MaybeUninit::<libc::statvfs>::uninit();
    // SAFETY: `path` is NUL-terminated and `stat` is writable for the duration of the call.
    if unsafe { libc::statvfs(path.as_ptr(), stat.as_mut_ptr()) } != 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: statvfs filled it, having returned 0.
    let stat = unsafe { stat.assume_init() };
    Ok(stat.f_bavail * stat.f_frsize)
}

/// The resident memory of process `pid` in bytes (`VmRSS` in `/proc/<pid>/status`, Linux only).
pub fn resident_memory_bytes(pid: u32) -> io::Result<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status"))?;
    parse_vm_rss(&status).ok_or_else(|| {
        io::Error::new(
            io::ErrorKind::InvalidData,
            format!("no VmRSS line in /proc/{pid}/status"),
        )
    })
}

/// The CPU time process `pid` has used, user and system together (`utime` + `stime` in
/// `/proc/<pid>/stat`, Linux only).
pub fn cpu_time(pid: u32) -> io::Result<Duration> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat"))?;
    let ticks = parse_cpu_ticks(&stat).ok_or_else(|| {
        io::Error::new(
            io::ErrorKind::InvalidData,
            format!("no utime/stime in /proc/{pid}/stat"),
        )
    })?;
    Ok(Duration::from_secs_f64(
        ticks as f64 / clock_ticks_per_second()?,
    ))
}

/// The CPU time of each kind of thread of process `pid`, by thread name with its trailing
/// number dropped (`tokio-runtime-w`, `sqlx-sqlite-worker`, ...), summed over
/// `/proc/<pid>/task/*/stat` (Linux only): where a run's CPU went (docs/PERFORMANCE.md). Threads
/// that ended are not counted.
pub fn cpu_time_by_thread(pid: u32) -> io::Result<std::collections::BTreeMap<String, Duration>> {
    let per_second = clock_ticks_per_second()?;
    let mut by_name = std::collections::BTreeMap::new();
    for task in std::fs::read_dir(format!("/proc/{pid}/task"))? {
        // A thread may end between the listing and the read.
        let Ok(stat) = std::fs::read_to_string(task?.path().join("stat")) else {
            continue;
        };
        let (Some(name), Some(ticks)) = (thread_kind(&stat), parse_cpu_ticks(&stat)) else {
            continue;
        };
        *by_name.entry(name).or_insert(Duration::ZERO) +=
            Duration::from_secs_f64(ticks as f64 / per_second);
    }
    Ok(by_name)
}

/// A `/proc/<pid>/task/<tid>/stat` line's thread name without the number a pool gives each of
/// its threads (`sqlx-sqlite-worker-3` → `sqlx-sqlite-worker`).
fn thread_kind(stat: &str) -> Option<String> {
    let name = stat.get(stat.find('(')? + 1..stat.rfind(')')?)?;
    let kind = name.trim_end_matches(|c: char| c.is_ascii_digit());
    let kind = kind.strip_suffix('-').unwrap_or(kind);
    Some(kind.to_owned())
}

/// The kernel's clock ticks per second, the unit of `/proc`'s CPU times.
fn clock_ticks_per_second() -> io::Result<f64> {
    // SAFETY: sysconf only reads a configuration value.
    let per_second = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    if per_second <= 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(per_second as f64)
}

/// The CPU time the calling thread has used (`CLOCK_THREAD_CPUTIME_ID`): read before and after
/// a synchronous computation, the difference is that computation's CPU time, however busy the
/// machine (a tournament's pairing, issue 45).
pub fn thread_cpu_time() -> Duration {
    let mut now = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes only the timespec it is given.
    let read = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut now) };
    if read != 0 {
        return Duration::ZERO;
    }
    Duration::new(
        u64::try_from(now.tv_sec).unwrap_or(0),
        u32::try_from(now.tv_nsec).unwrap_or(0),
    )
}

/// `utime + stime` (fields 14 and 15) of a `/proc/<pid>/stat` line, in clock ticks. The command
/// name (field 2) may hold spaces, so fields are counted after its closing parenthesis.
fn parse_cpu_ticks(stat: &str) -> Option<u64> {
    let mut after_name = stat.get(stat.rfind(')')? + 1..)?.split_whitespace();
    let utime: u64 = after_name.nth(11)?.parse().ok()?;
    let stime: u64 = after_name.next()?.parse().ok()?;
    Some(utime + stime)
}

/// How many times the threads of process `pid` were switched out, voluntarily or not, summed
/// over `/proc/<pid>/task/*/status` (Linux only): each time a sleeping thread is woken counts,
/// so this counts the process's wake-ups (threads that ended are not counted).
pub fn context_switches(pid: u32) -> io::Result<u64> {
    let mut total = 0;
    for task in std::fs::read_dir(format!("/proc/{pid}/task"))? {
        // A thread may end between the listing and the read.
        let Ok(status) = std::fs::read_to_string(task?.path().join("status")) else {
            continue;
        };
        total += status
            .lines()
            .filter(|line| line.contains("ctxt_switches:"))
            .filter_map(|line| line.split(':').nth(1)?.trim().parse::<u64>().ok())
            .sum::<u64>();
    }
    Ok(total)
}

/// The memory this process may use before the kernel kills it: its cgroup's limit (v2
/// `memory.max`, else v1 `memory.limit_in_bytes`: a container's or a pod's limit), else, when
/// the cgroup has none, the machine's memory (`MemTotal`). Linux only.
pub fn memory_limit_bytes() -> io::Result<u64> {
    let cgroup_limit = [
        "/sys/fs/cgroup/memory.max",
        "/sys/fs/cgroup/memory/memory.limit_in_bytes",
    ]
    .iter()
    .find_map(|path| parse_cgroup_limit(&std::fs::read_to_string(path).ok()?));
    if let Some(limit) = cgroup_limit {
        return Ok(limit);
    }
    let meminfo = std::fs::read_to_string("/proc/meminfo")?;
    parse_kib_line(&meminfo, "MemTotal:").ok_or_else(|| {
        io::Error::new(
            io::ErrorKind::InvalidData,
            "no MemTotal line in /proc/meminfo",
        )
    })
}

/// A cgroup memory limit file's value in bytes; `None` for no limit (v2 writes `max`, v1 a
/// number near `i64::MAX`, above any machine's memory).
fn parse_cgroup_limit(text: &str) -> Option<u64> {
    const NO_LIMIT_ABOVE: u64 = 1 << 60;
    text.trim()
        .parse()
        .ok()
        .filter(|&bytes| bytes < NO_LIMIT_ABOVE)
}

/// Reads the `VmRSS:   12345 kB` line of a `/proc/<pid>/status` text, in bytes.
fn parse_vm_rss(status: &str) -> Option<u64> {
    parse_kib_line(status, "VmRSS:")
}

/// The `<key>   12345 kB` line of a `/proc` text, in bytes.
fn parse_kib_line(text: &str, key: &str) -> Option<u64> {
    let line = text.lines().find(|line| line.starts_with(key))?;
    let kib: u64 = line
        .trim_start_matches(key)
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .ok()?;
    Some(kib * 1024)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_vm_rss_in_bytes() {
        let status = "Name:\tsenet\nVmPeak:\t  99 kB\nVmRSS:\t   2048 kB\nThreads:\t3\n";
        assert_eq!(parse_vm_rss(status), Some(2048 * 1024));
        assert_eq!(parse_vm_rss("Name:\tx\n"), None);
    }

    #[test]
    fn reads_memory_limits() {
        assert_eq!(parse_cgroup_limit("268435456\n"), Some(268_435_456));
        assert_eq!(parse_cgroup_limit("max\n"), None);
        assert_eq!(parse_cgroup_limit("9223372036854771712\n"), None);
        let meminfo = "MemTotal:       25165824 kB\nMemFree:  1 kB\n";
        assert_eq!(
            parse_kib_line(meminfo, "MemTotal:"),
            Some(25_165_824 * 1024)
        );
        assert!(memory_limit_bytes().unwrap() > resident_memory_bytes(std::process::id()).unwrap());
    }

    #[test]
    fn reads_cpu_ticks_after_the_command_name() {
        let stat = "42 (a (b) c) S 1 42 42 0 -1 4194560 300 0 0 0 7 5 0 0 20 0 9 0 100 0";
        assert_eq!(parse_cpu_ticks(stat), Some(12));
        assert_eq!(parse_cpu_ticks("42 (x) S 1"), None);
    }

    #[test]
    fn groups_threads_by_name_without_their_number() {
        let stat = |name: &str| format!("7 ({name}) S 1 7 7 0 -1 0 0 0 0 0 3 1 0 0 20 0 9 0 1 0");
        assert_eq!(
            thread_kind(&stat("sqlx-sqlite-worker-12")).unwrap(),
            "sqlx-sqlite-worker"
        );
        assert_eq!(
            thread_kind(&stat("tokio-runtime-w")).unwrap(),
            "tokio-runtime-w"
        );
        assert_eq!(thread_kind(&stat("senet")).unwrap(), "senet");
        let mine = cpu_time_by_thread(std::process::id()).unwrap();
        assert!(!mine.is_empty(), "this test's own threads are listed");
    }

    #[test]
    fn measures_this_process() {
        let bytes = resident_memory_bytes(std::process::id()).unwrap();
        assert!(bytes > 0);
        let spin = std::time::Instant::now();
        while spin.elapsed() < Duration::from_millis(30) {}
        assert!(cpu_time(std::process::id()).unwrap() > Duration::ZERO);
        assert!(context_switches(std::process::id()).unwrap() > 0);
        assert!(raise_fd_limit().unwrap() > 0);
    }
}
