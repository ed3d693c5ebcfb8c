class CaptureError(Exception):
    """Bad input: the message is one line naming the input and what was expected."""
