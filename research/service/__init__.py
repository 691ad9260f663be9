"""`research serve`: the HTTP service (the optional [server] extra)."""
