"""The process a ``Client`` reads a PDF in: ``python -m webcanon._pdf_worker``.

It reads one document on standard input and sends its pages on standard
output, limited in memory, CPU time and stack, so that no PDF can crash or
bloat the process that fetched it. Not for direct use.
"""

import sys

from ._webcanon import run_pdf_worker

if __name__ == "__main__":
    sys.exit(run_pdf_worker())
