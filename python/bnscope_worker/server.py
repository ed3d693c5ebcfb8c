"""The request loop: hello, run, release, bye. Every reply is {"ok": true, ...} or
{"ok": false, "unavailable"|"unsupported"|"error": "<one line>"}."""

import importlib.util
import json
import os
import sys
import time
import traceback

from .channel import Channel, ChannelClosed
from .errors import Unavailable, Unsupported
from .lending import LendingBroken
from .prefetch import Prefetch


def probe():
    """Which frameworks this Python has, without importing them (an import takes seconds)."""
    def has(name):
        try:
            return importlib.util.find_spec(name) is not None
        except (ImportError, ValueError):
            return False

    return {"ok": True, "python": sys.executable, "version": sys.version.split()[0],
            "numpy": has("numpy"), "tensorflow": has("tensorflow"), "torch": has("torch")}


def make_runner(framework, variant):
    if not importlib.util.find_spec("numpy"):
        raise Unavailable(f"no numpy in {sys.executable} (pip install numpy)")
    if framework == "tensorflow":
        from .tf_runner import TfRunner
        return TfRunner(variant)
    if framework == "torch":
        from .torch_runner import TorchRunner
        return TorchRunner(variant)
    raise Unavailable(f"unknown framework {framework!r}")


def one_line(e):
    text = str(e).strip().splitlines()
    first = text[0] if text else ""
    return f"{type(e).__name__}: {first}" if not isinstance(e, (Unsupported, Unavailable)) else first


class Server:
    def __init__(self, runner, prefetch=None):
        from .lending import Lending
        from .segments import Segments  # numpy: not for the probe, which runs without it

        self.runner = runner
        self.segments = Segments(prefetch)
        self.lending = Lending()
        self.held = {}  # input name -> (version, numpy view)
        self.retired = None  # the last run's outputs, until its answer is sent

    def run(self, msg):
        self.segments.release(msg.get("release", []))
        t0 = time.perf_counter()
        for i in msg["inputs"]:
            if "seg" in i:  # new bytes; otherwise the worker holds this version already
                arr = self.segments.view(i["seg"], i["path"], i["bytes"], i["dtype"], i["shape"])
                self.held[i["name"]] = (i["version"], arr)
                self.runner.forget(i["name"])
            elif self.held.get(i["name"], (None,))[0] != i["version"]:
                raise RuntimeError(f"input {i['name']} version {i['version']} was never sent")
        views = {i["name"]: self.held[i["name"]][1] for i in msg["inputs"]}
        dtypes = {i["name"]: i["dtype"] for i in msg["inputs"]}
        # Segments this worker has pages of are lent to the kernel's output allocations (a new
        # one is written through its descriptor instead, which is faster than faulting it in).
        lent = [(o["name"], self.segments.view(o["seg"], o["path"], o["bytes"], o["dtype"],
                                               o["shape"]))
                for o in msg["outputs"] if self.segments.has_pages(o["seg"])]
        key = (msg["op"], json.dumps(msg["attrs"], sort_keys=True),
               tuple(i["dtype"] for i in msg["inputs"]))
        transfer = time.perf_counter() - t0
        out = self.runner.run(msg["op"], msg["attrs"], msg["convention"], views, dtypes,
                              msg.get("threads", 0),
                              {"order": msg["output_order"],
                               "wanted": [o["name"] for o in msg["outputs"]]},
                              lambda: self.lending.window(key, lent))
        transfer += out.transfer_seconds
        t1 = time.perf_counter()
        landed, copies = [], []
        for o in msg["outputs"]:
            value = out.outputs.get(o["name"])
            if value is None:
                raise RuntimeError(f"{self.runner.framework} returned no {o['name']}")
            dtype, shape = storage_dtype(o["dtype"]), tuple(o["shape"])
            if tuple(value.shape) != shape or value.dtype != dtype:
                raise RuntimeError(
                    f"{self.runner.framework} returned {o['name']} as {value.dtype}"
                    f"{list(value.shape)}, expected {dtype}{list(shape)}")
            if self.lending.landed(key, o["name"], value):  # the kernel wrote it in place
                landed.append(o["name"])
            else:  # every value detached before any copy overwrites a segment
                copies.append((o, self.lending.detached(value)))
        for o, value in copies:
            if self.segments.has_pages(o["seg"]):  # copied into its mapping on two threads
                copy_into(self.segments.view(o["seg"], o["path"], o["bytes"], o["dtype"],
                                             o["shape"]), value)
            else:  # a new segment: its pages are made holding the bytes
                self.segments.write(o["seg"], o["path"], value)
        self.lending.finish(len(landed))
        download = time.perf_counter() - t1 + out.download_seconds
        # The framework's outputs are freed once the answer is sent (retire()): freeing 103 MB
        # takes PyTorch or Eigen 3-6 ms, which bnscope need not wait for.
        self.retired = out
        return {"ok": True, "kernel_seconds": out.kernel_seconds, "transfer_seconds": transfer,
                "download_seconds": download, "notes": out.notes, "in_place": landed}

    def retire(self):
        self.retired = None


def storage_dtype(name):
    import numpy as np

    from .segments import STORAGE
    return np.dtype(STORAGE[name])


def copy_into(dst, src):
    """A large output is copied in two halves on two threads (numpy lets go of the GIL)."""
    import numpy as np
    if dst.size < (1 << 20) or dst.ndim == 0 or dst.shape[0] < 2:
        np.copyto(dst, src)
        return
    import threading
    half = dst.shape[0] // 2
    t = threading.Thread(target=np.copyto, args=(dst[half:], src[half:]))
    t.start()
    np.copyto(dst[:half], src[:half])
    t.join()


def main(argv):
    ch = Channel.from_environment()
    framework = argv[0] if argv else "probe"
    variant = argv[1] if len(argv) > 1 else "default"
    if framework == "probe":
        ch.receive()
        ch.send(probe())
        return 0
    # Started before the framework's import, which it runs beside.
    prefetch = Prefetch(os.environ.get("BNSCOPE_WORKER_PREFETCH", ""))
    try:
        runner = make_runner(framework, variant)
        startup = {"ok": True, **runner.describe()}
    except Unavailable as e:
        runner, startup = None, {"ok": False, "unavailable": str(e)}
    except Exception as e:  # an import that fails for another reason (a broken install)
        runner, startup = None, {"ok": False, "unavailable": f"{framework} does not import in "
                                 f"{sys.executable}: {one_line(e)}"}
    server = Server(runner, prefetch) if runner else None
    if startup.get("ok"):
        startup["prefetched"] = prefetch.prefetched()
    while True:
        try:
            msg = ch.receive()
        except ChannelClosed:
            return 0
        cmd = msg.get("cmd")
        try:
            if cmd == "hello":
                reply = startup
            elif cmd == "bye":
                ch.send({"ok": True})
                return 0
            elif cmd == "crash":  # the tests' way to kill the worker from inside
                os.abort()
            elif server is None:
                reply = startup
            elif cmd == "run":
                try:
                    reply = server.run(msg)
                except LendingBroken as e:
                    # The segment is the framework's now: this worker cannot write into it again
                    # safely. It answers and leaves; bnscope starts the next one without lending.
                    ch.send({"ok": False, "error": f"{e}; the worker restarts without output "
                             "lending (run again)", "lending_broken": True})
                    return 3
            elif cmd == "release":
                server.segments.release(msg.get("release", []))
                reply = {"ok": True}
            else:
                reply = {"ok": False, "error": f"unknown request {cmd!r}"}
        except Unsupported as e:
            reply = {"ok": False, "unsupported": str(e)}
        except Exception as e:
            traceback.print_exc()
            reply = {"ok": False, "error": one_line(e)}
        ch.send(reply)
        if server is not None:
            server.retire()
