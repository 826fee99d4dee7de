"""``on_trace_ready`` for ``torch.profiler.profile``: save the trace, then show its engine table.

    with torch.profiler.profile(on_trace_ready=gpuroof.torch.trace_handler("./traces")) as prof:
        ...

No import of torch here: the handler only calls ``prof.export_chrome_trace(path)``, as
``torch.profiler.tensorboard_trace_handler`` does, with the same file naming.
"""

import os
import socket
import time

from . import load


def trace_handler(dir_name, worker_name=None, analyze=True, use_gzip=False, **analyze_options):
    """Returns a handler that writes ``<dir>/<worker>.<ms>.pt.trace.json[.gz]`` and, with
    ``analyze``, prints gpuroof's engine table of that capture. The last result is kept on the
    handler as ``handler.last_result`` (a gpuroof Result) and the path as ``handler.last_path``.
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
        if analyze:
            result = load(path).analyze(**analyze_options)
            handler.last_result = result
            print(f"gpuroof: {path}")
            print(result.engines.to_string(index=False) if hasattr(result.engines, "to_string")
                  else result.engines)
            return result
        return None

    handler.last_path = None
    handler.last_result = None
    return handler
