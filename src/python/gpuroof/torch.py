"""``on_trace_ready`` for ``torch.profiler.profile``: save the trace, then show its engine table.

    with torch.profiler.profile(on_trace_ready=gpuroof.torch.trace_handler("./traces")) as prof:
        ...

No import of torch here: the handler only calls ``prof.export_chrome_trace(path)``, as
``torch.profiler.tensorboard_trace_handler`` does, with the same file naming.
"""

import os
import socket
import time
import warnings

from . import CheckFailed, GpuroofWarning, InputError, load


def _one_line(error, path):
    """The error's message on one line, without a leading "PATH: " (the warning names the file)."""
    message = " ".join(str(error).split())
    for prefix in (f"{path}: ", f"{os.path.abspath(path)}: "):
        if message.startswith(prefix):
            return message[len(prefix):]
    return message


def trace_handler(dir_name, worker_name=None, analyze=True, use_gzip=False, **analyze_options):
    """Returns a handler that writes ``<dir>/<worker>.<ms>.pt.trace.json[.gz]`` and, with
    ``analyze``, prints gpuroof's engine table of that capture. The last result is kept on the
    handler as ``handler.last_result`` (a gpuroof Result) and the path as ``handler.last_path``.

    The handler is an observer: it never raises out of ``on_trace_ready`` (that would end the
    training loop in ``prof.step()``). A capture gpuroof cannot analyse (no GPU work in the
    window, a ``units_from`` range it does not hold, a reader error) gives one
    ``GpuroofWarning`` naming the file; ``last_result`` is then None and the error is kept as
    ``handler.last_error`` (None after a capture that was analysed). The trace stays saved.
    """

    def handler(prof):
        os.makedirs(dir_name, exist_ok=True)
        worker = worker_name or f"{socket.gethostname()}_{os.getpid()}"
        name = f"{worker}.{time.time_ns() // 1_000_000}.pt.trace.json"
        if use_gzip:
            name += ".gz"
        path = os.path.join(dir_name, name)
        prof.export_chrome_trace(path)
        handler.last_path = path
        handler.last_result = None
        handler.last_error = None
        if analyze:
            try:
                result = load(path).analyze(**analyze_options)
            # TypeError/ValueError: an option gpuroof does not take, or a value it refuses (a
            # typo in the handler's keywords) must not end the training run either.
            except (InputError, CheckFailed, TypeError, ValueError) as error:
                handler.last_error = error
                warnings.warn(f"gpuroof: {path}: not analysed (the trace is saved): "
                              f"{_one_line(error, path)}", GpuroofWarning, stacklevel=2)
                return None
            handler.last_result = result
            print(f"gpuroof: {path}")
            print(result.engines.to_string(index=False) if hasattr(result.engines, "to_string")
                  else result.engines)
            return result
        return None

    handler.last_path = None
    handler.last_result = None
    handler.last_error = None
    return handler
