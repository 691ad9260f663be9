"""`research mcp`: research.py as a Model Context Protocol server (stdio, or streamable
HTTP with --http PORT), built on the official `mcp` SDK (the optional `[mcp]` extra).

Its tools drive the service's own job core (`research.service`): a session started here is
an ordinary session, a child `research` process in the working directory (or a job on the
task queue with --queue), seen by --status, --resume, `research serve` and the page.
"""
