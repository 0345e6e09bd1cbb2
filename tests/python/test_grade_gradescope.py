#!/usr/bin/env python3
"""tests/python/test_grade_gradescope.py — examples/gradescope/run_autograder run the way
Gradescope runs it (with /autograder moved to a temporary folder): results.json is
always written and carries the specification's fields with their types, for a
correct, a wrong, a broken and a missing submission.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np

src = os.environ.get("ATTN_SOURCE_DIR", os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
attn = os.environ.get("ATTN_BIN", "build/attn")
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


# When Gradescope shows the student's total: the latest visibility of the tests that
# are not hidden (hidden tests carry no points and do not count), from its spec.
TOTAL_LATER = "Your total score is shown after the due date"
TOTAL_PUBLISHED = "Your total score is shown when your teacher publishes the grades"


def total_shown(tests):
    order = ["visible", "after_due_date", "after_published"]
    return order[max([order.index(t["visibility"]) for t in tests if t["visibility"] != "hidden"], default=0)]


def softmax(x):
    e = np.exp(x - x.max())
    return e / e.sum()


def validate(res, where):
    """Gradescope's results.json field list (autograder specifications)."""
    check(isinstance(res.get("score"), (int, float)), f"{where}: score is a number")
    check(isinstance(res.get("output"), str), f"{where}: output is text")
    check(res.get("visibility") in (None, "visible", "hidden", "after_due_date", "after_published"), f"{where}: visibility")
    check(isinstance(res.get("tests"), list), f"{where}: tests is a list")
    for t in res.get("tests", []):
        check(set(t) >= {"name", "score", "max_score", "status", "output", "visibility"}, f"{where}: test fields {sorted(t)}")
        check(isinstance(t["name"], str) and isinstance(t["output"], str), f"{where}: name and output are text")
        check(isinstance(t["score"], (int, float)) and isinstance(t["max_score"], (int, float)), f"{where}: scores are numbers")
        check(t["status"] in ("passed", "failed"), f"{where}: status {t['status']}")
        check(0 <= t["score"] <= t["max_score"] + 1e-9, f"{where}: 0 <= score <= max_score")
        check(isinstance(t.get("number", ""), str), f"{where}: number is a string")
    total = sum(t["score"] for t in res.get("tests", []))
    check(abs(total - res["score"]) < 1e-6, f"{where}: score {res['score']} is the sum of the tests' {total}")


def run(root):
    env = dict(os.environ, AUTOGRADER_ROOT=root, ATTN_BIN=attn)
    env.pop("ATTN_COURSE_SECRET", None)
    p = subprocess.run([os.path.join(src, "examples", "gradescope", "run_autograder")], env=env, capture_output=True, text=True)
    check(p.returncode == 0, f"run_autograder exits 0 ({p.returncode}): {p.stderr[:200]}")
    path = os.path.join(root, "results", "results.json")
    check(os.path.exists(path), "results.json is written")
    return json.load(open(path))


with tempfile.TemporaryDirectory() as d:
    os.makedirs(os.path.join(d, "source"))
    open(os.path.join(d, "source", "course.secret"), "w").write("gradescope-test-secret\n")
    meta = {"users": [{"email": "ana@uni.edu", "id": 1, "name": "Ana"}]}
    json.dump(meta, open(os.path.join(d, "submission_metadata.json"), "w"))

    def submit(files):
        sub = os.path.join(d, "submission")
        shutil.rmtree(sub, ignore_errors=True)
        shutil.rmtree(os.path.join(d, "results"), ignore_errors=True)
        if files is not None:
            os.makedirs(sub)
            for name, text in files.items():
                os.makedirs(os.path.dirname(os.path.join(sub, name)), exist_ok=True)
                open(os.path.join(sub, name), "w").write(text)
        return run(d)

    # The student's numbers, as the teacher handed them out (student id from the metadata).
    env = dict(os.environ, ATTN_COURSE_SECRET="gradescope-test-secret")
    info = json.loads(subprocess.run([attn, "exercise", "show", "04-cross-the", "--student", "ana@uni.edu", "--format", "json"],
                                     env=env, check=True, capture_output=True, text=True).stdout)
    q, k, v = (np.array(info["inputs"][r], float) for r in ("q", "k", "v"))
    raw = (q @ k.T)[0]
    w = softmax(raw / 2.0)
    good = {"04-cross-the": {"raw": raw.tolist(), "scaled": (raw / 2).tolist(), "weights": w.tolist(), "output": (w @ v).tolist()},
            "04-qkv-from": {"Q": "target", "K": "source", "V": "source"}}
    res = submit({"answers.json": json.dumps(good)})
    validate(res, "correct")
    check(res["score"] == 7.0, f"the two answered exercises earn their 7 points: {res['score']}")
    check(res.get("max_score") == 12.0, f"max_score covers the whole assignment: {res.get('max_score')}")

    wrong = json.loads(json.dumps(good))
    wrong["04-cross-the"]["weights"] = softmax(raw).tolist()
    res = submit({"answers.json": json.dumps(wrong)})
    validate(res, "wrong")
    failed = [t for t in res["tests"] if t["status"] == "failed" and "weights" in t["name"]]
    check(failed and "no scaling" in failed[0]["output"] and "rtol" in failed[0]["output"],
          f"the failed weights test names the mistake: {failed[:1]}")
    check(total_shown(res["tests"]) == "visible" and "Your total score is shown" not in res["output"],
          "every test visible: the total is shown at once, no note")

    # An assignment file in the zip: its points, an unanswered exercise at 0, the full
    # feedback in tests released after the due date, none of it in the visible tests.
    assignment = os.path.join(d, "source", "assignment.toml")
    open(assignment, "w").write('release_expected = "after_due_date"\n[[exercise]]\nid = "04-cross-the"\npoints = 8\n'
                                '[[exercise]]\nid = "04-qkv-from"\n[[exercise]]\nid = "01-self-cat"\n')
    self_cat = json.loads(subprocess.run([attn, "exercise", "show", "01-self-cat", "--student", "ana@uni.edu", "--format", "json"],
                                         env=env, check=True, capture_output=True, text=True).stdout)
    res = submit({"answers.json": json.dumps(wrong)})
    validate(res, "assignment")
    check(res.get("max_score") == 8 + 3 + self_cat["points"], f"max_score: the assignment's points: {res.get('max_score')}")
    # raw, scaled and output are right (6 of the 8 points): the named mistake's cost lands on the weights only.
    check(res["score"] == 6 + 3, f"no scaling costs the weights' 2 of the 8 points, 04-qkv-from is right: {res['score']}")
    later = [t for t in res["tests"] if t["visibility"] == "after_due_date"]
    check(len(later) == 3, f"one after_due_date test per exercise: {len(later)}")
    check(any("expected" in t["output"] for t in later), "the released tests carry the expected values")
    check(not any("expected 0." in t["output"] for t in res["tests"] if t["visibility"] == "visible"),
          "the visible tests carry no expected value")
    # Gradescope's rule (autograder specs, "Controlling Test Case Visibility"): a test at
    # after_due_date or after_published hides the student's total until then; hidden
    # tests carry no points and do not. So the released tests hide the total, and the
    # output says so.
    check(total_shown(res["tests"]) == "after_due_date", f"released tests hide the total: {total_shown(res['tests'])}")
    check(TOTAL_LATER in res["output"], f"and the output says when the total is shown: {res['output'][:300]}")
    open(assignment, "w").write('[[exercise]]\nid = "04-cross-the"\nvisibility = "after_published"\n'
                                '[[exercise]]\nid = "04-qkv-from"\n')
    res = submit({"answers.json": json.dumps(wrong)})
    validate(res, "after_published")
    check(total_shown(res["tests"]) == "after_published" and TOTAL_PUBLISHED in res["output"] and TOTAL_LATER not in res["output"],
          f"an after_published exercise: the total is shown when published: {res['output'][:300]}")
    os.remove(assignment)

    for label, files in [("broken", {"a.toml": "[04-cross-the\nraw = 1"}), ("empty", {"a.json": ""}), ("missing", None)]:
        res = submit(files)
        validate(res, label)
        check(res["score"] == 0, f"{label}: score 0")
        check("could not be graded" in res["output"], f"{label}: the output says why: {res['output'][:120]}")

    # Issue 20, identity: empty ids fall back to the next field; a group is graded for
    # every member; answers in a subfolder count; a stray file is noted, not fatal; the
    # file's `student` key is never obeyed and the teacher's flag never reaches the student.
    def with_meta(users):
        json.dump({"users": users}, open(os.path.join(d, "submission_metadata.json"), "w"))

    with_meta([{"sid": "", "email": "ana@uni.edu", "id": 1}])
    res = submit({"answers.json": json.dumps(good)})
    validate(res, "empty sid")
    check(res["score"] == 7.0, f"an empty sid falls back to the email: {res['score']}")
    with_meta([{"sid": "  ", "email": "bob@uni.edu", "id": 2}, {"sid": "", "email": "ana@uni.edu", "id": 1}])
    res = submit({"answers.json": json.dumps(good)})
    validate(res, "group")
    check(res["score"] == 7.0, f"a group submission is graded for every member (ana's numbers count): {res['score']}")
    check("group submission of 2 (bob@uni.edu, ana@uni.edu)" in res["output"], f"the group is named: {res['output'][:300]}")
    with_meta([{"email": "ana@uni.edu", "id": 1}])
    res = submit({"hw3/answers/answers.json": json.dumps(good)})
    check(res["score"] == 7.0, f"answers in a subfolder count: {res['score']} {res['output'][:200]}")
    res = submit({"answers.json": json.dumps(good), "package.json": "{\"name\": ", "notes.txt": "hi"})
    check(res["score"] == 7.0, f"a stray file beside the answers is ignored: {res['score']} {res['output'][:300]}")
    check("package.json" in res["output"] and "ignored" in res["output"], f"and noted: {res['output'][:300]}")
    claimed = dict(good, student="bob@uni.edu")
    res = submit({"answers.json": json.dumps(claimed)})
    check(res["score"] == 7.0, f"the file's student key is not obeyed: {res['score']}")
    shown = res["output"] + "".join(t["output"] for t in res["tests"])
    check("Flag" not in shown and "student key says" not in shown, f"no teacher flag reaches the student: {res['output'][:300]}")
    # Limits: thousands of unknown exercise ids with long names give a small results.json.
    junk = dict(good, **{f"no-such-exercise-{i}-" + "x" * 400: 1 for i in range(1500)})
    res = submit({"answers.json": json.dumps(junk)})
    size = len(json.dumps(res))
    check(res["score"] == 7.0 and size < 40000, f"notes are capped: results.json {size} bytes")
    check("more notes (cut)" in res["output"] and "more bytes cut]" in res["output"], f"and say what was cut: {res['output'][-300:]}")
    # Visibility: a released test never shows before its exercise (hidden stays hidden).
    os.makedirs(os.path.join(d, "results"), exist_ok=True)
    open(assignment, "w").write('release_expected = "after_due_date"\n[[exercise]]\nid = "04-cross-the"\n')
    p = subprocess.run([attn, "grade", "--gradescope", "--assignment", assignment, "--secret-file",
                        os.path.join(d, "source", "course.secret"), "--submission", os.path.join(d, "submission"),
                        "--metadata", os.path.join(d, "submission_metadata.json"), "--results", "-", "--visibility", "hidden"],
                       capture_output=True, text=True)
    res = json.loads(p.stdout)
    check(res["tests"] and all(t["visibility"] == "hidden" for t in res["tests"]),
          f"--visibility hidden reaches the released tests: {[t['visibility'] for t in res['tests']]}")
    check(TOTAL_LATER not in res["output"], "hidden tests do not hide the total (Gradescope's rule): no note")
    # An exercise's own visibility in the assignment does not escape the command line's.
    open(assignment, "w").write('release_expected = "after_due_date"\n[[exercise]]\nid = "04-cross-the"\nvisibility = "visible"\n')
    p = subprocess.run([attn, "grade", "--gradescope", "--assignment", assignment, "--secret-file",
                        os.path.join(d, "source", "course.secret"), "--submission", os.path.join(d, "submission"),
                        "--metadata", os.path.join(d, "submission_metadata.json"), "--results", "-", "--visibility", "hidden"],
                       capture_output=True, text=True)
    res = json.loads(p.stdout)
    check(res["visibility"] == "hidden" and res["tests"] and all(t["visibility"] == "hidden" for t in res["tests"]),
          f"--visibility hidden reaches an exercise marked visible: {[t['visibility'] for t in res['tests']]}")
    os.remove(assignment)

if failures:
    print(f"{len(failures)} check(s) failed")
    sys.exit(1)
print("Gradescope results.json checks passed")
