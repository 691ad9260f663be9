#!/usr/bin/env python3
"""An agent that hangs in every phase: reads its prompt, then sleeps until it is killed."""

import sys
import time

sys.stdin.read()
while True:
    time.sleep(60)
