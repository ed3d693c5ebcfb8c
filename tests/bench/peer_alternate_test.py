#!/usr/bin/env python3
"""scripts/peer_alternate.py against stand-in programs: it runs bnscope and a Python peer in turn,
one case per process, for the rounds asked, takes oneDNN's rounds from one alternate/ case of
bnscope_onednn_bench (both programs in that process), records each program's times per round,
and records a case it could not time with the reason instead of stopping."""
import json
import os
import stat
import subprocess
import sys
import tempfile
import unittest

ALTERNATE = os.path.join(os.path.dirname(__file__), "..", "..", "scripts", "peer_alternate.py")
CASE = "32x7x7x2048/NHWC/train/float32"

# A Google Benchmark binary's JSON for the case its filter names; it appends its name to LOG so
# the test sees the order the programs ran in. An alternate/ case (bnscope_onednn_bench's, both
# programs in one process) reports BNSCOPE_ALT_ROUNDS rounds of each, bnscope's at 1.0 and 1.5 ms
# in turn, oneDNN's at 3.0.
GBENCH = """#!/usr/bin/env python3
import json, os, re, sys
name = re.match(r"--benchmark_filter=\\^(.*)/$", sys.argv[1]).group(1)
with open(os.environ["ALT_LOG"], "a") as f:
    f.write(os.path.basename(sys.argv[0]) + " " + name + "\\n")
if name.endswith("missing/float32"):
    print(json.dumps({"benchmarks": []}))
elif name.endswith("skipped/float32"):
    print(json.dumps({"benchmarks": [{"run_name": name, "error_occurred": True,
                                      "error_message": "outputs disagree; not timed"}]}))
elif name.startswith("alternate/") and os.environ.get("OMP_WAIT_POLICY") != "passive":
    print(json.dumps({"benchmarks": [{"run_name": name, "error_occurred": True,
                                      "error_message": "needs OMP_WAIT_POLICY=passive"}]}))
elif name.startswith("alternate/"):
    run = {"run_name": name + "/iterations:1/manual_time"}
    for k in range(int(os.environ["BNSCOPE_ALT_ROUNDS"])):
        run["ours_ms_r%%d" %% k] = 1.0 + 0.5 * (k %% 2)
        run["onednn_ms_r%%d" %% k] = 3.0
    print(json.dumps({"benchmarks": [run]}))
else:
    print(json.dumps({"benchmarks": [{"run_name": name + "/real_time", "aggregate_name": "median",
                                      "real_time": %s}]}))
"""

# The Python peers' stand-in: peer_bench.py's arguments, the out file it writes.
PYTHON = """#!/usr/bin/env python3
import json, os, sys
args = sys.argv[2:]
peer, case, out = (args[args.index(k) + 1] for k in ("--only", "--case", "--out"))
with open(os.environ["ALT_LOG"], "a") as f:
    f.write(peer + " " + case + "\\n")
with open(out, "w") as f:
    json.dump([{"peer": peer, "name": case, "ms": 2.5}], f)
"""


def script(path, text):
    with open(path, "w") as f:
        f.write(text)
    os.chmod(path, os.stat(path).st_mode | stat.S_IEXEC)


class PeerAlternate(unittest.TestCase):
    def run_alternate(self, losses, rounds):
        with tempfile.TemporaryDirectory() as d:
            bench = os.path.join(d, "build", "tests", "bench")
            os.makedirs(bench)
            script(os.path.join(bench, "bnscope_bench"), GBENCH % "1.0")
            script(os.path.join(bench, "bnscope_onednn_bench"), GBENCH % "3.0")
            script(os.path.join(d, "python"), PYTHON)
            with open(os.path.join(d, "losses.json"), "w") as f:
                json.dump(losses, f)
            log = os.path.join(d, "log")
            subprocess.run([sys.executable, ALTERNATE, "--losses", os.path.join(d, "losses.json"),
                            "--build", os.path.join(d, "build"), "--python",
                            os.path.join(d, "python"), "--out", os.path.join(d, "out.json"),
                            "--rounds", str(rounds), "--in-process-rounds", str(rounds)],
                           env=dict(os.environ, ALT_LOG=log), check=True, capture_output=True)
            with open(os.path.join(d, "out.json")) as f, open(log) as g:
                return json.load(f), g.read().splitlines()

    def test_each_loss_alternates_the_two_programs(self):
        out, order = self.run_alternate([{"case": CASE, "peer": "onednn"},
                                         {"case": CASE, "peer": "torch"}], rounds=3)
        self.assertEqual(out, [
            {"case": CASE, "peer": "onednn", "ours_ms": [1.0, 1.5, 1.0], "peer_ms": [3.0, 3.0, 3.0],
             "in_process": True},
            {"case": CASE, "peer": "torch", "ours_ms": [1.0, 1.0, 1.0], "peer_ms": [2.5, 2.5, 2.5]}])
        ours = f"bnscope_bench cpu/{CASE}"
        self.assertEqual(order, [f"bnscope_onednn_bench alternate/{CASE}", ours, f"torch {CASE}",
                                 ours, f"torch {CASE}", ours, f"torch {CASE}"])

    def test_a_case_that_cannot_be_timed_is_recorded_and_the_rest_go_on(self):
        missing = "32x7x7x2048/NHWC/missing/float32"
        skipped = "32x7x7x2048/NHWC/skipped/float32"
        out, _ = self.run_alternate([{"case": missing, "peer": "onednn"},
                                     {"case": missing, "peer": "torch"},
                                     {"case": CASE, "peer": "onednn"},
                                     {"case": skipped, "peer": "onednn"}], rounds=1)
        self.assertEqual(out[0]["ours_ms"], [])
        self.assertIn("ran no case named alternate/" + missing, out[0]["error"])
        self.assertEqual(out[1]["ours_ms"], [])
        self.assertIn("ran no case named cpu/" + missing, out[1]["error"])
        self.assertEqual(out[2]["peer_ms"], [3.0])
        self.assertEqual(out[3]["error"], "outputs disagree; not timed")


if __name__ == "__main__":
    unittest.main()
