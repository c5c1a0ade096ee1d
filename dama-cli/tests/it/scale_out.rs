//! The scale-out recipe of docs/scale-out.md: 4 shards of a match, each a separate process
//! run by `deploy/slurm/match.sh` as a Slurm array task would run it, merged by
//! `dama pdn stats`, equal the unsharded match with the same seed.

use std::path::Path;
use std::process::{Command, Stdio};

use crate::common::dama;
use serde_json::Value;

const PLAYERS: [&str; 2] = ["nodes:120", "nodes:60"];
const GAMES: &str = "8";
const SEED: &str = "7";

/// The games of PDN `text`, each as its move text (tags dropped), sorted.
fn games(text: &str) -> Vec<String> {
    let mut out: Vec<String> = text
        .split("[Event ")
        .filter(|g| !g.trim().is_empty())
        .map(|g| {
            g.lines()
                .filter(|l| !l.starts_with('[') && !l.contains("\"]"))
                .flat_map(str::split_whitespace)
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect();
    out.sort();
    out
}

fn result(out: &[u8]) -> Value {
    let text = String::from_utf8_lossy(out);
    let last: Value = serde_json::from_str(text.lines().last().expect("a result line")).unwrap();
    assert_eq!(last["type"], "result");
    last["data"].clone()
}

#[test]
fn four_shards_run_apart_and_merged_equal_the_whole_match() {
    let dir = std::env::temp_dir().join(format!("dama-scale-out-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../deploy/slurm/match.sh");
    // The 4 array tasks at once, as separate processes.
    let tasks: Vec<_> = (1..=4)
        .map(|task| {
            Command::new("bash")
                .arg(&script)
                .env("DAMA", env!("CARGO_BIN_EXE_dama"))
                .env("FIRST", PLAYERS[0])
                .env("SECOND", PLAYERS[1])
                .env("GAMES", GAMES)
                .env("SEED", SEED)
                .env("OUT", &dir)
                // No endgame tables (see common::dama_bytes): the whole match below has none.
                .env("EXTRA", "--json --egtb1 none --egtb2 none")
                .env("SLURM_ARRAY_TASK_ID", task.to_string())
                .env("SLURM_ARRAY_TASK_MIN", "1")
                .env("SLURM_ARRAY_TASK_COUNT", "4")
                .env_remove("SLURM_CPUS_PER_TASK")
                .env_remove("SHARDS")
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .expect("bash runs the script")
        })
        .collect();
    let mut shard_games = 0;
    for (i, task) in tasks.into_iter().enumerate() {
        let o = task.wait_with_output().unwrap();
        assert!(
            o.status.success(),
            "task {}: {}",
            i + 1,
            String::from_utf8_lossy(&o.stderr)
        );
        shard_games += result(&o.stdout)["games"].as_u64().unwrap_or(0);
    }
    let mut files: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path().to_string_lossy().into_owned())
        .collect();
    files.sort();
    let names: Vec<String> = (1..=4).map(|k| format!("shard-{k}-of-4.pdn")).collect();
    assert_eq!(
        files
            .iter()
            .map(|f| f.rsplit('/').next().unwrap().to_string())
            .collect::<Vec<_>>(),
        names,
        "one complete PDN per shard, no .part left"
    );
    let mut args = vec!["pdn", "stats", "--json"];
    args.extend(files.iter().map(String::as_str));
    let merged = dama(&args, None);
    assert!(
        merged.status.success(),
        "{}",
        String::from_utf8_lossy(&merged.stderr)
    );
    let merged = result(&merged.stdout);

    let whole_pdn = dir.join("whole.pdn");
    let whole = dama(
        &[
            "match",
            PLAYERS[0],
            PLAYERS[1],
            "--games",
            GAMES,
            "--seed",
            SEED,
            "--concurrency",
            "2",
            "--json",
            "--pdn",
            whole_pdn.to_str().unwrap(),
        ],
        None,
    );
    assert!(
        whole.status.success(),
        "{}",
        String::from_utf8_lossy(&whole.stderr)
    );
    let whole = result(&whole.stdout);
    assert_eq!(whole["games"], 8);
    assert_eq!(shard_games, 8);
    for key in ["wins", "draws", "losses", "games", "score", "elo"] {
        assert_eq!(
            merged[key], whole[key],
            "{key}: merged {merged} whole {whole}"
        );
    }
    // Not only the totals: the very same games.
    let mut sharded = String::new();
    for f in &files {
        sharded.push_str(&std::fs::read_to_string(f).unwrap());
    }
    let whole_games = games(&std::fs::read_to_string(&whole_pdn).unwrap());
    assert_eq!(whole_games.len(), 8);
    let sharded_games = games(&sharded);
    for (a, b) in sharded_games.iter().zip(&whole_games) {
        assert_eq!(a, b, "a game differs");
    }
    assert_eq!(sharded_games.len(), whole_games.len());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_kubernetes_job_runs_the_same_shard_command() {
    // The manifest's pods count shards from JOB_COMPLETION_INDEX + 1 of SHARDS, which must
    // equal completions, and write the PDN the merge reads.
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../deploy/k8s/match-job.yaml");
    let text = std::fs::read_to_string(path).unwrap();
    let value = |key: &str| {
        text.lines()
            .map(str::trim)
            .find_map(|l| l.strip_prefix(key))
            .map(|v| v.trim().trim_matches('"').to_string())
            .unwrap_or_else(|| panic!("no {key}"))
    };
    assert_eq!(value("completionMode:"), "Indexed");
    let completions = value("completions:");
    let shards = text
        .split("name: SHARDS")
        .nth(1)
        .and_then(|rest| rest.lines().nth(1))
        .and_then(|l| l.trim().strip_prefix("value:"))
        .map(|v| v.trim().trim_matches('"').to_string());
    assert_eq!(shards.as_deref(), Some(completions.as_str()));
    for part in [
        "k=$((JOB_COMPLETION_INDEX + 1))",
        "--shard \"$k/$SHARDS\"",
        "--pdn \"$f.part\"",
        "mv \"$f.part\" \"$f\"",
        "mountPath: /results",
    ] {
        assert!(text.contains(part), "{part} missing");
    }
}

/// The games of a sample file, each as its debug text, sorted (shards interleave the games).
fn sample_games(path: &Path) -> Vec<String> {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let samples = dama_lab::tune::read_samples(&bytes).expect("a sample file");
    let mut games: Vec<String> = samples.games.iter().map(|g| format!("{g:?}")).collect();
    games.sort();
    games
}

#[test]
fn the_generation_recipe_shards_self_play_and_keeps_finished_shards() {
    let dir = std::env::temp_dir().join(format!("dama-scale-gen-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../deploy/slurm/tune-gen.sh");
    let task = |k: u32| {
        let o = Command::new("bash")
            .arg(&script)
            .env("DAMA", env!("CARGO_BIN_EXE_dama"))
            .env("GAMES", "4")
            .env("NODES", "100")
            .env("SEED", "3")
            .env("OUT", dir.join("samples"))
            .env("DAMA_EGTB", dir.join("no-tables"))
            .env("SLURM_ARRAY_TASK_ID", k.to_string())
            .env("SLURM_ARRAY_TASK_COUNT", "2")
            .env_remove("SLURM_ARRAY_TASK_MIN")
            .env_remove("SLURM_CPUS_PER_TASK")
            .env_remove("SHARDS")
            .output()
            .expect("bash runs the script");
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        String::from_utf8_lossy(&o.stdout).into_owned()
    };
    task(1);
    task(2);
    let mut names: Vec<String> = std::fs::read_dir(dir.join("samples"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["s1.samples", "s2.samples"], "no .tmp left");
    let mut sharded = sample_games(&dir.join("samples/s1.samples"));
    sharded.extend(sample_games(&dir.join("samples/s2.samples")));
    sharded.sort();

    let whole = dir.join("whole.samples");
    let o = dama(
        &[
            "tune",
            "gen",
            "--games",
            "4",
            "--nodes",
            "100",
            "--seed",
            "3",
            "--threads",
            "1",
            "--out",
            whole.to_str().unwrap(),
        ],
        None,
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(sharded.len(), 4);
    assert_eq!(
        sharded,
        sample_games(&whole),
        "the shards are the whole run"
    );

    // A repeated task keeps the finished shard (same bytes, same time stamp).
    let file = dir.join("samples/s1.samples");
    let before = (
        std::fs::read(&file).unwrap(),
        file.metadata().unwrap().modified().unwrap(),
    );
    assert!(task(1).contains("is there"));
    let after = (
        std::fs::read(&file).unwrap(),
        file.metadata().unwrap().modified().unwrap(),
    );
    assert_eq!(before, after);
    let _ = std::fs::remove_dir_all(&dir);
}
