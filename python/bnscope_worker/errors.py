class Unavailable(Exception):
    """The framework or the device is missing from this Python: the backend cannot run here."""


class Unsupported(Exception):
    """The framework has no kernel for this op, dtype or device."""
