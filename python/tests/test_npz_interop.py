"""bnscope's own zip code against numpy's: each reads what the other writes, stored and deflated."""

import io
import zipfile

import numpy as np

INPUTS = ("x", "y_backprop", "scale", "reserve_space_1", "reserve_space_2", "reserve_space_3")


def sample(run_cli, path, *extra):
    r = run_cli("sample", "--shape", "3,5,4,6", "--seed", "7", "--out", path, *extra)
    assert r.returncode == 0, r.stderr
    with zipfile.ZipFile(path) as z:
        assert z.testzip() is None
        return {i.filename: i.compress_type for i in z.infolist()}


def test_numpy_reads_what_bnscope_writes(run_cli, tmp_path):
    stored, deflated = tmp_path / "stored.npz", tmp_path / "deflated.npz"
    assert set(sample(run_cli, stored).values()) == {zipfile.ZIP_STORED}
    assert set(sample(run_cli, deflated, "--compress").values()) == {zipfile.ZIP_DEFLATED}
    a, b = np.load(stored), np.load(deflated)
    for name in INPUTS:
        assert a[name].dtype == np.float32 and b[name].dtype == np.float32
        np.testing.assert_array_equal(a[name], b[name])
    assert a["x"].shape == (3, 5, 4, 6)


def test_bnscope_reads_what_numpy_writes(run_cli, tmp_path):
    problem = tmp_path / "p.npz"
    sample(run_cli, problem)
    arrays = {name: np.load(problem)[name] for name in INPUTS}
    np.savez(tmp_path / "plain.npz", **arrays)
    np.savez_compressed(tmp_path / "packed.npz", **arrays)
    outputs = {}
    for name, args in {"problem": ("--problem", problem),
                       "plain": ("--inputs", tmp_path / "plain.npz"),
                       "packed": ("--inputs", tmp_path / "packed.npz")}.items():
        out = tmp_path / ("out_" + name)
        r = run_cli("run", *args, "--attr", "epsilon=0.001", "--out", out, "--quiet")
        assert r.returncode == 0, r.stderr
        outputs[name] = np.load(out / "x_backprop.npy")
    np.testing.assert_array_equal(outputs["problem"], outputs["plain"])
    np.testing.assert_array_equal(outputs["problem"], outputs["packed"])


def test_a_member_declared_shorter_than_its_data_is_refused(run_cli, tmp_path):
    problem = tmp_path / "p.npz"
    sample(run_cli, problem)
    path = tmp_path / "bad.npz"
    # Plain zip records (numpy's savez_compressed writes Zip64 ones): the sizes sit in the
    # headers' fixed fields.
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for name in INPUTS:
            npy = io.BytesIO()
            np.lib.format.write_array(npy, np.load(problem)[name])
            z.writestr(name + ".npy", npy.getvalue())
    data = bytearray(path.read_bytes())
    # x.npy's uncompressed size, in its local header and its central entry alike, cut to 200
    # bytes: past the .npy header, short of the data.
    for sig, size_at, name_at in ((b"PK\x03\x04", 22, 30), (b"PK\x01\x02", 24, 46)):
        at = data.find(sig)
        while data[at + name_at:at + name_at + 5] != b"x.npy":
            at = data.find(sig, at + 4)
        data[at + size_at:at + size_at + 4] = (200).to_bytes(4, "little")
    path.write_bytes(bytes(data))
    r = run_cli("run", "--inputs", path, "--attr", "epsilon=0.001", "--out", tmp_path / "o")
    assert r.returncode == 2, r.stderr
    assert len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert "bad.npz" in r.stderr and "x.npy" in r.stderr, r.stderr
    assert not (tmp_path / "o").exists()
