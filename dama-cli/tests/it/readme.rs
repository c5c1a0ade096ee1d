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

/// The sessions of the docs whose figures a test can give: docs/tuning.md's SPRT examples
/// (about 20 CPU-seconds in debug, one game at a time, the same on every machine).
#[test]
fn docs_sessions_print_what_the_docs_show() {
    let mut failures = Vec::new();
    let mut count = 0;
    for name in ["docs/tuning.md"] {
        let text = std::fs::read_to_string(workspace().join(name)).expect("the doc is readable");
        for session in sessions(name, &text) {
            count += session.len();
            run_session(&session, &mut failures);
        }
    }
    assert!(count >= 3, "only {count} examples found");
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// The figures the CHANGELOG's [Unreleased] section and the docs give for `dama bench` are the
/// signature the README shows (which the README test checks against the binary).
#[test]
fn the_changelog_and_the_docs_give_the_readmes_bench_signature() {
    let root = workspace();
    let readme = std::fs::read_to_string(root.join("README.md")).expect("README");
    let signature = readme
        .lines()
        .find_map(|l| l.strip_prefix("signature "))
        .expect("the README shows `dama bench`'s signature")
        .trim()
        .to_string();
    let changelog = std::fs::read_to_string(root.join("CHANGELOG.md")).expect("CHANGELOG");
    let unreleased = changelog
        .split("\n## [")
        .nth(1)
        .expect("an [Unreleased] section");
    for text in [
        unreleased,
        &std::fs::read_to_string(root.join("docs/tuning.md")).unwrap(),
    ] {
        // Each "signature is now N" / "signature is N" names the current one.
        for (i, _) in text.match_indices("signature is ") {
            let rest = &text[i + "signature is ".len()..];
            let rest = rest.strip_prefix("now ").unwrap_or(rest);
            let n: String = rest.chars().take_while(char::is_ascii_digit).collect();
            if n.is_empty() {
                continue; // "the signature is unchanged"
            }
            assert_eq!(
                n,
                signature,
                "\"signature is {n}\" in:\n{:.300}",
                &text[i..]
            );
        }
    }
}

/// The README's list of commands names every subcommand of `dama tune` and `dama pdn`, as
/// `--help` lists them.
#[test]
fn the_readmes_command_list_names_every_tune_and_pdn_subcommand() {
    let readme = std::fs::read_to_string(workspace().join("README.md")).expect("README");
    let list = readme
        .split("## The `dama` command")
        .nth(1)
        .and_then(|rest| rest.split("```sh\n").nth(1))
        .and_then(|block| block.split("```").next())
        .expect("the README's command list");
    for command in ["tune", "pdn"] {
        let out = Command::new(env!("CARGO_BIN_EXE_dama"))
            .args([command, "--help"])
            .output()
            .expect("dama runs");
        let help = String::from_utf8_lossy(&out.stdout).to_string();
        let subcommands: Vec<&str> = help
            .split("Commands:\n")
            .nth(1)
            .expect("a list of commands")
            .lines()
            .take_while(|l| l.starts_with("  "))
            .filter_map(|l| l.split_whitespace().next())
            .filter(|&c| c != "help")
            .collect();
        assert!(subcommands.len() >= 2, "{help}");
        for sub in subcommands {
            assert!(
                list.contains(&format!("dama {command} {sub} ")),
                "`dama {command} {sub}` is missing from the README's command list:\n{list}"
            );
        }
    }
}

/// Each crate of the lean build and its features, as `cargo tree` resolves them.
fn crates_and_features(lean: bool) -> std::collections::BTreeMap<String, String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let mut cmd = Command::new(cargo);
    cmd.current_dir(workspace()).args([
        "tree",
        "--offline",
        "-p",
        "dama-cli",
        "-e",
        "normal,build",
        "--prefix",
        "none",
        "-f",
        "{p}|{f}",
    ]);
    if lean {
        cmd.arg("--no-default-features");
    }
    let out = cmd.output().expect("cargo runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| l.trim_end_matches(" (*)").split_once('|'))
        .map(|(p, f)| (p.replace(" (proc-macro)", ""), f.to_string()))
        .collect()
}

/// The README's two build commands share their work: every crate of the lean build
/// (`--no-default-features`, the `play` line) has the same features in the full build (the
/// `serve` line), so the second compiles only what the web server and the PNG renderer add.
#[test]
fn the_lean_build_shares_the_full_builds_crates() {
    let lean = crates_and_features(true);
    let full = crates_and_features(false);
    assert!(
        lean.len() > 50 && full.len() > lean.len(),
        "{} {}",
        lean.len(),
        full.len()
    );
    let differ: Vec<String> = lean
        .iter()
        .filter(|(p, _)| !p.starts_with("dama-cli "))
        .filter(|(p, f)| full.get(*p) != Some(f))
        .map(|(p, f)| format!("{p}: [{f}] lean, [{}] full", full.get(p).map_or("-", |s| s)))
        .collect();
    assert!(
        differ.is_empty(),
        "features that differ (give dama-cli's lean build the full build's):\n{}",
        differ.join("\n")
    );
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

/// The files a reader of the repository reads: docs, comments and scripts.
fn text_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().into_owned();
        if path.is_dir() {
            // Build output, virtual environments, caches and fuzz inputs are nobody's docs.
            let skip = matches!(
                name.as_str(),
                "target" | "corpus" | "node_modules" | "__pycache__"
            ) || (name.starts_with('.') && name != ".ci" && name != ".github");
            if !skip {
                text_files(&path, out);
            }
            continue;
        }
        let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
        let listed = [
            "md", "rs", "py", "pyi", "toml", "sh", "yaml", "yml", "js", "html", "css", "txt",
        ]
        .contains(&ext);
        if listed || name == "run" {
            out.push(path);
        }
    }
}

/// What a self-contained doc or comment may not say, in `line`: a path of the machine it was
/// written on, an internal tracker's number, or a file that is not in the repository.
fn outside_reference(line: &str) -> Option<String> {
    let lower = line.to_ascii_lowercase();
    // Spelt in pieces, so that this file does not match itself.
    let paths = [
        ["/wo", "rk/"].concat(),
        ["/ho", "me/"].concat(),
        ["/ro", "ot/"].concat(),
    ];
    let files = [["shared", "/spec"].concat(), ["STYLE", ".md"].concat()];
    for bad in paths.iter().chain(&files) {
        if lower.contains(&bad.to_ascii_lowercase()) {
            return Some(bad.clone());
        }
    }
    let word = ["iss", "ue"].concat();
    for (at, _) in lower.match_indices(&word) {
        let rest = lower[at + word.len()..].trim_start_matches('s');
        let rest = rest.trim_start_matches([' ', '#']);
        if rest.starts_with(|c: char| c.is_ascii_digit()) {
            return Some(format!("{word} N"));
        }
    }
    // Every Markdown file named under docs/ must be in the repository.
    for (at, _) in line.match_indices("docs/") {
        let name: String = line[at + 5..]
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '/'))
            .collect();
        let name = name.trim_end_matches('.');
        if name.ends_with(".md") && !workspace().join("docs").join(name).is_file() {
            return Some(format!("docs/{name}, which does not exist"));
        }
    }
    None
}

#[test]
fn the_docs_and_comments_name_no_machine_path_tracker_number_or_missing_file() {
    let mut files = Vec::new();
    text_files(&workspace(), &mut files);
    files.sort();
    assert!(
        files.len() > 100,
        "only {} files found: the walk lost them",
        files.len()
    );
    let mut found = Vec::new();
    for file in &files {
        let Ok(text) = std::fs::read_to_string(file) else {
            continue;
        };
        let name = file.strip_prefix(workspace()).unwrap_or(file).display();
        for (n, line) in text.lines().enumerate() {
            if let Some(what) = outside_reference(line) {
                found.push(format!("{name}:{}: {what}: {}", n + 1, line.trim()));
            }
        }
    }
    assert!(
        found.is_empty(),
        "the docs must be self-contained (docs/ holds the rules, the notation and the facts \
         the code relies on; write paths relative or as a placeholder, and say what a \
         tracker item was instead of its number):\n{}",
        found.join("\n")
    );
}

#[test]
fn the_self_containment_check_catches_what_it_should() {
    let spell = |parts: &[&str]| parts.concat();
    assert!(outside_reference(&spell(&["see /wo", "rk/egtb6/tables"])).is_some());
    assert!(outside_reference(&spell(&["as ", "/ho", "me/me/x says"])).is_some());
    assert!(outside_reference(&spell(&["removed (Iss", "ue 18)"])).is_some());
    assert!(outside_reference(&spell(&["iss", "ues 12 and 16"])).is_some());
    assert!(outside_reference(&spell(&["iss", "ue #7"])).is_some());
    assert!(outside_reference(&spell(&["from ../sha", "red/spec/perft.md"])).is_some());
    assert!(outside_reference(&spell(&["see docs/", "nowhere.md"])).is_some());
    assert!(outside_reference("see docs/rules.md and docs/egtb.md.").is_none());
    assert!(outside_reference("an issue with the table, 3 of them").is_none());
    assert!(outside_reference("~/.cache/dama/egtb by default").is_none());
}
