//! Process-level knobs from the operating system: the open-file limit (every socket is a file,
//! so ten thousand connections need it raised) and a process's resident memory.

use std::io;

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

/// Reads the `VmRSS:   12345 kB` line of a `/proc/<pid>/status` text, in bytes.
fn parse_vm_rss(status: &str) -> Option<u64> {
    let line = status.lines().find(|line| line.starts_with("VmRSS:"))?;
    let kib: u64 = line
        .trim_start_matches("VmRSS:")
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
    fn measures_this_process() {
        let bytes = resident_memory_bytes(std::process::id()).unwrap();
        assert!(bytes > 0);
        assert!(raise_fd_limit().unwrap() > 0);
    }
}
