//! `senet tablebase` and the `--tablebase` / `SENET_TABLEBASE` setting as a
//! user runs them: the real binary, real files, real exit statuses. The
//! tables here are K = 1 (812 positions), built in a moment; the K = 2
//! checks of the values themselves are unit tests in `src/ai/tablebase/`.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn senet(args: &[&str], env: &[(&str, &Path)]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_senet"));
    command.args(args).env_remove("SENET_TABLEBASE");
    for (name, value) in env {
        command.env(name, value);
    }
    command.output().expect("the senet binary runs")
}

fn json_of(output: &Output) -> serde_json::Value {
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).expect("JSON on stdout")
}

fn one_line_error(output: &Output, needle: &str) {
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains(needle), "{stderr}");
}

/// A fresh directory for one test's files.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("senet-tb-cli-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn build_k1(dir: &Path, name: &str) -> (PathBuf, serde_json::Value) {
    let file = dir.join(name);
    let report = json_of(&senet(
        &[
            "tablebase",
            "build",
            "--pieces",
            "1",
            "--out",
            file.to_str().unwrap(),
        ],
        &[],
    ));
    (file, report)
}

#[test]
fn build_is_deterministic_and_reports_its_convergence() {
    let dir = scratch("build");
    let (first, report) = build_k1(&dir, "a.tb");
    let (second, again) = build_k1(&dir, "b.tb");
    assert_eq!(report["positions"], 812);
    assert!(report["last_change"].as_f64().unwrap() < 1e-9, "{report}");
    assert_eq!(report["bytes"], 56 + 812 * 4);
    assert_eq!(report["sha256"], again["sha256"]);
    assert_eq!(
        std::fs::read(first).unwrap(),
        std::fs::read(second).unwrap()
    );
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn probe_prints_the_exact_chance_before_and_after_each_throw() {
    let dir = scratch("probe");
    let (file, _) = build_k1(&dir, "k1.tb");
    let file = file.to_str().unwrap();
    // White's last piece on 30 bears off with a 1 (4/16) and wins at once.
    let probe = json_of(&senet(
        &[
            "tablebase",
            "probe",
            file,
            "B............................W w",
        ],
        &[],
    ));
    let chance = probe["chance"].as_f64().unwrap();
    assert!(chance > 0.25 && chance < 1.0, "{probe}");
    let one = &probe["throws"][0];
    assert_eq!(
        (one["throw"].as_u64(), one["best"].as_u64()),
        (Some(1), Some(30))
    );
    assert_eq!(one["chance"], 1.0);
    let two = &probe["throws"][1];
    assert!(
        two["best"].is_null(),
        "a 2 cannot move the piece on 30: {two}"
    );
    one_line_error(
        &senet(
            &[
                "tablebase",
                "probe",
                file,
                "BB...........................W w",
            ],
            &[],
        ),
        "not in the table",
    );
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn bad_arguments_and_damaged_files_are_refused() {
    let dir = scratch("bad");
    let out = dir.join("k4.tb");
    one_line_error(
        &senet(
            &[
                "tablebase",
                "build",
                "--pieces",
                "4",
                "--out",
                out.to_str().unwrap(),
            ],
            &[],
        ),
        "--pieces must be from 1 to 3",
    );
    assert!(!out.exists(), "nothing is written for a refused build");
    let (file, _) = build_k1(&dir, "k1.tb");
    let mut bytes = std::fs::read(&file).unwrap();
    *bytes.last_mut().unwrap() ^= 1;
    let damaged = dir.join("damaged.tb");
    std::fs::write(&damaged, bytes).unwrap();
    let position = "B............................W w";
    one_line_error(
        &senet(
            &["bestmove", position, "1"],
            &[("SENET_TABLEBASE", &damaged)],
        ),
        "checksum",
    );
    one_line_error(
        &senet(
            &[
                "--tablebase",
                dir.join("missing.tb").to_str().unwrap(),
                "bestmove",
                position,
                "1",
            ],
            &[],
        ),
        "missing.tb",
    );
    let answer = json_of(&senet(
        &["bestmove", position, "1"],
        &[("SENET_TABLEBASE", &file)],
    ));
    assert_eq!(answer["from"], 30);
    std::fs::remove_dir_all(dir).unwrap();
}
