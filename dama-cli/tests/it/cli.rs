//! Runs the `dama` binary and checks stdout, stderr and the exit status.

use std::process::Output;

use crate::common::{dama, dama_bytes, dama_closed_stdout};

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).expect("utf-8 output")
}

fn stderr(o: &Output) -> String {
    String::from_utf8(o.stderr.clone()).expect("utf-8 output")
}

#[test]
fn moves_lists_hub_moves_one_per_line() {
    let o = dama(&["moves", "--fen", "W:W22,18:B13,14"], None);
    assert!(o.status.success(), "{}", stderr(&o));
    // 18 takes 13 (landing 9) or 14 (landing 11); Hub lists the captured square.
    assert_eq!(stdout(&o), "18x9x13\n18x11x14\n");
}

#[test]
fn moves_defaults_to_the_start_position() {
    let o = dama(&["moves"], None);
    assert_eq!(stdout(&o).lines().count(), 7);
}

#[test]
fn moves_in_pdn_format() {
    let o = dama(&["moves", "--fen", "W:W27:B23", "--format", "pdn"], None);
    assert_eq!(stdout(&o), "27x20\n");
}

#[test]
fn moves_of_each_variant() {
    // A man facing a king: Italian men may not take it, Spanish men may.
    let fen = "W:W22:BK18";
    assert_eq!(stdout(&dama(&["moves", "--fen", fen], None)), "22-19\n");
    let o = dama(&["moves", "--variant", "spanish", "--fen", fen], None);
    assert_eq!(stdout(&o), "22x13x18\n");
}

#[test]
fn stdin_gives_one_line_per_fen_and_goes_on_after_errors() {
    let input = "W:W22:B18\nnot a fen\nW:W:B1\nW:W29:B4\n";
    let o = dama(&["moves", "--stdin"], Some(input));
    assert_eq!(o.status.code(), Some(2));
    let out = stdout(&o);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 4, "{out}");
    assert_eq!(lines[0], "22x13x18");
    assert!(
        lines[1].starts_with("error: ") && lines[1].contains("not a fen"),
        "{}",
        lines[1]
    );
    assert_eq!(lines[2], "");
    assert_eq!(lines[3], "29-25 29-26");
}

#[test]
fn stdin_line_that_is_not_utf8_is_reported_and_the_run_goes_on() {
    let input = b"W:W22:B18\n\xff\xfeW:W1\r\nW:W29:B4\r\n";
    let o = dama_bytes(&["moves", "--stdin"], input);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        stdout(&o),
        "22x13x18\nerror: line 2: not UTF-8\n29-25 29-26\n"
    );
}

#[test]
fn a_30_mb_line_is_quoted_as_a_short_excerpt() {
    let mut input = b"W:W21:B".to_vec();
    input.resize(30_000_000, b'1');
    input.push(b'\n');
    let o = dama_bytes(&["moves", "--stdin"], &input);
    assert_eq!(o.status.code(), Some(2));
    let out = stdout(&o);
    assert!(out.len() < 200, "{} bytes: {out:.300}", out.len());
    assert!(out.starts_with("error: bad FEN \"W:W21:B111"), "{out}");
    assert!(out.contains("1…\""), "{out}");
}

#[test]
fn control_characters_of_the_input_are_escaped() {
    let o = dama_bytes(&["moves", "--stdin"], b"W:W21:B\x1b[2J\x07\n");
    let out = stdout(&o);
    assert_eq!(
        out,
        "error: bad FEN \"W:W21:B\\u{1b}[2J\\u{7}\": item \"\\u{1b}[2J\\u{7}\" is not a \
         square, a range or K with a square\n"
    );
    let o = dama(&["moves", "--fen", "W:W21:B\u{9b}31m"], None);
    assert!(stderr(&o).contains("\\u{9b}31m"), "{}", stderr(&o));
}

#[test]
fn stdin_all_good_exits_zero() {
    let o = dama(&["moves", "--stdin"], Some("W:W21-32:B1-12\n"));
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(stdout(&o).split(' ').count(), 7);
}

#[test]
fn bad_fen_is_quoted_with_status_2() {
    let o = dama(&["moves", "--fen", "W:W35:B1"], None);
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(err.contains("W:W35:B1") && err.contains("35"), "{err}");
    assert!(stdout(&o).is_empty());
}

#[test]
fn a_man_on_its_promotion_row_or_an_empty_board_is_refused_in_every_variant() {
    for variant in [
        "italian",
        "spanish",
        "czech",
        "english",
        "russian",
        "brazilian",
    ] {
        for (fen, needle) in [
            ("W:W1:B32", "a white man on 1, white's promotion row"),
            ("B:W1,22:B18", "a white man on 1,"),
            ("W:W22:B9,30", "a black man on 30, black's promotion row"),
            ("B:W:B", "no pieces at all"),
        ] {
            let o = dama(&["moves", "--variant", variant, "--fen", fen], None);
            let err = stderr(&o);
            assert_eq!(o.status.code(), Some(2), "{variant} {fen}: {err}");
            assert!(
                err.contains(fen) && err.contains(needle),
                "{variant} {fen}: {err}"
            );
        }
        // One side without pieces: a finished game, no moves.
        let o = dama(&["moves", "--variant", variant, "--fen", "B:W18:B"], None);
        assert_eq!((o.status.code(), stdout(&o)), (Some(0), String::new()));
    }
}

#[test]
fn unknown_variant_is_quoted_with_status_2() {
    let o = dama(&["perft", "--variant", "chess", "--depth", "1"], None);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("chess"));
}

#[test]
fn perft_refuses_a_depth_it_would_never_finish() {
    let o = dama(&["perft", "--depth", "100"], None);
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(err.contains("'100'") && err.contains("0..=20"), "{err}");
    assert!(stdout(&o).is_empty());
}

#[test]
fn perft_prints_one_line_per_depth() {
    let o = dama(&["perft", "--depth", "4"], None);
    assert!(o.status.success());
    let out = stdout(&o);
    let counts: Vec<(u32, u64)> = out
        .lines()
        .map(|l| {
            let w: Vec<&str> = l.split_whitespace().collect();
            assert_eq!(
                (w[0], w[2], w[4], w[6]),
                ("depth", "nodes", "time", "nps"),
                "{l}"
            );
            (w[1].parse().expect("depth"), w[3].parse().expect("nodes"))
        })
        .collect();
    assert_eq!(counts, [(1, 7), (2, 49), (3, 302), (4, 1469)]);
}

#[test]
fn perft_depth_zero_prints_one() {
    let o = dama(&["perft", "--depth", "0"], None);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert_eq!(out.lines().count(), 1, "{out}");
    assert!(out.starts_with("depth 0 nodes 1 time "), "{out}");
    let o = dama(&["perft", "--depth", "0", "--divide"], None);
    assert_eq!(stdout(&o).lines().count(), 1, "{}", stdout(&o));
}

#[test]
fn perft_stops_after_the_first_depth_with_no_leaves() {
    // No white piece: nothing to count from depth 1 on, whatever the depth asked.
    let o = dama(&["perft", "--fen", "W:W:B1", "--depth", "20"], None);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert_eq!(out.lines().count(), 1, "{out}");
    assert!(out.starts_with("depth 1 nodes 0 "), "{out}");
    // 18 takes the last black man: one leaf at depth 1, none at depth 2.
    let o = dama(&["perft", "--fen", "W:W18:B14", "--depth", "20"], None);
    let depths: Vec<String> = stdout(&o)
        .lines()
        .map(|l| l.split(' ').take(4).collect::<Vec<_>>().join(" "))
        .collect();
    assert_eq!(depths, ["depth 1 nodes 1", "depth 2 nodes 0"]);
}

#[test]
fn perft_divide_lists_moves_first() {
    let o = dama(&["perft", "--depth", "3", "--divide"], None);
    let out = stdout(&o);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 7 + 3);
    let total: u64 = lines[..7]
        .iter()
        .map(|l| {
            l.rsplit(' ')
                .next()
                .expect("count")
                .parse::<u64>()
                .expect("number")
        })
        .sum();
    assert_eq!(total, 302);
    assert!(lines[7].starts_with("depth 1 nodes 7 "));
}

#[test]
fn perft_from_a_fen_and_variant() {
    let o = dama(&["perft", "--variant", "russian", "--depth", "5"], None);
    assert!(stdout(&o)
        .lines()
        .last()
        .expect("a line")
        .starts_with("depth 5 nodes 7482 "));
    let o = dama(
        &["perft", "--fen", "W:WK22:B10,11,18,19", "--depth", "1"],
        None,
    );
    assert!(stdout(&o).starts_with("depth 1 nodes 1 "));
}

#[test]
fn a_closed_stdout_ends_every_command_quietly_with_status_0() {
    let pdn = "[Event \"a\"]\n\n1. 22-18 *\n";
    for (args, stdin) in [
        (&["perft", "--depth", "3"][..], ""),
        (&["perft", "--depth", "3", "--divide"], ""),
        (&["bench", "--depth", "1"], ""),
        (&["moves"], ""),
        (&["moves", "--stdin"], "W:W22:B18\n"),
        (&["analyze", "--depth", "3"], "W:W21-32:B1-12\n"),
        (
            &["analyze", "--depth", "3", "--json", "--fen", "W:W22:B18"],
            "",
        ),
        (
            &["analyze", "--pdn", "-", "--annotate", "--depth", "1"],
            pdn,
        ),
        (&["board", "--plain"], "W:W22:B18\n"),
        (&["completions", "bash"], ""),
        (&["pdn", "fens", "-"], pdn),
        (&["pdn", "convert", "-"], pdn),
        (&["book", "show"], ""),
        (&["engine"], "hub\n"),
        (&["match", "depth:1", "depth:1", "--games", "2"], ""),
        (&["play", "--plain"], ""),
    ] {
        let o = dama_closed_stdout(args, stdin);
        assert_eq!(o.status.code(), Some(0), "{args:?}: {}", stderr(&o));
        assert_eq!(stderr(&o), "", "{args:?}");
    }
}

#[test]
fn the_exit_statuses_are_documented_in_help_and_held_to() {
    let help = stdout(&dama(&["--help"], None));
    for line in [
        "Exit status:\n",
        "\n  0  success;",
        "\n  1  the command ran, and what it checks is not all good",
        "\n  2  bad input or I/O",
    ] {
        assert!(help.contains(line), "{help}");
    }
    let garbage = std::env::temp_dir().join(format!("dama-cli-{}-garbage.pdn", std::process::id()));
    std::fs::write(&garbage, "garbage\n").unwrap();
    let g = garbage.to_str().unwrap();
    let missing = "/nonexistent/games.pdn";
    for (args, status) in [
        (&["pdn", "check", g][..], 1),
        (&["pdn", "fens", g], 1),
        (&["pdn", "convert", g], 1),
        (&["analyze", "--pdn", g, "--depth", "1"], 2),
        (&["board", "--pdn", g], 2),
        (&["pdn", "check", missing], 2),
        (&["pdn", "fens", missing], 2),
        (&["pdn", "stats", missing], 2),
        (&["analyze", "--pdn", missing], 2),
        (&["match", "depth:1", "depth:1", "--openings", missing], 2),
        (&["book", "show", "--book", missing], 2),
        (&["tune", "fit", missing, "--out", "/nonexistent/w"], 2),
        (&["moves", "--fen", "W:W22:B18"], 0),
    ] {
        let o = dama(args, None);
        assert_eq!(o.status.code(), Some(status), "{args:?}: {}", stderr(&o));
        if status == 2 {
            assert!(stderr(&o).starts_with("dama: "), "{args:?}: {}", stderr(&o));
        }
    }
    let _ = std::fs::remove_file(garbage);
}

/// Runs `dama` with `args` (any bytes) in the directory `dir`, standard input empty (not a
/// terminal), and fails the test if it runs longer than a minute.
fn dama_os(args: &[std::ffi::OsString], dir: &std::path::Path) -> Output {
    use std::io::Read;
    use std::process::{Command, Stdio};
    let mut child = Command::new(env!("CARGO_BIN_EXE_dama"))
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the dama binary runs");
    let drain = |mut r: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            r.read_to_end(&mut bytes).map(|_| bytes)
        })
    };
    let out = drain(Box::new(child.stdout.take().expect("piped")));
    let err = drain(Box::new(child.stderr.take().expect("piped")));
    let start = std::time::Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("dama runs") {
            break status;
        }
        if start.elapsed() > std::time::Duration::from_secs(60) {
            let _ = child.kill();
            panic!("dama {args:?} runs for more than a minute");
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    };
    Output {
        status,
        stdout: out.join().expect("reads").expect("stdout"),
        stderr: err.join().expect("reads").expect("stderr"),
    }
}

/// About 10 s in debug: some 630 runs of the command, each its own process (the unit test of
/// the parser checks every argument in-process; this one runs the commands the values reach).
#[test]
fn extreme_arguments_never_panic_and_errors_quote_them() {
    use std::ffi::OsString;
    let dir = std::env::temp_dir().join(format!("dama-cli-{}-extreme", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let pdn = dir.join("game.pdn");
    std::fs::write(&pdn, "[Event \"a\"]\n\n1. 22-18 *\n").unwrap();
    let pdn = pdn.to_str().unwrap().to_string();
    let out = dir.join("out").to_str().unwrap().to_string();
    let tables = dir.to_str().unwrap().to_string();
    let samples = dir.join("s.samples").to_str().unwrap().to_string();
    let args = [
        "tune",
        "gen",
        "--games",
        "2",
        "--nodes",
        "50",
        "--threads",
        "1",
        "--out",
    ];
    let mut gen: Vec<std::ffi::OsString> = args.iter().map(Into::into).collect();
    gen.push(samples.clone().into());
    assert!(dama_os(&gen, &dir).status.success());
    let fen = "W:W22:B18";
    // Each template has one `V`, the argument under test; the rest keeps a run short.
    let templates: Vec<Vec<&str>> = vec![
        vec!["moves", "--fen", "V"],
        vec!["moves", "--variant", "V"],
        vec!["moves", "--format", "V"],
        vec!["perft", "--depth", "V"],
        vec!["perft", "--depth", "1", "--fen", "V"],
        vec!["perft", "--depth", "1", "--variant", "V"],
        vec!["analyze", "--fen", fen, "--depth", "V"],
        vec!["analyze", "--fen", fen, "--time", "V"],
        vec!["analyze", "--fen", fen, "--depth", "1", "--nodes", "V"],
        vec!["analyze", "--fen", fen, "--depth", "1", "--multipv", "V"],
        vec!["analyze", "--fen", fen, "--depth", "1", "--threads", "V"],
        vec!["analyze", "--fen", fen, "--depth", "1", "--level", "V"],
        vec!["analyze", "--depth", "1", "--fen", "V"],
        vec!["analyze", "--depth", "1", "--pdn", "V"],
        vec!["analyze", "--depth", "1", "--pdn", &pdn, "--game", "V"],
        vec!["analyze", "--depth", "1", "--pdn", &pdn, "--ply", "V"],
        vec![
            "analyze",
            "--depth",
            "1",
            "--pdn",
            &pdn,
            "--annotate",
            "--margin",
            "V",
        ],
        vec!["match", "V", "depth:1", "--games", "2"],
        vec!["match", "depth:1", "depth:1", "--games", "V"],
        vec![
            "match",
            "depth:1",
            "depth:1",
            "--games",
            "2",
            "--movetime",
            "V",
        ],
        vec![
            "match", "depth:1", "depth:1", "--games", "2", "--nodes", "V",
        ],
        vec![
            "match",
            "depth:1",
            "depth:1",
            "--games",
            "2",
            "--concurrency",
            "V",
        ],
        vec![
            "match", "depth:1", "depth:1", "--games", "2", "--shard", "V",
        ],
        vec!["match", "depth:1", "depth:1", "--games", "2", "--seed", "V"],
        vec![
            "match",
            "depth:1",
            "depth:1",
            "--games",
            "2",
            "--openings",
            "V",
        ],
        vec![
            "match", "depth:1", "depth:1", "--games", "2", "--egtb1", "V",
        ],
        vec![
            "match",
            "depth:1",
            "depth:1",
            "--games",
            "2",
            "--variant",
            "V",
        ],
        vec!["board", "--fen", "V"],
        vec!["board", "--fen", fen, "--move", "V"],
        vec!["board", "--fen", fen, "--svg", "V"],
        vec!["board", "--fen", fen, "--png", "V"],
        vec!["bench", "--depth", "V"],
        vec!["completions", "V"],
        vec!["pdn", "check", "V"],
        vec!["pdn", "fens", "V"],
        vec!["pdn", "stats", "V"],
        vec!["pdn", "--variant", "V", "check", &pdn],
        vec!["egtb", "probe", "--fen", "V"],
        vec!["egtb", "probe", "--dir", "V", "--fen", fen],
        vec!["egtb", "info", "--dir", "V"],
        vec!["egtb", "info", "--variant", "V"],
        vec!["egtb", "build", "--dir", &out, "--pieces", "V"],
        vec!["egtb", "verify", "--dir", &tables, "--pieces", "V"],
        vec!["egtb", "verify", "--dir", &tables, "--class", "V"],
        vec!["book", "show", "--fen", "V"],
        vec!["book", "show", "--book", "V"],
        vec!["book", "build", "--out", &out, "--positions", "V"],
        vec!["tune", "gen", "--out", &out, "--games", "V"],
        vec![
            "tune", "fit", &samples, "--out", &out, "--epochs", "1", "--rate", "V",
        ],
        vec![
            "tune", "fit", &samples, "--out", &out, "--epochs", "1", "--l2", "V",
        ],
        vec!["tune", "fit", &samples, "--out", &out, "--epochs", "V"],
        vec!["tune", "fit", "V", "--out", &out],
        vec!["tune", "train", &samples, "--out", &out, "--lambda", "V"],
        vec!["tune", "train", &samples, "--out", &out, "--epochs", "V"],
        vec!["tune", "train", &samples, "--out", &out, "--batch", "V"],
        vec!["tune", "train", "V", "--out", &out],
        vec!["tune", "train", &samples, "--out", &out, "--from", "V"],
        vec!["tune", "train", &samples, "--out", &out, "--egtb", "V"],
        vec!["tune", "label", &samples, "--out", &out, "--nodes", "V"],
        vec!["tune", "label", &samples, "--out", &out, "--threads", "V"],
        vec!["tune", "label", "V", "--out", &out],
        vec!["bench", "--depth", "1", "--knobs", "V"],
        vec!["bench", "--depth", "1", "--eval-file", "V"],
        vec!["play", "--plain", "--fen", "V"],
        vec!["play", "--plain", "--level", "V"],
        vec!["play", "--plain", "--seed", "V"],
        vec!["serve", "--port", "V"],
        vec!["serve", "--max-games", "V"],
        vec!["--log-level", "V", "moves"],
    ];
    let mut values: Vec<OsString> = [
        "99999999999999999999",
        "1e308",
        "-1",
        "NaN",
        "inf",
        "",
        " ",
        "999999999999999999999999999999x/0",
    ]
    .iter()
    .map(OsString::from)
    .collect();
    #[cfg(unix)]
    values.push(std::os::unix::ffi::OsStringExt::from_vec(
        b"\xff\xfe".to_vec(),
    ));
    let mut runs = 0;
    for template in &templates {
        for value in &values {
            let args: Vec<OsString> = template
                .iter()
                .map(|a| {
                    if *a == "V" {
                        value.clone()
                    } else {
                        OsString::from(a)
                    }
                })
                .collect();
            // In the test's directory: files named by the value are written there.
            let o = dama_os(&args, &dir);
            runs += 1;
            let err = String::from_utf8_lossy(&o.stderr).to_string();
            let code = o.status.code();
            assert!(
                matches!(code, Some(0..=2)),
                "dama {args:?}: status {code:?}: {err}"
            );
            assert!(!err.contains("panicked"), "dama {args:?}: {err}");
            let shown = value.to_string_lossy();
            if code == Some(2) && !shown.trim().is_empty() {
                assert!(
                    err.contains(shown.as_ref())
                        || (shown.contains('\u{fffd}') && err.contains("UTF-8")),
                    "dama {args:?}: the error does not quote {shown:?}: {err}"
                );
            }
        }
    }
    assert_eq!(runs, templates.len() * values.len());
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn tune_train_writes_a_net_that_bench_loads_and_a_corrupt_one_is_refused() {
    use std::ffi::OsString;
    let dir = std::env::temp_dir().join(format!("dama-cli-{}-train", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let os = |args: &[&str]| -> Vec<OsString> { args.iter().map(OsString::from).collect() };
    let gen = os(&[
        "tune",
        "gen",
        "--games",
        "3",
        "--nodes",
        "60",
        "--threads",
        "1",
        "--out",
        "s.samples",
    ]);
    assert!(dama_os(&gen, &dir).status.success());
    // Labelled again by a deeper search: the same games, searched, and they train.
    let label = os(&[
        "tune",
        "label",
        "s.samples",
        "--nodes",
        "400",
        "--threads",
        "1",
        "--out",
        "d.samples",
    ]);
    let o = dama_os(&label, &dir);
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(stdout.starts_with("games 3 positions "), "{stdout}");
    assert!(stdout.contains(" nodes 400 "), "{stdout}");
    assert_eq!(
        std::fs::metadata(dir.join("d.samples")).unwrap().len(),
        std::fs::metadata(dir.join("s.samples")).unwrap().len()
    );
    // The options every run below shares, then its own.
    let train_with = |own: &[&str]| {
        let mut args = vec![
            "tune",
            "train",
            "d.samples",
            "--batch",
            "64",
            "--threads",
            "1",
            "--holdout",
            "3",
        ];
        args.extend_from_slice(own);
        os(&args)
    };
    let train = train_with(&["--epochs", "2", "--checkpoint", "t.ckpt", "--out", "t.nnue"]);
    let o = dama_os(&train, &dir);
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(stdout.contains("epochs 2 held-out loss before"), "{stdout}");
    // Resuming a finished run trains no more epochs.
    let o = dama_os(&train, &dir);
    assert!(String::from_utf8_lossy(&o.stderr).contains("resuming"));
    // Going on from a net file: with no epoch the same net comes out; a file that is not a
    // net is refused with its name.
    let from = |src: &str, epochs: &str, out: &str| {
        train_with(&["--epochs", epochs, "--from", src, "--out", out])
    };
    let o = dama_os(&from("t.nnue", "0", "same.nnue"), &dir);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(
        std::fs::read(dir.join("same.nnue")).unwrap(),
        std::fs::read(dir.join("t.nnue")).unwrap()
    );
    let o = dama_os(&from("t.nnue", "1", "more.nnue"), &dir);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_ne!(
        std::fs::read(dir.join("more.nnue")).unwrap(),
        std::fs::read(dir.join("t.nnue")).unwrap()
    );
    let o = dama_os(&from("s.samples", "1", "no.nnue"), &dir);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("--from s.samples") && err.contains("DAMANNUE"),
        "{err}"
    );
    assert!(!dir.join("no.nnue").exists());
    // Labels again by table files: the count is said; a directory without tables is refused.
    let build = os(&["egtb", "build", "--pieces", "3", "--dir", "egtb"]);
    assert!(dama_os(&build, &dir).status.success());
    let relabel =
        |tables: &str, out: &str| train_with(&["--epochs", "0", "--egtb", tables, "--out", out]);
    let o = dama_os(&relabel("egtb", "e.nnue"), &dir);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    assert!(
        err.contains("labels changed by the tables of up to 3 pieces"),
        "{err}"
    );
    let o = dama_os(&relabel("nowhere", "n.nnue"), &dir);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("--egtb nowhere: no italian endgame tables"),
        "{err}"
    );
    assert!(!dir.join("n.nnue").exists());
    let bench = os(&["bench", "--depth", "3", "--eval-file", "t.nnue"]);
    let o = dama_os(&bench, &dir);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let mut bytes = std::fs::read(dir.join("t.nnue")).unwrap();
    bytes[1000] ^= 1;
    std::fs::write(dir.join("bad.nnue"), bytes).unwrap();
    let o = dama_os(
        &os(&["bench", "--depth", "3", "--eval-file", "bad.nnue"]),
        &dir,
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("checksum"));
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn logs_into_a_file_or_pipe_have_no_colour_codes() {
    // stderr is a pipe here, as a log file or a CI log is: plain text, with or without
    // NO_COLOR (colour needs a terminal).
    let o = dama(
        &["--log-level", "debug", "play", "--plain", "--seed", "3"],
        Some(""),
    );
    let err = stderr(&o);
    assert!(
        err.contains("computer seed"),
        "the log line is there: {err}"
    );
    assert!(!err.contains('\u{1b}'), "an ESC byte in the log: {err:?}");
}

#[test]
fn a_pdn_file_with_no_game_is_an_error_not_a_count_of_zero() {
    let dir = std::env::temp_dir().join(format!("dama-cli-{}-nogames", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let empty = dir.join("empty.pdn");
    std::fs::write(&empty, "").unwrap();
    let blank = dir.join("blank.pdn");
    std::fs::write(&blank, "\n  \n\n").unwrap();
    for file in [&empty, &blank] {
        let f = file.to_str().unwrap();
        for action in ["check", "fens", "convert", "stats"] {
            let o = dama(&["pdn", action, f], None);
            assert_eq!(o.status.code(), Some(2), "pdn {action} {f}: {}", stderr(&o));
            assert!(
                !stdout(&o).contains("0 games"),
                "pdn {action}: {}",
                stdout(&o)
            );
            assert!(!stdout(&o).contains("0.0%"), "pdn {action}: {}", stdout(&o));
            let err = stderr(&o);
            assert!(
                err.starts_with("dama: ") && err.contains(f),
                "pdn {action}: {err}"
            );
            assert!(err.contains("no games"), "pdn {action}: {err}");
        }
    }
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn annotations_are_from_whites_side_and_say_so() {
    // Black to move wins at once (18x25 leaves White nothing): the comment after Black's
    // move names Black, not White's "loss", and counts Black's move.
    let pdn = "[FEN \"B:W21:B18\"]\n\n1... 18x25 0-1\n";
    let o = dama(
        &["analyze", "--pdn", "-", "--annotate", "--depth", "3"],
        Some(pdn),
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(
        out.contains("[Annotator \"dama analyze --annotate: scores in men from White's side"),
        "{out}"
    );
    assert!(!out.contains("loss in"), "{out}");
    assert!(out.contains("18x25 {black: win in 1}"), "{out}");
    let o = dama(&["analyze", "--help"], None);
    let help = stdout(&o);
    assert!(help.contains("for the side to move"), "{help}");
    assert!(help.contains("from White's side"), "{help}");
}
