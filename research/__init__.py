"""research.py: breadth-first desk research driven by an AI coding agent."""

__version__ = "0.1.0"
