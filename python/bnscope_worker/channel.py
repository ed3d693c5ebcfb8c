"""The framed message channel: 4-byte little-endian length, then that many bytes of UTF-8 JSON."""

import json
import os
import struct

MAX_MESSAGE_BYTES = 64 << 20


class ChannelClosed(Exception):
    pass


def _read_exact(fd, n):
    chunks = []
    while n > 0:
        b = os.read(fd, n)
        if not b:
            raise ChannelClosed()
        chunks.append(b)
        n -= len(b)
    return b"".join(chunks)


class Channel:
    def __init__(self, read_fd, write_fd):
        self.read_fd = read_fd
        self.write_fd = write_fd

    @classmethod
    def from_environment(cls):
        return cls(int(os.environ.get("BNSCOPE_IPC_IN", "3")),
                   int(os.environ.get("BNSCOPE_IPC_OUT", "4")))

    def receive(self):
        (n,) = struct.unpack("<I", _read_exact(self.read_fd, 4))
        if n > MAX_MESSAGE_BYTES:
            raise ValueError(f"a request of {n} bytes is over the limit of {MAX_MESSAGE_BYTES}")
        return json.loads(_read_exact(self.read_fd, n).decode("utf-8"))

    def send(self, message):
        body = json.dumps(message).encode("utf-8")
        data = struct.pack("<I", len(body)) + body
        view = memoryview(data)
        while view:
            w = os.write(self.write_fd, view)
            view = view[w:]
