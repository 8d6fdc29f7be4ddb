"""IPython kernel settings of the project's environment (`make env` copies this file to
.venv/etc/ipython/).

Jupyter Book, nbval and JupyterLab start each kernel over TCP on 127.0.0.1, without
CurveZMQ keys (jupyter_client provisions none by default, and neither myst-nb nor nbval
can be told to). ipykernel 7 then logs, at every kernel start, "Kernel is running over
TCP without encryption. ...": once for each notebook of every build, between the lines a
reader needs. The kernels of this environment are local and short-lived, so this drops
exactly that message from the kernel's log; every other message of the kernel's log, and
all its output, stay as they are.
"""

PLAINTEXT_TCP_NOTE = "Kernel is running over TCP without encryption."


def _without_plaintext_tcp_note():
    # A logging filter: a callable that returns False for the records to drop.
    return lambda record: not record.getMessage().startswith(PLAINTEXT_TCP_NOTE)


c = get_config()  # noqa: F821 (provided by IPython when it loads this file)
c.IPKernelApp.logging_config = {
    "filters": {"plaintext_tcp_note": {"()": _without_plaintext_tcp_note}},
    "handlers": {"console": {"filters": ["plaintext_tcp_note"]}},
}
