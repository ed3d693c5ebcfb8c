"""The capture folder appears whole or not at all: everything is written into a hidden sibling
folder that is renamed into place at the end."""

import json
import os
import shutil
import tempfile

from .errors import CaptureError

MANIFEST = "manifest.json"
FORMAT_VERSION = 1


def check_target(out_dir):
    """Fails before any work when out_dir cannot receive a capture."""
    out_dir = os.path.abspath(out_dir)
    if os.path.exists(out_dir):
        if not os.path.isdir(out_dir):
            raise CaptureError(f"--out {out_dir}: exists and is not a folder; expected a new folder")
        if os.listdir(out_dir):
            raise CaptureError(f"--out {out_dir}: folder is not empty; expected a new or empty folder")
    parent = os.path.dirname(out_dir)
    if not os.path.isdir(parent):
        raise CaptureError(f"--out {out_dir}: parent folder {parent} does not exist")
    return out_dir


class StagedFolder:
    """with StagedFolder(out) as stage: write into stage.path; renamed to out on success only."""

    def __init__(self, out_dir):
        self.out_dir = check_target(out_dir)
        self.path = None

    def __enter__(self):
        parent, name = os.path.split(self.out_dir)
        self.path = tempfile.mkdtemp(prefix="." + name + ".", suffix=".partial", dir=parent)
        # mkdtemp makes it private; the capture gets the permissions a new folder would.
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(self.path, 0o777 & ~umask)
        return self

    def __exit__(self, exc_type, exc, tb):
        if exc_type is not None:
            shutil.rmtree(self.path, ignore_errors=True)
            return False
        if os.path.isdir(self.out_dir):
            os.rmdir(self.out_dir)  # empty, checked above
        os.rename(self.path, self.out_dir)
        return False

    def write_manifest(self, manifest):
        with open(os.path.join(self.path, MANIFEST), "w") as f:
            json.dump(manifest, f, indent=2)
            f.write("\n")
