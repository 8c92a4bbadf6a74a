//! Staging names, and removing staging that a run leaves: stale folders of killed runs, and a
//! run's own folder when it is interrupted.

use super::{OutputError, STAGING_MARKER};
use camino::{Utf8Path, Utf8PathBuf};
use std::sync::{Mutex, MutexGuard, Once};

/// 64 random bits as 16 hex digits: names that two runs (or two containers whose every run is
/// PID 1) never share.
pub(crate) fn random_suffix() -> Result<String, OutputError> {
    use ring::rand::SecureRandom as _;
    let mut bytes = [0u8; 8];
    ring::rand::SystemRandom::new()
        .fill(&mut bytes)
        .map_err(|_| OutputError::Io {
            action: "draw a random staging name for",
            path: Utf8PathBuf::from("the output"),
            source: std::io::Error::other("the system's random source failed"),
        })?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

/// Whether `suffix` is what a staging name ends with: 16 hex digits.
fn is_staging_suffix(suffix: &str) -> bool {
    suffix.len() == 16 && suffix.bytes().all(|b| b.is_ascii_hexdigit())
}

/// The file in every staging folder that proves it is meshchart's: its first line is
/// [`OWNER_TAG`] and the folder's own random suffix (a user's folder of a look-alike name has
/// none, nor could a copied one name its new folder's suffix); then the process id and the
/// command line of the run that made it, for a run waiting on the lock to say whom it waits
/// for.
pub(crate) const OWNER_FILE: &str = "meshchart-staging-owner";
const OWNER_TAG: &str = "meshchart staging";

/// Writes the owner file into the staging folder `staging`, named `...<suffix>`.
pub(crate) fn write_owner(staging: &Utf8Path, suffix: &str) -> std::io::Result<()> {
    let command: Vec<String> = std::env::args().collect();
    std::fs::write(
        staging.join(OWNER_FILE),
        format!(
            "{OWNER_TAG} {suffix}\npid {}\ncommand {}\n",
            std::process::id(),
            command.join(" ").replace('\n', " ")
        ),
    )
}

/// The run that made a staging folder, as its owner file tells.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Owner {
    /// Its process id.
    pub pid: String,
    /// Its command line.
    pub command: String,
}

/// The owner of `staging` when it is provably meshchart's (see [`OWNER_FILE`]), else `None`.
pub(crate) fn owner(staging: &Utf8Path) -> Option<Owner> {
    let name = staging.file_name()?;
    let suffix = name.get(name.len().checked_sub(16)?..)?;
    if !is_staging_suffix(suffix) || !std::fs::symlink_metadata(staging).ok()?.is_dir() {
        return None;
    }
    let owner_file = staging.join(OWNER_FILE);
    if !std::fs::symlink_metadata(&owner_file).ok()?.is_file() {
        return None;
    }
    let text = std::fs::read_to_string(owner_file).ok()?;
    let mut lines = text.lines();
    if lines.next()? != format!("{OWNER_TAG} {suffix}") {
        return None;
    }
    let mut owner = Owner {
        pid: String::new(),
        command: String::new(),
    };
    for line in lines {
        if let Some(pid) = line.strip_prefix("pid ") {
            owner.pid = pid.to_owned();
        } else if let Some(command) = line.strip_prefix("command ") {
            owner.command = command.to_owned();
        }
    }
    Some(owner)
}

/// Whether the staging-named folder `staging` is provably meshchart's: its owner file says so,
/// or it is what a run killed while making it left (nothing in it but, at most, the start of
/// its owner file): removing that loses nothing of anyone's.
fn is_ours(staging: &Utf8Path) -> bool {
    if owner(staging).is_some() {
        return true;
    }
    let (Some(name), Ok(entries)) = (staging.file_name(), staging.read_dir_utf8()) else {
        return false;
    };
    let Some(suffix) = name.get(name.len().saturating_sub(16)..) else {
        return false;
    };
    let whole = format!("{OWNER_TAG} {suffix}\n");
    let mut count = 0;
    for entry in entries {
        let Ok(entry) = entry else { return false };
        count += 1;
        let started = entry.file_name() == OWNER_FILE
            && entry.file_type().is_ok_and(|t| t.is_file())
            && std::fs::read(entry.path()).is_ok_and(|text| whole.as_bytes().starts_with(&text));
        if !started || count > 1 {
            return false;
        }
    }
    true
}

/// The staging folders of the target `root` (resolved) that are provably meshchart's: beside
/// it and inside it.
pub(crate) fn staging_of(root: &Utf8Path) -> Vec<Utf8PathBuf> {
    let mut found = Vec::new();
    let mut look = |folder: &Utf8Path, prefix: &str| {
        let Ok(entries) = folder.read_dir_utf8() else {
            return;
        };
        for entry in entries.flatten() {
            let shaped = entry
                .file_name()
                .strip_prefix(prefix)
                .is_some_and(is_staging_suffix);
            if shaped && is_ours(entry.path()) {
                found.push(entry.path().to_owned());
            }
        }
    };
    if let (Some(parent), Some(name)) = (root.parent(), root.file_name()) {
        look(parent, &beside_prefix(name));
    }
    look(root, STAGING_MARKER);
    found
}

/// Removes the stale staging of the target folder `root` (resolved): beside it and inside it,
/// only folders that are provably meshchart's ([`OWNER_FILE`]): a user's folder is never taken
/// for ours by its name alone. Called with its lock held, shared or exclusive: only the holder
/// of the exclusive lock makes staging, so none found then is in use. A staging folder holding
/// a journal (a file-by-file switch a kill interrupted) is left for the next writer to
/// complete.
pub(crate) fn remove_stale_around(root: &Utf8Path) {
    for staging in staging_of(root) {
        if !staging.join(JOURNAL_FILE).exists() && super::set::staging_may_go(&staging) {
            let _ = remove_tree(&staging);
        }
    }
}

/// The journal of a file-by-file switch, in its staging folder (see `set::journal::Journal`).
pub(crate) const JOURNAL_FILE: &str = "journal";

/// Whether this process looks at `folder` for stale staging for the first time (then it is
/// noted, and later calls say no).
pub(crate) fn first_look(folder: &Utf8Path) -> bool {
    static SEEN: Mutex<Vec<Utf8PathBuf>> = Mutex::new(Vec::new());
    let mut seen = SEEN.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    if seen.iter().any(|known| known == folder) {
        return false;
    }
    seen.push(folder.to_owned());
    true
}

/// The names staging folders have beside a target named `target_name`, and inside any target.
pub(crate) fn beside_prefix(target_name: &str) -> String {
    format!(".{target_name}{STAGING_MARKER}")
}

/// Removes a folder and everything in it; a folder that is already gone is fine. Retried
/// once: files written into it by another thread meanwhile make the first try fail.
pub(crate) fn remove_tree(path: &Utf8Path) -> std::io::Result<()> {
    let mut result = std::fs::remove_dir_all(path);
    if result.is_err() && path.exists() {
        result = std::fs::remove_dir_all(path);
    }
    match result {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        other => other,
    }
}

/// Removes a staging folder that other threads may still be writing into: renamed first to
/// another staging name (writers then fail to find it and add nothing), then removed.
fn remove_while_written(path: &Utf8Path) {
    // A single file's temporary file: removing its name is enough, its writer adds no other.
    if std::fs::symlink_metadata(path).is_ok_and(|m| !m.is_dir()) {
        let _ = std::fs::remove_file(path);
        return;
    }
    let renamed = match (path.file_name(), random_suffix()) {
        (Some(name), Ok(suffix)) if name.len() > 16 && name.is_char_boundary(name.len() - 16) => {
            path.with_file_name(format!("{}{suffix}", &name[..name.len() - 16]))
        }
        _ => path.to_owned(),
    };
    let target = match std::fs::rename(path, &renamed) {
        Ok(()) => {
            // Still provably ours under its new name, should this process die before it goes.
            if let Some(suffix) = renamed.as_str().get(renamed.as_str().len() - 16..) {
                let _ = write_owner(&renamed, suffix);
            }
            renamed
        }
        Err(_) => path.to_owned(),
    };
    let _ = remove_tree(&target);
}

/// The staging folders of this process's open sets, removed if the process is interrupted.
static ACTIVE: Mutex<Vec<Utf8PathBuf>> = Mutex::new(Vec::new());

fn active() -> MutexGuard<'static, Vec<Utf8PathBuf>> {
    // A panic while holding it leaves a valid list.
    ACTIVE
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Registers `staging` (a folder, or a single file's temporary file) for removal on
/// interruption (and installs the handlers on first use).
pub(crate) fn register(staging: &Utf8Path) {
    remove_on_interrupt();
    active().push(staging.to_owned());
}

/// Forgets `staging` (removed, or committed).
pub(crate) fn unregister(staging: &Utf8Path) {
    active().retain(|path| path != staging);
}

/// Holds the registry: the interrupt handler cannot remove staging while the guard lives. A
/// commit holds it across the exchange, so an interruption removes the staging folder wholly
/// before or wholly after the set is switched, never the half of a switch.
pub(crate) fn hold() -> MutexGuard<'static, Vec<Utf8PathBuf>> {
    active()
}

/// Makes SIGINT, SIGTERM and SIGHUP remove the staging folders of this process's open sets
/// before the process dies of the signal (as it would have without this). Installed by the
/// first [`super::OutputSet::begin`]; callable earlier. Signals that cannot be caught (SIGKILL)
/// leave staging for the next run to remove.
///
/// A signal handler may do almost nothing, so it only writes the signal's number to a pipe; a
/// thread waiting on the pipe does the removing, then restores the default action and raises
/// the signal again.
pub fn remove_on_interrupt() {
    static INSTALL: Once = Once::new();
    INSTALL.call_once(install);
}

#[cfg(unix)]
static PIPE_WRITE: std::sync::atomic::AtomicI32 = std::sync::atomic::AtomicI32::new(-1);

#[cfg(unix)]
fn install() {
    let mut fds = [0 as libc::c_int; 2];
    // SAFETY: `fds` has room for the two descriptors pipe(2) writes.
    if unsafe { libc::pipe(fds.as_mut_ptr()) } != 0 {
        return;
    }
    let [read_end, write_end] = fds;
    // SAFETY: both descriptors were just made; FD_CLOEXEC keeps them from child processes.
    unsafe {
        libc::fcntl(read_end, libc::F_SETFD, libc::FD_CLOEXEC);
        libc::fcntl(write_end, libc::F_SETFD, libc::FD_CLOEXEC);
    }
    PIPE_WRITE.store(write_end, std::sync::atomic::Ordering::SeqCst);
    let watcher = std::thread::Builder::new()
        .name("meshchart-cleanup".into())
        .stack_size(256 << 10)
        .spawn(move || watch(read_end));
    if watcher.is_err() {
        return;
    }
    let handler: extern "C" fn(libc::c_int) = on_signal;
    for signal in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
        // SAFETY: a zeroed sigaction is valid; the handler only calls write(2), which is
        // async-signal-safe.
        unsafe {
            let mut action: libc::sigaction = std::mem::zeroed();
            let mut previous: libc::sigaction = std::mem::zeroed();
            libc::sigaction(signal, std::ptr::null(), &mut previous);
            // A signal the caller chose to ignore (nohup) stays ignored.
            if previous.sa_sigaction == libc::SIG_IGN {
                continue;
            }
            action.sa_sigaction = handler as libc::sighandler_t;
            libc::sigemptyset(&mut action.sa_mask);
            action.sa_flags = libc::SA_RESTART;
            libc::sigaction(signal, &action, std::ptr::null_mut());
        }
    }
}

#[cfg(unix)]
extern "C" fn on_signal(signal: libc::c_int) {
    notify_from_signal(signal);
}

/// For a signal handler that is about to end the process (the time limit's): asks the cleanup
/// thread to remove this process's staging and then end it as that handler would have
/// (SIGALRM: `abort`). Returns whether there is such a thread to ask; only then should the
/// handler leave the ending to it, with a second alarm in case it never comes. Only an atomic
/// load and write(2): safe in a signal handler.
#[cfg(unix)]
pub fn notify_from_signal(signal: libc::c_int) -> bool {
    let fd = PIPE_WRITE.load(std::sync::atomic::Ordering::SeqCst);
    if fd < 0 {
        return false;
    }
    // The signal numbers handled all fit in a byte.
    let byte = signal as u8;
    // SAFETY: write(2) of one byte from the stack is async-signal-safe.
    unsafe { libc::write(fd, (&byte as *const u8).cast(), 1) == 1 }
}

#[cfg(unix)]
fn watch(read_end: libc::c_int) {
    let mut byte = 0u8;
    loop {
        // SAFETY: reads one byte into a byte on this stack.
        let n = unsafe { libc::read(read_end, (&mut byte as *mut u8).cast(), 1) };
        if n == 1 {
            break;
        }
        if n == 0 || std::io::Error::last_os_error().kind() != std::io::ErrorKind::Interrupted {
            return;
        }
    }
    let signal = libc::c_int::from(byte);
    {
        let staging = active();
        for path in staging.iter() {
            remove_while_written(path);
        }
        // Dies holding the registry, so no commit starts its switch after the removal.
        if signal == libc::SIGALRM {
            // The time limit ends the process as it always has.
            std::process::abort();
        }
        // SAFETY: restoring the default action and raising a signal are plain calls.
        unsafe {
            libc::signal(signal, libc::SIG_DFL);
            libc::raise(signal);
        }
    }
    // The default action of these signals ends the process; should it not have, exit as a
    // shell reports a death by signal.
    std::process::exit(128 + signal);
}

#[cfg(not(unix))]
fn install() {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn random_suffixes_are_16_hex_digits_and_differ() {
        let a = random_suffix().expect("random");
        let b = random_suffix().expect("random");
        assert!(is_staging_suffix(&a), "{a}");
        assert_ne!(a, b);
    }

    #[test]
    fn only_staging_shaped_names_count() {
        assert!(is_staging_suffix("0123456789abcdef"));
        assert!(!is_staging_suffix("4242"));
        assert!(!is_staging_suffix("notapid"));
        assert!(!is_staging_suffix(""));
        assert!(!is_staging_suffix("0123456789abcdefg"));
    }
}
