//! Prints each crate's knots and long functions: `cargo run -p kura-house --example report
//! [crates/NAME ...]` (every crate when none is named).

use std::path::{Path, PathBuf};

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let args: Vec<String> = std::env::args().skip(1).collect();
    // `--why CRATE_DIR FROM TO`: the paths in FROM that import TO (`a::b`, `<root>`).
    if let [flag, dir, from, to] = args.as_slice()
        && flag == "--why"
    {
        let module = |s: &str| -> Vec<String> {
            s.split("::")
                .filter(|p| !p.is_empty() && *p != "<root>")
                .map(String::from)
                .collect()
        };
        let krate = kura_house::Crate::read(&Path::new(dir).join("src")).expect("read");
        for path in kura_house::why(&krate, &module(from), &module(to)) {
            eprintln!("{path}");
        }
        return;
    }
    let mut crates: Vec<PathBuf> = args.iter().map(PathBuf::from).collect();
    if crates.is_empty() {
        crates = std::fs::read_dir(root.join("crates"))
            .expect("crates/")
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| p.join("src").is_dir())
            .collect();
        crates.sort();
    }
    for dir in crates {
        let krate = match kura_house::Crate::read(&dir.join("src")) {
            Ok(krate) => krate,
            Err(error) => {
                eprintln!("{}: {error}", dir.display());
                continue;
            }
        };
        let knots = kura_house::knots(&kura_house::file_graph(&krate));
        let long = kura_house::long_functions(&krate, 100);
        let files: usize = knots.iter().map(|k| k.files.len()).sum();
        eprintln!(
            "{}: {} knots holding {files} files; {} functions over 100 lines",
            dir.display(),
            knots.len(),
            long.len()
        );
        for knot in &knots {
            eprintln!("{}", knot.describe());
        }
        for function in &long {
            eprintln!(
                "  long: {} {} ({} lines)",
                function.file, function.name, function.lines
            );
        }
    }
}
