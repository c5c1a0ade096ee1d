//! `dama egtb`: build, probe, info and verify through the command line.

use std::process::Command;

use crate::common::dama;

fn text(b: &[u8]) -> String {
    String::from_utf8(b.to_vec()).expect("utf-8 output")
}

#[test]
fn build_probe_info_verify() {
    let dir = std::env::temp_dir().join(format!("dama-egtb-cli-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let d = dir.to_str().unwrap();
    let o = dama(&["egtb", "build", "--pieces", "3", "--dir", d], None);
    assert!(o.status.success(), "{}", text(&o.stderr));
    // Not a terminal: one plain line per class pair.
    let err = text(&o.stderr);
    assert!(err.contains("egtb italian 1/"), "{err}");
    assert!(
        err.lines().any(|l| l.contains(" K-KK: 29760 positions")),
        "{err}"
    );

    // Two kings against one win; a king against a king, each in a double corner (the lone
    // king's refuge, docs/egtb.md), draws; a blocked king has lost; four pieces are not built;
    // a bad FEN is an error and the run goes on.
    let input =
        "W:WK1,K3:BK29\nW:WK4:BK29\nB:WK28,K23:BK32\nW:WK1,K2:BK29,K30\nW:X\nB:WK1,K3:BK29\n";
    let o = dama(&["egtb", "probe", "--dir", d, "--stdin"], Some(input));
    let out = text(&o.stdout);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 6, "{out}");
    assert!(lines[0].starts_with("win "), "{out}");
    assert_eq!(lines[1], "draw");
    assert_eq!(lines[2], "loss 0");
    assert_eq!(lines[3], "unknown");
    assert!(
        lines[4].starts_with("error: ") && lines[4].contains("W:X"),
        "{out}"
    );
    assert!(lines[5].starts_with("loss "), "{out}");
    assert_eq!(
        o.status.code(),
        Some(2),
        "a bad line makes the exit status 2"
    );

    let o = dama(
        &["egtb", "probe", "--dir", d, "--fen", "W:WK1,K3:BK29"],
        None,
    );
    assert!(o.status.success());
    assert_eq!(text(&o.stdout), format!("{}\n", lines[0]));

    // The directory from the environment.
    let o = Command::new(env!("CARGO_BIN_EXE_dama"))
        .args(["egtb", "probe", "--fen", "W:WK1,K3:BK29"])
        .env("DAMA_EGTB", d)
        .output()
        .unwrap();
    assert_eq!(text(&o.stdout), format!("{}\n", lines[0]));

    let o = dama(&["egtb", "info", "--dir", d], None);
    assert!(o.status.success());
    let out = text(&o.stdout);
    assert!(out.contains("complete up to 3 pieces"), "{out}");
    assert!(
        out.lines().any(|l| l.starts_with("KK-K positions=14880 ")),
        "{out}"
    );

    let o = dama(&["egtb", "verify", "--dir", d], None);
    assert!(o.status.success(), "{}", text(&o.stdout));
    let out = text(&o.stdout);
    assert!(out.lines().all(|l| l.contains(" ok ")), "{out}");
    // Chosen classes, two threads: one line each.
    let o = dama(
        &[
            "egtb",
            "verify",
            "--dir",
            d,
            "--class",
            "KK-K,KM-K",
            "--threads",
            "2",
        ],
        None,
    );
    let out = text(&o.stdout);
    assert!(o.status.success(), "{out}");
    assert_eq!(out.lines().count(), 2, "{out}");
    assert!(
        out.contains("KK-K ok 12864") && out.contains("KM-K ok "),
        "{out}"
    );
    let o = dama(&["egtb", "verify", "--dir", d, "--class", "KX-K"], None);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o.stderr));
    assert!(text(&o.stderr).contains("\"KX-K\""), "{}", text(&o.stderr));

    // Won 3-piece positions played out against the tables: Hard with them converts all.
    let o = dama(
        &[
            "egtb",
            "convert",
            "--dir",
            d,
            "--pieces",
            "3",
            "--positions",
            "4",
            "--nodes",
            "3000",
        ],
        None,
    );
    let out = text(&o.stdout);
    assert!(o.status.success(), "{out}{}", text(&o.stderr));
    assert_eq!(
        out.lines().filter(|l| l.contains(": won after ")).count(),
        4,
        "{out}"
    );
    assert!(out.contains("converted 4/4 (100.0 %)"), "{out}");
    // Kings-only starts (half with Black to move) and lost ones: every game at the start's
    // distance to the end, which the tables give as its perfect length.
    for start in ["won", "lost"] {
        let args = [
            "egtb",
            "convert",
            "--dir",
            d,
            "--pieces",
            "3",
            "--positions",
            "6",
        ];
        let o = dama(
            &[&args[..], &["--classes", "all", "--start", start]].concat(),
            None,
        );
        let out = text(&o.stdout);
        assert!(o.status.success(), "{out}{}", text(&o.stderr));
        let games: Vec<&str> = out.lines().filter(|l| l.contains(" after ")).collect();
        assert_eq!(games.len(), 6, "{out}");
        assert_eq!(
            games.iter().filter(|l| l.starts_with("B:")).count(),
            3,
            "{out}"
        );
        for g in games {
            let number = |after: &str| -> Option<u32> {
                let rest = &g[g.find(after)? + after.len()..];
                rest.split(|c: char| !c.is_ascii_digit())
                    .next()?
                    .parse()
                    .ok()
            };
            let perfect = number("(perfect ");
            assert!(perfect.is_some(), "{g}");
            assert_eq!(number(" after "), perfect, "{g}");
            assert!(
                g.contains(if start == "won" { ": won" } else { ": lost" }),
                "{g}"
            );
        }
        // No game with a move back to a position it had seen.
        assert!(
            !out.lines()
                .any(|l| l.contains(" after ") && l.contains("repeating")),
            "{out}"
        );
    }
    // Hard's side played by a Hub engine, a fresh one a game (here dama's own, its tables of
    // `init` off, in memory only: nothing written outside the test's directory).
    let engine = format!("{} engine", env!("CARGO_BIN_EXE_dama"));
    let args = [
        "egtb",
        "convert",
        "--dir",
        d,
        "--pieces",
        "3",
        "--positions",
        "2",
        "--nodes",
        "3000",
        "--engine",
        &engine,
        "--engine-param",
        "egtb-dir=",
    ];
    let o = dama(
        &[&args[..], &["--engine-param", "egtb-init=false"]].concat(),
        None,
    );
    let out = text(&o.stdout);
    assert!(o.status.success(), "{out}{}", text(&o.stderr));
    assert!(out.contains("converted 2/2 (100.0 %)"), "{out}");
    assert!(out.contains("the Hub engine "), "{out}");
    assert!(
        out.contains("the engine from its start to ready: "),
        "{out}"
    );
    let o = dama(
        &[&args[..], &["--engine-param", "egtb-init"]].concat(),
        None,
    );
    assert_eq!(o.status.code(), Some(2), "{}", text(&o.stderr));
    assert!(
        text(&o.stderr).contains("NAME=VALUE"),
        "{}",
        text(&o.stderr)
    );
    let o = dama(&["egtb", "convert", "--dir", d, "--pieces", "4"], None);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o.stderr).contains("up to 3 pieces, not 4"),
        "{}",
        text(&o.stderr)
    );

    // A match with the tables for one player only: from a won K+M v K, the player with the
    // tables, at depth 1, wins with White.
    let openings = dir.join("openings.txt");
    std::fs::write(&openings, "W:WK18,22:BK29\n").unwrap();
    let o = dama(
        &[
            "match",
            "depth:1",
            "depth:1",
            "--games",
            "2",
            "--egtb1",
            d,
            "--egtb2",
            "none",
            "--openings",
            openings.to_str().unwrap(),
            "--json",
        ],
        None,
    );
    let out = text(&o.stdout);
    assert!(o.status.success(), "{out}{}", text(&o.stderr));
    assert!(
        out.lines()
            .any(|l| l.contains(r#""first_is_white":true"#) && l.contains(r#""result":"1-0""#)),
        "{out}"
    );
    let o = dama(
        &[
            "match",
            "depth:1",
            "depth:1",
            "--egtb1",
            "/nonexistent/tables",
        ],
        None,
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o.stderr).contains("no complete set of"),
        "{}",
        text(&o.stderr)
    );

    // A damaged file: verify and probe say so.
    let path = dir.join("italian").join("KK-K.egtb");
    let mut bytes = std::fs::read(&path).unwrap();
    let n = bytes.len();
    bytes.truncate(n - 3);
    std::fs::write(&path, &bytes).unwrap();
    let o = dama(&["egtb", "verify", "--dir", d], None);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        text(&o.stdout).contains("KK-K error: "),
        "{}",
        text(&o.stdout)
    );
    // One position: its error on stderr, the file and what is wrong with it said once.
    let o = dama(
        &["egtb", "probe", "--dir", d, "--fen", "W:WK1,K3:BK29"],
        None,
    );
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(text(&o.stdout).is_empty());
    assert!(err.contains("truncated"), "{err}");
    assert_eq!(err.matches("not a valid table file").count(), 1, "{err}");
    assert_eq!(err.matches("KK-K.egtb").count(), 1, "{err}");
    let o = dama(&["egtb", "probe", "--dir", d, "--fen", "W:X"], None);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o.stdout).is_empty());
    assert!(text(&o.stderr).contains("W:X"), "{}", text(&o.stderr));
    // info: the tables are complete below the damaged class only.
    let o = dama(&["egtb", "info", "--dir", d], None);
    assert_eq!(o.status.code(), Some(1));
    let out = text(&o.stdout);
    assert!(
        out.starts_with(&format!(
            "egtb italian in {d}/italian: complete up to 2 pieces; 1 damaged"
        )),
        "{out}"
    );
    assert!(!out.contains("KK-K positions="), "{out}");
    let err = text(&o.stderr);
    assert_eq!(err.matches("not a valid table file").count(), 1, "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_tables_directory_that_does_not_exist_is_an_error() {
    for args in [
        &[
            "egtb",
            "probe",
            "--dir",
            "/nonexistent/tables",
            "--fen",
            "W:WK1,K3:BK29",
        ][..],
        &["egtb", "info", "--dir", "/nonexistent/tables"],
        &["egtb", "probe", "--dir", "/nonexistent/tables", "--stdin"],
    ] {
        let o = dama(args, Some("W:WK1,K3:BK29\n"));
        let err = text(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(
            err.contains("--dir /nonexistent/tables: no such directory"),
            "{err}"
        );
        assert!(text(&o.stdout).is_empty(), "{args:?}");
    }
    let o = Command::new(env!("CARGO_BIN_EXE_dama"))
        .args(["egtb", "probe", "--fen", "W:WK1,K3:BK29"])
        .env("DAMA_EGTB", "/nonexistent/env-tables")
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o.stderr).contains("$DAMA_EGTB /nonexistent/env-tables"));
    // dama serve's own option: refused before the server listens.
    #[cfg(feature = "serve")]
    {
        let o = dama(
            &[
                "serve",
                "--memory",
                "--port",
                "0",
                "--egtb",
                "/nonexistent/tables",
            ],
            None,
        );
        let err = text(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{err}");
        assert!(
            err.contains("--egtb /nonexistent/tables: no such directory"),
            "{err}"
        );
    }
}

#[test]
fn verify_without_tables_says_how_to_build_them() {
    let dir = std::env::temp_dir().join(format!("dama-egtb-none-{}", std::process::id()));
    let o = dama(&["egtb", "verify", "--dir", dir.to_str().unwrap()], None);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o.stderr).contains("dama egtb build"),
        "{}",
        text(&o.stderr)
    );
}

#[test]
fn seven_pieces_are_refused_without_allow_huge_with_an_estimate() {
    let dir = std::env::temp_dir().join(format!("dama-egtb-huge-{}", std::process::id()));
    let d = dir.to_str().unwrap();
    let o = dama(&["egtb", "build", "--pieces", "7", "--dir", d], None);
    assert_eq!(o.status.code(), Some(2));
    let err = text(&o.stderr);
    for needle in [
        "--pieces 7",
        "2.85 GB",
        "expect about",
        "GB and",
        "--allow-huge",
    ] {
        assert!(err.contains(needle), "{err} lacks {needle}");
    }
    assert!(!dir.exists(), "nothing built in {d}");
}
