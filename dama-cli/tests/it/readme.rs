//! The examples of the READMEs run, and print what the READMEs say they print.
//!
//! Every fenced `text` block whose first line starts with `$ ` is a session: each `$ ` line
//! is a shell command (run by `sh -c` in a fresh temporary directory shared by the block's
//! commands, with the `dama` under test first on `PATH`), and the lines up to the next `$ `
//! are its expected standard output. In the expected text a line `...` stands for any number
//! of lines, and `[..]` inside a line for any text on that line (as in trycmd). A command
//! whose exit status is not 0 fails the test, as does one that prints other lines.

use std::path::{Path, PathBuf};
use std::process::Command;

/// One `$ command` of a README and the output it shows.
struct Example {
    file: String,
    line: usize,
    command: String,
    expected: Vec<String>,
}

/// The sessions of one Markdown file: each block's examples, in order.
fn sessions(file: &str, text: &str) -> Vec<Vec<Example>> {
    let mut out = Vec::new();
    let mut lines = text.lines().enumerate();
    while let Some((_, line)) = lines.next() {
        if line.trim_end() != "```text" {
            continue;
        }
        let mut block: Vec<(usize, &str)> = Vec::new();
        for (n, l) in lines.by_ref() {
            if l.starts_with("```") {
                break;
            }
            block.push((n + 1, l));
        }
        if !block.first().is_some_and(|(_, l)| l.starts_with("$ ")) {
            continue;
        }
        let mut session: Vec<Example> = Vec::new();
        for (n, l) in block {
            if let Some(command) = l.strip_prefix("$ ") {
                session.push(Example {
                    file: file.to_string(),
                    line: n,
                    command: command.to_string(),
                    expected: Vec::new(),
                });
            } else if let Some(last) = session.last_mut() {
                last.expected.push(l.to_string());
            }
        }
        out.push(session);
    }
    out
}

/// Whether `line` matches `pattern`, where each `[..]` of the pattern stands for any text.
fn line_matches(pattern: &str, line: &str) -> bool {
    let parts: Vec<&str> = pattern.split("[..]").collect();
    if parts.len() == 1 {
        return pattern == line;
    }
    let (first, last) = (parts[0], parts[parts.len() - 1]);
    if !line.starts_with(first) || line.len() < first.len() + last.len() || !line.ends_with(last) {
        return false;
    }
    let mut rest = &line[first.len()..line.len() - last.len()];
    for part in &parts[1..parts.len() - 1] {
        match rest.find(part) {
            Some(i) => rest = &rest[i + part.len()..],
            None => return false,
        }
    }
    true
}

/// Whether the output lines `got` match the expected lines, `...` standing for any lines.
fn lines_match(expected: &[String], got: &[&str]) -> bool {
    match expected.split_first() {
        None => got.is_empty(),
        Some((e, rest)) if e == "..." => {
            (0..=got.len()).any(|skip| lines_match(rest, &got[skip..]))
        }
        Some((e, rest)) => {
            got.first().is_some_and(|g| line_matches(e, g)) && lines_match(rest, &got[1..])
        }
    }
}

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("dama-cli is a member of the workspace")
        .to_path_buf()
}

fn readmes() -> Vec<PathBuf> {
    let root = workspace();
    let mut files = vec![root.join("README.md")];
    let mut crates: Vec<PathBuf> = std::fs::read_dir(&root)
        .expect("the workspace is readable")
        .filter_map(|e| e.ok().map(|e| e.path().join("README.md")))
        .filter(|p| p.is_file() && p.parent() != Some(root.as_path()))
        .collect();
    crates.sort();
    files.extend(crates);
    files
}

fn run_session(session: &[Example], failures: &mut Vec<String>) {
    let dir = tempdir();
    let bin = Path::new(env!("CARGO_BIN_EXE_dama"))
        .parent()
        .expect("the binary has a directory")
        .to_path_buf();
    let path = std::env::join_paths(std::iter::once(bin).chain(std::env::split_paths(
        &std::env::var_os("PATH").unwrap_or_default(),
    )))
    .expect("PATH can be joined");
    for ex in session {
        let out = Command::new("sh")
            .arg("-c")
            .arg(&ex.command)
            .current_dir(&dir)
            .env("PATH", &path)
            .env("HOME", &dir)
            .env("DAMA_EGTB", dir.join("egtb"))
            .env("NO_COLOR", "1")
            .output()
            .expect("sh runs");
        let stdout = String::from_utf8_lossy(&out.stdout);
        let got: Vec<&str> = stdout.lines().collect();
        if !out.status.success() || !lines_match(&ex.expected, &got) {
            failures.push(format!(
                "{}:{}: $ {}\n  status {}\n  expected:\n{}\n  got:\n{}\n  stderr:\n{}",
                ex.file,
                ex.line,
                ex.command,
                out.status,
                ex.expected.join("\n"),
                stdout,
                String::from_utf8_lossy(&out.stderr)
            ));
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

fn tempdir() -> PathBuf {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let dir = std::env::temp_dir().join(format!(
        "dama-readme-{}-{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::create_dir_all(&dir).expect("a temporary directory");
    dir
}

// About 8 CPU-seconds in debug (more wall time on a loaded machine): most of it the README's
// ten-game match and `dama bench`, which are what users run first.
#[test]
fn every_readme_example_prints_what_the_readme_shows() {
    let mut failures = Vec::new();
    let mut count = 0;
    for file in readmes() {
        let text = std::fs::read_to_string(&file).expect("the README is readable");
        let name = file
            .strip_prefix(workspace())
            .unwrap_or(&file)
            .display()
            .to_string();
        for session in sessions(&name, &text) {
            count += session.len();
            run_session(&session, &mut failures);
        }
    }
    assert!(
        count >= 5,
        "only {count} examples found: the parser lost them"
    );
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn the_matcher_elides_lines_and_text_and_nothing_else() {
    let e = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    assert!(lines_match(&e(&["a", "...", "d"]), &["a", "b", "c", "d"]));
    assert!(lines_match(&e(&["...", "d"]), &["d"]));
    assert!(!lines_match(&e(&["a", "d"]), &["a", "b", "d"]));
    assert!(!lines_match(&e(&["a"]), &["a", "b"]));
    assert!(line_matches("nodes [..] nps [..]", "nodes 12 nps 3400"));
    assert!(line_matches("x[..]", "x"));
    assert!(!line_matches("nodes [..] nps", "nodes 12 kps"));
    assert!(!line_matches("ab[..]ba", "aba"));
}
