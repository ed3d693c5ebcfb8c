#!/usr/bin/env python3
"""scripts/peer_merge.py over two rounds: each case and implementation takes its fastest median,
fractions divide by the fastest copy (against the adjacent probes: the best round's), and a single
round gives the plain table."""
import json
import os
import subprocess
import sys
import tempfile
import unittest

MERGE = os.path.join(os.path.dirname(__file__), "..", "..", "scripts", "peer_merge.py")
CASE = "32x7x7x2048/NHWC/freeze/float32"
BYTES = 3 * 32 * 7 * 7 * 2048 * 4


def gbench(prefix, ms, copy, adjacent=None):
    case = {"name": f"{prefix}/{CASE}/real_time_median", "run_name": f"{prefix}/{CASE}/real_time",
            "aggregate_name": "median", "real_time": ms, "time_unit": "ms",
            "GBps": BYTES / (ms * 1e-3) / 1e9, "frac_copy": BYTES / (ms * 1e-3) / 1e9 / copy,
            "copy_GBps": copy, "threads": 2}
    if adjacent:  # the copy probed right after the case (bench_util.h)
        case.update(frac_copy_adj=BYTES / (ms * 1e-3) / 1e9 / adjacent, copy_adj_GBps=adjacent)
    return {"context": {"host_name": "test", "num_cpus": 2}, "benchmarks": [case]}


def row(table):
    return next(l for l in table.splitlines() if l.startswith("| 32x7x7x2048")).split(" | ")


def cli(ms, copy, after=0.0):
    """bnscope-cli bench --json of CASE: the logical shape NHWC, physical in the report; `after`
    the copy it probed right after the case (0: none)."""
    gbps = BYTES / (ms * 1e-3) / 1e9
    return {"profiles": [{"backend": "cpu", "shape": [32, 7, 7, 2048], "data_format": "NHWC",
                          "is_training": False, "dtype": "float32", "kernel_seconds": ms * 1e-3,
                          "achieved_gbps": gbps, "roofline_gbps": copy,
                          "roofline_fraction": gbps / copy, "copy_after_gbps": after}]}


class PeerMerge(unittest.TestCase):
    def merge(self, rounds, cli_ms=(), adjacent=(), alternated=None, losses=None, cli_after=()):
        with tempfile.TemporaryDirectory() as d:
            args = [sys.executable, MERGE]
            if alternated is not None:
                path = os.path.join(d, "alternated.json")
                with open(path, "w") as f:
                    json.dump(alternated, f)
                args += ["--alternated", path]
            if losses is not None:
                args += ["--losses", os.path.join(d, "losses.json")]
            for i, (ours, onednn, torch, copy) in enumerate(rounds):
                adj = adjacent[i] if i < len(adjacent) else None
                files = {"ours": gbench("cpu", ours, copy, adj),
                         "onednn": gbench("onednn", onednn, copy),
                         "peers": [{"peer": "torch", "version": "x", "name": CASE, "ms": torch}]}
                if i < len(cli_ms):
                    files["cli"] = cli(cli_ms[i], copy, cli_after[i] if i < len(cli_after) else 0)
                for k, v in files.items():
                    path = os.path.join(d, f"{k}{i}.json")
                    with open(path, "w") as f:
                        json.dump(v, f)
                    args += [f"--{k}", path]
            out = subprocess.run(args, check=True, capture_output=True, text=True).stdout
            if losses is not None:
                with open(os.path.join(d, "losses.json")) as f:
                    losses.extend(json.load(f))
            return out

    def test_best_of_rounds_for_every_implementation(self):
        out = self.merge([(2.0, 3.0, 1.0, 30.0), (1.0, 4.0, 2.0, 40.0)])
        r = row(out)
        self.assertEqual(r[4], "1.000")  # our fastest round
        gbps = BYTES / 1e-3 / 1e9
        self.assertEqual(r[6], f"{gbps / 40.0:.2f}")  # over the fastest copy
        self.assertEqual(r[7], "—")  # no adjacent probe in these rounds
        self.assertEqual(r[8], "3.00")  # oneDNN's fastest (3.0) over ours (1.0)
        self.assertEqual(r[10], "1.00")  # PyTorch's fastest (1.0) over ours
        self.assertIn("Best median of 2 rounds", out)
        self.assertIn("(by round: 30.00, 40.00 GB/s)", out)  # each round's own probe, in order

    def test_one_round_is_the_plain_table(self):
        out = self.merge([(2.0, 3.0, 1.0, 30.0)])
        r = row(out)
        self.assertEqual(r[4], "2.000")
        self.assertEqual(r[8], "1.50")
        self.assertNotIn("rounds", out)
        self.assertNotIn("copy probed right after", out)

    def test_adjacent_fraction_is_the_best_rounds_against_its_own_probe(self):
        # Round 1: 2.0 ms beside a copy of 15 GB/s (the host busy then); round 2: 1.0 ms beside
        # 80. The time is round 2's, frac_adj round 1's (it ran closer to its copy's speed).
        out = self.merge([(2.0, 3.0, 1.0, 30.0), (1.0, 4.0, 2.0, 40.0)], adjacent=(15.0, 80.0))
        adj = f"{BYTES / 2e-3 / 1e9 / 15.0:.2f}"
        self.assertEqual(adj, "1.28")
        self.assertEqual(row(out)[7], adj)
        line = next(l for l in out.splitlines() if "copy probed right after" in l)
        self.assertTrue(line.endswith(f"training f32 / bf16 / f16 — / — / —; freeze {adj} "
                                      f"(worst {adj})"), line)
        # The verdicts stay on frac_copy: 1.0 ms over the fastest copy, 40 GB/s.
        self.assertEqual(self.verdict(out)["freeze geomean >= 0.85, none under 0.7"],
                         "met (0.96, worst 0.96)")

    def test_each_rounds_figures_against_its_own_probe(self):
        # Round 2's probe met a burst (80 GB/s) its case did not: against it the table reads
        # 0.45; round 1 alone, its 1.2 ms against its 30 GB/s, reads 1.00.
        out = self.merge([(1.2, 3.0, 1.0, 30.0), (1.3, 4.0, 2.0, 80.0)])
        line = next(l for l in out.splitlines() if "each round against its own" in l)
        r1 = f"{BYTES / 1.2e-3 / 1e9 / 30.0:.2f}"
        r2 = f"{BYTES / 1.3e-3 / 1e9 / 80.0:.2f}"
        self.assertIn(f"round 1 (copy 30.00 GB/s) training f32 / bf16 / f16 — / — / —, freeze {r1} "
                      f"(worst {r1})", line)
        self.assertIn(f"round 2 (copy 80.00 GB/s) training f32 / bf16 / f16 — / — / —, freeze {r2} "
                      f"(worst {r2})", line)
        self.assertEqual(row(out)[6], f"{BYTES / 1.2e-3 / 1e9 / 80.0:.2f}")
        self.assertNotIn("each round against its own", self.merge([(1.2, 3.0, 1.0, 30.0)]))

    def test_the_cases_a_peer_won_and_their_alternated_times(self):
        # oneDNN 3.0 ms against our 2.0: we win; PyTorch 1.0: it wins, so it is the one loss.
        losses = []
        out = self.merge([(2.0, 3.0, 1.0, 30.0)], losses=losses)
        self.assertEqual(losses, [{"case": CASE, "peer": "torch"}])
        self.assertNotIn("timed again alternating", out)
        # Timed again in turn: ours 1.0-1.2 ms, PyTorch's 1.5-2.0: a 1.5x win after all.
        again = [{"case": CASE, "peer": "torch", "ours_ms": [1.2, 1.0, 1.1],
                  "peer_ms": [1.5, 2.0, 1.8]}]
        out = self.merge([(2.0, 3.0, 1.0, 30.0)], alternated=again)
        v = self.verdict(out)
        self.assertEqual(v["faster than torch on every case"],
                         f"NOT met (worst 0.50x; not faster: {CASE} 0.50x)")  # the run's, kept
        self.assertEqual(v["faster than torch on every case, the run's losses timed again "
                           "alternating"], "met (1 of 1 re-timed)")
        alt_row = next(l for l in out.splitlines()
                       if l.startswith("| 32x7x7x2048") and "| torch |" in l).split(" | ")
        self.assertEqual(alt_row[5:], ["1.100", "1.800", "1.64 |"])
        self.assertTrue(out.splitlines()[-1].startswith("| 32x7x7x2048"))  # the section last
        self.assertIn("the Python peers one case per process, 3 rounds", out)
        self.assertNotIn("oneDNN in bnscope's process", out)
        # oneDNN's rounds came from one process: said so, beside the Python peers' way.
        both = again + [{"case": CASE, "peer": "onednn", "ours_ms": [1.0] * 8,
                         "peer_ms": [1.1] * 8, "in_process": True}]
        out = self.merge([(2.0, 3.0, 1.0, 30.0)], alternated=both)
        self.assertIn("oneDNN in bnscope's process, windows of back-to-back calls of each in "
                      "turn, 8 rounds; the Python peers one case per process, 3 rounds", out)
        # A peer still ahead, and one the re-timing could not run, are named.
        again = [{"case": CASE, "peer": "torch", "ours_ms": [1.0], "peer_ms": [0.9]},
                 {"case": CASE, "peer": "tensorflow", "ours_ms": [], "peer_ms": [],
                  "error": "boom"}]
        v = self.verdict(self.merge([(2.0, 3.0, 1.0, 30.0)], alternated=again))
        self.assertEqual(v["faster than torch on every case, the run's losses timed again "
                           "alternating"], f"NOT met (1 of 1 re-timed; not faster: {CASE} 0.90x)")
        self.assertEqual(v["faster than tensorflow on every case, the run's losses timed again "
                           "alternating"], f"NOT met (0 of 1 re-timed; not timed: {CASE})")
        # A loss of the run that the re-timing left out is not taken as won.
        v = self.verdict(self.merge([(2.0, 3.0, 1.0, 30.0)], alternated=[]))
        self.assertEqual(v["faster than torch on every case, the run's losses timed again "
                           "alternating"], f"NOT met (0 of 1 re-timed; not timed: {CASE})")

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

    def test_cli_within_the_benchmarks_own_spread_agrees(self):
        # Benchmark rounds 1.0 and 1.2 ms (spread 1.2); the CLI's best 1.1 ms: 1.10x.
        out = self.merge([(1.0, 3.0, 2.0, 30.0), (1.2, 3.0, 2.0, 30.0)], cli_ms=(1.1, 1.3))
        cli_row = next(l for l in out.splitlines()
                       if l.startswith("| 32x7x7x2048") and l.count("|") == 12).split(" | ")
        self.assertEqual(cli_row[4:7], ["1.000", "1.100", "1.10"])
        v = self.verdict(out)
        self.assertTrue(v["`bnscope-cli bench` agrees with the benchmark within its "
                           "round-to-round spread"].startswith("met (CLI / benchmark time geomean "
                                                               "1.10"), v)
        # The verdict line sits among the verdicts, before the hosts-table row.
        lines = out.splitlines()
        at = next(i for i, l in enumerate(lines) if "agrees with the benchmark" in l)
        self.assertTrue(lines[at - 1].startswith("* small-C") or "met (" in lines[at - 1])
        self.assertLess(at, next(i for i, l in enumerate(lines) if l.startswith("For README")))

    def test_cli_gap_beyond_the_spread_is_named(self):
        out = self.merge([(1.0, 3.0, 2.0, 30.0), (1.05, 3.0, 2.0, 30.0)], cli_ms=(1.5, 1.6))
        v = self.verdict(out)
        self.assertIn(f"NOT met (CLI / benchmark time geomean 1.50, from 1.50 ({CASE})",
                      v["`bnscope-cli bench` agrees with the benchmark within its "
                        "round-to-round spread"])

    def cli_verdict_after(self, cli_after):
        """The agreement verdict of a CLI 1.5x the benchmark's time (rounds 1.05x apart), both
        with a copy probed after each case: the benchmark's 30 GB/s, the CLI's `cli_after`."""
        out = self.merge([(1.0, 3.0, 2.0, 30.0), (1.05, 3.0, 2.0, 30.0)], cli_ms=(1.5, 1.6),
                         adjacent=(30.0, 30.0), cli_after=(cli_after, cli_after))
        return self.verdict(out)[
            "`bnscope-cli bench` agrees with the benchmark within its round-to-round spread"]

    def test_cli_slower_in_a_busier_minute_agrees_against_the_copy_after_each_case(self):
        v = self.cli_verdict_after(20.0)  # its minute's copy 1.5x lower: the same fraction
        self.assertTrue(v.startswith("met (CLI / benchmark time geomean 1.50"), v)
        self.assertIn("against the copy each probed right after the case 1.00 over 1 cases", v)

    def test_cli_gap_against_the_copy_after_each_case_is_named(self):
        v = self.cli_verdict_after(30.0)  # the same minute's copy: the 1.5x gap is the programs'
        self.assertTrue(v.startswith("NOT met"), v)
        self.assertIn("right after the case 1.50", v)

    def test_cli_of_one_round_reports_without_a_verdict(self):
        out = self.merge([(1.0, 3.0, 2.0, 30.0)], cli_ms=(1.5,))
        self.assertIn("one round, so no spread to judge it by", out)
        self.assertNotIn("agrees with the benchmark", out)


if __name__ == "__main__":
    unittest.main()
