//! Names the commit and the Cargo profile in `kura --version`. The commit comes from
//! `KURA_COMMIT` when set (a build from a source tarball), else from git, else "unknown";
//! the profile is the target directory's (`debug`, `release`, `dist`), which Cargo's
//! `PROFILE` variable cannot tell apart for custom profiles.

use std::path::{Path, PathBuf};
use std::process::Command;

fn main() {
    println!("cargo:rerun-if-env-changed=KURA_COMMIT");
    let commit = std::env::var("KURA_COMMIT")
        .ok()
        .filter(|c| !c.is_empty())
        .or_else(git_commit)
        .unwrap_or_else(|| "unknown".to_owned());
    println!("cargo:rustc-env=KURA_COMMIT={commit}");
    let out_dir = PathBuf::from(std::env::var("OUT_DIR").unwrap_or_default());
    // OUT_DIR is <target>/[<triple>/]<profile>/build/kura-<hash>/out.
    let profile = out_dir
        .ancestors()
        .nth(3)
        .and_then(Path::file_name)
        .and_then(|name| name.to_str())
        .unwrap_or("unknown")
        .to_owned();
    println!("cargo:rustc-env=KURA_PROFILE={profile}");
}

/// The short hash of HEAD; the binary is rebuilt when HEAD moves.
fn git_commit() -> Option<String> {
    let git = |args: &[&str]| {
        Command::new("git")
            .args(args)
            .output()
            .ok()
            .filter(|o| o.status.success())
            .and_then(|o| String::from_utf8(o.stdout).ok())
            .map(|s| s.trim().to_owned())
    };
    let hash = git(&["rev-parse", "--short=12", "HEAD"])?;
    let mut watched = vec!["HEAD".to_owned(), "packed-refs".to_owned()];
    watched.extend(git(&["symbolic-ref", "-q", "HEAD"]));
    for name in watched {
        // Only a file that exists: Cargo counts a missing one as changed on every build,
        // and a clone without packed-refs rebuilt kura and its 29 test binaries at each
        // cargo call of the test command.
        if let Some(path) =
            git(&["rev-parse", "--git-path", &name]).filter(|path| Path::new(path).exists())
        {
            println!("cargo:rerun-if-changed={path}");
        }
    }
    Some(hash)
}
