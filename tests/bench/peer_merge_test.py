#!/usr/bin/env python3
"""scripts/peer_merge.py over two rounds: each case and implementation takes its fastest median,
fractions divide by the fastest copy, and a single round gives the plain table."""
import json
import os
import subprocess
import sys
import tempfile
import unittest

MERGE = os.path.join(os.path.dirname(__file__), "..", "..", "scripts", "peer_merge.py")
CASE = "32x7x7x2048/NHWC/freeze/float32"
BYTES = 3 * 32 * 7 * 7 * 2048 * 4


def gbench(prefix, ms, copy):
    return {"context": {"host_name": "test", "num_cpus": 2}, "benchmarks": [{
        "name": f"{prefix}/{CASE}/real_time_median", "run_name": f"{prefix}/{CASE}/real_time",
        "aggregate_name": "median", "real_time": ms, "time_unit": "ms",
        "GBps": BYTES / (ms * 1e-3) / 1e9, "frac_copy": BYTES / (ms * 1e-3) / 1e9 / copy,
        "copy_GBps": copy, "threads": 2}]}


def row(table):
    return next(l for l in table.splitlines() if l.startswith("| 32x7x7x2048")).split(" | ")


class PeerMerge(unittest.TestCase):
    def merge(self, rounds):
        with tempfile.TemporaryDirectory() as d:
            args = [sys.executable, MERGE]
            for i, (ours, onednn, torch, copy) in enumerate(rounds):
                files = {"ours": gbench("cpu", ours, copy), "onednn": gbench("onednn", onednn, copy),
                         "peers": [{"peer": "torch", "version": "x", "name": CASE, "ms": torch}]}
                for k, v in files.items():
                    path = os.path.join(d, f"{k}{i}.json")
                    with open(path, "w") as f:
                        json.dump(v, f)
                    args += [f"--{k}", path]
            return subprocess.run(args, check=True, capture_output=True, text=True).stdout

    def test_best_of_rounds_for_every_implementation(self):
        out = self.merge([(2.0, 3.0, 1.0, 30.0), (1.0, 4.0, 2.0, 40.0)])
        r = row(out)
        self.assertEqual(r[4], "1.000")  # our fastest round
        gbps = BYTES / 1e-3 / 1e9
        self.assertEqual(r[6], f"{gbps / 40.0:.2f}")  # over the fastest copy
        self.assertEqual(r[7], "3.00")  # oneDNN's fastest (3.0) over ours (1.0)
        self.assertEqual(r[9], "1.00")  # PyTorch's fastest (1.0) over ours
        self.assertIn("Best median of 2 rounds", out)
        self.assertIn("(by round: 30.00, 40.00 GB/s)", out)  # each round's own probe, in order

    def test_one_round_is_the_plain_table(self):
        out = self.merge([(2.0, 3.0, 1.0, 30.0)])
        r = row(out)
        self.assertEqual(r[4], "2.000")
        self.assertEqual(r[7], "1.50")
        self.assertNotIn("rounds", out)

    def verdict(self, out):
        return {l.split(": ")[0][2:]: l.split(": ", 1)[1] for l in out.splitlines()
                if l.startswith("* ") and ("met (" in l)}

    def test_verdict_names_the_cases_that_miss_a_goal(self):
        v = self.verdict(self.merge([(2.0, 3.0, 1.0, 30.0)]))  # 0.64 of copy; PyTorch 2x faster
        self.assertEqual(v["freeze geomean >= 0.85, none under 0.7"],
                         f"NOT met (0.64, worst 0.64; under 0.7: {CASE})")
        self.assertEqual(v["faster than torch on every case"],
                         f"NOT met (worst 0.50x; not faster: {CASE} 0.50x)")
        self.assertEqual(v["faster than onednn on every case"], "met (worst 1.50x)")

    def test_verdict_met_and_the_hosts_table_row(self):
        out = self.merge([(1.0, 3.0, 2.0, 30.0)])  # 1.28 of copy; 3x oneDNN, 2x PyTorch
        v = self.verdict(out)
        self.assertEqual(v["freeze geomean >= 0.85, none under 0.7"], "met (1.28, worst 1.28)")
        self.assertEqual(v["faster than torch on every case"], "met (worst 2.00x)")
        self.assertTrue(out.rstrip().endswith("| — / — / — | 1.28 (1.28) | — | 3.00x / 2.00x / — |"))


if __name__ == "__main__":
    unittest.main()
